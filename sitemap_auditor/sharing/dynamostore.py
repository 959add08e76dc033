"""The shared store of site facts in a DynamoDB table (docs/contract.md §7).

One item per site key: `pk`; the facts (`facts`: their length as 4 bytes, big-endian, then their
JSON compressed with zlib) with their stamp (`fetched_at`, `fetch_s`, `transient`, `flight`: the
lease under which they were fetched);
`expires_at` (the table's TTL attribute); while an audit fetches the site, `lease_owner` /
`lease_until`, `lease_at` (when it took the lease, for operators) and `lease_renewals` (how often
it renewed the lease: what waiters judge it by, on their own clocks, `liveness`); and
after a fetch whose facts could not be shared, `unshareable_flight`, `unshareable_at` and
`unshareable_lasting`. Facts that compress to more than INLINE_FACTS_BYTES
are kept out of the site's item, in an item of their own (`pk` + FACTS_SUFFIX + `|` + the
flight, one a flight, so that two publishes close together never leave the site's item
referring to the other's facts; with `facts`,
`flight` and `expires_at`), and the site's item holds only the reference `facts_ref` (that item's
`flight`): every lease write, renewal and poll then costs what a small site's does, and only an
audit that uses the facts reads them.

Nothing read is trusted as written (docs/contract.md §7): `read_item` checks each attribute's
type, size and time against what this module writes, inflates the facts in bounded steps up to
their stated length, and refuses anything else as InvalidItemError; the store then reads the
item as no item and tells the audit why (`on_rejected`), and its conditional writes treat what
the reader refuses (a time as text, a lease or facts further ahead than a clock can be) as absent.
Facts and marks stamped further ahead than that are kept in what is read (`lease.as_read`, with
why they are refused): no audit reuses such facts (`lease.usable`), but the audits that waited
for their very fetch take them, and a fetch's mark so stamped is its flight's to that
flight's waiters only (a mark that holders died, so stamped, refuses the item).
boto3 is imported only when a table is configured.
"""

from __future__ import annotations

import contextlib
import math
import re
import threading
import time
import uuid
import zlib
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

from sitemap_auditor.core import candidates
from sitemap_auditor.core import facts as site_facts
from sitemap_auditor.core.bounded import PastDueError, within
from sitemap_auditor.core.errors import InvalidItemError, StoreError
from sitemap_auditor.sharing import lease
from sitemap_auditor.sharing.driver import RETENTION_S, StoredItem, site_of_key

__all__ = [
    "CONNECT_TIMEOUT_S",
    "FACTS_SUFFIX",
    "INLINE_FACTS_BYTES",
    "MAX_ATTEMPTS",
    "MAX_AWAITED_BYTES",
    "MAX_ITEM_BYTES",
    "READ_TIMEOUT_S",
    "THROTTLING_CODES",
    "DynamoStore",
    "client",
    "facts_key",
    "published_item",
    "read_item",
    "reset",
    "warm",
]

