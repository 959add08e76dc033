"""Which audit of a site fetches it, as a pure state machine (docs/contract.md §7).

The site's shared item holds the stamp of its last facts (when they were fetched, how long that
took, whether they hold a transient answer, under whose lease) and, while an audit fetches the
site, that audit's lease. An audit asks a `Protocol` what to do (read the item, take the lease,
sleep until a time, fetch, publish, mark its facts unshareable, or finish), does it, and tells the
machine what came of it. The machine makes no call, reads no clock and never sleeps: `sharing`
drives it against the real store, the unit tests and `bench/scale.py` against fakes in virtual
time. Times are wall-clock seconds (stamps, windows, the lease's writes), but for whether a
holder is alive, which a waiter judges on its own monotonic clock (`liveness`, `step`'s `mono`);
its `budget_end` is the audit's monotonic budget as the wall clock reads it, which the driver
sets again before each step (a wall clock stepped meanwhile moves it too).
The values, actions and observations it deals in are defined in `vocabulary`, the pure rules it
decides with and their limits in `rules`; both are named here.

What it guarantees (section 7): an audit waits for a fetch as long as that fetch's lease is
renewed, up to its own budget; a store that throttles keeps it waiting with jittered backoff;
only a store that does not answer, a holder that stopped renewing or its own budget make it act
alone; an unshareable fetch releases every waiter at once; facts holding a transient answer go
only to the audits that waited for that very fetch; facts in the last part of their window are
refreshed by one audit while the others go on reusing them; and no audit writes a conditional
lease over a lease it has just read, but over a holder's whose renewal count stood still past its
period and a grace on the waiter's own clock (`liveness.holder_late`), and then only over that
lease unchanged. Also: an audit knows its own lease (by its token, after a write whose answer was
lost) and never waits on it; a waiter on a late holder fetches beside it (`hedge`) when a
takeover would outlast its budget or its wait is already a few fetches long; facts stamped
further ahead of the reader's clock than CLOCK_SKEW_S are reused by no audit, but are the facts
of the fetch that its waiters awaited; an audit whose budget cannot cover the site's recorded
fetch does not hold the lease, nor do its process's other audits wait for its fetch
(`hedge_local`: they wait for their process's fetch to its end otherwise); a lasting mark is
heeded for UNSHAREABLE_HOLD_S, past the window, by the lease write (`TakeLease.marked_since`) as
by the read; a waiter that has seen DEAD_HOLDERS holders in a row die marks the last one's lease
instead of taking it over, and that mark sends every audit that reads it within
DEAD_HOLDERS_HOLD_S to fetch by itself (`dead_mark_held`); an early waiter on a holder whose
fetch has run past `standby_after_s` fetches beside it in the site's standby slot (`standby`),
and a waiter that finds the holder late reads that slot before it takes over or hedges; facts
found too large to share only at the end of their fetch (more than the end may add,
facts.UNSHOWN_BYTES: none of the audit's fetches do, the protocol does not count on it) are
published for that fetch's waiters alone (`Stamp.awaited_only`, with a lasting mark), which
take them when a fetch of their own would cost more (`takes_awaited`).
"""

from __future__ import annotations

import math
import random
from dataclasses import replace

