"""A call awaited for at most so long: for the calls whose own timeouts leave a wait unbounded.

botocore's connect and read timeouts bound a call's connections and reads, but not the name
lookup of its endpoint, which urllib3 makes with no timeout (a resolver that stops answering, in
a function attached to a VPC, say). A call made here runs in a thread of its own; the caller
waits for it at most so long, then goes on without its answer, which is dropped.

A call given up on keeps its thread until its own timeouts end it (or the resolver answers).
At most MAX_CALLS such threads live at once, those given up on included: past that, a call
waits for a slot within its own time, so a warm container under a long outage of its resolver
holds a bounded number (as the fetcher bounds its own look-ups: fetching/guard.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

__all__ = ["MAX_CALLS", "PastDueError", "within"]

T = TypeVar("T")

# Sixteen are more than the store and secret calls of a command line's audits at once (--jobs)
# that answer, and than one audit's (a handful) that hang.
MAX_CALLS = 16
_SLOTS = threading.BoundedSemaphore(MAX_CALLS)


class PastDueError(Exception):
    """A call not answered within the time it was given."""


def within(seconds: float, call: Callable[[], T], name: str = "bounded-call") -> T:
    """call's answer (or its exception), or PastDueError once seconds have passed (waiting for
    a slot included): the call goes on in its daemon thread, bounded by its own timeouts, and
    its answer is dropped."""
    if seconds <= 0:
        raise PastDueError
    due = time.monotonic() + seconds
    if not _SLOTS.acquire(timeout=seconds):
        raise PastDueError
    box: list[tuple[bool, object]] = []
    # The slot is given back once: by the thread when its call ends, or by the caller when the
    # thread could not be started (an interruption inside Thread.start may come either side of
    # the thread's own start).
    held = [True]
    hold = threading.Lock()

    def give_back() -> None:
        with hold:
            if held[0]:
                held[0] = False
                _SLOTS.release()

    def run() -> None:
        try:
            box.append((True, call()))
        except Exception as e:  # noqa: BLE001 -- handed to the caller's thread as it is
            box.append((False, e))
        finally:
            give_back()

    worker = threading.Thread(target=run, name=name, daemon=True)
    try:
        worker.start()
    except BaseException:
        give_back()
        raise
    worker.join(max(0.0, due - time.monotonic()))
    if not box:
        raise PastDueError
    ok, value = box[0]
    if not ok:
        assert isinstance(value, Exception)
        raise value
    return value  # type: ignore[return-value]