# Facts that compress to more than this are not shared between containers (they stay in the
# process): an item is read whole by every audit that uses it, and one partition serves 3,000
# read units a second, so that a burst of 1,000 audits of one site reading facts of 32 KB (4 units
# each, eventually consistent) would be throttled for more than a second, longer than most
# fetches (bench/scale.py). Encoded facts measure 600 bytes to a few KB.
MAX_ITEM_BYTES = 16 * 1024
# DynamoDB bills a read 1 unit per 4 KB of the item (half, eventually consistent) and a write 1 unit
# per KB (the larger of before and after, for an update). Facts kept in the site's item up to this
# size leave it under 4 KB: every poll and reuse reads it for half a unit, as small facts (reads
# outnumber writes: each container's reuse, each waiter's polls). Larger facts would make every
# poll and every lease write cost more: they go in an item of their own.
INLINE_FACTS_BYTES = 3 * 1024
# Facts over MAX_ITEM_BYTES that a fetch found only at its end are still handed to the audits
# that waited for it (lease.Stamp.awaited_only), in their item of their own, up to this: a
# DynamoDB item holds 400 KB. Each of those waiters reads them once; no one else does.
MAX_AWAITED_BYTES = 350 * 1024
# The key of the item holding a site's facts kept out of its item (a siteBase has no `|`).
FACTS_SUFFIX = "|facts"
# The facts attribute: their length (what they inflate to), then the zlib stream.
_LENGTH_BYTES = 4
# Facts are inflated this much at a time, so that no stream, whatever it claims, is inflated
# further than its stated length (itself at most facts.MAX_FACTS_BYTES) plus one step.
INFLATE_STEP_BYTES = 64 * 1024
# Lease owners and flights are uuid4 hex strings (32 characters); room for a longer token.
MAX_OWNER_CHARS = 128
# A number as DynamoDB gives it back: digits, a fraction, an exponent (no NaN, no infinity).
_NUMBER = re.compile(r"-?[0-9]{1,40}(?:\.[0-9]{1,40})?(?:[eE][+-]?[0-9]{1,3})?")
# Every call is bounded: a slow or failing store must cost an audit seconds, not minutes
# (boto3's defaults are 60 s reads and several retries).
CONNECT_TIMEOUT_S = 1.0
READ_TIMEOUT_S = 2.0
# A lease write has a read timeout of its own, far shorter: DynamoDB answers a write within tens
# of milliseconds (p99.9), and a write tried again is safe (the audit's own lease token makes the
# second write succeed over the first). A lost answer then costs every audit that takes the lease
# this, not READ_TIMEOUT_S, before the retry or the consistent read that finds its own lease.
LEASE_WRITE_READ_TIMEOUT_S = 0.3
MAX_ATTEMPTS = 2  # in all, the first included (botocore's `total_max_attempts`)
# botocore's standard mode waits up to this long before a retry (a throttled call's too).
RETRY_BACKOFF_S = 1.0
# The longest any call may take (10 s): what its timeouts and botocore's backoff allow (6 s and
# 1 s; a lease write's are shorter), and as much again as a loaded machine adds between them,
# which a name lookup of the endpoint, bounded by no timeout, must not stretch. Cut sooner, a
# slow but throttled call would read as a store that did not answer, and its waiter fetch.
WORST_CALL_S = MAX_ATTEMPTS * (CONNECT_TIMEOUT_S + READ_TIMEOUT_S) + RETRY_BACKOFF_S + 3.0
# What DynamoDB answers when it throttles: the store answered, later (section 7: a waiter keeps
# waiting, with backoff). Every other failure is a store that did not answer usefully.
THROTTLING_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "RequestLimitExceeded",
        "Throttling",
        "ThrottledException",
    }
)

_clients: dict[str, Any] = {}
_clients_lock = threading.Lock()


def client(lease_writes: bool = False) -> Any:
    """The process's DynamoDB client (and one for lease writes, with a shorter read timeout);
    the endpoint and region come from the environment as boto3 reads them
    (AWS_ENDPOINT_URL_DYNAMODB, AWS_REGION)."""
    name = "dynamodb-lease" if lease_writes else "dynamodb"
    with _clients_lock:
        client = _clients.get(name)
        if client is None:
            import boto3
            from botocore.config import Config

            config = Config(
                connect_timeout=CONNECT_TIMEOUT_S,
                read_timeout=LEASE_WRITE_READ_TIMEOUT_S if lease_writes else READ_TIMEOUT_S,
                retries={"total_max_attempts": MAX_ATTEMPTS, "mode": "standard"},
            )
            client = _clients[name] = boto3.session.Session().client("dynamodb", config=config)
        return client


def warm() -> None:
    """Import boto3 and build the client now (at start-up), so that no audit pays for it."""
    try:
        client()
        client(lease_writes=True)
    except Exception:  # noqa: BLE001 -- the first audit meets the same failure as a StoreError
        reset()


def reset() -> None:
    """Forget the client (for tests that change the endpoint)."""
    with _clients_lock:
        _clients.clear()


def _code(e: Exception) -> str:
    if isinstance(e, PastDueError):
        return "PastDue"  # no answer within the call's bound, or before the audit's was due
    response = getattr(e, "response", None)
    if isinstance(response, dict):
        code = response.get("Error", {}).get("Code")
        if code:
            return str(code)
    return type(e).__name__


