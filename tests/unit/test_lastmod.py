"""W3C Datetime parsing: every form of docs/contract.md §5, the end-of-period rule, the refusals."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sitemap_auditor.core.lastmod import format_instant, parse_lastmod


def utc(year: int, month: int, day: int, *time: int) -> datetime:
    hour, minute, second, micro = (*time, 0, 0, 0, 0)[:4]
    return datetime(year, month, day, hour, minute, second, micro, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026", utc(2026, 12, 31, 23, 59, 59)),
        ("2026-10", utc(2026, 10, 31, 23, 59, 59)),
        ("2026-02", utc(2026, 2, 28, 23, 59, 59)),
        ("2024-02", utc(2024, 2, 29, 23, 59, 59)),
        ("2026-10-16", utc(2026, 10, 16, 23, 59, 59)),
        ("2026-10-16T09:30", utc(2026, 10, 16, 9, 30, 0)),
        ("2026-10-16T09:30Z", utc(2026, 10, 16, 9, 30, 0)),
        ("2026-10-16T09:30+02:00", utc(2026, 10, 16, 7, 30, 0)),
        ("2026-10-16T09:30:15", utc(2026, 10, 16, 9, 30, 15)),
        ("2026-10-16T09:30:15Z", utc(2026, 10, 16, 9, 30, 15)),
        ("2026-10-16T09:30:15-05:00", utc(2026, 10, 16, 14, 30, 15)),
        ("2026-10-16T09:30:15.5Z", utc(2026, 10, 16, 9, 30, 15, 500000)),
        ("2026-10-16T09:30:15.123456789+01:00", utc(2026, 10, 16, 8, 30, 15, 123456)),
        ("2026-10-16T23:30:00-14:00", utc(2026, 10, 17, 13, 30, 0)),
        ("2026-10-16T00:30:00+14:00", utc(2026, 10, 15, 10, 30, 0)),
        ("2026-10-16T00:00:00-00:00", utc(2026, 10, 16, 0, 0, 0)),
        ("  \n\t2026-10-16\r\n ", utc(2026, 10, 16, 23, 59, 59)),
    ],
)
def test_valid_forms_parse_to_their_instant(text: str, expected: datetime) -> None:
    assert parse_lastmod(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "2026-10-16 09:30:00",  # a space for T
        "2026-13",
        "2026-00",
        "2026-02-30",
        "2026-10-32",
        "2026-10-16T24:00",
        "2026-10-16T23:60",
        "2026-10-16T23:59:60Z",
        "2026-10-16T09:30:00+14:01",
        "2026-10-16T09:30:00-15:00",
        "2026-10-16T09:30:00+02:60",
        "2022-04-14T10:17:52.000+0100",  # offset without a colon (from a real sitemap)
        "2026-10-16T09",
        "2026-10-16T",
        "2026-10-16Z",  # a zone on a date
        "26-10-16",
        "20261016",
        "2026-1-16",
        "0000",
        "0001-01-01T00:00:00+01:00",  # before year 1 in UTC
        "٢٠٢٦-١٠-١٦",  # Arabic-Indic digits are digits to Python, not to W3C
        "2026-10-16T09:30:00.Z",
        "Mon, 16 Oct 2026 09:30:00 GMT",
        "2026-10-16T09:30:00Z\x00",
        "2026-10-16\n2026-10-17",
    ],
)
def test_other_text_is_unparsable(text: str) -> None:
    assert parse_lastmod(text) is None


def test_format_drops_the_fraction_and_says_z() -> None:
    assert format_instant(utc(2026, 1, 2, 3, 4, 5, 999999)) == "2026-01-02T03:04:05Z"
    assert format_instant(utc(999, 1, 2, 3, 4, 5)) == "0999-01-02T03:04:05Z"
