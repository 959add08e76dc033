"""The page check's pure parts: a page's head, the indexability verdict, pacing, the pages file."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from sitemap_auditor.core import urls
from sitemap_auditor.core.errors import FetchErrorKind
from sitemap_auditor.deep.pages import verdict
from sitemap_auditor.deep.pages.head import READ_LIMIT, HeadFacts, HeadReader
from sitemap_auditor.deep.pages.pacing import Pacer, crawl_delay, retry_after_seconds
from sitemap_auditor.deep.pages.store import PagesFile
from sitemap_auditor.deep.pages.summary import Summary

NOW = datetime(2026, 12, 4, tzinfo=UTC)
PAGE = "https://shop.example/products/hat"

WORDPRESS_HEAD = b"""<!DOCTYPE html>
<html lang="en-US">
<head>
<meta charset="UTF-8">
<meta name='robots' content='noindex, follow' />
<title>Hat &#8211; Shop</title>
<link rel="canonical" href="https://shop.example/hat/" />
<meta property="article:modified_time" content="2026-11-02T09:14:11+00:00" />
<script type="application/ld+json" class="yoast-schema-graph">{"@context":"https://schema.org",
"@graph":[{"@type":"WebPage","dateModified":"2026-11-01T08:00:00+00:00"}]}</script>
</head>
<body class="home"><meta name="robots" content="noindex"></body></html>"""


def read(body: bytes, chunk: int = 7, content_type: str | None = "text/html") -> HeadFacts:
    reader = HeadReader(content_type)
    for i in range(0, len(body), chunk):
        reader.feed(body[i : i + chunk])
        if reader.done:
            break
    return reader.facts()


def test_a_wordpress_head_read_in_small_chunks() -> None:
    facts = read(WORDPRESS_HEAD)
    assert facts.robots == ("noindex, follow",)
    assert facts.canonical == "https://shop.example/hat/"
    assert facts.modified == "2026-11-02T09:14:11+00:00"
    assert facts.title == "Hat \u2013 Shop"
    assert facts.ended and not facts.cut


def test_json_ld_date_modified_when_no_meta_gives_one() -> None:
    body = WORDPRESS_HEAD.replace(b"article:modified_time", b"og:updated")
    assert read(body).modified == "2026-11-01T08:00:00+00:00"


def test_a_meta_in_the_body_is_not_read() -> None:
    body = b"<html><head><title>x</title></head><body><meta name=robots content=noindex>"
    assert read(body).robots == ()


def test_the_body_starting_without_a_head_end_stops_the_reading() -> None:
    body = b"<html><title>x</title><div><meta name=googlebot content=noindex></div>"
    facts = read(body)
    assert facts.ended and facts.robots == ()


@pytest.mark.parametrize("codec", ["utf-8-sig", "utf-16", "utf-16-be"])
@pytest.mark.parametrize("chunk", [1, 2, 7, 4096])
def test_a_byte_order_mark_decides_the_encoding_over_the_header(codec: str, chunk: int) -> None:
    # A UTF-16 page with its mark and no charset was read as UTF-8: its noindex was missed.
    mark = b"\xfe\xff" if codec == "utf-16-be" else b""
    page = '<html><head><meta name="robots" content="noindex"><title>é</title></head>'
    facts = read(mark + page.encode(codec), chunk, "text/html; charset=iso-8859-1")
    assert facts.robots == ("noindex",) and facts.title == "é"


def test_a_utf32_label_is_no_encoding_of_the_web_and_breaks_nothing() -> None:
    # Its decoder raised on a body without a mark: a defect of the check, not the page's.
    body = b'<html><head><meta name="robots" content="noindex"></head><body>x'
    assert read(body, 64, "text/html; charset=utf-32").robots == ("noindex",)
    assert read(body, 3, "text/html; charset=UTF-32BE").robots == ("noindex",)


def test_a_utf16_label_without_a_mark_is_utf16le_as_browsers_read_it() -> None:
    # Python's `utf-16` decoder raised on a body without a mark: an internal error row.
    body = '<html><head><meta name="robots" content="noindex"></head>'.encode("utf-16-le")
    assert read(body, 5, "text/html; charset=UTF-16").robots == ("noindex",)


def test_every_meta_robots_that_may_say_noindex_is_kept_each_once() -> None:
    # Only the first 20 tags were kept: a 21st noindex was missed.
    tags = b'<meta name="robots" content="index, follow">' * 50
    tags += b'<meta name="robots" content="max-snippet:-1">' * 50
    body = b"<html><head>" + tags + b'<meta name="googlebot" content="noindex"></head>'
    assert read(body, 4096).robots == ("noindex",)
    many = b"".join(b'<meta name="robots" content="none%d">' % i for i in range(5000))
    assert len(read(b"<html><head>" + many + b"</head>", 4096).robots) == 1000


def test_a_noindex_past_two_megabytes_is_invisible_and_said_so() -> None:
    body = b"<html><head><style>" + b"x" * READ_LIMIT + b"</style>"
    body += b'<meta name="robots" content="noindex"></head>'
    reader = HeadReader("text/html")
    for i in range(0, len(body), 65536):
        reader.feed(body[i : i + 65536])
    facts = reader.facts()
    assert reader.read == READ_LIMIT and facts.cut and facts.robots == ()


def test_a_charset_from_the_content_type_is_used() -> None:
    body = "<head><title>Caf\u00e9</title></head>".encode("latin-1")
    assert read(body, content_type="text/html; charset=ISO-8859-1").title == "Caf\u00e9"


def test_a_charset_that_is_no_text_encoding_is_read_as_utf_8() -> None:
    body = "<head><title>Caf\u00e9</title></head>".encode()
    for charset in ("base64", "rot13", "hex", "zlib", "undefined", "idna", "no-such-thing"):
        assert read(body, content_type=f"text/html; charset={charset}").title == "Caf\u00e9"


def test_a_charset_of_no_encoding_of_the_web_is_read_as_utf_8() -> None:
    # EBCDIC read an ASCII page's noindex as other letters; `punycode` made a soft 404 of it.
    body = b'<head><meta name="robots" content="noindex"><title>Caf\xc3\xa9</title></head>'
    for charset in ("cp500", "cp037", "ebcdic-cp-us", "punycode", "utf-32", "x-no-such"):
        facts = read(body, content_type=f"text/html; charset={charset}")
        assert facts.robots == ("noindex",) and facts.title == "Caf\u00e9", charset
    # Labels of the web's encodings that Python names otherwise, or not at all, decode as
    # browsers decode them (they were read as UTF-8: a canonical's letters became U+FFFD).
    for charset, codec, text in (
        ("tis-620", "cp874", "\u0e44\u0e17\u0e22"),
        ("windows-874", "cp874", "\u0e44\u0e17\u0e22"),
        ("ms932", "cp932", "\u65e5\u672c\u2460"),
        ("windows-31j", "cp932", "\u65e5\u672c\u2460"),
        ("shift_jis", "cp932", "\u65e5\u672c\u2460"),
        ("big5-hkscs", "big5hkscs", "\u4e2d\u6587"),
        ("x-gbk", "gbk", "\u4e2d\u6587"),
        ("iso885915", "iso8859-15", "\u20ac 5"),
        ("iso88592", "iso8859-2", "\u0141\u00f3d\u017a"),
        ("windows-949", "cp949", "\ud55c\uad6d"),
        ("cseuckr", "cp949", "\ud55c\uad6d"),
        ("koi8", "koi8-r", "\u041f\u0440\u0438"),
    ):
        page = f"<head><title>{text}</title></head>".encode(codec)
        assert read(page, content_type=f"text/html; charset={charset}").title == text, charset
    # Latin-1 is windows-1252 to browsers: 0x93 and 0x94 are quotes, not controls.
    quoted = read(b"<head><title>\x93Hi\x94</title>", content_type="text/html; charset=latin1")
    assert quoted.title == "\u201cHi\u201d"


def test_a_title_holds_text_whatever_it_looks_like() -> None:
    # RCDATA, as browsers and Googlebot read it: a tag inside a title neither ends the head
    # nor is a tag.
    sale = b'<head><title>Shoes <b>sale</b></title><meta name="robots" content="noindex">'
    assert read(sale).robots == ("noindex",) and read(sale).title == "Shoes <b>sale</b>"
    div = b"<head><title>Tags <div> explained</title><link rel=canonical href=/other></head>"
    assert read(div).canonical == "/other"
    quoted = b'<head><title>A &amp; <meta name="robots" content="noindex"></title></head>'
    facts = read(quoted, chunk=3)
    assert facts.robots == () and facts.title == 'A & <meta name="robots" content="noindex">'


@pytest.mark.parametrize("attribute", [b"a=b ", b'a=">" '], ids=["no-gt", "quoted-gt"])
def test_a_start_tag_that_never_ends_is_read_in_bounded_memory(attribute: bytes) -> None:
    # Each piece was scanned from the tag's start again: 2 MB of `a=b` cost half a gigabyte.
    # Quoted `>`s make the parser look again at each piece: bounded by the tag's own bound.
    import tracemalloc

    body = b"<html><head><title>t</title><meta " + attribute * (READ_LIMIT // len(attribute))
    tracemalloc.start()
    try:
        facts = read(body, chunk=65536)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert facts.cut and facts.title == "t" and peak < 32 * 1024 * 1024


def test_a_long_start_tag_that_ends_is_read_whole() -> None:
    # A 60 KB data: icon in a <link>, then the noindex: the head's reading stopped at 32 KiB.
    icon = "data:image/png;base64," + "A" * 60_000
    body = f'<html><head><link rel="icon" href="{icon}"><meta name="robots" content="noindex">'
    facts = read((body + "<title>Shop</title></head><body><p>x</p>").encode(), chunk=16384)
    assert facts.robots == ("noindex",) and facts.title == "Shop" and not facts.cut


def test_marked_sections_are_bogus_comments_as_browsers_read_them() -> None:
    # IE's downlevel-revealed conditionals show their content to every other reader.
    revealed = b"<html><head><![if !IE]><meta name=robots content=noindex><![endif]>"
    assert read(revealed + b"<title>t</title></head>").robots == ("noindex",)
    # What the standard library's marked-section reading gives up on (AssertionError).
    for odd in (b"<![ secret ]>", b"<![if-lt-IE-9[ <p> ]]>", b"<![CDATA[ x ]]>"):
        facts = read(b"<html><head><title>t</title>" + odd + b"<link rel=canonical href=/c></head>")
        assert facts.ended and facts.title == "t" and facts.canonical == "/c", odd
    # In HTML a CDATA opener is a comment up to the first `>`, not to `]]>`.
    assert read(b"<head><![CDATA[ a > <meta name=robots content=none> ]]></head>").robots == (
        "none",
    )
    # Never closed: the reading ends with the bytes, nothing raised.
    assert read(b"<head><![CDATA[ x").robots == ()


def test_any_bytes_in_any_chunks_are_read_without_an_exception() -> None:
    pieces = [
        b"<", b">", b"<!", b"<![", b"[", b"]", b"<!--", b"-->", b"<?", b"</", b"<head>",
        b"<meta name=robots content=noindex>", b"<!DOCTYPE", b"&#", b"&amp", b"&", b";",
        b"<script>", b"</script>", b"<title>", b"'", b'"', b"=", b"/", b" ", b"\n", b"a",
        b"\xff", b"<![CDATA[", b"]]>", b"<a b='", b"<!ELEMENT", b"<!ATTLIST",
    ]  # fmt: skip
    rng = random.Random(20261204)
    for _ in range(5000):
        body = b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 30)))
        facts = read(body, chunk=rng.randint(1, 8))
        assert len(facts.robots) <= 20


def test_a_json_ld_block_nested_past_the_decoders_depth_gives_no_date() -> None:
    deep = b"[" * 200_000
    body = b'<head><script type="application/ld+json">' + deep + b"</script>"
    body += b'<meta name="robots" content="noindex"></head>'
    facts = read(body, chunk=65536)
    assert facts.modified is None and facts.robots == ("noindex",)


def judge(
    status: int = 200,
    headers: dict[str, str] | None = None,
    head: HeadFacts | None = None,
    final: str = PAGE,
    redirected: bool = False,
    body: int = 100,
    tags: tuple[str, ...] = (),
) -> verdict.Verdict:
    """The verdict; tags: the answer's X-Robots-Tag lines, each as one header line."""
    return verdict.judge(
        requested=urls.read(PAGE),
        final=urls.read(final),
        status=status,
        redirected=redirected,
        headers=headers or {},
        robots_tags=tags,
        head=head,
        body_bytes=body,
        now=NOW,
    )