class DynamoStore:
    """Site facts and leases in one DynamoDB table; every failure is a StoreError."""

    def __init__(
        self,
        table: str,
        on_rejected: Callable[[str], None] = lambda reason: None,
        wall: Callable[[], float] = time.time,
        answer_by: float | None = None,
    ) -> None:
        self.table = table
        self._on_rejected = on_rejected  # told why each item read was refused
        self._wall = wall
        # When the audit must have its answer (time.monotonic()): no call outlasts it, whatever
        # its timeouts (a store that stops answering near the end of a fetch would otherwise
        # hold the answer past the Lambda's deadline).
        self._answer_by = answer_by

    def _call(self, op: str, lease_write: bool = False, **kwargs: Any) -> Any:
        try:
            call = getattr(client(lease_write), op)
            # Every call is made under `within`: the timeouts bound its connections and reads,
            # not the endpoint's name lookup, which urllib3 makes with none. It is cut at the
            # worst its timeouts allow, and at the moment the answer is due.
            bound = WORST_CALL_S
            if self._answer_by is not None:
                bound = min(bound, self._answer_by - time.monotonic())
            return within(bound, lambda: call(TableName=self.table, **kwargs), "store-call")
        except Exception as e:  # noqa: BLE001 -- botocore's many errors are all a store failure
            code = _code(e)
            if code == "ConditionalCheckFailedException":
                raise _ConditionFailedError from None
            raise StoreError(op, code, throttled=code in THROTTLING_CODES) from None

    def get(self, key: str, consistent: bool) -> StoredItem | None:
        """The item of a site, None when it has none or when it is not what this module writes
        (then `on_rejected` is told why)."""
        answer = self._call("get_item", Key={"pk": {"S": key}}, ConsistentRead=consistent)
        item = answer.get("Item") if isinstance(answer, dict) else None
        if not item:
            return None
        try:
            got, refused = read_item(item, self._wall())
        except InvalidItemError as e:
            self._on_rejected(e.reason)
            return None
        if refused is not None:
            self._on_rejected(refused)
        ref = _text(item, "facts_ref")
        stamp = got.item.stamp
        if stamp is not None and got.facts is None and ref is not None:
            got = StoredItem(got.item, None, self._loader(key, ref, consistent, stamp))
        return got

    def _loader(
        self, key: str, ref: str, consistent: bool, stamp: lease.Stamp
    ) -> Callable[[], site_facts.SiteFacts | None]:
        """Reads the facts kept out of a site's item, once asked (None: not those referred to)."""

        def load() -> site_facts.SiteFacts | None:
            # The facts' item is written before the site's item refers to it: a lagging read
            # may show older facts, never missing ones; a consistent read settles it.
            for strongly in (consistent, True) if not consistent else (True,):
                answer = self._call(
                    "get_item", Key={"pk": {"S": facts_key(key, ref)}}, ConsistentRead=strongly
                )
                held = answer.get("Item") if isinstance(answer, dict) else None
                if not held:
                    continue
                try:
                    facts = read_facts_item(held, ref, self._wall(), stamp)
                    if facts is not None:
                        of_site(facts, key)
                except InvalidItemError as e:
                    self._on_rejected(e.reason)
                    return None
                if facts is not None:
                    return facts
            return None

        return load

    def take_lease(self, key: str, owner: str, request: lease.TakeLease) -> bool:
        """Write `owner`'s lease as `request` asks (taken at `request.now`), on the condition
        that `lease.may_take` states: no live lease (but `request`'s late holder's, as read), no
        facts fetched since `request.due`, no lasting mark made since `request.marked_since`
        (math.inf: none heeded)."""
        until, now = request.until, request.now
        values: dict[str, Any] = {}
        late = marked = ""
        if request.over_owner is not None and request.over_until is not None:
            # A holder that missed its renewals (liveness.holder_late): its lease, exactly as
            # read, and only so: renewed meanwhile, or taken over by another, it stands.
            late = "OR (lease_owner = :late AND lease_until = :late_until) "
            values = {
                ":late": {"S": request.over_owner},
                ":late_until": {"N": repr(request.over_until)},
            }
        if math.isfinite(request.marked_since):
            # A holder that found its facts unshareable for good, after this audit read the
            # item: the audit reads again and fetches by itself, as a newcomer would. A mark the
            # reader refuses (a time that is not a number, or from too far ahead) is no mark.
            marked = (
                " AND (attribute_not_exists(unshareable_lasting) OR unshareable_lasting <> :yes "
                "OR NOT attribute_type(unshareable_at, :number) "
                "OR unshareable_at < :marked OR unshareable_at > :ahead)"
            )
            values[":marked"] = {"N": repr(request.marked_since)}
        try:
            self._call(
                "update_item",
                lease_write=True,
                Key={"pk": {"S": key}},
                UpdateExpression="SET lease_owner = :o, lease_until = :u, lease_at = :now, "
                "lease_renewals = :zero, expires_at = :ttl",
                # The second half: an audit that read the item just before another's publish
                # must not take a lease and fetch again; transient facts never stand in the way.
                # Neither does what `read_item` refuses: a time stored as anything but a number,
                # a lease that ends further ahead than a lease runs, facts from the future. Nor
                # the owner's own lease: a write whose answer was lost but which the table
                # applied, tried again, is still the audit's own.
                ConditionExpression="(attribute_not_exists(lease_until) "
                "OR NOT attribute_type(lease_until, :number) "
                "OR lease_until < :now OR lease_until > :far OR lease_owner = :o "
                f"{late}) "
                "AND (attribute_not_exists(fetched_at) "
                "OR NOT attribute_type(fetched_at, :number) "
                "OR fetched_at < :due OR fetched_at > :ahead OR transient = :yes)"
                f"{marked}",
                ExpressionAttributeValues={
                    ":o": {"S": owner},
                    ":u": {"N": repr(until)},
                    ":now": {"N": repr(now)},
                    ":zero": {"N": "0"},
                    ":due": {"N": repr(request.due)},
                    ":yes": {"BOOL": True},
                    ":number": {"S": "N"},
                    # Further ahead than the lease this audit writes, and the clocks' skew.
                    ":far": {"N": repr(until + lease.CLOCK_SKEW_S)},
                    ":ahead": {"N": repr(now + lease.CLOCK_SKEW_S)},
                    # An abandoned lease item expires by itself too, but never while its lease
                    # runs: the table deletes an item once past its expires_at (any time after),
                    # and an item whose facts were past their retention would have taken its
                    # live lease along. No earlier than any facts it holds expire.
                    ":ttl": {"N": str(int(max(until, now) + RETENTION_S))},
                    **values,
                },
            )
        except _ConditionFailedError:
            return False
        return True

    def renew_lease(self, key: str, owner: str, until: float) -> None:
        """Extend this owner's lease and count one more renewal in it (nothing happens when it is
        no longer the owner). With the lease writes' short read timeout: a renewal whose answer
        is lost is tried again well within the grace waiters give it (liveness.LATE_GRACE_S)."""
        with contextlib.suppress(_ConditionFailedError):
            self._call(
                "update_item",
                lease_write=True,
                Key={"pk": {"S": key}},
                UpdateExpression="SET lease_until = :u, "
                "lease_renewals = if_not_exists(lease_renewals, :zero) + :one",
                ConditionExpression="lease_owner = :o",
                ExpressionAttributeValues={
                    ":o": {"S": owner},
                    ":u": {"N": repr(until)},
                    ":zero": {"N": "0"},
                    ":one": {"N": "1"},
                },
            )

    def mark_unshareable(
        self, key: str, owner: str, at: float, lasting: bool, flight: str | None = None
    ) -> None:
        """End this owner's lease with the mark that its facts cannot be shared, naming `flight`
        (None: the owner's). A small conditional write, made with the lease writes' short read
        timeout: a fetch cut by its audit's budget writes it in the margin left for the answer."""
        with contextlib.suppress(_ConditionFailedError):
            self._call(
                "update_item",
                lease_write=True,
                Key={"pk": {"S": key}},
                UpdateExpression="REMOVE lease_owner, lease_until, lease_at, lease_renewals "
                "SET unshareable_flight = :f, unshareable_at = :at, unshareable_lasting = :l, "
                "expires_at = :ttl",
                ConditionExpression="lease_owner = :o",
                ExpressionAttributeValues={
                    ":o": {"S": owner},
                    ":f": {"S": owner if flight is None else flight},
                    ":at": {"N": repr(at)},
                    ":l": {"BOOL": lasting},
                    # The mark is heeded for a day: it must not expire with old facts before.
                    ":ttl": {"N": str(int(at + RETENTION_S))},
                },
            )

    def pack(self, data: bytes, for_waiters: bool = False, headroom: int = 0) -> bytes | None:
        """The facts as the item keeps them (their length, then compressed); None when too
        large for an item (MAX_ITEM_BYTES; MAX_AWAITED_BYTES for the waiters' own), or for its
        reader, or when `headroom` bytes more would make them so."""
        if len(data) > site_facts.MAX_FACTS_BYTES:
            return None
        packed = len(data).to_bytes(_LENGTH_BYTES, "big") + zlib.compress(data, 6)
        limit = MAX_AWAITED_BYTES if for_waiters else MAX_ITEM_BYTES
        return packed if len(packed) + headroom <= limit else None

    def put(self, key: str, packed: bytes, stamp: lease.Stamp, expires_at: float) -> None:
        """Publish a site's facts, replacing the item (and so any lease or mark)."""
        item = published_item(key, packed, stamp, expires_at)
        if "facts_ref" in item:
            # Large facts go in an item of their own, written first: the site's item, which
            # every lease write and poll touches, stays small.
            self._call("put_item", Item=facts_item(key, packed, item["facts_ref"]["S"], item))
        self._call("put_item", Item=item)


