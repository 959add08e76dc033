"""zoned_key is lastmod_key, faster on the shape most generators write: equal on every text it
answers for, those of that shape and near it above all; and classify_lastmod, which takes that
shortcut, is the plain classification of a stripped value by lastmod_key."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from hypothesis import example, given, settings
from hypothesis import strategies as st

from sitemap_auditor.core.lastmod import XML_SPACE, common_keys, lastmod_key, zoned_key
from sitemap_auditor.deep.checks import classify_lastmod, instant_key
from sitemap_auditor.deep.kinds import Kind

_DIGITS = st.text("0123456789", min_size=1, max_size=7)
_ZONES = st.sampled_from(["Z", "+01:00", "-05:00", "+14:00", "-14:00", "+14:01", "+13:59",
                          "+24:00", "+05:30", "", "+0100", "z", "+1:00"])  # fmt: skip


@st.composite
def near_timestamps(draw: st.DrawFn) -> str:
    year = draw(st.sampled_from(["0000", "0001", "0002", "1999", "2024", "9998", "9999"]))
    month = draw(st.sampled_from(["01", "02", "12", "13", "00", "1"]))
    day = draw(st.sampled_from(["01", "28", "29", "30", "31", "32", "00"]))
    hour = draw(st.sampled_from(["00", "23", "24", "9"]))
    minute = draw(st.sampled_from(["00", "59", "60"]))
    second = draw(st.sampled_from(["00", "59", "60", ""]))
    fraction = draw(st.sampled_from(["", ".", ".1", ".123456", ".1234567", ".999999999"]))
    sep = draw(st.sampled_from(["T", "T", "T", " ", "t"]))
    time = f"{hour}:{minute}" + (f":{second}{fraction}" if second else "")
    return f"{year}-{month}-{day}{sep}{time}{draw(_ZONES)}"


@settings(max_examples=3000, deadline=None)
@given(near_timestamps())
@example("2024-02-29T12:00:00+01:00")
@example("2023-02-29T12:00:00+01:00")
@example("0001-01-01T00:30:00+01:00")
@example("9999-12-31T23:30:00-01:00")
def test_equal_on_every_timestamp_near_the_shape(text: str) -> None:
    _same(text)


@settings(max_examples=1000, deadline=None)
@given(st.text(max_size=40) | st.from_regex(r"[0-9]{4}(-[0-9]{2}){0,2}", fullmatch=True))
def test_equal_on_any_text(text: str) -> None:
    _same(text)


def _same(text: str) -> None:
    key = zoned_key(text)
    if key is not None:
        assert (None if key < 0 else key) == lastmod_key(text)


_NOW = instant_key(datetime(2026, 6, 1, tzinfo=UTC))
_HOUR_US = 3_600_000_000


def _plain(raw: str, now_key: int) -> tuple[Kind | None, int | None]:
    # The classification as docs/deep.md states it, through lastmod_key alone.
    text = raw.strip(XML_SPACE)
    key = lastmod_key(text)
    if key is None:
        return Kind.INVALID_DATE, None
    if "T" not in text:
        start = key - (_HOUR_US * 24 - 1_000_000) if len(text) == 10 else None
        if start is None:  # YYYY or YYYY-MM
            first = lastmod_key(text + "-01-01" if len(text) == 4 else text + "-01")
            start = key if first is None else first - (_HOUR_US * 24 - 1_000_000)
        return (Kind.FUTURE_LASTMOD if start > now_key + 14 * _HOUR_US else None), key
    if not (text.endswith("Z") or text[-6] in "+-"):
        return Kind.DATE_WITHOUT_TIMEZONE, key
    return (Kind.FUTURE_LASTMOD if key > now_key + _HOUR_US else None), key


_EDGES = ["2026-06-01T00:59:59Z", "2026-06-01T01:00:01Z", " 2026-06-01T01:00:01Z\n",
          "2026-06-02", "2026-06-03", "2026-07", "2027", "2026-06-01T02:00"]  # fmt: skip


@settings(max_examples=3000, deadline=None)
@given(near_timestamps() | st.sampled_from(_EDGES))
def test_classification_is_the_plain_one(text: str) -> None:
    assert classify_lastmod(text, _NOW) == _plain(text, _NOW)


_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _common(text: str) -> bool:
    # The two shapes common_keys answers for, as the rest of the project reads them.
    key = zoned_key(text)
    if key is not None:
        return key >= 0
    return (
        bool(_DATE.fullmatch(text)) and "0001" < text[:4] < "9999" and lastmod_key(text) is not None
    )


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(
        near_timestamps()
        | st.from_regex(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", fullmatch=True)
        | st.sampled_from(["2024-05-01T10:00:00+02:00", "2025-01-31T23:59:59Z", "2024-02-29"]),
        min_size=1,
        max_size=12,
    ),
    st.sampled_from(["", "\n", " ", "\nx", "2024-05-01T10:00:00Z\n2024", "\n2024-05-01"]),
    st.integers(min_value=0, max_value=11),
)
def test_a_run_of_values_is_read_as_each_one_alone(texts: list[str], odd: str, at: int) -> None:
    # common_keys is lastmod_key of each text, or None: never a key lastmod_key would not
    # give, and None only when one of them is of neither shape (or names a day its month lacks,
    # or a year a zone may move out of range).
    if odd:
        texts = [*texts]
        texts[at % len(texts)] += odd  # a text holding a line break must not split in two
    keys = common_keys(texts)
    if keys is not None:
        assert keys == [lastmod_key(t) for t in texts]
    if all(map(_common, texts)):
        assert keys is not None
    if not all(_SHAPES.fullmatch(t) for t in texts):
        assert keys is None


# The shapes common_keys reads, as docs/deep.md states them (fields and ranges aside).
_SHAPES = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2}))?"
)


@settings(max_examples=500, deadline=None)
@given(st.lists(near_timestamps(), min_size=1, max_size=6), st.sampled_from(["24", "23"]))
def test_hour_24_and_far_years_are_left_to_each_value(texts: list[str], hour: str) -> None:
    # Hour 24 (the next day's midnight to some Python versions, no time to lastmod_key) and
    # the years a zone moves out of range give None, never a key of their own.
    texts = [*texts, f"9999-12-31T{hour}:30:00-01:00", f"0001-01-01T{hour}:30:00+01:00"]
    keys = common_keys(texts)
    assert keys is None or keys == [lastmod_key(t) for t in texts]
