"""Duplicate detection of the deep audit: which URLs were seen, and in which sitemap first.

`SeenUrls` is the table, in the audit's own process: an open-addressing table of the URLs'
64-bit hashes, with the number of the sitemap that listed each first beside it. `Duplicates` is
what the checks ask: it tells the sitemap that lists a URL seen before, at once, under a lock.

Bounds. A slot is 12 bytes (8 of hash, 4 of sitemap number). The first table has
`DEDUPE_FIRST_SLOTS` slots (12 MiB), or fewer when `max_urls` needs fewer; it grows by half once
three quarters full, so past its first size it is always at least half full: at most 24 bytes a
URL (and, for the moment it grows, the old table beside the new one, 2.5 times that). Past
`max_urls` URLs (`--max-dedupe-urls`, 5,000,000 by default: at most 120 MiB) no more are looked
for, and the audit says so in a notice.

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
    "Duplicates",
    "Lines",
    "Report",
    "SeenUrls",
    "false_duplicate_pairs",
]

SLOT_BYTES = 12  # an 8-byte hash and a 4-byte sitemap number
# At most this many bytes a URL at rest once past the first table: slots at least half full.
DEDUPE_BYTES_PER_URL = 2 * SLOT_BYTES
DEDUPE_FIRST_SLOTS = 1 << 20  # 12 MiB: 786,432 URLs before the table first grows
DEFAULT_MAX_DEDUPE_URLS = 5_000_000

_MASK = (1 << 64) - 1


def false_duplicate_pairs(urls: int) -> float:
    """The expected number of pairs of distinct URLs whose 64-bit hashes are equal."""
    return urls * (urls - 1) / 2**65


class SeenUrls:
    """Which URLs were seen, and the number of the sitemap that listed each first.

    `add` runs for every listed URL: it is a closure over the table, not a method, as a
    closure's cells cost less than attribute look-ups.
    """

    def __init__(self, max_urls: int = DEFAULT_MAX_DEDUPE_URLS) -> None:
        self.max_urls = max_urls
        # The first table is large enough for most sites (growing it again and again costs
        # more than all the look-ups), and no larger than the bound needs.
        first = max(1024, min(DEDUPE_FIRST_SLOTS, max_urls * 4 // 3 + 1))
        keys = array("Q", [0]) * first  # 0: empty
        files = array("L", [0]) * first
        n = first
        size = 0
        full = False

        def add(url_hash: int, file_number: int) -> int:
            """-1 for a new URL, else the number of the sitemap that listed it first."""
            nonlocal size, full
            h = url_hash & _MASK or 1  # 0 marks an empty slot
            i = h % n
            v = keys[i]
            while v:
                if v == h:
                    return files[i]
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
            files = new_files = array("L", [0]) * m
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

        self.add: Callable[[int, int], int] = add
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


class Duplicates:
    """Duplicate detection for a walk: asked of each listed URL, it reports each one seen before,
    before the call returns. Thread-safe: the walk's fetches ask from several threads."""

    def __init__(self, max_urls: int = DEFAULT_MAX_DEDUPE_URLS) -> None:
        self.max_urls = max_urls
        self._table = SeenUrls(max_urls)
        self._lock = threading.Lock()

    def add(self, url: str, file_number: int, line: int | None, report: Report) -> None:
        """Look for url; report(line, url, again) when it was seen before."""
        with self._lock:
            first = self._table.add(hash(url), file_number)
        if first >= 0:
            report(line, url, 1 if first == file_number else 2)

    def add_run(
        self,
        urls: Sequence[str],
        file_number: int,
        lines: Lines,
        report: Report,
    ) -> None:
        """add for each of urls, listed on lines (or lines(), asked for only when one was seen
        before)."""
        add = self._table.add
        with self._lock:
            found = [first for first in map(add, map(hash, urls), [file_number] * len(urls))]
        if max(found, default=-1) < 0:
            return
        at = lines() if callable(lines) else lines
        for index, first in enumerate(found):
            if first >= 0:
                report(at[index], urls[index], 1 if first == file_number else 2)

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
