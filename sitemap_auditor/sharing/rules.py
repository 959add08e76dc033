"""The lease protocol's rules, as pure functions of what an audit knows, and the limits they use
(docs/contract.md §7): which facts an audit may reuse or takes as awaited, when a holder's lease
may be written over (`may_take`, the one lease-write rule every store applies), how an item read
is taken (`as_read`), when to poll, back off, hedge or stand by. `lease.Protocol`, the machine,
decides with them; the stores and the fleet simulator apply the same ones. Nothing here makes a
call, reads a clock or sleeps.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace

from sitemap_auditor.sharing.liveness import (
    LATE_GRACE_S,
    LEASE_RENEW_S,
    LEASE_S,
)
from sitemap_auditor.sharing.vocabulary import Item, Stamp, TakeLease, Unshareable

__all__ = [
    "AWAITED_MIN_FETCH_S",
    "BACKOFF_BASE_S",
    "BACKOFF_MAX_S",
    "CHURNED_HOLDERS",
    "CLOCK_SKEW_S",
    "DEAD_HOLDERS",
    "DEAD_HOLDERS_HOLD_S",
    "MAX_REFUSED_WRITES",
    "OVERDUE_FACTOR",
    "POLL_MAX_S",
    "POLL_MIN_S",
    "POLL_SHARE",
    "PUBLISH_RETRY_S",
    "REFRESH_BETA",
    "REFRESH_MIN_FETCH_S",
    "STANDBY_EARLY_S",
    "STANDBY_MIN_S",
    "TAKEOVER_JITTER_S",
    "THROTTLED_PATIENCE_S",
    "UNKNOWN_FETCH_S",
    "UNSHAREABLE_HOLD_S",
    "abandoned",
    "as_read",
    "awaited_facts",
    "backoff_s",
    "credible_until",
    "dead_mark_held",
    "due",
    "hedge",
    "hedge_local",
    "lasting_mark_held",
    "may_take",
    "owns_lease",
    "poll_base_s",
    "poll_s",
    "renewal_s",
    "standby",
    "standby_after_s",
    "standby_ended",
    "takes_awaited",
    "usable",
]

# How far apart two containers' wall clocks may be. Lambda's hosts keep theirs with the Amazon
# Time Sync Service (within a millisecond or so), a machine under NTP within tens of ms; 5 s is
# what a quartz clock left without synchronisation for a day drifts (~50 ppm). A time read from
# the store further ahead than this (a lease ending later than LEASE_S from now plus this, facts
# fetched after now plus this) was not written by a holder whose clock is right: the store reads
# no such lease, and no audit reuses such facts (docs/contract.md §7), but those of the fetch it
# waited for. No waiter judges a holder by these times (`liveness`): skew costs fetches at most.
CLOCK_SKEW_S = 5.0
# Waiters poll every POLL_SHARE of the time they have waited, within POLL_MIN_S and POLL_MAX_S,
# jittered so that a crowd of waiters does not poll in step: a waiter learns of the facts at most
# about a tenth of its wait (and never more than a second) behind the fetching audit.
POLL_MIN_S = 0.05
POLL_MAX_S = 1.0
POLL_SHARE = 0.1
# A throttled call is tried again after a "full jitter" backoff: uniform in [0, cap], the cap
# doubling from BACKOFF_BASE_S per throttled answer in a row up to BACKOFF_MAX_S.
BACKOFF_BASE_S = 0.05
BACKOFF_MAX_S = 2.0
# A lapsed lease seen by many waiters at once: each waits a random part of this before it reads
# again and tries to take over, so that the first one's lease is seen by the others instead of
# every one of them paying for a conditional write that fails.
TAKEOVER_JITTER_S = 0.5
# Facts are refreshed ahead of their window's end by a draw of each audit ("probabilistic early
# expiration"): an audit refreshes when the time left is under REFRESH_BETA x the fetch time
# (at least REFRESH_MIN_FETCH_S) x -ln(u), u uniform in (0, 1]. On a busy site some audit draws
# a small u early, tens of seconds ahead for hundreds of audits a second, so the refresh is done
# before the window ends; a quiet site's audit refreshes only very near the end, where it would
# have had to fetch soon anyway. Never in the first half of the window.
REFRESH_BETA = 0.5
REFRESH_MIN_FETCH_S = 1.0
# A holder whose publish the store throttles tries again for this long (well inside its lease).
PUBLISH_RETRY_S = 5.0
# An audit that has not yet seen a live lease (so knows of no fetch to wait for) rides out
# throttled answers for this long, then fetches by itself: a store that throttles every call for
# seconds on end is failing, not busy (a waiter that saw a live lease waits up to its budget).
THROTTLED_PATIENCE_S = 4.0
# An audit whose lease writes are refused this often, with no lease or current facts to be seen
# in between, stops: the item holds something it cannot read (facts of another format).
MAX_REFUSED_WRITES = 3
# A waiter on a late holder that has already waited this many times the site's recorded fetch time
# fetches by itself: it would have been done long since, and each waiter holds one of the
# account's concurrent executions for as long as it waits (a dead holder must not starve the
# account's other audits for a lease's length and a takeover).
OVERDUE_FACTOR = 3.0
# How long a fetch of a site takes when no fetch of it was ever recorded: the whole-fetch deadline
# of one request (docs/contract.md section 4; fetch.REQUEST_DEADLINE_S).
UNKNOWN_FETCH_S = 30.0
# A lasting mark (facts too large, a credential echoed) is heeded this long, well past the share
# window: the site's next bursts fetch at once instead of each waiting for one holder's fetch that
# will not be shared either. After it, one fetch finds out again whether the site still is so.
UNSHAREABLE_HOLD_S = 86_400.0
# A waiter that has seen this many holders of the site late in a row (each one's renewal count
# stood still: dead, or too slow to wait for), none of which gave facts, does not take the last
# one over: it ends that lease with a mark that its holders died (Unshareable.DEAD), and fetches by
# itself. The mark lets every waiter of that lease, and every audit that reads it within
# DEAD_HOLDERS_HOLD_S, fetch at once instead of waiting for a third holder that would likely die
# too (a site whose fetch kills its container); after it, one audit takes the lease again to find
# out. Two containers dying in a row on one site's fetch by chance is rare, and then the hold costs
# only fetches (as sharing off), never a result. The mark is not lasting: the lease write does not
# heed it (a reader that missed it takes the lease: one holder more, as before).
DEAD_HOLDERS = 2
DEAD_HOLDERS_HOLD_S = 30.0
# A waiter that has seen this many holders of its wait replaced (taken over by other waiters) or
# late, none with facts, bets on no further holder: it fetches by itself at once (hedged). Clocks
# further apart than CLOCK_SKEW_S make live holders look abandoned to waiters far ahead of them;
# each takeover starts the fetch again, and a bet on holder after holder could leave a waiter too
# little of its budget for its own fetch. Three, one more than DEAD_HOLDERS: a waiter that saw two
# holders die marks the second (above); a churn of three is clocks, not deaths (at ±8 s, two
# already sent most of a 25 s site's burst to fetch by itself, 2.6 s later than sharing off).
CHURNED_HOLDERS = 3
# A standby holder: once the holder's fetch has run longer than standby_after_s (half the site's
# recorded fetch time, at least STANDBY_MIN_S; STANDBY_MIN_S for a site with no fetch recorded),
# an early waiter (one that came within STANDBY_EARLY_S of the holder's take: its budget is the
# first a death of the holder would sink) takes the site's standby slot, a lease beside the
# holder's, and fetches too, if its budget covers the fetch (the site's recorded fetch time, or
# the fetch deadline when none is recorded, and never less than the holder has already fetched).
# Whichever of the two publishes first gives the waiters their facts (the standby does not
# publish over facts of the wait already there): a death of the holder then costs its waiters
# the standby's head start, not a death found late and a whole fetch after it. The price: a
# second fetch of the site for each wait that lasts that long. STANDBY_EARLY_S: the holder's age
# as a waiter knows it (`liveness.Watch.age`) lags its true age by up to a renewal period and
# the grace.
STANDBY_MIN_S = 5.0
STANDBY_EARLY_S = LEASE_RENEW_S + LATE_GRACE_S
# Facts too large to keep for reuse but handed to their fetch's waiters (Stamp.awaited_only) are
# taken by a waiter when that fetch took this long or more (`takes_awaited`).
AWAITED_MIN_FETCH_S = 10.0


def abandoned(item: Item, now: float) -> bool:
    """True for a lease that ended more than CLOCK_SKEW_S ago on this audit's clock: a live
    holder renews it LEASE_S ahead every LEASE_RENEW_S, so within the skew allowed none lets it
    end that long ago, and it is late at once, without a renewal period's watch. Clocks further
    apart than the allowance may take a live holder for gone: a takeover, whose write its next
    renewal refuses, or one more fetch; never a result."""
    return item.lease_until is not None and item.lease_until + CLOCK_SKEW_S < now


def credible_until(until: float, now: float) -> bool:
    """True for a lease end that a live holder may have written: not past, and no further ahead
    than a lease runs (LEASE_S), give or take the clocks' skew (CLOCK_SKEW_S). The store's rule for
    what it reads (`dynamostore.read_item`) and writes over (`may_take`); no waiter's."""
    return now <= until <= now + LEASE_S + CLOCK_SKEW_S


