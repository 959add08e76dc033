"""Audits of one site share one fetch (CONTRACT section 7).

Within the share window an audit reuses the facts of the site's last complete fetch; while the
site is being fetched, other audits wait for those facts (single flight) instead of fetching too;
after the window the site is asked again, conditionally, from the stored validators. Facts live in
a bounded store of this process and, when a table is configured, in a store shared by every
container, where a lease (a conditional write with an expiry, renewed while its holder works)
elects the one audit that fetches. The stores are an optimisation: any failure of theirs makes
the audit fetch by itself, with the same result.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Protocol

from . import facts as site_facts
from .facts import SiteFacts

# Facts are kept this long after their fetch so that a later audit can revalidate them with a
# 304 instead of downloading again; a site audited less often than weekly is simply refetched.
RETENTION_S = 7 * 86_400
# The in-process store: at most this many sites and this many bytes of encoded facts (a fact set
# is usually a few KB; the worst, 100 long candidate URLs and their issues, a few hundred KB).
LOCAL_MAX_SITES = 512
LOCAL_MAX_BYTES = 32 * 1024 * 1024
# A lease is this long and renewed every LEASE_RENEW_S while its holder fetches: a holder that
# died stops renewing, and its lease lapses within LEASE_S for another audit to take over.
LEASE_S = 10.0
LEASE_RENEW_S = 3.0
# Waiting audits poll the shared store every POLL_SHARE of the time they have waited, within
# POLL_MIN_S and POLL_MAX_S: a waiter finishes at most about a tenth behind the fetching audit,
# and a long wait costs few reads.
POLL_MIN_S = 0.03
POLL_MAX_S = 1.0
POLL_SHARE = 0.1
# A waiting audit stops waiting while it still has this long to fetch by itself: one request's
# 30 s deadline and some margin.
SELF_FETCH_RESERVE_S = 35.0
# Without a time budget (the command line), an audit waits at most this long for another.
DEFAULT_MAX_WAIT_S = 120.0

FETCHED, REUSED, WAITED = "fetched", "reused", "waited"

Fetch = Callable[[SiteFacts | None], SiteFacts]


class StoreError(Exception):
    """A call to the shared store failed, timed out or was throttled."""

    def __init__(self, op: str, detail: str) -> None:
        super().__init__(f"{op}: {detail}")
        self.op = op
        self.detail = detail


@dataclass(frozen=True)
class StoredItem:
    """What the shared store holds for one site: its facts and who holds the lease, if anyone."""

    facts: SiteFacts | None
    lease_owner: str | None
    lease_until: float | None


class SharedStore(Protocol):
    """A store shared by every container; every call is bounded in time and raises StoreError."""

    def get(self, key: str) -> StoredItem | None:
        """The item of a site, read consistently."""

    def take_lease(
        self, key: str, owner: str, until: float, now: float, fresh_since: float
    ) -> bool:
        """Take the site's lease unless another owner holds one or facts since then are stored."""

    def renew_lease(self, key: str, owner: str, until: float) -> None:
        """Extend this owner's lease."""

    def release_lease(self, key: str, owner: str) -> None:
        """Give up this owner's lease without publishing facts."""

    def put(self, key: str, data: bytes, fetched_at: float, expires_at: float) -> bool:
        """Publish a site's facts, replacing the item (and so any lease); False if too large."""


@dataclass(frozen=True)
class Shared:
    """The facts an audit got, and how: fetched itself, reused, or waited for another's fetch."""

    facts: SiteFacts
    source: str
    bytes_saved: int  # what the site did not have to send again thanks to sharing
    store_errors: int


@dataclass(frozen=True)
class Request:
    """One audit's part in sharing: its key, window, how long it may wait, where facts may go."""

    key: str
    window_s: int
    wait_until: float | None  # time.monotonic() value; None for no time budget
    shared_store: SharedStore | None  # None: share within this process only
    publishable: Callable[[bytes], bool]  # False for facts that must not leave the process


def scope_key(site_url: str, private_networks: bool, credential: str | None, key: bytes) -> str:
    """The store key of a site's facts: its siteBase, the network policy and a keyed credential."""
    # A keyed hash: an unkeyed one of a password could be recovered by guessing.
    scope = "-"
    if credential is not None:
        scope = hmac.new(key, credential.encode("utf-8", "replace"), hashlib.sha256).hexdigest()
    return f"v{site_facts.FORMAT}|{'p' if private_networks else 'g'}|{scope}|{site_url}"


