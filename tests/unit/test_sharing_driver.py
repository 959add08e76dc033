"""The sharing driver against a store in memory and a fake clock: no socket, no sleep.

`Sharing` makes the calls `lease.Protocol` asks for; these check that it makes them right (what
it publishes, marks and hands back) and that the in-process single flight sits in front of it.
"""

from __future__ import annotations

import math
import random
import threading
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import dataclass, field, replace

import pytest
from support.phases import checked_moves

from sitemap_auditor.core import facts
from sitemap_auditor.core.errors import InvalidItemError
from sitemap_auditor.core.issues import Kind, issue
from sitemap_auditor.sharing import lease
from sitemap_auditor.sharing.driver import (
    DEFAULT_MAX_WAIT_S,
    FETCHED,
    LOCAL_MAX_WAIT_S,
    REUSED,
    STANDBY_SUFFIX,
    WAITED,
    LocalStore,
    Progress,
    Shared,
    ShareRequest,
    Sharing,
    StoredItem,
    StoreError,
    stamp_of,
)


@pytest.fixture(autouse=True)
def _moves_in_the_table(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    # Every move of the machine in these tests is one of lease.TRANSITIONS.
    yield from checked_moves(monkeypatch)


SITE = "https://www.example.com"


class Clock:
    """Wall and monotonic time that move only when the code sleeps."""

    def __init__(self) -> None:
        self.t = 1_800_000_000.0

    def wall(self) -> float:
        return self.t

    def mono(self) -> float:
        return self.t - 1_700_000_000.0

    def sleep(self, seconds: float) -> None:
        self.t += seconds


@dataclass
class MemoryStore:
    """The SharedStore protocol in memory; `script` makes chosen calls fail."""

    clock: Clock
    items: dict[str, dict[str, object]] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)
    script: list[tuple[str, bool]] = field(default_factory=list)  # (op, throttled) to fail next
    limit: int = 300 * 1024
    awaited_limit: int = 300 * 1024  # for facts handed only to their fetch's waiters

    def _maybe_fail(self, op: str) -> None:
        self.calls.append(op)
        if self.script and self.script[0][0] == op:
            _, throttled = self.script.pop(0)
            raise StoreError(op, "Throttling" if throttled else "Timeout", throttled)

    def get(self, key: str, consistent: bool) -> StoredItem | None:
        self._maybe_fail("get")
        raw = self.items.get(key)
        if raw is None:
            return None
        data = raw.get("facts")
        got = None
        if isinstance(data, bytes):
            with suppress(InvalidItemError):
                got = facts.decode(data)
        return StoredItem(self._item(raw, with_stamp=got is not None), got)

    @staticmethod
    def _item(raw: dict[str, object], with_stamp: bool = True) -> lease.Item:
        stamp = raw.get("stamp") if with_stamp else None
        assert stamp is None or isinstance(stamp, lease.Stamp)
        return lease.Item(
            stamp=stamp,
            lease_owner=raw.get("owner"),  # type: ignore[arg-type]
            lease_until=raw.get("until"),  # type: ignore[arg-type]
            unshareable_flight=raw.get("marked"),  # type: ignore[arg-type]
            unshareable_at=raw.get("marked_at"),  # type: ignore[arg-type]
            unshareable_lasting=bool(raw.get("lasting", False)),
            lease_renewals=raw.get("renewals"),  # type: ignore[arg-type]
        )

    def take_lease(self, key: str, owner: str, request: lease.TakeLease) -> bool:
        self._maybe_fail("take")
        raw = self.items.setdefault(key, {})
        if not lease.may_take(self._item(raw), owner, request):
            return False
        raw.update(owner=owner, until=request.until, renewals=0)
        return True

    def renew_lease(self, key: str, owner: str, until: float) -> None:
        self._maybe_fail("renew")
        raw = self.items.get(key, {})
        if raw.get("owner") == owner:
            raw["until"] = until
            raw["renewals"] = int(raw.get("renewals") or 0) + 1  # type: ignore[call-overload]

    def pack(self, data: bytes, for_waiters: bool = False, headroom: int = 0) -> bytes | None:
        limit = self.awaited_limit if for_waiters else self.limit
        return data if len(data) + headroom <= limit else None

    def put(self, key: str, packed: bytes, stamp: lease.Stamp, expires_at: float) -> None:
        self._maybe_fail("put")
        self.items[key] = {"facts": packed, "stamp": stamp}
        if stamp.awaited_only:  # as dynamostore writes it: with the lasting mark
            self.items[key].update(marked=stamp.flight, marked_at=stamp.fetched_at, lasting=True)

    def mark_unshareable(
        self, key: str, owner: str, at: float, lasting: bool, flight: str | None = None
    ) -> None:
        self._maybe_fail("mark")
        raw = self.items.get(key, {})
        if raw.get("owner") == owner:
            for name in ("owner", "until", "renewals"):
                raw.pop(name, None)
            raw.update(marked=flight or owner, marked_at=at, lasting=lasting)


