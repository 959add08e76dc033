"""Audits of one site share one fetch (docs/contract.md §7): the stores and the driver.

Within their window an audit reuses the facts its process holds (`LocalStore`); while its process
fetches the site, its other audits wait for that one fetch. Otherwise one audit leads for the
process: where a table shares facts between containers, it drives the lease protocol
(`lease.Protocol`, pure) against that store, making the calls and the sleeps the protocol asks
for; without a table it fetches. The stores are an optimisation: a store that fails makes the
audit fetch by itself, with the same result.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Protocol

from sitemap_auditor.core import facts as site_facts
from sitemap_auditor.core.errors import StoreError as StoreError
from sitemap_auditor.core.facts import SiteFacts
from sitemap_auditor.sharing import lease
from sitemap_auditor.sharing.lease import Reason, Source, Unshareable
from sitemap_auditor.sharing.local import Local, local_choice

__all__ = [
    "DEFAULT_MAX_WAIT_S",
    "FETCHED",
    "LOCAL_MAX_WAIT_S",
    "RETENTION_S",
    "REUSED",
    "STANDBY_SUFFIX",
    "WAITED",
    "Fetch",
    "LocalStore",
    "Progress",
    "ShareRequest",
    "Shared",
    "SharedStore",
    "Sharing",
    "StoreError",
    "StoredItem",
    "scope_key",
    "site_of_key",
    "stamp_of",
]

# Facts are kept this long after their fetch so that a later audit can revalidate them with a
# 304 instead of downloading again; a site audited less often than weekly is simply refetched.
RETENTION_S = 7 * 86_400
# The in-process store: at most this many sites and this many bytes of encoded facts (a fact set
# is usually a few KB; the worst, 100 long candidate URLs and their issues, a few hundred KB).
LOCAL_MAX_SITES = 512
LOCAL_MAX_BYTES = 32 * 1024 * 1024
# Without a time budget (the command line), an audit waits at most this long for another
# container's fetch through the table.
DEFAULT_MAX_WAIT_S = 120.0
# Without a time budget, an audit waits for its own process's fetch of the site as long as that
# fetch can last (its holder's wait on the table, then a whole fetch): the holder is alive and
# started first, so its facts come no later than the waiter's own fetch would. Giving up sooner
# only puts a wait before a fetch of its own (a site that never answers: 120 s of waiting, then
# its own 120 s, against 120 s with sharing off).
LOCAL_MAX_WAIT_S = DEFAULT_MAX_WAIT_S + site_facts.MAX_FETCH_SECONDS

# The key of a site's standby slot (lease.standby): its key with this appended (a siteBase has no
# `|`; the facts kept out of an item take `|facts`).
STANDBY_SUFFIX = "|standby"

FETCHED, REUSED, WAITED = Source.FETCHED.value, Source.REUSED.value, Source.WAITED.value

# What a fetch has learnt so far, as facts (complete=False): shown once robots.txt has answered
# and after each candidate tried. Facts only grow (an outcome shown is final), so the holder sizes
# each as the store would keep it (`SharedStore.pack`) and tells the waiters as soon as the facts
# are too large or echo a credential, not when the fetch ends. Each look encodes and compresses
# what is known: a few ms for the largest facts a fetch makes (0.9 MB of JSON).
Progress = Callable[[SiteFacts], None]
# A fetch of the site: given the facts to revalidate (or None), and where to report progress.
Fetch = Callable[[SiteFacts | None, Progress], SiteFacts]


def _no_progress(partial: SiteFacts) -> None:
    """Progress nobody looks at: a fetch that no other audit waits for."""


@dataclass(frozen=True)
class StoredItem:
    """A site's shared item: what the protocol reads of it, and the facts it holds."""

    item: lease.Item
    facts: SiteFacts | None  # set when item.stamp is, unless kept out of the item (`load`)
    # Reads the facts kept out of the item, when they are (a store call: may raise StoreError);
    # None when the item holds them, or none.
    load: Callable[[], SiteFacts | None] | None = field(default=None, compare=False)

    def facts_now(self) -> SiteFacts | None:
        """The item's facts, read from the store if kept out of the item."""
        if self.facts is None and self.load is not None:
            return self.load()
        return self.facts


