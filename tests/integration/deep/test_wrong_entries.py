"""A file of the wrong root for its entries (`<url>` entries in a `<sitemapindex>`, `<sitemap>`
ones in a `<urlset>`) lists nothing a search engine takes: its `empty-sitemap` says what it holds
instead, where a file that is merely empty keeps the plain sentence."""

from __future__ import annotations

from support.deep import kinds_of, run, serve_listed

from harness.servers import Site

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def test_an_index_of_url_entries_says_so(site: Site) -> None:
    body = (
        f'<?xml version="1.0"?><sitemapindex xmlns="{NS}">'
        f"<url><loc>{site.url('/a')}</loc></url><url><loc>{site.url('/b')}</loc></url>"
        "</sitemapindex>"
    )
    serve_listed(site, {"/s.xml": body.encode()})
    found = kinds_of(run(site.url("/")))["empty-sitemap"]
    assert found["message"] == (
        "The sitemap lists no URL: it holds 2 <url> entries, which a <sitemapindex> does not "
        "take (it lists <sitemap> entries; <url> entries belong in a <urlset>)."
    )


def test_a_urlset_of_sitemap_entries_says_so(site: Site) -> None:
    body = (
        f'<?xml version="1.0"?><urlset xmlns="{NS}">'
        f"<sitemap><loc>{site.url('/c.xml')}</loc></sitemap></urlset>"
    )
    serve_listed(site, {"/s.xml": body.encode()})
    found = kinds_of(run(site.url("/")))["empty-sitemap"]
    assert "it holds 1 <sitemap> entry, which a <urlset> does not take" in found["message"]


def test_an_empty_file_keeps_the_plain_sentence(site: Site) -> None:
    serve_listed(site, {"/s.xml": f'<?xml version="1.0"?><urlset xmlns="{NS}"></urlset>'.encode()})
    assert kinds_of(run(site.url("/")))["empty-sitemap"]["message"] == "The sitemap lists no URL."
