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


_SHARD_BITS = 6  # 64 tables, chosen by a digest's top bits
_TAKEN = 1  # a slot whose digest was taken (DigestSet.take); 0 is an empty slot


class DigestSet:
    """A set of 64-bit URL digests in 64 arrays of 8-byte slots (open addressing, each doubled
    when 3/4 full): 11 to 21 bytes a URL, where a Python set of ints takes 50 to 70. A digest's
    top bits choose its array, so that growing one copies a 64th of the set, not all of it (one
    array would need its old and new slots at once, half as much again)."""

    def __init__(self, capacity: int = 1024) -> None:
        per = max(4, 1 << max(0, (capacity >> _SHARD_BITS) - 1).bit_length())
        self._shards = [array("Q", [0]) * per for _ in range(1 << _SHARD_BITS)]
        self._counts = [0] * (1 << _SHARD_BITS)  # slots used, taken ones included
        self._taken = 0

    def __len__(self) -> int:
        return sum(self._counts) - self._taken

    def __iter__(self) -> Iterator[int]:
        return (v for slots in self._shards for v in slots if v > _TAKEN)

    @staticmethod
    def _key(key: int) -> int:
        return key if key > _TAKEN else 2  # 0 and 1 mark empty and taken slots

    def _find(self, key: int) -> tuple[array[int], int]:
        """The array of key and the slot that holds it, or the empty slot where it would go."""
        slots = self._shards[key >> (64 - _SHARD_BITS)]
        mask = len(slots) - 1
        i = key & mask
        while True:
            v = slots[i]
            if v == key or v == 0:
                return slots, i
            i = (i + 1) & mask

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, int):
            return False
        slots, i = self._find(self._key(key))
        return slots[i] != 0

    def add(self, key: int) -> bool:
        """Add a digest; True when it was not there yet (a taken digest is there no more)."""
        key = self._key(key)
        slots, i = self._find(key)
        if slots[i] != 0:
            return False
        slots[i] = key
        shard = key >> (64 - _SHARD_BITS)
        self._counts[shard] += 1
        if self._counts[shard] * 4 > len(slots) * 3:
            self._grow(shard)
        return True

    def take(self, key: int) -> bool:
        """Remove a digest that is there (True), leaving its slot taken: a set that is only
        taken from after it is filled, as a second pass over what filled it does."""
        slots, i = self._find(self._key(key))
        if slots[i] == 0:
            return False
        slots[i] = _TAKEN
        self._taken += 1
        return True

    def copy(self) -> DigestSet:
        """Another set of the same digests."""
        other = DigestSet(0)
        other._shards = [array("Q", slots) for slots in self._shards]
        other._counts = list(self._counts)
        other._taken = self._taken
        return other

    def _grow(self, shard: int) -> None:
        old = self._shards[shard]
        slots = self._shards[shard] = array("Q", [0]) * (2 * len(old))
        mask = len(slots) - 1
        count = 0
        for v in old:
            if v > _TAKEN:  # a taken slot is dropped
                i = v & mask
                while slots[i]:
                    i = (i + 1) & mask
                slots[i] = v
                count += 1
        self._taken -= sum(1 for v in old if v == _TAKEN)
        self._counts[shard] = count


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

    def write(self, row: dict[str, Any]) -> bool:
        """Append one row and flush it; False, writing nothing, once the file is closed (the run
        ended, by an interruption say, while a worker finished its page)."""
        line = json.dumps(row, ensure_ascii=False) + "\n"
        with self._lock:
            if self._out.closed:
                return False
            self._out.write(line)
            self._out.flush()
        return True

    def close(self) -> None:
        """Close the file (a write meanwhile ends first; one after, writes nothing)."""
        with self._lock:
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