class SharedStore(Protocol):
    """A store shared by every container; every call is bounded in time and raises StoreError."""

    def get(self, key: str, consistent: bool) -> StoredItem | None:
        """The item of a site, None when it has none."""

    def take_lease(self, key: str, owner: str, request: lease.TakeLease) -> bool:
        """Write `owner`'s lease as `request` asks (recording `request.now` as when it was
        taken), where `lease.may_take` says the store may: the one lease-write rule."""

    def renew_lease(self, key: str, owner: str, until: float) -> None:
        """Extend this owner's lease to `until` and count one more renewal in it."""

    def pack(self, data: bytes, for_waiters: bool = False, headroom: int = 0) -> bytes | None:
        """The facts as the store keeps them; None when they are too large for it: for the site's
        item, which every audit may read, or (`for_waiters`) for an item of their own that only
        the waiters of their fetch read (lease.Stamp.awaited_only); with `headroom`, None too
        when they would be once that many bytes more were packed."""

    def put(self, key: str, packed: bytes, stamp: lease.Stamp, expires_at: float) -> None:
        """Publish a site's facts, replacing the item (and so any lease)."""

    def mark_unshareable(
        self, key: str, owner: str, at: float, lasting: bool, flight: str | None = None
    ) -> None:
        """End this owner's lease with the mark that its facts cannot be shared, naming `flight`
        (None: the owner's own; a waiter marking dead holders names the reason instead)."""


@dataclass(frozen=True)
class Shared:
    """The facts an audit got, how (fetched, reused, waited) and what sharing did on the way."""

    facts: SiteFacts
    source: str
    bytes_saved: int  # what the site did not have to send again thanks to sharing
    store_errors: int
    reason: str | None = None  # why it fetched (lease.Reason), when it did
    throttled: int = 0  # throttled store answers this audit rode out
    unshareable: str | None = None  # why its own fetch's facts could not go to the store
    # The length of the facts encoded, when this audit encoded them for the store (so the
    # in-process store need not encode them again to size them).
    encoded_bytes: int | None = field(default=None, compare=False)
    # How long it waited for another audit's fetch (in this process or another container).
    waited_s: float = field(default=0.0, compare=False)

    @property
    def refreshed_ahead(self) -> bool:
        """True when this audit refreshed facts ahead of their window's end."""
        return self.reason == Reason.REFRESH.value


@dataclass(frozen=True)
class ShareRequest:
    """One audit's part in sharing: its key, window, time budget and where facts may go."""

    key: str
    window_s: int
    budget_end: float | None  # time.monotonic() value; None for no time budget
    shared_store: SharedStore | None  # None: share within this process only
    publishable: Callable[[bytes], bool]  # False for facts that must not leave the process


def scope_key(site_url: str, private_networks: bool, credential: str | None, key: bytes) -> str:
    """The store key of a site's facts: its siteBase, the network policy and a keyed credential."""
    # A keyed hash: an unkeyed one of a password could be recovered by guessing.
    scope = "-"
    if credential is not None:
        scope = hmac.new(key, credential.encode("utf-8", "replace"), hashlib.sha256).hexdigest()
    return f"v{site_facts.FORMAT}|{'p' if private_networks else 'g'}|{scope}|{site_url}"


def site_of_key(key: str) -> str | None:
    """The siteBase a store key names (scope_key's last part; a key with a suffix, such as the
    standby's or an item of facts of its own, after the `|` that starts it), None for a key
    not of scope_key's form."""
    parts = key.split("|")
    return parts[3] if len(parts) >= 4 else None


def stamp_of(facts: SiteFacts | None, flight: str | None = None) -> lease.Stamp | None:
    """What the lease protocol needs to know of a set of facts."""
    if facts is None:
        return None
    return lease.Stamp(facts.fetched_at, facts.fetch_seconds, facts.transient, flight)


class _Flight:
    """One fetch of a site in progress in this process, which other threads wait for."""

    def __init__(self, started: float, budget_end: float | None) -> None:
        self.done = threading.Event()
        self.facts: SiteFacts | None = None
        # When its holder began and when the holder's own budget ends (monotonic; None without
        # one): whether its facts can come at all (lease.hedge_local).
        self.started = started
        self.budget_end = budget_end


