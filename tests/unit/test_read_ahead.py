"""deep/slots.py: an index's children read ahead while its claim waits, kept in the walk's
recordings and answered from there; bounded by the slots, the walk's room, each host's share
and what the recordings may keep. In memory (fetching/memory_transport.py), no socket."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, wait

import pytest

from sitemap_auditor.core.site import resolve
from sitemap_auditor.deep.checks import Tally
from sitemap_auditor.deep.records import Claim, SitemapRecord
from sitemap_auditor.deep.slots import MAX_PER_HOST, ReadAhead
from sitemap_auditor.fetching.fetch import Fetcher, FetchPolicy
from sitemap_auditor.fetching.memory_transport import Canned, MemoryTransport
from sitemap_auditor.fetching.replay import Recordings

SITE = "https://shop.example"


def _policy() -> FetchPolicy:
    site = resolve(SITE + "/")
    assert site is not None
    return FetchPolicy(origin=site.origin(), resolver=lambda host, port: ["93.184.216.34"])


@pytest.fixture
def heard() -> Iterator[Recordings]:
    kept = Recordings()
    yield kept
    kept.close()


def _claim(children: list[str], depth: int = 0) -> Claim:
    record = SitemapRecord(0, SITE + "/index.xml", None, depth, "robots")
    return Claim((depth, (), 0), 0, record, [(c, n + 1) for n, c in enumerate(children)], Tally())


def _read(
    heard: Recordings, site: MemoryTransport, claims: list[Claim], **bounds: int
) -> list[str]:
    ahead = ReadAhead(lambda: Fetcher(_policy(), transport=heard.recording(site)), heard.files_left)
    hosts: Counter[str] = Counter()
    with ThreadPoolExecutor(4) as pool:
        ahead.fill(
            claims,
            lambda url: url.endswith("listed.xml"),
            bounds.get("max_depth", 5),
            bounds.get("slots", 4),
            bounds.get("room", 100),
            pool,
            hosts,
        )
        started = list(ahead.running.values())
        wait(list(ahead.running))
    assert sum(hosts.values()) == len(started) <= MAX_PER_HOST
    return started


def test_children_read_ahead_are_answered_from_the_recordings(heard: Recordings) -> None:
    children = [f"{SITE}/c{n}.xml" for n in range(3)]
    site = MemoryTransport({c: Canned(200, {}, b"<urlset/>") for c in children})
    assert _read(heard, site, [_claim([SITE + "/listed.xml", *children])]) == children
    asked = len(site.requests)
    walk = Fetcher(_policy(), transport=heard.replaying(site))
    for child in children:
        with walk.open(child) as answer:
            assert b"".join(answer.body()) == b"<urlset/>"
    assert len(site.requests) == asked == 3  # none asked twice; the listed one not at all


def test_read_ahead_stays_within_its_slots_room_depth_and_the_recordings_room(
    heard: Recordings,
) -> None:
    children = [f"{SITE}/c{n}.xml" for n in range(6)]
    site = MemoryTransport({c: Canned(200, {}, b"x" * 300_000) for c in children})
    assert len(_read(heard, site, [_claim(children)], slots=2)) == 2
    assert len(_read(heard, site, [_claim(children[2:])], room=1)) == 1
    assert _read(heard, site, [_claim(children, depth=5)], max_depth=5) == []
    # Bodies past memory go to files, of which the recordings keep a few: no more is read
    # ahead than may be kept (the rest the walk asks for in its turn).
    more = [f"{SITE}/f{n}.xml" for n in range(20)]
    site = MemoryTransport({c: Canned(200, {}, b"y" * 300_000) for c in more})
    left = iter(more)
    while heard.files_left() > 0:
        before = heard.files_left()
        started = _read(heard, site, [_claim([next(left) for _ in range(4)])])
        assert 0 < len(started) <= before
    assert _read(heard, site, [_claim([next(left)])]) == []
