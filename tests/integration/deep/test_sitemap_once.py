"""Each sitemap is read once, whatever spelling of its URL an index or robots.txt lists it under
(docs/deep.md, `duplicate-sitemap`): a real server counts the fetches."""

from __future__ import annotations

import gzip
import random
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler

from support.deep import SITEMAPS_NS, kinds_of, run, urlset_of

from harness.servers import Site, redirect, reply, send
from sitemap_auditor.core import candidates
from sitemap_auditor.deep.reports import html_report, text_report
from sitemap_auditor.fetching import replay


def _spellings(port: int, count: int) -> list[str]:
    """count distinct spellings of http://localhost:{port}/child-one.xml."""
    draw = random.Random(1000)
    paths = ["/child-one.xml", "/child%2Done.xml", "/child%2done.xml", "/%63hild-one.xml",
             "/child-%6Fne.xml", "/./child-one.xml", "/x/../child-one.xml"]  # fmt: skip
    out: dict[str, None] = {}
    while len(out) < count:
        host = "".join(c.upper() if draw.random() < 0.5 else c for c in "localhost")
        digits = "0" * draw.randrange(4) + str(port)
        query = draw.choice(["", "?"])
        fragment = draw.choice(["", "#", f"#part{draw.randrange(100)}"])
        out.setdefault(f"http://{host}:{digits}{draw.choice(paths)}{query}{fragment}")
    return list(out)


def test_a_child_listed_under_a_thousand_spellings_is_fetched_once(site: Site) -> None:
    spellings = _spellings(site.port, 1000)
    index = (
        f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">'
        + "".join(f"<sitemap><loc>{s.replace('&', '&amp;')}</loc></sitemap>" for s in spellings)
        + "</sitemapindex>"
    ).encode()
    base = f"http://localhost:{site.port}"
    site.route("/robots.txt", reply(f"Sitemap: {base}/index.xml\n", content_type="text/plain"))
    site.route("/index.xml", reply(index))
    child = urlset_of([f"<loc>{base}/page</loc>"])
    # The server answers whichever spelling comes first (its path as the Standard serializes it).
    for path in ("/child-one.xml", "/child%2Done.xml", "/child%2done.xml", "/%63hild-one.xml",
                 "/child-%6Fne.xml"):  # fmt: skip
        site.route(path, reply(child))
        site.route(path + "?", reply(child))
    doc = run(base + "/")
    children = [p for p in site.paths() if p not in ("/robots.txt", "/index.xml")]
    assert len(children) == 1, children
    assert [s["type"] for s in doc["sitemaps"]] == ["sitemapindex", "urlset"]
    repeat = kinds_of(doc, f"{base}/index.xml")["duplicate-sitemap"]
    assert repeat["count"] == 999 and repeat["severity"] == "notice"


def test_robots_txt_listing_one_sitemap_twice_reads_it_once(site: Site) -> None:
    lines = [f"Sitemap: {site.url('/s.xml')}", f"Sitemap: {site.url('/s.xml')}#top"]
    site.route("/robots.txt", reply("\n".join(lines) + "\n", content_type="text/plain"))
    site.route("/s.xml", reply(urlset_of([f"<loc>{site.url('/a')}</loc>"])))
    doc = run(site.url("/"))
    # The Lambda's own audit of the URL (the verdict) asked; the walk read its answer again.
    assert site.paths() == ["/robots.txt", "/s.xml"]
    assert kinds_of(doc)["duplicate-sitemap"]["count"] == 1


def test_a_child_listed_twice_in_one_spelling_is_one_finding(site: Site) -> None:
    child = site.url("/child.xml")
    index = (
        f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">'
        + "".join(f"<sitemap><loc>{s}</loc></sitemap>" for s in (child, child, child + "#x"))
        + "</sitemapindex>"
    ).encode()
    site.route(
        "/robots.txt", reply(f"Sitemap: {site.url('/index.xml')}\n", content_type="text/plain")
    )
    site.route("/index.xml", reply(index))
    site.route("/child.xml", reply(urlset_of([f"<loc>{site.url('/page')}</loc>"])))
    found = kinds_of(run(site.url("/")), site.url("/index.xml"))
    assert sorted(found) == ["duplicate-sitemap"] and found["duplicate-sitemap"]["count"] == 2
    assert site.paths().count("/child.xml") == 1


def test_what_the_verdict_heard_is_read_again_not_asked_again(site: Site) -> None:
    """The Lambda's verdict and the walk both read robots.txt, its redirects and the sitemap:
    the site sees each request once, and the walk reads the same gzipped bytes."""
    pages = [f"<loc>{site.url(f'/p{i}')}</loc><lastmod>2026-12-0{i}</lastmod>" for i in (1, 2, 3)]
    zipped = gzip.compress(urlset_of(pages))
    site.route("/robots.txt", redirect("/robots-now.txt", 301))
    site.route(
        "/robots-now.txt", reply(f"Sitemap: {site.url('/old.xml')}\n", content_type="text/plain")
    )
    site.route("/old.xml", redirect("/s.xml.gz"))
    site.route("/s.xml.gz", reply(zipped, content_type="application/gzip"))
    doc = run(site.url("/"))
    assert Counter(site.paths()) == dict.fromkeys(
        ["/robots.txt", "/robots-now.txt", "/old.xml", "/s.xml.gz"], 1
    )
    assert doc["verdict"]["status"] == "SUCCESS"
    (record,) = doc["sitemaps"]
    assert record["type"] == "urlset" and record["entries"] == 3
    assert record["compression"] == "gzip" and record["lastmod"]["latest"] is not None
    assert record["wireBytes"] == len(zipped)