class LocalStore:
    """Facts of recently fetched sites and the fetches in progress, bounded, for this process."""

    def __init__(self, max_sites: int = LOCAL_MAX_SITES, max_bytes: int = LOCAL_MAX_BYTES) -> None:
        self._facts: OrderedDict[str, tuple[SiteFacts, int]] = OrderedDict()
        self._flights: dict[str, _Flight] = {}
        self._checked: dict[str, float] = {}  # when a lead last found another audit refreshing
        self._bytes = 0
        self._max_sites = max_sites
        self._max_bytes = max_bytes
        self._lock = threading.Lock()

    def enter(
        self,
        key: str,
        window_s: int,
        now: float,
        draw: float,
        started: float,
        budget_end: float | None,
    ) -> tuple[Local, SiteFacts | None, _Flight | None]:
        """What an audit of the site does here, the facts held for it, and the flight it joins
        or leads (a flight it leads records when it began and its budget's end, monotonic)."""
        with self._lock:
            known = self._known(key, now)
            flight = self._flights.get(key)
            choice = local_choice(
                stamp_of(known), window_s, now, flight is not None, self._checked.get(key), draw
            )
            if choice is Local.LEAD:
                flight = self._flights[key] = _Flight(started, budget_end)
            return choice, known, flight if choice is not Local.REUSE else None

    def _known(self, key: str, now: float) -> SiteFacts | None:
        hit = self._facts.get(key)
        if hit is None:
            return None
        if now - hit[0].fetched_at > RETENTION_S:
            self._drop(key)
            return None
        self._facts.move_to_end(key)
        return hit[0]

    def get(self, key: str, now: float) -> SiteFacts | None:
        """The facts stored for a site, unless older than the retention."""
        with self._lock:
            return self._known(key, now)

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
        self._checked.pop(key, None)
        if old is not None:
            self._bytes -= old[1]

    def checked(self, key: str, now: float) -> None:
        """Note that a lead found another audit refreshing the site's facts."""
        with self._lock:
            if key in self._facts:
                self._checked[key] = now

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
            self._checked.clear()
            self._bytes = 0


class _LastRead:
    """The site's item an audit read last, and its facts once loaded (from the store, when they
    are kept out of the item)."""

    def __init__(
        self,
        failed: Callable[[StoreError], None],
        rng: random.Random,
        mono: Callable[[], float],
        sleep: Callable[[float], None],
        budget_end: float,
    ) -> None:
        self._failed, self._rng, self._mono, self._sleep = failed, rng, mono, sleep
        self._budget_end = budget_end  # on the monotonic clock
        self._item: StoredItem | None = None
        self._facts: SiteFacts | None = None

    def read(self, item: StoredItem | None) -> None:
        """The item just read (None: the site has none)."""
        self._item, self._facts = item, None

    def facts(self) -> SiteFacts | None:
        """Its facts. Facts handed only to their fetch's waiters, whose large item a crowd of
        them reads at once, are read again after a throttled answer, with backoff, within the
        audit's budget: those waiters may not have the time left to fetch by themselves."""
        if self._item is None:
            return self._facts
        held, self._item = self._item, None
        patient = held.item.stamp is not None and held.item.stamp.awaited_only
        attempt = 0
        while True:
            try:
                self._facts = held.facts_now()
                return self._facts
            except StoreError as e:
                self._failed(e)
                self._facts = None
                attempt += 1
                pause = lease.backoff_s(attempt, self._rng)
                if not (patient and e.throttled) or self._mono() + pause >= self._budget_end:
                    return None
                self._sleep(pause)

    def to_revalidate(self) -> SiteFacts | None:
        """Its facts for a fetch of the audit's own to revalidate with, but never facts handed
        only to their fetch's waiters: an item of up to MAX_AWAITED_BYTES, for each of a day's
        audits."""
        held = self._item
        if held is not None and held.item.stamp is not None and held.item.stamp.awaited_only:
            return None
        return self.facts()


