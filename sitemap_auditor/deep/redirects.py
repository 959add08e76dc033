"""Sitemaps read where their redirects led (docs/deep.md, `redirect`).

A listed sitemap whose redirects end at another listed one (/sitemap.xml at /sitemap_index.xml,
both guessed or both in robots.txt) is not read twice: its body is left to that one, read in its
own right. Which one is read must not depend on which fetch ends first; and one left to a
sitemap that a limit or an interruption then leaves unfetched is not read either. This table
decides both, in the walk's thread. Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from sitemap_auditor.deep.records import SitemapRecord

__all__ = ["ReadElsewhere"]


class ReadElsewhere:
    """Which record each redirected one is read as, and which of those were never fetched."""

    def __init__(self) -> None:
        self.read_as: dict[int, int] = {}  # a redirected record: the record read for it
        self._waiting: dict[int, list[int]] = {}  # a record not fetched yet: those left to it
        self._fetched: set[int] = set()  # records whose fetch was applied, not cut

    def target(
        self, rec: SitemapRecord, found: int | None, records: Sequence[SitemapRecord]
    ) -> int | None:
        """The record rec's body is left to, given `found`, the record listed under the URL its
        redirects led to (None: none). Only one recorded before rec, listed by robots.txt or
        guessed (all recorded before any fetch), or listed by rec's own index (its sitemaps are
        recorded at once, before any of them is fetched) is known whichever fetch ends first:
        the same tree every run. None when rec reads its own body."""
        if found is None or found == rec.number:
            return None
        other = records[found]
        known = found < rec.number or other.parent is None or other.parent == rec.parent
        return found if known else None

    def applied(self, rec: SitemapRecord, read_as: int | None) -> None:
        """rec's fetch is applied; read_as: the record its body was left to."""
        if not rec.cut:
            self._fetched.add(rec.number)
            self._waiting.pop(rec.number, None)
        if read_as is not None:
            self.read_as[rec.number] = read_as
            if read_as not in self._fetched:
                self._waiting.setdefault(read_as, []).append(rec.number)

    def unread(self) -> Iterator[int]:
        """The records left to one that was never fetched (a limit, an interruption)."""
        for left in self._waiting.values():
            yield from left

    def chain(self, number: int) -> Iterator[int]:
        """The records number was read as, in turn (a redirect to a redirect), each once."""
        seen = {number}
        while (number := self.read_as.get(number, -1)) >= 0 and number not in seen:
            seen.add(number)
            yield number