def as_read(item: Item, now: float) -> tuple[Item | None, str | None]:
    """An item as an audit takes it at `now`, on its own clock (None: as no item), and why a
    part was not taken as written (None: all was; counted as refused). Facts stamped further
    ahead than CLOCK_SKEW_S are kept (reused by no audit, `usable`; taken by their waiters,
    `awaited_facts`). A fetch's mark stamped further ahead has no known time: still the mark of
    its flight to the waiters of that flight (`_awaited`), heeded by no other audit, which takes
    the lease over it as the store lets it (`may_take`); a mark that holders died, so stamped,
    makes the item no item (its waiters take the lease, and fetch by themselves when refused).
    A lease ending further ahead than a lease runs is no lease; a lease taken further ahead has
    no known taking time."""
    ahead = now + CLOCK_SKEW_S
    why = None
    if item.stamp is not None and item.stamp.fetched_at > ahead:
        why = f"fetched_at: ahead of the clock by more than {CLOCK_SKEW_S:g} s"
    if item.unshareable_at is not None and item.unshareable_at > ahead:
        why = f"unshareable_at: ahead of the clock by more than {CLOCK_SKEW_S:g} s"
        if item.unshareable_flight == Unshareable.DEAD.value:
            return None, why
        item = replace(item, unshareable_at=None)
    until = item.lease_until
    if until is not None and until >= now and not credible_until(until, now):
        item = replace(item, lease_owner=None, lease_until=None, lease_at=None, lease_renewals=None)
        why = "lease_until: further ahead than a lease runs"
    if item.lease_at is not None and item.lease_at > ahead:
        item = replace(item, lease_at=None)
    return item, why


