"""The shared store of site facts in a DynamoDB table (docs/contract.md §7).

One item per site key: `pk`; the facts (`facts`, zlib-compressed JSON) with their stamp
(`fetched_at`, `fetch_s`, `transient`, `flight`: the lease under which they were fetched);
`expires_at` (the table's TTL attribute); while an audit fetches the site, `lease_owner` /
`lease_until`; and after a fetch whose facts could not be shared, `unshareable_flight`,
`unshareable_at` and `unshareable_lasting`. Facts that compress to more than INLINE_FACTS_BYTES
are kept out of the site's item, in an item of their own (`pk` + FACTS_SUFFIX, with `facts`,
`flight` and `expires_at`), and the site's item holds only the reference `facts_ref` (that item's
`flight`): every lease write, renewal and poll then costs what a small site's does, and only an
audit that uses the facts reads them. boto3 is imported only when a table is configured.
"""

from __future__ import annotations

import contextlib
import threading
import uuid
import zlib
from collections.abc import Callable
from typing import Any

from . import facts as site_facts
from . import lease
from .errors import StoreError
from .sharing import StoredItem

__all__ = [
    "CONNECT_TIMEOUT_S",
    "FACTS_SUFFIX",
    "INLINE_FACTS_BYTES",
    "MAX_ATTEMPTS",
    "MAX_ITEM_BYTES",
    "READ_TIMEOUT_S",
    "THROTTLING_CODES",
    "DynamoStore",
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
# The key of the item holding a site's facts kept out of its item (a siteBase has no `|`).
FACTS_SUFFIX = "|facts"
# Every call is bounded: a slow or failing store must cost an audit seconds, not minutes
# (boto3's defaults are 60 s reads and several retries).
CONNECT_TIMEOUT_S = 1.0
READ_TIMEOUT_S = 2.0
MAX_ATTEMPTS = 2  # in all, the first included (botocore's `total_max_attempts`)
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


def _client() -> Any:
    # One client per process; the endpoint and region come from the environment as boto3 reads
    # them (AWS_ENDPOINT_URL_DYNAMODB, AWS_REGION).
    with _clients_lock:
        client = _clients.get("dynamodb")
        if client is None:
            import boto3
            from botocore.config import Config

            config = Config(
                connect_timeout=CONNECT_TIMEOUT_S,
                read_timeout=READ_TIMEOUT_S,
                retries={"total_max_attempts": MAX_ATTEMPTS, "mode": "standard"},
            )
            client = _clients["dynamodb"] = boto3.session.Session().client(
                "dynamodb", config=config
            )
        return client


def warm() -> None:
    """Import boto3 and build the client now (at start-up), so that no audit pays for it."""
    try:
        _client()
    except Exception:  # noqa: BLE001 -- the first audit meets the same failure as a StoreError
        reset()


def reset() -> None:
    """Forget the client (for tests that change the endpoint)."""
    with _clients_lock:
        _clients.clear()


def _code(e: Exception) -> str:
    response = getattr(e, "response", None)
    if isinstance(response, dict):
        code = response.get("Error", {}).get("Code")
        if code:
            return str(code)
    return type(e).__name__


class DynamoStore:
    """Site facts and leases in one DynamoDB table; every failure is a StoreError."""

    def __init__(self, table: str) -> None:
        self.table = table

    def _call(self, op: str, **kwargs: Any) -> Any:
        try:
            return getattr(_client(), op)(TableName=self.table, **kwargs)
        except Exception as e:  # noqa: BLE001 -- botocore's many errors are all a store failure
            code = _code(e)
            if code == "ConditionalCheckFailedException":
                raise _ConditionFailedError from None
            raise StoreError(op, code, throttled=code in THROTTLING_CODES) from None

    def get(self, key: str, consistent: bool) -> StoredItem | None:
        """The item of a site, None when it has none."""
        answer = self._call("get_item", Key={"pk": {"S": key}}, ConsistentRead=consistent)
        item = answer.get("Item")
        if not item:
            return None
        facts = _unpack(item)
        ref = item.get("facts_ref", {}).get("S")
        load: Callable[[], site_facts.SiteFacts | None] | None = None
        if ref is not None and "facts" not in item:
            load = self._loader(key, ref, consistent)
        stamp = None
        if (facts is not None or load is not None) and "fetched_at" in item:
            stamp = lease.Stamp(
                fetched_at=float(item["fetched_at"]["N"]),
                fetch_s=float(item.get("fetch_s", {}).get("N", "0")),
                transient=bool(item.get("transient", {}).get("BOOL", False)),
                flight=item.get("flight", {}).get("S"),
            )
        else:
            facts, load = None, None  # facts the protocol cannot stamp are no facts
        until = item.get("lease_until", {}).get("N")
        marked_at = item.get("unshareable_at", {}).get("N")
        return StoredItem(
            lease.Item(
                stamp=stamp,
                lease_owner=item.get("lease_owner", {}).get("S"),
                lease_until=float(until) if until is not None else None,
                unshareable_flight=item.get("unshareable_flight", {}).get("S"),
                unshareable_at=float(marked_at) if marked_at is not None else None,
                unshareable_lasting=bool(item.get("unshareable_lasting", {}).get("BOOL", False)),
            ),
            facts,
            load,
        )

    def _loader(
        self, key: str, ref: str, consistent: bool
    ) -> Callable[[], site_facts.SiteFacts | None]:
        """Reads the facts kept out of a site's item, once asked (None: not those referred to)."""

        def load() -> site_facts.SiteFacts | None:
            # The facts' item is written before the site's item refers to it: a lagging read
            # may show older facts, never missing ones; a consistent read settles it.
            for strongly in (consistent, True) if not consistent else (True,):
                answer = self._call(
                    "get_item", Key={"pk": {"S": key + FACTS_SUFFIX}}, ConsistentRead=strongly
                )
                held = answer.get("Item") or {}
                if held.get("flight", {}).get("S") == ref:
                    return _unpack(held)
            return None

        return load

    def take_lease(self, key: str, owner: str, until: float, now: float, due: float) -> bool:
        """Take the site's lease unless a live lease, or facts fetched since `due`, are there."""
        try:
            self._call(
                "update_item",
                Key={"pk": {"S": key}},
                UpdateExpression="SET lease_owner = :o, lease_until = :u, "
                "expires_at = if_not_exists(expires_at, :ttl)",
                # The second half: an audit that read the item just before another's publish
                # must not take a lease and fetch again; transient facts never stand in the way.
                # The owner's own lease does not stand in its way either: a write whose answer
                # was lost but which the table applied, tried again, is still the audit's own.
                ConditionExpression="(attribute_not_exists(lease_until) OR lease_until < :now "
                "OR lease_owner = :o) "
                "AND (attribute_not_exists(fetched_at) OR fetched_at < :due OR transient = :yes)",
                ExpressionAttributeValues={
                    ":o": {"S": owner},
                    ":u": {"N": repr(until)},
                    ":now": {"N": repr(now)},
                    ":due": {"N": repr(due)},
                    ":yes": {"BOOL": True},
                    # An abandoned lease item expires by itself too.
                    ":ttl": {"N": str(int(until) + 86_400)},
                },
            )
        except _ConditionFailedError:
            return False
        return True

    def renew_lease(self, key: str, owner: str, until: float) -> None:
        """Extend this owner's lease (nothing happens when it is no longer the owner)."""
        with contextlib.suppress(_ConditionFailedError):
            self._call(
                "update_item",
                Key={"pk": {"S": key}},
                UpdateExpression="SET lease_until = :u",
                ConditionExpression="lease_owner = :o",
                ExpressionAttributeValues={":o": {"S": owner}, ":u": {"N": repr(until)}},
            )

    def mark_unshareable(self, key: str, owner: str, at: float, lasting: bool) -> None:
        """End this owner's lease with the mark that its facts cannot be shared."""
        with contextlib.suppress(_ConditionFailedError):
            self._call(
                "update_item",
                Key={"pk": {"S": key}},
                UpdateExpression="REMOVE lease_owner, lease_until "
                "SET unshareable_flight = :o, unshareable_at = :at, unshareable_lasting = :l",
                ConditionExpression="lease_owner = :o",
                ExpressionAttributeValues={
                    ":o": {"S": owner},
                    ":at": {"N": repr(at)},
                    ":l": {"BOOL": lasting},
                },
            )

    def pack(self, data: bytes) -> bytes | None:
        """The facts compressed as the item keeps them; None when too large for an item."""
        packed = zlib.compress(data, 6)
        return packed if len(packed) <= MAX_ITEM_BYTES else None

    def put(self, key: str, packed: bytes, stamp: lease.Stamp, expires_at: float) -> None:
        """Publish a site's facts, replacing the item (and so any lease or mark)."""
        item: dict[str, Any] = {
            "pk": {"S": key},
            "fetched_at": {"N": repr(stamp.fetched_at)},
            "fetch_s": {"N": repr(round(stamp.fetch_s, 3))},
            "transient": {"BOOL": stamp.transient},
            "expires_at": {"N": str(int(expires_at))},
        }
        if stamp.flight is not None:
            item["flight"] = {"S": stamp.flight}
        if len(packed) <= INLINE_FACTS_BYTES:
            item["facts"] = {"B": packed}
        else:
            # Large facts go in an item of their own, written first: the site's item, which
            # every lease write and poll touches, stays small.
            ref = stamp.flight or uuid.uuid4().hex
            blob = {
                "pk": {"S": key + FACTS_SUFFIX},
                "facts": {"B": packed},
                "flight": {"S": ref},
                "expires_at": item["expires_at"],
            }
            self._call("put_item", Item=blob)
            item["facts_ref"] = {"S": ref}
        self._call("put_item", Item=item)


def _unpack(item: dict[str, Any]) -> site_facts.SiteFacts | None:
    """The facts an item holds, None when it holds none it can read."""
    if "facts" not in item:
        return None
    try:
        return site_facts.decode(zlib.decompress(item["facts"]["B"]))
    except zlib.error:
        return None


class _ConditionFailedError(Exception):
    """A conditional write whose condition did not hold: an answer, not a failure."""
