"""What a fetch's facts still gain after it last showed them to sharing (facts.UNSHOWN_BYTES).

Sharing tells a holder's waiters to fetch by themselves as soon as the facts shown mid-fetch,
with this much room, no longer fit an item: so the facts of a quick fetch are never found too
large only at its end. These fetches, through the real probe and the in-memory transport, give
the end all a site can put there (hostile validators, details, samples, refusals) and measure
what it adds, packed as the table keeps the facts.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from sitemap_auditor.audit import steps
from sitemap_auditor.core import facts
from sitemap_auditor.core.errors import FetchError, FetchErrorKind
from sitemap_auditor.core.site import resolve
from sitemap_auditor.fetching.fetch import Fetcher, FetchPolicy
from sitemap_auditor.fetching.memory_transport import Canned, MemoryTransport
from sitemap_auditor.sharing import dynamostore

SITE = "http://site.test:8080"
STORE = dynamostore.DynamoStore("any")
# Characters a site may put in a header the fetcher keeps (Latin-1, no CR, LF or NUL), those
# JSON escapes the most (\u0001), and what a sitemap's text may hold (astral, quotes, escapes).
HEADER_CHARS = "".join(chr(c) for c in range(1, 256) if c not in (10, 13))
CONTROL_CHARS = "".join(chr(c) for c in range(1, 32) if c not in (9, 10, 13))
TEXT_CHARS = '"\\<>&' + "".join(chr(c) for c in range(0x1F600, 0x1F700)) + "éß€\u2028"


def public(host: str, port: int) -> Sequence[str]:
    return ["93.184.216.34"] if host == "site.test" else []


def packed_len(value: facts.SiteFacts) -> int:
    packed = STORE.pack(facts.encode(value), for_waiters=True)
    assert packed is not None
    return len(packed)


def hostile(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def xml_text(rng: random.Random, n: int) -> str:
    text = hostile(rng, TEXT_CHARS, n)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def sitemap(rng: random.Random, refused_at_end: bool) -> bytes:
    """A sitemap whose <lastmod> values do not parse (more than the samples kept), long hostile
    text each; refused at its very end (its root never closed) when asked."""
    entries = "".join(
        f"<url><loc>{SITE}/p{i}</loc><lastmod>{xml_text(rng, 150)}</lastmod></url>"
        for i in range(rng.choice([1, 5, 30]))
    )
    body = f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}'
    return (body if refused_at_end else body + "</urlset>").encode()


def last_answer(rng: random.Random) -> Canned:
    """The last candidate's answer: what the fetch's end alone adds to its facts."""
    validators = {
        "ETag": hostile(rng, rng.choice([HEADER_CHARS, CONTROL_CHARS]), 250),
        "Last-Modified": hostile(rng, rng.choice([HEADER_CHARS, CONTROL_CHARS]), 250),
    }
    kind = rng.choice(["status", "refused", "samples", "html", "reset", "location"])
    if kind == "status":
        return Canned(rng.choice([404, 410, 500, 503, 403]), validators)
    if kind == "refused":
        return Canned(200, validators, sitemap(rng, refused_at_end=True))
    if kind == "samples":
        return Canned(200, validators, sitemap(rng, refused_at_end=False))
    if kind == "html":
        root = hostile(rng, "abcdefghijklmnopqrstuvwxyz" * 3 + "é", 3000)
        return Canned(200, validators, f"<{root}/>".encode())
    if kind == "location":
        target = f"{SITE}/{hostile(rng, HEADER_CHARS, 2000)}"
        return Canned(301, {**validators, "Location": target})
    error = FetchError(FetchErrorKind.CONNECTION_RESET, hostile(rng, HEADER_CHARS, 3000))
    return Canned(200, validators, [sitemap(rng, False)[:50]], fails_after=error)


def one_fetch(seed: int) -> tuple[int, int]:
    """The packed size of the facts last shown and of the fetch's own."""
    rng = random.Random(seed)
    names = [hostile(rng, "abcdefghijklmnopqrstuvwxyz0123456789%", rng.choice([10, 300, 2000]))]
    names += [f"s{n}.xml" for n in range(rng.choice([0, 2, 20]))]
    rng.shuffle(names)
    robots = "".join(f"Sitemap: {SITE}/{n}\n" for n in names)
    last = f"{SITE}/{names[-1]}"
    answers = {SITE + "/robots.txt": Canned(200, {}, robots.encode()), last: last_answer(rng)}
    site = resolve(SITE + "/")
    assert site is not None
    policy = FetchPolicy(origin=site.origin(), resolver=public)
    shown: list[facts.SiteFacts] = []
    got = steps.fetch_facts(
        site, Fetcher(policy, transport=MemoryTransport(answers)), None, shown.append
    )
    assert got.outcomes[-1].url.startswith(SITE)
    return packed_len(shown[-1]), packed_len(got)


@pytest.mark.parametrize("block", range(8))
def test_what_a_fetch_adds_after_it_last_showed_its_facts_is_bounded(block: int) -> None:
    grown = [after - before for before, after in map(one_fetch, range(block * 60, block * 60 + 60))]
    assert max(grown) <= facts.UNSHOWN_BYTES, max(grown)


def test_the_bound_leaves_room_over_what_hostile_answers_add() -> None:
    # The bound is not a loose guess: hostile ends come within a few KB of it, no nearer than
    # 2 KB (a change that makes the end add more shows here first).
    grown = [after - before for before, after in map(one_fetch, range(200))]
    assert 1024 < max(grown) <= facts.UNSHOWN_BYTES - 2048, max(grown)