def test_a_site_without_a_sitemap_is_asked_each_usual_path_once(site: Site) -> None:
    doc = run(site.url("/"))
    asked = Counter(site.paths())
    assert set(asked) == {"/robots.txt", *candidates.FALLBACK_PATHS}
    assert set(asked.values()) == {1}, asked
    assert doc["verdict"]["status"] == "FAIL"


def test_an_error_page_that_drips_does_not_hold_up_the_verdict(site: Site) -> None:
    """A 404 the verdict passes over, whose small body comes a byte at a time: read on for at
    most MAX_DRAIN_S, then left; the walk asks for it again and reads what it needs."""

    def dripping(h: BaseHTTPRequestHandler) -> None:
        h.send_response(404)
        h.send_header("Content-Type", "text/html")
        h.send_header("Content-Length", "6")
        h.end_headers()
        for byte in b"gone.\n":
            h.wfile.write(bytes([byte]))
            h.wfile.flush()
            time.sleep(0.5)

    site.route("/robots.txt", reply(f"Sitemap: {site.url('/s.xml')}\n", content_type="text/plain"))
    site.route("/s.xml", dripping)
    started = time.monotonic()
    doc = run(site.url("/"))
    took = time.monotonic() - started
    # The verdict's fetch, cut reading on, and the walk's, which read it: 0.5 s and 3 s.
    assert site.paths().count("/s.xml") == 2
    assert took < replay.MAX_DRAIN_S + 3.0 + 1.5, took
    assert kinds_of(doc)["couldnt-fetch"]["count"] == 1


def _index_of(*children: str) -> bytes:
    return (
        f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">'
        + "".join(f"<sitemap><loc>{c}</loc></sitemap>" for c in children)
        + "</sitemapindex>"
    ).encode()


def test_a_usual_path_redirecting_to_another_is_read_there_once(site: Site) -> None:
    # WordPress with Yoast or Rank Math, and no Sitemap: line: /sitemap.xml redirects to
    # /sitemap_index.xml, both usual paths the walk tries.
    site.route("/robots.txt", reply("User-agent: *\nAllow: /\n", content_type="text/plain"))
    site.route("/sitemap.xml", redirect(site.url("/sitemap_index.xml"), 301))
    site.route("/sitemap_index.xml", reply(_index_of(site.url("/post-sitemap.xml"))))
    site.route("/post-sitemap.xml", reply(urlset_of([f"<loc>{site.url('/p')}</loc>"])))
    doc = run(site.url("/"))
    types = {s["url"]: s["type"] for s in doc["sitemaps"]}
    assert types[site.url("/sitemap.xml")] == "redirect"
    assert types[site.url("/sitemap_index.xml")] == "sitemapindex"
    assert types[site.url("/post-sitemap.xml")] == "urlset"
    assert not {"duplicate-sitemap", "duplicate-url"} & set(kinds_of(doc))
    assert Counter(site.paths())["/post-sitemap.xml"] == 1
    (redirected,) = [s for s in doc["sitemaps"] if s["type"] == "redirect"]
    assert redirected["finalUrl"] == site.url("/sitemap_index.xml")
    assert redirected["entries"] is None
    assert not [s for s in doc["sitemaps"] if s["parent"] == redirected["url"]]
    # Its own pill in the report: it passed nothing of its own, and is no unread file.
    page = html_report.render(doc)
    assert 'a listed sitemap</span> <span class="url">' + site.url("/sitemap.xml") in page
    assert text_report.render(doc).count("redirects to " + site.url("/sitemap_index.xml")) == 1


def test_a_listed_sitemap_redirecting_to_another_listed_one_is_read_once(site: Site) -> None:
    entries = [f"<loc>{site.url(f'/p{i}')}</loc>" for i in range(3)]
    site.route("/old.xml", redirect(site.url("/new.xml"), 301))
    site.route("/new.xml", reply(urlset_of(entries)))
    # In either order robots.txt lists them, the same tree: both are known before any fetch.
    for order in (["/old.xml", "/new.xml"], ["/new.xml", "/old.xml"]):
        lines = "".join(f"Sitemap: {site.url(p)}\n" for p in order)
        site.route("/robots.txt", reply(lines, content_type="text/plain"))
        doc = run(site.url("/"))
        types = {s["url"]: s["type"] for s in doc["sitemaps"]}
        assert types == {site.url("/old.xml"): "redirect", site.url("/new.xml"): "urlset"}
        assert "duplicate-url" not in kinds_of(doc), order
        assert doc["totals"]["urls"] == 3


