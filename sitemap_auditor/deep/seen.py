"""Duplicate detection of the deep audit: which URLs were seen, and where they are listed first.

`SeenUrls` is the table, in the audit's own process: an open-addressing table of the URLs'
64-bit hashes, with the sitemap (its number) and the line of the listing that keeps each URL
beside it. `Duplicates` is what the checks ask, under a lock: every listing of a URL but one is a
repeat, and which one is kept follows a rule, not the order the files happened to be read in
(several are read at once): a regular sitemap's listing before a news sitemap's (a news sitemap
repeats recent articles, as publishers must), then the first in the walk's order (breadth first,
each index's children in the order it lists them), then the first line. A repeat found in a file
read earlier is reported to it when the file that keeps the URL is read, so the same site gives
the same repeats, in the same files and lines, every run.

A repeat is "within this file" when its file listed the URL before, "also in another file"
otherwise, whatever the order: the first repeats of files that do not keep a URL are remembered
as (URL hash, sitemap) pairs, exactly up to `MAX_REPEAT_PAIRS` (past them, the slot's last
repeating file decides, which two files repeating one URL each twice at once can make vary).

Bounds. A slot is 16 bytes: 8 of hash, 4 of line, 2 of the number of the sitemap that keeps the
URL and 2 of the last other sitemap that repeated it (sitemap numbers stay below
`MAX_FILE_NUMBER`, as the walk records at most 51,000 sitemaps); the pairs take at most 60 MiB
more, on a site whose files repeat a million of each other's URLs. The first table has
`DEDUPE_FIRST_SLOTS` slots (16 MiB), or fewer when `max_urls` needs fewer; it grows by half once
three quarters full, so past its first size it is always at least half full: at most 32 bytes a
URL (and, for the moment it grows, the old table beside the new one, 2.5 times that). Past
`max_urls` URLs (`--max-dedupe-urls`, 5,000,000 by default: at most 160 MiB) no more are looked
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
from collections.abc import Callable
from typing import Any, Protocol

__all__ = [
    "DEDUPE_BYTES_PER_URL",
    "DEDUPE_FIRST_SLOTS",
    "DEFAULT_MAX_DEDUPE_URLS",
    "MAX_FILE_NUMBER",
    "MAX_REPEAT_PAIRS",
    "SLOT_BYTES",
    "Duplicates",
    "Lister",
    "Report",
    "SeenUrls",
    "false_duplicate_pairs",
]

SLOT_BYTES = 16  # an 8-byte hash, a 4-byte line, two 2-byte sitemap numbers
MAX_FILE_NUMBER = 0xFFFE  # 0xFFFF: no sitemap
# Repeats across files remembered exactly, as (URL hash, sitemap) pairs: about 60 bytes each,
# 60 MiB at most; a site whose files repeat each other's URLs more than this is told "within"
# or "also in another file" by the last file that repeated each URL (the slot's).
MAX_REPEAT_PAIRS = 1_000_000
# At most this many bytes a URL at rest once past the first table: slots at least half full.
DEDUPE_BYTES_PER_URL = 2 * SLOT_BYTES
DEDUPE_FIRST_SLOTS = 1 << 20  # 16 MiB: 786,432 URLs before the table first grows
DEFAULT_MAX_DEDUPE_URLS = 5_000_000

_MAX_LINE = (1 << 32) - 1  # a line past it is kept as this one
_NONE = 0xFFFF


def false_duplicate_pairs(urls: int) -> float:
    """The expected number of pairs of distinct URLs whose 64-bit hashes are equal."""
    return urls * (urls - 1) / 2**65


class SeenUrls:
    """Which URLs were seen, and the sitemap and line of the listing that keeps each one.

    `add` runs for every listed URL: it is a closure over the table, not a method, as a
    closure's cells cost less than attribute look-ups. Its answer, a slot, is good for `first`
    and `move` until the next `add`.
    """

    def __init__(self, max_urls: int = DEFAULT_MAX_DEDUPE_URLS) -> None:
        self.max_urls = max_urls
        # The first table is large enough for most sites (growing it again and again costs
        # more than all the look-ups), and no larger than the bound needs.
        slots = max(1024, min(DEDUPE_FIRST_SLOTS, max_urls * 4 // 3 + 1))
        keys = array("q", [0]) * slots  # a URL's hash (a signed 64-bit int); 0: empty
        files = array("H", [0]) * slots
        lasts = array("H", [_NONE]) * slots
        rows = array("I", [0]) * slots  # the line of the listing that keeps the URL
        n = slots
        size = 0
        full = False
        found_at = [0]  # the slot of the URL add_run stopped at
        most = n * 3 // 4  # the table grows past this many URLs

        def add_run(hashes: list[int], file_number: int, lines: list[int], start: int) -> int:
            """Take hashes[start:] (listed by file_number on lines) in turn, up to the first one
            seen before: its position (its slot is then `found()`, good until the next add), or
            len(hashes)."""
            nonlocal size, full
            stop = len(hashes)
            at = start
            while at < stop:
                # A stretch that can neither grow the table nor reach max_urls is taken whole;
                # the URL at either edge alone, then the table grows, or is full.
                room = stop - at if full else min(most - size, max_urls - size)
                keep = not full and size < max_urls
                end = min(stop, at + room) if room > 0 else at + 1
                taken = stretch(hashes, file_number, lines, at, end, keep)
                if keep:
                    size += taken - at
                if taken < end:
                    return taken
                if room <= 0:
                    if keep and size > most:
                        grow()
                    elif not keep and not full:
                        full = True  # a new URL past max_urls: none is kept from now on
                at = end
            return stop

        def stretch(
            hashes: list[int], file_number: int, lines: list[int], at: int, end: int, keep: bool
        ) -> int:
            # Look each of hashes[at:end] up, and keep it (`keep`) where it was not there: the
            # position of the first seen before, or end. The caller sees to growth and the bound.
            k, f, r, m = keys, files, rows, n
            for j in range(at, end):
                h = hashes[j] or 1  # 0 marks an empty slot
                i = h % m
                v = k[i]
                while v:
                    if v == h:
                        found_at[0] = i
                        return j
                    i += 1
                    if i == m:
                        i = 0
                    v = k[i]
                if not keep:
                    continue
                line = lines[j]
                k[i] = h
                f[i] = file_number
                r[i] = line if line <= _MAX_LINE else _MAX_LINE
            return end

        def add(url_hash: int, file_number: int, line: int = 0) -> int:
            """-1 for a new URL (kept as listed by file_number on line), else its slot."""
            return found_at[0] if add_run([url_hash], file_number, [line], 0) == 0 else -1

        def first(slot: int) -> tuple[int, int, int]:
            """The listing that keeps the URL (sitemap, line), and the last other sitemap that
            repeated it (-1: none)."""
            last = lasts[slot]
            return files[slot], rows[slot], -1 if last == _NONE else last

        def move(slot: int, file_number: int, line: int, last: int) -> None:
            files[slot] = file_number
            rows[slot] = line if line <= _MAX_LINE else _MAX_LINE
            lasts[slot] = _NONE if last < 0 else last

        def grow() -> None:
            nonlocal keys, files, lasts, rows, n, most
            old_keys, old_files, old_lasts, old_rows = keys, files, lasts, rows
            n = m = len(old_keys) * 3 // 2
            most = n * 3 // 4
            keys = new_keys = array("q", [0]) * m
            files = new_files = array("H", [0]) * m
            lasts = new_lasts = array("H", [_NONE]) * m
            rows = new_rows = array("I", [0]) * m
            for j, v in enumerate(old_keys):
                if v:
                    i = v % m
                    while new_keys[i]:
                        i += 1
                        if i == m:
                            i = 0
                    new_keys[i] = v
                    new_files[i] = old_files[j]
                    new_lasts[i] = old_lasts[j]
                    new_rows[i] = old_rows[j]

        def state() -> tuple[int, int, bool]:
            return n, size, full

        self.add: Callable[..., int] = add
        self.add_run: Callable[[list[int], int, list[int], int], int] = add_run
        self.found: Callable[[], int] = lambda: found_at[0]
        self.first: Callable[[int], tuple[int, int, int]] = first
        self.move: Callable[[int, int, int, int], None] = move
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


class Lister(Protocol):
    """A sitemap's checks, as the duplicate table sees them."""

    @property
    def is_news(self) -> bool:
        """True once an entry with <news:news> was read."""

    def repeat(self, line: int | None, url: str, again: int) -> None:
        """Count a repeat of url on line (again: 1 within the file, 2 of another file's)."""


