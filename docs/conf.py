"""Sphinx configuration of nfvperf's documentation (``make docs``; strict in ``make test``).

Pages are MyST Markdown. The reference pages are generated at build time from the code
(``_ext/nfvperf_docs.py``: the CLI from the Typer app, the file schemas, the JSON outputs, the
Python API from docstrings), so they cannot drift from it.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent / "src"))

import nfvperf  # noqa: E402

project = "nfvperf"
author = "the nfvperf authors"
release = version = nfvperf.__version__
copyright = "the nfvperf authors, MIT licence"

extensions = ["myst_parser", "sphinx.ext.autodoc", "nfvperf_docs"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "reference/_gen"]
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence", "deflist"]
suppress_warnings = ["myst.header"]   # pages may start below level one (included fragments)

html_theme = "furo"
html_title = f"nfvperf {release}"
html_static_path = []

autodoc_member_order = "bysource"
autodoc_typehints = "description"
