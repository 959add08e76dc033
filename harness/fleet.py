"""A fleet of the function's containers in virtual time, driving the project's own lease protocol.

Discrete events, no sockets, no sleeps: every audit asks `sitemap_auditor.sharing.lease` what to do,
exactly as `sitemap_auditor.sharing.driver` does, and this module plays the parts around it: the
containers (one invocation at a time each, each with its own cache of facts), a DynamoDB item
per site with per-item token buckets (or, optionally, partitions whose limits the items hashed to
them share), call latencies, eventually consistent reads that lag, and throttling answered as
DynamoDB answers it; and the sites, whose fetch takes a given time and may
answer a transient error, or give facts that cannot be shared. Used by tests/unit (small fleets,
exact counts) and by bench/scale.py (the fleet at the platform's scale, with costs).
"""

from __future__ import annotations

import dataclasses
import hashlib
import heapq
import itertools
import math
import random
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from sitemap_auditor.sharing import lease
from sitemap_auditor.sharing.lease import Local, Reason, Source, Unshareable

# DynamoDB's limits and prices for one item (one partition key): read and write units a second,
# and what a call costs in them. The same limits hold for one partition of the table (adaptive
# capacity aside): with a partition model (`SimDynamo(partitions=N)`), the items whose keys hash
# to one partition share them.
READ_UNITS_PER_S = 3000.0
WRITE_UNITS_PER_S = 1000.0
READ_UNIT_BYTES = 4096  # a consistent read: 1 unit per 4 KB; eventually consistent: half
WRITE_UNIT_BYTES = 1024  # a write: 1 unit per KB; a conditional write that fails: 1 unit
# Call latencies inside one region, as seen from Lambda (median, and a log-normal spread).
READ_LATENCY_S = 0.004
WRITE_LATENCY_S = 0.007
LATENCY_SIGMA = 0.5
# How far behind an eventually consistent read may be (DynamoDB: "usually within a second").
REPLICA_LAG_S = 0.05
# botocore's standard retry mode: a throttled attempt is tried once more (2 attempts in all,
# dynamostore.MAX_ATTEMPTS) after a random part of a second.
SDK_ATTEMPTS = 2
SDK_BACKOFF_S = 1.0
# Facts whose item would be over 4 KB are kept in an item of their own (dynamostore
# INLINE_FACTS_BYTES): the site's item, which leases and polls touch, is then this size.
INLINE_ITEM_BYTES = 4096
REFERENCE_ITEM_BYTES = 300
# What an audit costs besides fetching: the rules and the Response.
AUDIT_CPU_S = 0.02
START = 1_800_000_000.0  # virtual wall clock at the start of a run


class Machine(Protocol):
    """What drives an audit's store calls: lease.Protocol, or a model of an older protocol."""

    throttled: int

    def start(self) -> lease.Action: ...

    def step(self, seen: lease.Observation, now: float) -> lease.Action: ...


MachineFactory = Callable[
    [str, float, float, lease.Stamp | None, random.Random, float | None], Machine
]
LocalChoice = Callable[[lease.Stamp | None, float, float, bool, float | None, float], Local]


@dataclass
class SiteModel:
    """How a simulated site answers a fetch that starts at a given time."""

    fetch_s: Callable[[random.Random], float] = lambda rng: 0.8
    facts_bytes: int = 1500  # the item's size with its facts
    unshareable: Unshareable | None = None  # its facts can never be shared (too large, ...)
    transient: Callable[[float], bool] = lambda t: False  # the fetch starting then gets a 503


@dataclass
class Record:
    """One audit, as it ended."""

    site: str
    arrived: float
    started: float
    ended: float
    source: str
    reason: str | None
    complete: bool
    facts_flight: int | None  # which site fetch gave the facts it used
    transient: bool
    throttled: int
    lost: bool = False  # its container was killed


@dataclass
class SiteFetch:
    """One fetch of a site by an audit."""

    id: int
    site: str
    started: float
    ended: float | None
    reason: str
    transient: bool
    complete: bool = True
    throttle_caused: bool = False


@dataclass
class Bucket:
    """A per-item token bucket (one second of capacity, refilled continuously)."""

    rate: float
    level: float
    at: float

    def take(self, units: float, now: float) -> bool:
        self.level = min(self.rate, self.level + (now - self.at) * self.rate)
        self.at = now
        if self.level >= units:
            self.level -= units
            return True
        return False


