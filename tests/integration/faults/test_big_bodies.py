"""Big and endless bodies: the 500 KiB robots.txt cut, the 50 MB cap to the byte, flat memory.

Part of the fault injection of tests/integration/faults (its conftest.py guards the network).
"""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from support.documents import urlset
from support.faults import (
    FLAT_MEMORY_BYTES,
    FRESH,
    cost,
    fallback_404s,
    first_sitemap,
    quick_fetcher,
)
from support.results import AuditFn, codes_of, data_of
from support.rss_audit import audited_apart, linux_only, warm_up_site

from harness.servers import (
    Site,
    endless,
    reply,
    stream,
)
from sitemap_auditor.core.robots import MAX_ROBOTS_BYTES
from sitemap_auditor.fetching.fetch import MAX_BODY_BYTES


def robots_body(total: int, straddle_at: int) -> Iterator[bytes]:
    """A robots.txt of total bytes: a Sitemap line first, one across straddle_at, one at the end."""
    first = b"Sitemap: /first.xml\n"
    straddling = b"Sitemap: /straddling.xml\n"
    last = b"Sitemap: /late.xml\n"
    yield first
    sent = len(first)
    before = straddle_at - 10 - sent  # the straddling line starts 10 bytes before the cut
    yield from padding_lines(before)
    yield straddling
    sent += before + len(straddling)
    yield from padding_lines(total - sent - len(last))
    yield last


def padding_lines(size: int) -> Iterator[bytes]:
    """size bytes of '# ...' comment lines, the last one ending with a newline."""
    line = b"# " + b"p" * 61 + b"\n"
    full, rest = divmod(size, len(line))
    for _ in range(full // 1000):
        yield line * 1000
    yield line * (full % 1000)
    if rest:
        yield b"#" * (rest - 1) + b"\n"


def test_ten_megabyte_robots_is_read_to_500_kib(audit: AuditFn, site: Site) -> None:
    body = list(robots_body(10 * 1024 * 1024, straddle_at=MAX_ROBOTS_BYTES))
    assert sum(map(len, body)) == 10 * 1024 * 1024
    site.route("/robots.txt", stream(iter(body), content_type="text/plain"))
    site.route("/first.xml", reply(urlset([FRESH])))
    with cost(trace_memory=True) as c:
        result = audit(site.url("/"))
    data = data_of(result)
    # The line cut by the 500 KiB cap and every line after it are ignored.
    assert data["candidateSitemaps"] == [site.url("/first.xml")]
    assert data["robotsTxtListsSitemap"] is True
    assert codes_of(result) == ["100", "200"]
    assert data["issues"] == [
        f"{site.url('/robots.txt')}: larger than 512,000 bytes; only that much was read"
    ]
    assert c.seconds < 10
    assert c.peak_bytes < 8 * 1024 * 1024


@pytest.mark.parametrize(
    ("size", "listed"),
    [
        (MAX_ROBOTS_BYTES, ["/first.xml", "/last.xml"]),
        (MAX_ROBOTS_BYTES + 1, ["/first.xml"]),
        # The cut falls right before the last line's break: the line is whole, and Google's
        # parser, given the first 500 KiB, reads it as it is.
        (MAX_ROBOTS_BYTES + 1, ["/first.xml", "/last.xml"]),
    ],
    ids=["exactly-500-KiB", "one-byte-more", "one-byte-more-a-line-break"],
)
def test_robots_at_the_500_kib_boundary(
    audit: AuditFn, site: Site, size: int, listed: list[str]
) -> None:
    # No final newline: the body's very last bytes; or, for the third, its last byte.
    last = b"Sitemap: /last.xml" + (b"\n" if len(listed) == 2 and size > MAX_ROBOTS_BYTES else b"")
    first = b"Sitemap: /first.xml\n"
    body = first + b"".join(padding_lines(size - len(first) - len(last))) + last
    assert len(body) == size
    site.route("/robots.txt", reply(body, content_type="text/plain"))
    site.route("/first.xml", reply(urlset([FRESH])))
    data = data_of(audit(site.url("/")))
    assert data["candidateSitemaps"] == [site.url(p) for p in listed]
    truncated = [i for i in data["issues"] if "only that much was read" in i]
    assert len(truncated) == (size > MAX_ROBOTS_BYTES)


def test_endless_robots_is_cut_at_500_kib(audit: AuditFn, site: Site) -> None:
    site.route("/robots.txt", endless(b"Sitemap: /s.xml\n" * 4096, limit_bytes=200 * 1024 * 1024))
    site.route("/s.xml", reply(urlset([FRESH])))
    with cost(trace_memory=True) as c:
        result = audit(site.url("/"))
    assert codes_of(result) == ["100", "200"]
    assert data_of(result)["candidateSitemaps"] == [site.url("/s.xml")]
    assert c.seconds < 10
    assert c.peak_bytes < 8 * 1024 * 1024


@pytest.mark.parametrize("gzipped", [False, True])
def test_robots_past_500_kib_then_silent_is_read_without_waiting(
    audit: AuditFn, site: Site, gzipped: bool
) -> None:
    # Its first 500 KiB had arrived, and more was promised: the read waited for a 64 KiB block
    # past them, timed out at 30 s, and dropped robots.txt (a FAIL 400 for a listed sitemap).
    body = b"Sitemap: /s.xml\n" + b"#" * MAX_ROBOTS_BYTES
    sent = gzip.compress(body) if gzipped else body
    released = threading.Event()

    def route(h: Any) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/plain")
        h.send_header("Content-Length", str(len(sent) + 100_000))
        if gzipped:
            h.send_header("Content-Encoding", "gzip")
        h.end_headers()
        h.wfile.write(sent)
        h.wfile.flush()
        released.wait(40)
        h.close_connection = True

    site.route("/robots.txt", route)
    site.route("/s.xml", reply(urlset([FRESH])))
    try:
        with cost() as c:
            result = audit(site.url("/"))
    finally:
        released.set()
    assert codes_of(result) == ["100", "200"]
    assert data_of(result)["robotsTxtListsSitemap"] is True
    assert c.seconds < 20  # not the 30 s deadline


SITEMAP_HEAD = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n'
    b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
)


