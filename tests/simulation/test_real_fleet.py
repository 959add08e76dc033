"""The real sharing driver in a fleet in virtual time (harness/fleet.py), small.

bench/fleet.py runs these rows at 1,000 audits with costs; here, 100 audits each, what must hold
whatever the tuning: sharing on against sharing off for the same arrivals. And the parts of the
model the rows rest on: the table's partitions, the containers' clocks.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Iterator

import pytest
from support.phases import checked_moves

from harness.fleet import LEASE_WRITE_READ_TIMEOUT_S, RealFleet, SimTable, Site, VirtualTime
from harness.simdynamo import READ_UNITS_PER_S, START, SimDynamo
from sitemap_auditor.sharing import lease
from sitemap_auditor.sharing.driver import StoredItem


@pytest.fixture(autouse=True)
def _moves_in_the_table(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    # Every move of the machine in these tests is one of lease.TRANSITIONS.
    yield from checked_moves(monkeypatch)


N = 100
# A burst of a site whose fetch outlasts lease.STANDBY_MIN_S fetches it twice: the holder, and
# the standby beside it.
AUDIT_S = 0.1  # an audit's own time past its facts (harness.fleet.AUDIT_CPU_S, a poll)


def burst(n: int = N, site: str = "s", spread_s: float = 1.0) -> list[tuple[float, str]]:
    return [(i * spread_s / n, site) for i in range(n)]


def both(
    sites: dict[str, Site], arrivals: list[tuple[float, str]], **options: float
) -> tuple[RealFleet, RealFleet]:
    on = RealFleet(N, sites, mode="on", **options).run(arrivals)  # type: ignore[arg-type]
    off = RealFleet(N, sites, mode="off", **options).run(arrivals)  # type: ignore[arg-type]
    return on, off


def p99(f: RealFleet) -> float:
    d = f.durations()
    return d[int(len(d) * 0.99) - 1]


@pytest.mark.parametrize("fetch_s", [0.8, 25.0])
def test_a_burst_fetches_once_and_is_no_slower(fetch_s: float) -> None:
    on, off = both({"s": Site(fetch_s)}, burst())
    assert len(on.fetches) == (1 if fetch_s < lease.STANDBY_MIN_S else 2)
    assert len(off.fetches) == N
    assert on.incomplete() == off.incomplete() == 0
    # A waiter's facts come one poll after the holder's publish at most (a tenth of its wait,
    # at most a second, jittered): the one way a waiter is slower than its own fetch.
    assert p99(on) <= p99(off) + lease.POLL_MAX_S * 1.5


@pytest.mark.parametrize("containers", [200, 1000])
def test_a_thousand_audits_at_once_fetch_the_site_once_however_many_containers(
    containers: int,
) -> None:
    # 200 containers: the others queue, and find the facts when a container frees up.
    f = RealFleet(containers, {"s": Site(0.8)}).run(burst(1000))
    assert len(f.fetches) == 1 and len(f.records) == 1000 and f.incomplete() == 0
    assert sum(1 for r in f.records if r.reason == "holder") == 1


def test_unshareable_facts_known_early_cost_no_wait() -> None:
    on, off = both({"s": Site(5.0, echoes_credential=True)}, burst())
    assert len(on.fetches) == N
    assert all(r.reason in ("holder", "unshareable") for r in on.records)
    # Released once robots.txt answered: each fetches side by side with the holder.
    assert p99(on) <= p99(off) + 0.3


def test_facts_found_too_large_only_at_the_end_of_a_slow_fetch_go_to_its_waiters() -> None:
    # A 120 s site never fetched before, audited over 60 s: its facts pass 16 KB only at the end,
    # by more than the end of the audit's own fetches can add (facts.UNSHOWN_BYTES): what the
    # protocol still handles. Sent to fetch by themselves then, its waiters would not have the
    # time (before: all but the holder incomplete); handed the facts in an item of their own,
    # every one completes.
    site = {"s": Site(120.0, facts_bytes=200 * 1024, outcome_cap=10**9)}
    on, off = both(site, burst(spread_s=60.0))
    assert on.incomplete() == off.incomplete() == 0
    assert len(on.fetches) <= 2  # the holder, and its standby
    assert sum(1 for r in on.records if r.source == "waited") >= N - 2
    assert statistics.median(on.durations()) <= statistics.median(off.durations())


@pytest.mark.parametrize("ahead_s", [6.0, 8.0])
def test_a_holder_whose_clock_is_ahead_still_hands_its_waiters_their_facts(ahead_s: float) -> None:
    # The same site, the holder's clock ahead of the others' by more than the skew allowed: its
    # waiters-only facts and their mark are stamped ahead. Read as no item, they sent the
    # waiters to take the site over, too late for a fetch of their own (4 of 40 incomplete).
    n = 40
    site = {"s": Site(120.0, facts_bytes=200 * 1024, outcome_cap=10**9)}
    arrivals = [(0.0, "s")] + [(1.0 + i * 0.5, "s") for i in range(n - 1)]
    runs = {
        mode: RealFleet(n, site, mode=mode, seed=3, first_ahead_s=ahead_s).run(arrivals)
        for mode in ("on", "off")
    }
    assert runs["on"].incomplete() == runs["off"].incomplete() == 0
    assert sum(1 for r in runs["on"].records if r.source == "waited") >= n - 3


def test_a_quick_sites_waiters_fetch_by_themselves_when_its_facts_prove_too_large() -> None:
    # A 5 s fetch whose facts pass 16 KB only at its end, by more than the audit's own fetches
    # can add: reading a large item at once would be throttled longer than a fetch.
    on, off = both({"s": Site(5.0, facts_bytes=200 * 1024, outcome_cap=10**9)}, burst())
    assert on.incomplete() == off.incomplete() == 0
    assert len(on.fetches) == N
    assert all(r.reason in ("holder", "unshareable") for r in on.records)


@pytest.mark.parametrize("heavy", [False, True])
def test_facts_that_may_pass_the_limit_at_the_end_release_the_waiters_at_once(heavy: bool) -> None:
    # Facts that pass 16 KB only with the sitemap's outcome, at the end: what robots.txt showed
    # fits, but not with room for what the end may add. The waiters are told then, and fetch by
    # themselves beside the holder: no wait for the end of its fetch, quick or slow, even when
    # the table throttles the mark (it is then written in place of the next renewal; before,
    # the waiters of a 120 s site learnt only at its end, and 88 of 100 ran out of budget).
    for fetch_s, spread_s in ((5.0, 1.0), (120.0, 60.0)):
        site = {"s": Site(fetch_s, facts_bytes=16 * 1024 + 1024)}
        on, off = both(site, burst(spread_s=spread_s), heavy=heavy)
        assert on.incomplete() == off.incomplete() == 0
        assert len(on.fetches) == N
        assert statistics.median(on.durations()) <= 1.2 * statistics.median(off.durations())


def test_facts_that_grow_too_large_release_the_waiters_once_they_do() -> None:
    # A 120 s fetch of 100 candidates, each refused; the facts grow to 200 KB, past the item's
    # 16 KB after the ninth candidate (11 s in). The holder marks them then: its waiters, and the
    # audits that come later (the mark is lasting), fetch by themselves within their budget.
    site = {"s": Site(120.0, facts_bytes=200 * 1024, candidates=100)}
    on, off = both(site, burst(spread_s=60.0))
    assert on.incomplete() == off.incomplete() == 0
    assert len(on.fetches) == N
    assert set(r.reason for r in on.records) <= {"holder", "standby", "unshareable"}
    assert max(r.waited_s for r in on.records) <= 0.1 + 9 * 1.2 + 2 * lease.POLL_MAX_S
    assert on.durations()[N // 2] <= 1.2 * off.durations()[N // 2]


@pytest.mark.parametrize("seed", [1, 3])
def test_a_lasting_mark_is_heeded_by_an_audit_whose_read_lagged_behind_it(seed: int) -> None:
    # robots.txt answers in 25 ms and echoes the credential: the holder's mark is written while
    # audits of the burst still hold reads that lag behind its lease (replicas lag up to 50 ms).
    # Their lease writes meet the mark: none holds a second lease and fetch as a holder.
    arrivals = burst(spread_s=0.2)
    on = RealFleet(N, {"s": Site(0.1, echoes_credential=True)}, mode="on", seed=seed).run(arrivals)
    reasons = [r.reason for r in on.records]
    assert reasons.count("holder") == 1
    assert set(reasons) <= {"holder", "unshareable", None} and on.incomplete() == 0


def test_lost_answers_to_applied_lease_writes_cost_one_short_timeout_at_most() -> None:
    # A lease write has its own short read timeout: a lost answer costs that, not the 2 s of
    # every other call.
    on, off = both({"s": Site(1.0)}, burst(), lost_writes=0.2)
    assert on.table.lost > 0
    assert len(on.fetches) == 1 and on.incomplete() == 0
    assert p99(on) <= p99(off) + LEASE_WRITE_READ_TIMEOUT_S + 0.2


@pytest.mark.parametrize(
    ("fetch_s", "spread_s", "dies_at"), [(60.0, 1.0, 50.0), (80.0, 60.0, 60.0)]
)
def test_a_dead_holder_costs_one_more_fetch_and_no_incomplete_result(
    fetch_s: float, spread_s: float, dies_at: float
) -> None:
    on, off = both({"s": Site(fetch_s)}, burst(spread_s=spread_s), kill_first_fetch_after=dies_at)
    assert on.lost_audits == off.lost_audits == 1
    assert on.incomplete() == off.incomplete() == 0
    assert len(on.fetches) <= 3
    # Slower than off (docs/operations.md says why), never past the budget.
    assert max(on.durations()) <= 147.0 + 0.1


def test_after_two_dead_holders_in_a_row_the_waiters_fetch_at_once_not_behind_a_third() -> None:
    # The site's first two fetches kill their containers a second in: the holder, then the
    # waiter that took it over. The waiters that saw both die mark the second dead: every one
    # fetches now (as sharing off would), and so does every newcomer within the mark's hold.
    arrivals = burst(spread_s=20.0)
    on = RealFleet(N, {"s": Site(25.0)}, kill_first_fetch_after=1.0, kills=2).run(arrivals)
    assert on.lost_audits == 2 and on.incomplete() == 0 and len(on.records) == N - 2
    assert {r.reason for r in on.records} == {"unshareable"}
    # Each death is known a grace after the first renewal it missed (3.5 s), then a takeover's
    # pause; the audits waited for two of those, never for a third holder's fetch.
    two_deaths = 2 * (1.0 + lease.FIRST_RENEWAL_S + lease.LATE_GRACE_S + 1.5)
    assert max(r.waited_s for r in on.records) <= two_deaths
    assert max(on.durations()) <= two_deaths + 25.0 + AUDIT_S


@pytest.mark.parametrize(("fetch_s", "dies_at"), [(120.0, 30.0), (80.0, 68.5)])
@pytest.mark.parametrize("seed", [1, 5])
def test_a_holder_dying_mid_fetch_of_a_site_never_fetched_costs_no_result(
    fetch_s: float, dies_at: float, seed: int
) -> None:
    # 150 audits over 60 s of a site with no fetch recorded; the holder dies mid-fetch. An
    # early waiter stood by from STANDBY_MIN_S in: the waiters take its facts, not a takeover's
    # begun after the death was found (which, begun late by an audit that came early, its budget
    # would cut).
    n = 150
    arrivals = burst(n, spread_s=60.0)
    site = {"s": Site(fetch_s)}
    on = RealFleet(n, site, kill_first_fetch_after=dies_at, seed=seed).run(arrivals)
    off = RealFleet(n, site, mode="off", kill_first_fetch_after=dies_at, seed=seed).run(arrivals)
    assert on.lost_audits == off.lost_audits == 1
    assert on.incomplete() <= off.incomplete() == 0
    assert len(on.fetches) == 2  # the dead holder's, the standby's
    # Every audit is done a poll after the standby's facts (begun STANDBY_MIN_S in), or sooner.
    last = lease.STANDBY_MIN_S + 2 * lease.POLL_MAX_S + fetch_s + 1.0
    assert max(on.durations()) <= last < 147.0
    assert on.durations()[n // 2] <= off.durations()[n // 2]


def test_a_slow_site_gives_every_waiter_a_complete_result_sooner() -> None:
    on, off = both({"s": Site(120.0)}, burst(spread_s=60.0))
    assert on.incomplete() == 0 and len(on.fetches) == 2  # the holder's, the standby's
    assert on.durations()[N // 2] <= off.durations()[N // 2]


def test_an_audit_alone_on_its_site_pays_a_read_and_two_writes() -> None:
    arrivals = [(i * 70.0, f"lone{i}") for i in range(10)]
    on = RealFleet(10, {name: Site(1.0) for _, name in arrivals}, mode="on").run(arrivals)
    db = on.table.db
    assert db.read_units == 10 * 0.5 and db.write_units == 10 * 2.0


@pytest.mark.parametrize(
    ("size", "read_units", "write_units"),
    [
        # The common item: one eventually consistent read, a lease and a publish, a unit each.
        (650, 0.5, 2.0),
        # Facts kept out of the site's item: the read and the lease on the stale item cost what
        # a small one's do (the facts' own item is read once more, to revalidate with), and the
        # publish one unit more than the facts themselves.
        (10_000, 0.5 + 1.5, 1.0 + 10.0 + 1.0),
        # Facts too large to share: the first audit's lease and mark; the next, within the
        # mark's day, reads it and fetches by itself, writing nothing.
        (50_000, 0.5, 0.0),
    ],
)
def test_what_an_audit_alone_on_its_site_costs_again_after_its_window(
    size: int, read_units: float, write_units: float
) -> None:
    site = {"s": Site(0.8, facts_bytes=size)}
    first = RealFleet(1, site, mode="on").run([(0.0, "s")])
    again = RealFleet(1, site, mode="on").run([(0.0, "s"), (120.0, "s")])
    db1, db2 = first.table.db, again.table.db
    assert db1.read_units == 0.5  # the first audit's read of no item
    assert db2.read_units - db1.read_units == read_units
    assert db2.write_units - db1.write_units == write_units
    assert len(again.fetches) == 2 and db2.failed_conditional_writes == 0


def test_a_burst_reading_the_largest_shared_facts_is_not_throttled_into_fetching() -> None:
    # The largest facts the table shares (dynamostore.MAX_ITEM_BYTES), read by 1,000 audits.
    f = RealFleet(1000, {"s": Site(0.8, facts_bytes=16 * 1024)}).run(burst(1000))
    assert len(f.fetches) == 1 and f.table.db.throttled_calls == 0


def test_throttled_polls_never_make_a_waiter_fetch() -> None:
    # 1,000 waiters polling one item through a 25 s fetch are more than its read units.
    f = RealFleet(1000, {"s": Site(25.0)}).run(burst(1000))
    assert f.table.db.throttled_calls > 0
    assert len(f.fetches) <= 2 and f.incomplete() == 0  # the holder, its standby
    assert not any(r.reason == "store-failed" for r in f.records)


def test_a_transient_answer_goes_to_its_waiters_only() -> None:
    # The site answers 503 until 1.5 s in: the first fetch's facts go to its 50 waiters, and the
    # next audit (2 s in) fetches again, to be shared as usual.
    site = {"s": Site(1.0, transient_until=1.5)}
    arrivals = [*burst(50, spread_s=0.5), *[(2.0 + i * 0.01, "s") for i in range(50)]]
    f = RealFleet(N, site).run(arrivals)
    assert len(f.fetches) == 2
    for r in f.records:
        assert r.transient == (r.arrived < START + 2.0), r


def test_a_hot_site_is_refreshed_ahead_and_nobody_waits_at_window_ends() -> None:
    rng = random.Random(3)
    arrivals = []
    t = 0.0
    while t < 200:
        t += rng.expovariate(200.0)
        arrivals.append((t, "s"))
    f = RealFleet(1000, {"s": Site(5.0)}).run(arrivals)
    reasons = [r.reason for r in sorted(f.records, key=lambda r: r.started) if r.reason]
    assert reasons[0] == "holder" and set(reasons[1:]) <= {"refresh", "standby"}
    assert "refresh" in reasons
    # The refresh starts inside the window of the facts it replaces: no crowd forms at its end.
    first = min(f.fetches, key=lambda x: x.started).ended
    assert first is not None
    waiting = f.waiting("s", 0.05, 200.0)
    drained = next(t for t, n in waiting if t > first and n == 0)
    assert max(n for t, n in waiting if t > drained) <= 20


def test_a_dead_holders_waiters_leave_the_accounts_concurrency_once_it_is_late() -> None:
    # 100 containers: the hot site's 99 waiters would hold all but one while they wait.
    other = [(70.0 + i / 15, f"o{i}") for i in range(150)]
    hot = [(0.0, "hot"), *[(70.0 + t, s) for t, s in burst(site="hot")]]
    sites = {"hot": Site(0.8), **{name: Site(1.0) for _, name in other}}
    f = RealFleet(N, sites, kill_first_fetch_after=0.5, kill_site="hot", kill_from=70.0)
    f.run(sorted(hot + other))
    assert f.lost_audits == 1 and f.incomplete() == 0
    waiters = [r for r in f.records if r.site == "hot"]
    assert sum(1 for r in waiters if r.reason == "hedged") >= N - 2
    # They left once the holder was late (its first renewal missed, by LATE_GRACE_S), three
    # fetch times into their wait, not at the lapse (LEASE_S).
    others = sorted(r.ended - r.arrived for r in f.records if r.site != "hot")
    late = lease.FIRST_RENEWAL_S + lease.LATE_GRACE_S
    assert others[-1] <= 0.5 + late + lease.POLL_MAX_S * 1.5 + 1.0 + 0.2 < lease.LEASE_S


def test_a_dead_holder_of_a_site_never_fetched_is_taken_over_before_its_lease_lapses() -> None:
    # No fetch time is known: the waiters cannot tell how long waiting would be worth, and wait;
    # one takes over once the holder missed its first renewal, not at the lapse.
    other = [(i / 15, f"o{i}") for i in range(150)]
    sites = {"hot": Site(0.8), **{name: Site(1.0) for _, name in other}}
    f = RealFleet(N, sites, kill_first_fetch_after=0.5, kill_site="hot")
    f.run(sorted(burst(site="hot") + other))
    assert f.lost_audits == 1 and f.incomplete() == 0
    assert sum(1 for x in f.fetches if x.site == "hot") == 2  # the dead holder's, the takeover's
    hot = sorted(r.ended - r.arrived for r in f.records if r.site == "hot")
    late = lease.FIRST_RENEWAL_S + lease.LATE_GRACE_S
    bound = 1.0 + late + lease.TAKEOVER_JITTER_S + 0.8 + lease.POLL_MAX_S * 1.5 + 0.2
    assert hot[-1] <= bound < lease.LEASE_S


# --- the table's partitions -----------------------------------------------------------------------


def hammer(db: SimDynamo, keys: list[str], share: float = 2 / 3, seconds: float = 5.0) -> int:
    """Read each key at `share` of a partition's read units a second (consistent reads of a
    small item: a unit each), for that long; the calls the table throttled."""
    per_s = int(READ_UNITS_PER_S * share)
    for i in range(int(per_s * seconds)):
        for key in keys:
            db.read(key, True, START + i / per_s)
    return db.throttled_calls


def on_one_partition(partitions: int, same: bool) -> list[str]:
    """Two keys that hash to one partition of `partitions` (same) or to two."""
    db = SimDynamo(random.Random(0), partitions)
    first = db.partition("site0")
    for i in range(1, 1000):
        if (db.partition(f"site{i}") == first) is same:
            return ["site0", f"site{i}"]
    raise AssertionError("no such key")


def test_two_hot_items_on_one_partition_throttle_where_one_alone_does_not() -> None:
    keys = on_one_partition(4, same=True)
    assert hammer(SimDynamo(random.Random(1), 4), keys[:1]) == 0
    db = SimDynamo(random.Random(1), 4)
    assert hammer(db, keys) > 0
    # The partition's limit refused them, not either item's.
    assert set(db.throttled_by) == {db.partition(keys[0])}
    assert db.peak_units["read"] > READ_UNITS_PER_S


def test_hot_items_on_two_partitions_or_without_partitions_do_not_throttle() -> None:
    assert hammer(SimDynamo(random.Random(1), 4), on_one_partition(4, same=False)) == 0
    # The default model limits each item alone: the same two items, no throttling.
    assert hammer(SimDynamo(random.Random(1)), on_one_partition(4, same=True)) == 0


def test_keys_hash_to_partitions_stably_and_spread_over_them() -> None:
    a, b = SimDynamo(random.Random(1), 4), SimDynamo(random.Random(2), 4)
    names = [f"hot{i}" for i in range(50)]
    assert [a.partition(n) for n in names] == [b.partition(n) for n in names]
    assert len({a.partition(n) for n in names}) == 4
    assert SimDynamo(random.Random(1)).partition("hot0") == "hot0"  # per item: its own
    with pytest.raises(ValueError, match="at least one partition"):
        SimDynamo(random.Random(1), 0)


def test_a_fleet_on_partitions_gives_them_to_its_table() -> None:
    f = RealFleet(2, {"s": Site(1.0)}, partitions=3).run([(0.0, "s")])
    assert f.table.db.partitions == 3 and len(f.fetches) == 1


# --- the containers' clocks -----------------------------------------------------------------------


def test_each_containers_clock_is_offset_within_the_skew_and_its_facts_carry_it() -> None:
    f = RealFleet(20, {"s": Site(1.0)}, clock_skew_s=2.0)
    offsets = [c.offset for c in f.pool]
    assert all(-2.0 <= o <= 2.0 for o in offsets) and len(set(offsets)) == 20
    assert max(offsets) - min(offsets) > 2.0  # spread over the range, not bunched
    f.run([(0.0, "s")])
    (fetch,) = f.fetches
    (holder,) = [c for c in f.pool if c.sharing.local.get("s", START + 10.0) is not None]
    stored = f.table.db.state("s")
    assert stored is not None and stored.item.stamp is not None
    assert fetch.ended is not None
    assert stored.item.stamp.fetched_at == pytest.approx(fetch.ended + holder.offset, abs=1e-6)


def test_without_skew_every_clock_is_the_true_time() -> None:
    f = RealFleet(5, {"s": Site(1.0)})
    assert {c.offset for c in f.pool} == {0.0}


def test_an_item_is_judged_on_the_readers_clock() -> None:
    clock = VirtualTime()
    table = SimTable(clock, random.Random(1))
    stamp = lease.Stamp(START + 6.0, 1.0)
    table.db.put("s", stamp, 650, 0, START)
    ask = lease.TakeLease(START + 12.0 + lease.LEASE_S, START + 12.0, 0.0, math.inf)
    table.db.take_lease("late", "o", ask, START)
    results: list[StoredItem | None] = []

    def reads() -> None:
        # Facts fetched 6 s ahead of this reader's clock: no clock within the skew wrote them;
        # read, and refused for reuse (only the audits that waited for that fetch take them).
        results.append(table.get("s", True, wall=lambda: START))
        results.append(table.get("s", True, wall=lambda: START + 2.0))
        # A lease ending further ahead than a lease runs, give or take the skew: no lease.
        results.append(table.get("late", True, wall=lambda: START))
        results.append(table.get("late", True, wall=lambda: START + 8.0))

    clock.start(reads)
    clock.run()
    ahead, fine, far, near = results
    assert ahead is not None and ahead.item.stamp == stamp and table.refused == 2
    assert not lease.usable(stamp, 60.0, START) and lease.usable(stamp, 60.0, START + 2.0)
    assert fine is not None and fine.item.stamp == stamp
    assert far is not None and far.item.lease_owner is None
    assert near is not None and near.item.lease_owner == "o"


def test_clocks_skewed_within_the_allowance_still_share_one_fetch_a_burst() -> None:
    skew = lease.CLOCK_SKEW_S / 2  # any two clocks within CLOCK_SKEW_S
    on = RealFleet(N, {"s": Site(25.0)}, clock_skew_s=skew).run(burst())
    off = RealFleet(N, {"s": Site(25.0)}, mode="off", clock_skew_s=skew).run(burst())
    assert len(on.fetches) == 2 and on.incomplete() == 0 and on.table.refused == 0
    assert p99(on) <= p99(off) + lease.POLL_MAX_S * 1.5


def test_a_dead_holder_with_skewed_clocks_costs_one_more_fetch_within_the_budget() -> None:
    skew = lease.CLOCK_SKEW_S / 2
    on = RealFleet(N, {"s": Site(25.0)}, kill_first_fetch_after=5.0, clock_skew_s=skew)
    on.run(burst())
    # The holder's and the standby's (from 5 s in): the waiters read the slot before a takeover
    # and wait for the standby's facts instead.
    assert on.lost_audits == 1 and on.incomplete() == 0 and len(on.fetches) == 2
    # The dead holder renewed last at LEASE_RENEW_S: its lease lapses LEASE_S later on its clock,
    # no more than the skew later on a waiter's; one takeover's fetch, one poll late.
    lapse = lease.LEASE_RENEW_S + lease.LEASE_S + skew + lease.TAKEOVER_JITTER_S
    assert max(on.durations()) <= lapse + 25.0 + 1.5 * lease.POLL_MAX_S + 1.0


def test_clocks_skewed_beyond_the_allowance_cost_fetches_never_results_or_budget() -> None:
    on = RealFleet(N, {"s": Site(25.0)}, clock_skew_s=lease.CLOCK_SKEW_S).run(burst())
    assert on.incomplete() == 0 and len(on.records) == N
    # Leases and facts from clocks too far ahead are no lease and no facts: some audits take
    # the lease beside a live holder and fetch too, which costs fetches, not waits.
    assert 1 < len(on.fetches) <= 10
    assert max(r.waited_s for r in on.records) <= 25.0 + 2 * lease.POLL_MAX_S + 2.0
    assert max(on.durations()) < 147.0


@pytest.mark.parametrize("seed", [2, 5])  # draws where a waiter once bet on holder after holder
def test_clocks_skewed_far_beyond_the_allowance_churn_holders_but_never_cost_a_result(
    seed: int,
) -> None:
    # Clocks ±8 s: live holders look abandoned to waiters far ahead of them, and each takeover
    # starts the 120 s fetch again (its facts found unshareable only past the ninth candidate).
    # A waiter that bet on holder after holder learnt too late that it had to fetch by itself:
    # a quarter of the audits were cut by their budget. Having seen lease.CHURNED_HOLDERS
    # holders replaced, it fetches at once instead.
    site = {"s": Site(120.0, facts_bytes=200 * 1024, candidates=100)}
    arrivals = burst(spread_s=60.0)
    on = RealFleet(N, site, clock_skew_s=8.0, seed=seed).run(arrivals)
    off = RealFleet(N, site, mode="off", clock_skew_s=8.0, seed=seed).run(arrivals)
    assert len(on.records) == len(off.records) == N
    assert on.incomplete() == off.incomplete() == 0
    assert any(r.reason == "hedged" for r in on.records)


@pytest.mark.parametrize("seed", [3, 5])  # offsets that put waiters well ahead of the holder
def test_clocks_skewed_within_the_allowance_do_not_make_a_live_holder_look_late(seed: int) -> None:
    # The site's 80 s fetch is recorded: a waiter that judged the holder late near the end of its
    # budget would hedge (an 80 s fetch of its own, past the holder's end, maybe cut short).
    arrivals = [(0.0, "s"), *((150.0 + t, s) for t, s in burst(spread_s=60.0))]
    skew = lease.CLOCK_SKEW_S / 2
    on = RealFleet(N, {"s": Site(80.0)}, clock_skew_s=skew, seed=seed).run(arrivals)
    assert len(on.fetches) == 3 and on.incomplete() == 0  # the second burst's standby
    assert not [r for r in on.records if r.reason == "hedged"]
    waiters = sorted(r.ended - r.arrived for r in on.records if r.reason != "standby")
    assert waiters[-1] <= 80.0 + 1.5 * lease.POLL_MAX_S
    # The standby's own answer waits for its own fetch, begun half a fetch in: within budget.
    (stood,) = [r for r in on.records if r.reason == "standby"]
    assert stood.ended - stood.arrived <= lease.standby_after_s(80.0) + 80.0 + 1.0 < 147.0


def test_heavy_conditions_cost_time_never_a_result() -> None:
    # The table three times as slow, with a heavier tail and one call in ten throttled whatever
    # its units (answers slower than their read timeout lost, the calls applied): the burst still
    # shares its fetches and every audit answers.
    heavy = RealFleet(N, {"s": Site(25.0)}, heavy=True).run(burst())
    calm = RealFleet(N, {"s": Site(25.0)}).run(burst())
    assert heavy.incomplete() == calm.incomplete() == 0
    assert len(heavy.fetches) <= 3 and len(heavy.records) == N
    assert heavy.table.db.throttled_calls > calm.table.db.throttled_calls
    assert not any(r.reason == "store-failed" for r in heavy.records)


@pytest.mark.parametrize("failing", [False, True])
def test_a_standby_beside_a_slow_live_holder_hands_every_waiter_its_answer(failing: bool) -> None:
    # The holder's fetch takes 60 s, renewing all along; the standby's the usual 20 s. Its
    # answer, a 503 or not, goes to every waiter, those that came after the standby began (and
    # never read its slot) included: no takeover of a live holder, no third fetch.
    site = Site(20.0, first_fetch_s=60.0, transient_until=math.inf if failing else -math.inf)
    on, off = both({"s": site}, burst(spread_s=20.0))
    assert on.incomplete() == off.incomplete() == 0
    assert len(on.fetches) == 2
    assert sum(1 for r in on.records if r.source == "waited") == N - 2
    assert statistics.median(on.durations()) <= statistics.median(off.durations())