def published_item(
    key: str, packed: bytes, stamp: lease.Stamp, expires_at: float
) -> dict[str, Any]:
    """The item that publishes a site's facts (`pack`'s bytes) with their stamp: the facts
    in it, or past INLINE_FACTS_BYTES a reference to the item of their own that holds them."""
    item: dict[str, Any] = {
        "pk": {"S": key},
        "fetched_at": {"N": repr(stamp.fetched_at)},
        "fetch_s": {"N": repr(round(stamp.fetch_s, 3))},
        "transient": {"BOOL": stamp.transient},
        "expires_at": {"N": str(int(expires_at))},
    }
    if stamp.flight is not None:
        item["flight"] = {"S": stamp.flight}
    if stamp.awaited_only:
        # For the fetch's waiters only; newcomers read the lasting mark and fetch by themselves.
        item["awaited_only"] = {"BOOL": True}
        item["unshareable_flight"] = {"S": stamp.flight or uuid.uuid4().hex}
        item["unshareable_at"] = {"N": repr(stamp.fetched_at)}
        item["unshareable_lasting"] = {"BOOL": True}
    if len(packed) <= INLINE_FACTS_BYTES and not stamp.awaited_only:
        item["facts"] = {"B": packed}
    else:
        item["facts_ref"] = {"S": stamp.flight or uuid.uuid4().hex}
    return item


