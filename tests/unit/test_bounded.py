"""core.bounded.within: a call awaited for at most so long, and the threads it gives up on
bounded in number."""

from __future__ import annotations

import threading

import pytest

from sitemap_auditor.core.bounded import MAX_CALLS, PastDueError, within


def test_an_answer_and_an_exception_come_back_as_they_are() -> None:
    assert within(5, lambda: 42) == 42

    def fails() -> int:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        within(5, fails)


def test_no_time_left_is_past_due_without_a_call() -> None:
    called: list[int] = []
    with pytest.raises(PastDueError):
        within(0, lambda: called.append(1))
    assert called == []


def _hanging(name: str) -> int:
    return sum(t.name == name for t in threading.enumerate())


def test_threads_given_up_on_are_bounded_even_when_given_up_on_at_once() -> None:
    # A resolver that never answers, met by many callers at once (a command line's --jobs):
    # each call is given up on and keeps its thread, never more than MAX_CALLS of them.
    release = threading.Event()
    started: list[int] = []
    errors: list[BaseException] = []

    def hangs() -> None:
        started.append(1)
        release.wait(30)

    def caller() -> None:
        try:
            within(0.2, hangs, "hangs")
        except BaseException as e:  # noqa: BLE001 -- each caller's outcome is asserted below
            errors.append(e)

    callers = [threading.Thread(target=caller) for _ in range(3 * MAX_CALLS)]
    try:
        for t in callers:
            t.start()
        for t in callers:
            t.join(10)
        assert len(errors) == len(callers)
        assert all(isinstance(e, PastDueError) for e in errors)
        assert len(started) <= MAX_CALLS
        assert _hanging("hangs") <= MAX_CALLS
    finally:
        release.set()
    for t in threading.enumerate():
        if t.name == "hangs":
            t.join(5)
    # Once they end, their slots are free again: a call that answers is answered.
    assert within(5, lambda: "answered") == "answered"


def test_a_call_waits_for_a_slot_within_its_own_time() -> None:
    release = threading.Event()

    def hangs() -> None:
        release.wait(30)

    try:
        for _ in range(MAX_CALLS):
            with pytest.raises(PastDueError):
                within(0.01, hangs, "hangs")
        # Every slot is held by a call given up on; one frees while the next call waits.
        threading.Timer(0.1, release.set).start()
        assert within(5, lambda: "answered") == "answered"
    finally:
        release.set()
    for t in threading.enumerate():
        if t.name == "hangs":
            t.join(5)
