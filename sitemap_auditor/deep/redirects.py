"""Sitemaps read where their redirects led (docs/deep.md, `redirect`).

A listed sitemap whose redirects end at another listed one (/sitemap.xml at /sitemap_index.xml,
both guessed or both in robots.txt) is not read twice: its body is left to that one. Which one is
read must not depend on which fetch ends first, and what is left must be read after all when
the other is not: this table decides both, in the walk's thread. Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from sitemap_auditor.deep.records import SitemapRecord

__all__ = ["READ_TYPES", "ReadElsewhere", "afresh"]

# A record of these types was read (a `redirect` waits on another, which may fail in turn).
READ_TYPES = frozenset({"urlset", "sitemapindex", "text", "rss", "atom"})


class ReadElsewhere:
    """Which record each redirected one is read as, and which must be read after all."""

    def __init__(self) -> None:
        self.read_as: dict[int, int] = {}  # a redirected record: the record read for it
        self._waiting: dict[int, list[int]] = {}  # a record not yet applied: those left to it
        self._read: dict[int, bool] = {}  # an applied record: whether it was read
        self._itself: set[int] = set()  # records to read themselves (the other was not read)
        self._again: set[int] = set()  # of those, the ones not fetched again yet

    def target(
        self, rec: SitemapRecord, found: int | None, records: Sequence[SitemapRecord]
    ) -> int | None:
        """The record rec's body is left to, given `found`, the record listed under the URL its
        redirects led to (None: none). Only one recorded before rec, or listed by robots.txt or
        guessed (all recorded before any fetch), is known whichever fetch ends first: the same
        tree every run. None when rec must read its own body."""
        if found is None or found == rec.number or rec.number in self._itself:
            return None
        earlier = found < rec.number or records[found].parent is None
        return found if earlier else None

    def applied(self, rec: SitemapRecord, read_as: int | None) -> list[int]:
        """rec's fetch is applied (read_as: the record its body was left to): the records to
        fetch again and read themselves, as what they were left to was not read."""
        number = rec.number
        self._again.discard(number)
        read = not rec.cut and rec.type in READ_TYPES
        self._read[number] = read
        again = self._waiting.pop(number, [])
        if read:
            again = []
        if read_as is not None:
            self.read_as[number] = read_as
            if read_as not in self._read:
                self._waiting.setdefault(read_as, []).append(number)
            elif not self._read[read_as]:
                again.append(number)
        self._itself.update(again)
        self._again.update(again)
        for left in again:
            del self.read_as[left]  # read itself from now on
        return again

    def unread(self) -> Iterator[int]:
        """The records left to one that was never fetched, or sent back to be read themselves
        and not fetched again (a limit, an interruption), in the order they were left."""
        for left in self._waiting.values():
            yield from left
        yield from sorted(self._again)

    def chain(self, number: int) -> Iterator[int]:
        """The records number was read as, in turn (a redirect to a redirect), each once."""
        seen = {number}
        while (number := self.read_as.get(number, -1)) >= 0 and number not in seen:
            seen.add(number)
            yield number


def afresh(rec: SitemapRecord) -> SitemapRecord:
    """rec as listed, before any fetch: to be fetched again."""
    again = SitemapRecord(rec.number, rec.url, rec.parent, rec.depth, rec.source)
    again.place, again.in_index, again.children = rec.place, rec.in_index, rec.children
    return again