@dataclass
class StoredState:
    item: lease.Item
    size: int
    facts_flight: int | None = None
    blob: int = 0  # the size of the facts' own item, when kept out of this one


class SimDynamo:
    """One DynamoDB table of site items, as the protocol sees it, with costs and throttling.

    Throughput is limited per item by default (each partition key its own token buckets). With
    `partitions`, the table has that many partitions; each item's partition key is hashed to one
    of them, and the limits are the partition's, shared by every item on it (a site's item and
    its facts' own item are two keys, each hashed).
    """

    def __init__(self, rng: random.Random, partitions: int | None = None) -> None:
        if partitions is not None and partitions < 1:
            raise ValueError("a table has at least one partition")
        self.rng = rng
        self.partitions = partitions
        self.history: dict[str, list[tuple[float, StoredState]]] = defaultdict(list)
        self.reads: dict[str, Bucket] = {}
        self.writes: dict[str, Bucket] = {}
        self.read_units = 0.0
        self.write_units = 0.0
        self.calls: dict[str, int] = defaultdict(int)
        self.throttled_calls = 0
        self.failed_conditional_writes = 0
        # throttled calls by the bucket that refused them (an item's key, or a partition's name)
        self.throttled_by: dict[str, int] = defaultdict(int)
        # "read" / "write" -> the most units one bucket admitted within one second
        self.peak_units: dict[str, float] = defaultdict(float)
        self._this_second: dict[tuple[str, str], tuple[int, float]] = {}

    def partition(self, key: str) -> str:
        """The name of the token buckets an item's key draws on: its own, or its partition's."""
        if self.partitions is None:
            return key
        # A stable hash, as DynamoDB's own of the partition key (Python's hash() is salted).
        digest = hashlib.md5(key.encode("utf-8"), usedforsecurity=False).digest()
        return f"partition {int.from_bytes(digest[:8], 'big') % self.partitions}"

    def latency(self, median: float) -> float:
        return median * math.exp(self.rng.gauss(0.0, LATENCY_SIGMA))

    def state(self, key: str, at: float | None = None) -> StoredState | None:
        versions = self.history.get(key)
        if not versions:
            return None
        if at is None:
            return versions[-1][1]
        for t, s in reversed(versions):
            if t <= at:
                return s
        return None

    def _write(self, key: str, now: float, state: StoredState) -> None:
        versions = self.history[key]
        versions.append((now, state))
        if len(versions) > 8:
            del versions[:-8]

    def _bucket(self, table: dict[str, Bucket], key: str, rate: float, now: float) -> Bucket:
        b = table.get(key)
        if b is None:
            b = table[key] = Bucket(rate, rate, now)
        return b

    def _admit(self, kind: str, key: str, units: float, now: float) -> bool:
        self.calls[kind] += 1
        reads = kind == "read"
        table = self.reads if reads else self.writes
        rate = READ_UNITS_PER_S if reads else WRITE_UNITS_PER_S
        bucket = self.partition(key)
        if not self._bucket(table, bucket, rate, now).take(units, now):
            self.throttled_calls += 1
            self.throttled_by[bucket] += 1
            return False
        if reads:
            self.read_units += units
        else:
            self.write_units += units
        # The busiest bucket's units in one whole second of the clock: how near its limit it ran.
        second = math.floor(now)
        at, used = self._this_second.get((kind, bucket), (second, 0.0))
        used = used + units if at == second else units
        self._this_second[kind, bucket] = (second, used)
        if used > self.peak_units[kind]:
            self.peak_units[kind] = used
        return True

    def _size(self, key: str) -> int:
        s = self.state(key)
        return s.size if s is not None else 200

    def read(self, key: str, consistent: bool, now: float) -> tuple[bool, StoredState | None]:
        """(admitted, the state read)."""
        units = math.ceil(self._size(key) / READ_UNIT_BYTES) * (1.0 if consistent else 0.5)
        if not self._admit("read", key, units, now):
            return False, None
        at = None if consistent else now - self.rng.uniform(0.0, REPLICA_LAG_S)
        return True, self.state(key, at)

    def take_lease(self, key: str, owner: str, request: lease.TakeLease, at: float) -> bool | None:
        """Write `owner`'s lease as `request` asks, at `at` (true time), where `lease.may_take`
        says: True taken, False refused, None throttled."""
        s = self.state(key)
        refused = not lease.may_take(s.item if s is not None else None, owner, request)
        if refused:
            if not self._admit("write", key, 1.0, at):
                return None
            self.failed_conditional_writes += 1
            return False
        size = s.size if s is not None else 200
        if not self._admit("write", key, math.ceil(size / WRITE_UNIT_BYTES), at):
            return None
        base = s.item if s is not None else lease.Item()
        item = lease.Item(
            base.stamp,
            owner,
            request.until,
            base.unshareable_flight,
            base.unshareable_at,
            base.unshareable_lasting,
            lease_at=request.now,
            lease_renewals=0,
        )
        state = StoredState(item, size, s.facts_flight if s else None, s.blob if s else 0)
        self._write(key, at, state)
        return True

    def renew(self, key: str, owner: str, until: float, at: float) -> bool:
        """False when throttled."""
        s = self.state(key)
        if not self._admit("write", key, math.ceil(self._size(key) / WRITE_UNIT_BYTES), at):
            return False
        if s is not None and s.item.lease_owner == owner:
            count = s.item.lease_renewals
            item = dataclasses.replace(s.item, lease_until=until, lease_renewals=(count or 0) + 1)
            self._write(key, at, StoredState(item, s.size, s.facts_flight, s.blob))
        return True

    def put(self, key: str, stamp: lease.Stamp, size: int, flight: int, at: float) -> bool:
        """False when throttled."""
        blob = 0
        if size > INLINE_ITEM_BYTES:
            # The facts' own item first, then the site's item with the reference.
            if not self._admit("write", key + "|facts", math.ceil(size / WRITE_UNIT_BYTES), at):
                return False
            blob, size = size, REFERENCE_ITEM_BYTES
        if not self._admit("write", key, math.ceil(size / WRITE_UNIT_BYTES), at):
            return False
        item = lease.Item(stamp=stamp)
        if stamp.awaited_only:  # for the fetch's waiters; newcomers read the lasting mark
            item = lease.Item(stamp, None, None, stamp.flight, stamp.fetched_at, True)
        self._write(key, at, StoredState(item, size, flight, blob))
        return True

    def read_blob(self, key: str, size: int, at: float) -> bool:
        """Read facts kept out of the site's item (eventually consistent); False when throttled."""
        units = math.ceil(size / READ_UNIT_BYTES) * 0.5
        return self._admit("read", key + "|facts", units, at)

    def mark(
        self, key: str, owner: str, when: float, lasting: bool, at: float, flight: str | None = None
    ) -> bool:
        """False when throttled. The mark names `flight` (None: the owner's)."""
        s = self.state(key)
        if not self._admit("write", key, math.ceil(self._size(key) / WRITE_UNIT_BYTES), at):
            return False
        if s is not None and s.item.lease_owner == owner:
            i = s.item
            item = lease.Item(i.stamp, None, None, flight or owner, when, lasting)
            self._write(key, at, StoredState(item, s.size, s.facts_flight, s.blob))
        return True


