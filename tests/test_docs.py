"""The documentation cannot go stale: the site builds in strict mode (a broken link, anchor or
reference fails), every command a page marks as checked runs and prints what the page shows,
the reference pages come from the code, and the README stays a short entry point whose links
lead somewhere."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

#: a block the tests run: a console block marked ``<!-- check -->`` prints what the page shows
#: under each command; marked ``<!-- check: runs -->``, a console block's commands succeed and a
#: Python block runs to its end
CHECKED = re.compile(r"^<!-- check(?P<runs>: runs)? -->\n```(?P<lang>console|python)\n"
                     r"(?P<body>.*?)^```$", re.M | re.S)


def _pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if "_gen" not in p.parts)


def _blocks(lang: str):
    """(body, runs only) of each checked block in ``lang``, named by its page and line."""
    for page in _pages():
        text = page.read_text()
        for m in CHECKED.finditer(text):
            if m.group("lang") == lang:
                line = text[:m.start()].count("\n") + 1
                yield pytest.param(m.group("body"), bool(m.group("runs")),
                                   id=f"{page.relative_to(DOCS)}:{line}")


@pytest.fixture
def clone(tmp_path) -> Path:
    """A directory where a page's commands run as in a clone of the repository."""
    for shown in ("examples", "src"):
        (tmp_path / shown).symlink_to(ROOT / shown)
    return tmp_path


def commands(body: str) -> list[tuple[str, list[str]]]:
    """(command, the output lines shown under it) for each ``$ `` line of a console block; a
    line ending in a backslash goes on."""
    out: list[tuple[str, list[str]]] = []
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("$ "):
            cmd = lines[i][2:]
            while cmd.endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd[:-1] + " " + lines[i].strip()
            out.append((cmd, []))
        elif out:
            out[-1][1].append(lines[i])
        i += 1
    return out


def matches(shown: list[str], printed: list[str]) -> bool:
    """The page's lines against what the command printed, trailing blanks aside; a line
    ``...`` on the page stands for any number of lines."""
    def trim(lines):
        lines = [ln.rstrip() for ln in lines]
        while lines and not lines[-1]:
            lines.pop()
        return lines

    pattern = "\n".join(re.escape(ln) if ln != "..." else "(?:.*\n)*?.*"
                        for ln in trim(shown))
    return re.fullmatch(pattern, "\n".join(trim(printed))) is not None


def test_the_block_reader_splits_commands_and_outputs():
    body = "$ nfvperf a \\\n    --b c\nline 1\nline 2\n$ nfvperf d\n"
    assert commands(body) == [("nfvperf a  --b c", ["line 1", "line 2"]), ("nfvperf d", [])]
    assert matches(["a", "...", "z"], ["a", "b", "c", "z", ""])
    assert not matches(["a", "z"], ["a", "b", "z"])


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path):
    p = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b",
                        "html", str(DOCS), str(tmp_path)], capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr[-4000:]
    assert (tmp_path / "reference" / "cli.html").exists()


@pytest.mark.parametrize(("body", "runs_only"), list(_blocks("console")))
def test_a_checked_example_prints_what_its_page_shows(body, runs_only, clone):
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for cmd, shown in commands(body):
        p = subprocess.run(cmd, shell=True, cwd=clone, env=env, capture_output=True,
                           text=True, timeout=300)
        assert p.returncode == 0, f"{cmd}: exit {p.returncode}\n{p.stderr[-2000:]}"
        if not runs_only:
            assert matches(shown, p.stdout.splitlines()), f"{cmd} printed:\n{p.stdout}"


@pytest.mark.parametrize(("body", "runs_only"), list(_blocks("python")))
def test_a_checked_python_example_runs(body, runs_only, clone):
    assert runs_only        # a Python block's output is not on its page
    p = subprocess.run([sys.executable, "-c", body], cwd=clone, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]


def test_the_pages_show_checked_examples():
    assert len(list(_blocks("console"))) >= 10 and list(_blocks("python"))


def test_the_reference_covers_every_command_and_file_kind():
    import typer

    from nfvperf import reference
    from nfvperf.cli import app

    cli = reference.cli_markdown()
    root = typer.main.get_command(app)
    for name in root.list_commands(typer.Context(root)):
        assert f"`nfvperf {name}`" in cli
    assert "`nfvperf dataplane run`" in cli and "--wake-batch" in cli
    schemas = reference.schema_markdown()
    for kind in reference.SCHEMA_KINDS:
        assert f"(schema-{kind})=" in schemas


def test_every_typed_output_is_on_the_outputs_page():
    from nfvperf import reference

    page = (DOCS / "reference" / "outputs.md").read_text()
    for kind in reference.output_fragments():
        assert f"{{include}} _gen/output-{kind}.md" in page, kind


def test_the_readme_is_an_entry_point_whose_links_resolve():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 200
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" not in target:
            assert (ROOT / target).exists(), target


def test_no_page_speaks_of_issue_numbers():
    for page in [ROOT / "README.md", *_pages()]:
        hits = re.findall(r"\b(?:issue|ticket)s?\s*#?\d+", page.read_text(), re.I)
        assert not hits, (page, hits)
