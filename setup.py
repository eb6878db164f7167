"""The package's metadata is in pyproject.toml; this adds one build step: a wheel carries the C
data plane's sources (dataplane/ -> nfvperf/_dataplane/), so that an installed nfvperf can
build its data plane on a host with DPDK (``nfvperf dataplane build``)."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


class BuildPyWithDataplane(build_py):
    def run(self):
        super().run()
        src = HERE / "dataplane"
        if src.is_dir() and not getattr(self, "editable_mode", False):
            shutil.copytree(src, Path(self.build_lib) / "nfvperf" / "_dataplane",
                            dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildPyWithDataplane})
