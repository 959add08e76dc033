"""lastmod_key_fast is lastmod_key, faster on the shape most generators write: equal on every
text, those of that shape and near it above all."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from sitemap_auditor.core.lastmod import lastmod_key, lastmod_key_fast

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
    assert lastmod_key_fast(text) == lastmod_key(text)


@settings(max_examples=1000, deadline=None)
@given(st.text(max_size=40) | st.from_regex(r"[0-9]{4}(-[0-9]{2}){0,2}", fullmatch=True))
def test_equal_on_any_text(text: str) -> None:
    assert lastmod_key_fast(text) == lastmod_key(text)