@dataclass
class Container:
    """One execution environment: one invocation at a time, and its own cache of facts."""

    id: int
    busy: bool = False
    dead: bool = False
    # site -> (stamp, the fetch that gave the facts, complete)
    cache: dict[str, tuple[lease.Stamp, int]] = field(default_factory=dict)
    checked: dict[str, float] = field(default_factory=dict)


@dataclass
class Fleet:
    """The containers, the table and the sites of one simulated run."""

    containers: int
    window_s: float = 60.0
    budget_s: float = 147.0  # the function's 150 s less the margin kept for the response
    sites: dict[str, SiteModel] = field(default_factory=dict)
    machine: MachineFactory = lease.Protocol
    local: LocalChoice = lease.local_choice
    sharing: bool = True
    # the first site fetch that starts is cut off, its container killed, this long after start
    kill_first_holder_after: float | None = None
    seed: int = 1
    partitions: int | None = None  # the table's partitions; None: limits per item only
    # how a site not named in `sites` answers (a model per site name)
    default_site: Callable[[str], SiteModel] = lambda name: SiteModel()

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.store = SimDynamo(random.Random(self.seed + 1), self.partitions)
        self.pool = [Container(i) for i in range(self.containers)]
        self.idle = list(range(self.containers))
        self.queue: list[tuple[float, str]] = []
        self.events: list[tuple[float, int, Callable[[], None]]] = []
        self.seq = itertools.count()
        self.now = START
        self.records: list[Record] = []
        self.fetches: list[SiteFetch] = []
        self.killed = False
        self.waiting: dict[str, set[int]] = defaultdict(set)  # site -> audits sleeping on a lease
        self.max_waiting = 0
        self.audit_ids = itertools.count()
        self.probes: list[Callable[[Fleet], None]] = []

    # --- the event loop -------------------------------------------------------------------------

    def at(self, when: float, fn: Callable[[], None]) -> None:
        heapq.heappush(self.events, (when, next(self.seq), fn))

    def run(self, arrivals: Iterable[tuple[float, str]], until: float | None = None) -> Fleet:
        """Play the arrivals (seconds from the start, site) to the end; return self."""
        feed = iter(arrivals)

        def next_arrival() -> None:
            for offset, site in feed:

                def arrive(name: str = site) -> None:
                    self._arrive(name)

                self.at(START + offset, arrive)
                # Arrivals are fed one at a time, so that a day of them never sits in the heap.
                self.at(START + offset, next_arrival)
                return

        next_arrival()
        while self.events:
            when, _, fn = heapq.heappop(self.events)
            if until is not None and when > START + until:
                break
            self.now = when
            fn()
        return self

    def every(self, period: float, fn: Callable[[Fleet], None], end: float) -> None:
        """Call fn(fleet) every period seconds of virtual time until end."""

        def tick(t: float) -> None:
            fn(self)
            if t + period <= START + end:
                self.at(t + period, lambda: tick(t + period))

        self.at(START + period, lambda: tick(START + period))

    # --- containers -----------------------------------------------------------------------------

    def _arrive(self, site: str) -> None:
        if not self.idle:
            self.queue.append((self.now, site))
            return
        c = self.pool[self.idle.pop(self.rng.randrange(len(self.idle)))]
        self._start(c, site, self.now)

    def _free(self, c: Container) -> None:
        c.busy = False
        if c.dead:
            return
        if self.queue:
            arrived, site = self.queue.pop(0)
            self._start(c, site, arrived)
        else:
            self.idle.append(c.id)

    def _start(self, c: Container, site: str, arrived: float) -> None:
        c.busy = True
        Audit(self, c, site, arrived, next(self.audit_ids)).begin()

    def site(self, name: str) -> SiteModel:
        model = self.sites.get(name)
        if model is None:
            model = self.sites[name] = self.default_site(name)
        return model


