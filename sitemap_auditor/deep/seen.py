"""Duplicate detection of the deep audit: which URLs were seen, and where first.

`SeenUrls` is the table, in the audit's own process: an open-addressing table of the URLs'
64-bit hashes, with where each was listed first beside it (the sitemap's number and the line).
`Duplicates` is what the checks ask: it tells the sitemap that lists a URL seen before, at once,
under a lock.

Which listing is the first. Several sitemaps are read at once, so the listing read first is not
always the one that comes first in the walk's order (breadth first, each index's children in the
order it lists them, then the line). Given that order (`Duplicates(rank=...)`), the table keeps
the earliest listing seen so far: a listing that comes before it takes its place, and the one it
replaces is the repeat (`Duplicates.displaced` is told). So every listing but the earliest is
reported once, the same ones on every run, whatever the order of the fetches.

Bounds. A slot is 16 bytes (8 of hash; 8 of where: the sitemap's number and the line).
The first table has `DEDUPE_FIRST_SLOTS` slots (16 MiB), or fewer when `max_urls` needs fewer; it
grows by half once three quarters full, so past its first size it is always at least half full:
at most 32 bytes a URL (and, for the moment it grows, the old table beside the new one, 2.5 times
that). Past `max_urls` URLs (`--max-dedupe-urls`, 5,000,000 by default: at most 160 MiB) no more
are looked for, and the audit says so in a notice.

False duplicates. Two different URLs are taken for one when their 64-bit hashes are equal
(Python's string hash, SipHash-1-3 under a key drawn at each start). The expected number of
such pairs among n distinct URLs is n(n-1)/2^65: 2.7e-8 for 1 M URLs, 2.7e-6 for 10 M and
2.7e-4 for 100 M. So a site's findings are the same every run but with that probability, and a
false duplicate, when one happens, is one URL more in a `duplicate-url` count.
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Callable, Sequence

__all__ = [
    "DEDUPE_BYTES_PER_URL",
    "DEDUPE_FIRST_SLOTS",
    "DEFAULT_MAX_DEDUPE_URLS",
    "SLOT_BYTES",
    "Displaced",
    "Duplicates",
    "Lines",
    "Rank",
    "Report",
    "SeenUrls",
    "Where",
    "false_duplicate_pairs",
]

SLOT_BYTES = 16  # an 8-byte hash, and where: the sitemap's number and the line, 4 bytes each
# At most this many bytes a URL at rest once past the first table: slots at least half full.
DEDUPE_BYTES_PER_URL = 2 * SLOT_BYTES
DEDUPE_FIRST_SLOTS = 1 << 20  # 16 MiB: 786,432 URLs before the table first grows
DEFAULT_MAX_DEDUPE_URLS = 5_000_000

_MASK = (1 << 64) - 1


def false_duplicate_pairs(urls: int) -> float:
    """The expected number of pairs of distinct URLs whose 64-bit hashes are equal."""
    return urls * (urls - 1) / 2**65


class SeenUrls:
    """Which URLs were seen, and where each was listed first (a number: `Duplicates` packs the
    sitemap's number and the line in it).

    `add` runs for every listed URL: it is a closure over the table, not a method, as a
    closure's cells cost less than attribute look-ups.
    """

    def __init__(self, max_urls: int = DEFAULT_MAX_DEDUPE_URLS) -> None:
        self.max_urls = max_urls
        # The first table is large enough for most sites (growing it again and again costs
        # more than all the look-ups), and no larger than the bound needs.
        first = max(1024, min(DEDUPE_FIRST_SLOTS, max_urls * 4 // 3 + 1))
        keys = array("Q", [0]) * first  # 0: empty
        files = array("Q", [0]) * first
        n = first
        size = 0
        full = False

        def add(
            url_hash: int, file_number: int, earlier: Callable[[int, int], bool] | None = None
        ) -> int:
            """-1 for a new URL, else where it was listed first (file_number, for a new one).
            earlier(file_number, first): True when this listing comes before the first one
            kept, which it then replaces."""
            nonlocal size, full
            h = url_hash & _MASK or 1  # 0 marks an empty slot
            i = h % n
            v = keys[i]
            while v:
                if v == h:
                    kept = files[i]
                    if earlier is not None and earlier(file_number, kept):
                        files[i] = file_number
                    return kept
                i += 1
                if i == n:
                    i = 0
                v = keys[i]
            if full:
                return -1
            if size >= max_urls:
                full = True
                return -1
            keys[i] = h
            files[i] = file_number
            size += 1
            if size * 4 > n * 3:
                grow()
            return -1

        def grow() -> None:
            nonlocal keys, files, n
            old_keys, old_files = keys, files
            n = m = len(old_keys) * 3 // 2
            keys = new_keys = array("Q", [0]) * m
            files = new_files = array("Q", [0]) * m
            for j, v in enumerate(old_keys):
                if v:
                    i = v % m
                    while new_keys[i]:
                        i += 1
                        if i == m:
                            i = 0
                    new_keys[i] = v
                    new_files[i] = old_files[j]

        def state() -> tuple[int, int, bool]:
            return n, size, full

        self.add: Callable[..., int] = add
        self._state = state

    @property
    def size(self) -> int:
        """How many distinct URLs the table holds."""
        return self._state()[1]

    @property
    def full(self) -> bool:
        """True once max_urls were taken: no more are looked for."""
        return self._state()[2]

    @property
    def bytes(self) -> int:
        """The table's size in memory."""
        return self._state()[0] * SLOT_BYTES


# report(line, url, again): again is 1 for a URL seen before in the same sitemap, 2 in another.
Report = Callable[[int | None, str, int], None]
Lines = Sequence[int | None] | Callable[[], Sequence[int | None]]
# A sitemap's place in the walk's order, by its number: what decides which listing is the first.
Rank = Callable[[int], tuple[int, ...]]
# displaced(sitemap number, line, url): a listing kept as the first, found to be a repeat once a
# listing that comes before it in the walk's order was read.
Displaced = Callable[[int, int | None, str], None]
# Where a URL was listed: the sitemap's number and the line, in one number.
Where = int
_LINE_BITS = 32
_LINE_MASK = (1 << _LINE_BITS) - 1


def _where(file_number: int, line: int | None) -> Where:
    return (file_number << _LINE_BITS) | (min(line, _LINE_MASK) if line else 0)


def _line(where: Where) -> int | None:
    return (where & _LINE_MASK) or None


class Duplicates:
    """Duplicate detection for a walk: asked of each listed URL, it reports each one seen before,
    before the call returns. Thread-safe: the walk's fetches ask from several threads.

    With rank (the walk's order of the sitemaps), the listing reported is never the one first in
    that order, whatever the order the files are read in: see the module's docstring."""

    def __init__(self, max_urls: int = DEFAULT_MAX_DEDUPE_URLS, rank: Rank | None = None) -> None:
        self.max_urls = max_urls
        self._table = SeenUrls(max_urls)
        self._lock = threading.Lock()
        self.displaced: Displaced | None = None
        self._earlier: Callable[[Where, Where], bool] | None = None
        if rank is not None:

            def earlier(where: Where, kept: Where) -> bool:
                a, b = where >> _LINE_BITS, kept >> _LINE_BITS
                # One file is read in its own order: a later line never comes first.
                return a != b and rank(a) < rank(b)

            self._earlier = earlier

    def add(self, url: str, file_number: int, line: int | None, report: Report) -> None:
        """Look for url; report(line, url, again) when it was seen before (or displaced(...)
        for the listing it takes the place of)."""
        where = _where(file_number, line)
        earlier = self._earlier
        with self._lock:
            kept = self._table.add(hash(url), where, earlier)
        if kept >= 0:
            self._told(url, file_number, line, where, kept, report)

    def _told(
        self,
        url: str,
        file_number: int,
        line: int | None,
        where: Where,
        kept: Where,
        report: Report,
    ) -> None:
        first = kept >> _LINE_BITS
        if first == file_number:
            report(line, url, 1)
        elif (
            self._earlier is not None and self.displaced is not None and self._earlier(where, kept)
        ):
            self.displaced(first, _line(kept), url)
        else:
            report(line, url, 2)

    def add_run(
        self,
        urls: Sequence[str],
        file_number: int,
        lines: Lines,
        report: Report,
    ) -> None:
        """add for each of urls, listed on lines (or lines(), asked for only when one was seen
        before)."""
        add, earlier = self._table.add, self._earlier
        at: Sequence[int | None] | None = None if callable(lines) else lines
        if earlier is not None and at is None:
            at = lines() if callable(lines) else lines  # where each is listed is kept
        places = [_where(file_number, at[i] if at is not None else None) for i in range(len(urls))]
        with self._lock:
            found = [add(hash(u), w, earlier) for u, w in zip(urls, places, strict=True)]
        if max(found, default=-1) < 0:
            return
        if at is None:
            at = lines() if callable(lines) else lines
        for index, kept in enumerate(found):
            if kept >= 0:
                where = _where(file_number, at[index])
                self._told(urls[index], file_number, at[index], where, kept, report)

    @property
    def full(self) -> bool:
        """True once max_urls were held: duplicates were then looked for among those only."""
        return self._table.full

    @property
    def size(self) -> int:
        """How many distinct URLs the table holds."""
        return self._table.size

    @property
    def bytes(self) -> int:
        """The table's size in memory."""
        return self._table.bytes