class Sharing:
    """Hands each audit its site's facts: reused, waited for, or fetched (section 7)."""

    def __init__(
        self,
        local: LocalStore | None = None,
        wall: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        token: Callable[[], str] | None = None,
        spawn: Callable[[Callable[[], None]], Callable[[], None]] | None = None,
        wait: Callable[[threading.Event, float], bool] | None = None,
    ) -> None:
        self.local = local or LocalStore()
        self._wall = wall
        self._mono = monotonic
        self._sleep = sleep
        self._rng = rng or random.Random()
        # Each audit's lease carries a token of its own making, random: a write whose answer was
        # lost but which the table applied is then known, on the next read, as this audit's own.
        self._token = token or (lambda: uuid.uuid4().hex)
        # How the lease's renewal runs beside the fetch: a thread (given its work, it gives how to
        # wait for its end) and its pause between renewals (True once told to stop). A model in
        # virtual time gives its own.
        self._spawn = spawn or _thread
        self._wait = wait or (lambda stop, seconds: stop.wait(seconds))

    def obtain(
        self, req: ShareRequest, fetch: Fetch, on_error: Callable[[StoreError], None]
    ) -> Shared:
        """The site's facts for one audit, fetching them only when no other audit can share."""
        if req.window_s <= 0:
            return Shared(fetch(None, _no_progress), FETCHED, 0, 0)
        now = self._wall()
        draw = self._rng.random()  # this audit's one draw for refreshing ahead (lease.due)
        entered = self._mono()
        choice, known, flight = self.local.enter(
            req.key, req.window_s, now, draw, entered, req.budget_end
        )
        if choice is Local.REUSE:
            assert known is not None
            return Shared(known, REUSED, known.wire_bytes, 0)
        assert flight is not None
        if choice is Local.JOIN:
            return self._join(req, fetch, known, flight, entered)
        budget_end = req.budget_end
        if budget_end is None:
            budget_end = entered + DEFAULT_MAX_WAIT_S
        result: Shared | None = None
        try:
            result = self._lead(req, fetch, known, budget_end, draw, on_error)
            return result
        finally:
            # Waiters get facts only when complete (transient ones too: they waited for this very
            # fetch); an exception or a cut fetch hands them nothing, and each fetches by itself.
            usable = result.facts if result is not None and result.facts.complete else None
            if result is not None and usable is not None and usable is not known:
                size = result.encoded_bytes
                if size is None:
                    size = len(site_facts.encode(usable))
                self.local.put(req.key, usable, size)
            if result is not None and result.source == REUSED and known is not None:
                self.local.checked(req.key, self._wall())
            self.local.land(req.key, flight, usable)

    def _join(
        self,
        req: ShareRequest,
        fetch: Fetch,
        known: SiteFacts | None,
        flight: _Flight,
        joined: float,
    ) -> Shared:
        """Wait for this process's fetch of the site, and take its facts; or fetch by itself."""
        recorded = known.fetch_seconds if known is not None else None
        if lease.hedge_local(recorded, flight.started, flight.budget_end):
            # The holder's budget does not cover the site's fetch: its facts will be cut, and
            # given to nobody. Fetching now is what this audit would have done without sharing.
            got = self._fetch(fetch, known)
            return Shared(got, FETCHED, got.revalidated_bytes, 0, Reason.HEDGED.value)
        # Without a budget, as long as the holder's fetch can last; with one, no later than
        # leaves it the site's recorded fetch (the holder may still be waiting on the table).
        until = joined + LOCAL_MAX_WAIT_S
        if req.budget_end is not None:
            until = req.budget_end - (recorded or 0.0)
        landed = self._wait(flight.done, max(0.0, until - joined))
        waited = self._mono() - joined
        if flight.facts is not None:
            facts = flight.facts
            return Shared(facts, WAITED, facts.wire_bytes, 0, waited_s=waited)
        # The fetch this audit waited for gave nothing to share (or its budget ran out): each of
        # its waiters fetches now, side by side.
        why = Reason.UNSHAREABLE if landed else Reason.BUDGET
        got = self._fetch(fetch, known)
        return Shared(got, FETCHED, got.revalidated_bytes, 0, why.value, waited_s=waited)

    def _fetch(
        self, fetch: Fetch, previous: SiteFacts | None, progress: Progress = _no_progress
    ) -> SiteFacts:
        # Facts past the retention are not revalidated: their validators may name old content.
        if previous is not None and self._wall() - previous.fetched_at > RETENTION_S:
            previous = None
        return fetch(previous, progress)

    def _lead(
        self,
        req: ShareRequest,
        fetch: Fetch,
        known: SiteFacts | None,
        budget_end: float,
        draw: float,
        on_error: Callable[[StoreError], None],
    ) -> Shared:
        """Drive the lease protocol for this process's audits of the site."""
        store = req.shared_store
        if store is None:
            refresh = lease.usable(stamp_of(known), req.window_s, self._wall())
            got = self._fetch(fetch, known)
            why = Reason.REFRESH if refresh else Reason.HOLDER
            return Shared(got, FETCHED, got.revalidated_bytes, 0, why.value)
        errors = throttles = 0

        def failed(e: StoreError) -> None:
            nonlocal errors, throttles
            errors += 1
            # A wait that rides out throttling may meet hundreds: the first is logged, the rest
            # counted (store_throttles).
            throttles += e.throttled
            if not e.throttled or throttles == 1:
                on_error(e)

        owner = self._token()
        wall_budget_end = self._wall() + (budget_end - self._mono())
        machine = lease.Protocol(
            owner, req.window_s, wall_budget_end, stamp_of(known), self._rng, draw
        )
        last = _LastRead(failed, self._rng, self._mono, self._sleep, budget_end)

        own: SiteFacts | None = None
        unshareable: Unshareable | None = None
        packed: bytes | None = None
        encoded: int | None = None  # the length of `own` encoded, once it was
        action = machine.start()
        while True:
            seen: lease.Observation
            try:
                match action:
                    case lease.Read(consistent=consistent, standby=slot):
                        got_item = store.get(_key(req, slot), consistent)
                        if not slot:
                            last.read(got_item)
                        seen = lease.ReadDone(got_item.item if got_item is not None else None)
                    case lease.TakeLease(standby=slot):
                        took = store.take_lease(_key(req, slot), owner, action)
                        seen = lease.LeaseTaken() if took else lease.LeaseRefused()
                    case lease.Sleep(until=until):
                        self._sleep(max(0.0, until - self._wall()))
                        seen = lease.Slept()
                    case lease.FetchHolding(standby=slot):
                        started = self._wall()
                        taken_at = machine.taken_at
                        if taken_at is None:
                            taken_at = self._mono()
                        own, early, told = self._hold(
                            store,
                            req,
                            owner,
                            taken_at,
                            fetch,
                            _newer(known, last.facts()),
                            failed,
                            slot,
                        )
                        unshareable, packed, encoded = self._packing(store, req, own)
                        if early is not None and early.lasting:
                            unshareable, packed = early.why, None
                        # Else the facts shown mid-fetch came near the limit (the waiters were
                        # told, or are as soon as the mark is written): what the whole facts
                        # are decides the rest (published if they fit after all; else why not).
                        fetched = stamp_of(own) or lease.Stamp(started)
                        # Too large for the item, packed for the waiters' item instead.
                        for_waiters = unshareable is Unshareable.LARGE and packed is not None
                        seen = lease.Fetched(fetched, unshareable, told, for_waiters)
                    case lease.Publish(stamp=stamp):
                        assert own is not None and packed is not None
                        store.put(req.key, packed, stamp, own.fetched_at + RETENTION_S)
                        seen = lease.StoreAnswered()
                    case lease.MarkUnshareable(at=at, why=marked, over=None):
                        store.mark_unshareable(req.key, owner, at, marked.lasting)
                        seen = lease.StoreAnswered()
                    case lease.MarkUnshareable(at=at, why=marked, over=str(late)):
                        # A waiter ends a late holder's lease: the mark names why, not a flight.
                        store.mark_unshareable(req.key, late, at, marked.lasting, marked.value)
                        seen = lease.StoreAnswered()
                    case lease.FetchAlone(reason=reason):
                        waited = machine.waited_s(self._wall())  # its wait, not its own fetch
                        got = self._fetch(fetch, _newer(known, last.to_revalidate()))
                        return Shared(
                            got,
                            FETCHED,
                            got.revalidated_bytes,
                            errors,
                            reason.value,
                            machine.throttled,
                            waited_s=waited,
                        )
                    case lease.Finish(use=use, source=source, reason=reason):
                        if machine.standby_since is not None:
                            self._release_slot(store, req, owner, failed)
                        if use is lease.Use.STORED:
                            chosen = last.facts()
                            if chosen is None:
                                # Facts kept out of the item that could not be read: as a store
                                # that did not answer, the audit fetches by itself.
                                action = lease.FetchAlone(Reason.STORE_FAILED)
                                continue
                        else:
                            chosen = known if use is lease.Use.KNOWN else own
                        assert chosen is not None
                        saved = chosen.wire_bytes
                        if source is Source.FETCHED:
                            saved = chosen.revalidated_bytes
                        return Shared(
                            chosen,
                            source.value,
                            saved,
                            errors,
                            reason.value if reason else None,
                            machine.throttled,
                            unshareable.value if unshareable else None,
                            encoded if chosen is own else None,
                            machine.waited_s(self._wall()),
                        )
            except StoreError as e:
                failed(e)
                seen = lease.StoreFailed(e.throttled)
            wall, mono = self._wall(), self._mono()
            # The budget is the monotonic clock's: its end on the wall clock, which the machine
            # reasons in, is read again at each step, so a wall clock set back or on meanwhile
            # (NTP stepping it) neither stretches nor shortens the wait.
            machine.budget_end = wall + (budget_end - mono)
            action = machine.step(seen, wall, mono)

    def _hold(
        self,
        store: SharedStore,
        req: ShareRequest,
        owner: str,
        taken_at: float,
        fetch: Fetch,
        previous: SiteFacts | None,
        failed: Callable[[StoreError], None],
        standby: bool = False,
    ) -> tuple[SiteFacts, _Early | None, bool]:
        """Fetch as the lease's holder: the facts, why they proved (or may prove) unshareable
        mid-fetch, if they did, and whether the waiters were told then (the mark written). In the
        standby slot (`standby`), that slot is renewed, and the holder, not this audit, tells the
        waiters."""
        early: list[_Early] = []
        told: list[bool] = []  # the mark written, mid-fetch
        with self._renewing(store, _key(req, standby), owner, taken_at, failed) as keeper:

            def mark(why: _Early) -> None:
                store.mark_unshareable(req.key, owner, self._wall(), why.lasting)
                told.append(True)

            def progress(partial: SiteFacts) -> None:
                if early or standby:
                    return
                why = self._unpackable(store, req, partial)
                if why is None:
                    return
                # The facts will not be shareable, or may not be: the waiters are told now and
                # fetch by themselves, not when this fetch ends.
                early.append(why)
                try:
                    mark(why)
                except StoreError as e:
                    failed(e)
                    # Written by the renewing thread instead of its next renewal, until it is:
                    # the waiters are told within a renewal period, not at the fetch's end.
                    keeper.instead(lambda: mark(why))
                else:
                    keeper.stop.set()  # no lease left to renew

            try:
                own = self._fetch(fetch, previous, progress)
            except BaseException:
                keeper.stop.set()
                # A defect: the waiters fetch by themselves now, not when the lease lapses.
                if standby:
                    self._release_slot(store, req, owner, failed)
                elif not told:
                    with suppress(StoreError):
                        store.mark_unshareable(req.key, owner, self._wall(), False)
                raise
        if early:
            return own, early[0], bool(told)
        return own, None, False

    def _release_slot(
        self,
        store: SharedStore,
        req: ShareRequest,
        owner: str,
        failed: Callable[[StoreError], None],
    ) -> None:
        """A standby done (its facts published, or given up for the holder to mark): its slot is
        ended now, with a mark nobody heeds, not left to lapse, so that no waiter of this site
        (of this wait, or of the next) counts on a standby that no longer fetches."""
        try:
            store.mark_unshareable(_key(req, True), owner, self._wall(), False)
        except StoreError as e:
            failed(e)  # the slot lapses at its lease's end, as a dead standby's does

    def _unpackable(
        self, store: SharedStore, req: ShareRequest, partial: SiteFacts
    ) -> _Early | None:
        """Why facts that begin with this part cannot go to the store, if they cannot, or may
        not: within what the rest of the fetch may still add (facts.UNSHOWN_BYTES) of the
        limit, they are too large as far as the waiters can count on, though they may fit at
        the end (a mark that does not last)."""
        data = site_facts.encode(partial)
        if not req.publishable(data):
            return _Early(Unshareable.CREDENTIAL, True)
        if store.pack(data, headroom=site_facts.UNSHOWN_BYTES) is None:
            return _Early(Unshareable.LARGE, store.pack(data) is None)
        return None

    def _packing(
        self, store: SharedStore, req: ShareRequest, own: SiteFacts
    ) -> tuple[Unshareable | None, bytes | None, int | None]:
        """Why the fetched facts cannot go to the store, or what goes, and their encoded length."""
        if not own.complete:
            return Unshareable.CUT, None, None
        data = site_facts.encode(own)
        if not req.publishable(data):
            return Unshareable.CREDENTIAL, None, len(data)
        packed = store.pack(data)
        if packed is None:
            # Kept for no newcomer; for this fetch's waiters, if an item of their own holds them.
            return Unshareable.LARGE, store.pack(data, for_waiters=True), len(data)
        return None, packed, len(data)

    @contextmanager
    def _renewing(
        self,
        store: SharedStore,
        key: str,
        owner: str,
        taken_at: float,
        failed: Callable[[StoreError], None],
    ) -> Iterator[_Keeper]:
        """Keep the lease alive while its holder fetches (until the keeper's `stop` is set), on
        the schedule its waiters judge it by (liveness.renewal_due_s, from when it was taken, on
        the monotonic clock): each renewal moves the lease's end on and counts one more. A write
        given to the keeper (`instead`) is made in place of the next renewal, and tried again
        until it is made; the lease is then left alone."""
        keeper = _Keeper(threading.Event())
        stop = keeper.stop
        rng = random.Random(self._rng.random())

        def renew() -> None:
            in_a_row = 0
            renewed = 0.0  # the lease's age at its last renewal (0: taken)
            while True:
                if in_a_row:
                    pause = lease.renewal_s(in_a_row, rng)
                else:
                    pause = max(0.0, taken_at + lease.renewal_due_s(renewed) - self._mono())
                if self._wait(stop, pause):
                    return
                at = self._mono()
                write = keeper.pending[0] if keeper.pending else None
                try:
                    if write is not None:
                        write()
                        return
                    store.renew_lease(key, owner, self._wall() + lease.LEASE_S)
                    in_a_row = 0
                    renewed = at - taken_at
                except StoreError as e:
                    # Throttled or unanswered, it is tried again soon (lease.renewal_s): a
                    # count that stood still past the grace would make waiters take over.
                    failed(e)
                    in_a_row += 1

        join = self._spawn(renew)
        try:
            yield keeper
        finally:
            stop.set()
            join()


