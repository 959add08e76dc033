"""Every string up to a length over a small alphabet: the cases exhaustive tests try in full."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

__all__ = ["strings"]


def strings(alphabet: str, longest: int) -> Iterator[str]:
    """Every string of `alphabet`'s characters up to `longest` of them, the shortest first."""
    for size in range(longest + 1):
        for chars in itertools.product(alphabet, repeat=size):
            yield "".join(chars)
