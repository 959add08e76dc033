"""Each finding kind of the deep audit, from a file served on 127.0.0.1: a real file of the
shared corpus where one shows the kind, else a file written as the generators write them."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime, timedelta

import pytest
from support.deep import SITEMAPS_NS, corpus_file, kinds_of, run, serve_listed, urlset_of
from support.documents import gz

from harness.servers import Site, redirect, reply
from sitemap_auditor.deep import walk

NEWS_NS = ' xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"'
IMAGE_NS = ' xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'
XHTML_NS = ' xmlns:xhtml="http://www.w3.org/1999/xhtml"'


def _today() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d")


# (kind, corpus file): a real file whose own bytes show the kind.
REAL = [
    ("sitemap-is-html", "html-staatic-page-as-wp-sitemap-3tav.xml"),
    ("leading-whitespace", "urlset-wp-yoast-image-leading-newline-10beasts.xml"),
    ("invalid-xml", "urlset-video-bare-ampersand-1511-thefurnaceoutlet.xml"),
    ("incorrect-namespace", "urlset-https-namespace-odis.xml"),
    ("unknown-format", "other-baidu-document-root-cxzch.xml"),
    ("invalid-url", "urlset-wp-yoast-pages-32-6annonce.xml"),
    ("url-not-allowed", "urlset-jekyll-sitemap-b10g.xml"),
    ("empty-sitemap", "empty-zero-bytes-aceulb.xml"),
    ("invalid-date", "urlset-unparsable-offset-computly.xml"),
    ("date-without-timezone", "urlset-python-isoformat-microseconds-theising.xml"),
    ("identical-lastmods", "urlset-mkdocs-date-only-0install.xml"),
    ("partial-lastmod", "urlset-jekyll-sitemap-b10g.xml"),
    ("duplicate-url", "urlset-news-117-ozarks.xml"),
    ("news-too-old", "urlset-news-117-ozarks.xml"),
    ("video-missing-tag", "urlset-video-magento-crlf-americanswan.xml"),
]


@pytest.mark.parametrize(("kind", "name"), REAL, ids=[k for k, _ in REAL])
def test_a_real_file_shows_its_kind(site: Site, kind: str, name: str) -> None:
    serve_listed(site, {"/" + name: corpus_file(name)})
    doc = run(site.url("/"))
    found = kinds_of(doc, site.url("/" + name))
    assert kind in found, sorted(found)
    f = found[kind]
    assert f["count"] >= 1
    assert len(f["examples"]) <= 5
    assert all(len(e["value"]) <= 200 for e in f["examples"])


def test_leading_whitespace_is_read_past_with_true_line_numbers(site: Site) -> None:
    name = "urlset-wp-yoast-image-leading-newline-10beasts.xml"
    body = corpus_file(name)
    serve_listed(site, {"/s.xml": body})
    doc = run(site.url("/"))
    record = doc["sitemaps"][0]
    assert record["type"] == "urlset"
    assert record["entries"] == body.count(b"<url>")
    assert record["extensions"]["image"] == body.count(b"<image:image>")
    first = body.split(b"\n").index(next(x for x in body.split(b"\n") if b"<url>" in x)) + 1
    urls = kinds_of(doc)["url-not-allowed"]
    assert urls["examples"][0]["line"] == first


@pytest.mark.parametrize(
    ("space", "lines"),
    [(b" " * 65_534, 0), (b"\r\n" * 40_000, 40_000), (b"\n" * 70_000, 70_000)],
    ids=["64-KiB-of-spaces", "40000-CRLF", "70000-LF"],
)
def test_leading_whitespace_longer_than_a_chunk_is_read_past_too(
    site: Site, space: bytes, lines: int
) -> None:
    # Past the first 64 KiB chunk, white space is counted, not held: the file is still read,
    # its lines still true (a listing whose <loc> is elsewhere is on line lines + 3).
    doc = (
        b'<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        b"<url><loc>http://elsewhere.example/a</loc></url>\n</urlset>\n"
    )
    serve_listed(site, {"/s.xml": space + doc})
    found = run(site.url("/"))
    record = found["sitemaps"][0]
    assert (record["type"], record["entries"]) == ("urlset", 1)
    kinds = kinds_of(found)
    assert "leading-whitespace" in kinds and "empty-sitemap" not in kinds
    assert kinds["url-not-allowed"]["examples"][0]["line"] == lines + 3


def test_invalid_xml_gives_the_line_expat_stopped_at(site: Site) -> None:
    serve_listed(
        site, {"/s.xml": corpus_file("urlset-video-bare-ampersand-1511-thefurnaceoutlet.xml")}
    )
    f = kinds_of(run(site.url("/")))["invalid-xml"]
    assert f["line"] is not None and f["line"] > 1
    assert "not well-formed" in f["message"]
    assert "&" in f["examples"][0]["value"]  # the line itself, quoted


def test_an_rss_feed_and_an_atom_feed_are_sitemaps_too(site: Site) -> None:
    serve_listed(
        site,
        {
            "/rss.xml": corpus_file("other-rss-served-as-sitemap-snippets.xml"),
            "/atom.xml": corpus_file("other-atom-feed-jekyll-0k.xml"),
        },
    )
    doc = run(site.url("/"))
    assert doc["sitemaps"][0]["type"] == "rss"
    assert kinds_of(doc, site.url("/rss.xml")) == {}


def test_a_text_sitemap_is_read_line_by_line(site: Site) -> None:
    body = corpus_file("other-plain-text-bom-bazaremarzi.txt")
    serve_listed(site, {"/s.txt": body}, content_type="text/plain")
    doc = run(site.url("/"))
    record = doc["sitemaps"][0]
    assert record["type"] == "text"
    assert record["entries"] == len([x for x in body.splitlines() if x.strip()])
    assert "invalid-url" not in kinds_of(doc)  # the byte order mark is no part of the first URL


def test_couldnt_fetch_and_nested_index(site: Site) -> None:
    index = (
        f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">'
        f"<sitemap><loc>{site.url('/gone.xml')}</loc></sitemap>"
        f"<sitemap><loc>{site.url('/inner.xml')}</loc></sitemap></sitemapindex>"
    ).encode()
    inner = (
        f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">'
        f"<sitemap><loc>{site.url('/leaf.xml')}</loc></sitemap></sitemapindex>"
    ).encode()
    leaf = urlset_of([f"<loc>{site.url('/a')}</loc>"])
    serve_listed(site, {"/index.xml": index, "/inner.xml": inner, "/leaf.xml": leaf})
    doc = run(site.url("/"))
    assert [s["url"] for s in doc["sitemaps"]] == [
        site.url(p) for p in ("/index.xml", "/gone.xml", "/inner.xml", "/leaf.xml")
    ]
    assert [s["depth"] for s in doc["sitemaps"]] == [0, 1, 1, 2]
    assert "HTTP 404" in kinds_of(doc, site.url("/gone.xml"))["couldnt-fetch"]["message"]
    assert "nested-index" in kinds_of(doc, site.url("/inner.xml"))
    assert doc["totals"]["urls"] == 1


@pytest.mark.parametrize("concurrency", [1, 4])
def test_an_index_listed_by_robots_txt_and_by_an_index_is_nested(
    site: Site, concurrency: int
) -> None:
    # robots.txt lists the outer index and the inner one; the outer lists the inner too. Read
    # first as robots.txt's, the inner index was only a duplicate-sitemap notice of the outer:
    # search engines reading the outer index do not follow it all the same.
    def index(*paths: str) -> bytes:
        listed = "".join(f"<sitemap><loc>{site.url(p)}</loc></sitemap>" for p in paths)
        head = f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">'
        return f"{head}{listed}</sitemapindex>".encode()

    robots = f"Sitemap: {site.url('/outer.xml')}\nSitemap: {site.url('/inner.xml')}\n"
    site.route("/robots.txt", reply(robots, content_type="text/plain"))
    site.route("/outer.xml", reply(index("/inner.xml", "/leaf.xml")))
    site.route("/inner.xml", reply(index("/leaf2.xml")))
    site.route("/self.xml", reply(index("/self.xml", "/leaf.xml")))
    for leaf in ("/leaf.xml", "/leaf2.xml"):
        site.route(leaf, reply(urlset_of([f"<loc>{site.url(leaf + 'p')}</loc>"])))
    doc = run(site.url("/"), concurrency=concurrency)
    assert "nested-index" in kinds_of(doc, site.url("/inner.xml"))
    assert "nested-index" not in kinds_of(doc, site.url("/outer.xml"))
    assert "duplicate-sitemap" in kinds_of(doc, site.url("/outer.xml"))
    # An index that lists itself lists an index.
    site.route(
        "/robots.txt", reply(f"Sitemap: {site.url('/self.xml')}\n", content_type="text/plain")
    )
    assert "nested-index" in kinds_of(run(site.url("/")), site.url("/self.xml"))


@pytest.mark.parametrize("status", [403, 429, 503])
def test_a_firewall_answer_is_blocked_not_missing(site: Site, status: int) -> None:
    page = b"<html><title>Just a moment...</title><body>cf-chl</body></html>"
    site.route("/robots.txt", reply(f"Sitemap: {site.url('/s.xml')}\n", content_type="text/plain"))
    site.route("/s.xml", reply(page, status=status, content_type="text/html"))
    found = kinds_of(run(site.url("/")))
    assert "blocked" in found and "couldnt-fetch" not in found


def test_missing_tag_future_lastmod_and_image_missing_loc(site: Site) -> None:
    body = urlset_of(
        [
            f"<loc>{site.url('/a')}</loc><lastmod>2099-01-01</lastmod>",
            "<lastmod>2026-01-01</lastmod>",
            f"<loc>{site.url('/b')}</loc><image:image><image:title>x</image:title></image:image>",
        ],
        IMAGE_NS,
    )
    serve_listed(site, {"/s.xml": body})
    found = kinds_of(run(site.url("/")))
    assert found["future-lastmod"]["examples"] == [{"line": 3, "value": "2099-01-01"}]
    assert found["missing-tag"]["line"] == 4
    assert found["image-missing-loc"]["line"] == 5


def test_path_mismatch_is_www_or_not(site: Site) -> None:
    base = f"http://localhost:{site.port}"
    body = urlset_of([f"<loc>http://www.localhost:{site.port}/a</loc>", f"<loc>{base}/b</loc>"])
    site.route("/robots.txt", reply(f"Sitemap: {base}/s.xml\n", content_type="text/plain"))
    site.route("/s.xml", reply(body))
    found = kinds_of(run(base + "/"))
    assert found["path-mismatch"]["count"] == 1
    assert "url-not-allowed" not in found


def test_a_sitemap_in_a_folder_may_not_list_above_it(site: Site) -> None:
    body = urlset_of([f"<loc>{site.url('/blog/a')}</loc>", f"<loc>{site.url('/shop/b')}</loc>"])
    index = (
        f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">'
        f"<sitemap><loc>{site.url('/blog/sitemap.xml')}</loc></sitemap></sitemapindex>"
    ).encode()
    # Found through an index at the root that robots.txt does not list: the folder rule holds.
    site.route("/sitemap_index.xml", reply(index))
    site.route("/blog/sitemap.xml", reply(body))
    doc = run(site.url("/"))
    f = kinds_of(doc, site.url("/blog/sitemap.xml"))["url-not-allowed"]
    assert f["examples"] == [{"line": 4, "value": site.url("/shop/b")}]


def test_too_many_urls_in_one_file(site: Site) -> None:
    body = urlset_of(f"<loc>{site.url(f'/p{i}')}</loc>" for i in range(50_001))
    serve_listed(site, {"/s.xml.gz": gz(body)})
    doc = run(site.url("/"))
    assert kinds_of(doc)["too-many-urls"]["count"] == 50_001
    assert doc["sitemaps"][0]["compression"] == "gzip"


def test_too_many_sitemaps_in_an_index_and_the_limit(site: Site) -> None:
    entries = "".join(
        f"<sitemap><loc>{site.url(f'/s{i}.xml')}</loc></sitemap>" for i in range(50_001)
    )
    index = f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">{entries}</sitemapindex>'
    serve_listed(site, {"/index.xml": index.encode()})
    doc = run(site.url("/"), max_sitemaps=3)
    found = kinds_of(doc)
    assert found["too-many-sitemaps"]["count"] == 50_001
    assert doc["stoppedBy"] == "max-sitemaps" and doc["complete"] is False
    assert doc["totals"]["fetched"] == 3
    assert found["limit-reached"]["severity"] == "notice"
    assert len(doc["sitemaps"]) == 3 + walk.MAX_UNFETCHED_RECORDS
    assert doc["sitemaps"][-1]["type"] == "unfetched"


def test_file_too_large_is_the_bomb_bounded(site: Site) -> None:
    # 60 MB of entries in 60 KB of gzip: the fetcher's 50 MB cap stops the inflation.
    # Long entries, as real 50 MB files have (their extensions): the parse stays well inside the
    # fetch's 30 s deadline on a loaded machine.
    one = f"<url><loc>{site.url('/' + 'x' * 2000)}</loc></url>\n".encode()
    body = (
        b'<?xml version="1.0"?><urlset xmlns="'
        + SITEMAPS_NS.encode()
        + b'">'
        + one * (60_000_000 // len(one))
    )
    serve_listed(site, {"/s.xml.gz": gzip.compress(body, 9, mtime=0)})
    doc = run(site.url("/"))
    found = kinds_of(doc)
    assert "file-too-large" in found
    assert doc["sitemaps"][0]["type"] == "urlset"
    # Cut past the limit, it was still read through gzip: the record says so.
    assert doc["sitemaps"][0]["compression"] == "gzip"


def test_compression_error(site: Site) -> None:
    data = gz(urlset_of([f"<loc>{site.url('/a')}</loc>"] * 50))
    serve_listed(site, {"/s.xml.gz": data[: len(data) // 2]})
    doc = run(site.url("/"))
    assert "compression-error" in kinds_of(doc)
    # What was read of it came through gzip: the record says so (it said nothing).
    assert doc["sitemaps"][0]["compression"] == "gzip"


def test_identical_lastmods_and_duplicates_across_files(site: Site) -> None:
    today = _today()
    a = urlset_of(f"<loc>{site.url(f'/p{i}')}</loc><lastmod>{today}</lastmod>" for i in range(30))
    b = urlset_of([f"<loc>{site.url('/p1')}</loc>"])
    index = (
        f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">'
        f"<sitemap><loc>{site.url('/a.xml')}</loc></sitemap>"
        f"<sitemap><loc>{site.url('/b.xml')}</loc></sitemap></sitemapindex>"
    ).encode()
    serve_listed(site, {"/index.xml": index, "/a.xml": a, "/b.xml": b})
    doc = run(site.url("/"), concurrency=1)
    identical = kinds_of(doc, site.url("/a.xml"))["identical-lastmods"]
    assert identical["count"] == 30
    # The value they share, which the site owner looks for: a date alone, as written (it was
    # named as its day's last second, which the file does not hold).
    assert f"({today})" in identical["message"]
    # An instant is named in UTC; its fraction kept ("…:09Z" could not be found in a file that
    # writes "…:09.300Z").
    for written, shown in (
        ("2025-09-14T15:04:16+03:00", "(2025-09-14T12:04:16Z in UTC)"),
        ("2023-12-06T21:49:09.300Z", "(2023-12-06T21:49:09.300Z in UTC)"),
    ):
        same = (f"<loc>{site.url(f'/q{i}')}</loc><lastmod>{written}</lastmod>" for i in range(30))
        serve_listed(site, {"/q.xml": urlset_of(same)})
        assert shown in kinds_of(run(site.url("/")))["identical-lastmods"]["message"]
    dup = kinds_of(doc, site.url("/b.xml"))["duplicate-url"]
    assert "another file" in dup["message"]


def _news(site: Site, i: int, published: str, title: bool = True) -> str:
    t = "<news:title>T</news:title>" if title else ""
    return (
        f"<loc>{site.url(f'/n{i}')}</loc><news:news><news:publication><news:name>P</news:name>"
        f"<news:language>en</news:language></news:publication>"
        f"<news:publication_date>{published}</news:publication_date>{t}</news:news>"
    )


def test_news_too_many_and_missing_tag(site: Site) -> None:
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    entries = [_news(site, i, now) for i in range(1001)] + [_news(site, 9999, now, title=False)]
    serve_listed(site, {"/news.xml": urlset_of(entries, NEWS_NS)})
    doc = run(site.url("/"))
    found = kinds_of(doc)
    assert found["news-too-many"]["count"] == 1002
    assert "news:title" in found["news-missing-tag"]["message"]
    assert "news-too-old" not in found
    assert "identical-lastmods" not in found  # not for news sitemaps
    assert doc["sitemaps"][0]["extensions"]["news"] == 1002


def test_news_too_old(site: Site) -> None:
    old = (datetime.now(UTC) - timedelta(days=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
    serve_listed(site, {"/news.xml": urlset_of([_news(site, 1, old)], NEWS_NS)})
    assert kinds_of(run(site.url("/")))["news-too-old"]["count"] == 1


def test_a_publication_date_without_a_zone_is_judged_for_its_age_too(site: Site) -> None:
    old = (datetime.now(UTC) - timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%S")
    serve_listed(site, {"/news.xml": urlset_of([_news(site, 1, old)], NEWS_NS)})
    found = kinds_of(run(site.url("/")))
    assert found["news-too-old"]["count"] == 1
    # The example names the element: the date is no <lastmod>.
    (example,) = found["date-without-timezone"]["examples"]
    assert example["value"] == f"<news:publication_date>{old}</news:publication_date>"


def test_hreflang_invalid_code_no_self_link_and_no_return_link(site: Site) -> None:
    a, b, c = site.url("/en"), site.url("/de"), site.url("/fr")

    def link(code: str, href: str) -> str:
        return f'<xhtml:link rel="alternate" hreflang="{code}" href="{href}"/>'

    body = urlset_of(
        [
            f"<loc>{a}</loc>{link('en', a)}{link('de', b)}",
            f"<loc>{b}</loc>{link('de', b)}",  # no link back to /en
            f"<loc>{c}</loc>{link('en_GB', a)}",  # not BCP 47, and no link to itself
            f"<loc>{site.url('/uk')}</loc>{link('en-UK', site.url('/uk'))}",  # en-GB meant
            # A link to nothing: its own fault, not only the missing link to itself.
            f'<loc>{site.url("/it")}</loc><xhtml:link rel="alternate" hreflang="it"/>',
        ],
        XHTML_NS,
    )
    serve_listed(site, {"/s.xml": body})
    doc = run(site.url("/"))
    f = kinds_of(doc)["hreflang-invalid"]
    assert "not BCP 47" in f["message"]
    assert "UK is not an ISO 3166-1 country code (use GB)" in f["message"]
    assert "no link to the page itself" in f["message"]
    assert "no return link" in f["message"]
    assert "no href" in f["message"]
    assert doc["sitemaps"][0]["extensions"]["alternates"] == 6


def test_a_separate_mobile_url_is_no_language_alternate(site: Site) -> None:
    # Google's markup for separate mobile URLs: rel="alternate" and a media query, no hreflang.
    page, mobile = site.url("/page"), site.url("/m/page")
    mobile_link = (
        f'<xhtml:link rel="alternate" media="only screen and (max-width: 640px)" href="{mobile}"/>'
    )
    serve_listed(site, {"/s.xml": urlset_of([f"<loc>{page}</loc>{mobile_link}"], XHTML_NS)})
    doc = run(site.url("/"))
    assert "hreflang-invalid" not in kinds_of(doc)
    assert doc["sitemaps"][0]["extensions"]["alternates"] == 0


def _disallowing_private(site: Site, sitemap: str) -> None:
    """A robots.txt that disallows /private/ to every agent and lists sitemap."""
    rules = f"User-agent: *\nDisallow: /private/\nSitemap: {site.url(sitemap)}\n"
    site.route("/robots.txt", reply(rules, content_type="text/plain"))


def test_blocked_by_robots(site: Site) -> None:
    pytest.importorskip("sitemap_auditor.deep.robots_rules")
    body = urlset_of([f"<loc>{site.url('/private/a')}</loc>", f"<loc>{site.url('/a')}</loc>"])
    _disallowing_private(site, "/s.xml")
    site.route("/s.xml", reply(body))
    f = kinds_of(run(site.url("/")))["blocked-by-robots"]
    assert f["examples"] == [{"line": 3, "value": site.url("/private/a")}]


@pytest.mark.parametrize("limits", [{}, {"max_sitemaps": 2}, {"max_depth": 0}])
def test_a_sitemap_robots_txt_disallows_is_one_finding_about_the_file(
    site: Site, limits: dict[str, int]
) -> None:
    # An index's entries are sitemaps: one that robots.txt disallows is the child's own
    # sitemap-blocked-by-robots, not also a listed URL the index would send a crawler to.
    index = (
        f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">'
        f"<sitemap><loc>{site.url('/a.xml')}</loc></sitemap>"
        f"<sitemap><loc>{site.url('/private/b.xml')}</loc></sitemap></sitemapindex>"
    ).encode()
    _disallowing_private(site, "/index.xml")
    site.route("/index.xml", reply(index))
    site.route("/a.xml", reply(urlset_of([f"<loc>{site.url('/a')}</loc>"])))
    site.route("/private/b.xml", reply(urlset_of([f"<loc>{site.url('/b')}</loc>"])))
    document = run(site.url("/"), **limits)
    found = kinds_of(document)
    assert "blocked-by-robots" not in found
    # Read or left unread by a limit, the file is one search engines cannot read.
    blocked = found["sitemap-blocked-by-robots"]
    assert blocked["examples"][0]["value"] == site.url("/private/b.xml")
    assert blocked["sitemap"] == site.url("/private/b.xml")


@pytest.mark.parametrize("status", [500, 503, 429])
def test_a_robots_txt_without_a_usable_answer_disallows_the_whole_site(
    site: Site, status: int
) -> None:
    pytest.importorskip("sitemap_auditor.deep.robots_rules")
    body = urlset_of([f"<loc>{site.url('/a')}</loc>", f"<loc>{site.url('/b')}</loc>"])
    site.route("/robots.txt", reply("User-agent: *\nAllow: /\n", status, "text/plain"))
    site.route("/sitemap.xml", reply(body))
    found = kinds_of(run(site.url("/")))
    unreachable = found["robots-txt-unreachable"]
    assert (unreachable["severity"], unreachable["sitemap"]) == ("error", None)
    assert f"(HTTP {status})" in unreachable["message"]
    assert found["blocked-by-robots"]["count"] == 2
    assert found["sitemap-blocked-by-robots"]["examples"][0]["value"] == site.url("/sitemap.xml")


def test_a_robots_txt_answering_404_is_no_rules(site: Site) -> None:
    body = urlset_of([f"<loc>{site.url('/a')}</loc>"])
    site.route("/robots.txt", reply("User-agent: *\nDisallow: /\n", 404, "text/plain"))
    site.route("/sitemap.xml", reply(body))
    found = kinds_of(run(site.url("/")))
    assert not {"robots-txt-unreachable", "blocked-by-robots"} & set(found)


def test_a_robots_txt_whose_answer_leads_nowhere_is_no_rules(site: Site) -> None:
    # A redirect loop is an answer, not a server's failure: RFC 9309 §2.3.1.2 lets a crawler
    # take it as unavailable (no rules), as Google takes a 4xx.
    body = urlset_of([f"<loc>{site.url('/a')}</loc>"])
    site.route("/robots.txt", redirect("/r2.txt", 301))
    site.route("/r2.txt", redirect("/robots.txt", 301))
    site.route("/sitemap.xml", reply(body))
    found = kinds_of(run(site.url("/")))
    assert not {"robots-txt-unreachable", "blocked-by-robots", "sitemap-blocked-by-robots"} & set(
        found
    )


def test_no_sitemap_anywhere_is_one_finding_about_the_site(site: Site) -> None:
    doc = run(site.url("/"))
    found = kinds_of(doc)
    assert found["couldnt-fetch"]["sitemap"] is None
    assert [s["source"] for s in doc["sitemaps"]] == ["fallback"] * 3
    # The usual paths are guesses: their 404s are no findings of their own.
    assert all(s["findings"]["error"] == 0 for s in doc["sitemaps"])


def _chain(site: Site) -> None:
    def index(*children: str) -> bytes:
        entries = "".join(f"<sitemap><loc>{site.url(c)}</loc></sitemap>" for c in children)
        head = f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">'
        return f"{head}{entries}</sitemapindex>".encode()

    leaf = urlset_of([f"<loc>{site.url('/x')}</loc>"])
    serve_listed(
        site,
        {
            "/i.xml": index("/j.xml", "/a.xml"),
            "/j.xml": index("/b.xml"),
            "/a.xml": leaf,
            "/b.xml": leaf,
        },
    )


def test_max_depth_leaves_deeper_sitemaps_unfetched(site: Site) -> None:
    _chain(site)
    doc = run(site.url("/"), max_depth=1)
    types = {s["url"]: s["type"] for s in doc["sitemaps"]}
    assert types[site.url("/b.xml")] == "unfetched"
    assert types[site.url("/a.xml")] == "urlset"
    assert doc["complete"] is False and doc["stoppedBy"] is None
    assert "levels of indexes" in kinds_of(doc)["limit-reached"]["message"]


def test_max_bytes_stops_the_walk_between_files(site: Site) -> None:
    _chain(site)
    doc = run(site.url("/"), max_bytes=100, concurrency=1)
    assert doc["stoppedBy"] == "max-bytes"
    assert doc["totals"]["fetched"] == 1
    assert [s["type"] for s in doc["sitemaps"]][1:] == ["unfetched"] * 2


def test_a_walk_cut_and_a_dedupe_bound_are_one_finding_counting_the_unread(site: Site) -> None:
    # Both limits at once: one limit-reached, whose count is the sitemaps left unread and whose
    # message names both (it used to be two findings in one, the count overwritten by 1).
    urls = [f"<loc>{site.url(f'/p{i}')}</loc>" for i in range(30)]
    children = "".join(
        f"<sitemap><loc>{site.url(c)}</loc></sitemap>" for c in ("/a.xml", "/b.xml", "/c.xml")
    )
    serve_listed(
        site,
        {
            "/i.xml": f'<sitemapindex xmlns="{SITEMAPS_NS}">{children}</sitemapindex>'.encode(),
            "/a.xml": urlset_of(urls),
            "/b.xml": urlset_of(urls),
            "/c.xml": urlset_of(urls),
        },
    )
    doc = run(site.url("/"), max_sitemaps=2, max_dedupe_urls=10)
    limit = kinds_of(doc)["limit-reached"]
    assert limit["count"] == 2, limit
    assert "at most 2 sitemaps" in limit["message"]
    assert "2 sitemaps not read" in limit["message"]
    one = kinds_of(run(site.url("/"), max_sitemaps=3))["limit-reached"]
    assert "1 sitemap not read" in one["message"]  # it said "1 sitemaps"
    assert "duplicates looked for among the first 10 URLs read only" in limit["message"]
    assert [f["kind"] for f in doc["findings"]].count("limit-reached") == 1


def test_the_dedupe_bound_alone_is_a_notice_of_one(site: Site) -> None:
    urls = [f"<loc>{site.url(f'/p{i}')}</loc>" for i in range(30)]
    serve_listed(site, {"/a.xml": urlset_of(urls)})
    doc = run(site.url("/"), max_dedupe_urls=10)
    limit = kinds_of(doc)["limit-reached"]
    assert limit["count"] == 1 and limit["severity"] == "notice"
    assert limit["message"] == (
        "The audit reached a limit (duplicates looked for among the first 10 URLs read only"
        " (which ones can vary between runs when files are read at once; not with"
        " --concurrency 1)); the findings cover what it read and checked."
    )
    assert doc["complete"] is True


@pytest.mark.parametrize(("gap", "breaks"), [(b"\r\n\n\r", 3), (b"\n\r\n", 2), (b" \r \r", 2)])
def test_lines_before_the_xml_declaration_count_as_xml_counts_them(
    site: Site, gap: bytes, breaks: int
) -> None:
    body = (
        b'<?xml version="1.0"?>\n<urlset xmlns="' + SITEMAPS_NS.encode() + b'">\n'
        b"<url><loc>" + site.url("/a").encode() + b"</loc><lastmod>soon</lastmod></url>\n"
        b"</urlset>\n"
    )
    serve_listed(site, {"/s.xml": gap + body})
    found = kinds_of(run(site.url("/")))
    assert found["invalid-date"]["examples"][0]["line"] == 3 + breaks
    assert "leading-whitespace" in found


def test_a_site_that_does_not_answer_is_told_as_such() -> None:
    import socket

    from sitemap_auditor.deep.reports import html_report

    # Nothing listens on the port: robots.txt and the usual paths never answer.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    doc = run(f"http://127.0.0.1:{port}/")
    assert doc["robotsTxt"]["httpStatus"] is None
    site_level = [f for f in doc["findings"] if f["kind"] == "couldnt-fetch" and not f["sitemap"]]
    assert site_level and "robots.txt did not answer, and none of" in site_level[0]["message"]
    page = html_report.render(doc)
    assert "· no answer</dd>" in page
    assert "every sitemap listed was read" not in page and "could not be read" in page


@pytest.mark.parametrize(
    ("inside", "said"),
    [
        ("<!-- " + "x" * 3_000_000 + " -->", "markup longer than"),
        ("<a>" * 300 + "</a>" * 300, "nested deeper than 256"),
    ],
    ids=["a-3-MB-comment", "nesting-past-256"],
)
def test_well_formed_xml_the_parser_refuses_is_no_invalid_xml(
    site: Site, inside: str, said: str
) -> None:
    # Well-formed: not Search Console's Invalid XML, but this audit's own limit, said so.
    body = urlset_of([f"<loc>{site.url('/a')}</loc>"]).replace(
        b"</urlset>", inside.encode() + b"</urlset>"
    )
    serve_listed(site, {"/s.xml": body})
    found = kinds_of(run(site.url("/")))
    assert "invalid-xml" not in found
    assert said in found["xml-not-read"]["message"]
    assert found["xml-not-read"]["severity"] == "warning"


def test_the_html_summary_counts_a_sitemap_that_answered_404_as_not_read(site: Site) -> None:
    # It said "complete: every sitemap listed was read" of a walk whose one listed file was 404.
    from sitemap_auditor.deep.reports import html_report

    robots = f"Sitemap: {site.url('/ok.xml')}\nSitemap: {site.url('/gone.xml')}\n"
    site.route("/robots.txt", reply(robots, content_type="text/plain"))
    site.route("/ok.xml", reply(urlset_of([f"<loc>{site.url('/a')}</loc>"])))
    page = html_report.render(run(site.url("/")))
    assert "every sitemap listed was read" not in page
    assert "1 could not be read" in page


def test_an_empty_lastmod_is_shown_as_the_element(site: Site) -> None:
    # Its example was an empty value: "e.g. line 1: ".
    serve_listed(site, {"/s.xml": urlset_of([f"<loc>{site.url('/a')}</loc><lastmod/>"])})
    (example,) = kinds_of(run(site.url("/")))["invalid-date"]["examples"]
    assert example["value"] == "<lastmod></lastmod>"


def test_duplicate_url_counts_the_entries_that_repeat_and_says_so(site: Site) -> None:
    # /a four times, /b twice, /c once: "4 URLs are listed more than once", where two are.
    locs = ["/a", "/a", "/b", "/a", "/c", "/b", "/a"]
    serve_listed(site, {"/s.xml": urlset_of([f"<loc>{site.url(p)}</loc>" for p in locs])})
    f = kinds_of(run(site.url("/")))["duplicate-url"]
    assert f["count"] == 4
    assert f["message"] == "4 entries list a URL listed before (within this file)."


def test_a_gzip_file_cut_short_keeps_its_compression_and_what_its_entries_show(
    site: Site,
) -> None:
    # Its record said compression null beside bytes twenty times its wireBytes, and the
    # 57,000 entries read before the cut gave no too-many-urls.
    from harness.servers import raw

    locs = [f"<loc>{site.url(f'/p{n}')}</loc>" for n in range(70_000)]
    body = gz(urlset_of(locs))
    sent = body[: len(body) * 9 // 10]
    serve_listed(site, {"/s.xml.gz": b""})
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
    site.route("/s.xml.gz", raw(head + b"Content-Length: %d\r\n\r\n" % len(body) + sent))
    doc = run(site.url("/"))
    rec = next(s for s in doc["sitemaps"] if s["url"].endswith("/s.xml.gz"))
    assert rec["compression"] == "gzip" and rec["bytes"] > rec["wireBytes"]
    found = kinds_of(doc, rec["url"])
    assert "couldnt-fetch" in found and found["too-many-urls"]["count"] > 50_000


def test_an_invalid_line_of_a_text_sitemap_is_no_loc_value(site: Site) -> None:
    # "1 <loc> value is not an absolute http(s) URL", of a .txt file that holds no <loc>.
    body = f"{site.url('/a')}\nnot a url\n".encode()
    serve_listed(site, {"/s.txt": body})
    f = kinds_of(run(site.url("/")))["invalid-url"]
    assert f["message"].startswith("1 listed URL is not") and "<loc>" not in f["message"]


def test_a_robots_txt_that_answers_503_is_not_said_to_list_no_sitemap(site: Site) -> None:
    # Its Sitemap: lines are read from a 200 only: the 503's body may well name sitemaps.
    site.route(
        "/robots.txt",
        reply(f"Sitemap: {site.url('/s.xml')}\n", status=503, content_type="text/plain"),
    )
    doc = run(site.url("/"))
    site_level = [f for f in doc["findings"] if f["kind"] == "couldnt-fetch" and not f["sitemap"]]
    assert site_level
    assert "robots.txt answered HTTP 503, and none of" in site_level[0]["message"]
    assert "lists no sitemap" not in site_level[0]["message"]


@pytest.mark.parametrize("others", [True, False], ids=["links", "pages"])
def test_return_links_past_their_bound_are_said_to_be_unchecked(
    site: Site, monkeypatch: pytest.MonkeyPatch, others: bool
) -> None:
    # Past the links tracked, or the pages with alternates (each linking only to itself: no
    # link is tracked at all), a missing link back goes unseen: the walk says so, in the
    # limit-reached notice that keeps --compare from resolving hreflang findings by it.
    from sitemap_auditor.deep import checks

    monkeypatch.setattr(checks, "MAX_TRACKED_ALTERNATES", 2)

    def link(code: str, href: str) -> str:
        return f'<xhtml:link rel="alternate" hreflang="{code}" href="{href}"/>'

    pages = [site.url(f"/p{i}") for i in range(6)]
    body = urlset_of(
        [
            f"<loc>{p}</loc>{link('en', p)}" + (link("de", pages[(i + 1) % 6]) if others else "")
            for i, p in enumerate(pages)
        ],
        XHTML_NS,
    )
    serve_listed(site, {"/s.xml": body})
    found = kinds_of(run(site.url("/")))
    assert (
        "hreflang return links looked for among 2 links and pages only"
        in (found["limit-reached"]["message"])
    )


def test_a_usual_path_a_limit_left_unguessed_gets_no_robots_finding(site: Site) -> None:
    # robots.txt answers 503 (every URL disallowed) and lists no sitemap: the usual paths are
    # guesses; the two a limit left untried may not exist, so nothing is said of them, as
    # nothing is said of those that answer 404 when tried.
    site.route("/robots.txt", reply("busy", 503, "text/plain"))
    site.route("/sitemap.xml", reply(urlset_of([f"<loc>{site.url('/a')}</loc>"])))
    full = run(site.url("/"))
    limited = run(site.url("/"), max_sitemaps=1)
    blocked = [
        f["sitemap"]
        for doc in (full, limited)
        for f in doc["findings"]
        if f["kind"] == "sitemap-blocked-by-robots"
    ]
    assert blocked == [site.url("/sitemap.xml")] * 2
