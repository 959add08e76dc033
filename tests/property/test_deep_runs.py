"""SitemapChecks.batched (a run of entries checked at once: `_run`'s shortcut of `location` and
`lastmod`), fed by the reading's runs of plain entries (deep/reading/runs.py), against `entry` of
each entry read one expat event at a time: the same findings, counts, statistics, repeats and
rows, over every real sitemap of the corpora and 1,000 seeded generated pairs of files, whose
entries mix the common case with everything the shortcuts must leave to `entry`, fed in random
slices."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from support.shared import CORPUS, inflated, needs_shared

from sitemap_auditor.core.parser import SitemapParser
from sitemap_auditor.deep.checks import (
    SiteChecks,
    SitemapChecks,
    Tally,
    instant_key,
)
from sitemap_auditor.deep.reading.entries import DocumentHead, EntryCallback, EntryReader
from sitemap_auditor.deep.robots_rules import RobotsRules
from sitemap_auditor.deep.scope import SitemapScope

LOCAL = Path(__file__).resolve().parents[1] / "corpus"
NOW = instant_key(datetime(2026, 6, 1, tzinfo=UTC))
SITE = "https://www.example.com/"
# Two groups (Googlebot and Bingbot obey `*`, another agent its own) and a rule with `$`.
ROBOTS = RobotsRules.parse(
    b"User-agent: *\nDisallow: /private/\nDisallow: /*.pdf$\nAllow: /private/open\n"
    b"Disallow: /%7ejoe/\nDisallow: /caf%C3%A9\n\n"
    b"User-agent: Applebot\nDisallow: /noapple/\n"
)
AGENTS = ("Googlebot", "Bingbot", "Applebot")


def _snapshot(sc: SitemapChecks, rows: list[tuple[object, ...]]) -> tuple[object, ...]:
    s = sc.stats
    return (
        sc.tally.findings(sc.url),
        sc.entries,
        sc.without_lastmod,
        (s.count, s.earliest, s.latest, s.values, sorted(s.days), s.months, s.invalid),
        sc.children,
        sc.images,
        rows,
    )


def checked(files: list[tuple[str, bytes]], batched: bool, seed: int) -> list[tuple[object, ...]]:
    """Each file read in turn into the checks of one site, in slices drawn from seed; what
    each file's checks hold once all are read (a repeat may be told to an earlier file)."""
    draw = random.Random(seed)
    # One seed in three, robots.txt is another host's: no URL of these files is asked of it.
    robots_host = "www.example.com" if seed % 3 else "elsewhere.example"
    site = SiteChecks(ROBOTS, robots_host, agents=AGENTS)
    done: list[tuple[SitemapChecks, list[tuple[object, ...]]]] = []
    for number, (url, body) in enumerate(files, start=1):
        sc = SitemapChecks(url, number, SitemapScope.of(url, number % 2 == 1), False, NOW, site)
        rows: list[tuple[object, ...]] = []
        sc.tally = Tally(lambda *row, rows=rows: rows.append(row))

        reader = EntryReader(sc.entry, runs=batched)

        def on_head(
            head: DocumentHead, sc: SitemapChecks = sc, reader: EntryReader = reader
        ) -> EntryCallback:
            sc.is_index = head.root == "sitemapindex"
            if batched and not sc.is_index:
                reader.on_run = sc.gathered
                return sc.batched()
            return sc.entry

        reader.on_head = on_head
        parser = SitemapParser(reader)
        at = 0
        while at < len(body):
            step = draw.choice([1, 7, 100, 4096, 65536, 1 << 20])
            parser.feed(body[at : at + step])
            sc.flush()  # as the walk does after each slice it feeds (a no-op for `entry`)
            at += step
        parser.close()
        sc.flush()
        done.append((sc, rows))
    return [_snapshot(sc, rows) for sc, rows in done]


def _same(files: list[tuple[str, bytes]], seed: int) -> None:
    assert checked(files, True, seed) == checked(files, False, seed)


# --- generated files ------------------------------------------------------------------------

