"""A sitemap on another host, listed in the site's robots.txt (a cross-submit, sitemaps.org's
"Sitemaps & Cross Submits": the robots.txt proves the owner put it there, as on a CDN or a
storage bucket): it may list the site's URLs, which robots.txt then judges, and its own host's;
any other host's are still not allowed."""

from __future__ import annotations

from typing import Any

from support.deep import kinds_of, run, urlset_of

from harness.servers import Site, redirect, reply
from sitemap_auditor.deep.reports import html_report, text_report


def test_a_cross_submitted_sitemap_lists_the_sites_urls(site: Site, elsewhere: Site) -> None:
    robots = f"User-agent: *\nDisallow: /private\n\nSitemap: {elsewhere.url('/maps/a.xml')}\n"
    site.route("/robots.txt", reply(robots, content_type="text/plain"))
    other = f"http://127.0.0.3:{elsewhere.port}"
    body = urlset_of(
        [
            f"<loc>{site.url('/a')}</loc>",  # line 3: the site's, allowed
            f"<loc>{site.url('/private/b')}</loc>",  # 4: the site's, disallowed by its robots
            f"<loc>{elsewhere.url('/c')}</loc>",  # 5: the sitemap's own host
            f"<loc>{other}/d</loc>",  # 6: neither
        ]
    )
    elsewhere.route("/maps/a.xml", reply(body))
    found = kinds_of(run(site.url("/")), elsewhere.url("/maps/a.xml"))
    assert found["url-not-allowed"]["count"] == 1
    assert found["url-not-allowed"]["examples"] == [{"line": 6, "value": f"{other}/d"}]
    assert found["blocked-by-robots"]["count"] == 1
    assert found["blocked-by-robots"]["examples"][0]["line"] == 4


def test_a_sitemap_an_index_of_the_site_lists_on_another_host_keeps_its_own_scope(
    site: Site, elsewhere: Site
) -> None:
    # Found through the usual path, not robots.txt: no cross-submit, the site's URLs are
    # another host's to it.
    site.route("/robots.txt", reply("User-agent: *\nDisallow:\n", content_type="text/plain"))
    index = (
        '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<sitemap><loc>{elsewhere.url('/maps/a.xml')}</loc></sitemap></sitemapindex>"
    )
    site.route("/sitemap.xml", reply(index))
    elsewhere.route("/maps/a.xml", reply(urlset_of([f"<loc>{site.url('/a')}</loc>"])))
    found = kinds_of(run(site.url("/")), elsewhere.url("/maps/a.xml"))
    assert found["url-not-allowed"]["count"] == 1


def test_a_sitemap_that_redirects_may_list_the_urls_of_where_it_is(
    site: Site, elsewhere: Site
) -> None:
    # robots.txt lists the site's /sitemap.xml, which moved to another host (as example.com's
    # to www.example.com): it lists the pages of where it is now, which are allowed there.
    robots = f"User-agent: *\nDisallow:\n\nSitemap: {site.url('/sitemap.xml')}\n"
    site.route("/robots.txt", reply(robots, content_type="text/plain"))
    site.route("/sitemap.xml", redirect(elsewhere.url("/sitemap.xml")))
    body = urlset_of([f"<loc>{elsewhere.url('/a')}</loc>", "<loc>http://127.0.0.3/b</loc>"])
    elsewhere.route("/sitemap.xml", reply(body))
    doc = run(site.url("/"))
    found = kinds_of(doc, site.url("/sitemap.xml"))
    assert found["url-not-allowed"]["count"] == 1
    assert found["url-not-allowed"]["examples"][0]["value"] == "http://127.0.0.3/b"
    # The record says where it answered from; the report shows it.
    (record,) = doc["sitemaps"]
    assert record["url"] == site.url("/sitemap.xml")
    assert record["finalUrl"] == elsewhere.url("/sitemap.xml")
    assert f"Redirected to</dt><dd><code>{elsewhere.url('/sitemap.xml')}</code>" in (
        html_report.render(doc)
    )
    assert f"HTTP 200 from {elsewhere.url('/sitemap.xml')}" in text_report.render(doc)


def test_a_sitemap_listed_in_another_spelling_was_not_redirected(site: Site) -> None:
    # The listed URL's spelling (scheme case, an empty query) is not where redirects led.
    listed = f"HTTP://127.0.0.1:{site.port}/s.xml"
    site.route("/robots.txt", reply(f"Sitemap: {listed}\n", content_type="text/plain"))
    site.route("/s.xml", reply(urlset_of([f"<loc>{site.url('/a')}</loc>"])))
    (record,) = run(site.url("/"))["sitemaps"]
    assert record["httpStatus"] == 200 and record["finalUrl"] is None


def test_a_refused_sitemap_has_no_compression(site: Site) -> None:
    # A 404 page past the 8 KiB a refusal reads: what was read differs from what arrived, yet
    # nothing was inflated.
    site.route("/robots.txt", reply(f"Sitemap: {site.url('/s.xml')}\n", content_type="text/plain"))
    site.route("/s.xml", reply(b"<html>" + b"x" * 200_000, status=404, content_type="text/html"))
    (record,) = run(site.url("/"))["sitemaps"]
    assert record["httpStatus"] == 404 and record["compression"] is None


def test_a_refused_sitemap_s_wire_bytes_do_not_depend_on_the_network_s_timing(
    site: Site,
) -> None:
    # Its head was read as the bytes arrived: a page written in pieces gave another wireBytes
    # each run. It is read in blocks of one size, as every whole body is.
    import time

    def route(h: Any) -> None:
        h.send_response(404)
        h.send_header("Content-Type", "text/html")
        h.send_header("Content-Length", str(300_000))
        h.end_headers()
        for _ in range(300):
            h.wfile.write(b"x" * 1000)
            h.wfile.flush()
            time.sleep(0.001)

    site.route("/robots.txt", reply(f"Sitemap: {site.url('/s.xml')}\n", content_type="text/plain"))
    site.route("/s.xml", route)
    (record,) = run(site.url("/"))["sitemaps"]
    assert record["httpStatus"] == 404 and record["bytes"] == 8192
    assert record["wireBytes"] == 65_536