def facts_key(key: str, ref: str) -> str:
    """The key of the item of their own that holds a flight's facts kept out of a site's item:
    one a flight (a holder's and its standby's publishing at once each write their own)."""
    return f"{key}{FACTS_SUFFIX}|{ref}"


def facts_item(key: str, packed: bytes, ref: str, site_item: Mapping[str, Any]) -> dict[str, Any]:
    """The item of its own that holds facts too large for the site's item (`ref`: its flight)."""
    return {
        "pk": {"S": facts_key(key, ref)},
        "facts": {"B": packed},
        "flight": {"S": ref},
        "expires_at": site_item["expires_at"],
    }


def read_facts_item(
    item: Mapping[str, Any], ref: str, now: float, stamp: lease.Stamp
) -> site_facts.SiteFacts | None:
    """The facts an item of their own holds, checked as the site's item checks the facts it
    holds (at `now`, on the reader's clock; `stamp` the site item's, which its own reading has
    judged: the facts must be what it says of them); None when it holds other facts than those
    referred to (a lagging read). InvalidItemError when it is not what this module writes."""
    if not isinstance(item, Mapping):
        raise InvalidItemError("facts item: not a map of attributes")
    if _text(item, "flight") != ref:
        return None
    _number(item, "expires_at", 0.0, float(2**53))
    # Facts for every audit are kept to MAX_ITEM_BYTES; only those for the waiters are larger.
    limit = MAX_AWAITED_BYTES if stamp.awaited_only else MAX_ITEM_BYTES
    facts = _facts_stamped(_value(item, "facts", "B"), limit, stamp.fetched_at, now)
    if facts.transient != stamp.transient:  # the stamp is the facts' own (driver.stamp_of)
        _invalid("transient", "not what the facts say")
    return facts