def head(
    robots: tuple[str, ...] = (), canonical: str | None = None, title: str | None = "Hat"
) -> HeadFacts:
    return HeadFacts(robots, canonical, None, title, cut=False, ended=True)


def test_statuses_give_search_consoles_reasons() -> None:
    got = {s: judge(s).reason for s in (200, 404, 410, 401, 403, 418, 429, 500, 503, 300)}
    assert got == {
        200: None,
        404: "page-not-found",
        410: "page-not-found",
        401: "page-unauthorized",
        403: "page-forbidden",
        418: "page-other-4xx",
        429: "page-rate-limited",  # Google sets it apart from the other 4xx
        500: "page-server-error",
        503: "page-server-error",
        300: "page-redirect-error",
    }


def test_noindex_from_the_header_with_and_without_googlebots_prefix() -> None:
    assert judge(tags=("noindex",)).noindex == "header"
    assert judge(tags=("googlebot: noindex, nofollow",)).noindex == "header"
    assert judge(tags=("none",)).reason == "page-noindex"
    assert judge(tags=("otherbot: noindex",)).indexable
    assert judge(tags=("bingbot: noindex, googlebot: nofollow",)).indexable
    assert judge(tags=("googlebot: nofollow, bingbot: noindex",)).indexable


def test_each_x_robots_tag_line_is_read_on_its_own() -> None:
    # Google's own example: a prefix applies to the directives after it in its line only.
    assert judge(tags=("otherbot: noindex", "noindex")).noindex == "header"
    assert judge(tags=("noindex", "otherbot: nofollow")).noindex == "header"
    assert judge(tags=("googlebot: nofollow", "otherbot: noindex, nofollow")).indexable
    assert judge(tags=("otherbot: noindex", "googlebot: nofollow")).indexable
    assert judge(tags=("otherbot: nofollow", "googlebot: none")).reason == "page-noindex"
    # The same values joined on one line (as requests joins repeated headers) read otherwise:
    # the first line's prefix would run on, which is why the lines are kept apart.
    assert judge(tags=("otherbot: noindex, noindex",)).indexable
    # The header's joined value alone decides nothing: only its lines are read.
    assert judge(headers={"X-Robots-Tag": "noindex"}).indexable