from sitemap_auditor.sharing.liveness import (
    FIRST_RENEWAL_S,
    LATE_GRACE_S,
    LEASE_RENEW_S,
    LEASE_S,
    Watch,
    renewal_due_s,
    renewed_age_s,
)
from sitemap_auditor.sharing.phases import TRANSITIONS, Phase
from sitemap_auditor.sharing.rules import (
    AWAITED_MIN_FETCH_S,
    BACKOFF_BASE_S,
    BACKOFF_MAX_S,
    CHURNED_HOLDERS,
    CLOCK_SKEW_S,
    DEAD_HOLDERS,
    DEAD_HOLDERS_HOLD_S,
    MAX_REFUSED_WRITES,
    OVERDUE_FACTOR,
    POLL_MAX_S,
    POLL_MIN_S,
    POLL_SHARE,
    PUBLISH_RETRY_S,
    REFRESH_BETA,
    REFRESH_MIN_FETCH_S,
    STANDBY_EARLY_S,
    STANDBY_MIN_S,
    TAKEOVER_JITTER_S,
    THROTTLED_PATIENCE_S,
    UNKNOWN_FETCH_S,
    UNSHAREABLE_HOLD_S,
    abandoned,
    as_read,
    awaited_facts,
    backoff_s,
    credible_until,
    dead_mark_held,
    due,
    hedge,
    hedge_local,
    lasting_mark_held,
    may_take,
    owns_lease,
    poll_base_s,
    poll_s,
    renewal_s,
    standby,
    standby_after_s,
    standby_ended,
    takes_awaited,
    usable,
)
from sitemap_auditor.sharing.vocabulary import (
    Action,
    FetchAlone,
    Fetched,
    FetchHolding,
    Finish,
    Item,
    LeaseRefused,
    LeaseTaken,
    MarkUnshareable,
    Observation,
    Publish,
    Read,
    ReadDone,
    Reason,
    Sleep,
    Slept,
    Source,
    Stamp,
    StoreAnswered,
    StoreFailed,
    TakeLease,
    Unshareable,
    Use,
)

__all__ = [
    "AWAITED_MIN_FETCH_S",
    "BACKOFF_BASE_S",
    "BACKOFF_MAX_S",
    "CHURNED_HOLDERS",
    "CLOCK_SKEW_S",
    "DEAD_HOLDERS",
    "DEAD_HOLDERS_HOLD_S",
    "FIRST_RENEWAL_S",
    "LATE_GRACE_S",
    "LEASE_RENEW_S",
    "LEASE_S",
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
    "TRANSITIONS",
    "UNKNOWN_FETCH_S",
    "UNSHAREABLE_HOLD_S",
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
    "Phase",
    "Protocol",
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
    "renewal_due_s",
    "renewal_s",
    "standby",
    "standby_after_s",
    "standby_ended",
    "takes_awaited",
    "usable",
]

# --- the machine --------------------------------------------------------------------------------


