"""A fleet of the function's containers in virtual time, each audit run by the REAL sharing driver.

The one fleet simulator of the project: it plays only what is
around `sitemap_auditor.sharing.driver.Sharing`: each audit is one call of `Sharing.obtain` in a
thread
of its own, with the driver's clock, sleep, renewal thread and lease token injected, against
`SimTable`, the `SharedStore` interface over fleet.py's simulated DynamoDB (per-item token
buckets, or partitions shared by the items hashed to them; latencies, lagging reads, throttling,
botocore's two attempts, and writes whose answer is lost after the read timeout though the table
applied them). Each container's wall clock may be off the true time by an offset of its own
(`clock_skew_s`): its driver reads that clock, its facts carry it, and its store judges the items
it reads on it, as `dynamostore.read_item` does. The threads take turns: exactly
one runs at any moment and virtual time moves only when every one of them waits, so a run is
deterministic for its seed. Containers run one invocation at a time and keep their process store
across invocations; at most `containers` run at once (Lambda's concurrency), the others queue.
"""

from __future__ import annotations

import heapq
import itertools
import math
import random
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from harness.simdynamo import (
    HEAVY,
    READ_LATENCY_S,
    SDK_ATTEMPTS,
    SDK_BACKOFF_S,
    START,
    WRITE_LATENCY_S,
    SimDynamo,
    StoredState,
)
from sitemap_auditor.core import facts as site_facts
from sitemap_auditor.core.errors import StoreError
from sitemap_auditor.core.issues import Kind, issue
from sitemap_auditor.sharing import dynamostore, lease
from sitemap_auditor.sharing.driver import (
    FETCHED,
    LocalStore,
    Progress,
    Shared,
    ShareRequest,
    Sharing,
    StoredItem,
)

# A lost answer is known this late: a lease write's, and any other call's (as dynamostore's).
LEASE_WRITE_READ_TIMEOUT_S = dynamostore.LEASE_WRITE_READ_TIMEOUT_S
READ_TIMEOUT_S = dynamostore.READ_TIMEOUT_S
MAX_SHARED_BYTES = dynamostore.MAX_ITEM_BYTES
MAX_AWAITED_BYTES = dynamostore.MAX_AWAITED_BYTES
AUDIT_CPU_S = 0.02


class Abandoned(BaseException):
    """Raised in a thread whose container died, or at the end of a run: unwind, do nothing."""


@dataclass
class _Task:
    go: threading.Event = field(default_factory=threading.Event)
    dead: Callable[[], bool] = lambda: False


class VirtualTime:
    """Threads taking turns in virtual time: one runs; the clock moves when all of them wait."""

    def __init__(self) -> None:
        self.now = START
        self._heap: list[tuple[float, int, _Task | Callable[[], None]]] = []
        self._seq = itertools.count()
        self._yielded = threading.Event()
        self._local = threading.local()
        self.closed = False
        self._tasks: list[_Task] = []

    def wall(self) -> float:
        return self.now

    def mono(self) -> float:
        return self.now - START + 1000.0

    def _me(self) -> _Task:
        task: _Task | None = getattr(self._local, "task", None)
        assert task is not None, "only a task of this clock may wait on it"
        return task

    def _block(self, until: float) -> None:
        task = self._me()
        if self.closed or task.dead():
            raise Abandoned
        task.go.clear()
        heapq.heappush(self._heap, (max(until, self.now), next(self._seq), task))
        self._yielded.set()
        task.go.wait()
        if self.closed or task.dead():
            raise Abandoned

    def sleep(self, seconds: float) -> None:
        self._block(self.now + max(0.0, seconds))

    def wait(self, stop: threading.Event, seconds: float) -> bool:
        """Event.wait in virtual time: True once stop is set (looked at when the pause ends)."""
        if stop.is_set():
            return True
        self.sleep(seconds)
        return stop.is_set()

    def at(self, when: float, fn: Callable[[], None]) -> None:
        """Call fn in the scheduler at that time (arrivals, deaths)."""
        heapq.heappush(self._heap, (when, next(self._seq), fn))

    def start(self, work: Callable[[], None], dead: Callable[[], bool] = lambda: False) -> None:
        """Run work as a task of its own, from now."""
        task = _Task(dead=dead)
        self._tasks.append(task)

        def body() -> None:
            self._local.task = task
            task.go.wait()
            try:
                if not (self.closed or task.dead()):
                    work()
            except Abandoned:
                pass
            finally:
                self._tasks.remove(task)
                self._yielded.set()

        threading.Thread(target=body, daemon=True).start()
        heapq.heappush(self._heap, (self.now, next(self._seq), task))

    def spawn_for(
        self, dead: Callable[[], bool]
    ) -> Callable[[Callable[[], None]], Callable[[], None]]:
        """The driver's `spawn`: a task beside the caller; waiting for its end is not needed."""

        def spawn(work: Callable[[], None]) -> Callable[[], None]:
            self.start(work, dead)
            return lambda: None

        return spawn

    def run(self, until: float | None = None) -> None:
        """Play every event in time order."""
        while self._heap:
            when, _, what = heapq.heappop(self._heap)
            if until is not None and when > until:
                break
            self.now = when
            if isinstance(what, _Task):
                if what.dead():
                    continue  # a dead container's thread never runs again
                self._yielded.clear()
                what.go.set()
                self._yielded.wait()
            else:
                what()
        self.close()

    def close(self) -> None:
        """Unwind every thread still waiting."""
        self.closed = True
        for task in list(self._tasks):
            self._yielded.clear()
            task.go.set()
            self._yielded.wait(timeout=1.0)


