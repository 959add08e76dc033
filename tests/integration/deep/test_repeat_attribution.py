"""Which file a URL listed in several sitemaps is counted against follows a rule, not the order
the files happen to be read in: the same site gives the same repeats, files, lines and examples
whichever file answers first (seen.Duplicates)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

from support.deep import run

from harness.servers import Site, reply

NEWS_NS = 'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"'


def _urlset(site: Site, paths: list[str], news: bool = False) -> bytes:
    def entry(p: str) -> str:
        extra = (
            "<news:news><news:publication><news:name>N</news:name><news:language>en"
            "</news:language></news:publication><news:publication_date>2026-12-01T10:00:00Z"
            "</news:publication_date><news:title>T</news:title></news:news>"
            if news
            else ""
        )
        return f"<url><loc>{site.url(p)}</loc>{extra}</url>\n"

    head = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
    return (
        head + (" " + NEWS_NS if news else "") + ">\n" + "".join(map(entry, paths)) + "</urlset>\n"
    ).encode()


FILES = {
    # a keeps /x and /y; b repeats /x (line 3) and /y twice; news repeats /x and /z.
    "/a.xml": ["/x", "/y", "/a1"],
    "/b.xml": ["/b1", "/x", "/y", "/y"],
    "/c.xml": ["/z", "/c1"],
    "/news.xml": ["/x", "/z"],
}


def _gated(
    body: bytes, wait_for: threading.Event | None, done: threading.Event
) -> Callable[[BaseHTTPRequestHandler], None]:
    send = reply(body, content_type="application/xml")

    def route(h: BaseHTTPRequestHandler) -> None:
        if wait_for is not None:
            wait_for.wait(10)
        send(h)
        done.set()

    return route


def _serve(site: Site, order: list[str], bodies: dict[str, bytes] | None = None) -> None:
    # Each file answers only once the one before it in `order` has been sent: the files are
    # read in that order, though all are asked for at once (FILES' bodies by default).
    if bodies is None:
        bodies = {p: _urlset(site, FILES[p], news=p == "/news.xml") for p in FILES}
    index = "".join(f"<sitemap><loc>{site.url(p)}</loc></sitemap>" for p in bodies)
    site.routes.clear()
    site.route(
        "/robots.txt",
        reply(
            f"User-agent: *\nDisallow:\nSitemap: {site.url('/index.xml')}\n",
            content_type="text/plain",
        ),
    )
    site.route("/index.xml", reply(
        '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        + index + "</sitemapindex>", content_type="application/xml"))  # fmt: skip
    before: threading.Event | None = None
    for path in order:
        done = threading.Event()
        site.route(path, _gated(bodies[path], before, done))
        before = done


def _repeats(doc: dict[str, Any]) -> list[tuple[str, str, int, list[Any], str]]:
    return [
        (f["kind"], f["sitemap"].rsplit("/", 1)[1], f["count"], f["examples"], f["message"])
        for f in doc["findings"]
        if f["kind"] in ("duplicate-url", "also-in-news-sitemap")
    ]


def test_repeats_are_counted_by_the_rule_whichever_file_is_read_first(site: Site) -> None:
    found = []
    for order in (list(FILES), list(reversed(FILES)), ["/b.xml", "/news.xml", "/a.xml", "/c.xml"]):
        site.routes.clear()
        _serve(site, order)
        doc = run(site.url("/"), concurrency=4)
        found.append(_repeats(doc))
        outside_run = dict(doc)
        outside_run.pop("run")
    assert found[0] == found[1] == found[2]
    by_file = {
        (kind, name): (count, [e["line"] for e in examples])
        for kind, name, count, examples, _ in found[0]
    }
    assert by_file == {
        ("duplicate-url", "b.xml"): (3, [4, 5, 6]),  # /x and /y kept by a.xml, /y again
        ("also-in-news-sitemap", "news.xml"): (2, [3, 4]),
    }


def test_a_file_that_mixes_regular_and_news_entries_is_judged_by_its_first(site: Site) -> None:
    # mixed.xml's first entry is a regular one: it is a regular sitemap, whose repeat of /a is
    # a duplicate, however far it was read when regular.xml's listing of /a came.
    news = _urlset(site, ["/n"], news=True).split(b"<url>", 1)[1].split(b"</urlset>")[0]
    mixed = (
        _urlset(site, ["/a"])
        .replace(b'sitemap/0.9"', b'sitemap/0.9" ' + NEWS_NS.encode(), 1)
        .replace(b"</urlset>", b"<url>" + news + b"</urlset>")
    )
    bodies = {"/regular.xml": _urlset(site, ["/a"]), "/mixed.xml": mixed}
    found = []
    for order in (["/regular.xml", "/mixed.xml"], ["/mixed.xml", "/regular.xml"]):
        _serve(site, order, bodies)
        found.append(_repeats(run(site.url("/"), concurrency=4)))
    assert found[0] == found[1]
    ((kind, name, count, examples, _),) = found[0]
    assert (kind, name, count, examples[0]["line"]) == ("duplicate-url", "mixed.xml", 1, 3)