# --- pure rules ---------------------------------------------------------------------------------


def usable(stamp: Stamp | None, window_s: float, now: float) -> bool:
    """True for facts that any audit may reuse now: sound, within their window, and not stamped
    further ahead of this clock than CLOCK_SKEW_S (no right clock wrote that: only the audits that
    waited for their fetch take them, `awaited_facts`)."""
    return (
        stamp is not None
        and not stamp.transient
        and not stamp.awaited_only
        and now - stamp.fetched_at <= window_s
        and stamp.fetched_at <= now + CLOCK_SKEW_S
    )


def due(stamp: Stamp, window_s: float, now: float, draw: float) -> bool:
    """True when an audit with this draw (uniform in [0, 1)) refreshes these facts ahead now."""
    left = stamp.fetched_at + window_s - now
    if left > window_s / 2:
        return False
    scale = REFRESH_BETA * max(stamp.fetch_s, REFRESH_MIN_FETCH_S)
    return left <= scale * -math.log(max(1.0 - draw, 1e-300))


def poll_base_s(waited_s: float) -> float:
    """The mean time between a waiter's polls, having waited this long."""
    return min(max(POLL_SHARE * waited_s, POLL_MIN_S), POLL_MAX_S)


def poll_s(waited_s: float, rng: random.Random) -> float:
    """How long a waiter sleeps before its next poll, having waited this long (jittered)."""
    return poll_base_s(waited_s) * (0.5 + rng.random())


def backoff_s(attempt: int, rng: random.Random) -> float:
    """How long to wait before trying again after this many throttled answers in a row."""
    cap = min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2 ** min(attempt, 16))
    return rng.uniform(0.0, cap)


