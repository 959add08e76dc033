"""The spool of finding_urls.csv's rows (deep/finding_rows.py): every row back, in one order,
whatever order they came in. That its memory does not grow with them is
tests/integration/deep/test_deep_memory.py's."""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path

import pytest

from sitemap_auditor.deep import finding_rows
from sitemap_auditor.deep.finding_rows import FindingRow, FindingRows
from sitemap_auditor.deep.kinds import KINDS, Kind
from sitemap_auditor.deep.reports import finding_urls

SITEMAPS = ["https://e.x/a.xml", "https://e.x/b.xml", "https://e.x/c.xml"]
KIND_ORDER = {k: i for i, k in enumerate(KINDS)}


def _rows(n: int, seed: int) -> list[tuple[int, Kind, int | None, str, str]]:
    pick = random.Random(seed)
    kinds = [Kind.INVALID_URL, Kind.DUPLICATE_URL, Kind.INVALID_DATE, Kind.COULDNT_FETCH]
    values = ["https://e.x/a", "https://e.x/b,c", 'say "hi"\nthen', "\ud800 lone", "=1+1", ""]
    return [
        (
            pick.randrange(-1, 3),
            pick.choice(kinds),
            pick.choice([None, *range(1, 40)]),
            pick.choice(values),
            pick.choice(["", "within this file", "a, b"]),
        )
        for _ in range(n)
    ]


def _place(url: str | None, kind: Kind) -> int | None:
    if kind is Kind.COULDNT_FETCH:
        return None  # a finding the document does not hold
    return -1 if url is None else SITEMAPS.index(url)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_row_comes_back_in_order_across_runs_and_merges(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small runs and merges of three: several runs, merged in two levels.
    monkeypatch.setattr(finding_rows, "BUFFER_ROWS", 5)
    monkeypatch.setattr(finding_rows, "RUN_ROWS", 7)
    monkeypatch.setattr(finding_rows, "MERGE_FAN_IN", 3)
    added = _rows(500, seed)
    with FindingRows() as rows:
        sinks = {n: rows.sink(n, None if n < 0 else SITEMAPS[n]) for n in range(-1, 3)}
        for number, kind, line, value, detail in added:
            sinks[number](kind, line, value, detail)
        got = list(rows.sorted(_place))
    wanted = sorted(
        (r for r in added if r[1] is not Kind.COULDNT_FETCH),
        key=lambda r: (r[0], -1 if r[2] is None else r[2], KIND_ORDER[r[1]], r[3], r[4]),
    )
    assert got == [
        FindingRow(None if n < 0 else SITEMAPS[n], line, kind, value, detail)
        for n, kind, line, value, detail in wanted
    ]


def test_the_csv_is_excel_ready_and_redacted(tmp_path: Path) -> None:
    document = {
        "sitemaps": [{"url": SITEMAPS[0]}],
        "findings": [{"kind": "invalid-url", "sitemap": SITEMAPS[0]}],
    }
    with FindingRows() as rows:
        add = rows.sink(0, SITEMAPS[0])
        add(Kind.INVALID_URL, 4, "=cmd|' /C calc'!A0", "")
        add(Kind.INVALID_URL, 3, "https://u:pw@e.x/a b?k=TOKEN123", "@detail")
        add(Kind.INVALID_DATE, 5, "not in the document", "")
        target = finding_urls.write(document, rows, tmp_path, secrets=("TOKEN123",))
    data = target.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert list(csv.reader(io.StringIO(data.decode("utf-8-sig")))) == [
        ["severity", "kind", "source", "sitemap", "line", "value", "detail"],
        [
            "error",
            "invalid-url",
            "search-console",
            SITEMAPS[0],
            "3",
            "https://e.x/a b?k=***",
            "'@detail",
        ],
        ["error", "invalid-url", "search-console", SITEMAPS[0], "4", "'=cmd|' /C calc'!A0", ""],
    ]


def test_a_csv_cell_keeps_a_value_on_one_line_and_a_formula_as_text() -> None:
    from sitemap_auditor.deep.reports.csv_report import cell

    # A <loc> holding a line break passed for another example ("line 99: ...") in its cell.
    assert cell("https://a.example/x\nline 99: https://evil.example/") == (
        "https://a.example/x line 99: https://evil.example/"
    )
    assert cell("a\r\nb\tc\x07") == "a  b c\ufffd"
    assert cell("=1+1") == "'=1+1" and cell("\t=1") == " =1" and cell(3) == 3


@pytest.mark.parametrize("after", [1, 2, 5, 40])
def test_a_stop_asked_for_ends_the_writing_and_leaves_no_file(
    after: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A signal while millions of rows are sorted (a minute and more) stops the file; the
    # document is still written. A stop is looked for between runs and every few rows after.
    monkeypatch.setattr(finding_rows, "BUFFER_ROWS", 5)
    monkeypatch.setattr(finding_rows, "RUN_ROWS", 7)
    monkeypatch.setattr(finding_rows, "MERGE_FAN_IN", 3)
    monkeypatch.setattr(finding_rows, "STOP_EVERY_ROWS", 11)
    document = {
        "sitemaps": [{"url": s} for s in SITEMAPS],
        "findings": [
            {"kind": k.value, "sitemap": s}
            for k in (Kind.INVALID_URL, Kind.DUPLICATE_URL, Kind.INVALID_DATE)
            for s in [None, *SITEMAPS]
        ],
    }
    asked = [0]

    def stop() -> bool:
        asked[0] += 1
        return asked[0] >= after

    with FindingRows() as rows:
        sinks = {n: rows.sink(n, None if n < 0 else SITEMAPS[n]) for n in range(-1, 3)}
        for number, kind, line, value, detail in _rows(500, 7):
            sinks[number](kind, line, value, detail)
        with pytest.raises(finding_rows.StoppedError):
            finding_urls.write(document, rows, tmp_path, stop=stop)
    assert not (tmp_path / finding_urls.NAME).exists()
    assert asked[0] == after
