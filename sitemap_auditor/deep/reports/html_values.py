"""Reading the HTML report's document: every value checked, none trusted (a string cut and
cleaned of unsafe characters, a number bounded, a link only where it is plainly http(s))."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from html import escape
from math import isfinite
from typing import Any

from sitemap_auditor.core.text import UNSAFE, clip

__all__ = [
    "BIG",
    "LINKABLE",
    "MAX_LINK",
    "MAX_TEXT",
    "MAX_URL",
    "TIME",
    "UNSAFE",
    "as_float",
    "as_int",
    "as_list",
    "as_map",
    "count",
    "day_of",
    "h",
    "link",
    "severity_name",
    "severity_rank",
    "short_url",
    "size",
    "text",
    "time_of",
]

MAX_URL = 300
MAX_LINK = 1000
MAX_TEXT = 1000
BIG = 10**18
_SEVERITIES = ("error", "warning", "notice")
_RANK = {"error": 0, "warning": 1, "notice": 2}
_SEV_LABEL = {"error": "Error", "warning": "Warning", "notice": "Notice"}

# A link only where a browser reads what the text says: http(s), and none of the characters a URL
# never holds raw (white space, controls, quotes, angle brackets, bidirectional overrides).
LINKABLE = re.compile(
    r"https?://[^\s\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff\"'<>\\^`{|}]+\Z",
    re.I,
)
TIME = re.compile(r"(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})Z\Z")


def text(value: object, cap: int = MAX_TEXT) -> str:
    """A document string made safe to show: cut to `cap` characters, unsafe characters replaced
    by U+FFFD. Anything that is not a string is the empty string."""
    if not isinstance(value, str):
        return ""
    return clip(UNSAFE.sub("\ufffd", value[: cap + 1]), cap)


def h(value: object, cap: int = MAX_TEXT) -> str:
    """text, escaped for HTML text and attribute values alike."""
    return escape(text(value, cap), quote=True)


def short_url(url: object) -> str:
    """A sitemap's URL as a chart's label: its path, the scheme and host every label shares
    left out (the host alone when the path is /)."""
    shown = text(url, MAX_URL)
    rest = shown.split("://", 1)[-1]
    slash = rest.find("/")
    return rest[slash:] if 0 <= slash < len(rest) - 1 else rest


def as_int(value: object) -> int | None:
    # type(), not isinstance(): True is no number here, and this runs for every count.
    return value if type(value) is int and -BIG < value < BIG else None


def as_float(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if isfinite(number) and abs(number) < 1e18 else None


def as_map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def as_list(value: object) -> Sequence[Any]:
    return value if isinstance(value, list | tuple) else ()


def count(value: int | None) -> str:
    return "–" if value is None else f"{value:,}"


def size(value: int | None) -> str:
    if value is None:
        return "–"
    for unit, size in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if abs(value) >= size:
            return f"{value / size:,.1f} {unit}"
    return f"{value:,} B"


def time_of(value: object) -> str:
    """A document time as `2026-12-01 20:00:00 UTC`, or the escaped text when it is not one."""
    match = TIME.match(value) if isinstance(value, str) else None
    return f'<span class="nw">{match[1]} {match[2]} UTC</span>' if match else h(value, 40) or "–"


def day_of(value: object) -> str:
    match = TIME.match(value) if isinstance(value, str) else None
    return f'<span class="nw">{match[1]}</span>' if match else h(value, 40) or "–"


def link(url: object, text: str | None = None) -> str:
    """A link to url when it is plainly http(s), else the URL as text; `text` is already HTML."""
    shown = text if text is not None else h(url, MAX_URL)
    if isinstance(url, str) and len(url) <= MAX_LINK and LINKABLE.match(url):
        return (
            f'<a href="{escape(url, quote=True)}" rel="noopener noreferrer nofollow" '
            f'referrerpolicy="no-referrer">{shown}</a>'
        )
    return shown


def severity_name(rank: int) -> str:
    return _SEV_LABEL[_SEVERITIES[rank]] if rank < len(_SEVERITIES) else "Other"


def severity_rank(value: object) -> int:
    return _RANK.get(value, 3) if isinstance(value, str) else 3