def site_facts(at: float, status: int = 200, echo: str = "") -> facts.SiteFacts:
    url = f"{SITE}/sitemap.xml{echo}"
    robots = facts.RobotsProbe(200, True, (url,), (), ())
    transient = status >= 500
    refused = issue(url, Kind.HTTP_STATUS, f"HTTP {status}")
    outcome = facts.CandidateOutcome(url, None, refused, transient=transient)
    return facts.SiteFacts(robots, (url,), (outcome,), fetched_at=at, fetch_seconds=1.0)


class Fetcher:
    """Counts fetches; each gives the facts `make` builds at the clock's time, after 1 s."""

    def __init__(self, clock: Clock, status: int = 404, echo: str = "") -> None:
        self.clock = clock
        self.status = status
        self.echo = echo
        self.count = 0
        self.progressed_at: list[float] = []

    def __call__(self, previous: facts.SiteFacts | None, progress: Progress) -> facts.SiteFacts:
        self.count += 1
        self.clock.sleep(0.5)
        done = site_facts(self.clock.wall(), self.status, self.echo)
        # robots.txt has answered: what is known so far.
        progress(replace(done, outcomes=(), complete=False))
        self.progressed_at.append(self.clock.wall())
        self.clock.sleep(0.5)
        return replace(done, fetched_at=self.clock.wall())


def setup(
    publishable: bool = True,
) -> tuple[Clock, MemoryStore, Sharing, ShareRequest, list[StoreError]]:
    clock = Clock()
    store = MemoryStore(clock)
    sharing = Sharing(LocalStore(), clock.wall, clock.mono, clock.sleep, random.Random(1))
    req = ShareRequest("k", 60, clock.mono() + 147, store, lambda data: publishable)
    return clock, store, sharing, req, []


def obtain(sharing: Sharing, req: ShareRequest, fetch: Fetcher, errors: list[StoreError]) -> Shared:
    return sharing.obtain(req, fetch, errors.append)


def test_the_holder_publishes_and_the_next_container_reuses() -> None:
    clock, store, sharing, req, errors = setup()
    fetch = Fetcher(clock)
    first = obtain(sharing, req, fetch, errors)
    assert first.source == FETCHED and first.reason == "holder" and fetch.count == 1
    stored = store.items["k"]["stamp"]
    assert isinstance(stored, lease.Stamp) and stored.flight is not None
    assert stored.fetched_at == first.facts.fetched_at and not stored.transient
    # Another container (its own process store) reuses the table's facts.
    other = Sharing(LocalStore(), clock.wall, clock.mono, clock.sleep, random.Random(2))
    second = obtain(other, req, fetch, errors)
    assert second.source == REUSED and second.facts == first.facts and fetch.count == 1
    assert errors == []


def test_the_process_store_answers_before_the_table() -> None:
    clock, store, sharing, req, errors = setup()
    fetch = Fetcher(clock)
    obtain(sharing, req, fetch, errors)
    calls = len(store.calls)
    again = obtain(sharing, req, fetch, errors)
    assert again.source == REUSED and len(store.calls) == calls


def test_a_waiter_rides_out_throttling_until_the_holder_publishes() -> None:
    clock, store, sharing, req, errors = setup()
    published = site_facts(clock.wall() + 5)
    store.items["k"] = {"owner": "holder", "until": clock.wall() + 10}
    real_get = store.get
    reads = 0

    def get(key: str, consistent: bool) -> StoredItem | None:
        nonlocal reads
        reads += 1
        if reads == 2:
            # Having seen the holder's live lease, the next 30 reads are throttled.
            store.script = [("get", True)] * 30
        # The holder publishes 5 s from now.
        if clock.wall() >= published.fetched_at and "facts" not in store.items["k"]:
            stamp = replace(stamp_of(published) or lease.Stamp(0), flight="holder")
            store.items["k"] = {"facts": facts.encode(published), "stamp": stamp}
        elif "facts" not in store.items["k"]:
            store.items["k"]["until"] = clock.wall() + 10  # renewed
        return real_get(key, consistent)

    store.get = get  # type: ignore[method-assign]
    fetch = Fetcher(clock)
    began = clock.wall()
    got = obtain(sharing, req, fetch, errors)
    assert got.source == WAITED and got.facts == published and fetch.count == 0
    assert got.throttled == 30
    # What it waited: from its first sight of the holder's lease (its first read, at the start)
    # to the facts, the throttled reads included.
    assert got.waited_s == clock.wall() - began and got.waited_s >= 5.0
    # Only the first throttled answer is logged; all are counted.
    assert len(errors) == 1 and errors[0].throttled and got.store_errors == 30


def test_facts_that_echo_a_credential_mark_the_item_and_stay_in_the_process() -> None:
    clock, store, sharing, req, errors = setup(publishable=False)
    fetch = Fetcher(clock, echo="?p=secret")
    got = obtain(sharing, req, fetch, errors)
    assert got.source == FETCHED and got.unshareable == "credential-echoed"
    raw = store.items["k"]
    assert "facts" not in raw and raw["marked"] and raw["lasting"] is True
    # A newcomer from another container within the window fetches by itself at once.
    other = Sharing(LocalStore(), clock.wall, clock.mono, clock.sleep, random.Random(3))
    alone = obtain(other, req, fetch, errors)
    assert alone.reason == "unshareable" and fetch.count == 2
    # This process still reuses its own facts.
    assert obtain(sharing, req, fetch, errors).source == REUSED


