"""The lease protocol's pure core: each step and its rules.

No socket, no sleep: the machine is fed observations and a time. Fleets of audits, each one
call of the real driver, run in virtual time in tests/simulation (harness/fleet.py).
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Iterator
from dataclasses import replace

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from support.phases import checked_moves

from harness import lease_diagram
from sitemap_auditor.fetching.fetch import REQUEST_DEADLINE_S
from sitemap_auditor.sharing import lease, liveness, local
from sitemap_auditor.sharing.lease import (
    Action,
    FetchAlone,
    Fetched,
    FetchHolding,
    Finish,
    Item,
    LeaseRefused,
    LeaseTaken,
    MarkUnshareable,
    Protocol,
    Publish,
    Read,
    ReadDone,
    Reason,
    Sleep,
    Slept,
    Source,
    Stamp,
    StoreAnswered,
    StoreFailed,
    TakeLease,
    Unshareable,
    Use,
)
from sitemap_auditor.sharing.local import Local


@pytest.fixture(autouse=True)
def _moves_in_the_table(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    # Every move of the machine in these tests is one of lease.TRANSITIONS.
    yield from checked_moves(monkeypatch)


NOW = 1_000_000.0
WINDOW = 60.0


def machine(
    known: Stamp | None = None, budget: float = 147.0, seed: int = 1, draw: float = 0.5
) -> Protocol:
    return Protocol("me", WINDOW, NOW + budget, known, random.Random(seed), draw)


def leased(owner: str = "other", until: float = NOW + 10, stamp: Stamp | None = None) -> Item:
    return Item(stamp=stamp, lease_owner=owner, lease_until=until)


# --- single steps -------------------------------------------------------------------------------


def test_the_first_read_is_eventually_consistent() -> None:
    assert machine().start() == Read(consistent=False)


def test_an_empty_item_is_leased_with_a_condition_on_fresh_facts() -> None:
    action = machine().step(ReadDone(None), NOW)
    assert isinstance(action, TakeLease)
    assert action.until == NOW + lease.LEASE_S and action.now == NOW
    # Facts fetched after `due` would be current: the write must fail over them.
    assert action.due == NOW - WINDOW / 2


def test_current_facts_are_reused_without_a_write() -> None:
    item = Item(stamp=Stamp(NOW - 5, 1.0))
    assert machine().step(ReadDone(item), NOW) == Finish(Use.STORED, Source.REUSED)


def test_a_live_lease_of_another_is_waited_for_without_a_conditional_write() -> None:
    m = machine()
    action = m.step(ReadDone(leased()), NOW)
    assert isinstance(action, Sleep) and NOW < action.until <= NOW + lease.POLL_MIN_S * 1.5
    assert m.step(Slept(), action.until) == Read(consistent=False)
    # Still leased: sleep again, longer as the wait grows, never a write.
    later = m.step(ReadDone(leased(until=NOW + 20)), NOW + 30)
    assert isinstance(later, Sleep)
    assert later.until - (NOW + 30) <= lease.POLL_MAX_S * 1.5


def test_a_waiter_takes_the_facts_of_the_fetch_it_waited_for_even_when_transient() -> None:
    m = machine()
    m.step(ReadDone(leased("holder")), NOW)
    m.step(Slept(), NOW + 1)
    landed = Item(stamp=Stamp(NOW + 1, 1.0, transient=True, flight="holder"))
    assert m.step(ReadDone(landed), NOW + 1.1) == Finish(Use.STORED, Source.WAITED)


def test_a_transient_answer_the_item_held_before_the_wait_is_not_the_waits() -> None:
    # A holder whose clock runs 3 s ahead fetched, got a 503 and published before this audit
    # started; B took the lease since (its write leaves those facts in the item). Stamped
    # "after" the wait began, they are no fetch it waited for (CONTRACT §7): it waits for B's.
    ahead = Stamp(NOW + 2.0, 0.5, transient=True, flight="A")
    m = machine()
    assert isinstance(m.step(ReadDone(leased("B", stamp=ahead)), NOW), Sleep)
    m.step(Slept(), NOW + 1)
    assert isinstance(m.step(ReadDone(leased("B", stamp=ahead)), NOW + 1.1), Sleep)
    # A standby's (or a takeover's) answer published in the wait is its own, as B's is.
    m.step(Slept(), NOW + 2)
    standby = Stamp(NOW + 2.1, 1.0, transient=True, flight="S")
    assert m.step(ReadDone(Item(stamp=standby)), NOW + 2.2) == Finish(Use.STORED, Source.WAITED)


def test_transient_facts_are_not_reused_by_a_later_audit() -> None:
    item = Item(stamp=Stamp(NOW - 1, 1.0, transient=True, flight="holder"))
    action = machine().step(ReadDone(item), NOW)
    assert isinstance(action, TakeLease)


def test_an_unshareable_fetch_sends_its_waiters_to_fetch_at_once() -> None:
    m = machine()
    m.step(ReadDone(leased("holder")), NOW)
    m.step(Slept(), NOW + 1)
    marked = Item(unshareable_flight="holder", unshareable_at=NOW + 1, unshareable_lasting=False)
    assert m.step(ReadDone(marked), NOW + 1.1) == FetchAlone(Reason.UNSHAREABLE)


def test_facts_found_too_large_at_the_end_are_published_for_the_waiters_only() -> None:
    m = machine()
    m.step(ReadDone(None), NOW)
    m.step(LeaseTaken(), NOW)
    big = Fetched(Stamp(NOW + 120, 120.0), Unshareable.LARGE, for_waiters=True)
    assert m.step(big, NOW + 120) == Publish(
        Stamp(NOW + 120, 120.0, flight="me", awaited_only=True)
    )
    assert m.step(StoreAnswered(), NOW + 120) == Finish(Use.OWN, Source.FETCHED, Reason.HOLDER)
    # Told mid-fetch, the waiters fetched then: nothing is published.
    m = machine()
    m.step(ReadDone(None), NOW)
    m.step(LeaseTaken(), NOW)
    told = Fetched(Stamp(NOW + 120, 120.0), Unshareable.LARGE, marked=True, for_waiters=True)
    assert m.step(told, NOW + 120) == Finish(Use.OWN, Source.FETCHED, Reason.HOLDER)
    # Too large even for the waiters' item, or a quick fetch (whose waiters fetch by
    # themselves): the mark, as before.
    for fetched in (
        Fetched(Stamp(NOW + 120, 120.0), Unshareable.LARGE),
        Fetched(Stamp(NOW + 5, 5.0), Unshareable.LARGE, for_waiters=True),
    ):
        m = machine()
        m.step(ReadDone(None), NOW)
        m.step(LeaseTaken(), NOW)
        at = fetched.stamp.fetched_at
        assert m.step(fetched, at) == MarkUnshareable(at, Unshareable.LARGE)


def _awaited_only(fetch_s: float, at: float) -> Item:
    stamp = Stamp(at, fetch_s, flight="holder", awaited_only=True)
    return Item(
        stamp=stamp, unshareable_flight="holder", unshareable_at=at, unshareable_lasting=True
    )


@pytest.mark.parametrize(
    ("fetch_s", "budget", "taken"),
    [
        (120.0, 147.0, True),  # a slow site: the waiters could not fetch it again in time
        (10.0, 147.0, True),  # AWAITED_MIN_FETCH_S: reading is the quicker
        (5.0, 147.0, False),  # a quick site: its waiters fetch by themselves, side by side
        (5.0, 5.5, True),  # but not past their budget
    ],
)
def test_a_waiter_takes_facts_published_for_the_waiters_when_fetching_would_cost_more(
    fetch_s: float, budget: float, taken: bool
) -> None:
    m = machine(budget=budget)
    m.step(ReadDone(leased("holder")), NOW)
    m.step(Slept(), NOW + 1)
    got = m.step(ReadDone(_awaited_only(fetch_s, NOW + 1)), NOW + 1.1)
    assert got == (Finish(Use.STORED, Source.WAITED) if taken else FetchAlone(Reason.UNSHAREABLE))
    assert (
        lease.takes_awaited(Stamp(NOW, fetch_s, awaited_only=True), NOW + 1.1, NOW + budget)
        is taken
    )


def test_facts_published_for_the_waiters_are_reused_by_no_newcomer() -> None:
    item = _awaited_only(120.0, NOW - 5)
    assert not lease.usable(item.stamp, WINDOW, NOW)
    assert machine().step(ReadDone(item), NOW) == FetchAlone(Reason.UNSHAREABLE)


def test_a_lasting_mark_sends_newcomers_to_fetch_for_its_hold_only() -> None:
    marked = Item(unshareable_flight="x", unshareable_at=NOW - 10, unshareable_lasting=True)
    assert machine().step(ReadDone(marked), NOW) == FetchAlone(Reason.UNSHAREABLE)
    # The mark outlives the share window: the site's next bursts fetch at once too.
    later = Item(unshareable_flight="x", unshareable_at=NOW - 61, unshareable_lasting=True)
    assert machine().step(ReadDone(later), NOW) == FetchAlone(Reason.UNSHAREABLE)
    held = lease.UNSHAREABLE_HOLD_S
    old = Item(unshareable_flight="x", unshareable_at=NOW - held - 1, unshareable_lasting=True)
    assert isinstance(machine().step(ReadDone(old), NOW), TakeLease)
    # A budget cut is not lasting: the next audit tries the lease again.
    cut = Item(unshareable_flight="x", unshareable_at=NOW - 10, unshareable_lasting=False)
    assert isinstance(machine().step(ReadDone(cut), NOW), TakeLease)


def test_a_lease_write_after_a_lasting_mark_it_missed_is_refused_and_it_fetches_alone() -> None:
    # The audit read the item before the holder found its facts unshareable for good...
    m = machine()
    take = m.step(ReadDone(None), NOW)
    # ...so its write carries the hold: a lasting mark made since refuses it, as a newcomer
    # reading the mark would have fetched by itself.
    assert take == TakeLease(
        until=NOW + lease.LEASE_S,
        now=NOW,
        due=NOW - WINDOW / 2,
        marked_since=NOW - lease.UNSHAREABLE_HOLD_S,
    )
    assert m.step(LeaseRefused(), NOW + 0.1) == Read(consistent=True)
    marked = Item(unshareable_flight="x", unshareable_at=NOW + 0.05, unshareable_lasting=True)
    assert m.step(ReadDone(marked), NOW + 0.2) == FetchAlone(Reason.UNSHAREABLE)
    # A window longer than the hold is the hold.
    longer = Protocol("me", 2 * lease.UNSHAREABLE_HOLD_S, NOW + 147.0, None, random.Random(1))
    long = longer.step(ReadDone(None), NOW)
    assert isinstance(long, TakeLease)
    assert long.marked_since == NOW - 2 * lease.UNSHAREABLE_HOLD_S


def test_throttling_keeps_a_waiter_waiting_as_long_as_its_budget() -> None:
    m = machine(budget=100.0)
    m.step(ReadDone(leased("holder")), NOW)
    t = NOW
    for _ in range(200):
        action = m.step(StoreFailed(throttled=True), t)
        if not isinstance(action, Sleep):
            break
        assert action.until - t <= lease.BACKOFF_MAX_S
        t = action.until
        assert m.step(Slept(), t) == Read(consistent=False)
    else:
        pytest.fail("the wait never ended")
    # Well past THROTTLED_PATIENCE_S, it left only when its budget ended.
    assert action == FetchAlone(Reason.BUDGET) and t >= NOW + 100.0 - lease.BACKOFF_MAX_S
    assert m.throttled > 40


def test_throttling_before_any_lease_is_seen_is_ridden_out_for_a_while() -> None:
    m = machine()
    t = NOW
    while True:
        action = m.step(StoreFailed(throttled=True), t)
        if not isinstance(action, Sleep):
            break
        t = action.until
        m.step(Slept(), t)
    assert action == FetchAlone(Reason.STORE_FAILED)
    assert lease.THROTTLED_PATIENCE_S <= t - NOW <= lease.THROTTLED_PATIENCE_S + 2


def test_lease_writes_throttled_between_reads_that_answer_are_ridden_out_for_a_while() -> None:
    # A hot key: every lease write throttled, every read answered (no lease, no facts). The
    # reads do not start the patience again: it fetches by itself after THROTTLED_PATIENCE_S.
    m = machine(budget=100.0)
    t = NOW
    action = m.step(ReadDone(None), t)
    writes = 0
    while isinstance(action, TakeLease):
        writes += 1
        action = m.step(StoreFailed(throttled=True), t)
        if not isinstance(action, Sleep):
            break
        t = action.until
        assert isinstance(m.step(Slept(), t), Read)
        action = m.step(ReadDone(None), t)
    assert action == FetchAlone(Reason.STORE_FAILED) and writes > 2
    assert lease.THROTTLED_PATIENCE_S <= t - NOW <= lease.THROTTLED_PATIENCE_S + 2
    # A write answered in between (refused: another's lease) starts the count again.
    m = machine(budget=100.0)
    assert isinstance(m.step(ReadDone(None), NOW), TakeLease)
    assert isinstance(m.step(StoreFailed(throttled=True), NOW), Sleep)
    later = NOW + lease.THROTTLED_PATIENCE_S + 1
    m.step(Slept(), later)
    assert isinstance(m.step(ReadDone(None), later), TakeLease)
    assert isinstance(m.step(LeaseRefused(), later), Read)
    assert isinstance(m.step(ReadDone(None), later + 0.1), TakeLease)
    assert isinstance(m.step(StoreFailed(throttled=True), later + 0.2), Sleep)


def test_a_store_that_does_not_answer_sends_the_audit_to_fetch() -> None:
    # An audit that saw no holder fetches at the first unanswered call.
    assert machine().step(StoreFailed(throttled=False), NOW) == FetchAlone(Reason.STORE_FAILED)
    # A waiter on a holder reads again after one lost answer (a read past its timeout, in a
    # long tail), and fetches once the store has not answered for THROTTLED_PATIENCE_S.
    m = machine()
    m.step(ReadDone(leased()), NOW)
    t = NOW + 1
    action = m.step(StoreFailed(throttled=False), t)
    while isinstance(action, Sleep):
        t = action.until
        assert m.step(Slept(), t) == Read(consistent=False)
        action = m.step(StoreFailed(throttled=False), t)
    assert action == FetchAlone(Reason.STORE_FAILED)
    assert lease.THROTTLED_PATIENCE_S <= t - (NOW + 1) <= lease.THROTTLED_PATIENCE_S + 2
    # An answer in between starts the count again.
    m = machine()
    m.step(ReadDone(leased()), NOW)
    again = m.step(StoreFailed(throttled=False), NOW + 1)
    assert isinstance(again, Sleep)
    m.step(Slept(), again.until)
    waiting = m.step(ReadDone(leased()), again.until)
    assert isinstance(waiting, Sleep)


def test_a_lapsed_lease_is_taken_over_after_a_jitter_and_a_consistent_read() -> None:
    m = machine()
    m.step(ReadDone(leased("dead", until=NOW + 10)), NOW)
    lapsed = leased("dead", until=NOW + 10)
    jitter = m.step(ReadDone(lapsed), NOW + 11)
    assert isinstance(jitter, Sleep) and jitter.until <= NOW + 11 + lease.TAKEOVER_JITTER_S
    assert m.step(Slept(), jitter.until) == Read(consistent=True)
    take = m.step(ReadDone(lapsed), jitter.until + 0.01)
    assert isinstance(take, TakeLease)
    # Another waiter won: wait for it instead.
    assert m.step(LeaseRefused(), take.now + 0.01) == Read(consistent=True)
    assert isinstance(m.step(ReadDone(leased("winner", until=NOW + 30)), NOW + 12), Sleep)


def test_a_waiter_leaves_when_its_budget_ends() -> None:
    m = machine(budget=5.0)
    action = m.step(ReadDone(leased(until=NOW + 10)), NOW)
    t = NOW
    while isinstance(action, Sleep):
        assert action.until <= NOW + 5.0
        t = action.until
        m.step(Slept(), t)
        action = m.step(ReadDone(leased(until=t + 10)), t)
    assert action == FetchAlone(Reason.BUDGET)


def test_facts_due_for_refresh_are_refreshed_by_one_audit() -> None:
    known = Stamp(NOW - WINDOW + 2, 2.0)  # 2 s left; a draw of 0.9 is due within 2.3 s
    assert not lease.due(known, WINDOW, NOW, 0.5)
    m = machine(known, draw=0.9)
    take = m.step(ReadDone(Item(stamp=known)), NOW)
    assert isinstance(take, TakeLease)
    assert m.step(LeaseTaken(), NOW) == FetchHolding(refresh=True)
    # Another refreshes: this one reuses the facts still in their window, without waiting.
    other = machine(known, draw=0.9)
    other.step(ReadDone(Item(stamp=known)), NOW)
    assert other.step(LeaseRefused(), NOW) == Finish(Use.KNOWN, Source.REUSED)
    busy = machine(known, draw=0.9).step(ReadDone(leased(stamp=known)), NOW)
    assert busy == Finish(Use.KNOWN, Source.REUSED)
    # A draw that is not due yet reuses them as they are.
    assert machine(known, draw=0.5).step(ReadDone(Item(stamp=known)), NOW) == Finish(
        Use.KNOWN, Source.REUSED
    )


def test_newer_stored_facts_win_over_the_process_own() -> None:
    known = Stamp(NOW - 50, 1.0)
    stored = Stamp(NOW - 2, 1.0)
    assert machine(known).step(ReadDone(Item(stamp=stored)), NOW) == Finish(
        Use.STORED, Source.REUSED
    )


def test_the_holder_publishes_under_its_own_flight() -> None:
    m = machine()
    m.step(ReadDone(None), NOW)
    m.step(LeaseTaken(), NOW)
    got = Stamp(NOW + 3, 3.0, transient=True)
    assert m.step(Fetched(got), NOW + 3) == Publish(Stamp(NOW + 3, 3.0, True, "me"))
    assert m.step(StoreAnswered(), NOW + 3.1) == Finish(Use.OWN, Source.FETCHED, Reason.HOLDER)


def test_the_holder_marks_unshareable_facts_and_rides_out_throttling() -> None:
    m = machine()
    m.step(ReadDone(None), NOW)
    m.step(LeaseTaken(), NOW)
    mark = m.step(Fetched(Stamp(NOW + 3, 3.0), Unshareable.CUT), NOW + 3)
    assert mark == MarkUnshareable(NOW + 3, Unshareable.CUT)
    again = m.step(StoreFailed(throttled=True), NOW + 3.1)
    assert isinstance(again, Sleep)
    assert isinstance(m.step(Slept(), again.until), MarkUnshareable)
    assert m.step(StoreAnswered(), again.until + 0.1) == Finish(
        Use.OWN, Source.FETCHED, Reason.HOLDER
    )


def test_a_throttled_publish_never_sleeps_past_the_holders_budget() -> None:
    # The fetch ended 0.2 s before the budget: a backoff (up to a second or more after a few
    # throttled attempts) is cut at the budget's end, and then the holder is done.
    for seed in range(20):
        m = machine(budget=10.0, seed=seed)
        m.step(ReadDone(None), NOW)
        m.step(LeaseTaken(), NOW)
        t = NOW + 9.8
        action = m.step(Fetched(Stamp(t, 9.8)), t)
        while not isinstance(action, Finish):
            if isinstance(action, Sleep):
                assert action.until <= NOW + 10.0
                t = action.until
                action = m.step(Slept(), t)
            else:
                action = m.step(StoreFailed(throttled=True), t)
        assert t <= NOW + 10.0


def test_a_gone_holders_age_bounds_the_fetch_a_takeover_must_afford() -> None:
    # A site with no recorded fetch time; its holder, seen at its 30th renewal (it had fetched
    # for 89.5 s), is gone without facts (its item deleted). A waiter with 20 s of budget left
    # cannot afford the fetch that holder could not finish: it fetches by itself, not as the
    # holder others would wait for. With the budget to cover it, it takes the lease.
    seen = Item(lease_owner="other", lease_until=NOW + 10, lease_renewals=30)
    assert liveness.renewed_age_s(30) == 89.5
    for budget, expected in ((20.0, FetchAlone), (147.0, TakeLease)):
        m = machine(budget=budget)
        assert isinstance(m.step(ReadDone(seen), NOW), Sleep)
        assert m.step(Slept(), NOW + 1) == Read(consistent=False)
        pause = m.step(ReadDone(None), NOW + 1)
        assert isinstance(pause, Sleep)
        assert m.step(Slept(), pause.until) == Read(consistent=True)
        assert isinstance(m.step(ReadDone(None), pause.until), expected)


def test_refused_writes_with_nothing_to_see_end_in_a_fetch() -> None:
    m = machine()
    action: lease.Action = m.start()
    for _ in range(lease.MAX_REFUSED_WRITES):
        action = m.step(ReadDone(None), NOW)
        assert isinstance(action, TakeLease)
        action = m.step(LeaseRefused(), NOW)
    assert action == FetchAlone(Reason.STORE_FAILED)


def test_a_lost_answer_to_an_applied_lease_write_is_the_audits_own_lease() -> None:
    m = machine()
    take = m.step(ReadDone(None), NOW)
    assert isinstance(take, TakeLease)
    # The write timed out: one consistent read says whose the lease is.
    assert m.step(StoreFailed(throttled=False), NOW + 2) == Read(consistent=True)
    mine = leased("me", until=take.until)
    assert m.step(ReadDone(mine), NOW + 2.1) == FetchHolding(refresh=False)
    assert m.step(Fetched(Stamp(NOW + 3, 1.0)), NOW + 3) == Publish(
        Stamp(NOW + 3, 1.0, False, "me")
    )


def test_a_lost_lease_write_that_was_not_applied_is_tried_again() -> None:
    m = machine()
    m.step(ReadDone(None), NOW)
    assert m.step(StoreFailed(throttled=False), NOW + 2) == Read(consistent=True)
    assert isinstance(m.step(ReadDone(None), NOW + 2.1), TakeLease)
    # A second write without an answer: the store is not answering; fetch alone.
    assert m.step(StoreFailed(throttled=False), NOW + 4) == FetchAlone(Reason.STORE_FAILED)


def test_a_throttled_or_refused_retry_of_an_applied_lease_write_is_the_audits_own() -> None:
    # The SDK's second attempt was throttled after the first was applied unanswered.
    m = machine()
    m.step(ReadDone(None), NOW)
    again = m.step(StoreFailed(throttled=True), NOW + 2)
    assert isinstance(again, Sleep)
    assert m.step(Slept(), again.until) == Read(consistent=True)
    assert m.step(ReadDone(leased("me")), again.until) == FetchHolding(refresh=False)
    # Its second attempt met its own lease and was refused (a table that does not know the owner).
    m = machine()
    m.step(ReadDone(None), NOW)
    assert m.step(LeaseRefused(), NOW + 2) == Read(consistent=True)
    assert m.step(ReadDone(leased("me")), NOW + 2.1) == FetchHolding(refresh=False)
    # In a refresh too.
    known = Stamp(NOW - WINDOW + 2, 2.0)
    m = machine(known, draw=0.9)
    m.step(ReadDone(Item(stamp=known)), NOW)
    m.step(StoreFailed(throttled=False), NOW)
    assert m.step(ReadDone(leased("me", stamp=known)), NOW) == FetchHolding(refresh=True)


@given(st.lists(st.sampled_from(["me", "other", None]), min_size=1, max_size=8))
def test_an_audit_never_waits_on_its_own_lease(owners: list[str | None]) -> None:
    m = machine()
    t = NOW
    action: lease.Action = m.start()
    for owner in owners:
        if not isinstance(action, Read):
            break
        item = leased(owner, until=t + 10) if owner else None
        action = m.step(ReadDone(item), t)
        if owner == "me":
            assert action == FetchHolding(refresh=False)
        while isinstance(action, Sleep | TakeLease):
            if isinstance(action, TakeLease):
                action = m.step(LeaseRefused(), t)
            else:
                t = action.until
                action = m.step(Slept(), t)
        t += 0.5


def test_a_holder_that_marked_mid_fetch_does_not_mark_again() -> None:
    m = machine()
    m.step(ReadDone(None), NOW)
    m.step(LeaseTaken(), NOW)
    done = m.step(Fetched(Stamp(NOW + 3, 3.0), Unshareable.CREDENTIAL, marked=True), NOW + 3)
    assert done == Finish(Use.OWN, Source.FETCHED, Reason.HOLDER)


# --- hedging ------------------------------------------------------------------------------------


def test_a_late_holder_is_hedged_only_when_a_takeover_would_outlast_the_budget() -> None:
    # A takeover starts now (after a pause of up to TAKEOVER_JITTER_S) and fetches for 60 s.
    assert lease.hedge(NOW, NOW + 60.0, 60.0)
    assert not lease.hedge(NOW, NOW + 60.0 + lease.TAKEOVER_JITTER_S, 60.0)
    # A budget of 100 s covers it: wait for the takeover (one fetch instead of many).
    assert not lease.hedge(NOW, NOW + 100.0, 60.0)


def test_in_one_process_only_a_holder_whose_budget_cannot_cover_the_site_is_hedged() -> None:
    # The holder began at 100 and has until 110: a site whose fetch took 12 s will be cut.
    assert lease.hedge_local(12.0, 100.0, 110.0)
    assert not lease.hedge_local(10.0, 100.0, 110.0)
    # No budget, or no fetch on record: the holder's fetch comes, and sooner than a fetch begun
    # now would.
    assert not lease.hedge_local(12.0, 100.0, None)
    assert not lease.hedge_local(None, 100.0, 110.0)
    assert not lease.hedge_local(0.0, 100.0, 100.0)


def test_a_site_with_no_recorded_fetch_is_reckoned_at_the_fetch_deadline() -> None:
    assert lease.UNKNOWN_FETCH_S == REQUEST_DEADLINE_S
    cover = lease.TAKEOVER_JITTER_S + REQUEST_DEADLINE_S
    assert lease.hedge(NOW, NOW + cover - 0.1, None)
    assert not lease.hedge(NOW, NOW + cover, None)
    assert lease.hedge(NOW, NOW + cover - 0.1, 0.0)


@given(st.floats(0, 200), st.none() | st.floats(0, 200, exclude_min=True), st.floats(0, 100))
def test_not_hedging_a_late_holder_means_its_takeover_fits_the_budget(
    budget: float, fetch_s: float | None, waited: float
) -> None:
    took = fetch_s if fetch_s is not None else lease.UNKNOWN_FETCH_S
    if not lease.hedge(NOW, NOW + budget, fetch_s, waited):
        assert NOW + lease.TAKEOVER_JITTER_S + took <= NOW + budget


def test_a_waiter_hedges_a_late_holder_it_cannot_afford_to_wait_out() -> None:
    last = Stamp(NOW - 3600, 60.0)  # the site's last fetch, long past its window, took 60 s
    slow = leased("slow", until=NOW + 10, stamp=last)
    m = machine(budget=40.0)
    assert isinstance(m.step(ReadDone(slow), NOW), Sleep)
    # Not renewed since: 4.5 s later it is late, and its takeover would end past the budget.
    assert m.step(ReadDone(slow), NOW + 4.5) == FetchAlone(Reason.HEDGED)
    # With a budget that covers a takeover, the same waiter waits.
    m = machine(budget=140.0)
    m.step(ReadDone(slow), NOW)
    assert isinstance(m.step(ReadDone(slow), NOW + 4.5), Sleep)


def test_a_waiter_judges_a_holder_by_the_renewals_it_sees_not_by_the_lease_end() -> None:
    # The lease's end says nothing of the holder (it is a time on the holder's clock): a waiter
    # sees renewals (here a lease that keeps no count: its end moving on) on its own clock.
    last = Stamp(NOW - 3600, 60.0)  # the site's last fetch took 60 s: a takeover would not fit
    m = machine(budget=40.0)
    assert isinstance(m.step(ReadDone(leased("slow", until=NOW + 1.0, stamp=last)), NOW), Sleep)
    renewed = leased("slow", until=NOW + 2.0, stamp=last)  # renewed at NOW + 1
    assert isinstance(m.step(ReadDone(renewed), NOW + 1.0), Sleep)
    # Its end is long past by this waiter's clock, but it renewed 2.5 s ago: it waits.
    assert isinstance(m.step(ReadDone(renewed), NOW + 3.5), Sleep)
    # No renewal seen for LEASE_RENEW_S + LATE_GRACE_S since: it stopped renewing.
    assert m.step(ReadDone(renewed), NOW + 5.5) == FetchAlone(Reason.HEDGED)


def test_a_renewal_seen_of_one_holder_says_nothing_of_the_next() -> None:
    last = Stamp(NOW - 3600, 60.0)
    m = machine(budget=40.0)
    m.step(ReadDone(counted("a", 0, stamp=last)), NOW)
    m.step(ReadDone(counted("a", 1, stamp=last)), NOW + 1.0)  # "a" renewed
    # A new holder: its count is watched from when this waiter first read it, at NOW + 2.
    b = counted("b", 5, stamp=last)
    assert isinstance(m.step(ReadDone(b), NOW + 2.0), Sleep)
    late = NOW + 2.0 + lease.LEASE_RENEW_S + lease.LATE_GRACE_S
    assert isinstance(m.step(ReadDone(b), late), Sleep)
    assert m.step(ReadDone(b), late + 0.01) == FetchAlone(Reason.HEDGED)


# --- rules --------------------------------------------------------------------------------------


def test_usable_facts_are_sound_and_within_the_window() -> None:
    assert lease.usable(Stamp(NOW - 60), 60, NOW)
    assert not lease.usable(Stamp(NOW - 60.1), 60, NOW)
    assert not lease.usable(Stamp(NOW, transient=True), 60, NOW)
    assert not lease.usable(None, 60, NOW)


@given(st.floats(1, 100_000), st.floats(0, 200), st.floats(0, 1, exclude_max=True))
def test_no_refresh_in_the_first_half_of_the_window(
    window: float, fetch_s: float, draw: float
) -> None:
    stamp = Stamp(NOW, fetch_s)
    assert not lease.due(stamp, window, NOW + window / 2 - 1e-6, draw)
    # At the window's very end, every draw is due.
    assert lease.due(stamp, window, NOW + window, draw)


def test_a_busy_site_refreshes_earlier_than_a_quiet_one() -> None:
    stamp = Stamp(NOW, 5.0)
    rng = random.Random(4)

    def first_due(rate: float) -> float:
        t = NOW + WINDOW / 2
        while not lease.due(stamp, WINDOW, t, rng.random()):
            t += rng.expovariate(rate)
        return NOW + WINDOW - t

    # Hundreds of audits a second: some audit refreshes well ahead (5 s fetch, 2x that).
    assert min(first_due(200) for _ in range(20)) >= 10
    # One a minute: typically only near the end.
    assert statistics.median(first_due(1 / 60) for _ in range(50)) < 5


@given(st.floats(0, 10_000), st.integers(0, 100), st.integers(0, 2**32))
def test_polls_and_backoffs_are_bounded(waited: float, attempt: int, seed: int) -> None:
    rng = random.Random(seed)
    assert lease.POLL_MIN_S * 0.5 <= lease.poll_s(waited, rng) <= lease.POLL_MAX_S * 1.5
    assert 0 <= lease.backoff_s(attempt, rng) <= lease.BACKOFF_MAX_S
    assert 0 < lease.renewal_s(attempt, rng) <= lease.LEASE_RENEW_S


def test_local_choice() -> None:
    fresh = Stamp(NOW - 1, 1.0)
    due = Stamp(NOW - 59.9, 1.0)
    stale = Stamp(NOW - 61, 1.0)
    choice = local.local_choice
    assert choice(fresh, 60, NOW, False, None, 0.99) is Local.REUSE
    assert choice(due, 60, NOW, False, None, 0.5) is Local.LEAD
    assert choice(due, 60, NOW, False, None, 0.01) is Local.REUSE  # not this audit's draw
    assert choice(due, 60, NOW, True, None, 0.5) is Local.REUSE
    assert choice(due, 60, NOW, False, NOW - 0.5, 0.5) is Local.REUSE
    assert choice(stale, 60, NOW, True, None, 0.5) is Local.JOIN
    assert choice(stale, 60, NOW, False, None, 0.5) is Local.LEAD
    assert choice(None, 60, NOW, False, None, 0.5) is Local.LEAD


items = st.builds(
    Item,
    stamp=st.none()
    | st.builds(
        Stamp,
        fetched_at=st.floats(NOW - 200, NOW + 5),
        fetch_s=st.floats(0, 30),
        transient=st.booleans(),
        flight=st.sampled_from([None, "a", "b"]),
    ),
    lease_owner=st.sampled_from([None, "a", "b"]),
    lease_until=st.none() | st.floats(NOW - 20, NOW + 20),
    lease_renewals=st.none() | st.integers(0, 3),
    unshareable_flight=st.sampled_from([None, "a", "b"]),
    unshareable_at=st.none() | st.floats(NOW - 100, NOW),
    unshareable_lasting=st.booleans(),
)


@given(st.lists(items, min_size=1, max_size=12), st.integers(0, 2**16))
@example(  # the holder renewed twice, then late: its standby slot read before the takeover
    [
        Item(lease_owner="a", lease_until=NOW - 20),
        Item(lease_owner="a", lease_until=NOW - 19, lease_renewals=2),
        Item(lease_owner="a", lease_until=NOW - 20),
    ],
    0,
)
def test_no_lease_write_over_a_lease_just_read_but_that_very_lease(
    seen: list[Item], seed: int
) -> None:
    m = machine(seed=seed)
    t = NOW
    action: lease.Action = m.start()
    read: Item | None = None  # the lease as last read (a standby slot's read is not the lease)
    for item in seen:
        if not isinstance(action, Read):
            break
        if not action.standby:
            read = item
        action = m.step(ReadDone(item), t)
        if isinstance(action, TakeLease) and action.over_owner is not None:
            # A late holder's, taken over only exactly as read.
            assert read is not None and read.lease_held and read.lease_owner != "me"
            assert (action.over_owner, action.over_until) == (read.lease_owner, read.lease_until)
        while isinstance(action, Sleep | TakeLease):
            if isinstance(action, TakeLease):
                action = m.step(LeaseRefused(), t)
            else:
                t = action.until
                action = m.step(Slept(), t)
        t += 0.5


# --- hedging a late holder -----------------------------------------------------------------------


def test_a_wait_on_a_late_holder_past_a_few_fetch_times_ends_in_a_fetch() -> None:
    overdue = lease.OVERDUE_FACTOR * 1.0
    # A 1 s site whose holder is late: once the wait is a few fetches long, fetch (the budget
    # would cover a takeover; the account's concurrency would not be spent on waiting).
    assert lease.hedge(NOW, NOW + 140.0, 1.0, waited_s=overdue)
    assert not lease.hedge(NOW, NOW + 140.0, 1.0, waited_s=overdue - 0.1)
    # A site with no recorded fetch time is never overdue.
    assert not lease.hedge(NOW, NOW + 140.0, None, waited_s=100.0)


def test_a_waiter_on_a_dead_holder_of_a_quick_site_fetches_before_the_lease_lapses() -> None:
    m = machine()
    last = Stamp(NOW - 3600, 0.8)
    dead = counted("dead", 3, stamp=last)  # renewed for the last time just before NOW
    action = m.step(ReadDone(dead), NOW)
    t = NOW
    while isinstance(action, Sleep):
        t = action.until
        m.step(Slept(), t)
        action = m.step(ReadDone(dead), t)
    assert action == FetchAlone(Reason.HEDGED)
    # Late (4 s without a renewal) and 3 fetch times waited: well before the lapse at 10 s.
    assert NOW + 4.0 <= t <= NOW + 4.0 + lease.POLL_MAX_S * 1.5
    assert m.waited_s(t) == t - NOW


def test_an_audit_whose_budget_cannot_cover_the_fetch_does_not_hold_the_lease() -> None:
    stale = Stamp(NOW - 3600, 60.0)
    # A 60 s site, 30 s of budget left: its fetch would be cut; others must not wait for it.
    assert machine(budget=30.0).step(ReadDone(Item(stamp=stale)), NOW) == FetchAlone(Reason.BUDGET)
    assert isinstance(machine(budget=61.0).step(ReadDone(Item(stamp=stale)), NOW), TakeLease)
    # Nor does it take over a dead holder's lease once it is gone.
    m = machine(budget=30.0)
    last = Stamp(NOW - 3600, 20.0)
    m.step(ReadDone(counted("dead", 0, stamp=last)), NOW)
    jitter = m.step(ReadDone(Item(stamp=last)), NOW + 11)
    assert isinstance(jitter, Sleep)
    assert m.step(Slept(), jitter.until) == Read(consistent=True)
    assert m.step(ReadDone(Item(stamp=last)), jitter.until) == FetchAlone(Reason.BUDGET)
    # A late one it cannot afford to take over, it fetches beside (hedged) rather than wait.
    m = machine(budget=24.0)
    m.step(ReadDone(counted("dead", 1, stamp=last)), NOW)
    assert m.step(ReadDone(counted("dead", 1, stamp=last)), NOW + 4.1) == FetchAlone(Reason.HEDGED)


# --- liveness: a holder judged by its renewal count, on the waiter's own clock ------------------


def counted(
    owner: str = "other",
    renewals: int | None = 0,
    until: float = NOW + lease.LEASE_S,
    stamp: Stamp | None = None,
) -> Item:
    """A lease renewed `renewals` times (0: just taken), ending at `until` on its holder's clock."""
    return Item(stamp=stamp, lease_owner=owner, lease_until=until, lease_renewals=renewals)