class Duplicates:
    """Duplicate detection for a walk: asked of each listed URL, it reports each repeat (see the
    module's rule), before the call returns. Thread-safe: the walk's fetches ask from several
    threads (and a repeat reported to another file's checks is counted under the walk's lock,
    which every parse holds)."""

    def __init__(
        self,
        max_urls: int = DEFAULT_MAX_DEDUPE_URLS,
        order: Callable[[int], Any] | None = None,
    ) -> None:
        self.max_urls = max_urls
        self._table = SeenUrls(max_urls)
        self._lock = threading.Lock()
        # A sitemap's place in the walk's order, by number (the number itself by default).
        self._order: Callable[[int], Any] = order if order is not None else _itself
        self._listers: dict[int, Lister] = {}
        # (URL hash, sitemap) of each repeat in a file that does not keep its URL, so that the
        # file's next listing of it is "within" it whatever order the files are read in; at most
        # MAX_REPEAT_PAIRS (past them, the slot's last repeating file decides).
        self._pairs: set[int] = set()

    def register(self, file_number: int, lister: Lister) -> None:
        """Let repeats found elsewhere be reported to file_number's checks."""
        if not 0 <= file_number <= MAX_FILE_NUMBER:
            raise ValueError(f"sitemap number {file_number} past {MAX_FILE_NUMBER}")
        self._listers[file_number] = lister

    def _keeps(self, number: int, other: int) -> bool:
        # True when sitemap `number`'s listing, rather than `other`'s, keeps a URL both list.
        mine, theirs = self._listers.get(number), self._listers.get(other)
        if mine is None or theirs is None:
            return False  # one is not known: the listing seen first keeps it
        if mine.is_news != theirs.is_news:
            return theirs.is_news
        return bool(self._order(number) < self._order(other))

    def _found(
        self, slot: int, h: int, url: str, file_number: int, line: int | None, report: Report
    ) -> None:
        # Called under the lock: url was seen before, in the listing the slot keeps.
        kept, kept_line, last = self._table.first(slot)
        if kept == file_number:
            report(line, url, 1)
        elif self._keeps(file_number, kept):
            # This listing keeps it now; the one that did is a repeat, and a second listing in
            # that file will be "within" it, as it would have been had this file been read later.
            self._table.move(slot, file_number, line or 0, kept)
            self._repeated(h, kept)
            self._listers[kept].repeat(kept_line or None, url, 2)
        else:
            within = self._repeated(h, file_number)
            self._table.move(slot, kept, kept_line, file_number)
            if within is None:
                within = last == file_number
            report(line, url, 1 if within else 2)

    def _repeated(self, url_hash: int, file_number: int) -> bool | None:
        """Note a repeat of a URL in a file that does not keep it: True when the file repeated
        it before, None when that is no longer known (past MAX_REPEAT_PAIRS)."""
        pair = url_hash * 65536 + file_number
        pairs = self._pairs
        if pair in pairs:
            return True
        if len(pairs) >= MAX_REPEAT_PAIRS:
            return None
        pairs.add(pair)
        return False

    def add(self, url: str, file_number: int, line: int | None, report: Report) -> None:
        """Look for url; report(line, url, again) when this listing is a repeat."""
        with self._lock:
            h = hash(url)
            slot = self._table.add(h, file_number, line or 0)
            if slot >= 0:
                self._found(slot, h, url, file_number, line, report)

    def add_all(self, urls: list[str], file_number: int, lines: list[int], report: Report) -> None:
        """`add` of each url, on its line, in turn: one hold of the lock for the run."""
        if len(urls) != len(lines):
            raise ValueError("a line for each URL")
        hashes = list(map(hash, urls))
        table = self._table
        with self._lock:
            at = table.add_run(hashes, file_number, lines, 0)
            while at < len(hashes):  # a URL seen before (rare): its repeat, then the rest
                self._found(table.found(), hashes[at], urls[at], file_number, lines[at], report)
                at = table.add_run(hashes, file_number, lines, at + 1)

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


def _itself(number: int) -> int:
    return number
