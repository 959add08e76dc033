"""The deep audit as two CSV files, rendered from the JSON document alone: sitemaps.csv (one row
a sitemap) and findings.csv (one row a finding, its examples one a line in their cell).

Each file starts with a UTF-8 byte order mark, which is how Excel knows the file is UTF-8 (without
it, Persian, Vietnamese or Arabic URLs open garbled); no cell holds JSON."""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sitemap_auditor.core.text import shown_text

__all__ = ["FINDING_COLUMNS", "SITEMAP_COLUMNS", "cell", "write"]

SITEMAP_COLUMNS = (
    "url",
    "parent",
    "depth",
    "source",
    "type",
    "httpStatus",
    "finalUrl",
    "contentType",
    "compression",
    "wireBytes",
    "bytes",
    "entries",
    "seconds",
    "lastmodCount",
    "lastmodShare",
    "lastmodEarliest",
    "lastmodLatest",
    "lastmodDistinctDays",
    "images",
    "videos",
    "news",
    "alternates",
    "errors",
    "warnings",
    "notices",
)
# The columns a record's own keys fill, in order (the rest come from its parts, below).
_RECORD_COLUMNS = SITEMAP_COLUMNS[: SITEMAP_COLUMNS.index("lastmodCount")]
FINDING_COLUMNS = (
    "severity",
    "kind",
    "title",
    "source",
    "sitemap",
    "line",
    "count",
    "message",
    "fix",
    "examples",
)


def cell(value: Any) -> Any:
    """A value as a CSV cell: what a report never shows as a site wrote it (controls, bidi
    overrides: core/text.UNSAFE) as U+FFFD and its line breaks and tabs as spaces, as the text
    report shows it (a value's line break would pass for another example in the examples
    cell), and a cell a spreadsheet would run as a formula made text (OWASP's list: = + - @, a
    tab, a CR)."""
    if value is None:
        return ""
    if isinstance(value, bool | int | float):
        return value
    text = shown_text(str(value))
    if text[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + text
    return text


def _sitemap_row(s: Mapping[str, Any], seconds: Mapping[str, Any]) -> list[Any]:
    lm = s["lastmod"] or {}
    ext = s["extensions"]
    f = s["findings"]
    # A fetch's seconds are in the document's run block, with what else varies from run to run.
    values = [seconds.get(s["url"]) if c == "seconds" else s[c] for c in _RECORD_COLUMNS]
    values += [
        lm.get("count"),
        lm.get("share"),
        lm.get("earliest"),
        lm.get("latest"),
        lm.get("distinctDays"),
        ext["image"],
        ext["video"],
        ext["news"],
        ext["alternates"],
        f["error"],
        f["warning"],
        f["notice"],
    ]
    return [cell(v) for v in values]


def _example(e: Mapping[str, Any]) -> str:
    return f"line {e['line']}: {e['value']}" if e.get("line") is not None else str(e["value"])


def _finding_row(f: Mapping[str, Any]) -> list[Any]:
    # One example a line; each line escaped on its own, as a spreadsheet may split the cell.
    examples = "\n".join(str(cell(_example(e))) for e in f["examples"])
    return [cell(f[c]) for c in FINDING_COLUMNS[:-1]] + [examples]


def write(document: Mapping[str, Any], directory: str | Path) -> tuple[Path, Path]:
    """Write sitemaps.csv and findings.csv into directory (made if need be); their paths."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    sitemaps, findings = folder / "sitemaps.csv", folder / "findings.csv"
    with sitemaps.open("w", newline="", encoding="utf-8-sig") as out:
        w = csv.writer(out)
        w.writerow(SITEMAP_COLUMNS)
        seconds = document["run"]["sitemapSeconds"]
        w.writerows(_sitemap_row(s, seconds) for s in document["sitemaps"])
    with findings.open("w", newline="", encoding="utf-8-sig") as out:
        w = csv.writer(out)
        w.writerow(FINDING_COLUMNS)
        w.writerows(_finding_row(f) for f in document["findings"])
    return sitemaps, findings
