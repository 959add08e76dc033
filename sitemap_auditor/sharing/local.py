"""What an audit does with what its own process knows of its site, before the shared store: reuse
its facts, join the fetch its process has in flight, or lead (go to the store, and maybe fetch)
for the process. Pure, as the lease protocol that comes after it (`lease`)."""

from __future__ import annotations

from enum import Enum

from sitemap_auditor.sharing.lease import Stamp, due, usable

__all__ = ["REFRESH_RECHECK_S", "Local", "local_choice"]

# A process that has just looked at the store for a refresh and found another audit refreshing
# does not look again for this long: its audits go on reusing the facts still in their window.
REFRESH_RECHECK_S = 1.0


class Local(Enum):
    """What an audit does with what its own process knows of its site."""

    REUSE = "reuse"  # the process's facts, within their window
    JOIN = "join"  # wait for the fetch this process already has in flight
    LEAD = "lead"  # go to the store (and maybe fetch) for the process


def local_choice(
    known: Stamp | None,
    window_s: float,
    now: float,
    in_flight: bool,
    checked_at: float | None,
    draw: float,
) -> Local:
    """What an audit does, from the facts its process holds and whether one fetch is in flight."""
    if usable(known, window_s, now):
        assert known is not None
        if not due(known, window_s, now, draw):
            return Local.REUSE
        # Due: one audit of the process looks after the refresh; the others reuse meanwhile.
        recently = checked_at is not None and now - checked_at < REFRESH_RECHECK_S
        return Local.REUSE if in_flight or recently else Local.LEAD
    return Local.JOIN if in_flight else Local.LEAD