def of_site(facts: site_facts.SiteFacts, key: str) -> None:
    """Refuse facts whose candidates are not those the site the key names would have (the
    fallback paths are under its siteBase): another site's facts, under this one's key. A key
    not of driver.scope_key's form names no site to check them against."""
    site_url = site_of_key(key)
    if site_url is None:
        return
    if facts.candidates != candidates.for_base(site_url, facts.robots.sitemaps):
        _invalid("candidates", "not those of the site the item is for")


def _facts_stamped(
    packed: object, limit: int, stamped_at: float, now: float
) -> site_facts.SiteFacts:
    """Packed facts as read, refused when they say they were fetched further ahead of the
    reader's clock than any right clock writes, where their item's own stamp does not."""
    facts = site_facts.decode(_inflate(packed, limit))
    ahead = now + lease.CLOCK_SKEW_S
    if facts.fetched_at > ahead and stamped_at <= ahead:
        _invalid("facts fetchedAt", f"ahead of the clock by {lease.CLOCK_SKEW_S:g} s+")
    return facts


# --- reading an item: nothing trusted as written ------------------------------------------------


def _invalid(name: str, what: str) -> NoReturn:
    raise InvalidItemError(f"{name}: {what}")


def _value(item: Mapping[str, Any], name: str, kind: str) -> Any:
    """The attribute's value if it is there, of the DynamoDB type `kind`; None if absent."""
    if name not in item:
        return None
    attr = item[name]
    if not isinstance(attr, dict) or attr.keys() != {kind} or attr[kind] is None:
        _invalid(name, f"not of type {kind}")
    return attr[kind]


def _number(item: Mapping[str, Any], name: str, low: float, high: float) -> float | None:
    text = _value(item, name, "N")
    if text is None:
        return None
    if not isinstance(text, str) or not _NUMBER.fullmatch(text):
        _invalid(name, "not a number")
    number = float(text)
    if not math.isfinite(number) or not low <= number <= high:
        _invalid(name, f"not within {low:.3f}..{high:.3f}")
    return number


def _text(item: Mapping[str, Any], name: str) -> str | None:
    text = _value(item, name, "S")
    if text is not None and (not isinstance(text, str) or not 0 < len(text) <= MAX_OWNER_CHARS):
        _invalid(name, f"not a string of 1 to {MAX_OWNER_CHARS} characters")
    return text


def _flag(item: Mapping[str, Any], name: str) -> bool | None:
    flag = _value(item, name, "BOOL")
    if flag is not None and type(flag) is not bool:
        _invalid(name, "not a boolean")
    return flag


def _together(item: Mapping[str, Any], names: tuple[str, ...]) -> bool:
    """True when all of these attributes are there, False when none is; else refused."""
    there = [n in item for n in names]
    if any(there) and not all(there):
        _invalid("+".join(names), "written together, found apart")
    return all(there)


def _inflate(packed: object, limit: int = MAX_ITEM_BYTES) -> bytes:
    """The facts' JSON: inflated in bounded steps, never past their stated length. `limit`: the
    most this module writes where they were read (MAX_AWAITED_BYTES in an item of their own)."""
    if not isinstance(packed, bytes | bytearray) or len(packed) > limit:
        _invalid("facts", f"not binary of at most {limit} bytes")
    stated = int.from_bytes(packed[:_LENGTH_BYTES], "big")
    if len(packed) < _LENGTH_BYTES or stated > site_facts.MAX_FACTS_BYTES:
        _invalid("facts", f"not stated to inflate to at most {site_facts.MAX_FACTS_BYTES} bytes")
    inflater = zlib.decompressobj()
    out = bytearray()
    data = bytes(packed[_LENGTH_BYTES:])
    try:
        while not inflater.eof:
            if not data:
                _invalid("facts", "cut short")
            # At least one byte more than is left to the stated length, so that a stream that
            # runs past it is seen to (0 would mean no limit).
            step = min(INFLATE_STEP_BYTES, stated - len(out) + 1)
            out += inflater.decompress(data, step)
            if len(out) > stated:
                _invalid("facts", "inflate past their stated length")
            data = inflater.unconsumed_tail
    except zlib.error:
        _invalid("facts", "not a zlib stream")
    if inflater.unused_data or len(out) != stated:
        _invalid("facts", "not of their stated length")
    return bytes(out)