class _Flight:
    """One fetch of a site in progress in this process, which other threads wait for."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.facts: SiteFacts | None = None


class LocalStore:
    """Facts of recently fetched sites and the fetches in progress, bounded, for this process."""

    def __init__(self, max_sites: int = LOCAL_MAX_SITES, max_bytes: int = LOCAL_MAX_BYTES) -> None:
        self._facts: OrderedDict[str, tuple[SiteFacts, int]] = OrderedDict()
        self._flights: dict[str, _Flight] = {}
        self._bytes = 0
        self._max_sites = max_sites
        self._max_bytes = max_bytes
        self._lock = threading.Lock()

    def get(self, key: str, now: float) -> SiteFacts | None:
        """The facts stored for a site, unless older than the retention."""
        with self._lock:
            hit = self._facts.get(key)
            if hit is None:
                return None
            if now - hit[0].fetched_at > RETENTION_S:
                self._drop(key)
                return None
            self._facts.move_to_end(key)
            return hit[0]

    def put(self, key: str, facts: SiteFacts, size: int) -> None:
        """Keep a site's facts, evicting the least recently used beyond the bounds."""
        if size > self._max_bytes:
            return
        with self._lock:
            self._drop(key)
            self._facts[key] = (facts, size)
            self._bytes += size
            while len(self._facts) > self._max_sites or self._bytes > self._max_bytes:
                self._drop(next(iter(self._facts)))

    def _drop(self, key: str) -> None:
        old = self._facts.pop(key, None)
        if old is not None:
            self._bytes -= old[1]

    def join(self, key: str) -> tuple[_Flight, bool]:
        """The site's fetch in progress and False, or a new one and True: this caller leads it."""
        with self._lock:
            flight = self._flights.get(key)
            if flight is not None:
                return flight, False
            flight = self._flights[key] = _Flight()
            return flight, True

    def land(self, key: str, flight: _Flight, facts: SiteFacts | None) -> None:
        """End a fetch in progress, handing its facts (None: nothing usable) to its waiters."""
        with self._lock:
            if self._flights.get(key) is flight:
                del self._flights[key]
        flight.facts = facts
        flight.done.set()

    def clear(self) -> None:
        """Forget every site."""
        with self._lock:
            self._facts.clear()
            self._bytes = 0


def _fresh(facts: SiteFacts | None, window_s: int, now: float) -> bool:
    return facts is not None and facts.complete and now - facts.fetched_at <= window_s


def _newer(a: SiteFacts | None, b: SiteFacts | None) -> SiteFacts | None:
    if a is None or b is None:
        return a or b
    return a if a.fetched_at >= b.fetched_at else b


