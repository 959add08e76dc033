"""Whether the holder of a site's lease is alive, judged on the waiter's own clock (§7).

The holder counts its renewals in the lease (`lease_renewals`: 0 when it takes the lease, one more
at each renewal). A waiter remembers the highest count it has read and when it first read it, on
its own monotonic clock (`Watch`): a holder whose count has not moved on for longer than its
renewal period and LATE_GRACE_S is late, and may be dead. No wall-clock time written on another
machine is compared with the waiter's clock, so clocks that disagree, by any amount, never make a
holder that renews look late, nor a late one look alive. Pure: no call, no clock, no sleep.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "FIRST_RENEWAL_S",
    "LATE_GRACE_S",
    "LEASE_RENEW_S",
    "LEASE_S",
    "RENEWAL_TOLERANCE_S",
    "Watch",
    "holder_late",
    "renewal_due_s",
    "renewal_period_s",
    "renewed_age_s",
]

# A lease is this long and renewed every LEASE_RENEW_S while its holder fetches. Its end, on the
# holder's wall clock, is for operators and for the store's write condition (a write that saw no
# lease is refused over one that has not ended); waiters judge the holder by its renewal count.
LEASE_S = 10.0
LEASE_RENEW_S = 3.0
# The first renewal comes sooner, FIRST_RENEWAL_S after the lease was taken, then every
# LEASE_RENEW_S: a holder that died early in its fetch is known late a grace after its first
# renewal was due (a count still at 0), instead of LEASE_RENEW_S and the grace after. A fetch that
# ends within it renews never, so an audit with nobody waiting pays no more; a longer one renews at
# 2.5, 5.5, 8.5 s... instead of 3, 6, 9 s..., as often but for fetches that end in the last half
# second of a period (one renewal more). Between two renewals, never more than LEASE_RENEW_S.
FIRST_RENEWAL_S = 2.5
# The margin, on the waiter's own clock, past a renewal's period before a holder is late: a
# renewal that the store throttles is retried well inside it (lease.renewal_s), and a waiter's
# eventually consistent read lags the table by far less ("usually within a second": reads that lag
# show an older count, which is no renewal, and the next poll shows the new one).
LATE_GRACE_S = 1.0
# The holder's own ages, taken on its clock from when it asked for the lease: a renewal made
# exactly on schedule can measure a few ulps early (5.499999999999999 for 5.5). Ages within this
# of a scheduled renewal are that renewal, so the holder does not renew twice in a row.
RENEWAL_TOLERANCE_S = 1e-6


def renewal_due_s(renewed_s: float) -> float:
    """The lease's age, on its holder's clock, at which the holder renews it next, having last
    renewed it at this age (0: just taken): FIRST_RENEWAL_S, then the next whole LEASE_RENEW_S past
    the second."""
    renewed_s += RENEWAL_TOLERANCE_S
    if renewed_s < FIRST_RENEWAL_S:
        return FIRST_RENEWAL_S
    return FIRST_RENEWAL_S + LEASE_RENEW_S * (
        math.floor((renewed_s - FIRST_RENEWAL_S) / LEASE_RENEW_S) + 1
    )


def renewed_age_s(renewals: int | None) -> float:
    """How old a lease at least was, on its holder's clock, when its holder wrote this renewal
    count: its n-th renewal comes on schedule (`renewal_due_s`) or later, never sooner. A count
    measured on no clock of the reader's: a lower bound on how long the holder has fetched, and
    so on how long the site's fetch takes (0 for a lease not yet renewed, or one without a
    count)."""
    if not renewals:
        return 0.0
    return FIRST_RENEWAL_S + LEASE_RENEW_S * (renewals - 1)


def renewal_period_s(renewals: int | None) -> float:
    """The longest a live holder takes, after writing this renewal count, to write the next one:
    FIRST_RENEWAL_S for a lease not yet renewed (0), LEASE_RENEW_S after a renewal, and for a
    lease whose count is not known (None: a writer that keeps none) LEASE_RENEW_S, its end then
    standing for the count (`Watch.see`)."""
    return FIRST_RENEWAL_S if renewals == 0 else LEASE_RENEW_S


def holder_late(renewals: int | None, standing_s: float) -> bool:
    """True when a holder whose renewal count has stood at `renewals` for `standing_s`, on the
    waiter's own clock since it first read that count, has missed a renewal: past the count's
    period (`renewal_period_s`) and LATE_GRACE_S. The count was written before the waiter first
    read it, so a live holder has written the next one by then whatever the clocks say."""
    return standing_s > renewal_period_s(renewals) + LATE_GRACE_S


@dataclass
class Watch:
    """What a waiter has seen of one holder's renewals: the furthest count it read (for a lease
    that keeps none, its end, read as an opaque mark that moves on at each renewal) and when it
    first read it, on the waiter's own monotonic clock."""

    holder: str
    renewals: int | None
    mark: float
    since: float

    @classmethod
    def first(cls, holder: str, renewals: int | None, until: float, mono: float) -> Watch:
        """A watch begun on this read of the holder's lease."""
        return cls(holder, renewals, _mark(renewals, until), mono)

    def see(self, renewals: int | None, until: float, mono: float) -> bool:
        """Take in a read of the holder's lease at `mono`: True when it shows a renewal (the count
        moved on; a read that lags shows an older count, which is none)."""
        mark = _mark(renewals, until)
        if mark <= self.mark:
            return False
        self.renewals, self.mark, self.since = renewals, mark, mono
        return True

    def late(self, mono: float) -> bool:
        """True when the holder has missed a renewal by `mono` (`holder_late`)."""
        return holder_late(self.renewals, mono - self.since)

    def age(self, mono: float) -> float:
        """How long the holder has held its lease at least, by `mono`: its count's age
        (`renewed_age_s`) and the time since the waiter first read that count."""
        return renewed_age_s(self.renewals) + max(0.0, mono - self.since)


def _mark(renewals: int | None, until: float) -> float:
    """How far a lease's renewals have gone: its count, or its end where it keeps no count."""
    return float(renewals) if renewals is not None else until
