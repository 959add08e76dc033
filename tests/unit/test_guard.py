"""The timeout a fetch's guard reports: the span the fetch was given, stated as given."""

from __future__ import annotations

import time

from sitemap_auditor.fetching.guard import Guard


def test_a_site_limit_reads_as_given_however_late_the_guard_is_made() -> None:
    # The guard is made a little after the fetch started: its deadline is then nearer than the
    # limit, yet the message must not read "0.999 s" for a 1 s limit.
    started = time.monotonic() - 0.004
    guard = Guard(started + 1.0, 1.0)
    assert str(guard.timeout()) == "timeout: no complete answer within 1 s"


def test_the_audit_budget_reads_as_what_was_left_of_it() -> None:
    guard = Guard(time.monotonic() + 1.49, 1.4913, budget_bound=True)
    assert str(guard.timeout()) == "timeout: the audit ran out of time after 1.49 s"


def test_a_span_is_never_negative() -> None:
    # A budget already spent when the fetch starts.
    guard = Guard(time.monotonic() - 1.0, -1.0, budget_bound=True)
    assert str(guard.timeout()) == "timeout: the audit ran out of time after 0 s"
