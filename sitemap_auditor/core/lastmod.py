"""W3C Datetime `<lastmod>` values: strict parsing to a UTC instant, the latest of many, formatting.

A 50 MB sitemap can hold 500,000 distinct lastmods, and only the latest one matters. So the
sitemap's values are validated by one regular expression that also checks the field ranges and
compared as text within their shape (their length and zone: such texts sort as their instants
do); only the greatest text of each shape becomes an instant, once, at the end.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

__all__ = [
    "MAX_OFFSET_MINUTES",
    "W3C_DATETIME",
    "W3C_IN_RANGE",
    "XML_SPACE",
    "LatestLastmod",
    "Shape",
    "common_keys",
    "format_instant",
    "key_to_instant",
    "lastmod_key",
    "parse_lastmod",
    "zoned_key",
]

# The W3C Datetime profile (https://www.w3.org/TR/NOTE-datetime) as docs/contract.md §5 extends
# it: the zone is optional on the timed forms. ASCII digits only ([0-9], not \d).
W3C_DATETIME = re.compile(
    r"([0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2})"
    r"(?:T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]+))?)?(Z|[+-][0-9]{2}:[0-9]{2})?)?"
    r")?)?"
)
# The same forms with the field ranges checked too (month 01-12, day 01-31, hour 00-23, minute and
# second 00-59, zones up to ±14:00, no year 0): what passes is valid but for days 29-31 that a
# month lacks, and the years 0001 and 9999, which a zone can move out of datetime's range.
W3C_IN_RANGE = re.compile(
    r"(?!0000)[0-9]{4}(?:-(?:0[1-9]|1[0-2])(?:-(?:0[1-9]|[12][0-9]|3[01])"
    r"(?:T(?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:\.[0-9]+)?)?"
    r"(Z|[+-](?:(?:0[0-9]|1[0-3]):[0-5][0-9]|14:00))?)?)?)?"
)
# XML white space; a lastmod is trimmed of it before parsing.
XML_SPACE = " \t\r\n"
# Real-world zones run from -12:00 to +14:00; the contract accepts up to ±14:00 either way.
MAX_OFFSET_MINUTES = 14 * 60

_US_PER_SECOND = 1_000_000
_US_PER_DAY = 86_400 * _US_PER_SECOND
_LAST_SECOND = _US_PER_DAY - _US_PER_SECOND  # 23:59:59, the end of a period without a time
_EPOCH = datetime(1, 1, 1, tzinfo=UTC)
_MAX_KEY = date(9999, 12, 31).toordinal() * _US_PER_DAY - 1  # datetime's last microsecond


def lastmod_key(text: str) -> int | None:
    """Return a `<lastmod>` value as microseconds since 0001-01-01T00:00:00Z, or None."""
    m = W3C_DATETIME.fullmatch(text.strip(XML_SPACE))
    if m is None:
        return None
    year_s, month_s, day_s, hour_s, minute_s, second_s, fraction_s, zone = m.groups()
    year = int(year_s)
    month = int(month_s) if month_s else 12
    if year < 1 or not 1 <= month <= 12:
        return None
    # YYYY or YYYY-MM: the period's last day (and below, its last second)
    day = calendar.monthrange(year, month)[1] if day_s is None else int(day_s)
    try:
        start = (date(year, month, day).toordinal() - 1) * _US_PER_DAY
    except ValueError:  # an impossible date
        return None
    if hour_s is None:  # no time: the day's last second
        return start + _LAST_SECOND
    hour, minute, second = int(hour_s), int(minute_s), int(second_s or 0)
    if hour > 23 or minute > 59 or second > 59:
        return None
    micro = int(fraction_s[:6].ljust(6, "0")) if fraction_s else 0
    offset = 0
    if zone is not None and zone != "Z":
        zone_hours, zone_minutes = int(zone[1:3]), int(zone[4:6])
        minutes = zone_hours * 60 + zone_minutes
        if zone_minutes > 59 or minutes > MAX_OFFSET_MINUTES:
            return None
        offset = minutes * 60 * _US_PER_SECOND * (1 if zone[0] == "+" else -1)
    key = start + ((hour * 60 + minute) * 60 + second) * _US_PER_SECOND + micro - offset
    return key if 0 <= key <= _MAX_KEY else None


# The shape most generators write: a date, a time to the second, perhaps a fraction, and a zone
# (WordPress, Yoast, Shopify, Magento), with every field's range checked.
_DATE_SHAPE = r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
_TIMED_ZONED_SHAPE = (
    _DATE_SHAPE + r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?"
    r"(?:Z|[+-](?:(?:0[0-9]|1[0-3]):[0-5][0-9]|14:00))"
)
_TIMED_ZONED = re.compile(_TIMED_ZONED_SHAPE)
# common_keys' test of a whole run of values at once: each value's digits read as 0 (its mask),
# which must be a date or a time to the second (perhaps with a fraction) and a zone.
_AS_ZERO = str.maketrans("0123456789", "0000000000")
_DATE_MASK = "0000-00-00"
_TIMED_MASK = re.compile(r"0000-00-00T00:00:00(?:\.0+)?(?:Z|[+-]00:00)")
# Masks already found to be of those shapes, and the microseconds of each zone already read:
# each bounded by what the shapes allow (fraction lengths up to a lastmod's cut; zones up to
# ±14:00).
_MASKS_KNOWN: set[str] = {_DATE_MASK}
_MAX_MASKS = 512
_ZONE_US: dict[str, int] = {"Z": 0}
_NAIVE_EPOCH = datetime(1, 1, 1)
_ONE_US = timedelta(microseconds=1)


def zoned_key(text: str) -> int | None:
    """The key of a text of the shape most generators write (a date, a time to the second,
    perhaps a fraction, and a zone), -1 for such a text naming a day its month lacks, and None
    for a text of any other shape (lastmod_key answers for those).

    The rule it shortcuts is lastmod_key: a text of that shape (and a year from 0002 to 9998,
    so that no zone moves it out of range) is read by datetime.fromisoformat, in C, which reads
    the same fields the same way (a fraction cut to microseconds, an impossible day refused).
    tests/property/test_lastmod_fast.py holds the two equal."""
    if _TIMED_ZONED.fullmatch(text) is None or not "0001" < text[:4] < "9999":
        return None
    try:
        instant = datetime.fromisoformat(text)
    except ValueError:  # a day the month lacks
        return -1
    return (instant - _EPOCH) // _ONE_US


def common_keys(texts: list[str]) -> list[int] | None:
    """lastmod_key of every text, in one call, when each is of the two shapes generators write:
    a date alone, or a time to the second (perhaps with a fraction) and a zone; None otherwise,
    and for a value out of range (then ask of each in turn).

    The rule it shortcuts is lastmod_key's. The shapes are tested on the run's masks (each
    value's digits read as 0: a run of a generator's values has a few), and the fields' ranges
    by datetime's fromisoformat, in C, of the value without its zone, which the zone's offset
    then moves (hour 24, which some Python versions read as the next day's midnight, and zones
    past ±14:00 are refused here). A text holding a line break would split in two, which the
    count of line breaks tells. tests/property/test_lastmod_fast.py holds the two equal."""
    joined = "\n".join(texts)
    if joined.count("\n") != len(texts) - 1 or "T24" in joined:
        return None
    known = _MASKS_KNOWN
    for mask in set(joined.translate(_AS_ZERO).split("\n")) - known:
        if _TIMED_MASK.fullmatch(mask) is None:
            return None
        if len(known) < _MAX_MASKS:
            known.add(mask)
    keys: list[int] = []
    append = keys.append
    timed, dated, epoch, one = datetime.fromisoformat, date.fromisoformat, _NAIVE_EPOCH, _ONE_US
    day, last = _US_PER_DAY, _LAST_SECOND - _US_PER_DAY
    zones = _ZONE_US
    try:
        for t in texts:
            if len(t) == 10:
                append(dated(t).toordinal() * day + last)
            elif t[-1] == "Z":
                append((timed(t[:-1]) - epoch) // one)
            else:
                zone = t[-6:]
                offset = zones.get(zone)
                if offset is None:
                    offset = _zone_us(zone)
                    if offset is None:
                        return None
                append((timed(t[:-6]) - epoch) // one - offset)
    except ValueError:  # a field out of its range, a day the month lacks, year 0
        return None
    if keys and (min(keys) < 0 or max(keys) > _MAX_KEY):
        return None
    return keys


def _zone_us(zone: str) -> int | None:
    """A zone `+HH:MM` or `-HH:MM` in microseconds (remembered), or None past ±14:00."""
    hours, minutes = int(zone[1:3]), int(zone[4:6])
    if minutes > 59 or hours * 60 + minutes > MAX_OFFSET_MINUTES:
        return None
    offset = (hours * 60 + minutes) * 60 * _US_PER_SECOND
    _ZONE_US[zone] = offset = offset if zone[0] == "+" else -offset
    return offset


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


# A valid text's length and zone: texts of one shape sort as their instants do.
Shape = tuple[int, str | None]

# Values seen again are answered from a memo of this many entries (a sitemap often repeats one
# generator timestamp thousands of times): offering a text again cannot change the latest.
_MEMO_LIMIT = 4096
# A hostile document can make many shapes (fraction lengths times zones); past this many, the
# greatest texts are turned into instants and the shapes start again.
_SHAPE_LIMIT = 1024
_SHORT_MONTHS = frozenset(("04", "06", "09", "11"))


def _needs_exact_check(text: str) -> bool:
    """Whether a text the range-checking expression passed may still not parse."""
    day = text[8:10]
    # Days 29-31 that February or a 30-day month lacks; years 0001 and 9999, which a zone can
    # move out of datetime's range.
    short_month = day > "28" and (text[5:7] == "02" or (day == "31" and text[5:7] in _SHORT_MONTHS))
    return short_month or text < "0002" or text >= "9999"


class LatestLastmod:
    """Collects a sitemap's lastmod values and answers the latest; parses only the candidates."""

    __slots__ = ("_best", "_exact", "_exact_text", "_memo", "known")

    def __init__(self) -> None:
        self._best: dict[Shape, str] = {}
        self._exact = -1  # the latest key among shapes already turned into instants
        self._exact_text: str | None = None  # and that value as written (trimmed)
        self._memo: dict[str, bool] = {}
        # True for a text already taken, False for one already refused, None for a new one.
        self.known: Callable[[str], bool | None] = self._memo.get

    def add(self, raw: str) -> bool:
        """Take one lastmod value; return False when it does not parse."""
        ok = self._memo.get(raw)
        if ok is None:
            ok = self._offer(raw)
            if len(self._memo) >= _MEMO_LIMIT:
                self._memo.clear()
            self._memo[raw] = ok
        return ok

    def _offer(self, raw: str) -> bool:
        m = W3C_IN_RANGE.fullmatch(raw)
        text = raw
        if m is None:
            text = raw.strip(XML_SPACE)
            if text == raw:
                return False
            m = W3C_IN_RANGE.fullmatch(text)
            if m is None:
                return False
        if _needs_exact_check(text) and lastmod_key(text) is None:
            return False
        shape = (len(text), m[1])
        best = self._best.get(shape)
        if best is None:
            if len(self._best) >= _SHAPE_LIMIT:
                self._exact, self._exact_text = self._latest_key_text()
                self._best.clear()
            self._best[shape] = text
        elif text > best:
            self._best[shape] = text
        return True

    def _latest_key_text(self) -> tuple[int, str | None]:
        best = (self._exact, self._exact_text)
        for text in self._best.values():
            key = lastmod_key(text)
            if key is not None and key > best[0]:
                best = (key, text)
        return best

    def latest(self) -> datetime | None:
        """The latest instant among the values that parsed, or None when none did."""
        key = self._latest_key_text()[0]
        return key_to_instant(key) if key >= 0 else None

    def latest_text(self) -> str | None:
        """The latest value as the sitemap wrote it (white space around it trimmed)."""
        return self._latest_key_text()[1]
