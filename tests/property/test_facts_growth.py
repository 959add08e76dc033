"""What a fetch's facts still gain after it last showed them to sharing (facts.UNSHOWN_BYTES).

Sharing tells a holder's waiters to fetch by themselves as soon as the facts shown mid-fetch,
with this much room, no longer fit an item: so the facts of a quick fetch are never found too
large only at its end. These fetches, through the real probe and the in-memory transport, give
the end all a site can put there (hostile validators, details, samples, refusals) and measure
what it adds, packed as the table keeps the facts.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Sequence

import pytest

from sitemap_auditor.audit import steps
from sitemap_auditor.core import facts
from sitemap_auditor.core.errors import FetchError, FetchErrorKind
from sitemap_auditor.core.site import resolve
from sitemap_auditor.fetching.fetch import Fetcher, FetchPolicy
from sitemap_auditor.fetching.memory_transport import Canned, MemoryTransport

SITE = "http://site.test:8080"
# Characters a site may put in a header the fetcher keeps (Latin-1, no CR, LF or NUL), those
# JSON escapes the most (\u0001), and what a sitemap's text may hold (astral, quotes, escapes).
HEADER_CHARS = "".join(chr(c) for c in range(1, 256) if c not in (10, 13))
CONTROL_CHARS = "".join(chr(c) for c in range(1, 32) if c not in (9, 10, 13))
TEXT_CHARS = '"\\<>&' + "".join(chr(c) for c in range(0x1F600, 0x1F700)) + "éß€\u2028"


def public(host: str, port: int) -> Sequence[str]:
    return ["93.184.216.34"] if host == "site.test" else []


def packed_len(value: facts.SiteFacts) -> int:
    # Packed as the table packs them, however large (the limits are sharing's to apply).
    return len(zlib.compress(facts.encode(value), 6))


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


def last_answer(rng: random.Random, validators: dict[str, str]) -> Canned:
    """The last candidate's answer: what the fetch's end alone adds to its facts."""
    kind = rng.choice(["status", "refused", "samples", "html", "reset", "location"])
    # A Content-Type of random characters then a long run of one: literals that share a
    # deflate block with what the end adds.
    content_type = "text/xml;" + hostile(rng, HEADER_CHARS, rng.choice([0, 7500])) + "a" * 16_000
    headers = {**validators, "Content-Type": content_type}
    if kind == "status":
        return Canned(rng.choice([404, 410, 500, 503, 403]), validators)
    if kind == "refused":
        return Canned(200, headers, sitemap(rng, refused_at_end=True))
    if kind == "samples":
        return Canned(200, headers, sitemap(rng, refused_at_end=False))
    if kind == "html":
        root = hostile(rng, "abcdefghijklmnopqrstuvwxyz" * 3 + "é", 3000)
        return Canned(200, headers, f"<{root}/>".encode())
    if kind == "location":
        target = f"{SITE}/{hostile(rng, HEADER_CHARS, 2000)}"
        return Canned(301, {**validators, "Location": target})
    error = FetchError(FetchErrorKind.CONNECTION_RESET, hostile(rng, HEADER_CHARS, 3000))
    return Canned(200, headers, [sitemap(rng, False)[:50]], fails_after=error)


def fetched(
    answers: dict[str, Canned], previous: facts.SiteFacts | None = None
) -> tuple[facts.SiteFacts, list[facts.SiteFacts]]:
    """A fetch's own facts, and those it showed on the way."""
    site = resolve(SITE + "/")
    assert site is not None
    policy = FetchPolicy(origin=site.origin(), resolver=public)
    shown: list[facts.SiteFacts] = []
    fetcher = Fetcher(policy, transport=MemoryTransport(answers))
    return steps.fetch_facts(site, fetcher, previous, shown.append), shown


def one_fetch(seed: int) -> tuple[int, int]:
    """The packed size of the facts last shown and of the fetch's own."""
    rng = random.Random(seed)
    names = [hostile(rng, "abcdefghijklmnopqrstuvwxyz0123456789%", rng.choice([10, 300, 2000]))]
    names += [f"s{n}.xml" for n in range(rng.choice([0, 2, 20]))]
    rng.shuffle(names)
    robots = "".join(f"Sitemap: {SITE}/{n}\n" for n in names).encode()
    last = f"{SITE}/{names[-1]}"
    validators = {
        "ETag": hostile(rng, rng.choice([HEADER_CHARS, CONTROL_CHARS]), 250),
        "Last-Modified": hostile(rng, rng.choice([HEADER_CHARS, CONTROL_CHARS]), 250),
    }
    # robots.txt may send the very validators the last answer sends: a copy in the facts shown
    # that the end may push out of zlib's window.
    robots_headers = validators if rng.random() < 0.5 else {}
    answer = last_answer(rng, validators)
    answers = {SITE + "/robots.txt": Canned(200, robots_headers, robots), last: answer}
    previous = None
    if rng.random() < 0.25:
        # Fetched before: the last candidate answers 304 and its earlier outcome comes back.
        earlier, _ = fetched(answers)
        previous = facts.decode(facts.encode(earlier))
        answers[last] = Canned(304)
    got, shown = fetched(answers, previous)
    assert got.outcomes[-1].url == last
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
