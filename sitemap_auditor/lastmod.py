"""W3C Datetime `<lastmod>` values: strict parsing to a UTC instant, and formatting.

A 50 MB sitemap can hold 500,000 distinct lastmods, so parsing is built for speed: a value is
split into its date and its time-and-zone, each part is validated and converted once and cached,
and the instant is a plain integer (microseconds since 0001-01-01T00:00:00Z) that compares fast.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, date, datetime, timedelta

# The W3C Datetime profile (https://www.w3.org/TR/NOTE-datetime) as CONTRACT.md section 5 extends
# it: the zone is optional on the timed forms. ASCII digits only ([0-9], not \d).
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_TIME = re.compile(
    r"([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]+))?)?(Z|[+-][0-9]{2}:[0-9]{2})?"
)
_YEAR_MONTH = re.compile(r"([0-9]{4})(?:-([0-9]{2}))?")
# XML white space; a lastmod is trimmed of it before parsing.
_XML_SPACE = " \t\r\n"
# Real-world zones run from -12:00 to +14:00; the contract accepts up to ±14:00 either way.
_MAX_OFFSET_MINUTES = 14 * 60

_US_PER_SECOND = 1_000_000
_US_PER_DAY = 86_400 * _US_PER_SECOND
_LAST_SECOND = _US_PER_DAY - _US_PER_SECOND  # 23:59:59, the end of a period without a time
_EPOCH = datetime(1, 1, 1, tzinfo=UTC)
# Instants must stay within datetime's range once moved to UTC.
_MIN_KEY = 0
_MAX_KEY = (date(9999, 12, 31).toordinal() - 1) * _US_PER_DAY + _US_PER_DAY - 1

# Bounded caches: distinct dates in a sitemap number in the thousands, distinct times of day
# (with their zones) at most 86,400 per zone.
_DATE_CACHE_LIMIT = 8192
_TIME_CACHE_LIMIT = 100_000
_date_cache: dict[str, int | None] = {}
_time_cache: dict[str, int | None] = {}
# No day start or time of day comes near this: it marks a value not yet in a cache.
_UNSEEN = -(10**30)


def _day_start(text: str) -> int | None:
    """Microseconds from the epoch to the start of a `YYYY-MM-DD` day, or None."""
    m = _DATE.fullmatch(text)
    if m is None:
        return None
    try:
        day = date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError:
        return None
    return (day.toordinal() - 1) * _US_PER_DAY


def _time_of_day(text: str) -> int | None:
    """Microseconds a `hh:mm[:ss[.s…]][zone]` adds to its day's start, in UTC, or None."""
    m = _TIME.fullmatch(text)
    if m is None:
        return None
    hour, minute, second = int(m[1]), int(m[2]), int(m[3] or 0)
    if hour > 23 or minute > 59 or second > 59:
        return None
    micro = int(m[4][:6].ljust(6, "0")) if m[4] else 0
    offset = 0
    zone = m[5]
    if zone is not None and zone != "Z":
        zone_hours, zone_minutes = int(zone[1:3]), int(zone[4:6])
        minutes = zone_hours * 60 + zone_minutes
        if zone_minutes > 59 or minutes > _MAX_OFFSET_MINUTES:
            return None
        offset = minutes * 60 * _US_PER_SECOND * (1 if zone[0] == "+" else -1)
    return ((hour * 60 + minute) * 60 + second) * _US_PER_SECOND + micro - offset


def _period_end(text: str) -> int | None:
    """The last second of a `YYYY` or `YYYY-MM` period, or None."""
    m = _YEAR_MONTH.fullmatch(text)
    if m is None:
        return None
    year = int(m[1])
    month = int(m[2]) if m[2] else 12
    if year < 1 or not 1 <= month <= 12:
        return None
    last = date(year, month, calendar.monthrange(year, month)[1])
    return (last.toordinal() - 1) * _US_PER_DAY + _LAST_SECOND


def _remember(cache: dict[str, int | None], limit: int, text: str, value: int | None) -> None:
    if len(cache) >= limit:
        cache.clear()  # crude, but bounded and rare: real sitemaps stay far below the limits
    cache[text] = value


def lastmod_key(text: str) -> int | None:
    """Return a `<lastmod>` value as microseconds since 0001-01-01T00:00:00Z, or None."""
    value = text.strip(_XML_SPACE)
    if len(value) < 10:  # YYYY or YYYY-MM: a period, read as its last second
        key = _date_cache.get(value, _UNSEEN)
        if key == _UNSEEN:
            key = _period_end(value)
            _remember(_date_cache, _DATE_CACHE_LIMIT, value, key)
        return key
    date_part = value[:10]
    day = _date_cache.get(date_part, _UNSEEN)
    if day == _UNSEEN:
        day = _day_start(date_part)
        _remember(_date_cache, _DATE_CACHE_LIMIT, date_part, day)
    if day is None:
        return None
    if len(value) == 10:
        return day + _LAST_SECOND
    if value[10] != "T":
        return None
    time_part = value[11:]
    offset = _time_cache.get(time_part, _UNSEEN)
    if offset == _UNSEEN:
        offset = _time_of_day(time_part)
        _remember(_time_cache, _TIME_CACHE_LIMIT, time_part, offset)
    if offset is None:
        return None
    key = day + offset
    return key if _MIN_KEY <= key <= _MAX_KEY else None


def key_to_instant(key: int) -> datetime:
    """The UTC datetime of a lastmod key."""
    return _EPOCH + timedelta(microseconds=key)


def parse_lastmod(text: str) -> datetime | None:
    """Return the UTC instant a `<lastmod>` value stands for, or None when it does not parse."""
    key = lastmod_key(text)
    return None if key is None else key_to_instant(key)


def format_instant(instant: datetime) -> str:
    """Format a UTC instant as `YYYY-MM-DDTHH:MM:SSZ`, the fraction dropped."""
    i = instant.astimezone(UTC)
    return f"{i.year:04d}-{i.month:02d}-{i.day:02d}T{i.hour:02d}:{i.minute:02d}:{i.second:02d}Z"