class Sharing:
    """Hands each audit its site's facts: reused, waited for, or fetched (CONTRACT section 7)."""

    def __init__(
        self,
        local: LocalStore | None = None,
        wall: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.local = local or LocalStore()
        self._wall = wall
        self._mono = monotonic
        self._sleep = sleep

    def facts(self, req: Request, fetch: Fetch, on_error: Callable[[StoreError], None]) -> Shared:
        """The site's facts for one audit, fetching them only when no other audit can share."""
        if req.window_s <= 0:
            return Shared(fetch(None), FETCHED, 0, 0)
        now = self._wall()
        known = self.local.get(req.key, now)
        if _fresh(known, req.window_s, now):
            assert known is not None
            return Shared(known, REUSED, known.wire_bytes, 0)
        wait_until = req.wait_until
        if wait_until is None:
            wait_until = self._mono() + DEFAULT_MAX_WAIT_S
        flight, leader = self.local.join(req.key)
        if not leader:
            flight.done.wait(max(0.0, wait_until - self._mono()))
            landed = flight.facts
            if landed is not None:
                return Shared(landed, WAITED, landed.wire_bytes, 0)
            got = self._fetch(fetch, known)
            return Shared(got, FETCHED, got.revalidated_bytes, 0)
        result: Shared | None = None
        try:
            result = self._lead(req, fetch, known, wait_until, on_error)
            return result
        finally:
            # Waiters get the facts only when complete; an exception or a cut fetch hands them
            # nothing, and each then fetches by itself.
            usable = result.facts if result is not None and result.facts.complete else None
            if usable is not None:
                self.local.put(req.key, usable, len(site_facts.encode(usable)))
            self.local.land(req.key, flight, usable)

    def _lead(
        self,
        req: Request,
        fetch: Fetch,
        known: SiteFacts | None,
        wait_until: float,
        on_error: Callable[[StoreError], None],
    ) -> Shared:
        store = req.shared_store
        if store is None:
            got = self._fetch(fetch, known)
            return Shared(got, FETCHED, got.revalidated_bytes, 0)
        errors = 0

        def failed(e: StoreError) -> None:
            nonlocal errors
            errors += 1
            on_error(e)

        try:
            item = store.get(req.key)
        except StoreError as e:
            failed(e)
            got = self._fetch(fetch, known)
            return Shared(got, FETCHED, got.revalidated_bytes, errors)
        if item is not None and _fresh(item.facts, req.window_s, self._wall()):
            assert item.facts is not None
            return Shared(item.facts, REUSED, item.facts.wire_bytes, 0)
        previous = _newer(known, item.facts if item is not None else None)
        owner = uuid.uuid4().hex
        while True:
            now = self._wall()
            try:
                took = store.take_lease(req.key, owner, now + LEASE_S, now, now - req.window_s)
            except StoreError as e:
                failed(e)
                break
            if took:
                try:
                    with self._renewing(store, req.key, owner, failed):
                        got = self._fetch(fetch, previous)
                except BaseException:
                    # A defect: let the waiters take over now rather than when the lease lapses.
                    with suppress(StoreError):
                        store.release_lease(req.key, owner)
                    raise
                self._publish(store, req, got, owner, failed)
                return Shared(got, FETCHED, got.revalidated_bytes, errors)
            try:
                item = self._await(store, req, wait_until)
            except StoreError as e:
                failed(e)
                break
            if (
                item is not None
                and item.facts is not None
                and _fresh(item.facts, req.window_s, self._wall())
            ):
                return Shared(item.facts, WAITED, item.facts.wire_bytes, errors)
            if self._mono() >= wait_until:
                break
            # The holder's lease lapsed without facts: take it over.
        # The store failed or the wait ran out: fetch by ourselves, and share what we learn if
        # the store still answers.
        got = self._fetch(fetch, previous)
        if errors == 0:
            self._publish(store, req, got, None, failed)
        return Shared(got, FETCHED, got.revalidated_bytes, errors)

    def _fetch(self, fetch: Fetch, previous: SiteFacts | None) -> SiteFacts:
        # Facts past the retention are not revalidated: their validators may name old content.
        if previous is not None and self._wall() - previous.fetched_at > RETENTION_S:
            previous = None
        return fetch(previous)

    def _await(self, store: SharedStore, req: Request, wait_until: float) -> StoredItem | None:
        """Poll until the holder's facts appear, its lease lapses or the wait runs out."""
        started = self._mono()
        while True:
            now_mono = self._mono()
            left = wait_until - now_mono
            if left <= 0:
                return None
            delay = min(max(POLL_SHARE * (now_mono - started), POLL_MIN_S), POLL_MAX_S)
            self._sleep(min(delay, left))
            item = store.get(req.key)
            now = self._wall()
            if item is None:
                return None
            if _fresh(item.facts, req.window_s, now):
                return item
            if item.lease_until is None or item.lease_until < now:
                return item

    @contextmanager
    def _renewing(
        self, store: SharedStore, key: str, owner: str, failed: Callable[[StoreError], None]
    ) -> Iterator[None]:
        """Keep the lease alive while its holder fetches."""
        stop = threading.Event()

        def renew() -> None:
            while not stop.wait(LEASE_RENEW_S):
                try:
                    store.renew_lease(key, owner, self._wall() + LEASE_S)
                except StoreError as e:
                    failed(e)

        worker = threading.Thread(target=renew, name="lease-renewal", daemon=True)
        worker.start()
        try:
            yield
        finally:
            stop.set()
            worker.join(timeout=2.0)

    def _publish(
        self,
        store: SharedStore,
        req: Request,
        got: SiteFacts,
        owner: str | None,
        failed: Callable[[StoreError], None],
    ) -> None:
        data = site_facts.encode(got) if got.complete else b""
        try:
            stored = (
                got.complete
                and req.publishable(data)
                and store.put(req.key, data, got.fetched_at, got.fetched_at + RETENTION_S)
            )
            if not stored and owner is not None:
                # Let the waiters take over now rather than when the lease lapses.
                store.release_lease(req.key, owner)
        except StoreError as e:
            failed(e)
