"""Which fetches the walk starts: at most MAX_PER_HOST at once to a host (`next_polite`), and
the sitemaps an index lists, read ahead of their turn while their index's claim waits
(`ReadAhead`).

The walk records an index's children in the walk's order (`_Walker.settle`): a claim waits while
a sitemap placed before its index has not answered, since that one may be an index listing the
same children. Waiting for it to record them is what keeps the tree the same every run; waiting
for it to *fetch* them is not: while a claim waits and a fetch slot is free, its children are
read ahead, through the walk's own recordings (`fetching/replay.py`, as the verdict's answers
are), and the walk's own request for each, once the claim is settled, is answered from there.

Nothing read ahead is judged here: the walk reads the kept answer as it would the site's, so
the document is the one a walk without reading ahead gives. What is not kept (an answer past
the recordings' bounds, cut by an error or by the deadline) is asked again by the walk. A URL is
read ahead at most once, and only while the walk could still fetch as many sitemaps.
"""

from __future__ import annotations

import itertools
import threading
from collections import Counter, deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor

from sitemap_auditor.core import urls
from sitemap_auditor.core.errors import FetchError
from sitemap_auditor.deep.records import Claim, SitemapRecord
from sitemap_auditor.fetching.fetch import Fetcher

__all__ = ["MAX_PER_HOST", "ReadAhead", "host", "next_polite"]

# Politeness: at most this many fetches at once to one host, whatever --concurrency allows in all.
MAX_PER_HOST = 4
_LOOKAHEAD = 256


def host(url: str) -> str:
    """The host a fetch of url goes to, in the fetcher's one reading (for politeness per host)."""
    try:
        return urls.read(url).authority
    except urls.UnfetchableURLError:
        return ""


def next_polite(
    queue: deque[SitemapRecord], hosts: Counter[str], busy: set[str] | None = None
) -> int | None:
    """Where in the queue the first sitemap is whose host has fewer than MAX_PER_HOST fetches
    running (only the first _LOOKAHEAD are looked at), or None; busy: URLs being read ahead,
    whose fetch waits for that read to end (and so is answered from it)."""
    for i, rec in enumerate(itertools.islice(queue, _LOOKAHEAD)):
        if busy and rec.url in busy:
            continue
        if hosts[host(rec.url)] < MAX_PER_HOST:
            return i
    return None


class ReadAhead:
    """The children being read ahead (their futures, by URL), and those that were."""

    def __init__(self, fetcher: Callable[[], Fetcher]) -> None:
        self._fetcher = fetcher  # a recording fetcher, one per read
        self.running: dict[Future[None], str] = {}
        self._asked: set[str] = set()
        self.stop = threading.Event()  # set once the walk is over: a read in flight ends

    @property
    def urls(self) -> set[str]:
        """The URLs being read ahead now: the walk does not ask for them until they end."""
        return set(self.running.values())

    def fill(
        self,
        claims: Iterable[Claim],
        listed: Callable[[str], bool],
        max_depth: int,
        slots: int,
        room: int,
        pool: ThreadPoolExecutor,
        hosts: Counter[str],
    ) -> None:
        """Read ahead, in the walk's order, the children of the claims waiting (not listed
        before, within max_depth): up to `slots` at once, `room` in all (the sitemaps the walk
        could still fetch), each host within its share (hosts: the fetches to each)."""
        children = (
            child
            for claim in sorted(claims)
            if claim.record.depth + 1 <= max_depth
            for child, _ in claim.children
            if child not in self._asked and not listed(child)
        )
        for url in itertools.islice(children, max(0, room)):
            if slots <= 0:
                break
            if hosts[host(url)] >= MAX_PER_HOST:
                continue
            hosts[host(url)] += 1
            self._asked.add(url)
            self.running[pool.submit(self._read, url)] = url
            slots -= 1

    def ended(self, future: Future[None]) -> str | None:
        """The URL of a read ahead that ended (None: the future is not one)."""
        return self.running.pop(future, None)

    def _read(self, url: str) -> None:
        fetcher = self._fetcher()
        try:
            with fetcher.open(url) as answer:
                answer.drain(self.stop.is_set)  # to its end, to be kept; judged by the walk
        except FetchError:
            pass  # not kept: the walk asks again, and says what went wrong
        finally:
            fetcher.close()
