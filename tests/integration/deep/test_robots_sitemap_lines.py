"""`robots-sitemap-invalid`: a `Sitemap:` line whose value is no URL a crawler can fetch is
named, with its line and why, where it was left out unsaid; a relative value is read against
robots.txt's URL, as Google reads it, and is no finding."""

from __future__ import annotations

from support.deep import kinds_of, run, urlset_of

from harness.servers import Site, reply


def test_a_sitemap_line_that_is_no_url_is_named(site: Site) -> None:
    robots = (
        "User-agent: *\nDisallow:\n"
        f"Sitemap: {site.url('/s.xml')}\n"  # line 3
        "Sitemap: javascript:alert(3)\n"  # 4
        "Sitemap: ftp://files.example/s.xml\n"  # 5
        "Sitemap: /relative.xml\n"  # 6: read against robots.txt's URL
        "Sitemap: http://\n"  # 7
    )
    site.route("/robots.txt", reply(robots, content_type="text/plain"))
    site.route("/s.xml", reply(urlset_of([f"<loc>{site.url('/a')}</loc>"])))
    site.route("/relative.xml", reply(urlset_of([f"<loc>{site.url('/b')}</loc>"])))
    doc = run(site.url("/"))
    found = kinds_of(doc)["robots-sitemap-invalid"]
    assert found["sitemap"] is None and found["count"] == 3
    assert [(e["line"], e["value"]) for e in found["examples"]] == [
        (4, "javascript:alert(3)"),
        (5, "ftp://files.example/s.xml"),
        (7, "http://"),
    ]
    assert {s["url"] for s in doc["sitemaps"]} == {site.url("/s.xml"), site.url("/relative.xml")}


def test_usable_lines_give_no_finding(site: Site) -> None:
    robots = f"Sitemap: {site.url('/s.xml')}\nSitemap: /s.xml\n"
    site.route("/robots.txt", reply(robots, content_type="text/plain"))
    site.route("/s.xml", reply(urlset_of([f"<loc>{site.url('/a')}</loc>"])))
    assert "robots-sitemap-invalid" not in kinds_of(run(site.url("/")))