def test_transient_facts_are_not_reused_by_a_later_audit() -> None:
    clock, store, sharing, req, errors = setup()
    fetch = Fetcher(clock, status=503)
    first = obtain(sharing, req, fetch, errors)
    assert first.facts.transient
    stamp = store.items["k"]["stamp"]
    assert isinstance(stamp, lease.Stamp) and stamp.transient
    fetch.status = 404
    clock.sleep(5)
    second = obtain(sharing, req, fetch, errors)
    assert second.source == FETCHED and not second.facts.transient and fetch.count == 2


def test_a_store_that_does_not_answer_costs_no_result() -> None:
    clock, store, sharing, req, errors = setup()
    store.script = [("get", False)]
    fetch = Fetcher(clock)
    got = obtain(sharing, req, fetch, errors)
    assert got.source == FETCHED and got.reason == "store-failed" and fetch.count == 1
    assert [e.op for e in errors] == ["get"] and "put" not in store.calls


def test_facts_too_large_for_an_item_are_marked_unshareable() -> None:
    clock, store, sharing, req, errors = setup()
    store.limit = store.awaited_limit = 10
    got = obtain(sharing, req, Fetcher(clock), errors)
    assert got.unshareable == "too-large" and store.items["k"]["lasting"] is True
    assert "facts" not in store.items["k"]


def test_facts_too_large_to_share_go_to_the_waiters_only_with_the_lasting_mark() -> None:
    clock, store, sharing, req, errors = setup()
    # Found too large only at the end (what robots.txt gave fits, with room for all that the
    # audit's own fetches may add after it: facts.UNSHOWN_BYTES), for the site's item, not for
    # the waiters' own: a fetch whose end adds more than that (none of the audit's does) is
    # still handled.
    partial = replace(site_facts(clock.wall()), outcomes=(), complete=False)
    store.limit = len(facts.encode(partial)) + facts.UNSHOWN_BYTES + 20
    fetch = Fetcher(clock)

    def slow(previous: facts.SiteFacts | None, progress: Progress) -> facts.SiteFacts:
        # A fetch that took lease.AWAITED_MIN_FETCH_S: its waiters take such facts.
        got = fetch(previous, progress)
        url = got.candidates[0]
        grown = issue(url, Kind.HTTP_STATUS, "x" * (facts.UNSHOWN_BYTES + 40))
        outcomes = (facts.CandidateOutcome(url, None, grown),)
        return replace(got, outcomes=outcomes, fetch_seconds=lease.AWAITED_MIN_FETCH_S)

    got = sharing.obtain(req, slow, errors.append)
    assert got.unshareable == "too-large" and got.source == FETCHED
    stamp = store.items["k"]["stamp"]
    assert isinstance(stamp, lease.Stamp) and stamp.awaited_only and stamp.flight is not None
    assert store.items["k"]["lasting"] is True and store.items["k"]["marked"] == stamp.flight
    # A newcomer (another process) neither reuses them nor reads them: it fetches by itself.
    other = Sharing(LocalStore(), clock.wall, clock.mono, clock.sleep, random.Random(5))
    again = obtain(other, req, fetch, errors)
    assert again.source == FETCHED and again.reason == "unshareable" and fetch.count == 2


def test_refresh_ahead_fetches_once_and_others_keep_reusing() -> None:
    clock, _, sharing, req, errors = setup()
    fetch = Fetcher(clock)
    obtain(sharing, req, fetch, errors)
    clock.sleep(59.5)  # half a second left: about one draw in three refreshes ahead
    results = [obtain(sharing, req, fetch, errors) for _ in range(20)]
    refreshed = [r for r in results if r.refreshed_ahead]
    assert len(refreshed) == 1 and fetch.count == 2
    assert all(r.source == REUSED for r in results if not r.refreshed_ahead)


