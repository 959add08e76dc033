"""The lease protocol's phases and every move between them, as one table (docs/contract.md §7).

`lease.Protocol` puts an audit in a phase with each action it asks for; the tests check that each
move a run makes is in `TRANSITIONS`, and harness/lease_diagram.py draws the table into the
contract. The rule constants named here (DEAD_HOLDERS) live in `lease`.
"""

from __future__ import annotations

from enum import Enum


class Phase(Enum):
    """Where an audit is in the protocol: each action the machine asks for puts it in one."""

    LOOKING = "looking"  # reading the item, no holder seen (the first phase; a throttled read's
    # backoff too)
    TAKING = "taking"  # its lease write asked for
    WAITING = "waiting"  # polling for the facts of a holder's fetch
    TAKEOVER_JITTER = "takeover-jitter"  # the holder is dead or late: a random pause first
    TAKEOVER_CONFIRM = "takeover-confirm"  # a consistent read that the takeover writes on
    HOLDING = "holding"  # the lease is its own: fetching, renewing it
    PUBLISHING = "publishing"  # writing its facts, or the mark that they cannot be shared
    RELEASING = "releasing"  # a waiter's mark that a second holder in a row died (DEAD_HOLDERS)
    STANDBY = "standby"  # the standby slot is its own: fetching beside the holder, renewing it
    ALONE = "alone"  # fetching by itself, without the store (the end)
    DONE = "done"  # finished with facts in hand (the end)


# Every move the machine makes from one phase to the next, and why (what it saw). The unit tests
# check that each move a run makes is here; harness/lease_diagram.py draws it into
# docs/contract.md section 7.
TRANSITIONS: dict[tuple[Phase, Phase], str] = {
    (Phase.LOOKING, Phase.LOOKING): "throttled: back off, read again",
    (Phase.LOOKING, Phase.TAKING): "no current facts, no lease",
    (Phase.LOOKING, Phase.WAITING): "a lease of another audit",
    (Phase.LOOKING, Phase.TAKEOVER_JITTER): "a lease that ended long ago (abandoned)",
    (Phase.LOOKING, Phase.HOLDING): "the lease read is its own (a lost answer)",
    (Phase.LOOKING, Phase.ALONE): "store failed, lasting mark, hedge or budget",
    (Phase.LOOKING, Phase.DONE): "current facts",
    (Phase.TAKING, Phase.HOLDING): "lease taken",
    (Phase.TAKING, Phase.STANDBY): "standby slot taken: fetch beside the holder",
    (Phase.TAKING, Phase.LOOKING): "refused, or no answer: read again",
    (Phase.TAKING, Phase.WAITING): "refused, throttled or no answer, a holder known: read again",
    (Phase.TAKING, Phase.ALONE): "store failed, or refused too often",
    (Phase.TAKING, Phase.DONE): "refresh refused: another refreshes",
    (Phase.WAITING, Phase.WAITING): "holder renewing: poll again",
    (Phase.WAITING, Phase.TAKING): "lease gone, facts due: refresh; or the standby slot",
    (Phase.WAITING, Phase.TAKEOVER_JITTER): "holder missed a renewal, or its lease is gone",
    (Phase.WAITING, Phase.HOLDING): "the lease read is its own (a lost answer)",
    (Phase.WAITING, Phase.ALONE): "unshareable, hedge, store failed or budget",
    (Phase.WAITING, Phase.DONE): "the awaited facts",
    (Phase.TAKEOVER_JITTER, Phase.TAKEOVER_CONFIRM): "pause over",
    (Phase.TAKEOVER_CONFIRM, Phase.TAKING): "still late, or its lease gone: take over",
    (Phase.TAKEOVER_CONFIRM, Phase.WAITING): "a new holder, renewed, or a standby may fetch",
    (Phase.TAKEOVER_CONFIRM, Phase.TAKEOVER_CONFIRM): "throttled: back off, read again",
    (Phase.TAKEOVER_CONFIRM, Phase.HOLDING): "the lease read is its own (a lost answer)",
    (Phase.TAKEOVER_CONFIRM, Phase.RELEASING): "a second holder late in a row: mark it dead",
    (Phase.TAKEOVER_CONFIRM, Phase.ALONE): "unshareable, hedge, store failed or budget",
    (Phase.TAKEOVER_CONFIRM, Phase.DONE): "the awaited facts",
    (Phase.HOLDING, Phase.PUBLISHING): "fetched",
    (Phase.STANDBY, Phase.PUBLISHING): "fetched: publish, unless the wait's facts came first",
    (Phase.STANDBY, Phase.DONE): "fetched, not shareable: its own facts",
    (Phase.HOLDING, Phase.DONE): "fetched, mark written mid-fetch",
    (Phase.PUBLISHING, Phase.PUBLISHING): "throttled: try again",
    (Phase.PUBLISHING, Phase.DONE): "written, given up, or the wait's facts came first",
    (Phase.RELEASING, Phase.ALONE): "marked, or not: fetch by itself",
}
