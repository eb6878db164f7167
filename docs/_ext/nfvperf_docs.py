"""Sphinx extension: before the pages are read, writes the reference fragments that the pages
under reference/ include (``reference/_gen/``, not kept in git), each from the code."""

from pathlib import Path


def _write(app) -> None:
    from nfvperf import reference

    gen = Path(app.srcdir) / "reference" / "_gen"
    gen.mkdir(exist_ok=True)
    for name, text in (("cli.md", reference.cli_markdown()),
                       ("schemas.md", reference.schema_markdown()),
                       ("api.md", reference.api_markdown()),
                       ("outputs.md", reference.outputs_markdown())):
        path = gen / name
        if not path.exists() or path.read_text() != text:   # untouched: no rebuild
            path.write_text(text)


def setup(app):
    app.connect("builder-inited", _write)
    return {"parallel_read_safe": True}
