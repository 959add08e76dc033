"""The lease protocol as it ran before the pure core: the yardstick of bench/scale.py.

Not the function's code: a model, in the vocabulary of `sitemap_auditor.sharing.lease` (its actions
and
observations), of `Sharing._lead` and `_await` as they stood before `lease.Protocol` replaced
them, so that the same simulated fleet can price both. What it did, step by step:

- a consistent read; facts within their window (complete; nothing was transient then) are reused;
- otherwise a conditional lease write, whatever the read showed (a live lease of another audit
  included, so a refused write is paid by every waiter);
- a refused write: consistent polls every tenth of the time waited (30 ms to 1 s, no jitter)
  until facts appear, the lease lapses (then the write again) or the audit's wait ends, 35 s
  before its budget, after which it fetches by itself and publishes if the store never failed;
- a holder whose facts cannot be stored hands the lease back, and the next waiter takes it;
- any failed call, a throttled one included, sends the audit to fetch by itself;
- no refresh ahead of the window's end.
"""

from __future__ import annotations

import math
import random

from sitemap_auditor.sharing import lease
from sitemap_auditor.sharing.lease import Local, Reason, Source, Unshareable

POLL_MIN_S = 0.03
POLL_MAX_S = 1.0
POLL_SHARE = 0.1
SELF_FETCH_RESERVE_S = 35.0


def _fresh(stamp: lease.Stamp | None, window_s: float, now: float) -> bool:
    return stamp is not None and now - stamp.fetched_at <= window_s


def local_choice(
    known: lease.Stamp | None,
    window_s: float,
    now: float,
    in_flight: bool,
    checked_at: float | None,
    draw: float,
) -> Local:
    """The process-local step of the old code: reuse within the window, else join or lead."""
    if _fresh(known, window_s, now):
        return Local.REUSE
    return Local.JOIN if in_flight else Local.LEAD


class LegacyProtocol:
    """The old lease protocol, one audit's part, as a machine the fleet can drive."""

    def __init__(
        self,
        owner: str,
        window_s: float,
        budget_end: float,
        known: lease.Stamp | None,
        rng: random.Random,
        draw: float | None = None,
    ) -> None:
        self.owner = owner
        self.window_s = window_s
        self.wait_until = budget_end - SELF_FETCH_RESERVE_S
        self.throttled = 0
        self.errors = 0
        self.phase = "first-read"
        self.wait_started: float | None = None
        self.fetched: lease.Stamp | None = None

    def start(self) -> lease.Action:
        return lease.Read(consistent=True)

    def _take(self, now: float) -> lease.Action:
        self.phase = "take"
        # Before marks were heeded: none refuses its write.
        return lease.TakeLease(
            until=now + lease.LEASE_S, now=now, due=now - self.window_s, marked_since=math.inf
        )

    def _alone(self) -> lease.Action:
        # Fetched by itself; it published when no store call had failed, which the fleet does not
        # price apart (one write), so it is left out here.
        return lease.FetchAlone(Reason.STORE_FAILED if self.errors else Reason.BUDGET)

    def step(self, seen: lease.Observation, now: float) -> lease.Action:
        if isinstance(seen, lease.StoreFailed):
            self.errors += 1
            self.throttled += seen.throttled
            if self.phase == "publish":
                return lease.Finish(lease.Use.OWN, Source.FETCHED, Reason.HOLDER)
            return self._alone()
        if self.phase == "first-read":
            assert isinstance(seen, lease.ReadDone)
            stamp = seen.item.stamp if seen.item else None
            if _fresh(stamp, self.window_s, now):
                return lease.Finish(lease.Use.STORED, Source.REUSED)
            return self._take(now)
        if self.phase == "take":
            if isinstance(seen, lease.LeaseTaken):
                self.phase = "fetch"
                return lease.FetchHolding(refresh=False)
            self.phase = "poll"
            if self.wait_started is None:
                self.wait_started = now
            return self._poll(now)
        if self.phase == "poll":
            if isinstance(seen, lease.Slept):
                return lease.Read(consistent=True)
            assert isinstance(seen, lease.ReadDone)
            item = seen.item
            if item is None:
                return self._after_wait(now, None)
            if _fresh(item.stamp, self.window_s, now):
                return lease.Finish(lease.Use.STORED, Source.WAITED)
            if item.lease_until is None or item.lease_until < now:
                return self._after_wait(now, item)
            return self._poll(now)
        if self.phase == "fetch":
            assert isinstance(seen, lease.Fetched)
            self.phase = "publish"
            if seen.unshareable is not None:
                return lease.MarkUnshareable(now, Unshareable.DEFECT)  # the lease handed back
            return lease.Publish(lease.Stamp(seen.stamp.fetched_at, seen.stamp.fetch_s))
        return lease.Finish(lease.Use.OWN, Source.FETCHED, Reason.HOLDER)

    def _poll(self, now: float) -> lease.Action:
        left = self.wait_until - now
        if left <= 0:
            return self._alone()
        assert self.wait_started is not None
        delay = min(max(POLL_SHARE * (now - self.wait_started), POLL_MIN_S), POLL_MAX_S)
        return lease.Sleep(now + min(delay, left))

    def _after_wait(self, now: float, item: lease.Item | None) -> lease.Action:
        if now >= self.wait_until:
            return self._alone()
        return self._take(now)
