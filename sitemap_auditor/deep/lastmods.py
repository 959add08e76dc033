"""The deep audit's reading of <lastmod> values: each one judged against the moment of the audit,
and a file's values gathered into statistics in bounded memory.

Pure: the moment is given. Keys are core.lastmod's (microseconds since 0001-01-01T00:00:00Z).
"""

from __future__ import annotations

import functools
from collections import Counter
from datetime import datetime

from sitemap_auditor.core.lastmod import (
    XML_SPACE,
    format_instant,
    key_to_instant,
    lastmod_key,
    zoned_key,
)
from sitemap_auditor.deep.kinds import Kind

__all__ = [
    "DATE_SLACK_US",
    "MAX_DISTINCT_DAYS",
    "MAX_MONTHS",
    "TIME_SLACK_US",
    "LastmodStats",
    "classify_lastmod",
    "instant_key",
    "period_start",
]

# A future date is one past the moment by more than the widest time zone (a date alone) or
# than a clock's skew (a time).
DATE_SLACK_US = 14 * 3600 * 1_000_000
TIME_SLACK_US = 3600 * 1_000_000
_US_PER_DAY = 86_400 * 1_000_000
_LAST_SECOND_US = _US_PER_DAY - 1_000_000
# Statistics keep at most this many distinct days and months (a hostile file could write
# millions); past them, new ones are no longer counted.
MAX_DISTINCT_DAYS = 10_000
MAX_MONTHS = 1200


def period_start(text: str, key: int) -> int:
    """The first microsecond of the period a valid value names (its key is the period's end)."""
    if len(text) == 4:  # YYYY
        year = int(text)
        start = lastmod_key(f"{year:04d}-01-01")
        return key if start is None else start - _LAST_SECOND_US
    if len(text) == 7:  # YYYY-MM
        start = lastmod_key(text + "-01")
        return key if start is None else start - _LAST_SECOND_US
    if "T" not in text:  # a date: its key is its last second
        return key - _LAST_SECOND_US
    return key


def classify_lastmod(raw: str, now_key: int) -> tuple[Kind | None, int | None]:
    """What is wrong with a <lastmod> (None: nothing), and its key when it parses."""
    key = zoned_key(raw)
    if key is not None:
        # The shape most generators write: a time and a zone, so its period is its instant.
        if key < 0:
            return Kind.INVALID_DATE, None
        return (Kind.FUTURE_LASTMOD if key > now_key + TIME_SLACK_US else None), key
    text = raw.strip(XML_SPACE)
    key = lastmod_key(text)
    if key is None:
        return Kind.INVALID_DATE, None
    timed = "T" in text
    if timed and not (text.endswith("Z") or text[-6] in "+-"):
        return Kind.DATE_WITHOUT_TIMEZONE, key
    slack = TIME_SLACK_US if timed else DATE_SLACK_US
    if period_start(text, key) > now_key + slack:
        return Kind.FUTURE_LASTMOD, key
    return None, key


def instant_key(moment: datetime) -> int:
    """A moment as a lastmod key (microseconds since 0001-01-01T00:00:00Z)."""
    key = lastmod_key(format_instant(moment))
    assert key is not None
    return key


@functools.lru_cache(maxsize=4096)
def _month_of(day: int) -> str:
    """The month (YYYY-MM) of a day since 0001-01-01, remembered across files."""
    return format_instant(key_to_instant(day * _US_PER_DAY))[:7]


class LastmodStats:
    """A sitemap's <lastmod> statistics, in bounded memory."""

    def __init__(self) -> None:
        self.count = 0
        self.earliest: int | None = None
        self.latest: int | None = None
        self.days: set[int] = set()
        self.months: dict[str, int] = {}
        # How many entries hold each distinct value (at most MAX_DISTINCT_DAYS values; past
        # them, a new value is not counted: the most common one is still known, as one that
        # holds 90 % of the entries is among the first values seen or holds them itself).
        self.values: dict[int, int] = {}
        self.invalid = 0  # values that are no date (counted by SitemapChecks.lastmod)
        self._day = -1  # the last value's day, and its month (None: not counted)
        self._month: str | None = None

    def settled(self) -> LastmodStats:
        """These statistics once their file's checks are done: the count of each value (only
        `SitemapChecks.finish` asks it) is let go, so that a walk of many files with a distinct
        value per entry does not keep up to MAX_DISTINCT_DAYS of them for each."""
        self.values = {}
        return self

    def add(self, key: int, times: int = 1) -> None:
        """Count a parsable value, seen `times` times."""
        self.count += times
        earliest = self.earliest
        if earliest is None or key < earliest:
            self.earliest = key
        latest = self.latest
        if latest is None or key > latest:
            self.latest = key
        values = self.values
        if key in values:
            values[key] += times
        elif len(values) < MAX_DISTINCT_DAYS:
            values[key] = times
        day = key // _US_PER_DAY
        if day != self._day:
            # A file lists its URLs mostly by date: the day (and so its month) is often the
            # last one's, known already.
            self._new_day(day)
        if self._month is not None:
            self.months[self._month] += times

    def _new_day(self, day: int) -> None:
        self._day = day
        if len(self.days) < MAX_DISTINCT_DAYS:
            self.days.add(day)
        month = _month_of(day)
        months = self.months
        if month in months or len(months) < MAX_MONTHS:
            months.setdefault(month, 0)
            self._month = month
        else:
            self._month = None  # past MAX_MONTHS months, a new one is not counted

    def add_keys(self, keys: list[int]) -> None:
        """`add` of each key in turn (once each), in one call: a run of a file's values.

        The same counts as `add`'s: each distinct value, day and month is taken (while there
        is room for it) where it first appears, and counted for every time it appears; the
        counting is Counter's, in C, so that a run of distinct values costs no loop of ours.
        tests/unit/test_deep_lastmods.py holds the two equal."""
        if not keys:
            return
        self.count += len(keys)
        low, high = min(keys), max(keys)
        if self.earliest is None or low < self.earliest:
            self.earliest = low
        if self.latest is None or high > self.latest:
            self.latest = high
        values = self.values
        counted = Counter(keys)  # in the order each value first appears
        for key in values.keys() & counted.keys():
            values[key] += counted[key]
        room = MAX_DISTINCT_DAYS - len(values)
        if room > 0:
            for key, times in counted.items():
                if key not in values:
                    values[key] = times
                    room -= 1
                    if not room:
                        break
        per_day = Counter([key // _US_PER_DAY for key in keys])
        days, months = self.days, self.months
        for day, times in per_day.items():
            if len(days) < MAX_DISTINCT_DAYS:
                days.add(day)
            month = _month_of(day)
            if month in months:
                months[month] += times
            elif len(months) < MAX_MONTHS:
                months[month] = times
        # Where `add` would stand after the last key: its day, and its month if counted.
        self._day = day = keys[-1] // _US_PER_DAY
        month = _month_of(day)
        self._month = month if month in months else None