@dataclass(frozen=True)
class _Keeper:
    """What the holder's fetch tells the thread that renews its lease: stop, or make a write
    (the unshareable mark) in place of the next renewal."""

    stop: threading.Event
    pending: list[Callable[[], None]] = field(default_factory=list)

    def instead(self, write: Callable[[], None]) -> None:
        self.pending.append(write)


@dataclass(frozen=True)
class _Early:
    """Why a holder's facts proved unshareable mid-fetch, and whether a later fetch's would
    (lasting): facts found only near the limit may fit at the end, and at the next fetch."""

    why: Unshareable
    lasting: bool


def _thread(work: Callable[[], None]) -> Callable[[], None]:
    """Run work in a thread of its own; give how to wait (briefly) for its end."""
    worker = threading.Thread(target=work, name="lease-renewal", daemon=True)
    worker.start()
    return lambda: worker.join(timeout=2.0)


def _key(req: ShareRequest, standby: bool) -> str:
    """The store key of the site's item, or of its standby slot (an item of its own, which only
    ever holds a lease)."""
    return req.key + STANDBY_SUFFIX if standby else req.key


def _newer(a: SiteFacts | None, b: SiteFacts | None) -> SiteFacts | None:
    if a is None or b is None:
        return a or b
    return a if a.fetched_at >= b.fetched_at else b
