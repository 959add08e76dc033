"""The tree says what is true of each file: a usual path tried where there was no sitemap is a
probe, not a sitemap; a feed has no entry count; a file whose dates are all invalid does not say
it has none."""

from __future__ import annotations

from support.deep import corpus_file, run

from harness.servers import Site, reply
from sitemap_auditor.deep.reports import html_report, text_report

ATOM = "other-atom-feed-jekyll-0k.xml"


def test_a_usual_path_that_is_not_there_is_a_probe_not_a_sitemap(site: Site) -> None:
    # robots.txt lists no sitemap: the usual paths are tried; one answers, two are 404.
    site.route("/robots.txt", reply("User-agent: *\nDisallow:\n", content_type="text/plain"))
    site.route(
        "/sitemap_index.xml",
        reply(
            '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            f"<url><loc>{site.url('/a')}</loc><lastmod>2026-13-01</lastmod></url>"
            f"<url><loc>{site.url('/b')}</loc><lastmod>yesterday</lastmod></url></urlset>"
        ),
    )
    doc = run(site.url("/"))
    # The document keeps every fetch it made, with what it answered.
    assert {s["url"].removeprefix(site.base): s["httpStatus"] for s in doc["sitemaps"]} == {
        "/sitemap.xml": 404,
        "/sitemap_index.xml": 200,
        "/sitemap/sitemap.xml": 404,
    }
    (found,) = [s for s in doc["sitemaps"] if s["httpStatus"] == 200]
    assert found["lastmod"]["count"] == 0 and found["lastmod"]["invalid"] == 2
    text = text_report.render(doc)
    assert "read 1 sitemap of 1 found" in text
    tree = text.split("Sitemaps\n", 1)[1].split("\n\n", 1)[0]
    assert site.url("/sitemap_index.xml") in tree
    assert f"{site.url('/sitemap.xml')}  <" not in tree  # not a node of the tree
    assert "also tried, no sitemap there: " in tree and "(HTTP 404)" in tree
    page = html_report.render(doc)
    assert page.count('class="node') == 1
    assert "Also tried, with no sitemap there:" in page
    assert '<span class="n">1</span> sitemap</li>' in page
    # Both of its dates are invalid: it does not claim to have none.
    assert "no entry has a <code>&lt;lastmod&gt;</code>" not in page
    assert "no valid <code>&lt;lastmod&gt;</code>: 2 are not a date" in page


def test_a_feed_is_not_a_file_of_zero_entries(site: Site) -> None:
    site.route(
        "/robots.txt",
        reply(f"Sitemap: {site.url('/feed.xml')}\n", content_type="text/plain"),
    )
    site.route("/feed.xml", reply(corpus_file(ATOM), content_type="application/atom+xml"))
    doc = run(site.url("/"))
    (feed,) = doc["sitemaps"]
    assert feed["type"] == "atom" and feed["entries"] is None  # no entry count for a feed
    page = html_report.render(doc)
    assert "0 entries" not in page
    assert "a feed: its items are not read as entries" in page
    assert "0 entries" not in text_report.render(doc)


def test_a_news_sitemap_with_bad_publication_dates_and_no_lastmod_says_it_has_none(
    site: Site,
) -> None:
    # Its invalid dates are <news:publication_date>s, not <lastmod>s.
    news = (
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">'
        f"<url><loc>{site.url('/n')}</loc><news:news><news:publication><news:name>N</news:name>"
        "<news:language>en</news:language></news:publication><news:publication_date>soon"
        "</news:publication_date><news:title>T</news:title></news:news></url></urlset>"
    )
    site.route("/robots.txt", reply(f"Sitemap: {site.url('/news.xml')}\n"))
    site.route("/news.xml", reply(news))
    doc = run(site.url("/"))
    assert "invalid-date" in {f["kind"] for f in doc["findings"]}
    assert doc["sitemaps"][0]["lastmod"]["invalid"] == 0
    page = html_report.render(doc)
    assert "no entry has a <code>&lt;lastmod&gt;</code>" in page
    assert "no valid <code>&lt;lastmod&gt;</code>" not in page