_ODD_LOCS = (
    None,  # no <loc>
    "",
    "https://other.example/a",
    "http://www.example.com/a",
    "/relative",
    SITE + "private/x",
    SITE + "private/open/x",
    SITE + "doc.pdf",
    SITE + "doc.pdf?x",
    SITE + "noapple/a",
    SITE + "a#frag",
    SITE + "doc.pdf#frag",  # a fragment is no part of what robots.txt matches
    SITE + "%7Ejoe/a",
    SITE + "%7ejoe/a",
    SITE + "caf\u00e9/x",
    SITE + "blog/../x",  # out of a folder's scope once read
    SITE + "blog/%2e%2e/x",
    SITE + "blog/./x",
    SITE + "blog/a",
    SITE + "a%20b",
    SITE + "caf\u00e9",
    SITE + "../x",
    SITE + "a/./b",
    SITE + "%2e%2e/x",
    SITE + "a b",
    SITE + "x" * 2100,
    "  " + SITE + "trimmed  ",
    "HTTPS://WWW.EXAMPLE.COM/upper",
    SITE + "a&amp;b",
    SITE + "tab&#9;in",
    SITE + "line&#10;break",
)
_ODD_LASTMODS = (
    None,
    "",
    "garbage",
    "2024-05-01",
    "2024-05",
    "2024",
    "2024-05-01T10:00:00",
    "2024-05-01T10:00",
    "2027-01-01T00:00:00Z",
    "2026-06-01T00:59:59Z",
    "2026-06-01T01:00:01Z",
    "2023-02-30T10:00:00+01:00",
    "0001-01-01T00:30:00+01:00",
    "9999-12-31T23:30:00-01:00",
    "2024-05-01T10:00:00Z ",
    " 2024-05-01T10:00:00Z",
    "2024-05-01T10:00:00Z&#10;2024-05-01T10:00:00Z",
    "2024-05-01T10:00:00.1234567Z",
    "2024-05-01T10:00:00+14:01",
    "2024-05-01t10:00:00Z",
)


def _lastmod(draw: random.Random) -> str:
    day = draw.randrange(1, 29)
    hour, minute, second = draw.randrange(24), draw.randrange(60), draw.randrange(60)
    zone = draw.choice(["Z", "+01:00", "-05:00", "+05:30", ".123Z", ".5+02:00"])
    return f"2024-{draw.randrange(1, 13):02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}{zone}"


def _urlset(
    draw: random.Random, entries: int, odd: float, pool: list[str], folder: str = ""
) -> bytes:
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/'
        'schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">'
    ]
    for i in range(entries):
        loc: str | None = f"{SITE}{folder}p/{i}-{draw.randrange(10**6)}"
        if pool and draw.random() < 0.03:
            loc = draw.choice(pool)  # a repeat, in this file or the other
        elif draw.random() < odd:
            loc = draw.choice(_ODD_LOCS)
        if loc:
            pool.append(loc)
        lastmod: str | None = _lastmod(draw)
        if draw.random() < odd:
            lastmod = draw.choice(_ODD_LASTMODS)
        elif draw.random() < 0.05:
            lastmod = None
        parts = ["<url>"]
        if loc is not None:
            parts.append(f"<loc>{loc}</loc>")
        if lastmod is not None:
            parts.append(f"<lastmod>{lastmod}</lastmod>")
        if draw.random() < odd / 2:
            parts.append("<image:image><image:loc>https://www.example.com/i.png</image:loc>"
                         "</image:image>")  # fmt: skip
        parts.append("</url>\n")
        out.append("".join(parts))
    out.append("</urlset>\n")
    return "".join(out).encode()


def test_generated_pairs_of_files_are_checked_alike_either_way() -> None:
    draw = random.Random(3311)
    for case in range(1000):
        odd = draw.choice([0.0, 0.0, 0.0005, 0.01, 0.05, 0.3])
        entries = draw.choice([0, 1, 3, 40, 300, 1000]) if case % 50 else 5000
        pool: list[str] = []
        # A sitemap in a folder (its URLs must be in it) when robots.txt does not list it.
        folder = draw.choice(["", "blog/"])
        files = [
            (
                f"{SITE}{folder}sitemap-{k}.xml",
                _urlset(draw, entries if k == 0 else entries // 3, odd, pool, folder),
            )
            for k in range(2)
        ]
        _same(files, case)


def test_a_run_holds_the_common_case_and_the_shortcut_is_taken() -> None:
    # The shortcut is not a path that never runs: a clean file is checked a run at a time.
    body = _urlset(random.Random(1), 500, 0.0, [])
    site = SiteChecks(ROBOTS, "www.example.com", agents=AGENTS)
    sc = SitemapChecks(SITE + "s.xml", 1, SitemapScope.of(SITE + "s.xml", True), False, NOW, site)
    entry: Callable[..., None] = sc.entry
    asked: list[object] = []

    def counted(*args: object) -> None:
        asked.append(args)
        entry(*args)

    sc.entry = counted  # type: ignore[method-assign]
    parser = SitemapParser(EntryReader(sc.batched()))
    parser.feed(body)
    parser.close()
    sc.flush()
    assert sc.entries == 500 and not asked  # not one entry asked of `entry`
    assert sc.stats.count + sc.without_lastmod == 500


# --- real files -----------------------------------------------------------------------------


@needs_shared
def test_every_real_file_is_checked_alike_either_way() -> None:
    files = sorted(p for p in [*CORPUS.rglob("*"), *LOCAL.rglob("*")] if p.is_file())
    read = 0
    for k, path in enumerate(files):
        body = inflated(path.read_bytes())
        if b"<url" not in body[:65536]:
            continue
        # Each file beside itself under another name: every URL of the second is a repeat.
        _same([(f"{SITE}{path.name}", body), (f"{SITE}again/{path.name}", body)], k)
        read += 1
    assert read > 150  # the corpus is read, not skipped
