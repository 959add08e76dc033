"""docs/deep.md's table of finding kinds is derived from the one table, kinds.py."""

from __future__ import annotations

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