def hedge(
    now: float,
    budget_end: float,
    fetch_s: float | None,
    waited_s: float = 0.0,
    floor_s: float = 0.0,
) -> bool:
    """True when a waiter on a late holder (`liveness.holder_late`: slow, or dead) fetches by
    itself beside it (a hedged fetch) instead of taking its lease over.

    Taking over means a pause (up to TAKEOVER_JITTER_S) and the takeover's whole fetch: when that
    would end past the waiter's own budget, it cannot afford it, and fetching now is never slower.
    So too once the waiter has waited OVERDUE_FACTOR times the site's fetch (`waited_s`): its wait
    already cost more than fetching would have. `fetch_s` is the site's recorded fetch time, None
    when it has none (the whole-fetch deadline stands for it, and no wait is overdue); a takeover's
    fetch takes at least `floor_s` too (what the late holder had fetched when it last renewed:
    `liveness.renewed_age_s`).
    """
    if fetch_s is not None and fetch_s > 0 and waited_s >= OVERDUE_FACTOR * fetch_s:
        return True
    took = fetch_s if fetch_s is not None and fetch_s > 0 else UNKNOWN_FETCH_S
    return now + TAKEOVER_JITTER_S + max(took, floor_s) > budget_end


def may_take(item: Item | None, owner: str, request: TakeLease) -> bool:
    """True when the store writes `owner`'s lease as `request` asks: the one lease-write rule,
    which every store applies (the in-memory ones call it; DynamoDB's condition expression is
    held against it by a test).

    Refused by a live lease of another audit (one ending further ahead than a lease runs, give or
    take the clocks' skew, is no lease), unless it is the late holder's lease the request replaces,
    exactly as read; by facts fetched at or after `request.due` that are not transient and not
    from further ahead than the skew; by a lasting unshareable mark made at or after
    `request.marked_since` (math.inf: none is heeded) and not from further ahead either.
    """
    if item is None:
        return True
    ahead = request.now + CLOCK_SKEW_S
    until = item.lease_until
    lease_free = (
        item.lease_owner is None
        or until is None
        or until < request.now
        or until > request.until + CLOCK_SKEW_S
        or item.lease_owner == owner
        or (item.lease_owner, until) == (request.over_owner, request.over_until)
    )
    stamp = item.stamp
    facts_free = (
        stamp is None
        or stamp.transient
        or stamp.fetched_at < request.due
        or stamp.fetched_at > ahead
    )
    marked_at = item.unshareable_at
    mark_free = (
        not item.unshareable_lasting
        or marked_at is None
        or marked_at < request.marked_since
        or marked_at > ahead
    )
    return lease_free and facts_free and mark_free


def standby_ended(slot: Item | None, now: float) -> bool:
    """True for a standby slot its standby ended (done, with a mark nobody heeds: the driver's
    `_release_slot`) less than a lease's length ago: that standby's facts are likely in the
    site's item, which is read before any other step (a takeover, a hedge, another standby)."""
    ended_at = slot.unshareable_at if slot is not None else None
    return ended_at is not None and now - ended_at < LEASE_S


def standby_after_s(fetch_s: float | None) -> float:
    """How long a holder's fetch runs before an early waiter fetches beside it in the standby
    slot: half the site's recorded fetch time, at least STANDBY_MIN_S (None: no fetch recorded)."""
    if fetch_s is None or fetch_s <= 0:
        return STANDBY_MIN_S
    return max(STANDBY_MIN_S, fetch_s / 2)


def standby(
    now: float, budget_end: float, fetch_s: float | None, waited_s: float, holder_age_s: float
) -> bool:
    """True when a waiter on a live holder takes the standby slot now: the holder's fetch has
    run past `standby_after_s` (`holder_age_s`, as the waiter knows it: `liveness.Watch.age`),
    this waiter has waited from within STANDBY_EARLY_S of the holder's take (an early waiter,
    whose budget a death would sink first), and its budget covers the fetch (the recorded time,
    or UNKNOWN_FETCH_S, and at least what the holder has fetched already)."""
    if holder_age_s < standby_after_s(fetch_s) or waited_s < holder_age_s - STANDBY_EARLY_S:
        return False
    took = fetch_s if fetch_s is not None and fetch_s > 0 else UNKNOWN_FETCH_S
    return now + max(took, holder_age_s) <= budget_end


