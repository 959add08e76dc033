"""Every occurrence of every finding, spooled to disk as the walk counts it, and read back once
the walk is over in one fixed order: the rows of `finding_urls.csv` (reports/finding_urls.py).

Memory does not grow with the number of rows. They are written to a temporary file as they come
(at most `BUFFER_ROWS` held at once), and read back sorted by an external merge sort: runs of at
most `RUN_ROWS` rows sorted in memory, each written to a temporary file of its own, then merged,
at most `MERGE_FAN_IN` files at a time. Only the sitemaps' URLs are held, one per sitemap.

The order does not depend on which fetch finished first: by the sitemap's place (the caller's:
the document's order of the sitemaps), then the line, then the kind's place in the kinds
table, then the value and the detail. A row whose place is None is left out (a finding the walk
dropped, such as a usual path's 404 that was only a guess).
"""

from __future__ import annotations

import csv
import heapq
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO

from sitemap_auditor.deep.kinds import KINDS, Kind

__all__ = [
    "BUFFER_ROWS",
    "MERGE_FAN_IN",
    "RUN_ROWS",
    "STOP_EVERY_ROWS",
    "FindingRow",
    "FindingRows",
    "StoppedError",
]

BUFFER_ROWS = 1024
RUN_ROWS = 8192
MERGE_FAN_IN = 32
# A stop asked for (a signal: the command still writes its document) is looked for before each
# run is sorted, each merge, and every this many rows after.
STOP_EVERY_ROWS = 8192


class StoppedError(Exception):
    """The sort was stopped, as `sorted`'s `stop` asked."""


def _never() -> bool:
    return False


_KINDS = tuple(KINDS)
_KIND_INDEX = {kind: i for i, kind in enumerate(_KINDS)}
# What a row is known by when it is about no sitemap (the site, robots.txt).
SITE = -1


@dataclass(frozen=True)
class FindingRow:
    """One occurrence of a finding, as written (not redacted)."""

    sitemap: str | None
    line: int | None
    kind: Kind
    value: str
    detail: str


Place = Callable[[str | None, Kind], int | None]


class FindingRows:
    """The spool: `sink(number, url)` gives a sitemap's tally what it hands each occurrence to
    (checks.RowSink); `sorted(place)` reads them back. Thread-safe; close it once read."""

    def __init__(self, directory: str | None = None) -> None:
        self._directory = directory
        self._lock = threading.Lock()
        self._buffer: list[tuple[int, int, int, str, str]] = []
        self._spool: IO[str] | None = None  # made at the first BUFFER_ROWS rows
        self._urls: dict[int, str] = {}
        self.rows = 0

    def sink(self, number: int, url: str | None) -> Callable[[Kind, int | None, str, str], None]:
        """What the tally of sitemap number (at url; None: about the site) hands rows to."""
        if url is not None:
            with self._lock:
                self._urls[number] = url

        def add(kind: Kind, line: int | None, value: str, detail: str) -> None:
            self.add(number, kind, line, value, detail)

        return add

    def add(self, number: int, kind: Kind, line: int | None, value: str, detail: str) -> None:
        """Spool one occurrence of kind in sitemap number."""
        row = (number, -1 if line is None else line, _KIND_INDEX[kind], value, detail)
        with self._lock:
            self._buffer.append(row)
            self.rows += 1
            if len(self._buffer) >= BUFFER_ROWS:
                self._flush()

    def _flush(self) -> None:
        if not self._buffer:
            return
        if self._spool is None:
            self._spool = _temporary(self._directory)
        csv.writer(self._spool).writerows(self._buffer)
        self._buffer.clear()

    def _spooled(self) -> Iterator[list[str]]:
        with self._lock:
            self._flush()
            spool = self._spool
        if spool is None:
            return
        spool.seek(0)
        yield from csv.reader(spool)

    def sorted(self, place: Place, stop: Callable[[], bool] = _never) -> Iterator[FindingRow]:
        """Every row whose place is not None, in order (see the module's docstring); raises
        StoppedError once stop() is true (looked at between runs and every STOP_EVERY_ROWS rows)."""

        def stopping() -> None:
            if stop():
                raise StoppedError

        urls = self._urls
        places: dict[tuple[str, str], int | None] = {}  # (number, kind) as spooled: its place
        opened: list[IO[str]] = []  # every run file, closed (and so removed) at the end
        try:
            runs: list[IO[str]] = []
            run: list[_Sorted] = []
            for written in self._spooled():
                number, line, kind, value, detail = written
                where = places.get((number, kind), _UNKNOWN)
                if where == _UNKNOWN:
                    n = int(number)
                    where = places[number, kind] = place(
                        urls.get(n) if n != SITE else None, _KINDS[int(kind)]
                    )
                if where is None:
                    continue
                run.append((where, int(line), int(kind), value, detail, int(number)))
                if len(run) >= RUN_ROWS:
                    stopping()
                    run.sort()
                    runs.append(self._written(run, opened))
                    run = []
            while len(runs) > MERGE_FAN_IN:
                stopping()
                merged = [
                    self._written(heapq.merge(*map(_read, runs[i : i + MERGE_FAN_IN])), opened)
                    for i in range(0, len(runs), MERGE_FAN_IN)
                ]
                for f in runs:
                    f.close()  # merged: its disk is given back now
                runs = merged
            stopping()
            run.sort()
            for n, row in enumerate(heapq.merge(*map(_read, runs), run), 1):
                if n % STOP_EVERY_ROWS == 0:
                    stopping()
                at, sitemap = row[1], row[5]
                url = urls.get(sitemap) if sitemap != SITE else None
                yield FindingRow(url, None if at < 0 else at, _KINDS[row[2]], row[3], row[4])
        finally:
            for f in opened:
                f.close()

    def _written(self, rows: Iterable[_Sorted], opened: list[IO[str]]) -> IO[str]:
        out = _temporary(self._directory)
        opened.append(out)
        csv.writer(out).writerows(rows)
        return out

    def close(self) -> None:
        """Remove the spool."""
        with self._lock:
            self._buffer.clear()
            if self._spool is not None:
                self._spool.close()
                self._spool = None

    def __enter__(self) -> FindingRows:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# A row as sorted: its place, line, kind (its index), value, detail, and sitemap number.
_Sorted = tuple[int, int, int, str, str, int]
_UNKNOWN = -2


def _temporary(directory: str | None) -> IO[str]:
    # CSV in UTF-8, lone surrogates kept as written: any string goes in and comes back.
    return tempfile.TemporaryFile(
        "w+", encoding="utf-8", errors="surrogatepass", newline="", dir=directory
    )


def _read(run: IO[str]) -> Iterator[_Sorted]:
    run.seek(0)
    for where, line, kind, value, detail, number in csv.reader(run):
        yield int(where), int(line), int(kind), value, detail, int(number)
