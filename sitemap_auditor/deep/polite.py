"""Politeness of the walk: at most MAX_PER_HOST fetches at once to one host, whatever
--concurrency allows in all; which queued sitemap may be fetched next. Pure."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable

from sitemap_auditor.core import urls

__all__ = ["MAX_PER_HOST", "host_of", "next_polite"]

MAX_PER_HOST = 4
# Only so many queued sitemaps are looked through for one whose host has room.
_LOOKAHEAD = 256


def host_of(url: str) -> str:
    """The host a fetch of url goes to, in the fetcher's one reading (its authority)."""
    try:
        return urls.read(url).authority
    except urls.UnfetchableURLError:
        return ""


def next_polite(queued: Iterable[str], hosts: Counter[str]) -> int | None:
    """Where in the queue (the URLs queued, in order) the first sitemap is whose host has fewer
    than MAX_PER_HOST fetches running (hosts), or None."""
    for i, url in enumerate(itertools.islice(queued, _LOOKAHEAD)):
        if hosts[host_of(url)] < MAX_PER_HOST:
            return i
    return None