def test_unavailable_after_in_the_past_counts_as_noindex() -> None:
    past = ("unavailable_after: Friday, 25-Jun-2010 15:00:00 GMT",)
    future = ("unavailable_after: 2030-01-01T00:00:00+00:00",)
    assert judge(tags=past).noindex == "header"
    assert judge(tags=future).indexable
    assert judge(tags=("googlebot: nofollow", past[0])).noindex == "header"


def test_meta_robots_and_googlebot_most_restrictive_wins() -> None:
    v = judge(head=head(robots=("index, follow", "NOINDEX")))
    assert (v.indexable, v.reason, v.noindex) == (False, "page-noindex", "meta")
    assert judge(head=head(robots=("max-snippet:-1, index",))).indexable


def test_canonical_elsewhere_from_the_head_or_a_link_header() -> None:
    v = judge(head=head(canonical="/hat-blue"))
    assert (v.reason, v.canonical) == ("page-canonicalised", "https://shop.example/hat-blue")
    link = {
        "Link": "<https://cdn.example/a.css>; rel=preload, <https://shop.example/w.pdf>; "
        'rel="canonical"'
    }
    assert judge(headers=link).canonical == "https://shop.example/w.pdf"
    assert judge(head=head(canonical="HTTPS://SHOP.example:443/products/hat#top")).indexable
    # The canonical is shown as read against the page, its fragment dropped.
    v = judge(head=head(canonical="hat?#top"))
    assert (v.reason, v.canonical) == (None, "https://shop.example/products/hat?")


def test_a_relative_canonical_is_read_against_the_heads_base() -> None:
    # An Angular page's <base href="/">: `blog/post` is /blog/post, not /products/blog/post.
    page = "https://shop.example/blog/post"
    based = HeadFacts((), "blog/post", None, "t", cut=False, ended=True, base="/")
    assert judge(head=based, final=page).indexable
    elsewhere = HeadFacts((), "page", None, "t", cut=False, ended=True, base="/b/")
    v = judge(head=elsewhere, final="https://shop.example/a/page")
    assert (v.reason, v.canonical) == ("page-canonicalised", "https://shop.example/b/page")
    # A base that is no http(s) URL is no base; a Link header's URL is not the head's.
    odd = HeadFacts((), "hat", None, "t", cut=False, ended=True, base="javascript:x")
    assert judge(head=odd).indexable
    link = {"Link": '<hat>; rel="canonical"'}
    assert judge(
        headers=link, head=HeadFacts((), None, None, "t", False, True, base="/x/")
    ).indexable
    assert read(b'<head><base href="/"><base href="/no/"></head>').base == "/"


def test_a_204_is_a_soft_404_whatever_its_type() -> None:
    assert judge(204, body=0).reason == "page-soft-404"
    assert judge(204, body=0, head=head()).reason == "page-soft-404"


def same(a: str, b: str) -> bool:
    return verdict.same_resource(urls.read(a), urls.read(b))


