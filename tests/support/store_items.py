"""Items of the shared table as the function writes them, and as anyone else might have.

The hostile items are the cases of docs/reliability.md ("Items of the shared table"): each is a
function of the item's key and the reader's clock, so that the unit tests read them with
`dynamostore.read_item` and the integration tests put them in moto and dynalite with boto3.
"""

from __future__ import annotations

import functools
import json
import zlib
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sitemap_auditor.core import candidates, facts, validators
from sitemap_auditor.core.issues import Kind, issue
from sitemap_auditor.core.parser import ParsedSitemap
from sitemap_auditor.sharing import dynamostore, lease

__all__ = [
    "HOSTILE",
    "Hostile",
    "facts_item",
    "lease_item",
    "pack",
    "sample_facts",
    "spliced",
    "zlib_bomb",
]

Item = dict[str, Any]
# key, the reader's clock -> the item to put
Hostile = Callable[[str, float], Item]


def sample_facts(fetched_at: float, site: str = "https://www.example.com") -> facts.SiteFacts:
    """Facts as a fetch writes them: robots.txt listing one sitemap, a 404 and a parsed one."""
    missing, listed = f"{site}/missing.xml", f"{site}/sitemap.xml"
    parsed = ParsedSitemap(
        "urlset", 2, datetime(2026, 11, 30, 8, tzinfo=UTC), ("nope",), 1, "2026-11-30T08:00:00Z"
    )
    return facts.SiteFacts(
        robots=facts.RobotsProbe(
            200, True, (missing, listed), (), (), validators.Validators('"r1"', None), 120
        ),
        candidates=(missing, listed),
        outcomes=(
            facts.CandidateOutcome(missing, None, issue(missing, Kind.HTTP_STATUS, "HTTP 404")),
            facts.CandidateOutcome(
                listed,
                facts.SelectedSitemap(listed, 200, "application/xml", parsed),
                None,
                validators.Validators('"s1"', "Mon, 30 Nov 2026 08:00:00 GMT"),
                900,
            ),
        ),
        fetched_at=fetched_at,
        fetch_seconds=0.25,
    )


def failed_facts(key: str, fetched_at: float) -> facts.SiteFacts:
    """Facts of a FAIL, for the site the key names: no robots.txt, and each of the three
    usual paths a 404."""
    tried = candidates.for_base(key.split("|")[3], ())
    return facts.SiteFacts(
        facts.RobotsProbe(404, False, (), (), ()),
        tried,
        tuple(
            facts.CandidateOutcome(u, None, issue(u, Kind.HTTP_STATUS, "HTTP 404")) for u in tried
        ),
        True,
        fetched_at,
    )


def pack(data: bytes) -> bytes:
    """Facts' JSON as the function packs them for an item."""
    packed = dynamostore.DynamoStore("any").pack(data)
    assert packed is not None
    return packed


def facts_item(
    key: str, value: dict[str, Any] | str | bytes, stamped_at: float, **attributes: Any
) -> Item:
    """A published item holding these facts (a JSON value, JSON text, or the attribute's bytes)
    and this stamp; an attribute given as None is left out, any other replaces the written one."""
    if isinstance(value, bytes):
        packed = value
    else:
        text = value if isinstance(value, str) else json.dumps(value)
        packed = pack(text.encode("utf-8", "surrogatepass"))
    item = dynamostore.published_item(
        key, packed, lease.Stamp(stamped_at, 0.25, False, "f" * 32), stamped_at + 86_400
    )
    # Inline whatever their size, as a writer other than this function could put them.
    item.pop("facts_ref", None)
    item["facts"] = {"B": packed}
    for name, attr in attributes.items():
        if attr is None:
            item.pop(name, None)
        else:
            item[name] = attr
    return item


def lease_item(key: str, owner: str, until: float) -> Item:
    """An item holding only a lease, as `take_lease` writes it over no facts."""
    return {
        "pk": {"S": key},
        "lease_owner": {"S": owner},
        "lease_until": {"N": repr(until)},
        "expires_at": {"N": str(int(until) + 86_400)},
    }


# What the in-item bomb inflates to: its zlib stream stays under dynamostore.MAX_ITEM_BYTES.
BOMB_INFLATED = 15 << 20


