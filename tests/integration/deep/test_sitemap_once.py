"""Each sitemap is read once, whatever spelling of its URL an index or robots.txt lists it under
(docs/deep.md, `duplicate-sitemap`): a real server counts the fetches."""

from __future__ import annotations

import random

from support.deep import SITEMAPS_NS, kinds_of, run, urlset_of

from harness.servers import Site, reply


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
    # Once by the walk, and once by the Lambda's own audit of the URL (the verdict).
    assert site.paths().count("/s.xml") == 2
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
