"""pages.csv: one row a checked page, streamed from the pages file (JSON Lines), the same columns
as its rows; Excel-ready (UTF-8 with a byte order mark, formula-like cells made text)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from sitemap_auditor.deep.pages.store import PagesFile
from sitemap_auditor.deep.reports.csv_report import cell

__all__ = ["PAGE_COLUMNS", "write"]

PAGE_COLUMNS = (
    "url",
    "sitemap",
    "status",
    "redirects",
    "finalUrl",
    "indexable",
    "reason",
    "blockedFor",
    "noindex",
    "canonical",
    "contentType",
    "lastmod",
    "pageModified",
    "lastmodMismatch",
    "error",
    "headCut",
    "ms",
)


def _value(row: dict[str, Any], column: str) -> Any:
    value = row.get(column)
    if column == "redirects":
        hops = value if isinstance(value, list) else []
        shown = (f"{h.get('status')} {h.get('location')}" for h in hops if isinstance(h, dict))
        return " ".join(shown)
    if column == "blockedFor":
        agents = value if isinstance(value, list) else []
        return ", ".join(str(a) for a in agents)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return value


def write(pages_file: str, directory: str | Path) -> Path:
    """Write pages.csv into directory from the pages file; its path."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "pages.csv"
    with target.open("w", newline="", encoding="utf-8-sig") as out:
        w = csv.writer(out)
        w.writerow(PAGE_COLUMNS)
        for row in PagesFile.rows(pages_file):
            w.writerow([cell(_value(row, c)) for c in PAGE_COLUMNS])
    return target
