"""A call awaited for at most so long: for the calls whose own timeouts leave a wait unbounded.

botocore's connect and read timeouts bound a call's connections and reads, but not the name
lookup of its endpoint, which urllib3 makes with no timeout (a resolver that stops answering, in
a function attached to a VPC, say). A call made here runs in a thread of its own; the caller
waits for it at most so long, then goes on without its answer, which is dropped.

A call given up on keeps its thread until its own timeouts end it (or the resolver answers).
At most MAX_ABANDONED such threads live at once: past that, a call is past due at once, without
a thread, so a warm container under a long outage of its resolver holds a bounded number.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

__all__ = ["MAX_ABANDONED", "PastDueError", "abandoned", "within"]

T = TypeVar("T")

# Calls given up on whose threads still run: a name lookup that never answers holds one each.
# Sixteen are more than one audit's store and secret calls (a handful) while they hang.
MAX_ABANDONED = 16

_lock = threading.Lock()
_abandoned = 0


class PastDueError(Exception):
    """A call not answered within the time it was given."""


def within(seconds: float, call: Callable[[], T], name: str = "bounded-call") -> T:
    """call's answer (or its exception), or PastDueError once seconds have passed: the call goes
    on in its daemon thread, bounded by its own timeouts, and its answer is dropped."""
    global _abandoned
    if seconds <= 0:
        raise PastDueError
    with _lock:
        if _abandoned >= MAX_ABANDONED:
            raise PastDueError
    box: list[tuple[bool, object]] = []
    # Under _lock: whether the call has ended, and whether its caller gave up on it first.
    ended, gave_up = [False], [False]

    def run() -> None:
        global _abandoned
        try:
            box.append((True, call()))
        except Exception as e:  # noqa: BLE001 -- handed to the caller's thread as it is
            box.append((False, e))
        finally:
            with _lock:
                ended[0] = True
                if gave_up[0]:
                    _abandoned -= 1

    worker = threading.Thread(target=run, name=name, daemon=True)
    worker.start()
    worker.join(seconds)
    with _lock:
        if not ended[0]:
            gave_up[0] = True
            _abandoned += 1
    if not box:
        raise PastDueError
    ok, value = box[0]
    if not ok:
        assert isinstance(value, Exception)
        raise value
    return value  # type: ignore[return-value]


def abandoned() -> int:
    """How many calls given up on still run."""
    with _lock:
        return _abandoned
