"""The one watchdog thread that cuts every fetch at its deadline, on the real clock: it expires
guards in deadline order and never one whose fetch ended (tests/unit holds its bound, without
waiting)."""

from __future__ import annotations

import threading
import time

from sitemap_auditor.fetching.guard import Guard, Watchdog


class _Told(Guard):
    """A guard that says when the watchdog expires it."""

    def __init__(self, deadline: float, told: list[str], name: str, done: threading.Event) -> None:
        super().__init__(deadline, 1.0)
        self.told, self.name, self.done = told, name, done

    def expire(self) -> None:
        super().expire()
        self.told.append(self.name)
        if len(self.told) == 2:
            self.done.set()


def test_one_watchdog_expires_guards_in_deadline_order_and_never_a_cancelled_one() -> None:
    watchdog, done = Watchdog(), threading.Event()
    told: list[str] = []
    now = time.monotonic()
    watchdog.cancel(watchdog.watch(_Told(now + 0.1, told, "ended", done)))  # due first
    # Watched latest first, both well before either is due.
    late, early = _Told(now + 0.6, told, "late", done), _Told(now + 0.3, told, "early", done)
    watchdog.watch(late)
    watchdog.watch(early)
    assert done.wait(10.0)
    assert told == ["early", "late"]
    assert late.expired and early.expired
