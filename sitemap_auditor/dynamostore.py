"""The shared store of site facts in a DynamoDB table (CONTRACT section 7).

One item per site key: `pk`, the facts (`facts`, zlib-compressed JSON), `fetched_at`, `expires_at`
(the table's TTL attribute) and, while an audit fetches the site, `lease_owner` / `lease_until`.
boto3 is imported only when a table is configured, on the first audit that uses it.
"""

from __future__ import annotations

import contextlib
import threading
import zlib
from typing import Any

from . import facts as site_facts
from .sharing import StoredItem, StoreError

# DynamoDB refuses items over 400 KB; facts compress well, and a set that does not fit in
# well under that is simply not shared between containers.
MAX_ITEM_BYTES = 300 * 1024
# Every call is bounded: a slow or failing store must cost an audit seconds, not minutes
# (boto3's defaults are 60 s reads and several retries).
CONNECT_TIMEOUT_S = 1.0
READ_TIMEOUT_S = 2.0
MAX_ATTEMPTS = 2

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
                retries={"max_attempts": MAX_ATTEMPTS, "mode": "standard"},
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
            if _code(e) == "ConditionalCheckFailedException":
                raise _ConditionFailedError from None
            raise StoreError(op, _code(e)) from None

    def get(self, key: str) -> StoredItem | None:
        """The item of a site, read consistently."""
        answer = self._call("get_item", Key={"pk": {"S": key}}, ConsistentRead=True)
        item = answer.get("Item")
        if not item:
            return None
        facts = None
        if "facts" in item:
            try:
                facts = site_facts.decode(zlib.decompress(item["facts"]["B"]))
            except zlib.error:
                facts = None
        owner = item.get("lease_owner", {}).get("S")
        until = item.get("lease_until", {}).get("N")
        return StoredItem(facts, owner, float(until) if until is not None else None)

    def take_lease(
        self, key: str, owner: str, until: float, now: float, fresh_since: float
    ) -> bool:
        """Take the site's lease unless another owner holds one or facts since then are stored."""
        try:
            self._call(
                "update_item",
                Key={"pk": {"S": key}},
                UpdateExpression="SET lease_owner = :o, lease_until = :u, "
                "expires_at = if_not_exists(expires_at, :ttl)",
                # Publishing facts removes the lease: without the second half, an audit that
                # read the item just before another's publish would take a lease and fetch again.
                ConditionExpression="(attribute_not_exists(lease_until) OR lease_until < :now) "
                "AND (attribute_not_exists(fetched_at) OR fetched_at < :fresh)",
                ExpressionAttributeValues={
                    ":o": {"S": owner},
                    ":u": {"N": repr(until)},
                    ":now": {"N": repr(now)},
                    ":fresh": {"N": repr(fresh_since)},
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

    def release_lease(self, key: str, owner: str) -> None:
        """Give up this owner's lease without publishing facts."""
        with contextlib.suppress(_ConditionFailedError):
            self._call(
                "update_item",
                Key={"pk": {"S": key}},
                UpdateExpression="REMOVE lease_owner, lease_until",
                ConditionExpression="lease_owner = :o",
                ExpressionAttributeValues={":o": {"S": owner}},
            )

    def put(self, key: str, data: bytes, fetched_at: float, expires_at: float) -> bool:
        """Publish a site's facts, replacing the item (and so any lease); False if too large."""
        packed = zlib.compress(data, 6)
        if len(packed) > MAX_ITEM_BYTES:
            return False
        self._call(
            "put_item",
            Item={
                "pk": {"S": key},
                "facts": {"B": packed},
                "fetched_at": {"N": repr(fetched_at)},
                "expires_at": {"N": str(int(expires_at))},
            },
        )
        return True


class _ConditionFailedError(Exception):
    """A conditional write whose condition did not hold: an answer, not a failure."""