def sitemap_of_exactly(total: int, lastmod: str) -> tuple[int, Iterator[bytes]]:
    """A well-formed <urlset> of exactly total bytes, in pieces of about 64 KB, and its entries."""
    tail = b"</urlset>\n"
    entry = f"<url><loc>https://example.com/page</loc><lastmod>{lastmod}</lastmod></url>\n"
    entry_bytes = entry.encode()
    count, pad = divmod(total - len(SITEMAP_HEAD) - len(tail), len(entry_bytes))

    def pieces() -> Iterator[bytes]:
        yield SITEMAP_HEAD
        batch = 800
        for _ in range(count // batch):
            yield entry_bytes * batch
        yield entry_bytes * (count % batch)
        yield b" " * pad + tail

    return count, pieces()


# The three audits of a 50 MB body run in a process of their own, measured by its resident set
# (support/rss_audit.py): traced here, they would run several times slower, close to the site's
# 30 s per fetch on a loaded machine.


@linux_only
@pytest.mark.slow
def test_a_sitemap_of_exactly_50_mb_is_read(site: Site, other_site: Site) -> None:
    count, body = sitemap_of_exactly(MAX_BODY_BYTES, FRESH)
    site.route("/sitemap.xml", stream(body))
    c = audited_apart(site.url("/"), warm_up_site(other_site))
    data = data_of(c.result)
    assert codes_of(c.result) == ["100", "200"]
    assert data["entryCount"] == count
    assert data["latestLastmod"] == FRESH
    assert c.seconds < 30
    assert c.rss_growth < FLAT_MEMORY_BYTES


@linux_only
@pytest.mark.slow
def test_a_sitemap_of_50_mb_and_one_byte_is_refused(site: Site, other_site: Site) -> None:
    site.route("/sitemap.xml", stream(sitemap_of_exactly(MAX_BODY_BYTES + 1, FRESH)[1]))
    c = audited_apart(site.url("/"), warm_up_site(other_site))
    data = data_of(c.result)
    assert codes_of(c.result) == ["100", "400"]
    assert data["issues"] == [
        f"{site.url('/robots.txt')}: HTTP 404",
        f"{site.url('/sitemap.xml')}: body larger than 52,428,800 bytes",
        *fallback_404s(site)[1:],
    ]
    assert c.seconds < 30
    assert c.rss_growth < FLAT_MEMORY_BYTES


@linux_only
@pytest.mark.slow
def test_an_endless_sitemap_stops_at_the_cap_in_flat_memory(site: Site, other_site: Site) -> None:
    def body() -> Iterator[bytes]:
        yield b"<urlset>"
        entry = b"<url><loc>https://example.com/p</loc><lastmod>2026-01-01</lastmod></url>"
        block = entry * 1000
        while True:
            yield block

    site.route("/sitemap.xml", stream(body()))
    c = audited_apart(site.url("/"), warm_up_site(other_site))
    assert data_of(c.result)["issues"] == [
        f"{site.url('/robots.txt')}: HTTP 404",
        f"{site.url('/sitemap.xml')}: body larger than 52,428,800 bytes",
        *fallback_404s(site)[1:],
    ]
    assert c.seconds < 30
    assert c.rss_growth < FLAT_MEMORY_BYTES


def test_deeply_nested_elements_are_refused_with_flat_memory(site: Site) -> None:
    # expat keeps one stack entry per open element; the parser refuses past 256 levels.
    def body() -> Iterator[bytes]:
        yield b"<urlset><url>"
        for _ in range(46):
            yield b"<a>" * 21_845  # 46 x 64 KB: a million nested elements in 3 MB
        yield b"</url></urlset>"

    site.route("/sitemap.xml", stream(body()))
    with cost(trace_memory=True) as c:
        _, issues = first_sitemap(quick_fetcher(site, deadline_s=30), [site.url("/sitemap.xml")])
    assert issues == (f"{site.url('/sitemap.xml')}: elements nested deeper than 256",)
    assert c.peak_bytes < FLAT_MEMORY_BYTES


def test_one_huge_token_is_refused_with_flat_memory(site: Site) -> None:
    # expat holds a whole token until its end: markup past 1 MiB is refused before that.
    def body() -> Iterator[bytes]:
        yield b"<urlset><u"
        for _ in range(128):
            yield b"x" * 65_536  # an 8 MB element name
        yield b"/></urlset>"

    site.route("/sitemap.xml", stream(body()))
    with cost(trace_memory=True) as c:
        selected, issues = first_sitemap(
            quick_fetcher(site, deadline_s=30), [site.url("/sitemap.xml")]
        )
    assert selected is None
    assert issues == (
        f"{site.url('/sitemap.xml')}: refused XML construct: markup longer than 1,048,576 bytes",
    )
    assert c.peak_bytes < FLAT_MEMORY_BYTES


def test_a_huge_text_node_and_a_huge_lastmod_stay_flat(site: Site) -> None:
    def body() -> Iterator[bytes]:
        yield b"<urlset><url><loc>"
        for _ in range(128):
            yield b"x" * 65_536
        yield b"</loc><lastmod>"
        for _ in range(128):
            yield b"2" * 65_536
        yield b"</lastmod></url></urlset>"

    site.route("/sitemap.xml", stream(body()))
    with cost(trace_memory=True) as c:
        selected, _ = first_sitemap(quick_fetcher(site), [site.url("/sitemap.xml")])
    assert selected is not None and selected.parsed.unparsable_total == 1
    assert c.peak_bytes < FLAT_MEMORY_BYTES