def read_item(item: Mapping[str, Any], now: float) -> tuple[StoredItem, str | None]:
    """A site's item as read at `now`, checked against what this module writes.

    InvalidItemError for an item that is not (it counts as no item). A lease that ends further
    ahead than a lease runs (lease.credible_until) is read as no lease; facts stamped further
    ahead than the clocks' skew are read, to be reused by no audit (`lease.usable`) but taken by
    those that waited for their very fetch (`lease.awaited_facts`). The second value then says
    why, to be counted as refused like an item.
    """
    if not isinstance(item, Mapping):
        raise InvalidItemError("item: not a map of attributes")
    stamp = None
    facts = None
    if "facts" in item and "facts_ref" in item:
        _invalid("facts+facts_ref", "both written")
    held = "facts" if "facts" in item else "facts_ref"
    if _together(item, (held, "fetched_at", "fetch_s", "transient")):
        fetched_at = _number(item, "fetched_at", 0.0, float(2**53))
        fetch_s = _number(item, "fetch_s", 0.0, site_facts.MAX_FETCH_SECONDS)
        transient = _flag(item, "transient")
        assert fetched_at is not None and fetch_s is not None and transient is not None
        if held == "facts":
            facts = _facts_stamped(_value(item, "facts", "B"), MAX_ITEM_BYTES, fetched_at, now)
            if facts.transient != transient:  # the stamp is the facts' own (driver.stamp_of)
                _invalid("transient", "not what the facts say")
            key = _value(item, "pk", "S")
            if isinstance(key, str):
                of_site(facts, key)
        else:
            _text(item, "facts_ref")  # read by the store: the facts are in their own item
        awaited_only = bool(_flag(item, "awaited_only"))
        if awaited_only and held == "facts":
            _invalid("awaited_only", "with facts in the site's item")
        stamp = lease.Stamp(fetched_at, fetch_s, transient, _text(item, "flight"), awaited_only)
    elif "flight" in item or "awaited_only" in item:
        _invalid("flight", "without facts")
    _number(item, "expires_at", 0.0, float(2**53))
    owner = until = taken = renewals = None
    if _together(item, ("lease_owner", "lease_until")):
        owner = _text(item, "lease_owner")
        until = _number(item, "lease_until", 0.0, float(2**53))
    # When the lease was taken (for operators): a number as any time, known only with the lease
    # it belongs to (and not when further ahead than a right clock writes: lease.as_read).
    at = _number(item, "lease_at", 0.0, float(2**53))
    if owner is not None:
        taken = at
    # How often the lease was renewed: a whole number, known only with its lease (without one,
    # written by a version that keeps no count, waiters take its end for the count).
    count = _number(item, "lease_renewals", 0.0, float(2**31))
    if count is not None and not count.is_integer():
        _invalid("lease_renewals", "not a whole number")
    if owner is not None and count is not None:
        renewals = int(count)
    marked_flight = marked_at = lasting = None
    if _together(item, ("unshareable_flight", "unshareable_at", "unshareable_lasting")):
        marked_flight = _text(item, "unshareable_flight")
        marked_at = _number(item, "unshareable_at", 0.0, float(2**53))
        lasting = _flag(item, "unshareable_lasting")
    written = lease.Item(
        stamp=stamp,
        lease_owner=owner,
        lease_until=until,
        unshareable_flight=marked_flight,
        unshareable_at=marked_at,
        unshareable_lasting=bool(lasting),
        lease_at=taken,
        lease_renewals=renewals,
    )
    read, refused = lease.as_read(written, now)
    if read is None:
        assert refused is not None
        raise InvalidItemError(refused)
    return StoredItem(read, facts), refused


class _ConditionFailedError(Exception):
    """A conditional write whose condition did not hold: an answer, not a failure."""