def test_a_child_redirecting_to_its_own_index_does_not_read_the_index_again(site: Site) -> None:
    index = site.url("/index.xml")
    site.route("/robots.txt", reply(f"Sitemap: {index}\n", content_type="text/plain"))
    site.route("/index.xml", reply(_index_of(site.url("/loop.xml"), site.url("/child.xml"))))
    site.route("/loop.xml", redirect(index, 301))
    site.route("/child.xml", reply(urlset_of([f"<loc>{site.url('/p')}</loc>"])))
    doc = run(site.url("/"))
    types = {s["url"]: s["type"] for s in doc["sitemaps"]}
    assert types[site.url("/loop.xml")] == "redirect"
    assert Counter(site.paths())["/child.xml"] == 1
    assert "duplicate-sitemap" not in kinds_of(doc)


def test_an_index_listing_an_index_through_a_redirect_nests_it(site: Site) -> None:
    # robots.txt lists both indexes; the first lists a child that redirects to the second,
    # which is so a sitemap index an index lists (nested-index), as if listed by its own URL.
    first, second = site.url("/first.xml"), site.url("/second.xml")
    robots = f"Sitemap: {first}\nSitemap: {second}\n"
    site.route("/robots.txt", reply(robots, content_type="text/plain"))
    site.route("/first.xml", reply(_index_of(site.url("/moved.xml"))))
    site.route("/moved.xml", redirect(second, 301))
    site.route("/second.xml", reply(_index_of(site.url("/child.xml"))))
    site.route("/child.xml", reply(urlset_of([f"<loc>{site.url('/p')}</loc>"])))
    doc = run(site.url("/"))
    assert {s["url"]: s["type"] for s in doc["sitemaps"]}[site.url("/moved.xml")] == "redirect"
    assert "nested-index" in kinds_of(doc, second)


def test_a_sitemap_left_to_one_that_fails_is_said_to_redirect_to_it(site: Site) -> None:
    # robots.txt lists /new.xml as `/new.xml?`, the same resource, whose own fetch the server
    # answers 503: /old.xml's redirect got the urlset, but it is /new.xml's to read, and its
    # failure is its own finding, whichever fetch ends first.
    entries = [f"<loc>{site.url(f'/p{i}')}</loc>" for i in range(3)]
    site.route("/old.xml", redirect(site.url("/new.xml"), 301))
    site.route("/new.xml", reply(urlset_of(entries)))
    site.route("/new.xml?", lambda h: send(h, 503, b"", {}))
    lines = f"Sitemap: {site.url('/old.xml')}\nSitemap: {site.url('/new.xml?')}\n"
    site.route("/robots.txt", reply(lines, content_type="text/plain"))
    for concurrency in (1, 4):
        doc = run(site.url("/"), concurrency=concurrency)
        types = {s["url"]: (s["type"], s["httpStatus"]) for s in doc["sitemaps"]}
        assert types[site.url("/old.xml")] == ("redirect", 200)
        assert types[site.url("/new.xml?")] == ("unknown", 503)
        assert "blocked" in kinds_of(doc, site.url("/new.xml?"))
        assert text_report.render(doc).count(", listed too") == 1


def test_a_sitemap_left_to_one_a_limit_leaves_unread_is_not_said_to_be_read(site: Site) -> None:
    site.route("/robots.txt", reply("User-agent: *\n", content_type="text/plain"))
    site.route("/sitemap.xml", redirect(site.url("/sitemap_index.xml"), 301))
    site.route("/sitemap_index.xml", reply(_index_of(site.url("/post-sitemap.xml"))))
    doc = run(site.url("/"), max_sitemaps=1)
    types = {s["url"]: s["type"] for s in doc["sitemaps"]}
    assert types[site.url("/sitemap.xml")] == "unfetched"
    assert "limit-reached" in kinds_of(doc)
    # Fetched, not read: the report says which.
    said = f"HTTP 200 from {site.url('/sitemap_index.xml')}, not read (a limit was reached)"
    assert said in text_report.render(doc)


def test_a_child_redirecting_to_a_later_sibling_is_read_there_once(site: Site) -> None:
    # An index's sitemaps are recorded at once, before any of them is fetched: a sibling listed
    # after it is known whichever fetch ends first.
    index = site.url("/index.xml")
    site.route("/robots.txt", reply(f"Sitemap: {index}\n", content_type="text/plain"))
    site.route("/index.xml", reply(_index_of(site.url("/k2.xml"), site.url("/k3.xml"))))
    site.route("/k2.xml", redirect(site.url("/k3.xml"), 301))
    site.route("/k3.xml", reply(urlset_of([f"<loc>{site.url(f'/p{i}')}</loc>" for i in range(2)])))
    for concurrency in (1, 4):
        doc = run(site.url("/"), concurrency=concurrency)
        types = {s["url"]: s["type"] for s in doc["sitemaps"]}
        assert types[site.url("/k2.xml")] == "redirect" and types[site.url("/k3.xml")] == "urlset"
        assert "duplicate-url" not in kinds_of(doc) and doc["totals"]["urls"] == 2
