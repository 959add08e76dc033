"""core.bounded.within: a call awaited for at most so long, and the threads it gives up on
bounded in number."""

from __future__ import annotations

import threading

import pytest

from sitemap_auditor.core.bounded import MAX_ABANDONED, PastDueError, abandoned, within


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


def test_threads_given_up_on_are_bounded_and_counted_until_they_end() -> None:
    release = threading.Event()
    started: list[int] = []
    before = abandoned()

    def hangs() -> None:
        started.append(1)
        release.wait(30)

    try:
        # A resolver that never answers: each call is given up on and keeps its thread.
        for _ in range(MAX_ABANDONED - before):
            with pytest.raises(PastDueError):
                within(0.01, hangs, "hangs")
        assert abandoned() == MAX_ABANDONED
        calls = len(started)
        # Past the bound, a call is past due at once: no thread, no call.
        with pytest.raises(PastDueError):
            within(5, hangs, "hangs")
        assert len(started) == calls
        assert sum(t.name == "hangs" for t in threading.enumerate()) == MAX_ABANDONED - before
    finally:
        release.set()
    for t in threading.enumerate():
        if t.name == "hangs":
            t.join(5)
    assert abandoned() == before
    assert within(5, lambda: "answered") == "answered"