def test_one_page_in_two_spellings_is_one_resource() -> None:
    page = "https://shop.example/~hat/cap"
    for spelling in (
        "HTTPS://SHOP.Example/~hat/cap",  # host and scheme case
        "https://shop.example:443/~hat/cap",  # the default port
        "https://shop.example/~hat/cap#reviews",  # a fragment
        "https://shop.example/~hat/cap?",  # an empty query
        "https://shop.example/%7ehat/cap",  # an unreserved character escaped
        "https://shop.example/%7Ehat/./cap",  # in capitals, and a dot segment
        "https://shop.example/~hat/cap/../cap",
    ):
        assert same(page, spelling) and same(spelling, page), spelling
    assert same("https://shop.example/a%2fb", "https://shop.example/a%2Fb")  # escape's case


def test_two_pages_that_differ_in_a_way_servers_see_are_two() -> None:
    page = "https://shop.example/hat"
    for other in (
        "https://shop.example/hat/",  # a trailing slash is another URL
        "http://shop.example/hat",  # so is the other scheme
        "https://shop.example:8443/hat",  # and a port that is not the default
        "https://www.shop.example/hat",
        "https://shop.example/Hat",  # a path is case-sensitive
        "https://shop.example/hat?colour=blue",
        "https://shop.example/a%2Fb",  # an escaped slash is not a slash
    ):
        assert not same(page, other), other
    assert not same("https://shop.example/a%2Fb", "https://shop.example/a/b")


def test_canonical_and_redirect_are_compared_with_the_one_reading() -> None:
    # A canonical that names the page in another spelling keeps it indexable; one with a
    # trailing slash or the other scheme canonicalises it elsewhere.
    assert judge(head=head(canonical="//SHOP.example:443/products/%68at")).indexable
    assert judge(head=head(canonical="https://shop.example/products/%7e/../hat#x")).indexable
    slash = judge(head=head(canonical="/products/hat/"))
    assert (slash.reason, slash.canonical) == (
        "page-canonicalised",
        "https://shop.example/products/hat/",
    )
    assert judge(head=head(canonical="http://shop.example/products/hat")).reason == (
        "page-canonicalised"
    )
    # A redirect that lands on the same page, spelled otherwise, is no redirect to another page;
    # one that adds a slash is.
    spelled = "https://shop.example/products/%68at"
    assert judge(final=spelled, redirected=True, head=head()).indexable
    moved = judge(final="https://shop.example/products/hat/", redirected=True, head=head())
    assert moved.reason == "page-redirect"


def test_redirect_to_an_indexable_page_and_soft_404() -> None:
    v = judge(final="https://shop.example/hats/hat", redirected=True, head=head())
    assert v.reason == "page-redirect"
    assert judge(head=head(title="Page not found \u2013 Shop")).reason == "page-soft-404"
    assert judge(head=head(title=None), body=0).reason == "page-soft-404"
    assert judge(head=head(title="404 \u2013 Shop")).reason == "page-soft-404"
    assert judge(head=head(title="Page 404 of the archive")).indexable  # a number, no error


# The titles generators and servers give their error pages: each must be taken for one.
ERROR_PAGE_TITLES = (
    "Page not found \u2013 Shop",  # WordPress
    "Page not found - Shop",  # Yoast SEO
    "404 Not Found",  # nginx, Apache
    "404 Not Found \u2013 Hat Store",  # Shopify
    "404 Page not found | Blog",  # Hugo
    "404 | Blog",  # Jekyll
    "404: This page could not be found.",  # Next.js
    "404: Not found",  # Gatsby
    "Page Not Found | Docs",  # Docusaurus
    "404 - File or directory not found.",  # IIS
    "Error 404 (Not Found)!!1",  # Google's own
    "Oops! That page can\u2019t be found. \u2013 Shop",
    "Error 404 - Not Found",
    "This page is no longer available",
    "Sorry, this page isn't available.",
    "Page Not Found \u2022 Instagram",
    "Nothing found | Blog",
    "Page Not Found (404)",
    "Page not found :(",
    "Acme: Page not found",
    "404 Not Found: Acme",
    "Page Not Found, Acme",
    "The page you requested was not found",
    "404 Page",
    "404: NOT_FOUND",  # Vercel
    "HTTP 404 Not Found",
    "The requested URL was not found on this server",  # Apache
)
# Titles of ordinary pages that hold the same words: a hint must stay silent on them.
ORDINARY_TITLES = (
    "404 Days of Summer \u2013 Movie Review",
    "Why the Nokia 3310 is no longer available",
    "Lost and Found: Not Found Objects Museum",
    "How to fix a 404 error in WordPress",
    "Peugeot 404 for sale",
    "Page 404 of the archive",
    "Not Found Objects \u2013 an exhibition",
    "Found and Not Found: Poems",
    "Error 404: the history of the web's best-known number",
    "Error \u2013 Wikipedia",
    "Error - The Movie",
    "Error | Acme Docs",
    "404: A Novel",
    "Not Found: A Memoir",
    "Documentary: Not Found",
    "This Article Does Not Exist: A Satire",
    "No longer available: what to do with expired listings",
    "Article not found, by Jane Doe | Acme Magazine",
    "Not Found, Not Lost: Poems",
)


@pytest.mark.parametrize("title", ERROR_PAGE_TITLES)
def test_an_error_page_title_is_a_soft_404(title: str) -> None:
    assert judge(head=head(title=title)).reason == "page-soft-404"


@pytest.mark.parametrize("title", ORDINARY_TITLES)
def test_an_ordinary_title_with_the_same_words_is_no_soft_404(title: str) -> None:
    assert judge(head=head(title=title)).indexable


