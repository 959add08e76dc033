"""Slow servers: headers that never end, drips, 1xx floods, tiny chunks, cut at the deadline.

Part of the fault injection of tests/integration/faults (its conftest.py guards the network).
"""

from __future__ import annotations

import time
from http.server import BaseHTTPRequestHandler

import pytest
from support.documents import urlset
from support.faults import (
    FLAT_MEMORY_BYTES,
    FRESH,
    QUICK_DEADLINE_S,
    QUICK_TIMEOUT,
    cost,
    first_sitemap,
    quick_fetcher,
    raw_route,
)

from harness.servers import (
    Site,
    drip,
    reply,
    slow_headers,
)
from sitemap_auditor.audit import probe


def test_slow_headers_on_a_sitemap_are_cut_at_the_deadline(site: Site) -> None:
    site.route("/sitemap.xml", slow_headers(interval=0.2, total_seconds=20))
    with cost() as c:
        selected, issues = first_sitemap(quick_fetcher(site), [site.url("/sitemap.xml")])
    assert selected is None
    assert issues == (f"{site.url('/sitemap.xml')}: {QUICK_TIMEOUT}",)
    assert 1.4 < c.seconds < QUICK_DEADLINE_S + 4


def test_slow_headers_on_robots_are_cut_and_take_no_sitemap(site: Site) -> None:
    site.route("/robots.txt", slow_headers(interval=0.2, total_seconds=20))
    with cost() as c:
        found = probe.robots_txt(quick_fetcher(site), site.url("/robots.txt"))
    assert 1.4 < c.seconds < QUICK_DEADLINE_S + 4
    assert found.read_whole is False
    assert found.sitemaps == ()
    assert len(found.issues) == 1 and found.issues[0].endswith(QUICK_TIMEOUT)


def test_slow_headers_on_robots_leave_no_http_status(site: Site) -> None:
    site.route("/robots.txt", slow_headers(interval=0.2, total_seconds=20))
    found = probe.robots_txt(quick_fetcher(site), site.url("/robots.txt"))
    assert found.status is None
    assert found.issues == (f"{site.url('/robots.txt')}: {QUICK_TIMEOUT}",)


def test_headers_that_stop_without_their_blank_line_time_out(site: Site) -> None:
    # Status line and one header, then silence: the response never finishes its header section.
    site.route(
        "/sitemap.xml",
        raw_route(b"HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\n", hold_open_s=10),
    )
    with cost() as c:
        selected, issues = first_sitemap(quick_fetcher(site), [site.url("/sitemap.xml")])
    assert selected is None
    assert issues == (f"{site.url('/sitemap.xml')}: {QUICK_TIMEOUT}",)
    assert c.seconds < QUICK_DEADLINE_S + 4


def test_a_sitemap_whose_root_never_closes_while_the_server_drips_times_out(site: Site) -> None:
    head = b'<?xml version="1.0"?><urlset><url><lastmod>' + FRESH.encode() + b"</lastmod></url>"
    site.route("/sitemap.xml", drip(head, b"\n", interval=0.1, total_seconds=20))
    with cost() as c:
        selected, issues = first_sitemap(quick_fetcher(site), [site.url("/sitemap.xml")])
    assert selected is None
    assert issues == (f"{site.url('/sitemap.xml')}: {QUICK_TIMEOUT}",)
    assert 1.4 < c.seconds < QUICK_DEADLINE_S + 4


def test_the_deadline_moves_on_to_the_next_candidate(site: Site) -> None:
    site.route("/drip.xml", drip(b"<urlset>", b" ", interval=0.1, total_seconds=20))
    site.route("/ok.xml", reply(urlset([FRESH])))
    with cost() as c:
        selected, issues = first_sitemap(
            quick_fetcher(site), [site.url("/drip.xml"), site.url("/ok.xml")]
        )
    assert selected is not None and selected.url == site.url("/ok.xml")
    assert issues == (f"{site.url('/drip.xml')}: {QUICK_TIMEOUT}",)
    assert c.seconds < QUICK_DEADLINE_S + 4


@pytest.mark.parametrize("interim", [b"100 Continue", b"103 Early Hints"])
def test_an_endless_stream_of_interim_answers_times_out(site: Site, interim: bytes) -> None:
    def route(h: BaseHTTPRequestHandler) -> None:
        end = time.monotonic() + 10
        while time.monotonic() < end:
            h.wfile.write((b"HTTP/1.1 " + interim + b"\r\n\r\n") * 50)
            h.wfile.flush()
            time.sleep(0.01)
        h.close_connection = True

    site.route("/sitemap.xml", route)
    with cost() as c:
        _, issues = first_sitemap(quick_fetcher(site), [site.url("/sitemap.xml")])
    assert issues == (f"{site.url('/sitemap.xml')}: {QUICK_TIMEOUT}",)
    assert c.seconds < QUICK_DEADLINE_S + 4


def test_a_flood_of_one_byte_chunks_is_cut_at_the_deadline(site: Site) -> None:
    def route(h: BaseHTTPRequestHandler) -> None:
        h.wfile.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n<urlset>\r\n")
        end = time.monotonic() + 10
        while time.monotonic() < end:
            h.wfile.write(b"1\r\n \r\n" * 20_000)
        h.close_connection = True

    site.route("/sitemap.xml", route)
    with cost(trace_memory=True) as c:
        _, issues = first_sitemap(quick_fetcher(site), [site.url("/sitemap.xml")])
    assert issues == (f"{site.url('/sitemap.xml')}: {QUICK_TIMEOUT}",)
    assert c.seconds < QUICK_DEADLINE_S + 4
    assert c.peak_bytes < FLAT_MEMORY_BYTES
