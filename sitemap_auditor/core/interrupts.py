"""A stop asked for by a signal (SIGINT, SIGTERM), taken where the walk can stop cleanly.

Python's own SIGINT handling raises KeyboardInterrupt wherever the main thread is, in the
middle of a tally's update as well as in a wait. `Interrupt.handle`, installed for SIGINT and
SIGTERM by the command line, records the signal, sets `requested`, and raises KeyboardInterrupt
only when the main thread is not inside a `deferred()` section: the walk marks every step that
changes its state so, and looks at `requested` between them. The command line holds signals
from the moment it installs the handler (`hold`): they break in only where the walk opens a
section to them (`opened`: its first fetches, and its waits), and are only recorded once the
walk is over, so that the partial document is written whole. Its exit status is 128 plus the
signal's number: 130 for SIGINT, 143 for SIGTERM.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

__all__ = ["SIGNALS", "Interrupt"]

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupt:
    """Whether a stop was asked for, by which signal, and where it may be raised."""

    def __init__(self) -> None:
        self.requested = threading.Event()
        self.signum: int | None = None  # the first signal received
        self.received = 0  # signals received (and stops requested) so far
        self._deferred = 0  # depth of deferred() sections of the main thread

    @property
    def exit_status(self) -> int | None:
        """128 + the signal's number, once one was received."""
        return None if self.signum is None else 128 + self.signum

    def handle(self, signum: int, frame: FrameType | None = None) -> None:
        """The signal handler: record the stop, raise it where that is safe."""
        if self.signum is None:
            self.signum = signum
        self.received += 1
        self.requested.set()
        if self._deferred == 0:
            raise KeyboardInterrupt

    def request(self, signum: int = signal.SIGINT) -> None:
        """Ask for a stop as a signal would, without raising (from any thread)."""
        if self.signum is None:
            self.signum = signum
        self.received += 1
        self.requested.set()

    @contextmanager
    def deferred(self) -> Iterator[None]:
        """A section of the main thread a signal does not break into: it is taken after. (A
        signal never breaks into another thread: there it changes nothing.)"""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        self._deferred += 1
        try:
            yield
        finally:
            self._deferred -= 1

    @contextmanager
    def opened(self) -> Iterator[None]:
        """A section where a signal stops the main thread at once (where it waits, say): a
        signal received before it is taken on entry. In another thread (a walk of `deep
        --input`), only that: the walk looks at `requested` between its steps."""
        if threading.current_thread() is not threading.main_thread():
            if self.requested.is_set():
                raise KeyboardInterrupt
            yield
            return
        depth, self._deferred = self._deferred, 0
        try:
            if self.requested.is_set():
                raise KeyboardInterrupt
            yield
        finally:
            self._deferred = depth

    def since_now(self) -> Callable[[], bool]:
        """Whether a signal came after this call: what stops a long write that began once the
        walk was over (finding_urls.csv's sort), which an earlier signal must not stop."""
        before = self.received
        return lambda: self.received > before

    def hold(self) -> None:
        """From now on, signals are only recorded, but inside `opened` sections."""
        self._deferred += 1

    def install(self) -> Callable[[], None]:
        """Handle SIGINT and SIGTERM here (main thread only); returns what puts back the old
        handlers."""
        old: dict[int, Any] = {s: signal.signal(s, self.handle) for s in SIGNALS}

        def restore() -> None:
            for s, handler in old.items():
                signal.signal(s, handler)

        return restore
