"""The tree is the walk's order, not the fetches': a sitemap two indexes list is the child of the
one placed first (breadth first, each index's children in the order it lists them), whichever
index answers first; its repeats, the duplicate-sitemap notice and the order of the sitemaps
follow, so the same site gives the same document every run."""

from __future__ import annotations

from typing import Any

import pytest
from support.deep import run, urlset_of

from harness.servers import Site, late, reply

INDEX = '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'


def _index(site: Site, *paths: str) -> str:
    entries = "".join(f"<sitemap><loc>{site.url(p)}</loc></sitemap>" for p in paths)
    return f"{INDEX}{entries}</sitemapindex>"


def _serve(site: Site, slow: str | None) -> None:
    u = site.url
    robots = "".join(f"Sitemap: {u(p)}\n" for p in ("/first.xml", "/index-a.xml", "/index-b.xml"))
    site.route("/robots.txt", reply(robots, content_type="text/plain"))
    files = {
        "/first.xml": urlset_of([f"<loc>{u('/f')}</loc>"]).decode(),
        "/index-a.xml": _index(site, "/only-a.xml", "/shared.xml"),
        "/index-b.xml": _index(site, "/only-b.xml", "/shared.xml"),
        "/only-a.xml": urlset_of([f"<loc>{u('/a')}</loc>"]).decode(),
        "/only-b.xml": urlset_of([f"<loc>{u('/b')}</loc>"]).decode(),
        "/shared.xml": urlset_of([f"<loc>{u('/s')}</loc>", f"<loc>{u('/b')}</loc>"]).decode(),
    }
    for path, body in files.items():
        site.route(path, late(body, 0.4) if path == slow else reply(body))


def _shape(site: Site, doc: dict[str, Any]) -> tuple[Any, ...]:
    def short(url: str | None) -> str | None:
        return None if url is None else url.removeprefix(site.base)

    sitemaps = tuple((short(s["url"]), short(s["parent"])) for s in doc["sitemaps"])
    findings = tuple(
        (f["kind"], short(f["sitemap"]), f["count"], tuple(e.get("line") for e in f["examples"]))
        for f in doc["findings"]
    )
    return sitemaps, findings


@pytest.mark.parametrize("concurrency", [4, 1])
def test_the_same_tree_and_findings_whichever_index_answers_first(
    site: Site, concurrency: int
) -> None:
    shapes = []
    for slow in ("/index-a.xml", "/index-b.xml", "/first.xml", None):
        _serve(site, slow)
        shapes.append(_shape(site, run(site.url("/"), concurrency=concurrency)))
    assert all(s == shapes[0] for s in shapes[1:])
    sitemaps, findings = shapes[0]
    assert sitemaps == (
        ("/first.xml", None),
        ("/index-a.xml", None),
        ("/index-b.xml", None),
        ("/only-a.xml", "/index-a.xml"),
        ("/shared.xml", "/index-a.xml"),
        ("/only-b.xml", "/index-b.xml"),
    )
    by_kind = {kind: (sitemap, count) for kind, sitemap, count, _ in findings}
    assert by_kind["duplicate-sitemap"] == ("/index-b.xml", 1)
    # /b is listed by shared.xml (under index-a) and by only-b.xml (under index-b): the walk's
    # order keeps shared.xml's listing.
    assert by_kind["duplicate-url"] == ("/only-b.xml", 1)
