"""A DynamoDB table of site items as the sharing protocol sees it, in virtual time, with costs.

Per-item token buckets (or, optionally, partitions whose limits the items hashed to them share),
call latencies, eventually consistent reads that lag, and throttling answered as DynamoDB answers
it; every lease write goes through `lease.may_take`, the one rule every store applies. The fleet
simulator (harness/fleet.py) puts the function's real sharing driver in front of it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import random
from collections import defaultdict
from dataclasses import dataclass

from sitemap_auditor.sharing import lease

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
# Heavy conditions (a region under strain): medians three times as long, a heavier tail (p99
# about 16 times the median), and one call in ten throttled whatever its units.
HEAVY = {"latency_factor": 3.0, "latency_sigma": 1.2, "throttle_share": 0.1}
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

    def __init__(
        self,
        rng: random.Random,
        partitions: int | None = None,
        latency_factor: float = 1.0,
        latency_sigma: float = LATENCY_SIGMA,
        throttle_share: float = 0.0,
    ) -> None:
        if partitions is not None and partitions < 1:
            raise ValueError("a table has at least one partition")
        self.rng = rng
        self.partitions = partitions
        # Heavier conditions than DynamoDB's usual: latencies this many times the medians, with
        # this spread (a heavier tail), and this share of calls throttled whatever the units.
        self.latency_factor = latency_factor
        self.latency_sigma = latency_sigma
        self.throttle_share = throttle_share
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
        spread = math.exp(self.rng.gauss(0.0, self.latency_sigma))
        return median * self.latency_factor * spread

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
        if self.throttle_share and self.rng.random() < self.throttle_share:
            self.throttled_calls += 1
            self.throttled_by[bucket] += 1
            return False
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
