"""finding_urls.csv: one row an occurrence of a finding (every affected URL, not the five examples
the document keeps), from the walk's spool (deep/finding_rows.py) and the JSON document.

Streamed: the rows come from the spool's external sort, never all in memory. In a fixed order,
the same for the same site on every run: the sitemaps in the document's order (what is about
the site or robots.txt first), then the line, then the kind's place in the kinds table, then
the value. Only the findings the document holds have rows (a usual path that was only a guess
has none). Excel-ready as every CSV of the audit: UTF-8 with a byte order mark, no JSON in a
cell, a cell a spreadsheet would run as a formula made text (csv_report.cell). A value is
redacted as the document redacts it: userinfo removed from every URL, the credentials replaced.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sitemap_auditor.deep.finding_rows import FindingRow, FindingRows, StoppedError
from sitemap_auditor.deep.kinds import KINDS, Kind
from sitemap_auditor.deep.redaction import cleaner, redact
from sitemap_auditor.deep.reports.csv_report import cell

__all__ = ["FINDING_URL_COLUMNS", "NAME", "write"]

NAME = "finding_urls.csv"
FINDING_URL_COLUMNS = ("severity", "kind", "source", "sitemap", "line", "value", "detail")
MAX_DETAIL_CHARS = 200


def _clean(text: str, secrets: Sequence[str]) -> str:
    if "@" in text:
        return cleaner(secrets)(text)  # as Tally.add does for the document's examples
    return redact(text, secrets) if secrets else text


def write(
    document: Mapping[str, Any],
    rows: FindingRows,
    directory: str | Path,
    secrets: Sequence[str] = (),
    stop: Callable[[], bool] | None = None,
) -> Path:
    """Write finding_urls.csv into directory (made if need be) from rows, in the document's
    order; secrets are the walk's (Walk.secrets). Its path. Once stop() is true (a signal, looked
    at as the rows are sorted), no file is left and finding_rows.StoppedError is raised."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / NAME
    order = {s["url"]: i for i, s in enumerate(document["sitemaps"])}
    found = {(f["kind"], f["sitemap"]) for f in document["findings"]}
    shown: dict[str | None, str | None] = {None: None}  # a sitemap's URL as the document has it

    def as_shown(url: str | None) -> str | None:
        if url not in shown:
            shown[url] = redact(url, secrets) if secrets and url is not None else url
        return shown[url]

    def place(url: str | None, kind: Kind) -> int | None:
        sitemap = as_shown(url)
        if (kind.value, sitemap) not in found:
            return None
        return -1 if sitemap is None else order.get(sitemap)

    kinds = {
        kind: [cell(info.severity.value), cell(kind.value), cell(info.source.value)]
        for kind, info in KINDS.items()
    }
    cells: dict[str | None, Any] = {}  # a sitemap's cell
    try:
        in_order = rows.sorted(place) if stop is None else rows.sorted(place, stop)
        _write_rows(target, in_order, kinds, cells, as_shown, secrets)
    except StoppedError:
        target.unlink(missing_ok=True)  # whole or not at all
        raise
    return target


def _write_rows(
    target: Path,
    rows: Iterable[FindingRow],
    kinds: Mapping[Kind, list[Any]],
    cells: dict[str | None, Any],
    as_shown: Callable[[str | None], str | None],
    secrets: Sequence[str],
) -> None:
    with target.open("w", newline="", encoding="utf-8-sig", errors="replace") as out:
        w = csv.writer(out)
        w.writerow(FINDING_URL_COLUMNS)
        batch: list[list[Any]] = []
        for row in rows:
            sitemap = cells.get(row.sitemap)
            if sitemap is None:
                sitemap = cells[row.sitemap] = cell(as_shown(row.sitemap))
            value, detail = row.value, row.detail[:MAX_DETAIL_CHARS]
            if secrets or "@" in value or "@" in detail:
                value, detail = _clean(value, secrets), _clean(detail, secrets)
            line = "" if row.line is None else row.line
            batch.append([*kinds[row.kind], sitemap, line, cell(value), cell(detail)])
            if len(batch) >= 1024:
                w.writerows(batch)
                batch.clear()
        w.writerows(batch)
