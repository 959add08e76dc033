"""Every move a lease.Protocol makes, checked against lease.TRANSITIONS as the tests run."""

from __future__ import annotations

import weakref
from collections.abc import Iterator

import pytest

from sitemap_auditor.sharing import lease

__all__ = ["checked_moves"]

Move = tuple[lease.Phase, lease.Phase]

# What may come of each action: a test that feeds anything else (a read's answer after a sleep,
# a step after the end) probes the machine out of the driver's order, and its moves are not checked.
ANSWERS: dict[type, tuple[type, ...]] = {
    lease.Read: (lease.ReadDone, lease.StoreFailed),
    lease.TakeLease: (lease.LeaseTaken, lease.LeaseRefused, lease.StoreFailed),
    lease.Sleep: (lease.Slept,),
    lease.FetchHolding: (lease.Fetched,),
    lease.Publish: (lease.StoreAnswered, lease.StoreFailed),
    lease.MarkUnshareable: (lease.StoreAnswered, lease.StoreFailed),
}


def checked_moves(monkeypatch: pytest.MonkeyPatch) -> Iterator[set[Move]]:
    """Patch Protocol.step so that a move missing from the table fails the test; yield the moves
    seen (a fixture's body: `yield from checked_moves(monkeypatch)`)."""
    seen: set[Move] = set()
    asked: weakref.WeakKeyDictionary[lease.Protocol, lease.Action] = weakref.WeakKeyDictionary()
    start, step = lease.Protocol.start, lease.Protocol.step

    def started(self: lease.Protocol) -> lease.Action:
        asked[self] = action = start(self)
        return action

    def checked(
        self: lease.Protocol, observed: lease.Observation, now: float, mono: float | None = None
    ) -> lease.Action:
        before = self.phase
        last = asked.get(self, lease.Read(consistent=False))
        asked[self] = action = step(self, observed, now, mono)
        if isinstance(observed, ANSWERS.get(type(last), ())):
            move = (before, self.phase)
            assert move in lease.TRANSITIONS, f"{move} after {observed} -> {action}"
            seen.add(move)
        return action

    monkeypatch.setattr(lease.Protocol, "start", started)
    monkeypatch.setattr(lease.Protocol, "step", checked)
    yield seen
