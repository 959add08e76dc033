"""The deep audit's checks as pure functions, and its bounded structures."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta

import pytest

from sitemap_auditor.core.lastmod import lastmod_key
from sitemap_auditor.core.text import CUT_MARK
from sitemap_auditor.deep import checks, walk
from sitemap_auditor.deep.checks import Tally
from sitemap_auditor.deep.kinds import KINDS, Kind, Severity
from sitemap_auditor.deep.reading.head import line_breaks
from sitemap_auditor.deep.reading.text import text_lines
from sitemap_auditor.deep.scope import SitemapScope, classify_loc, classify_reading, read_loc
from sitemap_auditor.deep.seen import (
    MAX_FILE_NUMBER,
    Duplicates,
    SeenUrls,
    false_duplicate_pairs,
)

NOW = lastmod_key("2026-12-01T12:00:00Z") or 0
ROOT = SitemapScope.of("https://www.example.com/sitemap.xml", from_robots=True)
FOLDER = SitemapScope.of("https://www.example.com/blog/sitemap.xml", from_robots=False)


@pytest.mark.parametrize(
    ("loc", "scope", "kind"),
    [
        ("https://www.example.com/a", ROOT, None),
        ("https://WWW.EXAMPLE.COM/a", ROOT, None),
        ("https://example.com/a", ROOT, Kind.PATH_MISMATCH),
        ("https://www.other.com/a", ROOT, Kind.URL_NOT_ALLOWED),
        ("http://www.example.com/a", ROOT, Kind.URL_NOT_ALLOWED),
        ("https://www.example.com:8443/a", ROOT, Kind.URL_NOT_ALLOWED),
        ("https://www.example.com/shop/a", FOLDER, Kind.URL_NOT_ALLOWED),
        ("https://www.example.com/blog/a", FOLDER, None),
        ("/relative", ROOT, Kind.INVALID_URL),
        ("https://www.example.com/a b", ROOT, Kind.INVALID_URL),
        ("ftp://www.example.com/a", ROOT, Kind.INVALID_URL),
        ("https://www.example.com/" + "a" * 2100, ROOT, Kind.INVALID_URL),
        ("https://[zz]/a", ROOT, Kind.INVALID_URL),
        # Two parsers would read these apart (the host before "\\", or after "@"): invalid.
        ("https://www.other.com\\@www.example.com/a", ROOT, Kind.INVALID_URL),
        # Read as the fetcher reads it (docs/contract.md §8): dot segments lead out of a folder.
        ("https://www.example.com/blog/%2e%2e/shop/a", FOLDER, Kind.URL_NOT_ALLOWED),
        ("https://www.example.com:443/a", ROOT, None),
        ("https://www.example.com/blog/../shop/a", FOLDER, Kind.URL_NOT_ALLOWED),
    ],
)
def test_classify_loc(loc: str, scope: SitemapScope, kind: Kind | None) -> None:
    assert classify_loc(loc, scope) is kind


@pytest.mark.parametrize(
    ("loc", "read"),
    [
        ("https://www.example.com/a", None),  # the common case: no reading needed
        ("https://www.example.com/a b", None),  # invalid: none to give
        ("HTTPS://WWW.Example.com/a", "https://www.example.com/a"),
        ("https://www.example.com:443/blog/../a", "https://www.example.com/a"),
        ("https://www.other.com/a", "https://www.other.com/a"),
    ],
)
def test_read_loc_gives_the_one_reading_it_took(loc: str, read: str | None) -> None:
    # Whoever decides more about a listed URL (another scope, robots.txt) uses this reading,
    # not one of its own.
    kind, web = read_loc(loc, ROOT)
    assert kind is classify_loc(loc, ROOT)
    assert (None if web is None else web.href) == read
    if web is not None:
        assert classify_reading(web, ROOT) is kind


@pytest.mark.parametrize(
    "loc",
    [
        "https://www.example.com/a",
        "https://www.example.com/a b",  # the scope's prefix, yet invalid
        "https://www.example.com/a<b>",
        "https://www.example.com/" + "a" * 2100,
        "https://www.example.com/blog/a",
        "https://www.example.com/blogger",
        "https://example.com/blog/a",
        "http://www.example.com/blog/a",
        "/relative",
        # The scope's prefix, then a dot segment that leads out of its folder.
        "https://www.example.com/blog/../shop/a",
        "https://www.example.com/blog/%2e%2e/shop/a",
        "https://www.example.com/blog/%2E./shop/a",
        "https://www.example.com/blog/./a",
        "https://www.example.com/blog/.well-known/a",
    ],
)
@pytest.mark.parametrize("scope", [ROOT, FOLDER], ids=["root", "folder"])
def test_a_location_is_judged_as_classify_loc_judges_it(loc: str, scope: SitemapScope) -> None:
    # SitemapChecks.location decides the common case before classify_loc: the same answer.
    site = checks.SiteChecks(None, "www.example.com")
    sc = checks.SitemapChecks("https://www.example.com/blog/s.xml", 0, scope, False, NOW, site)
    sc.location(loc, 1)
    found = [f.kind for f in sc.tally.findings(sc.url)]
    kind = classify_loc(loc, scope)
    assert found == ([] if kind is None else [kind])


def test_lastmod_statistics_counted_in_batches_are_those_counted_one_by_one() -> None:
    site = checks.SiteChecks(None, "www.example.com")
    sc = checks.SitemapChecks("https://www.example.com/s.xml", 0, ROOT, False, NOW, site)
    one_by_one = checks.LastmodStats()
    # More distinct values than are batched at once, repeated and interleaved, over the cap
    # of distinct days, so that which days are kept depends on the order they came in.
    first = date(1950, 1, 1)
    values = [(first + timedelta(days=i * 7919 % 30_000)).isoformat() for i in range(15_000)]
    values += [f"{1800 + i % 150:04d}-{1 + i % 12:02d}" for i in range(3000)]
    values += [f"2020-05-{1 + i % 28:02d}T10:{i % 60:02d}:00Z" for i in range(3000)]
    for i, value in enumerate(values + values[::7]):
        sc.lastmod(value, i)
        key = lastmod_key(value)
        assert key is not None
        one_by_one.add(key)
    got = sc.stats
    assert (got.count, got.earliest, got.latest) == (
        one_by_one.count,
        one_by_one.earliest,
        one_by_one.latest,
    )
    assert len(got.days) == checks.MAX_DISTINCT_DAYS and got.days == one_by_one.days
    assert len(got.months) == checks.MAX_MONTHS and got.months == one_by_one.months


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("2026-11-30", None),
        ("2026-11-30T08:15:00+01:00", None),
        ("  2026-11-30T08:15:00Z\n", None),
        ("2026-12-01", None),  # today is not the future
        ("2026-12-02", None),  # a date one zone ahead may be tomorrow already
        ("2026-12-03", Kind.FUTURE_LASTMOD),
        ("2099-01-01", Kind.FUTURE_LASTMOD),
        ("2027", Kind.FUTURE_LASTMOD),
        ("2026-11-30T08:15:00", Kind.DATE_WITHOUT_TIMEZONE),
        ("2026-11-30T08:15:00.123456", Kind.DATE_WITHOUT_TIMEZONE),
        ("2026-13-01", Kind.INVALID_DATE),
        ("2026-11-30 08:15:00", Kind.INVALID_DATE),
        ("30/11/2026", Kind.INVALID_DATE),
        ("2026-11-30T08:15:00+0100", Kind.INVALID_DATE),
        ("", Kind.INVALID_DATE),
    ],
)
def test_classify_lastmod(value: str, kind: Kind | None) -> None:
    assert checks.classify_lastmod(value, NOW)[0] is kind


@pytest.mark.parametrize(
    ("code", "valid"),
    [("en", True), ("en-GB", True), ("zh-Hant-TW", True), ("es-419", True), ("x-default", True),
     # Variants, private use, extended language subtags, grandfathered tags: BCP 47 too.
     ("de-CH-1996", True), ("x-klingon", True), ("i-klingon", True), ("zh-min-nan", True),
     ("sl-rozaj-biske", True), ("en-US-x-twain", True), ("en-GB-oed", True),
     ("de-u-co-phonebk", True),
     ("en_GB", False), ("english", False), ("", False), ("en-", False), ("x", False),
     ("en-GB-", False), ("de-CH-19", False), ("zh-Hant-Hans", False)],
)  # fmt: skip
def test_hreflang_codes(code: str, valid: bool) -> None:
    assert checks.hreflang_valid(code) is valid


@pytest.mark.parametrize(
    ("code", "problem"),
    [("en-UK", "UK is not an ISO 3166-1 country code (use GB)"),
     ("jp", "jp is not an ISO 639-1 language code (use ja)"),
     ("cn-ZH", "cn is not an ISO 639-1 language code (use zh)"),
     ("en-QL", "QL is not an ISO 3166-1 country code"),
     ("en_GB", "not BCP 47"),
     # Silent: every code a real site of the corpus uses, case aside, the codes ISO withdrew
     # that browsers still read, registry regions, and subtags that are no region.
     ("EN-us", None), ("pt-BR", None), ("zh-TW", None), ("de-ch", None), ("ca-ES", None),
     ("iw", None), ("sr-Latn-RS", None), ("es-419", None), ("en-EU", None), ("sq-XK", None),
     ("ast", None), ("de-u-co-phonebk", None), ("en-US-x-aa", None), ("i-klingon", None),
     # The registry's other regions: reserved (es-IC), deprecated (AN), private use (XA); sh.
     ("es-IC", None), ("es-EA", None), ("en-DG", None), ("nl-AN", None), ("en-XA", None),
     ("sh", None)],
)  # fmt: skip
def test_hreflang_codes_are_checked_against_the_iso_tables(code: str, problem: str | None) -> None:
    assert checks.hreflang_problem(code) == problem
    assert checks.hreflang_valid(code) is (problem is None)


def test_video_and_news_required_tags() -> None:
    assert (
        checks.video_missing(frozenset({"thumbnail_loc", "title", "description", "player_loc"}))
        == ()
    )
    assert checks.video_missing(frozenset({"title"})) == (
        "video:thumbnail_loc",
        "video:description",
        "video:content_loc or video:player_loc",
    )
    assert checks.news_missing(frozenset({"name", "language", "title"})) == (
        "news:publication_date",
    )


def test_a_tally_keeps_five_examples_cut_to_200_characters() -> None:
    t = Tally()
    for i in range(10):
        t.add(Kind.INVALID_URL, i, "x" * 300)
    (f,) = t.findings("s")
    assert f.count == 10 and f.line == 0
    assert len(f.examples) == 5 and all(len(e.value) == 200 for e in f.examples)


def test_seen_urls_keep_the_sitemap_and_line_of_a_listing() -> None:
    seen = SeenUrls()
    assert seen.add(hash("https://a/1"), 0, 4) == -1
    slot = seen.add(hash("https://a/1"), 7, 9)
    assert slot >= 0 and seen.first(slot) == (0, 4, -1)  # still the first listing's
    seen.move(slot, 7, 9, 0)
    assert seen.first(seen.add(hash("https://a/1"), 1, 1)) == (7, 9, 0)
    # Sitemap numbers up to the walk's most, huge lines.
    assert seen.add(hash("https://a/2"), MAX_FILE_NUMBER, 2**40) == -1
    assert seen.first(seen.add(hash("https://a/2"), 3, 1)) == (MAX_FILE_NUMBER, 2**32 - 1, -1)
    assert seen.size == 2


def test_every_sitemap_the_walk_records_has_a_number_the_table_holds() -> None:
    most = walk.MAX_SITEMAPS_CEILING + walk.MAX_UNFETCHED_RECORDS
    assert most - 1 <= MAX_FILE_NUMBER
    with pytest.raises(ValueError):
        Duplicates().register(MAX_FILE_NUMBER + 1, _Lister())


@dataclass
class _Lister:
    is_news: bool = False
    told: list[tuple[int | None, str, int]] = field(default_factory=list)

    def repeat(self, line: int | None, url: str, again: int) -> None:
        self.told.append((line, url, again))


def _listed(
    order: list[tuple[int, int, str]], news: frozenset[int] = frozenset()
) -> dict[int, list[tuple[int | None, str, int]]]:
    # Lists (file, line, url) in the given order; what each file was told.
    d = Duplicates()
    files = {f: _Lister(is_news=f in news) for f, _, _ in order}
    for number, lister in files.items():
        d.register(number, lister)
    for number, line, url in order:
        d.add(url, number, line, files[number].repeat)
    return {n: sorted(files[n].told) for n in sorted(files)}


def test_duplicates_report_repeats_within_and_across_sitemaps() -> None:
    told = _listed([(0, 1, "https://a/1"), (0, 2, "https://a/1"), (1, 5, "https://a/3"),
                    (1, 6, "https://a/1"), (1, 7, "https://a/3")])  # fmt: skip
    assert told == {0: [(2, "https://a/1", 1)], 1: [(6, "https://a/1", 2), (7, "https://a/3", 1)]}


def test_which_file_a_repeat_is_counted_against_does_not_depend_on_the_reading_order() -> None:
    # A URL in sitemaps 0, 1 and 2 and news sitemap 3: the regular file first in the walk's
    # order keeps it, whatever order the four are read in; each other file is told its line.
    listings = [(0, 10, "https://a/x"), (1, 20, "https://a/x"), (2, 30, "https://a/x"),
                (3, 40, "https://a/x"), (2, 31, "https://a/y"), (1, 21, "https://a/y")]  # fmt: skip
    answers = {
        repr(_listed([listings[i] for i in order], news=frozenset({3})))
        for order in itertools.permutations(range(len(listings)))
    }
    assert answers == {
        repr(
            {
                0: [],
                1: [(20, "https://a/x", 2)],
                2: [(30, "https://a/x", 2), (31, "https://a/y", 2)],
                3: [(40, "https://a/x", 2)],
            }
        )
    }


def _teller(
    into: list[tuple[int, int | None, str, int]], file_number: int
) -> Callable[[int | None, str, int], None]:
    def report(line: int | None, url: str, again: int) -> None:
        into.append((file_number, line, url, again))

    return report


def test_a_run_of_urls_is_taken_as_each_in_turn() -> None:
    # Repeats within a run and of earlier runs, the table growing mid-run, and the bound.
    rng = random.Random(7)
    listings = [(rng.randrange(3), f"https://a/{rng.randrange(1_500)}") for _ in range(3_000)]
    one, runs = Duplicates(max_urls=1_200), Duplicates(max_urls=1_200)
    told_one: list[tuple[int, int | None, str, int]] = []
    told_runs: list[tuple[int, int | None, str, int]] = []
    for f in range(3):
        one.register(f, _Lister())
        runs.register(f, _Lister())
    for line, (f, url) in enumerate(listings, 1):
        one.add(url, f, line, _teller(told_one, f))
    at = 0
    while at < len(listings):
        f = listings[at][0]
        stop = at + 1
        while stop < len(listings) and listings[stop][0] == f and stop - at < rng.randrange(1, 90):
            stop += 1
        urls = [url for _, url in listings[at:stop]]
        runs.add_all(urls, f, list(range(at + 1, stop + 1)), _teller(told_runs, f))
        at = stop
    assert told_runs == told_one and len(told_one) > 1_000
    assert runs.size == one.size == 1_200 and runs.full and runs.bytes == one.bytes
    with pytest.raises(ValueError):
        runs.add_all(["https://a/x"], 0, [], told_runs.append)  # type: ignore[arg-type]


def test_seen_urls_runs_agree_with_a_plain_table() -> None:
    # add_run's stretches (no growth, no bound within them) against a dict of each URL's first
    # listing: repeats, growth mid-run, the bound reached mid-run, lines past 32 bits, hash 0.
    rng = random.Random(11)
    for max_urls in (900, 1_500, 5_000):
        seen = SeenUrls(max_urls=max_urls)
        plain: dict[int, tuple[int, int, int]] = {}
        for _ in range(60):
            file_number = rng.randrange(5)
            hashes = [rng.choice((0, -(2**63), 2**63 - 1, rng.randrange(-(2**63), 2**63)))]
            hashes += [rng.randrange(2_500) * 7_919 - 9_000 for _ in range(rng.randrange(150))]
            lines = [rng.choice((rng.randrange(1, 10**6), 2**32 + 5)) for _ in hashes]
            at = 0
            while at < len(hashes):
                stop = seen.add_run(hashes, file_number, lines, at)
                for h, line in zip(hashes[at:stop], lines[at:stop], strict=True):
                    key = h or 1
                    assert key not in plain
                    if len(plain) < max_urls:
                        plain[key] = (file_number, min(line, 2**32 - 1), -1)
                if stop == len(hashes):
                    break
                assert plain[hashes[stop] or 1] == seen.first(seen.found())
                at = stop + 1
            assert seen.size == len(plain)
        assert seen.full == (len(plain) == max_urls)


def test_seen_urls_stay_within_their_bytes_a_url_and_stop_at_their_bound() -> None:
    seen = SeenUrls(max_urls=100_000)
    for i in range(100_000):
        assert seen.add(hash(f"https://example.com/p{i}"), 0, i) == -1
    assert seen.bytes <= checks.DEDUPE_BYTES_PER_URL * 100_000
    assert not seen.full
    assert seen.add(hash("https://example.com/one-more"), 0) == -1
    assert seen.full and seen.size == 100_000


def test_the_false_duplicate_rate_is_the_one_stated() -> None:
    # seen.py's docstring, docs/deep.md and the README state these figures.
    assert f"{false_duplicate_pairs(10**6):.1e}" == "2.7e-08"
    assert f"{false_duplicate_pairs(10**7):.1e}" == "2.7e-06"
    assert f"{false_duplicate_pairs(10**8):.1e}" == "2.7e-04"


def test_every_kind_has_its_row() -> None:
    assert set(KINDS) == set(Kind)
    assert KINDS[Kind.LIMIT_REACHED].severity is Severity.NOTICE
    for info in KINDS.values():
        assert info.title and info.message.endswith(".") and info.fix


def test_html_is_told_from_xml() -> None:
    assert checks.sniff_html(b"\n<!DOCTYPE html><html>", None)
    assert checks.sniff_html(b"<html lang=en>", "application/xml")
    assert not checks.sniff_html(b'<?xml version="1.0"?><urlset>', "text/html")
    assert not checks.sniff_html(b"<urlset>", "text/html")


class _DisallowPrivate:
    """Rules that disallow /private/ (the matcher itself is robots_rules.py's)."""

    def allowed(self, url: str, agent: str = "Googlebot") -> bool:
        return "/private/" not in url


def test_blocked_by_robots_asks_the_rules_for_urls_of_the_robots_host_only() -> None:
    site = checks.SiteChecks(_DisallowPrivate(), "www.example.com")
    sc = checks.SitemapChecks("https://www.example.com/s.xml", 0, ROOT, False, NOW, site)
    sc.location("https://www.example.com/private/a", 3)
    sc.location("https://www.example.com/a", 4)
    sc.location("https://example.com/private/b", 5)  # path-mismatch: another host's robots.txt
    found = {f.kind: f for f in sc.tally.findings(sc.url)}
    assert found[Kind.BLOCKED_BY_ROBOTS].count == 1
    assert found[Kind.BLOCKED_BY_ROBOTS].examples[0].line == 3
    assert Kind.PATH_MISMATCH in found


# Kinds that are counted only past a threshold, so never once.
_COUNTED_PAST = {
    Kind.TOO_MANY_URLS: checks.MAX_ENTRIES,
    Kind.TOO_MANY_SITEMAPS: checks.MAX_ENTRIES,
    Kind.IDENTICAL_LASTMODS: checks.IDENTICAL_MIN_ENTRIES,
    Kind.NEWS_TOO_MANY: checks.MAX_NEWS,
}


@pytest.mark.parametrize("kind", list(Kind))
def test_a_count_of_one_reads_in_the_singular(kind: Kind) -> None:
    info = KINDS[kind]
    one = checks.Finding(kind, None, None, 1, (), "why").message
    two = checks.Finding(kind, None, None, 2, (), "why").message
    if "{count}" not in info.message or kind in _COUNTED_PAST:
        assert not info.one and _COUNTED_PAST.get(kind, 2) > 1
        return
    assert "{count}" not in info.one
    assert one == info.one.format(detail="why") and one.startswith("1 ")
    assert two == info.message.format(count="2", detail="why")


def test_every_listing_but_the_first_in_the_walks_order_is_reported_whatever_the_read_order() -> (
    None
):
    # Listings of one URL: (sitemap number, line); the sitemaps' places in the walk's order
    # differ from their numbers (children are numbered as their indexes answer).
    places = {0: (1, 2), 1: (1, 0), 2: (2, 0, 0), 3: (1, 1)}
    listings = [(0, 4), (1, 9), (2, 3), (3, 7), (1, 12), (0, 8)]
    first = min(listings, key=lambda w: (places[w[0]], w[1]))
    orders = 0
    for order in itertools.permutations(listings):
        if any(a[0] == b[0] and a[1] > b[1] for a, b in itertools.combinations(order, 2)):
            continue  # one file is read in its own order
        orders += 1
        d = Duplicates(order=places.__getitem__)
        files = {n: _Lister() for n in places}
        for n, lister in files.items():
            d.register(n, lister)
        for number, line in order:
            d.add("https://a/1", number, line, files[number].repeat)
        told = [(n, at) for n, lister in files.items() for at, _, _ in lister.told]
        assert sorted(told) == sorted(w for w in listings if w != first), order
    assert orders == 180


class _CountedRules:
    """RobotsRules, with its checkers' calls counted."""

    def __init__(self, body: bytes) -> None:
        from sitemap_auditor.deep.robots_rules import RobotsRules

        self.rules = RobotsRules.parse(body)
        self.calls: dict[str, int] = {}
        self.group_of = self.rules.group_of
        self.allows_all = self.rules.allows_all

    def allowed(self, url: str, agent: str = "Googlebot") -> bool:
        raise AssertionError("asked one URL at a time")

    def checker(self, agent: str) -> Callable[[str], bool]:
        test = self.rules.checker(agent)

        def counted(url: str) -> bool:
            self.calls[agent] = self.calls.get(agent, 0) + 1
            return test(url)

        return counted


def _blocked(rules: object, urls: list[str]) -> list[tuple[int, str]]:
    site = checks.SiteChecks(rules, "www.example.com")  # type: ignore[arg-type]
    sc = checks.SitemapChecks("https://www.example.com/s.xml", 0, ROOT, False, NOW, site)
    rows: list[tuple[int, str]] = []
    sc.tally = Tally(lambda kind, line, value, detail: rows.append((line or 0, detail)))
    for line, url in enumerate(urls, 3):
        sc.location(url, line)
    return rows


URLS = [f"https://www.example.com/{p}" for p in ("a", "private/b", "c", "private/d")]


def test_agents_under_one_group_are_matched_once_a_url() -> None:
    rules = _CountedRules(b"User-agent: *\nDisallow: /private/\n")
    assert _blocked(rules, URLS) == [(4, "Googlebot and Bingbot"), (6, "Googlebot and Bingbot")]
    assert rules.calls == {"Googlebot": 4}  # Bingbot obeys the same group: not matched again


def test_an_agent_whose_rules_allow_all_is_never_matched() -> None:
    rules = _CountedRules(
        b"User-agent: Googlebot\nAllow: /\n\nUser-agent: *\nDisallow: /private/\n"
    )
    assert _blocked(rules, URLS) == [(4, "Bingbot"), (6, "Bingbot")]
    assert rules.calls == {"Bingbot": 4}
    silent = _CountedRules(b"User-agent: Googlebot\nDisallow:\n\nUser-agent: Bingbot\nAllow: /\n")
    site = checks.SiteChecks(silent, "www.example.com")
    assert site.allows is None  # no URL is asked at all
    assert _blocked(silent, URLS) == [] and silent.calls == {}


def test_each_agent_with_a_group_of_its_own_is_matched() -> None:
    body = b"User-agent: Googlebot\nDisallow: /c\n\nUser-agent: Bingbot\nDisallow: /private/\n"
    rules = _CountedRules(body)
    assert _blocked(rules, URLS) == [(4, "Bingbot"), (5, "Googlebot"), (6, "Bingbot")]
    # Each URL once a group (until one refuses it), and a refused one once more, to name whom.
    assert rules.calls == {"Googlebot": 4 + 3, "Bingbot": 3 + 3}


def test_the_user_agents_product_is_what_robots_txt_is_read_for() -> None:
    from sitemap_auditor.core.request_headers import ExtraHeaders
    from sitemap_auditor.deep.first_answers import robots_agents

    def agents(ua: str) -> tuple[str, ...]:
        return robots_agents(ExtraHeaders.of([("User-Agent", ua)]))

    assert robots_agents(ExtraHeaders()) == ("Googlebot", "Bingbot")
    assert agents("Mozilla/5.0 (compatible; AgencyAudit/1.0)") == (
        "Googlebot",
        "Bingbot",
        "AgencyAudit",
    )
    assert agents("MyBot") == ("Googlebot", "Bingbot", "MyBot")
    assert agents("Mozilla/5.0 (compatible; Googlebot/2.1)") == ("Googlebot", "Bingbot")
    assert agents("bingbot/2.0") == ("Googlebot", "Bingbot")
    browser = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0"
    assert agents(browser) == ("Googlebot", "Bingbot")
    assert agents("37AuditsBot/1.0") == ("Googlebot", "Bingbot")  # no valid product name


def test_an_invalid_xml_example_quotes_its_line_bounded() -> None:
    data = b"<a>\r\n<b>\r<c>\n" + b"x" * 400 + b"&" + b"y" * 400 + b"\n"
    assert line_breaks(data) == 4  # CR LF one, a lone CR one, LF one each
    assert line_breaks(b"<a>\n<b>\n") == 2 and line_breaks(b"<a>") == 0
    assert checks.quote_line(data, 2) == "<b>" and checks.quote_line(data, 3) == "<c>"
    quoted = checks.quote_line(data, 4, column=400)
    assert "&" in quoted and quoted.startswith("…") and quoted.endswith("…")
    assert len(quoted) == checks.QUOTE_CHARS + 2
    assert checks.quote_line(data, 9) == "" and checks.quote_line(b"", 1) == ""
    assert checks.quote_line(b"\xff\xfe<bad>\n", 1) == "\ufffd\ufffd<bad>"


def test_a_repeat_is_within_its_file_whatever_order_the_files_are_read_in() -> None:
    # /u in sitemaps 0 (which keeps it), 1 twice and 2 twice: every order the three files'
    # listings can be read in (each file in its own order) tells the same repeats, with the
    # same words, to the same files and lines.
    listings = [(0, 5), (1, 3), (1, 9), (2, 4), (2, 8)]
    answers = set()
    for order in itertools.permutations(listings):
        if any(a[0] == b[0] and a[1] > b[1] for a, b in itertools.combinations(order, 2)):
            continue
        d = Duplicates()
        files = {n: _Lister() for n in (0, 1, 2)}
        for n, lister in files.items():
            d.register(n, lister)
        for number, line in order:
            d.add("https://a/u", number, line, files[number].repeat)
        answers.add(repr({n: sorted(files[n].told) for n in files}))
    assert answers == {
        repr(
            {
                0: [],
                1: [(3, "https://a/u", 2), (9, "https://a/u", 1)],
                2: [(4, "https://a/u", 2), (8, "https://a/u", 1)],
            }
        )
    }


def test_agents_named_by_different_urls_are_each_named_once() -> None:
    from sitemap_auditor.deep.checks import joined_details

    blocked = Kind.BLOCKED_BY_ROBOTS
    assert joined_details(blocked, ["Googlebot and Bingbot"]) == "Googlebot and Bingbot"
    assert joined_details(blocked, ["Googlebot", "Googlebot and Bingbot"]) == (
        "Googlebot or Bingbot"
    )
    three = ["AgencyAudit", "Googlebot, Bingbot and AgencyAudit", "Googlebot or Bingbot"]
    assert joined_details(blocked, three) == "Googlebot, Bingbot or AgencyAudit"
    # Other kinds' details are listed as they are.
    assert joined_details(Kind.DUPLICATE_URL, ["b", "a", "b", ""]) == "a, b"


def test_missing_return_links_are_the_same_whatever_order_the_files_are_read_in() -> None:
    # Three files of alternates, more links than the sample keeps words for; each file's links
    # come in line order, the files interleaved at random (as fetches at once read them).
    rng = random.Random(7)
    files: dict[str, list[tuple[int, str, str]]] = {}
    for f in range(3):
        rows = files[f"https://a.example/s{f}.xml"] = []
        for line in range(1, 2_001):
            page = f"https://a.example/{f}/{line}"
            rows.append((line, page, page))  # itself
            # to a page of the next file, read with alternates that rarely link back
            rows.append((line, page, f"https://a.example/{(f + 1) % 3}/{rng.randrange(1, 2_001)}"))
    readings = []
    for seed in range(3):
        order = random.Random(seed)
        cursors = {name: iter(rows) for name, rows in files.items()}
        site = checks.SiteChecks(None, "a.example")
        while cursors:
            name = order.choice(sorted(cursors))
            row = next(cursors[name], None)
            if row is None:
                del cursors[name]
                continue
            site.alternate(name, *row)
        readings.append(sorted(site.missing_return_links()))
    assert readings[0] == readings[1] == readings[2]
    found = readings[0]
    assert len(found) > 5_000 and {s for s, _, _ in found} == set(files)
    assert 0 < sum(1 for _, _, text in found if text) <= checks.LINK_EXAMPLES


def test_a_line_of_a_text_sitemap_past_the_bound_is_cut_marked_and_its_end_dropped() -> None:
    long = b"https://ex.com/" + b"a" * 40_000
    chunks = [long[:10_000], long[10_000:30_000], long[30_000:] + b"-end\nhttps://ex.com/b\n"]
    lines = list(text_lines(chunks))
    assert [n for n, _ in lines] == [1, 2]
    first = lines[0][1]
    assert len(first) == 4096 and first.endswith(CUT_MARK) and "-end" not in first
    assert lines[1][1] == "https://ex.com/b"


def test_a_text_line_that_is_not_utf8_is_told_but_not_one_the_cut_split() -> None:
    told: list[int] = []
    chunks = [b"https://ex.com/a\nhttps://ex.com/caf\xe9\n", b"https://ex.com/b\n"]
    lines = list(text_lines(chunks, told.append))
    assert told == [2] and lines[1] == (2, "https://ex.com/caf\ufffd")
    # A line cut in the middle of a character is UTF-8 still.
    long = b"https://ex.com/" + "é".encode() * 20_000 + b"\n"
    told.clear()
    assert len(list(text_lines([long[:9], long[9:]], told.append))) == 1
    assert told == []


def test_a_line_cut_by_its_bytes_is_marked_however_short_once_trimmed_and_however_chunked() -> None:
    # 14,000 spaces before it: trimmed, the cut line was shorter than 4,096 characters and
    # showed no mark (so redaction could not find what the cut left of a secret); and a line
    # read in one chunk was not cut by its bytes at all, unlike one read over several.
    line = b" " * 14_000 + b"https://ex.com/p/" + b"a" * 20_000 + b"\n"
    body = b"https://ex.com/first\n" + line + b"https://ex.com/next\n"
    whole = list(text_lines([body]))
    blocks = list(text_lines([body[i : i + 65_536] for i in range(0, len(body), 65_536)]))
    small = list(text_lines([body[i : i + 1000] for i in range(0, len(body), 1000)]))
    assert whole == blocks == small
    assert [n for n, _ in whole] == [1, 2, 3]
    cut = whole[1][1]
    assert cut.startswith("https://ex.com/p/") and cut.endswith(CUT_MARK) and len(cut) < 4096