def test_failures_redirect_error_or_unreachable() -> None:
    assert verdict.failed(FetchErrorKind.TOO_MANY_REDIRECTS, True).reason == "page-redirect-error"
    assert verdict.failed(FetchErrorKind.BLOCKED, True).reason == "page-redirect-error"
    assert verdict.failed(FetchErrorKind.BLOCKED, False).reason == "page-unreachable"
    assert verdict.failed(FetchErrorKind.TIMEOUT, False).reason == "page-unreachable"
    # A listed URL that is no URL (a relative <loc>) was never a redirect.
    assert verdict.failed(FetchErrorKind.INVALID_URL, False).reason == "page-unreachable"
    assert verdict.failed(FetchErrorKind.INVALID_URL, True).reason == "page-redirect-error"


def test_a_link_header_is_read_link_value_by_link_value() -> None:
    def link(value: str) -> str | None:
        return judge(headers={"Link": value}).canonical

    # A comma inside <...> or inside a quoted parameter separates nothing.
    assert link('</shoes,red>; rel="canonical"') == "https://shop.example/shoes,red"
    assert link('</a>; title="x, y; z"; rel="alternate canonical"') == "https://shop.example/a"
    assert link('</a>; title="q\\"uote, c"; rel=canonical') == "https://shop.example/a"
    assert link('</n>; rel="next", </c>;rel=canonical') == "https://shop.example/c"
    assert link("</a>; rel=next") is None
    # A malformed link-value says nothing, and hides nothing after it.
    assert link("garbage, </c>; rel=canonical") == "https://shop.example/c"
    assert link("</font.woff2> crossorigin, </c>; rel=canonical") == "https://shop.example/c"
    assert link("</c>; rel='canonical'") == "https://shop.example/c"  # as browsers read it
    assert link("</c>; rel=alternate; rel=canonical") is None  # a second rel is ignored
    # Read no further than MAX_LINK_CHARS: a canonical past it is no one's.
    assert link("</x>; title=" + "y" * verdict.MAX_LINK_CHARS + ", </c>; rel=canonical") is None
    # One pass whatever the header: no backtracking on a long run of spaces or parameters.
    assert link("</a>; rel=" + " " * 200_000 + 'x"') is None
    assert link("</a>" + "; x= " * 50_000 + ' "') is None


def test_a_redirect_whose_target_names_the_listed_url_canonical_is_the_redirect() -> None:
    # Listing the canonical would not help: it is listed. The redirect contradicts it.
    v = judge(final="https://shop.example/hats/hat", redirected=True, head=head(canonical=PAGE))
    assert v.reason == "page-redirect"


def test_an_html_page_with_an_empty_body_is_a_soft_404_hint() -> None:
    for empty in (
        b"<html><head><title>Shop</title></head><body></body></html>",
        b"  \n\t ",
        b"<!doctype html><html><head><title>Shop</title></head><body> <!-- x --> </body>",
    ):
        facts = read(empty)
        assert facts.empty, empty
        assert judge(head=facts, body=len(empty)).reason == "page-soft-404", empty
    for content in (
        b"<html><head><title>Shop</title></head><body><div id=root></div></body>",
        b"<html><head><script src=/app.js defer></script></head><body></body>",
        b"<html><head></head><body><script src=/app.js></script></body>",  # drawn by script
        b"<html><head><title>Shop</title></head><body>Hello</body>",
        b"Hello",
        b"<html><head><title>Shop</title><style>p{}</style></head><body><p>a",
    ):
        facts = read(content)
        assert not facts.empty and judge(head=facts).indexable, content
    # Reading stops once the body shows content, not at the end of a long page.
    reader = HeadReader("text/html")
    reader.feed(b"<html><head><title>t</title></head><body><main>" + b"x" * 100_000)
    assert reader.done and reader.read < 200_000


def test_page_modified_and_the_lastmod_tolerance() -> None:
    same = {
        "Last-Modified": "Fri, 04 Dec 2026 00:00:00 GMT",
        "Date": "Fri, 04 Dec 2026 00:00:10 GMT",
    }
    assert verdict.page_modified(same, None) is None  # the time of the response
    old = {
        "Last-Modified": "Mon, 02 Nov 2026 09:00:00 GMT",
        "Date": "Fri, 04 Dec 2026 00:00:10 GMT",
    }
    modified = verdict.page_modified(old, None)
    assert modified is not None and modified.when == datetime(2026, 11, 2, 9, tzinfo=UTC)
    assert not verdict.lastmod_disagrees("2026-11-02", modified)
    assert verdict.lastmod_disagrees("2026-11-20", modified)
    assert not verdict.lastmod_disagrees(None, modified)


def stated(when: str) -> verdict.PageTime | None:
    """The time a page states in its head (article:modified_time)."""
    facts = HeadFacts((), None, when, "t", cut=False, ended=True)
    return verdict.page_modified({}, facts)


def test_a_date_alone_matches_the_page_in_whatever_zone_the_site_keeps() -> None:
    # A date names a day in the site's own zone, which it does not say: from UTC+14 to UTC-12.
    tokyo = stated("2026-11-01T01:30:00+09:00")  # 31 October, 16:30 UTC
    assert not verdict.lastmod_disagrees("2026-11-01", tokyo)
    honolulu = stated("2026-11-01T22:00:00-10:00")  # 2 November, 08:00 UTC
    assert not verdict.lastmod_disagrees("2026-11-01", honolulu)
    # A day further than the tolerance from any zone's reading of it is a mismatch still.
    assert verdict.lastmod_disagrees("2026-11-04", tokyo)
    assert verdict.lastmod_disagrees("2026-10-29", honolulu)
    # A month names its days the same way.
    assert not verdict.lastmod_disagrees("2026-10", tokyo)
    assert verdict.lastmod_disagrees("2026-09", tokyo)
    # A time is an instant: the tolerance alone.
    assert verdict.lastmod_disagrees("2026-11-02T18:00:00Z", tokyo)
    assert not verdict.lastmod_disagrees("2026-11-01T10:00:00Z", tokyo)