def test_a_fetch_is_encoded_once_for_the_table_and_the_process_store(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock, store, sharing, req, errors = setup()
    encoded: list[int] = []
    real = facts.encode

    def counting(value: facts.SiteFacts) -> bytes:
        data = real(value)
        encoded.append(len(data))
        return data

    monkeypatch.setattr(facts, "encode", counting)
    got = obtain(sharing, req, Fetcher(clock), errors)
    assert got.source == FETCHED and "k" in store.items
    # The whole facts once (the part known mid-fetch is looked at too, once, being smaller).
    whole = len(real(got.facts))
    assert encoded.count(whole) == 1 and len(encoded) == 2 and encoded[0] < whole
    assert got.encoded_bytes == whole


@dataclass
class LostAnswers(MemoryStore):
    """A store whose chosen lease writes are applied, then answered with an error (a timeout)."""

    lose: list[bool] = field(default_factory=list)  # throttled? per lease write to lose

    def take_lease(self, key: str, owner: str, request: lease.TakeLease) -> bool:
        took = super().take_lease(key, owner, request)
        if self.lose:
            throttled = self.lose.pop(0)
            self.clock.sleep(2.0)  # the read timeout
            raise StoreError("update_item", "Throttling" if throttled else "ReadTimeout", throttled)
        return took


@pytest.mark.parametrize("throttled", [False, True])
def test_a_lease_write_applied_but_unanswered_is_the_audits_own(throttled: bool) -> None:
    clock = Clock()
    store = LostAnswers(clock, lose=[throttled])
    tokens = iter(["mine", "theirs"])
    sharing = Sharing(
        LocalStore(), clock.wall, clock.mono, clock.sleep, random.Random(1), lambda: next(tokens)
    )
    req = ShareRequest("k", 60, clock.mono() + 147, store, lambda data: True)
    errors: list[StoreError] = []
    fetch = Fetcher(clock)
    started = clock.wall()
    got = obtain(sharing, req, fetch, errors)
    # It held its own lease: one fetch, published under its token, and no wait on itself (the
    # lost answer's 2 s, a backoff at most, and the 1 s fetch).
    assert got.source == FETCHED and got.reason == "holder" and fetch.count == 1
    assert clock.wall() - started <= 2.0 + lease.BACKOFF_MAX_S + 1.0
    stamp = store.items["k"]["stamp"]
    assert isinstance(stamp, lease.Stamp) and stamp.flight == "mine"
    assert "owner" not in store.items["k"] and store.calls.count("take") == 1
    assert len(errors) == 1


def test_a_lease_write_neither_applied_nor_answered_is_tried_again_once() -> None:
    clock, store, sharing, req, errors = setup()
    store.script = [("take", False)]
    fetch = Fetcher(clock)
    got = obtain(sharing, req, fetch, errors)
    assert got.source == FETCHED and got.reason == "holder" and fetch.count == 1
    assert store.calls == ["get", "take", "get", "take", "put"]


def test_a_credential_echoed_in_robots_releases_the_waiters_mid_fetch() -> None:
    clock, store, sharing, req, errors = setup(publishable=False)
    fetch = Fetcher(clock, echo="?p=secret")
    got = obtain(sharing, req, fetch, errors)
    raw = store.items["k"]
    # Marked as soon as robots.txt had answered, not when the fetch ended, and only once.
    assert raw["marked_at"] == fetch.progressed_at[0] < got.facts.fetched_at
    assert raw["lasting"] is True and store.calls.count("mark") == 1
    assert got.unshareable == "credential-echoed" and "put" not in store.calls
    # The lease is no longer renewed once it is gone.
    assert "renew" not in store.calls


def test_facts_too_large_already_mid_fetch_release_the_waiters_then() -> None:
    clock, store, sharing, req, errors = setup()
    store.limit = 10
    fetch = Fetcher(clock)
    got = obtain(sharing, req, fetch, errors)
    assert store.items["k"]["marked_at"] == fetch.progressed_at[0] < got.facts.fetched_at
    assert got.unshareable == "too-large" and store.calls.count("mark") == 1


def growing_facts(at: float, tried: int, of: int = 3) -> facts.SiteFacts:
    """A site whose robots.txt lists `of` candidates that all fail, `tried` of them tried."""
    of = max(of, tried)
    urls = tuple(f"{SITE}/sitemap-{n}.xml" for n in range(of))
    robots = facts.RobotsProbe(200, True, urls, (), ())
    outcomes = tuple(
        facts.CandidateOutcome(u, None, issue(u, Kind.HTTP_STATUS, "HTTP 404")) for u in urls
    )
    return facts.SiteFacts(robots, urls, outcomes[:tried], tried == of, at, 3.5)


def growing_fetch(
    clock: Clock, shown: list[tuple[float, int]], last: int = 3
) -> Callable[[facts.SiteFacts | None, Progress], facts.SiteFacts]:
    """robots.txt at 0.5 s, then a candidate a second, each outcome shown as it comes; the
    last one's (`last` outcomes in the end) only with the fetch's facts."""

    def fetch(previous: facts.SiteFacts | None, progress: Progress) -> facts.SiteFacts:
        for tried in range(3):
            clock.sleep(0.5 if tried == 0 else 1.0)
            progress(growing_facts(0.0, tried))
            shown.append((clock.wall(), tried))
        clock.sleep(1.0)
        return growing_facts(clock.wall(), last)

    return fetch


def test_facts_shown_near_the_limit_release_the_waiters_then_and_are_published_if_they_fit() -> (
    None
):
    clock, store, sharing, req, errors = setup()
    shown: list[tuple[float, int]] = []
    # Two outcomes fit the store, but not with room for all that the fetch's end may still add
    # (facts.UNSHOWN_BYTES): the waiters cannot count on them and are told at once, with a
    # mark that does not last. Three fit in the end: they are published for newcomers.
    one, two = (len(facts.encode(growing_facts(0.0, n))) for n in (1, 2))
    store.limit = one + facts.UNSHOWN_BYTES + (two - one) // 2
    got = sharing.obtain(req, growing_fetch(clock, shown), errors.append)
    assert store.calls.count("mark") == 1 and store.calls[-1] == "put"
    assert got.unshareable is None and got.facts.complete
    stamp = store.items["k"]["stamp"]
    assert isinstance(stamp, lease.Stamp) and stamp.fetched_at == got.facts.fetched_at
    assert shown[2][0] < got.facts.fetched_at
    other = Sharing(LocalStore(), clock.wall, clock.mono, clock.sleep, random.Random(5))
    again = obtain(other, req, Fetcher(clock), errors)
    assert again.source == REUSED


def test_facts_that_grow_too_large_release_the_waiters_after_the_candidate_that_made_them_so() -> (
    None
):
    clock, store, sharing, req, errors = setup()
    shown: list[tuple[float, int]] = []
    marks: list[tuple[float, bool]] = []
    real_mark = store.mark_unshareable

    def mark(key: str, owner: str, at: float, lasting: bool, flight: str | None = None) -> None:
        marks.append((at, lasting))
        real_mark(key, owner, at, lasting, flight)

    store.mark_unshareable = mark  # type: ignore[method-assign]
    # With room for what the end may add, robots.txt and one outcome fit the store; two do not
    # (though they fit without it): the waiters are told then, not at the end. The facts then
    # prove too large; the mark, written while they might have fit, does not last.
    one, two = (len(facts.encode(growing_facts(0.0, n))) for n in (1, 2))
    store.limit = facts.UNSHOWN_BYTES + (one + two) // 2
    got = sharing.obtain(req, growing_fetch(clock, shown, last=200), errors.append)
    assert marks == [(shown[2][0], False)] and shown[2][0] < got.facts.fetched_at
    assert got.unshareable == "too-large" and got.facts.complete and "put" not in store.calls


@pytest.mark.parametrize("mark_fails", [False, True])
def test_facts_near_the_limit_then_cut_by_the_budget_say_so_and_leave_no_lasting_mark(
    mark_fails: bool,
) -> None:
    clock, store, sharing, req, errors = setup()
    shown: list[tuple[float, int]] = []
    # Near the limit mid-fetch (the waiters told, or to be told), then cut by the audit's own
    # budget while still within it: the reason is the cut, and no mark says "too large" for a
    # day (the facts never were).
    one = len(facts.encode(growing_facts(0.0, 1)))
    store.limit = one + facts.UNSHOWN_BYTES // 2
    if mark_fails:
        store.script = [("mark", False)]
    grow = growing_fetch(clock, shown, last=2)

    def cut(previous: facts.SiteFacts | None, progress: Progress) -> facts.SiteFacts:
        return replace(grow(previous, progress), complete=False)

    got = sharing.obtain(req, cut, errors.append)
    assert got.unshareable == "cut-by-budget"
    assert store.items["k"]["lasting"] is False and "put" not in store.calls


def test_a_mark_that_fails_mid_fetch_is_written_at_the_end() -> None:
    clock, store, sharing, req, errors = setup(publishable=False)
    store.script = [("mark", False)]
    fetch = Fetcher(clock, echo="?p=secret")
    got = obtain(sharing, req, fetch, errors)
    assert store.calls.count("mark") == 2 and store.items["k"]["marked_at"] == got.facts.fetched_at
    assert [e.op for e in errors] == ["mark"]


def test_the_unshareable_mark_outlives_the_share_window() -> None:
    clock, store, sharing, req, errors = setup(publishable=False)
    fetch = Fetcher(clock, echo="?p=secret")
    obtain(sharing, req, fetch, errors)
    clock.sleep(3 * req.window_s)
    other = Sharing(LocalStore(), clock.wall, clock.mono, clock.sleep, random.Random(3))
    calls = len(store.calls)
    alone = obtain(other, req, fetch, errors)
    assert alone.reason == "unshareable" and fetch.count == 2
    assert store.calls[calls:] == ["get"]  # one read, no lease, no wait


def test_an_audit_that_read_before_a_lasting_mark_fetches_alone_and_holds_no_lease() -> None:
    clock, store, sharing, req, errors = setup(publishable=False)
    fetch = Fetcher(clock, echo="?p=secret")
    obtain(sharing, req, fetch, errors)
    marked = dict(store.items["k"])
    # Another container's first read lags: it shows the item as it was before the holder's lease
    # and mark, so the audit asks for the lease, which the mark refuses.
    other = Sharing(LocalStore(), clock.wall, clock.mono, clock.sleep, random.Random(3))
    real_get = store.get

    def lagging(key: str, consistent: bool) -> StoredItem | None:
        return real_get(key, consistent) if consistent else None

    store.get = lagging  # type: ignore[method-assign]
    calls = len(store.calls)
    alone = obtain(other, req, fetch, errors)
    assert alone.reason == "unshareable" and alone.unshareable is None and fetch.count == 2
    assert store.calls[calls:] == ["take", "get"]
    # Refused: the item still holds no lease and the holder's mark, nothing of the newcomer's.
    assert store.items["k"] == marked and errors == []
    # A mark older than the hold refuses nothing: the next fetch of the site may be shared.
    clock.sleep(lease.UNSHAREABLE_HOLD_S + 1)
    store.get = real_get  # type: ignore[method-assign]
    fresh = Fetcher(clock)
    again = obtain(
        Sharing(LocalStore(), clock.wall, clock.mono, clock.sleep, random.Random(4)),
        ShareRequest("k", 60, clock.mono() + 147, store, lambda data: True),
        fresh,
        errors,
    )
    assert again.reason == "holder" and "facts" in store.items["k"]


def test_a_waiter_hedges_a_late_holder_whose_takeover_it_cannot_afford() -> None:
    clock, store, sharing, _, errors = setup()
    old = site_facts(clock.wall() - 3600)
    stamp = lease.Stamp(old.fetched_at, 60.0, False, "before")
    # A holder that renewed its lease twice, then stopped; the site's last fetch took 60 s.
    store.items["k"] = {
        "facts": facts.encode(old),
        "stamp": stamp,
        "owner": "holder",
        "until": clock.wall() + 6.0,
        "renewals": 2,
    }
    req = ShareRequest("k", 60, clock.mono() + 40, store, lambda data: True)
    fetch = Fetcher(clock)
    started = clock.wall()
    got = obtain(sharing, req, fetch, errors)
    assert got.source == FETCHED and got.reason == "hedged" and fetch.count == 1
    # Late once its count stood still for a renewal period and the grace, on this audit's clock;
    # then its own fetch of 1 s, which is no wait (waited_s ends where its fetch begins).
    late = lease.LEASE_RENEW_S + lease.LATE_GRACE_S
    assert late < got.waited_s <= late + lease.POLL_MAX_S * 1.5
    assert clock.wall() - started == pytest.approx(got.waited_s + 1.0)


@dataclass
class OutOfLine(MemoryStore):
    """Keeps facts out of the site's item, read only when an audit uses them (as DynamoStore
    does for large facts); `broken` makes those reads fail."""

    loads: int = 0
    broken: bool = False

    def get(self, key: str, consistent: bool) -> StoredItem | None:
        got = super().get(key, consistent)
        if got is None or got.facts is None:
            return got
        held = got.facts

        def load() -> facts.SiteFacts | None:
            self.loads += 1
            if self.broken:
                raise StoreError("get_item", "ReadTimeout", False)
            return held

        return StoredItem(got.item, None, load)


def test_facts_kept_out_of_the_item_are_read_only_by_an_audit_that_uses_them() -> None:
    clock = Clock()
    store = OutOfLine(clock)
    sharing = Sharing(LocalStore(), clock.wall, clock.mono, clock.sleep, random.Random(1))
    req = ShareRequest("k", 60, clock.mono() + 147, store, lambda data: True)
    errors: list[StoreError] = []
    fetch = Fetcher(clock)
    first = obtain(sharing, req, fetch, errors)
    assert store.loads == 0  # nothing stored yet
    other = Sharing(LocalStore(), clock.wall, clock.mono, clock.sleep, random.Random(2))
    second = obtain(other, req, fetch, errors)
    assert second.source == REUSED and second.facts == first.facts and store.loads == 1
    # Past the window, the next audit reads them once, to revalidate them.
    clock.sleep(120)
    seen: list[facts.SiteFacts | None] = []

    def fetch_again(previous: facts.SiteFacts | None, progress: Progress) -> facts.SiteFacts:
        seen.append(previous)
        return fetch(previous, progress)

    third = Sharing(LocalStore(), clock.wall, clock.mono, clock.sleep, random.Random(3))
    assert third.obtain(req, fetch_again, errors.append).source == FETCHED
    assert seen == [first.facts] and store.loads == 2 and errors == []


def test_facts_kept_out_of_the_item_that_cannot_be_read_cost_no_result() -> None:
    clock = Clock()
    store = OutOfLine(clock)
    sharing = Sharing(LocalStore(), clock.wall, clock.mono, clock.sleep, random.Random(1))
    req = ShareRequest("k", 60, clock.mono() + 147, store, lambda data: True)
    errors: list[StoreError] = []
    fetch = Fetcher(clock)
    obtain(sharing, req, fetch, errors)
    store.broken = True
    other = Sharing(LocalStore(), clock.wall, clock.mono, clock.sleep, random.Random(2))
    got = obtain(other, req, fetch, errors)
    assert got.source == FETCHED and got.reason == "store-failed" and fetch.count == 2
    assert [e.op for e in errors] == ["get_item"]


# --- in one process: waiting for the process's own fetch ---------------------------------------


class Landing:
    """The process's holder, in virtual time: its fetch lands after `after` seconds with `facts`.

    Given to the driver as its wait: a waiter's wait moves the clock to the landing, or to the
    end of the time it waits, whichever comes first."""

    def __init__(self, clock: Clock, after: float, landed: facts.SiteFacts) -> None:
        self.clock = clock
        self.sharing = Sharing(
            LocalStore(), clock.wall, clock.mono, clock.sleep, random.Random(1), wait=self.wait
        )
        self.lands_at = clock.mono() + after
        self.landed = landed
        self.flight: object = None
        self.waits: list[float] = []

    def lead(self, budget_end: float | None) -> None:
        """The holder begins its fetch now, with this budget (monotonic; None for none)."""
        _, _, self.flight = self.sharing.local.enter(
            "k", 60, self.clock.wall(), 0.5, self.clock.mono(), budget_end
        )
        assert self.flight is not None

    def wait(self, done: threading.Event, seconds: float) -> bool:
        self.waits.append(seconds)
        left = self.lands_at - self.clock.mono()
        if seconds < left:
            self.clock.sleep(seconds)
            return False
        self.clock.sleep(max(0.0, left))
        self.sharing.local.land("k", self.flight, self.landed)  # type: ignore[arg-type]
        return done.is_set()


def no_errors(error: StoreError) -> None:
    raise AssertionError(f"no store here: {error}")


def one_process(after: float, known: facts.SiteFacts | None = None) -> tuple[Clock, Landing]:
    clock = Clock()
    holder = Landing(clock, after, site_facts(clock.wall() + after))
    if known is not None:
        holder.sharing.local.put("k", known, 1_000)
    return clock, holder


def test_without_a_budget_a_waiter_waits_for_its_process_fetch_as_long_as_it_lasts() -> None:
    # A site that never answers: robots.txt and three candidates to their 30 s deadlines. The
    # waiter joined at once; the holder's fetch lands past the 120 s a waiter on the table gets.
    clock, holder = one_process(after=120.5)
    holder.lead(None)
    fetch = Fetcher(clock)
    req = ShareRequest("k", 60, None, None, lambda data: True)
    got = holder.sharing.obtain(req, fetch, no_errors)
    # It took the holder's answers when they came: not 120 s of waiting, then a fetch of its own.
    assert got.source == WAITED and fetch.count == 0
    assert got.facts is holder.landed and got.waited_s == pytest.approx(120.5)
    assert holder.waits == [LOCAL_MAX_WAIT_S] and LOCAL_MAX_WAIT_S > DEFAULT_MAX_WAIT_S


def test_a_waiter_waits_for_its_process_fetch_up_to_its_own_budget() -> None:
    clock, holder = one_process(after=30.0)
    holder.lead(clock.mono() + 147)
    fetch = Fetcher(clock)
    req = ShareRequest("k", 60, clock.mono() + 20, None, lambda data: True)
    got = holder.sharing.obtain(req, fetch, no_errors)
    # Its budget ended first: it fetches (with no time left, as it would have been cut).
    assert got.source == FETCHED and got.reason == "budget" and fetch.count == 1
    assert got.waited_s == pytest.approx(20.0)


def test_a_waiter_stops_waiting_for_its_process_while_it_can_still_fetch() -> None:
    # The site's last fetch took 10 s; this time the process's holder is slower (30 s, say it
    # waited on the table first). A waiter with 20 s of budget waits 10 s, then fetches with the
    # 10 s the site takes: not 20 s of waiting, then a fetch with nothing left.
    before = replace(site_facts(1_800_000_000.0 - 120), fetch_seconds=10.0)
    clock, holder = one_process(after=30.0, known=before)
    holder.lead(clock.mono() + 147)
    fetch = Fetcher(clock)
    req = ShareRequest("k", 60, clock.mono() + 20, None, lambda data: True)
    got = holder.sharing.obtain(req, fetch, no_errors)
    assert got.source == FETCHED and got.reason == "budget" and fetch.count == 1
    assert got.waited_s == pytest.approx(10.0) and holder.waits == [pytest.approx(10.0)]


def test_a_waiter_fetches_beside_a_holder_whose_budget_cannot_cover_the_site() -> None:
    # The site's last fetch (past the window, still held) took 10 s; the process's holder has
    # 5 s of budget left: its facts will be cut, and given to nobody.
    before = replace(site_facts(1_800_000_000.0 - 120), fetch_seconds=10.0)
    clock, holder = one_process(after=5.0, known=before)
    holder.lead(clock.mono() + 5)
    fetch = Fetcher(clock)
    req = ShareRequest("k", 60, clock.mono() + 140, None, lambda data: True)
    started = clock.mono()
    got = holder.sharing.obtain(req, fetch, no_errors)
    # At once, without waiting: what it would have done without sharing.
    assert got.source == FETCHED and got.reason == "hedged" and fetch.count == 1
    assert holder.waits == [] and got.waited_s == 0.0
    assert clock.mono() - started == pytest.approx(1.0)  # its own fetch


def test_a_holder_whose_budget_covers_the_site_is_waited_for() -> None:
    before = replace(site_facts(1_800_000_000.0 - 120), fetch_seconds=10.0)
    clock, holder = one_process(after=10.0, known=before)
    holder.lead(clock.mono() + 11)
    fetch = Fetcher(clock)
    req = ShareRequest("k", 60, clock.mono() + 140, None, lambda data: True)
    got = holder.sharing.obtain(req, fetch, no_errors)
    assert got.source == WAITED and fetch.count == 0 and got.waited_s == pytest.approx(10.0)


def test_a_standby_whose_fetch_fails_ends_its_slot_at_once() -> None:
    clock, store, sharing, req, errors = setup()
    holder_renewing(clock, store)

    def broken(previous: facts.SiteFacts | None, progress: Progress) -> facts.SiteFacts:
        clock.sleep(0.5)
        raise RuntimeError("a defect")

    with pytest.raises(RuntimeError):
        sharing.obtain(req, broken, errors.append)
    slot = store.items["k" + STANDBY_SUFFIX]
    # No waiter counts on it: the slot is free for the next standby, not taken for 10 s more.
    assert "owner" not in slot and store.calls[-1] == "mark"
    assert store.items["k"]["owner"] == "holder"  # the holder's lease is not the standby's
    now = clock.wall()
    take = lease.TakeLease(now + 10, now, now - 30, math.inf, standby=True)
    assert store.take_lease("k" + STANDBY_SUFFIX, "next", take)


def holder_renewing(
    clock: Clock, store: MemoryStore, before_read: Callable[[], None] | None = None
) -> None:
    """Give the store a holder's lease, taken now, that its reads show renewed on schedule (on
    the monotonic clock; each lease end written by the wall clock of its renewal). before_read,
    when given, is called at each read first."""
    took = clock.mono()
    store.items["k"] = {"owner": "holder", "until": clock.wall() + lease.LEASE_S, "renewals": 0}
    real_get = store.get

    def renewing(key: str, consistent: bool) -> StoredItem | None:
        if before_read is not None:
            before_read()
        raw = store.items.get("k", {})
        if raw.get("owner") == "holder":
            elapsed = clock.mono() - took
            renewed, n = 0.0, 0
            while lease.renewal_due_s(renewed) <= elapsed:
                renewed, n = lease.renewal_due_s(renewed), n + 1
            raw.update(renewals=n, until=clock.wall() - elapsed + renewed + lease.LEASE_S)
        return real_get(key, consistent)

    store.get = renewing  # type: ignore[method-assign]


class SteppedClock(Clock):
    """A clock whose wall time can be set back (or on), as NTP steps it; monotonic time cannot."""

    def __init__(self) -> None:
        super().__init__()
        self.shift = 0.0

    def wall(self) -> float:
        return self.t + self.shift


@pytest.mark.parametrize("step_s", [-60.0, 60.0])
def test_a_wall_clock_stepped_during_a_wait_neither_stretches_nor_cuts_the_budget(
    step_s: float,
) -> None:
    clock = SteppedClock()
    store = MemoryStore(clock)
    sharing = Sharing(LocalStore(), clock.wall, clock.mono, clock.sleep, random.Random(1))
    entered = clock.mono()
    req = ShareRequest("k", 60, entered + 20, store, lambda data: True)

    def step_the_clock() -> None:
        if clock.mono() - entered >= 2.0 and clock.shift == 0.0:
            clock.shift = step_s  # the container's wall clock is set back (or on) a minute

    # A holder that renews on time (on the true clock) and never publishes within the wait.
    holder_renewing(clock, store, step_the_clock)
    fetch = Fetcher(clock)
    errors: list[StoreError] = []
    got = sharing.obtain(req, fetch, errors.append)
    # Its budget is the monotonic clock's: it waits 20 s, neither a minute more nor less.
    assert got.source == FETCHED and got.reason == "budget" and fetch.count == 1
    assert clock.shift == step_s
    assert 20 - 0.1 <= clock.mono() - entered - 1.0 <= 20 + 0.1  # then its own fetch (1 s)


@pytest.mark.parametrize("publishable", [True, False])
def test_a_waiter_on_a_long_fetch_stands_by_beside_it_in_a_slot_of_its_own(
    publishable: bool,
) -> None:
    clock, store, sharing, req, errors = setup(publishable)
    holder_renewing(clock, store)
    fetch = Fetcher(clock, echo="" if publishable else "?p=secret")
    got = obtain(sharing, req, fetch, errors)
    assert got.source == FETCHED and got.reason == "standby" and fetch.count == 1
    # It took the slot (an item of its own) once the holder had fetched for STANDBY_MIN_S.
    slot = store.items["k" + STANDBY_SUFFIX]
    assert lease.STANDBY_MIN_S <= got.waited_s <= lease.STANDBY_MIN_S + 1.5 * lease.POLL_MAX_S
    # Done, it ends its slot at once (a mark nobody heeds), the last thing it writes.
    assert "owner" not in slot and slot["lasting"] is False and store.calls[-1] == "mark"
    assert store.calls.count("mark") == 1 and errors == []
    if publishable:
        # The first facts of the wait: published, under its own token (the holder's lease ends).
        stamp = store.items["k"]["stamp"]
        assert isinstance(stamp, lease.Stamp) and stamp.flight == slot["marked"]
    else:
        # Its facts cannot be shared: the holder, not the standby, tells the waiters.
        assert store.items["k"]["owner"] == "holder" and "put" not in store.calls