def renewal_s(throttled_in_a_row: int, rng: random.Random) -> float:
    """How long the holder waits before its next renewal of the lease."""
    if throttled_in_a_row == 0:
        return LEASE_RENEW_S
    # A throttled or unanswered renewal is tried again soon: the lease has LEASE_S - LEASE_RENEW_S
    # to spare.
    return min(backoff_s(throttled_in_a_row, rng), 1.0)


def hedge_local(
    fetch_s: float | None, holder_started: float, holder_budget_end: float | None
) -> bool:
    """True when an audit that finds its own process fetching the site fetches beside that fetch
    at once instead of waiting for it.

    The holder is a thread of the same process: alive, and bounded by the same deadlines as the
    waiter's own fetch would be, which it started earlier; waiting for it is never slower than
    fetching. Unless its facts will be given to nobody: its own budget does not cover the site's
    recorded fetch (`fetch_s`), so its fetch will be cut (the rule by which such an audit does not
    take the table's lease: `Protocol._take`). Waiting for it would then only put a wait before the
    waiter's own fetch. Times are one clock's (the process's monotonic one); a holder without a
    budget, or a site without a recorded fetch, is waited for.
    """
    if holder_budget_end is None or fetch_s is None or fetch_s <= 0:
        return False
    return holder_started + fetch_s > holder_budget_end


def owns_lease(item: Item, owner: str) -> bool:
    """True when the item's lease is `owner`'s own: a lease write whose answer was lost but which
    the store applied. Its audit is the holder, which the others wait for; it never waits on
    itself."""
    return item.lease_owner == owner and item.lease_held


def awaited_facts(
    stamp: Stamp | None, waiting_for: str, waited_since: float | None, before: Stamp | None = None
) -> bool:
    """True when these facts are those of the fetch a waiter waited for: fetched under the lease
    of `waiting_for`, or stamped at or after the wait began (a takeover's fetch, a standby's).
    They are its facts, transient ones included: it waited for that very fetch. Not the facts
    the item already held when the wait began (`before`): those were fetched before it, however
    far ahead their holder's clock stamped them (within the allowance, a 503 fetched and
    published before this audit started would otherwise read as its wait's)."""
    if stamp is None:
        return False
    if stamp.flight == waiting_for:
        return True
    return waited_since is not None and stamp.fetched_at >= waited_since and stamp != before


def takes_awaited(stamp: Stamp, now: float, budget_end: float) -> bool:
    """True when a waiter takes facts handed only to the waiters of their fetch (too large to be
    kept for reuse: `Stamp.awaited_only`) rather than fetch by itself: when that fetch took
    AWAITED_MIN_FETCH_S or more (reading a large item is then the quicker, and a crowd of its
    readers the lighter load on the site), or when a fetch of its own would not end within its
    budget. A quick site's waiters fetch by themselves, side by side, as for any unshareable
    facts."""
    return stamp.fetch_s >= AWAITED_MIN_FETCH_S or now + stamp.fetch_s > budget_end


def lasting_mark_held(item: Item | None, now: float, held_s: float) -> bool:
    """True when the site's last fetch could not be shared for a lasting reason (too large, a
    credential echoed), marked within `held_s`, and no lease is live: the next fetch would not
    be shareable either, so an audit fetches by itself without taking the lease."""
    return (
        item is not None
        and item.unshareable_lasting
        and item.unshareable_at is not None
        and now - item.unshareable_at <= held_s
        and not item.lease_held
    )


def dead_mark_held(item: Item | None, now: float) -> bool:
    """True when a waiter marked the site's last holders dead (DEAD_HOLDERS in a row) within
    DEAD_HOLDERS_HOLD_S, and no lease is live: an audit fetches by itself without waiting for a
    holder (those that waited on the marked lease, and newcomers alike)."""
    return (
        item is not None
        and item.unshareable_flight == Unshareable.DEAD.value
        and item.unshareable_at is not None
        and now - item.unshareable_at <= DEAD_HOLDERS_HOLD_S
        and not item.lease_held
    )
