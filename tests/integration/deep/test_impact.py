"""Findings in the order of their impact, from real files: a file search engines cannot read,
then URLs lost, then the rest; and the same order on every run, whatever the fetch order."""

from __future__ import annotations

from support.deep import corpus_file, kinds_of, run, serve_listed

from harness.servers import Site
from sitemap_auditor.deep.reports import html_report, text_report

HTML = "html-staatic-page-as-wp-sitemap-3tav.xml"
BROKEN = "urlset-video-bare-ampersand-1511-thefurnaceoutlet.xml"
DATES = "urlset-single-digit-month-sandrolinux.xml"


def _serve(site: Site) -> None:
    serve_listed(
        site,
        {
            "/dates.xml": corpus_file(DATES),
            "/page.xml": corpus_file(HTML),
            "/broken.xml": corpus_file(BROKEN),
        },
    )
    # robots.txt lists the three, the dates first.
    lines = "".join(f"Sitemap: {site.url(p)}\n" for p in ("/dates.xml", "/page.xml", "/broken.xml"))
    site.routes.pop("/robots.txt")
    from harness.servers import reply

    site.route("/robots.txt", reply(lines, content_type="text/plain"))


def test_unreadable_files_come_before_more_numerous_date_errors(site: Site) -> None:
    _serve(site)
    doc = run(site.url("/"))
    found = kinds_of(doc)
    assert found["invalid-date"]["count"] > 1  # more numerous than each file-level error
    kinds = [f["kind"] for f in doc["findings"]]
    assert kinds.index("sitemap-is-html") < kinds.index("invalid-date")
    assert kinds.index("invalid-xml") < kinds.index("invalid-date")
    assert doc["findings"][0]["impact"] == "file-unread"
    page = html_report.render(doc)
    worst = page.split('class="worst">Worst finding: ', 1)[1][:300]
    assert "Sitemap is HTML" in worst or "Invalid XML" in worst, worst
    text = text_report.render(doc, False)
    assert text.index("(sitemap-is-html)") < text.index("(invalid-date)")


def test_the_same_site_gives_the_same_findings_in_the_same_order(site: Site) -> None:
    _serve(site)
    runs = [run(site.url("/"), concurrency=c) for c in (1, 4, 4, 2)]
    first = [(f["kind"], f["sitemap"], f["count"], f["examples"]) for f in runs[0]["findings"]]
    for doc in runs[1:]:
        assert [
            (f["kind"], f["sitemap"], f["count"], f["examples"]) for f in doc["findings"]
        ] == first


def test_two_documents_of_an_unchanged_site_are_equal_outside_the_run_block(site: Site) -> None:
    _serve(site)
    first, second = run(site.url("/")), run(site.url("/"))
    assert first["run"]["startedAt"] and set(first["run"]["sitemapSeconds"]) == {
        s["url"] for s in first["sitemaps"]
    }
    first.pop("run")
    second.pop("run")
    assert first == second


def test_what_an_index_says_of_its_entries_affects_none_of_the_sites_urls(site: Site) -> None:
    # Three relative child locs in an index were "3 URLs, 100 % of the site's", for a site of
    # one listed page with no problem: an index's entries are sitemaps, not the site's URLs.
    from support.deep import SITEMAPS_NS, urlset_of

    from harness.servers import reply

    children = "".join(f"<sitemap><loc>child-{n}.xml</loc></sitemap>" for n in range(3))
    good = f"<sitemap><loc>{site.url('/good.xml')}</loc></sitemap>"
    index = f'<sitemapindex xmlns="{SITEMAPS_NS}">{children}{good}</sitemapindex>'
    site.route("/robots.txt", reply(f"Sitemap: {site.url('/index.xml')}\n"))
    site.route("/index.xml", reply(index))
    site.route("/good.xml", reply(urlset_of([f"<loc>{site.url('/a')}</loc>"])))
    doc = run(site.url("/"))
    found = kinds_of(doc)
    assert found["invalid-url"]["count"] == 3 and doc["totals"]["urls"] == 1
    assert found["invalid-url"]["urls"] is None and found["invalid-url"]["share"] is None
    assert "100 %" not in text_report.render(doc, False)
