"""docs/deep.md's table of finding kinds is derived from the one table, kinds.py."""

from __future__ import annotations

import json
from pathlib import Path

from sitemap_auditor.deep.kinds import KINDS

DOC = Path(__file__).resolve().parents[2] / "docs" / "deep.md"


def _cell(text: str) -> str:
    return text.replace("<", "&lt;").replace("|", "\\|")


def test_every_kind_has_its_row_in_docs_deep_md() -> None:
    text = DOC.read_text(encoding="utf-8")
    for kind, info in KINDS.items():
        message = info.message.replace("{count}", "N").replace("{detail}", "…")
        row = (
            f"| `{kind.value}` | {info.severity.value} | {info.source.value} | {info.reach.value} "
            f"| {_cell(info.title)} | {_cell(message)} | {_cell(info.fix)} |"
        )
        assert row in text, kind


def test_every_mention_of_the_documents_version_is_the_current_one() -> None:
    # Bumped for a new kind, the version was left at the old number in the schema's title, the
    # command's help, the module's docstring and a link of docs/deep.md.
    import re

    from sitemap_auditor.cli import deep as deep_cli
    from sitemap_auditor.deep import document

    root = Path(__file__).resolve().parents[2]
    current = f"version {document.VERSION}"
    schema = json.loads((root / "docs" / "deep-document.schema.json").read_text())
    assert schema["title"].endswith(current)
    assert (document.__doc__ or "").startswith(f"The deep audit's JSON document, {current}:")
    assert f"sitemap-auditor-deep, {current})" in deep_cli.EPILOG
    text = (root / "docs" / "deep.md").read_text()
    assert f"### The JSON document, {current}" in text
    for anchor in re.findall(r"\(#the-json-document-version-(\d+)\)", text):
        assert int(anchor) == document.VERSION
