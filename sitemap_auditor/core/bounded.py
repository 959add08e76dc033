"""A call awaited for at most so long: for the calls whose own timeouts leave a wait unbounded.

botocore's connect and read timeouts bound a call's connections and reads, but not the name
lookup of its endpoint, which urllib3 makes with no timeout (a resolver that stops answering, in
a function attached to a VPC, say). A call made here runs in a thread of its own; the caller
waits for it at most so long, then goes on without its answer, which is dropped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

__all__ = ["PastDueError", "within"]

T = TypeVar("T")


class PastDueError(Exception):
    """A call not answered within the time it was given."""


def within(seconds: float, call: Callable[[], T], name: str = "bounded-call") -> T:
    """call's answer (or its exception), or PastDueError once seconds have passed: the call goes
    on in its daemon thread, bounded by its own timeouts, and its answer is dropped."""
    if seconds <= 0:
        raise PastDueError
    box: list[tuple[bool, object]] = []

    def run() -> None:
        try:
            box.append((True, call()))
        except Exception as e:  # noqa: BLE001 -- handed to the caller's thread as it is
            box.append((False, e))

    worker = threading.Thread(target=run, name=name, daemon=True)
    worker.start()
    worker.join(seconds)
    if not box:
        raise PastDueError
    ok, value = box[0]
    if not ok:
        assert isinstance(value, Exception)
        raise value
    return value  # type: ignore[return-value]