@dataclass
class Site:
    """How a simulated site answers."""

    fetch_s: float = 0.8
    facts_bytes: int = 650  # its facts' item
    echoes_credential: bool = False  # robots.txt echoes the credential: never in the table
    # robots.txt lists this many candidates, each tried in turn for an equal share of the fetch
    # and refused; the facts grow with each one's outcome, to `facts_bytes` with the last. Each
    # outcome adds an equal share of them, at most `outcome_cap`: by default what the real
    # fetch's end may add after it last showed its facts (facts.UNSHOWN_BYTES); robots.txt's
    # answer shows the rest (its `Sitemap:` lines, the bulk of any large facts). A larger cap
    # models a fetch whose end adds more than that, which none of the audit's does.
    candidates: int = 1
    outcome_cap: int = site_facts.UNSHOWN_BYTES

    @property
    def outcome_bytes(self) -> int:
        """What each candidate's outcome adds to the facts."""
        return min(self.facts_bytes // self.candidates, self.outcome_cap)

    # A fetch that ends before this many seconds from the start answers a transient error (a
    # 503): its facts go to its waiters only.
    transient_until: float = -math.inf
    # The first fetch of the site takes this long instead (None: fetch_s): a holder slow but
    # alive, renewing its lease all along, beside which a standby fetches as quickly as usual.
    first_fetch_s: float | None = None


@dataclass
class Fetch:
    site: str
    started: float
    ended: float | None = None


@dataclass
class Record:
    site: str
    arrived: float
    started: float
    ended: float
    source: str
    reason: str | None
    complete: bool
    waited_s: float
    transient: bool = False  # the facts it used hold a transient answer


class SimTable:
    """The SharedStore interface over the simulated DynamoDB, in virtual time."""

    def __init__(
        self,
        clock: VirtualTime,
        rng: random.Random,
        lost_writes: float = 0.0,
        partitions: int | None = None,
        heavy: bool = False,  # simdynamo.HEAVY: slower calls, a heavier tail, 10 % throttled
    ) -> None:
        self.clock = clock
        self.rng = rng
        self.db = SimDynamo(
            random.Random(rng.random()), partitions, **(dict(HEAVY) if heavy else {})
        )
        self.lost_writes = lost_writes  # the share of writes applied whose answer is lost
        # encoded facts -> (their item's size, their flight, the facts)
        self.registry: dict[bytes, tuple[int, int, site_facts.SiteFacts]] = {}
        self.sizes: dict[bytes, int] = {}  # encoded facts so far, mid-fetch -> their item's size
        self.by_flight: dict[int, site_facts.SiteFacts] = {}
        self.lost = 0
        self.refused = 0  # items read with a part not taken as written (lease.as_read)

    def _call(
        self,
        op: str,
        attempt: Callable[[float], object | None],
        median: float,
        timeout_s: float = READ_TIMEOUT_S,
    ) -> object:
        for n in range(SDK_ATTEMPTS):
            latency = self.db.latency(median)
            lost = median == WRITE_LATENCY_S and self.rng.random() < self.lost_writes
            # An answer slower than the client's read timeout never comes: the call is applied
            # at the table all the same, as a write whose answer was lost.
            lost = lost or latency > timeout_s
            if lost:
                # Applied at the table, the answer never comes back: a timeout.
                waited = min(latency, timeout_s)
                self.clock.sleep(waited)
                answer = attempt(self.clock.now)
                self.clock.sleep(max(timeout_s - waited, 0.0))
                if answer is not None:
                    self.lost += 1
                    raise StoreError(op, "ReadTimeoutError", False)
            else:
                self.clock.sleep(latency)
                answer = attempt(self.clock.now)
                if answer is not None:
                    return answer
            if n + 1 < SDK_ATTEMPTS:
                self.clock.sleep(self.rng.uniform(0.0, SDK_BACKOFF_S))
        raise StoreError(op, "ThrottlingException", True)

    def get(
        self, key: str, consistent: bool, wall: Callable[[], float] | None = None
    ) -> StoredItem | None:
        """The item, judged as `dynamostore.read_item` judges it on the reader's clock once the
        answer is in (`wall`; None: the true time)."""

        def read(t: float) -> object | None:
            ok, state = self.db.read(key, consistent, t)
            return (state,) if ok else None

        answer = self._call("get_item", read, READ_LATENCY_S)
        assert isinstance(answer, tuple)
        state: StoredState | None = answer[0]
        if state is None:
            return None
        # As dynamostore.read_item reads it, on the reading container's clock.
        item, why = lease.as_read(state.item, self.clock.now if wall is None else wall())
        self.refused += why is not None
        if item is None:
            return None
        got = self.by_flight.get(state.facts_flight) if state.facts_flight is not None else None
        if got is None or not state.blob:
            return StoredItem(item, got)
        size = state.blob

        def load() -> site_facts.SiteFacts | None:
            def blob(t: float) -> object | None:
                return True if self.db.read_blob(key, size, t) else None

            self._call("get_item", blob, READ_LATENCY_S)
            return got

        return StoredItem(item, None, load)

    def take_lease(self, key: str, owner: str, request: lease.TakeLease) -> bool:
        def take(t: float) -> object | None:
            return self.db.take_lease(key, owner, request, t)

        return bool(self._call("update_item", take, WRITE_LATENCY_S, LEASE_WRITE_READ_TIMEOUT_S))

    def renew_lease(self, key: str, owner: str, until: float) -> None:
        def renew(t: float) -> object | None:
            return True if self.db.renew(key, owner, until, t) else None

        # As dynamostore's: renewals through the lease writes' client, with its short timeout.
        self._call("update_item", renew, WRITE_LATENCY_S, LEASE_WRITE_READ_TIMEOUT_S)

    def pack(self, data: bytes, for_waiters: bool = False, headroom: int = 0) -> bytes | None:
        known = self.registry.get(data)
        size = known[0] if known is not None else self.sizes.get(data, 0)
        limit = MAX_AWAITED_BYTES if for_waiters else MAX_SHARED_BYTES
        return data if size + headroom <= limit else None

    def put(self, key: str, packed: bytes, stamp: lease.Stamp, expires_at: float) -> None:
        size, flight, facts = self.registry[packed]
        self.by_flight[flight] = facts

        def put(t: float) -> object | None:
            return True if self.db.put(key, stamp, size, flight, t) else None

        self._call("put_item", put, WRITE_LATENCY_S)

    def mark_unshareable(
        self, key: str, owner: str, at: float, lasting: bool, flight: str | None = None
    ) -> None:
        def mark(t: float) -> object | None:
            return True if self.db.mark(key, owner, at, lasting, t, flight) else None

        self._call("update_item", mark, WRITE_LATENCY_S)


class ContainerTable:
    """The table as one container's store uses it: what it reads is judged on its own clock."""

    def __init__(self, table: SimTable, wall: Callable[[], float]) -> None:
        self.table = table
        self.wall = wall

    def get(self, key: str, consistent: bool) -> StoredItem | None:
        return self.table.get(key, consistent, self.wall)

    def take_lease(self, key: str, owner: str, request: lease.TakeLease) -> bool:
        return self.table.take_lease(key, owner, request)

    def renew_lease(self, key: str, owner: str, until: float) -> None:
        self.table.renew_lease(key, owner, until)

    def pack(self, data: bytes, for_waiters: bool = False, headroom: int = 0) -> bytes | None:
        return self.table.pack(data, for_waiters, headroom)

    def put(self, key: str, packed: bytes, stamp: lease.Stamp, expires_at: float) -> None:
        self.table.put(key, packed, stamp, expires_at)

    def mark_unshareable(
        self, key: str, owner: str, at: float, lasting: bool, flight: str | None = None
    ) -> None:
        self.table.mark_unshareable(key, owner, at, lasting, flight)


@dataclass
class Container:
    id: int
    sharing: Sharing
    store: ContainerTable
    offset: float = 0.0  # its wall clock less the true time
    dead: bool = False
    busy_since: float | None = None  # when its audit under way started (virtual time)


class RealFleet:
    """Containers of the function, each audit one call of the real `Sharing.obtain`."""

    def __init__(
        self,
        containers: int,
        sites: dict[str, Site],
        mode: str = "on",  # "on" (the table), "process" (in-process only) or "off"
        window_s: int = 60,
        budget_s: float = 147.0,
        seed: int = 1,
        kill_first_fetch_after: float | None = None,
        lost_writes: float = 0.0,
        kill_site: str | None = None,  # whose first fetch is killed (None: the first of any)
        kill_from: float = 0.0,  # the first fetch starting this long after the start, or later
        partitions: int | None = None,  # the table's partitions; None: limits per item only
        clock_skew_s: float = 0.0,  # each container's clock is off by uniform(-this, this)
        kills: int = 1,  # how many fetches in a row are killed, `kill_first_fetch_after` in
        default_site: Callable[[str], Site] | None = None,  # a site not in `sites`, by its name
        heavy: bool = False,  # the table under simdynamo.HEAVY conditions
        first_ahead_s: float = 0.0,  # the clock of the first audit's container (its holder)
    ) -> None:
        self.clock = VirtualTime()
        self.first_ahead_s: float | None = first_ahead_s or None
        self.kill_site = kill_site
        self.kill_from = START + kill_from
        self.rng = random.Random(seed)
        # Offsets are drawn apart from everything else: a run without skew is the same run.
        self.skew_s = clock_skew_s
        self.skew_rng = random.Random(seed + 2)
        self.table = SimTable(self.clock, random.Random(seed + 1), lost_writes, partitions, heavy)
        self.sites = sites
        self.default_site = default_site
        self.mode = mode
        self.window_s = 0 if mode == "off" else window_s
        self.budget_s = budget_s
        self.kill_after = kill_first_fetch_after
        self.kills = kills
        self.killed = 0
        tokens = itertools.count()
        self.pool: list[Container] = []
        for i in range(containers):
            self.pool.append(self._container(i, lambda: f"t{next(tokens)}"))
        self.idle = list(range(containers))
        self.queue: list[tuple[float, str]] = []
        self.records: list[Record] = []
        self.fetches: list[Fetch] = []
        self.lost_audits = 0
        self.lost_billed_s = 0.0  # Lambda time of the audits lost with their containers
        self.flights = itertools.count()

    def run(self, arrivals: Iterable[tuple[float, str]]) -> RealFleet:
        for offset, name in arrivals:
            self.clock.at(START + offset, self._arrival(name))
        self.clock.run()
        return self

    def _arrival(self, site: str) -> Callable[[], None]:
        return lambda: self._arrive(site)

    def _arrive(self, site: str) -> None:
        if not self.idle:
            self.queue.append((self.clock.now, site))
            return
        c = self.pool[self.idle.pop(self.rng.randrange(len(self.idle)))]
        if self.first_ahead_s is not None:
            c.offset, self.first_ahead_s = self.first_ahead_s, None
        self._start(c, site, self.clock.now)

    def _start(self, c: Container, site: str, arrived: float) -> None:
        self.clock.start(lambda: self._audit(c, site, arrived), lambda: c.dead)

    def _free(self, c: Container) -> None:
        if self.queue:
            arrived, site = self.queue.pop(0)
            self._start(c, site, arrived)
        else:
            self.idle.append(c.id)

    def _audit(self, c: Container, site: str, arrived: float) -> None:
        clock = self.clock
        started = c.busy_since = clock.now
        model = self.sites.get(site)
        if model is None:
            assert self.default_site is not None, f"no model of {site}"
            model = self.sites[site] = self.default_site(site)
        store = c.store if self.mode == "on" else None
        echoed = model.echoes_credential
        req = ShareRequest(
            site, self.window_s, clock.mono() + self.budget_s, store, lambda data: not echoed
        )
        budget_end = clock.now + self.budget_s

        def fetch(
            previous: site_facts.SiteFacts | None, progress: Progress
        ) -> site_facts.SiteFacts:
            return self._fetch(c, site, model, budget_end, progress)

        got: Shared = c.sharing.obtain(req, fetch, lambda e: None)
        clock.sleep(AUDIT_CPU_S)
        self.records.append(
            Record(
                site,
                arrived,
                started,
                clock.now,
                got.source,
                got.reason,
                got.facts.complete,
                got.waited_s,
                got.facts.transient,
            )
        )
        self._free(c)

    def _fetch(
        self, c: Container, site: str, model: Site, budget_end: float, progress: Progress
    ) -> site_facts.SiteFacts:
        clock = self.clock
        record = Fetch(site, clock.now)
        self.fetches.append(record)
        if (
            self.kill_after is not None
            and self.killed < self.kills
            and self.kill_site in (None, site)
            and clock.now >= self.kill_from
        ):
            self.killed += 1
            clock.at(clock.now + self.kill_after, lambda: self._die(c))
        first = model.first_fetch_s is not None and not any(
            f.site == site for f in self.fetches[:-1]
        )
        took = model.first_fetch_s if first and model.first_fetch_s is not None else model.fetch_s
        left = max(0.0, budget_end - clock.now)
        robots_s = min(0.1, took / 4)
        spent = min(robots_s, left)
        clock.sleep(spent)
        n = model.candidates
        urls = (f"https://{site}/sitemap.xml", *(f"https://{site}/s{k}.xml" for k in range(1, n)))
        robots = site_facts.RobotsProbe(200, True, urls, (), ())
        # The last candidate answers 503 when the fetch ends while the site is failing.
        failing = clock.now + took - START < model.transient_until
        refused = [
            site_facts.CandidateOutcome(u, None, issue(u, Kind.HTTP_STATUS, "HTTP 404"))
            for u in urls[:-1]
        ]
        last = issue(urls[-1], Kind.HTTP_STATUS, "HTTP 503" if failing else "HTTP 404")
        outcomes = (*refused, site_facts.CandidateOutcome(urls[-1], None, last, transient=failing))
        shown = site_facts.SiteFacts(robots, urls, (), complete=False)
        self.table.sizes[site_facts.encode(shown)] = model.facts_bytes - n * model.outcome_bytes
        progress(shown)
        each_s = (took - robots_s) / n
        for k in range(1, n):
            if spent + each_s > left:
                break
            clock.sleep(each_s)
            spent += each_s
            # What the fetch shows after each candidate that leaves more to try: its facts so
            # far, which the table would keep in a share of the item's size.
            partial = site_facts.SiteFacts(robots, urls, outcomes[:k], complete=False)
            grown = model.facts_bytes - (n - k) * model.outcome_bytes
            self.table.sizes[site_facts.encode(partial)] = grown
            progress(partial)
        clock.sleep(max(0.0, min(took, left) - spent))
        record.ended = clock.now
        got = site_facts.SiteFacts(
            robots,
            urls,
            outcomes,
            complete=took <= left,
            fetched_at=clock.now + c.offset,  # as the container's clock has it
            fetch_seconds=took,
        )
        flight = next(self.flights)
        self.table.registry[site_facts.encode(got)] = (model.facts_bytes, flight, got)
        return got

    def _container(self, i: int, token: Callable[[], str]) -> Container:
        """A new container: its own process store and wall clock, the driver on the virtual
        clock."""
        offset = self.skew_rng.uniform(-self.skew_s, self.skew_s) if self.skew_s else 0.0
        clock = self.clock

        def wall() -> float:
            return clock.now + c.offset

        c = Container(i, Sharing(), ContainerTable(self.table, wall), offset)
        c.sharing = Sharing(
            LocalStore(),
            wall,
            self.clock.mono,
            self.clock.sleep,
            random.Random(self.rng.random()),
            token,
            self.clock.spawn_for(lambda: c.dead),
            self.clock.wait,
        )
        return c

    def _die(self, c: Container) -> None:
        c.dead = True
        self.lost_audits += 1
        if c.busy_since is not None:  # billed until it died
            self.lost_billed_s += self.clock.now - c.busy_since
        # The container is gone; Lambda starts another in its place, with an empty process store.
        fresh = self._container(c.id, lambda: f"r{next(self.flights)}")
        self.pool[c.id] = fresh
        self._free(fresh)

    # --- what a run gave ------------------------------------------------------------------------

    def waiting(self, site: str, every_s: float, until: float) -> list[tuple[float, int]]:
        """How many audits of site were waiting for another's fetch at each moment, every
        `every_s` seconds from the start until `until` (seconds from the start): an audit waits
        from its start for its `waited_s`."""
        spans = sorted(
            (r.started - START, r.started - START + r.waited_s)
            for r in self.records
            if r.site == site and r.waited_s > 0
        )
        ends: list[float] = []
        out: list[tuple[float, int]] = []
        i = 0
        for k in range(int(until / every_s) + 1):
            t = k * every_s
            while i < len(spans) and spans[i][0] <= t:
                heapq.heappush(ends, spans[i][1])
                i += 1
            while ends and ends[0] <= t:
                heapq.heappop(ends)
            out.append((START + t, len(ends)))
        return out

    def durations(self) -> list[float]:
        return sorted(r.ended - r.arrived for r in self.records)

    def incomplete(self) -> int:
        return sum(1 for r in self.records if not r.complete)

    def fetched(self) -> int:
        return sum(1 for r in self.records if r.source == FETCHED)
