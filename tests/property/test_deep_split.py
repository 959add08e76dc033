"""Any split of a sitemap's bytes gives the deep audit's checks the same findings: the entries,
their lines and their extension elements do not depend on how the body arrived."""

from __future__ import annotations

import gzip
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from support.deep import SHARED_CORPUS

from sitemap_auditor.core.lastmod import lastmod_key
from sitemap_auditor.core.parser import ParsedSitemap, Rejected, SitemapParser
from sitemap_auditor.deep.checks import Finding, SiteChecks, SitemapChecks
from sitemap_auditor.deep.reading.entries import EntryReader
from sitemap_auditor.deep.reading.text import text_lines
from sitemap_auditor.deep.scope import SitemapScope

_LOCAL = Path(__file__).resolve().parent.parent / "corpus"
NAMES = [
    "urlset-hugo-xhtml-hreflang-1709-111qqz.xml",
    "urlset-shopify-products-image-hreflang-beigebrown.xml",
    "urlset-video-bare-ampersand-1511-thefurnaceoutlet.xml",
    "urlset-wp-rankmath-news-no-lastmod-motormahal.xml",
    "urlset-video-no-lastmod-adakhome.xml",
]
# The repository's own copies of these real files (tests/corpus), the shared corpus otherwise.
BODIES = [
    (_LOCAL / n if (_LOCAL / n).exists() else next(SHARED_CORPUS.glob(f"*/{n}"))).read_bytes()
    for n in NAMES
]
NOW = lastmod_key("2026-12-01T12:00:00Z") or 0


def findings(chunks: list[bytes]) -> tuple[list[Finding], ParsedSitemap | Rejected, int]:
    site = SiteChecks(None, "example.com")
    scope = SitemapScope.of("https://example.com/sitemap.xml", from_robots=True)
    checks = SitemapChecks("https://example.com/sitemap.xml", 0, scope, False, NOW, site)
    parser = SitemapParser(EntryReader(checks.entry))
    for chunk in chunks:
        parser.feed(chunk)
    outcome = parser.close()
    checks.finish()
    return checks.tally.findings(checks.url), outcome, checks.alternates + checks.images


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(range(len(BODIES))), st.lists(st.floats(0, 1), max_size=12))
def test_any_split_gives_the_same_findings(which: int, cuts: list[float]) -> None:
    body = BODIES[which]
    points = sorted({int(c * len(body)) for c in cuts})
    chunks = [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True)]
    assert findings(chunks) == findings([body])


def _what(outcome: ParsedSitemap | Rejected) -> object:
    # What both readings answer: the root and the entry count, or the refusal and its reason.
    if isinstance(outcome, Rejected):
        return outcome
    return outcome.root, outcome.entry_count


def test_the_deep_reading_takes_what_the_lambda_takes() -> None:
    for body in BODIES:
        plain = SitemapParser()
        plain.feed(body)
        assert _what(findings([body])[1]) == _what(plain.close())


def _parsed(body: bytes, size: int, reading: bool) -> object:
    parser = SitemapParser(EntryReader(lambda *_: None)) if reading else SitemapParser()
    for at in range(0, len(body), size):
        parser.feed(body[at : at + size])
    return _what(parser.close())


def _inflated(body: bytes) -> bytes:
    try:
        return gzip.decompress(body) if body[:2] == b"\x1f\x8b" else body
    except (OSError, EOFError):
        return body  # a broken gzip file is parsed as it is


def test_every_corpus_file_is_taken_or_refused_by_both_readings_alike() -> None:
    # One driver, two readers: the same bytes, encodings and bounds, so the same root, count
    # and refusal, whatever the file and however its bytes arrive.
    files = [
        *SHARED_CORPUS.rglob("*"),
        *_LOCAL.rglob("*"),
        *(_LOCAL.parent / "fuzz_corpus").rglob("*"),
    ]
    bodies = [f.read_bytes() for f in sorted(files) if f.is_file()]
    bodies = [_inflated(b) for b in bodies]
    assert len(bodies) > 400
    for body in bodies:
        for size in (1 << 20, 4096, 61):
            assert _parsed(body, size, True) == _parsed(body, size, False)


TEXT = (
    b"\xef\xbb\xbfhttps://example.com/a\r\n\r\nhttps://example.com/b\n  not a url  \n"
    b"https://example.com/\xc3\xa9t\xc3\xa9\rhttps://example.com/cr\r\r"
    b"https://example.com/last"
)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, len(TEXT)), max_size=10))
def test_any_split_of_a_text_sitemap_gives_the_same_lines(cuts: list[int]) -> None:
    points = sorted(set(cuts))
    chunks = [TEXT[a:b] for a, b in zip([0, *points], [*points, len(TEXT)], strict=True)]
    whole = list(text_lines([TEXT]))
    assert list(text_lines(chunks)) == whole
    assert whole[0] == (1, "https://example.com/a")
    # CR LF, CR and LF each end a line, as XML counts them (a CR-only file is many lines).
    assert whole[-2:] == [(6, "https://example.com/cr"), (8, "https://example.com/last")]