@functools.lru_cache(maxsize=4)
def zlib_bomb(stated: int, inflated: int) -> bytes:
    """A facts attribute stating `stated` bytes whose zlib stream inflates to `inflated` bytes
    of zeros (about a thousandth of that compressed), made without holding them."""
    deflater = zlib.compressobj(9)
    chunk = b"\0" * (1 << 20)
    parts = [stated.to_bytes(4, "big")]
    left = inflated
    while left > 0:
        parts.append(deflater.compress(chunk[: min(left, len(chunk))]))
        left -= len(chunk)
    parts.append(deflater.flush())
    return b"".join(parts)


def _with(path: tuple[str | int, ...], new: object) -> Callable[[float], dict[str, Any]]:
    """Valid facts' JSON with the value at path replaced."""

    def make(now: float) -> dict[str, Any]:
        value = facts.to_json(sample_facts(now - 5))
        node: Any = value
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = new
        return value

    return make


_HOLE = "\0hole"


def spliced(path: tuple[str | int, ...], raw: str) -> Callable[[float], str]:
    """Valid facts' JSON text with the value at path replaced by this raw text (which need not
    be JSON at all)."""

    def make(now: float) -> str:
        return json.dumps(_with(path, _HOLE)(now)).replace(json.dumps(_HOLE), raw)

    return make


_ENTRIES = ("outcomes", 1, "selected", "parsed", "entries")
_LATEST = ("outcomes", 1, "selected", "parsed", "latest")

# name -> (the hostile item, a fragment of the reason it is refused for)
HOSTILE: dict[str, tuple[Hostile, str]] = {
    # A number stored as text, in the item and in the facts (was ERROR: KeyError).
    "fetched_at as text": (
        lambda k, now: facts_item(
            k, facts.to_json(sample_facts(now - 5)), now - 5, fetched_at={"S": repr(now - 5)}
        ),
        "fetched_at: not of type N",
    ),
    "entry count as text": (
        lambda k, now: facts_item(k, _with(_ENTRIES, "2")(now), now - 5),
        "entries: not an integer",
    ),
    # Facts nested too deep (was ERROR: RecursionError).
    "facts nested 3,000 deep": (
        lambda k, now: facts_item(
            k, spliced(("robots", "issues"), "[" * 3000 + "]" * 3000)(now), now - 5
        ),
        "nested deeper than",
    ),
    # A latest <lastmod> without a zone (was ERROR: TypeError in the rules).
    "latest without a zone": (
        lambda k, now: facts_item(k, _with(_LATEST, "2026-11-30T08:00:00")(now), now - 5),
        "not a UTC instant",
    ),
    # The issue's 300 KB of zlib that inflates to 300 MiB (cost +613 MiB): over what the
    # function writes (dynamostore.MAX_ITEM_BYTES), refused before anything is inflated.
    "oversized zlib bomb": (
        lambda k, now: facts_item(k, zlib_bomb(facts.MAX_FACTS_BYTES, 300 << 20), now - 5),
        "not binary of at most",
    ),
    # A bomb that fits an item (15 KB inflating to 15 MiB), stating the most facts may be.
    "zlib bomb": (
        lambda k, now: facts_item(k, zlib_bomb(facts.MAX_FACTS_BYTES, BOMB_INFLATED), now - 5),
        "inflate past their stated length",
    ),
    # A lease ending an hour from now: a holder whose clock runs an hour ahead, dead, or a
    # writer's (every waiter used to FAIL: "ran out of time after 0 s").
    "lease an hour ahead": (
        lambda k, now: lease_item(k, "a" * 32, now + 3600),
        "lease_until: further ahead than a lease runs",
    ),
    # Facts of a FAIL stamped an hour in the future (were reused for an hour and the window).
    "another site's FAIL facts": (
        lambda k, now: facts_item(
            k, facts.to_json(failed_facts("v|g|-|https://other.test", now)), now
        ),
        "candidates: not those of the site the item is for",
    ),
    "FAIL facts from an hour ahead": (
        lambda k, now: facts_item(k, facts.to_json(failed_facts(k, now + 3600)), now + 3600),
        "fetched_at: ahead of the clock",
    ),
}
