"""A stop asked for by a signal, as the deep audit's command line takes it (core/interrupts.py)."""

from __future__ import annotations

import signal

import pytest

from sitemap_auditor.core.interrupts import Interrupt


def test_a_held_signal_is_recorded_and_raised_only_where_opened() -> None:
    interrupt = Interrupt()
    interrupt.hold()
    interrupt.handle(signal.SIGTERM)  # held: recorded, not raised
    assert interrupt.requested.is_set() and interrupt.exit_status == 143
    with pytest.raises(KeyboardInterrupt), interrupt.opened():
        pass  # a signal received before the section is taken on entry


def test_since_now_tells_a_signal_that_came_after_it_only() -> None:
    interrupt = Interrupt()
    interrupt.hold()
    interrupt.handle(signal.SIGINT)  # during the walk: its partial document is written
    later = interrupt.since_now()
    assert not later()
    interrupt.request(signal.SIGTERM)  # while finding_urls.csv is sorted: that file stops
    assert later() and interrupt.exit_status == 130  # the first signal's status
