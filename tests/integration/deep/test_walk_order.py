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


def test_an_index_s_children_are_read_while_a_file_placed_before_it_has_not_answered(
    site: Site,
) -> None:
    # They waited for it: a first file 8 s to its first byte made a walk of 16 s out of 10.
    # They are read ahead, kept, and recorded in the walk's order once it answers: each is
    # asked for once, and the document is the one of a walk with no slow file.
    import threading

    answered = threading.Event()
    seen_before: list[str] = []
    first_waited: list[bool] = []
    u = site.url
    # The verdict selects the first, an index: the walk is the first to ask for the others.
    paths = ("/first.xml", "/slow.xml", "/index.xml")
    lines = "".join(f"Sitemap: {u(p)}\n" for p in paths)
    site.route("/robots.txt", reply(lines, content_type="text/plain"))
    site.route("/first.xml", reply(_index(site, "/f.xml")))
    site.route("/f.xml", reply(urlset_of([f"<loc>{u('/f')}</loc>"])))
    slow_body = urlset_of([f"<loc>{u('/s')}</loc>"])

    def slow(h: Any) -> None:
        # Until every child was asked for (or a second at most): whether they were.
        first_waited.append(answered.wait(1.0))
        reply(slow_body)(h)

    site.route("/slow.xml", slow)
    site.route("/index.xml", reply(_index(site, "/c1.xml", "/c2.xml", "/c3.xml")))
    for n in (1, 2, 3):
        body = urlset_of([f"<loc>{u(f'/p{n}')}</loc>"])

        def child(h: Any, body: bytes = body, n: int = n) -> None:
            seen_before.append(f"/c{n}.xml")
            if len(seen_before) == 3:
                answered.set()
            reply(body)(h)

        site.route(f"/c{n}.xml", child)
    doc = run(site.url("/"), concurrency=4)
    assert first_waited == [True]  # the three were asked for before the first answered
    assert [s.path for s in site.seen].count("/c2.xml") == 1
    assert [(s["url"].removeprefix(site.base), s["type"]) for s in doc["sitemaps"]] == [
        ("/first.xml", "sitemapindex"),
        ("/slow.xml", "urlset"),
        ("/index.xml", "sitemapindex"),
        ("/f.xml", "urlset"),
        ("/c1.xml", "urlset"),
        ("/c2.xml", "urlset"),
        ("/c3.xml", "urlset"),
    ]
    assert doc["totals"]["urls"] == 5