def test_the_first_renewal_comes_early_then_every_renewal_period() -> None:
    due = lease.renewal_due_s
    ages = [0.0, 2.4, 2.5, 2.51, 5.49, 5.5, 7.0, 8.5]
    assert [due(a) for a in ages] == [2.5, 2.5, 5.5, 5.5, 5.5, 8.5, 8.5, 11.5]
    # A fetch of two seconds or less never renews: an audit with nobody waiting writes no more.
    assert due(0.0) > 2.0

    def renewals(fetch_s: float) -> int:
        age, n = 0.0, 0
        while due(age) <= fetch_s:
            age, n = due(age), n + 1
        return n

    # As often as every LEASE_RENEW_S from the take, but for fetches that end in the last half
    # second of a period (one renewal more); never more than LEASE_RENEW_S between two.
    for fetch_s in (0.8, 1.0, 2.49, 3.0, 5.0, 25.0, 60.0, 80.0, 120.0):
        assert renewals(fetch_s) == int(fetch_s // lease.LEASE_RENEW_S)
    assert renewals(2.7) == 1 and renewals(5.6) == 2
    assert max(due(a) - a for a in (0.0, 2.5, 5.5, 8.5)) == lease.LEASE_RENEW_S


def test_a_renewal_on_schedule_measured_a_few_ulps_early_is_that_renewal() -> None:
    # The holder's ages are differences of its clock's readings: 23.5 can measure as
    # 23.499999999999996, which must not make it renew again at once.
    for k in range(1, 40):
        scheduled = lease.FIRST_RENEWAL_S + lease.LEASE_RENEW_S * (k - 1)
        for measured in (scheduled, math.nextafter(scheduled, 0.0), scheduled - 4e-15):
            assert lease.renewal_due_s(measured) == scheduled + lease.LEASE_RENEW_S
    assert lease.renewal_due_s(23.499999999999996) == 26.5


def test_a_holder_is_late_a_grace_after_the_renewal_its_count_missed() -> None:
    grace = lease.LATE_GRACE_S
    # Not yet renewed (0): the first renewal is due FIRST_RENEWAL_S after the take, which came
    # before the waiter first read the count.
    assert not liveness.holder_late(0, lease.FIRST_RENEWAL_S + grace)
    assert liveness.holder_late(0, lease.FIRST_RENEWAL_S + grace + 0.01)
    # Renewed: the next is due LEASE_RENEW_S after; so for a lease that keeps no count.
    for renewals in (1, 7, None):
        assert not liveness.holder_late(renewals, lease.LEASE_RENEW_S + grace)
        assert liveness.holder_late(renewals, lease.LEASE_RENEW_S + grace + 0.01)


def test_a_read_that_lags_behind_a_renewal_seen_is_no_renewal() -> None:
    watch = liveness.Watch.first("h", 2, NOW + 10, 100.0)
    assert watch.see(3, NOW + 13, 101.0)  # renewed
    assert not watch.see(2, NOW + 10, 103.0)  # an older replica: no renewal, and none undone
    assert watch.since == 101.0 and not watch.late(105.0) and watch.late(105.01)
    # A lease that keeps no count: its end moving on is the renewal.
    bare = liveness.Watch.first("h", None, NOW + 10, 100.0)
    assert not bare.see(None, NOW + 10, 102.0) and bare.see(None, NOW + 13, 103.0)


def wait_until_late(m: Protocol, item: Item, until: float) -> tuple[Action, float]:
    """Feed the waiter this item at each poll it asks for, up to `until`: its first action that
    is not a poll, and when."""
    t = NOW
    action = m.step(ReadDone(item), t)
    while isinstance(action, Sleep) and action.until < until:
        t = action.until
        action = m.step(Slept(), t)
        if isinstance(action, Read) and action.consistent:
            return action, t
        assert action == Read(consistent=False)
        action = m.step(ReadDone(item), t)
    return action, t


def test_a_holder_that_missed_its_first_renewal_is_taken_over_before_its_lease_lapses() -> None:
    m = machine()
    item = counted()
    action, t = wait_until_late(m, item, NOW + lease.LEASE_S)
    # Late a grace after the first renewal it missed, on the waiter's clock: then a jitter, and
    # a consistent read to write on.
    assert action == Read(consistent=True)
    assert NOW + 3.5 < t <= NOW + 3.5 + lease.TAKEOVER_JITTER_S + 1.0
    took = m.step(ReadDone(item), t)
    # Over that very lease only: renewed or taken over meanwhile, the write is refused.
    assert took == TakeLease(
        until=t + lease.LEASE_S,
        now=t,
        due=t - WINDOW / 2,
        marked_since=t - lease.UNSHAREABLE_HOLD_S,
        over_owner="other",
        over_until=NOW + lease.LEASE_S,
    )
    assert m.step(LeaseTaken(), t) == FetchHolding(refresh=False)
    assert m.taken_at == t  # its own renewals keep to the schedule from here


def test_a_renewal_seen_on_the_consistent_read_keeps_the_waiter_waiting() -> None:
    m = machine()
    action, t = wait_until_late(m, counted(), NOW + lease.LEASE_S)
    assert action == Read(consistent=True)
    renewed = counted(renewals=1, until=t + lease.LEASE_S)  # the holder renewed late, but it did
    assert isinstance(m.step(ReadDone(renewed), t), Sleep)
    assert m.waiting_for == "other"


def holder_renewing(skew_s: float, stops_after: int | None = None) -> Callable[[float], Item]:
    """The item, at a true time, of a holder that took its lease at NOW and renews on schedule
    (`renewal_due_s`), its wall clock `skew_s` off the true time (its lease's ends say so);
    it stops renewing after `stops_after` renewals (None: never)."""

    def item_at(t: float) -> Item:
        renewed, n = 0.0, 0
        while NOW + lease.renewal_due_s(renewed) <= t and n != stops_after:
            renewed, n = lease.renewal_due_s(renewed), n + 1
        return counted(renewals=n, until=NOW + renewed + skew_s + lease.LEASE_S)

    return item_at


@pytest.mark.parametrize("skew_s", [8.0, -8.0, 0.0, 3600.0])
def test_a_holder_renewing_on_time_is_never_taken_over_whatever_its_clock(skew_s: float) -> None:
    # A waiter that could not afford a takeover (a 60 s site, 80 s of budget) and would hedge a
    # holder it judged late: it waits, a minute long, whatever the holder's clock says.
    m = machine(known=Stamp(NOW - 3600, 60.0), budget=80.0)
    item_at = holder_renewing(skew_s)
    t = NOW
    action = m.step(ReadDone(item_at(t)), t)
    while t < NOW + 60.0:
        assert isinstance(action, Sleep), (t, action)
        t = action.until
        assert m.step(Slept(), t) == Read(consistent=False)
        action = m.step(ReadDone(item_at(t)), t)
    # Its facts, stamped by its clock (further ahead of the waiter's than the skew allows, or
    # behind), are the facts it waited for.
    landed = Item(stamp=Stamp(t + skew_s, 60.0, False, "other"))
    assert m.step(ReadDone(landed), t) == Finish(Use.STORED, Source.WAITED)


def test_a_holder_that_stops_renewing_is_taken_over_on_the_waiters_own_clock() -> None:
    # The holder renews twice (2.5 and 5.5 s after its take), then dies. The waiter's wall clock
    # is stepped back 30 s at 7 s (a clock set by hand): its monotonic clock is what it judges by.
    item_at = holder_renewing(skew_s=-4.0, stops_after=2)
    m = machine(budget=300.0)
    mono = 5_000.0  # another origin than the wall clock's
    t = NOW
    first_seen: float | None = None
    action = m.step(ReadDone(item_at(t)), t, mono)
    while not isinstance(action, TakeLease) or action.standby:
        assert isinstance(action, Sleep | Read | TakeLease), action
        if isinstance(action, TakeLease):
            action = m.step(StoreFailed(throttled=False), t, mono)  # the slot write unanswered
        elif isinstance(action, Sleep):
            mono += action.until - t
            t = action.until
            if t >= NOW + 7.0 and t - mono > NOW - 5_000.0 - 1.0:
                t -= 30.0  # the step back
            action = m.step(Slept(), t, mono)
        elif action.standby:
            # It fetched past the standby's time: the slot is read first, and is empty.
            action = m.step(ReadDone(None), t, mono)
        else:
            seen = item_at(mono - 5_000.0 + NOW)  # the true time is the monotonic clock's
            if seen.lease_renewals == 2 and first_seen is None:
                first_seen = mono
            action = m.step(ReadDone(seen), t, mono)
    assert first_seen is not None and action.over_owner == "other"
    # Taken over the stated time after the count was first seen to stand at 2 (a renewal period
    # and the grace), after a pause of at most TAKEOVER_JITTER_S and a poll's lateness.
    waited = mono - first_seen
    stated = lease.LEASE_RENEW_S + lease.LATE_GRACE_S
    assert stated < waited <= stated + lease.POLL_MAX_S * 1.5 + lease.TAKEOVER_JITTER_S


def test_a_waiter_whose_clock_is_behind_takes_the_facts_it_waited_for() -> None:
    # The holder's clock is 8 s ahead of the waiter's: its facts are stamped further ahead of the
    # waiter's clock than the skew allows. They are the facts of the fetch it waited for.
    m = machine()
    assert isinstance(m.step(ReadDone(counted("holder", 0, until=NOW + 18.0)), NOW), Sleep)
    landed = Item(stamp=Stamp(NOW + 9.0, 1.0, False, "holder"))
    assert m.step(ReadDone(landed), NOW + 1.0) == Finish(Use.STORED, Source.WAITED)
    # No later audit that did not wait for that fetch reuses them: it fetches (the lease write
    # passes over facts from so far ahead).
    later = machine()
    take = later.step(ReadDone(landed), NOW + 1.0)
    assert isinstance(take, TakeLease) and lease.may_take(landed, "me", take)
    # Once the waiter's clock has caught up with them, within the skew, they are anyone's.
    assert machine().step(ReadDone(landed), NOW + 4.0) == Finish(Use.STORED, Source.REUSED)


def test_a_waiter_on_a_quick_site_hedges_as_soon_as_its_holder_missed_a_renewal() -> None:
    # The site's fetch takes 0.8 s: three of them are over long before the lease would lapse;
    # its missed first renewal says it is late at 3.5 s.
    m = machine(known=Stamp(NOW - 120.0, 0.8))
    action, t = wait_until_late(m, counted(), NOW + lease.LEASE_S)
    assert action == FetchAlone(Reason.HEDGED)
    assert NOW + 3.5 < t < NOW + 4.0


def test_a_lease_that_keeps_no_count_is_judged_by_its_end_moving_on() -> None:
    m = machine()
    action, t = wait_until_late(m, leased(until=NOW + lease.LEASE_S), NOW + lease.LEASE_S)
    late = NOW + lease.LEASE_RENEW_S + lease.LATE_GRACE_S
    assert action == Read(consistent=True) and late < t <= late + 1.0 + lease.TAKEOVER_JITTER_S


def test_may_take_is_the_one_lease_write_rule() -> None:
    until, due = NOW + lease.LEASE_S, NOW - 30.0
    ask = TakeLease(until=until, now=NOW, due=due, marked_since=NOW - 100.0)
    assert lease.may_take(None, "me", ask)
    live = Item(lease_owner="other", lease_until=NOW + 5)
    assert not lease.may_take(live, "me", ask)
    assert lease.may_take(live, "other", ask)  # its own lease, from a write whose answer was lost
    # A late holder's lease is replaced only exactly as read.
    assert lease.may_take(live, "me", replace(ask, over_owner="other", over_until=NOW + 5))
    assert not lease.may_take(live, "me", replace(ask, over_owner="other", over_until=NOW + 4))
    # A lapsed lease, or one further ahead than a lease runs and the skew, is no lease.
    assert lease.may_take(replace(live, lease_until=NOW - 0.001), "me", ask)
    assert not lease.may_take(replace(live, lease_until=NOW), "me", ask)
    assert lease.may_take(replace(live, lease_until=until + lease.CLOCK_SKEW_S + 1), "me", ask)
    # Facts fetched since `due` refuse it, unless transient or from beyond the skew.
    fresh = Item(stamp=Stamp(due))
    assert not lease.may_take(fresh, "me", ask)
    assert lease.may_take(Item(stamp=Stamp(due - 1)), "me", ask)
    assert lease.may_take(Item(stamp=Stamp(due, transient=True)), "me", ask)
    assert lease.may_take(Item(stamp=Stamp(NOW + lease.CLOCK_SKEW_S + 1)), "me", ask)
    # A lasting mark since `marked_since` refuses it; math.inf heeds none.
    marked = Item(unshareable_at=NOW - 1, unshareable_lasting=True)
    assert not lease.may_take(marked, "me", ask)
    assert lease.may_take(marked, "me", replace(ask, marked_since=math.inf))
    assert lease.may_take(replace(marked, unshareable_lasting=False), "me", ask)


def test_the_contract_draws_the_machine_from_its_transition_table() -> None:
    text = lease_diagram.CONTRACT.read_text(encoding="utf-8")
    assert lease_diagram.drawn_into(text) == text, "run: python -m harness.lease_diagram"
    # Every phase is in the drawing, and only the two ends leave the machine.
    drawn = lease_diagram.draw()
    assert all(f" {phase.name} " in drawn for phase in lease.Phase)
    ends = {a for a, _ in lease.TRANSITIONS} ^ set(lease.Phase)
    assert ends == {lease.Phase.ALONE, lease.Phase.DONE}


def test_a_lease_abandoned_long_ago_is_taken_over_without_a_renewal_periods_watch() -> None:
    # Its end passed a minute ago: no live holder within the clocks' allowance lets that happen.
    m = machine()
    action = m.step(ReadDone(counted("gone", 3, until=NOW - 60.0)), NOW)
    assert isinstance(action, Sleep) and action.until - NOW <= lease.TAKEOVER_JITTER_S
    take = m.step(Slept(), action.until)
    assert take == Read(consistent=True)
    slot = m.step(ReadDone(counted("gone", 3, until=NOW - 60.0)), action.until)
    # It had fetched past the standby's time (three renewals): its slot is looked at first.
    assert slot == Read(consistent=True, standby=True)
    over = m.step(ReadDone(None), action.until)
    assert isinstance(over, TakeLease) and over.over_owner == "gone"
    # One that ended within the allowance is watched as before: it may be a live holder's
    # whose clock is behind.
    assert lease.abandoned(counted(until=NOW - 60.0), NOW)
    assert not lease.abandoned(counted(until=NOW - lease.CLOCK_SKEW_S + 0.1), NOW)


# --- two dead holders in a row --------------------------------------------------------------------


def confirm_late(m: Protocol, item: Item, since: float) -> tuple[Action, float]:
    """Feed the waiter `item` from `since` until it is late and read again (consistently); the
    action it then takes on that same item, and when."""
    t = since
    action = m.step(ReadDone(item), t)
    while not (isinstance(action, Read) and action.consistent):
        assert isinstance(action, Sleep | Read | TakeLease), action
        if isinstance(action, TakeLease):
            assert action.standby  # the slot is another's: it waits on
            action = m.step(LeaseRefused(), t)
        elif isinstance(action, Sleep):
            t = action.until
            action = m.step(Slept(), t)
        else:
            action = m.step(ReadDone(item), t)
    return m.step(ReadDone(item), t), t


def test_a_waiter_that_saw_two_holders_die_in_a_row_marks_the_second_and_fetches() -> None:
    m = machine()
    # The first holder dies: this waiter confirms it late and writes the takeover; another
    # waiter's takeover came first (refused), and that one, the second holder, dies too.
    took, t = confirm_late(m, counted("first"), NOW)
    assert isinstance(took, TakeLease) and took.over_owner == "first"
    assert m.step(LeaseRefused(), t) == Read(consistent=True)
    second = counted("second", until=t + lease.LEASE_S)
    marked, t2 = confirm_late(m, second, t)
    # Not a third holder: the second's lease ends with a mark that names why, and it fetches.
    assert marked == MarkUnshareable(t2, Unshareable.DEAD, over="second")
    assert m.phase is lease.Phase.RELEASING
    assert m.step(StoreAnswered(), t2) == FetchAlone(Reason.UNSHAREABLE)
    # A mark that failed (its answer lost, or throttled) changes nothing: it fetches.
    m = machine()
    confirm_late(m, counted("first"), NOW)
    m.step(LeaseRefused(), t)
    confirm_late(m, second, t)
    assert m.step(StoreFailed(throttled=True), t2) == FetchAlone(Reason.UNSHAREABLE)


def test_a_holder_taken_over_by_another_waiter_counts_as_one_that_died() -> None:
    # This waiter never judged the first holder late itself: another took it over first.
    m = machine()
    assert isinstance(m.step(ReadDone(counted("first")), NOW), Sleep)
    second = counted("second", until=NOW + 2 + lease.LEASE_S)
    marked, t = confirm_late(m, second, NOW + 2)
    assert marked == MarkUnshareable(t, Unshareable.DEAD, over="second")


def test_a_waiter_that_saw_holders_churn_bets_on_no_further_one_and_fetches() -> None:
    # Clocks further apart than the allowance make live holders look abandoned to the others:
    # each is taken over in turn, and each takeover starts the fetch again. A waiter that saw
    # CHURNED_HOLDERS holders replaced without facts fetches by itself at once (as sharing off),
    # whatever the next holder's lease looks like.
    assert lease.CHURNED_HOLDERS == lease.DEAD_HOLDERS + 1 == 3
    m = machine()
    for k, owner in enumerate(("first", "second", "third")):
        action = m.step(ReadDone(counted(owner, until=NOW + 10 + k)), NOW + k)
        assert isinstance(action, Sleep), action
    fourth = counted("fourth", until=NOW + 13)
    assert m.step(ReadDone(fourth), NOW + 3) == FetchAlone(Reason.HEDGED)
    assert m.phase is lease.Phase.ALONE


def test_a_stale_read_showing_the_holder_before_the_takeover_is_no_churn() -> None:
    # Eventually consistent polls may show the replaced holder again, then the new one: two
    # holders seen, one replaced, as many times as the reads flip between them.
    m = machine()
    first, second = counted("first"), counted("second", until=NOW + 11)
    t = NOW
    for item in (first, second, first, second, first, second):
        action = m.step(ReadDone(item), t)
        assert isinstance(action, Sleep), action
        t += 0.1


def test_one_dead_holder_is_taken_over_as_before() -> None:
    # A waiter that saw only the second holder (it came after the first died) takes it over.
    took, _ = confirm_late(machine(), counted("second"), NOW)
    assert isinstance(took, TakeLease) and took.over_owner == "second"


def test_the_dead_holders_mark_sends_waiters_and_newcomers_to_fetch_for_its_hold_only() -> None:
    def marked(at: float) -> Item:
        return Item(unshareable_flight="holders-dead", unshareable_at=at)

    # A waiter of the marked lease (its flight is not named: the mark names why) fetches now.
    m = machine()
    m.step(ReadDone(counted("second")), NOW)
    m.step(Slept(), NOW + 1)
    assert m.step(ReadDone(marked(NOW + 1)), NOW + 1.1) == FetchAlone(Reason.UNSHAREABLE)
    # A newcomer within the hold fetches at once; after it, it takes the lease again.
    hold = lease.DEAD_HOLDERS_HOLD_S
    assert machine().step(ReadDone(marked(NOW - hold)), NOW) == FetchAlone(Reason.UNSHAREABLE)
    assert isinstance(machine().step(ReadDone(marked(NOW - hold - 0.1)), NOW), TakeLease)
    # Not lasting: the lease write does not heed it (a reader that missed it holds the lease).
    ask = machine().step(ReadDone(None), NOW)
    assert isinstance(ask, TakeLease) and lease.may_take(marked(NOW), "me", ask)
    # A live lease over it is waited for as any other.
    live = replace(counted("third"), unshareable_flight="holders-dead", unshareable_at=NOW)
    assert isinstance(machine().step(ReadDone(live), NOW), Sleep)
    assert not lease.dead_mark_held(live, NOW) and lease.dead_mark_held(marked(NOW), NOW)


# --- the standby holder -------------------------------------------------------------------------


def renewing(owner: str = "holder", took: float = NOW) -> Callable[[float], Item]:
    """The item, at a time, of a holder that took its lease at `took` and renews on schedule."""

    def item_at(t: float) -> Item:
        renewed, n = 0.0, 0
        while took + lease.renewal_due_s(renewed) <= t:
            renewed, n = lease.renewal_due_s(renewed), n + 1
        return counted(owner, n, until=took + renewed + lease.LEASE_S)

    return item_at


def poll_until_not_sleeping(
    m: Protocol, item_at: Callable[[float], Item], t: float, slot: Item | None = None
) -> Action:
    """Feed a waiter the item at each poll from `t` (and `slot` when it reads the standby slot),
    until it asks for something else."""
    action = m.step(ReadDone(item_at(t)), t)
    while isinstance(action, Sleep):
        t = action.until
        action = m.step(Slept(), t)
        if action == Read(consistent=True, standby=True):
            action = m.step(ReadDone(slot), t)
        else:
            assert action == Read(consistent=False)
            action = m.step(ReadDone(item_at(t)), t)
    return action


def test_the_standby_waits_half_the_recorded_fetch_at_least_five_seconds() -> None:
    assert lease.standby_after_s(None) == lease.STANDBY_MIN_S == 5.0
    assert lease.standby_after_s(4.0) == 5.0 and lease.standby_after_s(80.0) == 40.0
    # An early waiter (it came with the holder), a holder past the time, a budget that covers.
    assert lease.standby(NOW, NOW + 140, 80.0, waited_s=40.0, holder_age_s=40.0)
    assert not lease.standby(NOW, NOW + 140, 80.0, waited_s=39.0, holder_age_s=39.0)
    # A waiter that came later than STANDBY_EARLY_S after the take is not the one.
    late = 40.0 - lease.STANDBY_EARLY_S - 0.1
    assert not lease.standby(NOW, NOW + 140, 80.0, waited_s=late, holder_age_s=40.0)
    # Its budget must cover the fetch: the recorded time, the deadline when none, and never less
    # than the holder has fetched already.
    assert not lease.standby(NOW, NOW + 79, 80.0, waited_s=40.0, holder_age_s=40.0)
    assert not lease.standby(NOW, NOW + 29, None, waited_s=5.0, holder_age_s=5.0)
    assert lease.standby(NOW, NOW + 30, None, waited_s=5.0, holder_age_s=5.0)
    assert not lease.standby(NOW, NOW + 45, None, waited_s=50.0, holder_age_s=50.0)


def test_an_early_waiter_takes_the_standby_slot_fetches_and_publishes_unless_beaten() -> None:
    for beaten in (False, True):
        m = machine()
        ask = poll_until_not_sleeping(m, renewing(), NOW)
        # Once the holder's fetch has run STANDBY_MIN_S (a site never fetched), and only once.
        assert isinstance(ask, TakeLease) and ask.standby and ask.over_owner is None
        t = ask.now
        # After a pause of up to TAKEOVER_JITTER_S and a consistent read of the empty slot.
        late = lease.POLL_MAX_S * 1.5 + lease.TAKEOVER_JITTER_S
        assert NOW + lease.STANDBY_MIN_S <= t <= NOW + lease.STANDBY_MIN_S + late
        assert m.step(LeaseTaken(), t) == FetchHolding(refresh=False, standby=True)
        assert m.phase is lease.Phase.STANDBY
        # Fetched: it looks whether the wait's facts came first; publishes its own if not.
        assert m.step(Fetched(Stamp(t + 30, 30.0)), t + 30) == Read(consistent=True)
        holders = Item(stamp=Stamp(t + 20, 30.0, flight="holder"))
        if beaten:
            assert m.step(ReadDone(holders), t + 30) == Finish(
                Use.OWN, Source.FETCHED, Reason.STANDBY
            )
        else:
            assert m.step(ReadDone(renewing()(t + 30)), t + 30) == Publish(
                Stamp(t + 30, 30.0, False, "me")
            )
            done = m.step(StoreAnswered(), t + 30.1)
            assert done == Finish(Use.OWN, Source.FETCHED, Reason.STANDBY)
        # Its wait ended when it took the slot, not when its own fetch did.
        assert m.waited_s(t + 31) == pytest.approx(t - NOW)


def test_a_waiter_that_finds_the_slot_taken_waits_on_and_asks_no_more() -> None:
    # Another early waiter's standby is in the slot: it does not write, and waits on.
    m = machine()
    standing = counted("standby", 0, until=NOW + 15)
    landed = Item(stamp=Stamp(NOW + 60, 60.0, flight="holder"))

    def landed_at_60(t: float) -> Item:
        return landed if t >= NOW + 60 else renewing()(t)

    assert poll_until_not_sleeping(m, landed_at_60, NOW, standing) == Finish(
        Use.STORED, Source.WAITED
    )
    # Its write refused (another's came first): the same.
    m = machine()
    ask = poll_until_not_sleeping(m, renewing(), NOW)
    assert isinstance(ask, TakeLease) and ask.standby
    assert isinstance(m.step(LeaseRefused(), ask.now), Sleep)
    assert m.failed_writes == 0
    # Until the holder publishes, however long it fetches.
    landed = Item(stamp=Stamp(NOW + 60, 60.0, flight="holder"))
    item_at = renewing()

    def until_landed(t: float) -> Item:
        return landed if t >= NOW + 60 else item_at(t)

    t = ask.now
    action = m.step(Slept(), t)
    assert action == Read(consistent=False)
    assert poll_until_not_sleeping(m, until_landed, t) == Finish(Use.STORED, Source.WAITED)


def test_a_slot_just_ended_sends_the_waiter_to_the_standbys_facts_not_to_a_second_standby() -> None:
    for ended_s_ago, then in ((0.5, "read"), (lease.LEASE_S + 0.5, "take")):
        m = machine()
        item_at = renewing()
        t = NOW
        action = m.step(ReadDone(item_at(t)), t)
        while action != Read(consistent=True, standby=True):
            assert isinstance(action, Sleep)
            t = action.until
            action = m.step(Slept(), t)
            if action == Read(consistent=False):
                action = m.step(ReadDone(item_at(t)), t)
        # A standby done ends its slot with a mark (driver: `_release_slot`): no lease in it.
        ended = Item(unshareable_flight="standby", unshareable_at=t - ended_s_ago)
        action = m.step(ReadDone(ended), t)
        if then == "take":
            # Ended long ago (another wait's): the slot is free for this wait's standby.
            assert isinstance(action, TakeLease) and action.standby
            continue
        # Just ended: that standby's facts are likely there; the item is read before any take.
        assert action == Read(consistent=True)
        published = Item(stamp=Stamp(t - 0.6, 5.0, flight="standby"))
        assert m.step(ReadDone(published), t) == Finish(Use.STORED, Source.WAITED)


@pytest.mark.parametrize("standing", ["standby", "elsewhere"])
def test_a_waiter_takes_the_facts_of_the_standby_it_saw_whatever_their_stamp(
    standing: str,
) -> None:
    # The standby's clock is behind: its transient facts (a 503 the wait is to hear) are stamped
    # before this waiter began to wait, and no audit may reuse them. Seen fetching in the slot,
    # the standby's are the wait's facts, as the holder's would be.
    standbys = Item(stamp=Stamp(NOW - 30, 5.0, transient=True, flight="standby"))
    m = machine(budget=40.0)
    item_at = renewing()
    t = NOW
    action = m.step(ReadDone(item_at(t)), t)
    while action != Read(consistent=True, standby=True):  # polls, until it looks at the slot
        assert isinstance(action, Sleep)
        t = action.until
        action = m.step(Slept(), t)
        if action == Read(consistent=False):
            action = m.step(ReadDone(item_at(t)), t)
    action = m.step(ReadDone(counted(standing, 0, until=t + 10)), t)  # taken: it waits on
    assert isinstance(action, Sleep)
    assert m.step(Slept(), action.until) == Read(consistent=False)
    got = m.step(ReadDone(standbys), action.until)
    if standing == "standby":
        assert got == Finish(Use.STORED, Source.WAITED)
    else:
        # Not the standby it saw: not this wait's facts; it waits on.
        assert isinstance(got, Sleep)


def test_a_standby_slot_is_asked_for_only_while_the_budget_covers_the_fetch() -> None:
    # Budgets around the edge (the 30 s of a site with no recorded fetch, from 5 s in, and a
    # pause of up to TAKEOVER_JITTER_S before the slot is read): a slot asked for is one whose
    # fetch the budget covers when it is asked for, not only when the pause began.
    asked = 0
    for step in range(60):
        m = machine(budget=35.0 + step * 0.02, seed=step)
        action = poll_until_not_sleeping(m, renewing(), NOW)
        if isinstance(action, TakeLease) and action.standby:
            asked += 1
            assert action.now + lease.UNKNOWN_FETCH_S <= m.budget_end
    assert 0 < asked < 60


def test_a_late_comer_or_a_short_budget_takes_no_standby_slot() -> None:
    # It came 10 s after the holder took its lease: others came earlier.
    # Either waits for the holder to the end of its budget, never asking for the slot.
    m = machine()
    action = poll_until_not_sleeping(m, renewing(took=NOW - 10), NOW)
    assert action == FetchAlone(Reason.BUDGET)
    # Its budget cannot cover a fetch of a site with none recorded (the 30 s deadline).
    m = machine(budget=25.0)
    assert poll_until_not_sleeping(m, renewing(), NOW) == FetchAlone(Reason.BUDGET)


def test_a_dead_holder_with_a_standby_fetching_is_not_taken_over() -> None:
    m = machine()
    dead = counted("holder", 3, until=NOW + 8.5)  # renewed three times (8.5 s), then died
    slot = counted("standby", 1, until=NOW + 12)
    action, t = wait_until_late(m, dead, NOW + lease.LEASE_S)
    assert action == Read(consistent=True)
    # It fetched past the standby's time: the slot is read before a takeover.
    assert m.step(ReadDone(dead), t) == Read(consistent=True, standby=True)
    # A standby fetches: it waits for its facts, and looks at the slot again a lease later.
    assert isinstance(m.step(ReadDone(slot), t), Sleep)
    assert m.step(Slept(), t + 1) == Read(consistent=False)
    assert isinstance(m.step(ReadDone(dead), t + 1), Sleep)
    assert m.step(Slept(), t + lease.LEASE_S + 0.1) == Read(consistent=False)
    assert m.step(ReadDone(dead), t + lease.LEASE_S + 0.1) == Read(consistent=True, standby=True)
    # The standby's slot lapsed (it died too): the dead holder is taken over.
    over = m.step(ReadDone(None), t + lease.LEASE_S + 0.2)
    assert isinstance(over, TakeLease) and over.over_owner == "holder" and not over.standby


def test_a_slot_ended_since_the_dead_holder_was_read_sends_the_waiter_to_the_item_once() -> None:
    for published in (True, False):
        m = machine()
        dead = counted("holder", 3, until=NOW + 8.5)  # renewed three times (8.5 s), then died
        action, t = wait_until_late(m, dead, NOW + lease.LEASE_S)
        assert action == Read(consistent=True)
        assert m.step(ReadDone(dead), t) == Read(consistent=True, standby=True)
        # Between the two reads the standby published and ended its slot (`_release_slot`).
        ended = Item(unshareable_flight="standby", unshareable_at=t - 0.01)
        assert m.step(ReadDone(ended), t) == Read(consistent=True)
        if published:
            facts = Item(stamp=Stamp(t - 0.02, 12.0, flight="standby"))
            assert m.step(ReadDone(facts), t) == Finish(Use.STORED, Source.WAITED)
            continue
        # Ended without facts (its fetch failed): the dead holder is then taken over, the slot
        # read again first and the item not again (no loop on the ended slot).
        action = m.step(ReadDone(dead), t)
        while action != Read(consistent=True, standby=True):
            assert isinstance(action, Sleep | Read)
            if isinstance(action, Sleep):
                t = action.until
                action = m.step(Slept(), t)
            else:
                action = m.step(ReadDone(dead), t)
        over = m.step(ReadDone(ended), t)
        assert isinstance(over, TakeLease) and over.over_owner == "holder" and not over.standby


def test_a_waiter_whose_slot_write_was_refused_counts_on_that_standby() -> None:
    # Its slot write was refused: another early waiter stands by. The holder dies between its
    # first renewal (2.5 s) and its second (5.5 s): the waiter does not take it over beside the
    # live standby, but waits a lease's length, then reads the slot before any takeover.
    m = machine()
    ask = poll_until_not_sleeping(m, renewing(), NOW)
    assert isinstance(ask, TakeLease) and ask.standby
    t = ask.now
    assert isinstance(m.step(LeaseRefused(), t), Sleep)
    dead = renewing()(NOW + 5.0)
    action = m.step(Slept(), t + 0.5)
    actions: list[lease.Action] = []
    while len(actions) < 200 and not (isinstance(action, Read) and action.standby):
        assert not isinstance(action, TakeLease | FetchAlone), action
        if isinstance(action, Sleep):
            t = max(t, action.until)
            action = m.step(Slept(), t)
        else:
            action = m.step(ReadDone(dead), t)
        actions.append(action)
    assert isinstance(action, Read) and action.standby and t >= ask.now + lease.LEASE_S


def test_a_takeover_or_its_hedge_reckons_with_what_the_dead_holder_fetched() -> None:
    # A takeover's fetch takes no less than the dead holder had fetched (60.5 s, 20 renewals):
    # with 60 s of budget left, it fetches beside it rather than take a lease it cannot finish.
    assert liveness.renewed_age_s(20) == 2.5 + 19 * 3.0
    assert lease.hedge(NOW, NOW + 60, None, floor_s=60.5)
    assert not lease.hedge(NOW, NOW + 62, None, floor_s=60.5)
    assert not lease.hedge(NOW, NOW + 60, None)  # the 30 s deadline alone would fit
