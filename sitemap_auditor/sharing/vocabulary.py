"""What the lease protocol and its driver say to each other (docs/contract.md §7): the values
they share (a site's item as the protocol reads it, the stamp of a set of facts, why an audit
fetched, why facts could not be shared), the actions the machine asks for and the observations
its driver reports. `lease` holds the machine and its rules, and names all of these too.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

__all__ = [
    "Action",
    "FetchAlone",
    "FetchHolding",
    "Fetched",
    "Finish",
    "Item",
    "LeaseRefused",
    "LeaseTaken",
    "MarkUnshareable",
    "Observation",
    "Publish",
    "Read",
    "ReadDone",
    "Reason",
    "Sleep",
    "Slept",
    "Source",
    "Stamp",
    "StoreAnswered",
    "StoreFailed",
    "TakeLease",
    "Unshareable",
    "Use",
]


class Source(Enum):
    """How an audit got its site's facts."""

    FETCHED = "fetched"  # by its own fetch
    REUSED = "reused"  # facts already there, within their window
    WAITED = "waited"  # the facts of another audit's fetch it waited for


class Reason(Enum):
    """Why an audit fetched the site itself."""

    HOLDER = "holder"  # it took the lease: the one fetch others wait for
    REFRESH = "refresh"  # it took the lease to refresh facts ahead of their window's end
    STORE_FAILED = "store-failed"  # the store did not answer
    UNSHAREABLE = "unshareable"  # the fetch it waited for, or the site's last one, was unshareable
    BUDGET = "budget"  # its own time budget ran out while it waited
    # The holder was late, and waiting for a takeover would outlast its budget, or it had waited
    # OVERDUE_FACTOR fetch times already; or it saw CHURNED_HOLDERS holders replaced without
    # facts and would not bet on another (holders that churn); in its own process, the holder's
    # budget would not cover the site's recorded fetch (`hedge_local`).
    HEDGED = "hedged"
    # It waited on a holder whose fetch had run long (lease.standby_after_s), took the site's
    # standby slot and fetched beside it: a death of the holder costs its waiters the standby's
    # head start, not a whole fetch. Whichever publishes first is the facts the waiters take.
    STANDBY = "standby"


class Unshareable(Enum):
    """Why a fetch's facts could not be shared through the store."""

    LARGE = "too-large"  # too large for an item; lasting: the next fetch will be as large
    CREDENTIAL = "credential-echoed"  # the site echoed a credential into them; lasting
    CUT = "cut-by-budget"  # the holder's own budget cut its fetch short; a later one may finish
    DEFECT = "defect"  # the holder failed; a later one may not
    # Two holders in a row stopped renewing (died): a waiter ends the second's lease with this
    # mark, which names no flight but this reason; short-lived (lease.DEAD_HOLDERS_HOLD_S).
    DEAD = "holders-dead"

    @property
    def lasting(self) -> bool:
        """True when a later fetch of the site would be unshareable for the same reason."""
        return self in (Unshareable.LARGE, Unshareable.CREDENTIAL)


class Use(Enum):
    """Which facts a finishing audit uses."""

    KNOWN = "known"  # those its process already held
    STORED = "stored"  # those of the item it read last
    OWN = "own"  # those of its own fetch


@dataclass(frozen=True)
class Stamp:
    """What the protocol knows of a set of facts: when, how long, how sound, whose."""

    fetched_at: float  # when the fetch that gave them finished
    fetch_s: float = 0.0  # how long that fetch took
    transient: bool = False  # they hold an answer that may not hold a moment later (a 503)
    flight: str | None = None  # the lease owner whose fetch gave them
    # Too large to be kept for reuse (over the shared item's size), handed only to the audits
    # that waited for this very fetch, with a lasting mark that sends newcomers to fetch alone.
    awaited_only: bool = False