class Protocol:
    """One audit's part in the lease protocol: from what it observes, what it does next."""

    def __init__(
        self,
        owner: str,
        window_s: float,
        budget_end: float,
        known: Stamp | None,
        rng: random.Random,
        draw: float | None = None,
    ) -> None:
        self.owner = owner
        self.window_s = window_s
        # How long a lasting unshareable mark is heeded: newcomers fetch by themselves meanwhile.
        self.mark_held_s = max(window_s, UNSHAREABLE_HOLD_S)
        self.budget_end = budget_end
        self.known = known
        self.rng = rng
        # The audit's one draw for refreshing ahead (the same as its process's local choice).
        self.draw = rng.random() if draw is None else draw
        self.waiting_for: str | None = None  # the holder whose fetch this audit waits for
        self.waited_since: float | None = None
        # The facts the item held when the wait began: no fetch it waits for gave them.
        self._before: Stamp | None = None
        self.throttled = 0  # throttled answers ridden out, in all
        self._in_a_row = 0
        self._throttled_since: float | None = None
        # The first of lease writes throttled with no write answered since (nor a lease seen to
        # wait on): the reads between them answer, but do not make the store less throttled.
        self._writes_throttled_since: float | None = None
        self._silent_since: float | None = None  # unanswered calls in a row, since
        self._refresh = False
        self._retry: Action | None = None  # the call a throttled answer repeats
        self._retry_deadline: float | None = None
        self._fetched: Stamp | None = None
        self._unshareable: Unshareable | None = None
        # Taking over a late holder's lease: TAKEOVER_JITTER (sleeping first), then TAKEOVER_CONFIRM
        # (reading again); None otherwise.
        self._takeover: Phase | None = None
        self.phase = Phase.LOOKING  # its first action, `start`, is a read
        self._best: Use | None = None  # in a refresh, which current facts are in hand
        self.failed_writes = 0
        # A lease write was just asked for: a failure now may be a write the table applied but
        # whose answer was lost (a timeout), which the next read shows as this audit's own lease.
        self._taking = False
        self._unsure_writes = 0
        self._fetch_s: float | None = known.fetch_s if known is not None else None
        # The renewals seen of the holder waited on, on this audit's monotonic clock.
        self._watch: Watch | None = None
        # The holders it has seen late, or replaced by another's takeover (none gave facts, or
        # it would have finished), and whether it is marking the last of them dead.
        self._late: set[str] = set()
        self._releasing = False
        # The standby slot: asked for once (`standby`), being asked for, and when it was taken
        # (wall clock; None: this audit is no standby).
        self._standby_asked = False
        self._standby_pausing = False  # a random pause first (TAKEOVER_JITTER_S), as a takeover
        self._standby_looking = False  # then a consistent read of the slot
        self._standby_asking = False
        self.standby_since: float | None = None
        # A late holder confirmed, whose standby slot it reads before taking over (that lease as
        # read); and until when it takes a standby it saw fetching for alive (wall clock).
        self._slot_for: Item | None = None
        self._standby_alive_until = -math.inf
        self._standby_flight: str | None = None  # the standby seen fetching, whose facts it takes
        self._ended_slot_read = False  # the item read again once for a standby just ended
        # This audit's monotonic clock at the step being taken.
        self._mono = 0.0
        # When this audit asked for its own lease, on its monotonic clock (its renewals keep to
        # the schedule from then: `liveness.renewal_due_s`).
        self.taken_at: float | None = None

    # The first action: an eventually consistent read. Reuse is the common case, and facts never
    # change once written: a read that lags shows an older state, which leads at worst to one
    # conditional write that fails, cheaper than a consistent read (twice the units) every time.
    def start(self) -> Action:
        """The first thing to do."""
        return Read(consistent=False)

    def step(self, seen: Observation, now: float, mono: float | None = None) -> Action:
        """The next thing to do, given what came of the last one, at this time: `now` on the wall
        clock (stamps, windows, the lease's writes), `mono` on this audit's own monotonic clock
        (how long a holder's renewal count has stood still); None: `now` is both (a clock that
        never steps, as in virtual time)."""
        self._mono = now if mono is None else mono
        action = self._step(seen, now)
        self.phase = self._phase_of(action)
        return action

    def _phase_of(self, action: Action) -> Phase:
        """The phase that asking for this action puts the audit in."""
        if isinstance(action, (Read, Sleep)):
            if self._takeover is not None:
                return self._takeover
            if self._fetched is not None:
                # A throttled publish or mark, tried again; a standby's look before its publish.
                return Phase.PUBLISHING
            return Phase.WAITING if self.waiting_for is not None else Phase.LOOKING
        if isinstance(action, FetchHolding) and action.standby:
            return Phase.STANDBY
        phases: dict[type, Phase] = {
            TakeLease: Phase.TAKING,
            FetchHolding: Phase.HOLDING,
            Publish: Phase.PUBLISHING,
            MarkUnshareable: Phase.PUBLISHING if self._fetched is not None else Phase.RELEASING,
            FetchAlone: Phase.ALONE,
            Finish: Phase.DONE,
        }
        return phases[type(action)]

    def _step(self, seen: Observation, now: float) -> Action:
        taking, self._taking = self._taking, False
        if self._releasing:
            # Its mark over the dead holders is written, or not: either way, it fetches now.
            return FetchAlone(Reason.UNSHAREABLE)
        decided = self._standby_step(seen, now)
        if decided is not None:
            return decided
        if isinstance(seen, StoreFailed):
            return self._failed(seen, now, taking)
        if not isinstance(seen, Slept):
            self._in_a_row = 0
            self._throttled_since = None
            self._silent_since = None
            if not isinstance(seen, ReadDone):
                self._writes_throttled_since = None  # a write answered
        if isinstance(seen, ReadDone):
            action = self._read(seen.item, now)
            if self.waiting_for is not None:
                self._writes_throttled_since = None  # a lease to wait on: no write to make
            return action
        if isinstance(seen, LeaseTaken):
            return FetchHolding(refresh=self._refresh)
        if isinstance(seen, LeaseRefused):
            self.failed_writes += 1
            if self.failed_writes >= MAX_REFUSED_WRITES:
                return FetchAlone(Reason.STORE_FAILED)
            if self._refresh:
                # Another audit refreshes, or just did: the facts in hand are still current.
                return Finish(self._best or Use.KNOWN, Source.REUSED)
            # The view was stale: read the truth before deciding again.
            return Read(consistent=True)
        if isinstance(seen, Slept):
            if self._retry is not None:
                retry, self._retry = self._retry, None
                return retry
            if self._takeover is Phase.TAKEOVER_JITTER:
                self._takeover = Phase.TAKEOVER_CONFIRM
                # Consistent: the takeover writes on what this read shows.
                return Read(consistent=True)
            # Polls are eventually consistent: they look for the holder's facts or the end of its
            # lease, and a stale answer costs only one more poll, at half the units.
            return Read(consistent=False)
        if isinstance(seen, Fetched):
            self._fetched = seen.stamp
            self._unshareable = seen.unshareable
            self._retry_deadline = now + PUBLISH_RETRY_S
            if seen.unshareable is not None:
                if seen.marked:
                    return self._holder_done()  # the waiters were told mid-fetch
                if seen.for_waiters and seen.stamp.fetch_s >= AWAITED_MIN_FETCH_S:
                    # Found too large only at the end of a slow fetch: its waiters may no longer
                    # have the time to fetch by themselves, so the facts go to them (and to no
                    # one else). A quicker fetch's waiters fetch by themselves (`takes_awaited`):
                    # its facts are not written for nobody (a large item, paid by the KB).
                    return Publish(self._owned(replace(seen.stamp, awaited_only=True)))
                return MarkUnshareable(now, seen.unshareable)
            return Publish(self._owned(seen.stamp))
        # StoreAnswered: the publish or the mark is written.
        return self._holder_done()

    # --- reading the item -----------------------------------------------------------------------

    def _current(self, item: Item | None, now: float) -> tuple[Use, Stamp] | None:
        """The newest facts any audit may reuse now, and whose they are, if any."""
        stored = item.stamp if item is not None else None
        best: tuple[Use, Stamp] | None = None
        for use, stamp in ((Use.KNOWN, self.known), (Use.STORED, stored)):
            if stamp is None or not usable(stamp, self.window_s, now):
                continue
            if best is None or stamp.fetched_at > best[1].fetched_at:
                best = (use, stamp)
        return best

    def _read(self, item: Item | None, now: float) -> Action:
        """What to do with the item as read: the first of these rules that decides."""
        self._note_fetch_time(item)
        if item is not None and owns_lease(item, self.owner):
            return self._hold_own(item)
        decided = self._awaited(item, now)
        if decided is None:
            decided = self._reuse(item, now)
        if decided is None and (
            lasting_mark_held(item, now, self.mark_held_s) or dead_mark_held(item, now)
        ):
            decided = FetchAlone(Reason.UNSHAREABLE)
        if decided is not None:
            return decided
        if item is not None and item.lease_held:
            return self._wait_on(item, now)
        if self._holder_gone():
            return self._takeover_pause(now)
        self._takeover = None
        # A waiter whose holder is gone without facts knows the fetch lasts at least as long as
        # that holder had fetched when last seen renewing.
        gone = self._watch if self.waiting_for is not None else None
        return self._take(now, floor_s=renewed_age_s(gone.renewals) if gone is not None else 0.0)

    def _note_fetch_time(self, item: Item | None) -> None:
        """Remember the site's last recorded fetch time, when the item's facts record one."""
        stamp = item.stamp if item is not None else None
        if stamp is not None and stamp.fetch_s > 0:
            self._fetch_s = stamp.fetch_s

    def _hold_own(self, item: Item) -> Action:
        """The lease read is this audit's own (from a write whose answer was lost): it is the
        holder, which the others wait for, and fetches; its renewals keep to the schedule from when
        it asked for the lease (`taken_at`), no later than the store applied it."""
        self._takeover = None
        return FetchHolding(refresh=self._refresh)

    def _awaited(self, item: Item | None, now: float) -> Action | None:
        """For a waiter: the facts of the very fetch it waited for (its holder's, or those of a
        standby it saw fetching beside it; transient ones included) are its facts; a mark that
        that fetch's facts cannot be shared sends it (and every other waiter, side by side) to
        fetch now. None: neither is there."""
        waiting = self.waiting_for
        if waiting is None or item is None:
            return None
        stamp = item.stamp
        standbys = stamp is not None and stamp.flight == (self._standby_flight or waiting)
        if standbys or awaited_facts(stamp, waiting, self.waited_since, self._before):
            assert stamp is not None
            if stamp.awaited_only and not takes_awaited(stamp, now, self.budget_end):
                return FetchAlone(Reason.UNSHAREABLE)
            return Finish(Use.STORED, Source.WAITED)
        if item.unshareable_flight == waiting:
            return FetchAlone(Reason.UNSHAREABLE)
        return None

    def _reuse(self, item: Item | None, now: float) -> Action | None:
        """Current facts (the process's or the item's, the newer) are used, unless this audit's
        draw makes them due for a refresh and no lease is live (another audit refreshes them
        then): it takes the lease to refresh them. None: no current facts."""
        current = self._current(item, now)
        if current is None:
            return None
        use, best = current
        source = Source.WAITED if self.waiting_for is not None else Source.REUSED
        if not due(best, self.window_s, now, self.draw):
            return Finish(use, source)
        if item is not None and item.lease_held:
            return Finish(use, source)  # another audit refreshes them
        self._refresh = True
        self._best = use
        return self._take(now)

    def _wait_on(self, item: Item, now: float) -> Action:
        """A lease of another audit: note its holder and renewals, then poll again while it renews
        on time; a late one (its renewal count stood still past its period and a grace, on this
        audit's own clock) it fetches beside when it cannot afford to wait out a takeover
        (`hedge`), and takes over otherwise, after a pause and a consistent read that shows it
        still late, the write conditional on that lease unchanged (a renewal meanwhile, or
        another's takeover, refuses it)."""
        confirming = self._takeover is Phase.TAKEOVER_CONFIRM
        self._takeover = None
        watch = self._watching(item, now)
        waited = now - (self.waited_since or now)
        if len(self._late - {watch.holder}) >= CHURNED_HOLDERS:
            return FetchAlone(Reason.HEDGED)  # holders that churn: it bets on no further one
        if not watch.late(self._mono) and not abandoned(item, now):
            age = watch.age(self._mono)
            if not self._standby_asked and standby(
                now, self.budget_end, self._fetch_s, waited, age
            ):
                return self._standby_pause(now)
            return self._sleep(now + poll_s(waited, self.rng), now)
        assert item.lease_owner is not None
        self._late.add(item.lease_owner)
        if confirming and len(self._late) >= DEAD_HOLDERS:
            # Still late on the consistent read: the second holder in a row to die. Its lease
            # ends with a mark that lets every waiter fetch now, not wait for a third.
            self._releasing = True
            return MarkUnshareable(now, Unshareable.DEAD, over=item.lease_owner)
        if now < self._standby_alive_until:
            # A standby fetches beside the dead holder: its facts come sooner than a takeover's
            # or a hedge's would.
            return self._sleep(now + poll_s(waited, self.rng), now)
        seen_standby = self._standby_alive_until > -math.inf
        if seen_standby or (
            confirming and renewed_age_s(item.lease_renewals) >= standby_after_s(self._fetch_s)
        ):
            # The holder fetched long enough for a standby to have begun (or one was seen, a
            # lease's length ago): its slot says whether it still fetches.
            self._slot_for = item
            return Read(consistent=True, standby=True)
        return self._over_late(item, now, confirming)

    def _over_late(self, item: Item, now: float, confirming: bool) -> Action:
        """A late holder, no standby beside it: fetch beside it when a takeover would outlast
        the budget (`hedge`), or take it over (after the pause, on the consistent read)."""
        floor = renewed_age_s(item.lease_renewals)
        if hedge(now, self.budget_end, self._fetch_s, self.waited_s(now), floor):
            return FetchAlone(Reason.HEDGED)
        if confirming:
            return self._take(now, item)
        return self._takeover_pause(now)

    def _watching(self, item: Item, now: float) -> Watch:
        """The watch on this lease's holder, after this read: a new holder (the first seen, or one
        that took over) starts a new one (the wait began at the first); a read showing its count
        moved on is a renewal, on this audit's own clock (`liveness.Watch`)."""
        assert item.lease_owner is not None and item.lease_until is not None
        watch = self._watch
        if watch is None or watch.holder != item.lease_owner:
            if watch is not None:
                # Replaced without facts: another waiter took the late holder over.
                self._late.add(watch.holder)
            self.waiting_for = item.lease_owner
            if self.waited_since is None:
                self.waited_since = now
                self._before = item.stamp
            watch = self._watch = Watch.first(
                item.lease_owner, item.lease_renewals, item.lease_until, self._mono
            )
        else:
            watch.see(item.lease_renewals, item.lease_until, self._mono)
        return watch

    def _holder_gone(self) -> bool:
        """True when the lease this audit waited on is gone without facts (read as none: its end
        further ahead than a lease runs, or the item deleted), unless this read was already the
        one confirming a takeover."""
        return self.waiting_for is not None and self._takeover is not Phase.TAKEOVER_CONFIRM

    def _takeover_pause(self, now: float) -> Action:
        """Before taking over a dead or late holder's lease: a random pause, so that one waiter's
        new lease is seen by the others first, then a consistent read (TAKEOVER_CONFIRM)."""
        self._takeover = Phase.TAKEOVER_JITTER
        return self._sleep(now + self.rng.uniform(0.0, TAKEOVER_JITTER_S), now)

    def _fetch_floor(self, item: Item) -> float | None:
        """How long the site's fetch takes at least, as this waiter knows it: its recorded time,
        and never less than a late holder had fetched when it last renewed (None: neither)."""
        floor = max(self._fetch_s or 0.0, renewed_age_s(item.lease_renewals))
        return floor if floor > 0 else None

    def _take(self, now: float, over: Item | None = None, floor_s: float = 0.0) -> Action:
        fetch_s = self._fetch_s if over is None else self._fetch_floor(over)
        if floor_s > (fetch_s or 0.0):
            fetch_s = floor_s
        if not self._refresh and fetch_s is not None and now + fetch_s > self.budget_end:
            # Its budget would cut the site's fetch short: as the holder, it would make others
            # wait for facts that cannot be shared. It fetches by itself; another takes the lease.
            return FetchAlone(Reason.BUDGET)
        # The write fails when facts in the first half of their window (never refreshed ahead)
        # were stored meanwhile: another audit has just fetched the site.
        self._taking = True
        self.taken_at = self._mono
        due = now - self.window_s / 2
        marked_since = now - self.mark_held_s
        if over is not None:
            return TakeLease(
                until=now + LEASE_S,
                now=now,
                due=due,
                marked_since=marked_since,
                over_owner=over.lease_owner,
                over_until=over.lease_until,
            )
        return TakeLease(until=now + LEASE_S, now=now, due=due, marked_since=marked_since)

    def waited_s(self, now: float) -> float:
        """How long this audit has waited for another's fetch, by now (a standby's wait ended
        when it took the slot)."""
        if self.standby_since is not None:
            now = self.standby_since
        return 0.0 if self.waited_since is None else max(0.0, now - self.waited_since)

    def _sleep(self, until: float, now: float) -> Action:
        if now >= self.budget_end:
            return FetchAlone(Reason.BUDGET)
        return Sleep(min(until, self.budget_end))

    def _owned(self, stamp: Stamp) -> Stamp:
        return replace(stamp, flight=self.owner)

    # --- failures -------------------------------------------------------------------------------

    def _failed(self, seen: StoreFailed, now: float, taking: bool) -> Action:
        holding = self._fetched is not None
        if holding:
            assert self._retry_deadline is not None
            if not seen.throttled or now >= min(self._retry_deadline, self.budget_end):
                # The waiters learn of it when the lease lapses.
                return self._holder_done()
            self.throttled += 1
            self._in_a_row += 1
            assert self._fetched is not None
            if self._unshareable is not None:
                self._retry = MarkUnshareable(now, self._unshareable)
            else:
                self._retry = Publish(self._owned(self._fetched))
            wake = now + backoff_s(self._in_a_row, self.rng)
            return Sleep(min(wake, self._retry_deadline, self.budget_end))
        if self._current(None, now) is not None:
            # This process's facts are still current: no need to wait for the store.
            return Finish(Use.KNOWN, Source.REUSED)
        if not seen.throttled:
            if taking and self._unsure_writes == 0:
                # A lease write without an answer may still have been applied: one consistent
                # read says whether the lease is this audit's (then it holds it), before it
                # would fetch by itself and leave a lease that nobody renews.
                self._unsure_writes += 1
                return Read(consistent=True)
            if self.waiting_for is not None:
                # One answer lost (a read past its timeout, in a long tail) is not a store that
                # does not answer: a waiter on a holder reads again, with backoff, for
                # THROTTLED_PATIENCE_S of failures in a row, before it fetches by itself (its
                # own fetch may no longer fit its budget; the holder's facts may).
                if self._silent_since is None:
                    self._silent_since = now
                if now - self._silent_since < THROTTLED_PATIENCE_S:
                    self._in_a_row += 1
                    self._retry = Read(consistent=False)
                    return self._sleep(now + backoff_s(self._in_a_row, self.rng), now)
            return FetchAlone(Reason.STORE_FAILED)
        # Throttled: the store answered, later. Keep waiting, and read again after a backoff
        # (a throttled write is not repeated blindly: the item may have changed meanwhile, and
        # may hold this audit's own lease, which a consistent read shows).
        self.throttled += 1
        self._in_a_row += 1
        if self._throttled_since is None:
            self._throttled_since = now
        if taking and self._writes_throttled_since is None:
            self._writes_throttled_since = now
        # Throttled for THROTTLED_PATIENCE_S in a row, or its lease writes for that long though
        # the reads between them answer (a hot key: writes run out of capacity first).
        writes = self._writes_throttled_since
        since = self._throttled_since if writes is None else min(self._throttled_since, writes)
        if self.waiting_for is None and now - since >= THROTTLED_PATIENCE_S:
            return FetchAlone(Reason.STORE_FAILED)
        self._retry = Read(consistent=taking or self._takeover is not None or self._refresh)
        return self._sleep(now + backoff_s(self._in_a_row, self.rng), now)

    def _holder_done(self) -> Action:
        reason = Reason.REFRESH if self._refresh else Reason.HOLDER
        if self.standby_since is not None:
            reason = Reason.STANDBY
        return Finish(Use.OWN, Source.FETCHED, reason)

    # --- the standby slot -----------------------------------------------------------------------

    def _standby_pause(self, now: float) -> Action:
        """Before asking for the standby slot (once): a random pause, then a consistent read of
        the slot, so that of a crowd of early waiters one writes it and the others see it taken."""
        self._standby_asked = self._standby_pausing = True
        return self._sleep(now + self.rng.uniform(0.0, TAKEOVER_JITTER_S), now)

    def _take_standby(self, now: float) -> Action:
        """Ask for the site's standby slot: a lease of its own beside the holder's."""
        self._standby_asking = True
        self.taken_at = self._mono
        return TakeLease(
            until=now + LEASE_S,
            now=now,
            due=now - self.window_s / 2,
            marked_since=math.inf,
            standby=True,
        )

    def _standby_seen(self, slot: Item, now: float) -> None:
        """Another audit stands by in the slot: counted on for a lease's length, and its facts
        are the wait's, as the holder's are (`_awaited`), whatever its clock stamped on them."""
        self._standby_alive_until = now + LEASE_S
        self._standby_flight = slot.lease_owner

    def _standby_step(self, seen: Observation, now: float) -> Action | None:
        """What a standby does next, an audit that asked for the slot, or one that read it before
        a takeover; None: not one."""
        if self._slot_for is not None:
            late, self._slot_for = self._slot_for, None
            slot = seen.item if isinstance(seen, ReadDone) else None
            if slot is not None and slot.lease_held and not abandoned(slot, now):
                # The standby is fetching: wait for its facts (its slot's lease runs LEASE_S).
                self._standby_seen(slot, now)
                return self._sleep(now + poll_s(self.waited_s(now), self.rng), now)
            if standby_ended(slot, now) and not self._ended_slot_read:
                # Just done, since the item was read: its facts are likely there now (read once).
                self._ended_slot_read = True
                return Read(consistent=True)
            # None, or gone: the late holder is taken over (or hedged), as without a standby.
            self._standby_alive_until = -math.inf
            return self._over_late(late, now, confirming=True)
        if self._standby_pausing and isinstance(seen, Slept):
            self._standby_pausing = False
            self._standby_looking = True
            return Read(consistent=True, standby=True)
        if self._standby_looking:
            self._standby_looking = False
            slot = seen.item if isinstance(seen, ReadDone) else None
            if isinstance(seen, StoreFailed) or (
                slot is not None and slot.lease_held and not abandoned(slot, now)
            ):
                if slot is not None:
                    self._standby_seen(slot, now)  # another stands by
                return self._sleep(now + poll_s(self.waited_s(now), self.rng), now)
            if standby_ended(slot, now):
                return Read(consistent=True)  # a standby just ended its slot: its facts first
            took = self._fetch_s or UNKNOWN_FETCH_S
            age = self._watch.age(self._mono) if self._watch is not None else 0.0
            if now + max(took, age) > self.budget_end:
                # The pause and the read took what `standby` had left over: it waits on.
                return self._sleep(now + poll_s(self.waited_s(now), self.rng), now)
            return self._take_standby(now)
        if self._standby_asking:
            self._standby_asking = False
            if isinstance(seen, LeaseTaken):
                self.standby_since = now
                return FetchHolding(refresh=False, standby=True)
            # Another's, or no answer (a slot taken but not answered lapses): it waits on.
            self.taken_at = None
            if isinstance(seen, LeaseRefused):
                self._standby_alive_until = now + LEASE_S  # another stands by
            return self._sleep(now + poll_s(self.waited_s(now), self.rng), now)
        if self.standby_since is None:
            return None
        if isinstance(seen, Fetched):
            self._fetched = seen.stamp
            self._retry_deadline = now + PUBLISH_RETRY_S
            if seen.unshareable is not None:
                return self._holder_done()  # its own facts; the holder marks the lease
            return Read(consistent=True)  # whether the wait's facts came first
        if isinstance(seen, ReadDone):
            assert self._fetched is not None and self.waiting_for is not None
            stamp = seen.item.stamp if seen.item is not None else None
            if awaited_facts(stamp, self.waiting_for, self.waited_since, self._before):
                return self._holder_done()  # the holder (or a takeover) published first
            return Publish(self._owned(self._fetched))
        return None
