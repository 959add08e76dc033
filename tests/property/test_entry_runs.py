"""Runs of plain entries, read at once, give exactly what the handlers give entry by entry.

The parser reads long runs of plain `<url>` entries with expat's Python handlers off and one
expression over the run's text (parser.EntryRun); the checks take such a run at once
(SitemapChecks.entry_run). Both are shortcuts and must be invisible: the same entries, lines,
Lambda facts, refusals, findings, statistics and duplicate table as the handlers give, for
documents of every shape the shortcut might misread, however their bytes arrive. The reference
is the handler path itself: fed in slices too small for a run, the parser never takes one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemap_auditor.core.lastmod import lastmod_key
from sitemap_auditor.core.parser import (
    DocumentHead,
    EntryRun,
    Extensions,
    ParsedSitemap,
    Rejected,
    SitemapParser,
)
from sitemap_auditor.deep.checks import Finding, SiteChecks, SitemapChecks, SitemapScope
from sitemap_auditor.deep.robots_rules import RobotsRules
from sitemap_auditor.deep.seen import Duplicates

NOW = lastmod_key("2026-12-01T12:00:00Z") or 0
SITEMAP = "https://www.example.com/blog/sitemap.xml"
BASE = "https://www.example.com/blog/"
ROBOTS = RobotsRules.parse(
    b"User-agent: *\nDisallow: /blog/private/\nAllow: /blog/private/ok$\nDisallow: /*.pdf$\n"
)
# Smaller than any run the parser takes (parser._MIN_RUN_BYTES): the handlers read everything.
HANDLER_SLICE = 512

# Locations a run may hold and ones it may not, in scope and out of it, clean and not.
_ODD_LOCS = [
    "https://example.com/blog/a",  # path-mismatch
    "https://other.org/x",  # url-not-allowed
    "http://www.example.com/blog/a",  # another scheme
    "https://www.example.com/shop/x",  # above the folder
    "https://www.example.com/blog/../shop/",
    "https://www.example.com/blog/%2e%2e/x",
    "https://www.example.com/blog/a?x=1&amp;y=2",
    "https://www.example.com/blog/a&lt;b&gt;",
    "https://www.example.com/blog/a&quot;b",
    "https://www.example.com/blog/a#frag",
    "https://www.example.com/blog/\u00e9t\u00e9",
    "https://www.example.com/blog/%41%42",
    "https://www.example.com/blog/private/x",
    "https://www.example.com/blog/private/ok",
    "https://www.example.com/blog/file.pdf",
    "https://www.example.com/blog/{x}",
    "https://www.example.com/blog/" + "a" * 2100,
    "not a url",
    "https://www.example.com/blog/a b",  # white space inside: an invalid URL
    "https://www.example.com/blog/a\nb",
    "https://www.example.com/blog/a\tb",
    "https://www.example.com/blog/a\n" + "https://www.example.com/blog/b",
    "https://www.example.com/blog/a\u0001b",  # a character XML forbids: a refusal
    "https://www.example.com/blog/a\ufffeb",
]
_LASTMODS = [
    None,
    "2024-05-01",
    "2024-05-02",
    "2024-05-01T10:00:00Z",
    "2024-05-01T10:00:00+02:00",
    "2024-05-01T10:00:00",
    "2099-01-01",
    "not a date",
    " 2024-05-03 ",
    "",
    "2024-05-04" + " " * 300,
    "x" * 300,
    "2024-13-01",
]


def _loc(data: st.DataObject, odd_in: int) -> str:
    if data.draw(st.integers(0, odd_in), label="odd") == 0:
        return data.draw(st.sampled_from(_ODD_LOCS), label="loc")
    # Mostly distinct pages, now and then one seen before (a duplicate), or one robots.txt
    # disallows: whole runs of clean entries, and runs with one finding among them.
    page = data.draw(st.integers(0, 100_000), label="page")
    if page < 300:
        return BASE + f"private/p{page % 3}.html" if page < 3 else BASE + f"p{page}.html"
    return BASE + f"p{page}.html"


def _lastmod(value: str | None) -> str:
    return "" if value is None else f"<lastmod>{value}</lastmod>"


# How an entry is written: the plain shapes a run holds, and the shapes it must leave to the
# handlers (the loc and the <lastmod> element go in).
_SHAPES = [
    "<url><loc>{loc}</loc>{lm}</url>\n",
    "<url><loc>{loc}</loc>{lm}</url>\n",
    "<url><loc>{loc}</loc>{lm}</url>\n",
    "  <url>\n    <loc> {loc} </loc>\n    {lm}\n    <changefreq>daily</changefreq>\n"
    "    <priority>0.5</priority>\n  </url>\r\n",
    "<url><loc>\n{loc}\n</loc>{lm}<priority>1</priority></url>\r",
    "<url><loc>{loc}</loc>{lm}<changefreq></changefreq></url>\t",
    "<url><!-- note --><loc>{loc}</loc>{lm}</url>\n",
    "<url><loc><![CDATA[{loc}]]></loc>{lm}</url>\n",
    "<url><loc>{loc}</loc>{lm}<image:image><image:loc>{loc}</image:loc></image:image></url>\n",
    '<url id="1"><loc>{loc}</loc>{lm}</url>\n',
    "<url>{lm}<loc>{loc}</loc></url>\n",
    "<url>{lm}</url>\n",
    "<url><loc></loc>{lm}</url>\n",
    "<url><loc>{loc}</loc><loc>{loc}x</loc>{lm}</url>\n",
    "stray text<url><loc>{loc}</loc>{lm}</url>\n",
    "<url><loc>{loc}&#65;</loc>{lm}</url>\n",
    "<url><loc>{loc}</loc>{lm}<priority>1</priority><changefreq>x</changefreq></url>\n",
    "<url><loc>{loc}</loc>{lm}</url><?pi x?>\n",
    "<url><sm:loc>{loc}</sm:loc>{lm}</url>\n",
    "<sm:url><loc>{loc}</loc>{lm}</sm:url>\n",
    "<url><loc>{loc}</loc>{lm}<extra><url><loc>{loc}</loc></url></extra></url>\n",
    "<url><loc>{loc}</loc>{lm}</url>]]>\n",
    # Entries that are not: inside a comment, a CDATA section, a processing instruction.
    "<!-- <url><loc>{loc}</loc>{lm}</url>\n" + "<url><loc>{loc}</loc></url>\n" * 40 + "-->\n",
    "<![CDATA[<url><loc>{loc}</loc>{lm}</url>\n" + "<url><loc>{loc}</loc></url>\n" * 40 + "]]>\n",
    "<?pi <url><loc>{loc}</loc>{lm}</url>\n" + "<url><loc>{loc}</loc></url>\n" * 40 + "?>\n",
]
_ROOTS = [
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
    'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n',
    "<urlset>\n",
    '<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">\n',
    '<urlset xmlns="http://www.google.com/schemas/sitemap-image/1.1">\n',
]


@st.composite
def documents(draw: st.DrawFn) -> bytes:
    data = draw(st.data())
    plain = draw(st.integers(0, 3), label="plainness")  # 0: every shape, 3: plain but rarely
    parts = [
        draw(st.sampled_from(['<?xml version="1.0" encoding="UTF-8"?>\n', "", "\ufeff"])),
        draw(st.sampled_from(_ROOTS)),
    ]
    odd_in = (10, 100, 400, 4000)[plain]
    dates = [f"2024-05-{day:02d}" for day in range(1, 29)]
    for _ in range(draw(st.integers(40, 160), label="entries")):
        odd = draw(st.integers(0, 30), label="shape") < 4 - plain
        shape = draw(st.sampled_from(_SHAPES)) if odd else _SHAPES[0]
        odd_date = draw(st.integers(0, odd_in), label="odd date") == 0
        lastmod = draw(st.sampled_from(_LASTMODS if odd_date else dates), label="lastmod")
        parts.append(shape.format(loc=_loc(data, odd_in), lm=_lastmod(lastmod)))
    parts.append(draw(st.sampled_from(["</urlset>\n", "</sm:urlset>", "", "</urlset><x/>"])))
    body = "".join(parts).encode()
    return body[: draw(st.integers(len(body) // 2, len(body)))] if plain == 0 else body


@dataclass
class Read:
    """All that a reading produced."""

    entries: list[tuple[int, str | None, str | None, Extensions | None]] = field(
        default_factory=list
    )
    runs: int = 0
    in_runs: int = 0
    outcome: ParsedSitemap | Rejected | None = None
    head: DocumentHead | None = None


def _read(chunks: list[bytes], runs: bool) -> Read:
    read = Read()

    def run(r: EntryRun) -> None:
        read.runs += 1
        read.in_runs += len(r.locs)
        read.entries.extend(zip(r.lines(), r.locs, r.lastmods, [None] * len(r.locs), strict=True))

    parser = SitemapParser(
        on_entry=lambda *entry: read.entries.append(entry), on_run=run if runs else None
    )
    for chunk in chunks:
        parser.feed(chunk)
    read.outcome, read.head = parser.close(), parser.head
    return read


def _split(body: bytes, cuts: list[float]) -> list[bytes]:
    points = sorted({int(c * len(body)) for c in cuts})
    return [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True)]


def _handlers(body: bytes) -> list[bytes]:
    return [body[i : i + HANDLER_SLICE] for i in range(0, len(body), HANDLER_SLICE)]


@settings(max_examples=300, deadline=None)
@given(documents(), st.lists(st.floats(0, 1), max_size=6))
def test_runs_read_what_the_handlers_read(body: bytes, cuts: list[float]) -> None:
    reference = _read(_handlers(body), runs=True)
    assert reference.runs == 0
    for chunks in ([body], _split(body, cuts)):
        for runs in (True, False):
            got = _read(chunks, runs)
            assert got.outcome == reference.outcome
            assert got.head == reference.head
            assert got.entries == reference.entries, _first_difference(got, reference)


def _first_difference(got: Read, reference: Read) -> object:
    for a, b in zip(got.entries, reference.entries, strict=False):
        if a != b:
            return a, b
    return len(got.entries), len(reference.entries)


def test_a_plain_document_is_read_in_runs() -> None:
    # Not a vacuous property: a plain document's entries come in runs, nearly all of them.
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset>\n'
        + "".join(f"<url><loc>{BASE}p{i}.html</loc></url>\n" for i in range(3000))
        + "</urlset>\n"
    ).encode()
    got = _read([body], runs=True)
    assert got.runs >= 2 and got.in_runs > 2900
    assert got.entries == _read(_handlers(body), runs=True).entries


def _check(chunks_per_file: list[list[bytes]], runs: bool) -> object:
    seen = Duplicates(150)
    site = SiteChecks(ROBOTS, "www.example.com", max_dedupe_urls=150, seen=seen)
    scope = SitemapScope.of(SITEMAP, from_robots=False)
    out = []
    for number, chunks in enumerate(chunks_per_file):
        checks = SitemapChecks(SITEMAP, number, scope, False, NOW, site)
        parser = SitemapParser(on_entry=checks.entry, on_run=checks.entry_run if runs else None)
        for chunk in chunks:
            parser.feed(chunk)
        parser.close()
        checks.finish()
        stats = checks.stats
        out.append(
            (
                checks.tally.findings(SITEMAP),
                (checks.entries, checks.without_lastmod),
                (stats.count, stats.earliest, stats.latest, sorted(stats.days), stats.months),
            )
        )
    probe: list[tuple[int | None, str, int]] = []
    for i in range(400):
        seen.add(BASE + f"p{i}.html", 9, i, lambda *told: probe.append(told))
    return out, (seen.size, seen.full), probe


@settings(max_examples=150, deadline=None)
@given(st.lists(documents(), min_size=1, max_size=3), st.lists(st.floats(0, 1), max_size=4))
def test_checks_of_runs_find_what_checks_of_entries_find(
    bodies: list[bytes], cuts: list[float]
) -> None:
    # Duplicates within a file and across files, a duplicate table that fills up (150 URLs),
    # robots.txt's rules, every date: the same findings, statistics and table.
    reference = _check([_handlers(b) for b in bodies], runs=False)
    assert _check([[b] for b in bodies], runs=True) == reference
    assert _check([_split(b, cuts) for b in bodies], runs=True) == reference


def test_statistics_past_the_pending_bound_are_those_of_entries() -> None:
    # More distinct dates than are counted together (checks._MAX_PENDING), some seen again
    # after the statistics took them, and one file past MAX_DISTINCT_DAYS' worth of days.
    dates = [
        f"{1990 + i // 336:04d}-{1 + i // 28 % 12:02d}-{1 + i % 28:02d}" for i in range(11_000)
    ]
    entries = "".join(
        f"<url><loc>{BASE}p{i}.html</loc><lastmod>{dates[(i * 7) % len(dates)]}</lastmod></url>\n"
        for i in range(24_000)
    )
    body = (f"<urlset>\n{entries}</urlset>\n").encode()
    reference = _check([_handlers(body)], runs=False)
    assert _check([[body]], runs=True) == reference


@pytest.mark.parametrize("inside", [" ", "\n", "\t", "\n" + BASE])
def test_a_loc_with_white_space_inside_is_an_invalid_url_in_a_run_too(inside: str) -> None:
    # Between plain entries (read as runs), a <loc> with white space inside: the quick
    # expressions leave it to the handlers, and the checks find the URL invalid.
    plain = "".join(f"<url><loc>{BASE}p{i}.html</loc></url>\n" for i in range(40))
    body = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{plain}'
        f"<url><loc>{BASE}a{inside}b.html</loc></url>\n{plain.replace('.html', 'x.html')}"
        "</urlset>\n"
    ).encode()
    reference = _check([_handlers(body)], runs=False)
    files = cast(tuple[list[tuple[list[Finding], object, object]], object, object], reference)[0]
    assert [(f.kind.value, f.count) for f in files[0][0]] == [("invalid-url", 1)]
    assert _check([[body]], runs=True) == reference
    assert _check([_split(body, [0.3, 0.6])], runs=True) == reference