@dataclass(frozen=True)
class Item:
    """A site's shared item as the protocol reads it."""

    stamp: Stamp | None = None
    lease_owner: str | None = None
    lease_until: float | None = None
    unshareable_flight: str | None = None  # the last flight whose facts could not be shared
    unshareable_at: float | None = None
    unshareable_lasting: bool = False
    # When the lease was taken, on its holder's clock (None: not known): for operators.
    lease_at: float | None = None
    # How often its holder has renewed the lease (0: taken, not renewed; None: not known, a writer
    # that keeps no count): what a waiter judges the holder by, on its own clock (`liveness`).
    lease_renewals: int | None = None

    @property
    def lease_held(self) -> bool:
        """True when some audit holds a lease on the site. Whether its holder is alive is not read
        off its end (a time on the holder's clock) but judged by each waiter on its own clock, by
        the renewals it sees (`liveness.Watch`); the store reads a lease ending further ahead than
        a lease runs as none (`credible_until`)."""
        return self.lease_owner is not None and self.lease_until is not None


# --- actions: what the machine asks its driver to do --------------------------------------------


@dataclass(frozen=True)
class Read:
    """Read the site's item (or its standby slot's)."""

    consistent: bool
    standby: bool = False


@dataclass(frozen=True)
class TakeLease:
    """Write this audit's lease unless a live lease, facts fetched at or after `due` (transient
    facts never stand in the way) or a lasting unshareable mark made at or after `marked_since`
    are there."""

    until: float
    now: float
    due: float
    # A lasting mark this recent says the next fetch would not be shareable either: an audit that
    # read the item before the mark was written fetches by itself rather than hold a lease.
    marked_since: float
    # A late holder's lease this write replaces, as read (its owner and end): taken over while
    # still live, but only if unchanged since (not renewed meanwhile, nor replaced).
    over_owner: str | None = None
    over_until: float | None = None
    # The site's standby slot, not its lease: a lease of its own, beside the holder's (the same
    # rule, `may_take`, on the slot's own item).
    standby: bool = False


@dataclass(frozen=True)
class Sleep:
    """Wait until this time, then report Slept."""

    until: float


@dataclass(frozen=True)
class FetchHolding:
    """Fetch the site, renewing the lease (or the standby slot) meanwhile, then report Fetched."""

    refresh: bool
    standby: bool = False  # in the standby slot: the holder, not this audit, marks unshareable


@dataclass(frozen=True)
class Publish:
    """Write the fetched facts with this stamp, which ends the lease."""

    stamp: Stamp


@dataclass(frozen=True)
class MarkUnshareable:
    """End the lease with a mark that this flight's facts cannot be shared; or, for a waiter
    (`over`), end that late holder's lease with the mark that its holders died (Unshareable.DEAD),
    which names the reason for its flight."""

    at: float
    why: Unshareable
    over: str | None = None  # the late holder whose lease a waiter ends; None: its own lease


@dataclass(frozen=True)
class FetchAlone:
    """Fetch the site without the store, publish nothing, and finish."""

    reason: Reason


@dataclass(frozen=True)
class Finish:
    """Done: use these facts."""

    use: Use
    source: Source
    reason: Reason | None = None


Action = Read | TakeLease | Sleep | FetchHolding | Publish | MarkUnshareable | FetchAlone | Finish


# --- observations: what came of an action -------------------------------------------------------


@dataclass(frozen=True)
class ReadDone:
    """The item as read; None when the site has none."""

    item: Item | None


@dataclass(frozen=True)
class StoreFailed:
    """The call failed: throttled (the store answered, later) or no usable answer at all."""

    throttled: bool


@dataclass(frozen=True)
class LeaseTaken:
    """The lease is this audit's."""


@dataclass(frozen=True)
class LeaseRefused:
    """The condition did not hold: another lease, or facts fetched since, are there."""


@dataclass(frozen=True)
class Slept:
    """The sleep asked for is over."""


@dataclass(frozen=True)
class Fetched:
    """The holder's fetch is done; `unshareable` says why its facts cannot go to the store."""

    stamp: Stamp
    unshareable: Unshareable | None = None
    marked: bool = False  # the mark was written mid-fetch, as soon as the holder knew
    # Too large to share (Unshareable.LARGE), but not too large for an item of their own that
    # only this fetch's waiters read: they are published for them (Stamp.awaited_only).
    for_waiters: bool = False


@dataclass(frozen=True)
class StoreAnswered:
    """A publish or a mark was written."""


Observation = ReadDone | StoreFailed | LeaseTaken | LeaseRefused | Slept | Fetched | StoreAnswered
