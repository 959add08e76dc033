"""W3C Datetime `<lastmod>` values: strict parsing to a UTC instant, and formatting."""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime, timedelta

# The W3C Datetime profile (https://www.w3.org/TR/NOTE-datetime) as CONTRACT.md section 5 extends
# it: the zone is optional on the timed forms. ASCII digits only ([0-9], not \d).
_W3C = re.compile(
    r"([0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2})"
    r"(?:T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]+))?)?(Z|[+-][0-9]{2}:[0-9]{2})?)?"
    r")?)?"
)
# XML white space; a lastmod is trimmed of it before parsing.
_XML_SPACE = " \t\r\n"
# Real-world zones run from -12:00 to +14:00; the contract accepts up to ±14:00 either way.
_MAX_OFFSET_MINUTES = 14 * 60


def parse_lastmod(text: str) -> datetime | None:
    """Return the UTC instant a `<lastmod>` value stands for, or None when it does not parse."""
    m = _W3C.fullmatch(text.strip(_XML_SPACE))
    if m is None:
        return None
    year_s, month_s, day_s, hour_s, minute_s, second_s, fraction_s, zone = m.groups()
    year = int(year_s)
    try:
        if month_s is None:  # YYYY: the year's last second
            return datetime(year, 12, 31, 23, 59, 59, tzinfo=UTC)
        month = int(month_s)
        if day_s is None:  # YYYY-MM: the month's last second
            if not 1 <= month <= 12:
                return None
            last_day = calendar.monthrange(year, month)[1]
            return datetime(year, month, last_day, 23, 59, 59, tzinfo=UTC)
        day = int(day_s)
        if hour_s is None:  # YYYY-MM-DD: the day's last second
            return datetime(year, month, day, 23, 59, 59, tzinfo=UTC)
        micro = int(fraction_s[:6].ljust(6, "0")) if fraction_s else 0
        local = datetime(year, month, day, int(hour_s), int(minute_s), int(second_s or 0), micro)
        if zone is None or zone == "Z":
            return local.replace(tzinfo=UTC)
        hours, minutes = int(zone[1:3]), int(zone[4:6])
        offset = hours * 60 + minutes
        if minutes > 59 or offset > _MAX_OFFSET_MINUTES:
            return None
        delta = timedelta(minutes=offset if zone[0] == "+" else -offset)
        return (local - delta).replace(tzinfo=UTC)
    except (ValueError, OverflowError):  # impossible dates or times, or out of datetime's range
        return None


def format_instant(instant: datetime) -> str:
    """Format a UTC instant as `YYYY-MM-DDTHH:MM:SSZ`, the fraction dropped."""
    i = instant.astimezone(UTC)
    return f"{i.year:04d}-{i.month:02d}-{i.day:02d}T{i.hour:02d}:{i.minute:02d}:{i.second:02d}Z"
