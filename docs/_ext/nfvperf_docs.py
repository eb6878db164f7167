"""Sphinx extension: before the pages are read, writes the reference fragments that the pages
under reference/ include (``reference/_gen/``, not kept in git), each from the code."""

from pathlib import Path


def _write(app) -> None:
    from nfvperf import reference

    gen = Path(app.srcdir) / "reference" / "_gen"
    gen.mkdir(exist_ok=True)
    pages = {"cli.md": reference.cli_markdown(), "schemas.md": reference.schema_markdown(),
             "api.md": reference.api_markdown(),
             **{f"output-{kind}.md": text
                for kind, text in reference.output_fragments().items()}}
    for name, text in pages.items():
        path = gen / name
        if not path.exists() or path.read_text() != text:   # untouched: no rebuild
            path.write_text(text)


def setup(app):
    app.connect("builder-inited", _write)
    return {"parallel_read_safe": True}
