"""The real sharing driver in a fleet in virtual time (tests/support/realfleet.py), small.

bench/fleet.py runs these rows at 1,000 audits with costs; here, 100 audits each, what must hold
whatever the tuning: sharing on against sharing off for the same arrivals.
"""

from __future__ import annotations

import pytest

from harness.realfleet import READ_TIMEOUT_S, RealFleet, Site
from sitemap_auditor import lease

N = 100


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
    assert len(on.fetches) == 1 and len(off.fetches) == N
    assert on.incomplete() == off.incomplete() == 0
    # A waiter's facts come one poll after the holder's publish at most (a tenth of its wait,
    # at most a second, jittered): the one way a waiter is slower than its own fetch.
    assert p99(on) <= p99(off) + lease.POLL_MAX_S * 1.5


def test_unshareable_facts_known_early_cost_no_wait() -> None:
    on, off = both({"s": Site(5.0, echoes_credential=True)}, burst())
    assert len(on.fetches) == N
    assert all(r.reason in ("holder", "unshareable") for r in on.records)
    # Released once robots.txt answered: each fetches side by side with the holder.
    assert p99(on) <= p99(off) + 0.3


def test_lost_answers_to_applied_lease_writes_cost_one_timeout_at_most() -> None:
    on, off = both({"s": Site(1.0)}, burst(), lost_writes=0.2)
    assert on.table.lost > 0
    assert len(on.fetches) == 1 and on.incomplete() == 0
    assert p99(on) <= p99(off) + READ_TIMEOUT_S + 0.2


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


def test_a_slow_site_gives_every_waiter_a_complete_result_sooner() -> None:
    on, off = both({"s": Site(120.0)}, burst(spread_s=60.0))
    assert on.incomplete() == 0 and len(on.fetches) == 1
    assert on.durations()[N // 2] <= off.durations()[N // 2]


def test_an_audit_alone_on_its_site_pays_a_read_and_two_writes() -> None:
    arrivals = [(i * 70.0, f"lone{i}") for i in range(10)]
    on = RealFleet(10, {name: Site(1.0) for _, name in arrivals}, mode="on").run(arrivals)
    db = on.table.db
    assert db.read_units == 10 * 0.5 and db.write_units == 10 * 2.0


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
    # They left once the holder was late (no renewal for LEASE_RENEW_S + LATE_GRACE_S after it
    # took the lease), three fetch times into their wait, not at the lapse (LEASE_S).
    others = sorted(r.ended - r.arrived for r in f.records if r.site != "hot")
    late = lease.LEASE_RENEW_S + lease.LATE_GRACE_S
    assert others[-1] <= 0.5 + late + lease.POLL_MAX_S * 1.5 + 1.0 + 0.2 < lease.LEASE_S
