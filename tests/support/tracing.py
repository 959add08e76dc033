"""How far traced memory rose while a piece of work ran (tracemalloc), for bounds in tests."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import TypeVar

__all__ = ["traced_peak"]

T = TypeVar("T")


def traced_peak(work: Callable[[], T]) -> tuple[T, int]:
    """Run work under tracemalloc; return its result and how far traced memory rose above start."""
    already = tracemalloc.is_tracing()  # e.g. python -X tracemalloc: leave it running
    if not already:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        result = work()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        if not already:
            tracemalloc.stop()
    return result, peak - before