def test_a_server_time_later_than_the_lastmod_is_no_mismatch() -> None:
    # Static hosts send the time a file was deployed as Last-Modified: a <lastmod> of the
    # content's own date is earlier, and true. Only a <lastmod> later than the server's time
    # claims a change the server does not know of.
    deployed = {
        "Last-Modified": "Fri, 04 Dec 2026 09:00:00 GMT",
        "Date": "Fri, 04 Dec 2026 10:00:00 GMT",
    }
    modified = verdict.page_modified(deployed, None)
    assert modified is not None and not modified.stated
    assert not verdict.lastmod_disagrees("2025-03-10", modified)
    assert verdict.lastmod_disagrees("2026-12-08T00:00:00Z", modified)
    # A time the page states in its head counts either way: a <lastmod> left behind the page's
    # own last change is one a crawler would not revisit it for.
    assert verdict.lastmod_disagrees("2025-03-10", stated("2026-12-04T09:00:00Z"))


def test_the_pacer_spaces_requests_by_rate_or_crawl_delay_and_pauses() -> None:
    t = [0.0]
    p = Pacer(rate=2.0, crawl_delay_s=None, clock=lambda: t[0])
    assert [p.reserve() for _ in range(3)] == [0.0, 0.5, 1.0]
    slow = Pacer(rate=10.0, crawl_delay_s=3.0, clock=lambda: t[0])
    assert [slow.reserve() for _ in range(2)] == [0.0, 3.0]
    free = Pacer(rate=None, crawl_delay_s=None, clock=lambda: t[0])
    free.pause(5.0)
    assert free.reserve() == 5.0
    t[0] = 10.0
    assert free.reserve() == 0.0


def test_a_turn_taken_before_a_pause_and_due_within_it_is_not_to_be_used() -> None:
    t = [0.0]
    p = Pacer(rate=4.0, crawl_delay_s=None, clock=lambda: t[0])
    assert [p.reserve() for _ in range(3)] == [0.0, 0.25, 0.5]
    t[0] = 0.1
    p.pause(3.0)  # a 429: the turns at 0.25 and 0.5 were taken before
    t[0] = 0.25
    assert p.paused()
    assert p.reserve() == 3.1 - 0.25  # the next turn is the pause's end
    t[0] = 3.1
    assert not p.paused()


def test_crawl_delay_of_the_agents_group_else_stars() -> None:
    body = (
        b"User-agent: *\nCrawl-delay: 2\n\n"
        b"User-agent: 37AuditsBot\nUser-agent: x\nCrawl-delay: 0.5\n"
    )
    assert crawl_delay(body, "37AuditsBot/1.0 (+https://x)") == 0.5
    assert crawl_delay(body, "OtherBot/2") == 2.0
    assert crawl_delay(b"User-agent: *\nDisallow: /\n", "a") is None


@pytest.mark.parametrize(
    "value",
    ["inf", "Infinity", "nan", "1e999", "1e3", "1_0", "-1", "+2", "\u0663", "9" * 400, "0x10", ""],
)
def test_a_crawl_delay_that_is_no_plain_number_of_seconds_is_none(value: str) -> None:
    # float() takes most of these; a report must never show Infinity or NaN (invalid JSON).
    body = f"User-agent: *\nCrawl-delay: {value}\n".encode()
    assert crawl_delay(body, "a") is None


def test_a_broken_crawl_delay_of_the_agent_leaves_the_star_groups() -> None:
    body = b"User-agent: *\nCrawl-delay: 3\n\nUser-agent: a\nCrawl-delay: inf\n"
    assert crawl_delay(body, "a") == 3.0
    assert crawl_delay(b"User-agent: *\nCrawl-delay: .5\n", "a") == 0.5
    assert crawl_delay(b"User-agent: *\nCrawl-delay: 10.\n", "a") == 10.0


def test_retry_after_seconds_or_a_date() -> None:
    assert retry_after_seconds("7", NOW) == 7.0
    assert retry_after_seconds("Fri, 04 Dec 2026 00:00:30 GMT", NOW) == 30.0
    assert retry_after_seconds("soon", NOW) is None
    # digits of other scripts are no delta-seconds (one of them no number at all to int())
    assert retry_after_seconds("\u0663", NOW) is None
    assert retry_after_seconds("\u00b2", NOW) is None


def test_the_pages_file_resumes_past_a_cut_last_line(tmp_path: Path) -> None:
    path = str(tmp_path / "pages.jsonl")
    out = PagesFile(path, resume=False)
    out.write({"url": "https://a.example/1"})
    out.write({"url": "https://a.example/2"})
    out.close()
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"url": "https://a.exa')  # killed mid-row
    assert [r["url"] for r in PagesFile.rows(path)] == [
        "https://a.example/1",
        "https://a.example/2",
    ]
    again = PagesFile(path, resume=True)
    again.write({"url": "https://a.example/3"})
    again.close()
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    assert [json.loads(x)["url"] for x in lines][-1] == "https://a.example/3" and len(lines) == 3
    # A worker that ends its page once the run is over (Ctrl-C) and its file closed: nothing
    # written, nothing raised (it raised in the worker's thread, a traceback on the terminal).
    assert again.write({"url": "https://a.example/4"}) is False
    assert len(Path(path).read_text(encoding="utf-8").splitlines()) == 3


def test_the_summary_counts_per_sitemap_and_keeps_few_examples() -> None:
    s = Summary()
    for i in range(8):
        s.add(
            {
                "url": f"u{i}",
                "sitemap": "s1",
                "indexable": False,
                "reason": "page-not-found",
                "status": 404,
            }
        )
    s.add({"url": "ok", "sitemap": "s2", "indexable": True, "reason": None})
    doc = s.document()
    assert (doc["checked"], doc["indexable"], doc["byReason"]) == (9, 1, {"page-not-found": 8})
    assert doc["sitemaps"][0] == {
        "sitemap": "s1",
        "checked": 8,
        "indexable": 0,
        "byReason": {"page-not-found": 8},
        "lastmodMismatch": 0,
    }
    (finding,) = doc["findings"]
    assert finding["title"] == "Not found (404)" and len(finding["examples"]) == 5