class Audit:
    """One invocation: the local choice, then the lease protocol's actions, played out."""

    def __init__(self, fleet: Fleet, c: Container, site: str, arrived: float, id_: int) -> None:
        self.f = fleet
        self.c = c
        self.site = site
        self.arrived = arrived
        self.id = id_
        self.started = fleet.now
        self.budget_end = fleet.now + fleet.budget_s
        self.owner = f"{c.id}-{id_}"
        self.machine: Machine | None = None
        self.known: tuple[lease.Stamp, int] | None = None
        self.stored_flight: int | None = None
        self.stored_stamp: lease.Stamp | None = None
        self.stored_blob = 0  # the size of the facts' own item, for facts kept out of the item
        self.fetch: SiteFetch | None = None
        self.renewals_stop = False
        self.unshareable: Unshareable | None = None

    def begin(self) -> None:
        f = self.f
        if not f.sharing:
            self._fetch_alone(Reason.HOLDER, None)
            return
        known = self.c.cache.get(self.site)
        stamp = known[0] if known else None
        draw = f.rng.random()
        choice = f.local(stamp, f.window_s, f.now, False, self.c.checked.get(self.site), draw)
        if choice is Local.REUSE:
            assert known is not None
            self._finish(Source.REUSED, None, known[1], stamp, AUDIT_CPU_S)
            return
        self.known = known
        self.machine = f.machine(self.owner, f.window_s, self.budget_end, stamp, f.rng, draw)
        self._do(self.machine.start())

    # --- playing the machine's actions ----------------------------------------------------------

    def _observe(self, seen: lease.Observation, delay: float = 0.0) -> None:
        def go() -> None:
            if self.c.dead:
                return
            self.f.waiting[self.site].discard(self.id)
            assert self.machine is not None
            self._do(self.machine.step(seen, self.f.now))

        self.f.at(self.f.now + delay, go)

    def _sdk(self, attempt: Callable[[float], Any], latency: float) -> None:
        """One store call through botocore: up to SDK_ATTEMPTS attempts; observe the outcome."""
        f = self.f
        t = f.now
        for n in range(SDK_ATTEMPTS):
            t += f.store.latency(latency)
            answer = attempt(t)
            if answer is not None:
                self._observe(answer, t - f.now)
                return
            if n + 1 < SDK_ATTEMPTS:
                t += f.rng.uniform(0.0, SDK_BACKOFF_S)
        self._observe(lease.StoreFailed(throttled=True), t - f.now)

    def _do(self, action: lease.Action) -> None:
        f = self.f
        store = f.store
        key = self.site
        if isinstance(action, lease.Read) and action.standby:
            self._observe(lease.ReadDone(None), 0.0)  # no standby slot in this model: empty
        elif isinstance(action, lease.Read):

            def read(t: float) -> lease.Observation | None:
                ok, s = store.read(key, action.consistent, t)
                if not ok:
                    return None
                self.stored_flight = s.facts_flight if s else None
                self.stored_stamp = s.item.stamp if s else None
                self.stored_blob = s.blob if s else 0
                return lease.ReadDone(s.item if s else None)

            self._sdk(read, READ_LATENCY_S)
        elif isinstance(action, lease.TakeLease) and action.standby:
            # This model has no standby slot (harness/realfleet.py runs the driver, which has):
            # the slot is always another's, and the waiter waits on.
            self._observe(lease.LeaseRefused(), 0.0)
        elif isinstance(action, lease.TakeLease):

            def take(t: float) -> lease.Observation | None:
                got = store.take_lease(key, self.owner, action, t)
                if got is None:
                    return None
                return lease.LeaseTaken() if got else lease.LeaseRefused()

            self._sdk(take, WRITE_LATENCY_S)
        elif isinstance(action, lease.Sleep):
            f.waiting[key].add(self.id)
            f.max_waiting = max(f.max_waiting, len(f.waiting[key]))
            self._observe(lease.Slept(), max(0.0, action.until - f.now))
        elif isinstance(action, lease.FetchHolding):
            reason = Reason.REFRESH if action.refresh else Reason.HOLDER
            self._site_fetch(reason, holding=True)
        elif isinstance(action, lease.Publish):
            size = f.site(key).facts_bytes
            assert self.fetch is not None
            flight = self.fetch.id

            def put(t: float) -> lease.Observation | None:
                if not store.put(key, action.stamp, size, flight, t):
                    return None
                return lease.StoreAnswered()

            self._sdk(put, WRITE_LATENCY_S)
        elif isinstance(action, lease.MarkUnshareable):

            def mark(t: float) -> lease.Observation | None:
                over = action.over
                flight = None if over is None else action.why.value
                if not store.mark(
                    key, over or self.owner, action.at, action.why.lasting, t, flight
                ):
                    return None
                return lease.StoreAnswered()

            self._sdk(mark, WRITE_LATENCY_S)
        elif isinstance(action, lease.FetchAlone):
            self._fetch_alone(action.reason, self.machine)
        else:
            assert isinstance(action, lease.Finish)
            self._finish_with(action)

    def _finish_with(self, action: lease.Finish) -> None:
        if action.use is lease.Use.KNOWN:
            assert self.known is not None
            stamp, flight = self.known
            self._finish(action.source, None, flight, stamp, AUDIT_CPU_S)
        elif action.use is lease.Use.STORED:
            cpu = AUDIT_CPU_S
            if self.stored_blob:
                # The facts kept out of the item are read now, as the driver does.
                f = self.f
                latency = f.store.latency(READ_LATENCY_S)
                if not f.store.read_blob(self.site, self.stored_blob, f.now + latency):
                    self._fetch_alone(Reason.STORE_FAILED, self.machine)
                    return
                cpu += latency
            self._finish(action.source, None, self.stored_flight, self.stored_stamp, cpu)
        else:
            assert self.fetch is not None
            reason = action.reason.value if action.reason else None
            self._finish(
                Source.FETCHED, reason, self.fetch.id, self._own_stamp(), AUDIT_CPU_S, self.fetch
            )

    def _own_stamp(self) -> lease.Stamp:
        assert self.fetch is not None and self.fetch.ended is not None
        return lease.Stamp(
            self.fetch.ended,
            self.fetch.ended - self.fetch.started,
            self.fetch.transient,
            self.owner,
        )

    # --- fetching the site ----------------------------------------------------------------------

    def _site_fetch(self, reason: Reason, holding: bool) -> None:
        f = self.f
        model = f.site(self.site)
        took = model.fetch_s(f.rng)
        left = max(0.0, self.budget_end - f.now)
        fetch = SiteFetch(
            len(f.fetches), self.site, f.now, None, reason.value, model.transient(f.now)
        )
        # The audit's own budget cuts a fetch longer than what is left of it.
        fetch.complete = took <= left
        if reason is Reason.STORE_FAILED and self.machine is not None:
            fetch.throttle_caused = self.machine.throttled > 0
        f.fetches.append(fetch)
        self.fetch = fetch
        if holding and f.kill_first_holder_after is not None and not f.killed:
            f.killed = True
            f.at(f.now + f.kill_first_holder_after, self._die)
        if holding:
            # Renewals keep to the schedule waiters judge the holder by, from when it took the
            # lease (the sole `fetch.started` for a machine that does not say).
            taken = getattr(self.machine, "taken_at", None)
            self._renew_later(0, f.now if taken is None else taken, 0.0)

        def end() -> None:
            if self.c.dead:
                return
            fetch.ended = f.now
            self.renewals_stop = True
            if holding:
                unshareable = model.unshareable if fetch.complete else Unshareable.CUT
                self.unshareable = unshareable
                self._observe(lease.Fetched(self._own_stamp(), unshareable))
            else:
                stamp = self._own_stamp()
                self._finish(Source.FETCHED, reason.value, fetch.id, stamp, AUDIT_CPU_S, fetch)

        f.at(f.now + min(took, left), end)

    def _die(self) -> None:
        self.c.dead = True
        self.renewals_stop = True
        lost = Record(
            self.site, self.arrived, self.started, self.f.now, "lost", None, False, None, False, 0
        )
        lost.lost = True
        self.f.records.append(lost)

    def _renew_later(self, in_a_row: int, taken: float, renewed: float) -> None:
        f = self.f
        if in_a_row:
            delay = lease.renewal_s(in_a_row, f.rng)
        else:
            delay = max(0.0, taken + lease.renewal_due_s(renewed) - f.now)

        def renew() -> None:
            if self.renewals_stop or self.c.dead:
                return
            at = f.now
            t = f.now + f.store.latency(WRITE_LATENCY_S)
            ok = f.store.renew(self.site, self.owner, at + lease.LEASE_S, t)
            self._renew_later(0 if ok else in_a_row + 1, taken, at - taken if ok else renewed)

        f.at(f.now + delay, renew)

    def _fetch_alone(self, reason: Reason, machine: Machine | None) -> None:
        self._site_fetch(reason, holding=False)

    def _finish(
        self,
        source: Source,
        reason: str | None,
        flight: int | None,
        stamp: lease.Stamp | None,
        cpu: float,
        own: SiteFetch | None = None,
    ) -> None:
        f = self.f
        complete = own.complete if own is not None else True
        if own is None and flight is not None:
            complete = f.fetches[flight].complete
        transient = bool(stamp and stamp.transient)
        if stamp is not None and complete and f.sharing:
            cached = self.c.cache.get(self.site)
            if cached is None or cached[0].fetched_at <= stamp.fetched_at:
                self.c.cache[self.site] = (stamp, flight if flight is not None else -1)
        if source is Source.REUSED and self.machine is not None and self.known is not None:
            self.c.checked[self.site] = f.now
        throttled = self.machine.throttled if self.machine is not None else 0
        f.records.append(
            Record(
                self.site,
                self.arrived,
                self.started,
                f.now + cpu,
                source.value,
                reason,
                complete,
                flight,
                transient,
                throttled,
            )
        )
        f.at(f.now + cpu, lambda: f._free(self.c))
