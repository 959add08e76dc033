"""The pages file: one JSON line per checked page, appended as each is checked, read back to
resume. What is done lives on disk, not in a list."""

from __future__ import annotations

import hashlib
import json
import threading
from array import array
from collections.abc import Iterator
from typing import IO, Any

__all__ = ["DigestSet", "PagesFile", "url_key"]


def url_key(url: str) -> int:
    """A 64-bit digest of a URL: the seen and done sets hold these, not the URLs."""
    return int.from_bytes(hashlib.blake2b(url.encode("utf-8", "replace"), digest_size=8).digest())


class DigestSet:
    """A set of 64-bit URL digests in one array of 8-byte slots (open addressing, doubled when
    3/4 full): 11 to 21 bytes a URL, where a Python set of ints takes 50 to 70."""

    def __init__(self, capacity: int = 1024) -> None:
        self._slots = array("Q", [0]) * capacity
        self._mask = capacity - 1
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[int]:
        return (v for v in self._slots if v)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, int):
            return False
        key = key or 1
        slots, mask = self._slots, self._mask
        i = key & mask
        while True:
            v = slots[i]
            if v == key:
                return True
            if v == 0:
                return False
            i = (i + 1) & mask

    def add(self, key: int) -> bool:
        """Add a digest; True when it was not there yet."""
        key = key or 1  # 0 marks an empty slot
        slots, mask = self._slots, self._mask
        i = key & mask
        while True:
            v = slots[i]
            if v == 0:
                slots[i] = key
                self._count += 1
                if self._count * 4 > (mask + 1) * 3:
                    self._grow()
                return True
            if v == key:
                return False
            i = (i + 1) & mask

    def copy(self) -> DigestSet:
        """Another set of the same digests."""
        other = DigestSet(self._mask + 1)
        other._slots = array("Q", self._slots)
        other._count = self._count
        return other

    def _grow(self) -> None:
        old = self._slots
        self._slots = array("Q", [0]) * (2 * len(old))
        self._mask = len(self._slots) - 1
        self._count = 0
        for v in old:
            if v:
                self.add(v)


class PagesFile:
    """Append-only JSON Lines; each row is flushed whole, so a kill loses at most a partial last
    line, which a resume skips."""

    def __init__(self, path: str, resume: bool) -> None:
        self.path = path
        if resume:
            _drop_cut_line(path)
        self._out: IO[str] = open(path, "a" if resume else "w", encoding="utf-8")  # noqa: SIM115
        self._lock = threading.Lock()

    @staticmethod
    def rows(path: str) -> Iterator[dict[str, Any]]:
        """The whole rows of an earlier run's file (a cut last line left out)."""
        try:
            f = open(path, encoding="utf-8")  # noqa: SIM115 -- closed below
        except FileNotFoundError:
            return
        with f:
            for line in f:
                if not line.endswith("\n"):
                    break
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                if isinstance(row, dict) and isinstance(row.get("url"), str):
                    yield row

    def write(self, row: dict[str, Any]) -> None:
        """Append one row and flush it."""
        line = json.dumps(row, ensure_ascii=False) + "\n"
        with self._lock:
            self._out.write(line)
            self._out.flush()

    def close(self) -> None:
        """Close the file."""
        self._out.close()


def _drop_cut_line(path: str) -> None:
    """Cut a file back to its last whole line (a kill may leave half a row)."""
    try:
        f = open(path, "r+b")  # noqa: SIM115 -- closed below
    except FileNotFoundError:
        return
    with f:
        size = f.seek(0, 2)
        end = size
        while end > 0:
            start = max(0, end - 65536)
            f.seek(start)
            block = f.read(end - start)
            at = block.rfind(b"\n")
            if at >= 0:
                end = start + at + 1
                break
            end = start
        if end != size:
            f.truncate(end)