def test_the_per_sitemap_list_is_in_one_order_whatever_order_pages_finish_in() -> None:
    # Pages finish in the order a site answers: the list (and the report's chart of its first
    # sitemaps) followed it, and differed from run to run.
    rows = [
        {"url": f"{name}/{i}", "sitemap": name, "indexable": i < good, "reason": None}
        for name, good in (("b", 2), ("a", 2), ("c", 0), ("d", 4))
        for i in range(4)
    ]
    orders = []
    for seed in range(5):
        s = Summary()
        for row in random.Random(seed).sample(rows, len(rows)):
            s.add(row)
        orders.append([x["sitemap"] for x in s.document()["sitemaps"]])
    assert orders == [["c", "a", "b", "d"]] * 5


def test_a_page_not_judged_is_counted_apart_from_the_indexable_and_the_not() -> None:
    from sitemap_auditor.deep.reports import pages_html
    from sitemap_auditor.deep.reports.text_report import pages_text as text

    s = Summary()
    s.add({"url": "a", "sitemap": "s", "indexable": True, "reason": None})
    s.add({"url": "b", "sitemap": "s", "indexable": False, "reason": "page-not-found"})
    s.add({"url": "c", "sitemap": "s", "indexable": None, "reason": None, "error": "internal: X"})
    doc = s.document()
    assert (doc["checked"], doc["indexable"], doc["notIndexable"]) == (3, 1, 1)
    assert doc["internalErrors"] == 1 and doc["byReason"] == {"page-not-found": 1}
    assert "1 could not be judged" in text(doc)
    assert "1 not, 1 not judged (an internal error)" in pages_html.section(doc)


def test_the_html_pages_section_draws_shares_and_escapes_what_sites_wrote() -> None:
    from sitemap_auditor.deep.reports import html_report, pages_html

    s = Summary()
    s.add(
        {
            "url": "https://a.example/<script>",
            "sitemap": "https://a.example/s.xml",
            "indexable": False,
            "reason": "page-noindex",
            "noindex": "meta",
        }
    )
    for _ in range(3):
        s.add(
            {
                "url": "https://a.example/ok",
                "sitemap": "https://a.example/s.xml",
                "indexable": True,
                "reason": None,
            }
        )
    html = pages_html.section(s.document())
    assert "4 listed pages checked: 3 indexable, 1 not" in html
    assert "Excluded by &#x27;noindex&#x27; tag" in html and "<script>" not in html
    assert ">75%<" in html  # the value says it is a percentage, on a scale of 100
    # Its bar is labelled by the sitemap's path, as the entries chart's are: the whole URL was
    # cut from the left to "….example/s.xml".
    assert ">/s.xml<" in html and "…" not in html
    assert pages_html.section(None) == ""
    assert 'id="pages"' not in html_report.render({"sitemaps": [], "findings": []})
    # The reasons in a box of their own (a long URL scrolls or wraps there, never the page), and
    # the glance says how many pages cannot be indexed, however clean the sitemaps are.
    assert '<div class="scroll"><table class="pages-reasons">' in html
    assert '<li class="url">' in html and 'class="pill p-err"' in html
    assert "1 of 4 checked cannot be indexed" in pages_html.headline(s.document())
    page = html_report.render({"sitemaps": [], "findings": [], "pages": s.document()})
    assert "1 of 4 checked cannot be indexed" in page and '<a href="#pages">Listed pages' in page


def test_an_indexable_share_short_of_all_never_shows_as_100_percent() -> None:
    from sitemap_auditor.deep.reports import pages_html

    s = Summary()
    s.add({"url": "x", "sitemap": "s", "indexable": False, "reason": "page-not-found"})
    for i in range(399):
        s.add({"url": f"u{i}", "sitemap": "s", "indexable": True, "reason": None})
    html = pages_html.section(s.document())
    assert ">99%<" in html and ">100%<" not in html


def test_a_sampled_finding_gives_its_share_of_the_pages_checked_too() -> None:
    from sitemap_auditor.deep.document import with_pages
    from sitemap_auditor.deep.reports.text_report import pages_text

    s = Summary()
    s.sampled, s.to_check = True, 4
    for i in range(4):
        reason = "page-not-found" if i < 2 else None
        s.add({"url": f"u{i}", "sitemap": "s", "indexable": reason is None, "reason": reason})
    doc: dict[str, Any] = {"totals": {"urls": 10_000}}
    with_pages(doc, s.document())
    text = pages_text(doc["pages"])
    assert "(50 % of the pages checked; 0.02 % of the listed URLs)" in text
    s.sampled = False
    with_pages(doc, s.document())
    assert "(0.02 % of the listed URLs)" in pages_text(doc["pages"])


def test_the_examples_kept_do_not_depend_on_which_page_finished_first() -> None:
    rows = [
        {"url": f"https://a.example/{i:02d}", "sitemap": "s", "indexable": False, "reason": r}
        for i in range(20)
        for r in ("page-not-found",)
    ]
    documents = []
    for seed in range(5):
        s = Summary()
        for row in random.Random(seed).sample(rows, len(rows)):
            s.add(row)
        documents.append(s.document())
    assert all(d == documents[0] for d in documents)
    (finding,) = documents[0]["findings"]
    assert [e["url"] for e in finding["examples"]] == [
        f"https://a.example/{i:02d}" for i in range(5)
    ]


def test_pages_blocked_for_different_agents_are_blocked_for_one_or_the_other() -> None:
    s = Summary()
    for url, agents in (("g", ["Googlebot"]), ("a", ["AgencyAudit"]), ("b", ["Googlebot"])):
        s.add(
            {
                "url": url,
                "sitemap": "s",
                "indexable": False,
                "reason": "blocked-by-robots",
                "blockedFor": agents,
            }
        )
    (finding,) = s.document()["findings"]
    assert finding["message"].endswith("(for Googlebot or AgencyAudit).")
    both = Summary()
    both.add(
        {
            "url": "x",
            "sitemap": "s",
            "indexable": False,
            "reason": "blocked-by-robots",
            "blockedFor": ["Googlebot", "AgencyAudit"],
        }
    )
    assert both.document()["findings"][0]["message"].endswith("(for Googlebot and AgencyAudit).")


def test_the_digest_set_holds_each_key_once_through_growth() -> None:
    from sitemap_auditor.deep.pages.store import DigestSet, url_key

    s = DigestSet(4)
    keys = [url_key(f"https://a.example/{i}") for i in range(5000)] + [0, 1, 2]
    assert all(s.add(k) for k in keys[:-2])  # 0 and 1 mark slots: kept as 2
    assert not s.add(1) and not s.add(2) and not any(s.add(k) for k in keys)
    assert len(s) == 5001 and keys[17] in s and url_key("https://b.example/") not in s
    copy = s.copy()
    assert copy.add(url_key("https://b.example/")) and len(s) == 5001 and len(copy) == 5002
    assert sorted(s) == sorted({k if k > 1 else 2 for k in keys})


def test_a_digest_taken_is_gone_and_growth_drops_its_slot() -> None:
    from sitemap_auditor.deep.pages.store import DigestSet, url_key

    s = DigestSet(4)
    keys = [url_key(f"https://a.example/{i}") for i in range(3000)]
    for k in keys:
        s.add(k)
    assert all(s.take(k) for k in keys[::2]) and not any(s.take(k) for k in keys[::2])
    assert len(s) == 1500 and keys[0] not in s and keys[1] in s
    assert sorted(s) == sorted(keys[1::2])
    assert s.add(keys[0]) and keys[0] in s  # a taken digest may come back
    more = [url_key(f"https://b.example/{i}") for i in range(20_000)]
    assert all(s.add(k) for k in more)  # the arrays grow, the taken slots left behind
    assert len(s) == 21_501 and sorted(s) == sorted([keys[0], *keys[1::2], *more])


def test_each_distinct_url_is_chosen_once_in_walk_order_past_those_done() -> None:
    from sitemap_auditor.deep.pages.check import chosen_pages
    from sitemap_auditor.deep.pages.store import DigestSet, url_key

    walk = [(f"https://a.example/{i % 7}", "s", None) for i in range(20)]
    done = DigestSet()
    done.add(url_key("https://a.example/3"))
    items, total, sampled = chosen_pages(lambda: iter(walk), done, 0)
    assert [u for u, _, _ in items] == [f"https://a.example/{i}" for i in (0, 1, 2, 4, 5, 6)]
    assert (total, sampled) == (6, False)
    items, total, sampled = chosen_pages(lambda: iter(walk), done, 3)
    assert [u for u, _, _ in items] == [f"https://a.example/{i}" for i in (0, 2, 5)]
    assert (total, sampled) == (3, True)
    # done holds rows as shown (credentials as ***): a listed URL is matched in that form.
    secret = [("https://a.example/p?k=s3cret", "s", None), ("https://a.example/q", "s", None)]
    done = DigestSet()
    done.add(url_key("https://a.example/p?k=***"))
    shown = lambda url: url.replace("s3cret", "***")  # noqa: E731
    items, total, _ = chosen_pages(lambda: iter(secret), done, 0, shown)
    assert [u for u, _, _ in items] == ["https://a.example/q"] and total == 1
    # A URL longer than a URL may be is not asked for: the reading cuts a <loc> at 4,097
    # characters, and the cut one (a token's first characters in it) was requested and shown.
    long = "https://a.example/?k=" + "x" * 2027
    walk = [(long, "s", None), (long + "y", "s", None), ("https://a.example/", "s", None)]
    items, total, _ = chosen_pages(lambda: iter(walk), DigestSet(), 0)
    assert [u for u, _, _ in items] == [long, "https://a.example/"] and total == 2


def test_the_worst_severity_takes_the_page_findings_with_the_walks() -> None:
    from sitemap_auditor.deep.document import worst_severity
    from sitemap_auditor.deep.kinds import Severity

    notice = {"findings": [{"severity": "notice"}]}
    assert worst_severity(notice) is Severity.NOTICE
    assert worst_severity({**notice, "pages": {"findings": [{"severity": "error"}]}}) is (
        Severity.ERROR
    )
    assert worst_severity({"findings": [], "pages": {"findings": [{"severity": "warning"}]}}) is (
        Severity.WARNING
    )
    assert worst_severity({"findings": [], "pages": None}) is None


def test_an_open_start_tag_is_scanned_again_only_as_it_doubles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Quoted `>`s in a long tag, read 1 KiB at a time: the parser looked for the tag's end from
    # its start at every piece holding a `>` (23 s for 2 MB); now once each time it doubles.
    from html.parser import HTMLParser

    scans: list[int] = []
    starttag = HTMLParser.parse_starttag

    def counted(self: HTMLParser, i: int) -> int:
        scans.append(len(self.rawdata) - i)
        return int(starttag(self, i))

    monkeypatch.setattr(HTMLParser, "parse_starttag", counted)
    tag = '<link rel="icon" ' + 'a=">" ' * 10_000 + ">"
    facts = read(("<html><head>" + tag * 3 + '<meta name="robots" content="none">').encode(), 1024)
    assert facts.robots == ("none",) and not facts.cut
    assert sum(scans) < 3 * 4 * len(tag)  # each tag's scans: at most about twice its length


def test_lastmods_at_the_ends_of_the_calendar_are_compared_too() -> None:
    # .NET's empty date, written by some generators, and the last year a date may name.
    page = stated("2026-11-01T10:00:00Z")
    for lastmod in ("0001-01-01", "0001-01-01T00:00:00+00:00", "0001", "0001-01"):
        assert verdict.lastmod_disagrees(lastmod, page), lastmod
    for lastmod in ("9999-12-31", "9999-12-31T23:59:59+14:00", "9999", "9999-12"):
        assert verdict.lastmod_disagrees(lastmod, page), lastmod
    assert verdict.lastmod_disagrees("2026-11-01", stated("0001-01-01T00:00:00Z"))
    assert verdict.lastmod_disagrees("2026-11-01", stated("9999-12-31T23:59:59Z"))
