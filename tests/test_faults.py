"""Fault injection: what a broken or hostile site serves, through the real handler and fetcher.

Each case asserts what docs/contract.md implies (the issue strings, the CheckCodes, the status),
that the answer came back within its deadline (elapsed time, generous bounds) and, for big
bodies, that memory stayed bounded (tracemalloc peak). Where the 30 s deadline would make a
case slow, it runs through a Fetcher with a 1.5 s deadline and the probe functions the handler
calls.

No test here sends a byte off loopback: an autouse guard refuses (and records) every connection to
an address other than 127.0.0.1 and every look-up of a host name through the system's resolver,
and the network-safety matrix asserts that nothing was even attempted.
"""

from __future__ import annotations

import base64
import errno
import gzip
import ipaddress
import json
import random
import socket
import time
import tracemalloc
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from conftest import AuditFn, LogCapture, codes_of, data_of, days_ago
from servers import (
    Route,
    Site,
    drip,
    endless,
    gz,
    raw,
    redirect,
    reply,
    reset_after,
    robots_with,
    send,
    sitemapindex,
    slow_headers,
    stream,
    urlset,
)

import sitemap_auditor.netguard as ng
from sitemap_auditor import probe
from sitemap_auditor.config import Settings
from sitemap_auditor.credentials import Credentials
from sitemap_auditor.decoding import peel_gzip
from sitemap_auditor.errors import FetchError
from sitemap_auditor.facts import NO_VALIDATORS, RobotsProbe, SelectedSitemap, SiteFacts
from sitemap_auditor.fetch import MAX_BODY_BYTES, Fetcher, FetchPolicy
from sitemap_auditor.robots import MAX_ROBOTS_BYTES

PRODUCTION = Settings(max_age_days=7, allow_private_networks=False, share_seconds=0)
FRESH = days_ago(1)
# Elapsed-time bounds are generous (the suite runs beside others on two cores): what they catch is
# a fetch that ignored its deadline, which would take 30 s or forever.
QUICK_DEADLINE_S = 1.5
QUICK_TIMEOUT = "fetch error (timeout: no complete answer within 1.5 s)"
FALLBACKS = ("/sitemap.xml", "/sitemap_index.xml", "/sitemap/sitemap.xml")
# A streaming parse of a 50 MB sitemap peaks well under 1 MB of Python allocations; 16 MB leaves
# room for the interpreter and the test's own servers while still catching a held body.
FLAT_MEMORY_BYTES = 16 * 1024 * 1024


# --- measuring, guarding ------------------------------------------------------------------------


@dataclass
class Cost:
    """What a block of code cost: wall time and, when traced, the peak of Python allocations."""

    seconds: float = 0.0
    peak_bytes: int = 0


@contextmanager
def cost(trace_memory: bool = False) -> Iterator[Cost]:
    """Measure the elapsed time of the block and, when asked, how far traced memory rose in it."""
    measured = Cost()
    was_tracing = tracemalloc.is_tracing()  # e.g. python -X tracemalloc: leave it running
    before = 0
    if trace_memory:
        if not was_tracing:
            tracemalloc.start()
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
    start = time.monotonic()
    try:
        yield measured
    finally:
        measured.seconds = time.monotonic() - start
        if trace_memory:
            measured.peak_bytes = tracemalloc.get_traced_memory()[1] - before
            if not was_tracing:
                tracemalloc.stop()


@dataclass
class Outbound:
    """Every connection the process tried to open during a test."""

    allowed: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


@pytest.fixture(autouse=True)
def outbound(monkeypatch: pytest.MonkeyPatch) -> Outbound:
    """Refuse (and record) any connection to an address other than 127.0.0.1, the test servers',
    and any look-up of a host name through the system's resolver."""
    record = Outbound()
    original = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> None:
        host = str(address[0]) if isinstance(address, tuple) else str(address)
        if host == "127.0.0.1":
            record.allowed.append(host)
            original(self, address)
            return
        record.refused.append(host)
        raise ConnectionRefusedError(errno.ECONNREFUSED, f"test guard: no traffic to {host}")

    original_getaddrinfo = socket.getaddrinfo

    def no_dns(host: Any, *args: Any, **kwargs: Any) -> Any:
        # Literal addresses need no look-up; a name would send a query to the system's resolver.
        if host is None or ng.parse_ip_literal(str(host)) is not None:
            return original_getaddrinfo(host, *args, **kwargs)
        record.refused.append(f"dns:{host}")
        raise socket.gaierror(socket.EAI_NONAME, f"test guard: no look-up of {host}")

    monkeypatch.setattr(socket.socket, "connect", guarded)
    monkeypatch.setattr(socket, "getaddrinfo", no_dns)
    return record


def quick_fetcher(site: Site, deadline_s: float = QUICK_DEADLINE_S) -> Fetcher:
    """The handler's fetcher for site, on loopback, with a short deadline."""
    return Fetcher(
        FetchPolicy(
            origin=("http", "127.0.0.1", site.port),
            allow_private_networks=True,
            deadline_s=deadline_s,
        )
    )


NO_ROBOTS = RobotsProbe(None, False, (), (), ())


def first_sitemap(
    fetcher: Fetcher, urls: Sequence[str]
) -> tuple[SelectedSitemap | None, tuple[str, ...]]:
    """The candidate that parsed, if any, and why the others were not accepted."""
    facts = SiteFacts(NO_ROBOTS, tuple(urls), probe.first_sitemap(fetcher, urls))
    return facts.selected, facts.candidate_issues


def fallback_404s(site: Site) -> list[str]:
    return [f"{site.url(p)}: HTTP 404" for p in FALLBACKS]


def raw_route(data: bytes, hold_open_s: float = 0.0) -> Route:
    """Like servers.raw, optionally keeping the connection open (silent) after the bytes."""

    def route(h: BaseHTTPRequestHandler) -> None:
        h.wfile.write(data)
        h.wfile.flush()
        time.sleep(hold_open_s)
        h.close_connection = True

    return route


# --- slow servers: headers, drips, 1xx floods, tiny chunks --------------------------------------


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


def test_an_endless_stream_of_100_continue_times_out(site: Site) -> None:
    def route(h: BaseHTTPRequestHandler) -> None:
        end = time.monotonic() + 10
        while time.monotonic() < end:
            h.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n" * 50)
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


# --- bodies cut short, lengths that lie, broken framing -----------------------------------------


def test_reset_mid_body_refuses_even_a_complete_document(audit: AuditFn, site: Site) -> None:
    # The whole <urlset> arrived before the reset; the body did not, so it is not accepted.
    site.route("/sitemap.xml", reset_after(urlset([FRESH]), content_length=100_000))
    with cost() as c:
        result = audit(site.url("/"))
    assert codes_of(result) == ["100", "400"]
    assert data_of(result)["issues"][1] == (
        f"{site.url('/sitemap.xml')}: fetch error (connection reset)"
    )
    assert c.seconds < 10


def test_robots_reset_mid_body_counts_as_not_served(audit: AuditFn, site: Site) -> None:
    site.route("/robots.txt", reset_after(b"Sitemap: /listed.xml\n", content_length=50_000))
    site.route("/sitemap.xml", reply(urlset([FRESH])))
    result = audit(site.url("/"))
    data = data_of(result)
    # Its status is kept; no Sitemap: line is taken and no 302 fires.
    assert codes_of(result) == ["100", "200"]
    assert data["robotsTxtHttpStatus"] == 200
    assert data["robotsTxtListsSitemap"] is False
    assert data["candidateSitemaps"] == [site.url(p) for p in FALLBACKS]
    assert data["issues"] == [
        f"{site.url('/robots.txt')}: HTTP 200 but the body could not be read whole: "
        "fetch error (connection reset)"
    ]


def test_content_length_longer_than_the_body(audit: AuditFn, site: Site) -> None:
    body = urlset([FRESH])
    head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body) + 1000}\r\nConnection: close\r\n\r\n"
    site.route("/sitemap.xml", raw(head.encode() + body))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "400"]
    assert (
        data_of(result)["issues"][1] == f"{site.url('/sitemap.xml')}: fetch error (incomplete body)"
    )


def test_content_length_longer_than_the_body_on_a_held_connection_times_out(site: Site) -> None:
    body = urlset([FRESH])
    head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body) + 1000}\r\n\r\n"
    site.route("/sitemap.xml", raw_route(head.encode() + body, hold_open_s=10))
    with cost() as c:
        _, issues = first_sitemap(quick_fetcher(site), [site.url("/sitemap.xml")])
    assert issues == (f"{site.url('/sitemap.xml')}: {QUICK_TIMEOUT}",)
    assert 1.4 < c.seconds < QUICK_DEADLINE_S + 4


def test_content_length_shorter_than_the_body_cuts_the_document(audit: AuditFn, site: Site) -> None:
    body = b'<?xml version="1.0"?>\n<urlset><url><lastmod>2026-01-01</lastmod></url></urlset>'
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 40\r\nConnection: close\r\n\r\n"
    site.route("/sitemap.xml", raw(head + body))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "400"]
    # 40 bytes end inside "<lastmod>": the unclosed token starts on line 2, column 13.
    assert data_of(result)["issues"][1] == (
        f"{site.url('/sitemap.xml')}: not well-formed XML at line 2, column 13: unclosed token"
    )


def test_content_length_shorter_than_the_body_never_reads_what_follows(
    audit: AuditFn, site: Site
) -> None:
    # What comes after the announced length (here a second, bogus answer) is never looked at.
    body = urlset([FRESH])
    smuggled = b"HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n<rss/>\n"
    head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n".encode()
    site.route("/sitemap.xml", raw(head + body + smuggled))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "200"]
    assert data_of(result)["entryCount"] == 1


def test_robots_content_length_shorter_hides_the_later_sitemap_lines(
    audit: AuditFn, site: Site
) -> None:
    text = b"Sitemap: /first.xml\nSitemap: /hidden.xml\n"
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 20\r\n\r\n"
    site.route("/robots.txt", raw(head + text))
    site.route("/first.xml", reply(urlset([FRESH])))
    result = audit(site.url("/"))
    assert data_of(result)["candidateSitemaps"] == [site.url("/first.xml")]
    assert codes_of(result) == ["100", "200"]


@pytest.mark.parametrize(
    ("framing", "kind"),
    [
        # not a hexadecimal chunk size
        (b"5\r\n<urls\r\nZZ\r\nnope", "incomplete body"),
        # a chunk longer than its size, then the connection closes
        (b"8\r\n<urlset/>\r\n", "incomplete body"),
        # chunks that never end with the zero-size chunk before the connection closes
        (b"9\r\n<urlset/>\r\n", "protocol: ProtocolError"),
        # a size larger than anything that follows
        (b"ffffffffffffffffffff\r\n<urlset/>", "incomplete body"),
        # a chunk-size line longer than any reader keeps
        (b"9;" + b"x" * 70_000 + b"\r\n<urlset/>\r\n0\r\n\r\n", "protocol: ProtocolError"),
    ],
)
def test_broken_chunked_encoding(audit: AuditFn, site: Site, framing: bytes, kind: str) -> None:
    site.route(
        "/sitemap.xml",
        raw(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + framing
        ),
    )
    with cost() as c:
        result = audit(site.url("/"))
    assert codes_of(result) == ["100", "400"]
    assert data_of(result)["issues"][1] == f"{site.url('/sitemap.xml')}: fetch error ({kind})"
    assert c.seconds < 10


@pytest.mark.parametrize(
    "head",
    [
        b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-H%d: a\r\n" % i for i in range(200)) + b"\r\n",
        b"HTTP/1.1 200 OK\r\nX-Long: " + b"a" * 70_000 + b"\r\n\r\n",
    ],
    ids=["200-headers", "70-kB-header-line"],
)
def test_header_floods_are_a_protocol_error(audit: AuditFn, site: Site, head: bytes) -> None:
    site.route("/sitemap.xml", raw(head + urlset([FRESH])))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "400"]
    assert data_of(result)["issues"][1] == (
        f"{site.url('/sitemap.xml')}: fetch error (protocol: ProtocolError)"
    )


def test_a_huge_content_type_keeps_the_result_small(audit: AuditFn, site: Site) -> None:
    content_type = "application/xml; x=" + "y" * 60_000
    site.route("/sitemap.xml", reply(urlset([FRESH]), content_type=content_type))
    result = audit(site.url("/"))
    assert data_of(result)["contentType"] == content_type  # as sent, docs/contract.md §3
    assert len(json.dumps(result)) < 1_000_000


# --- compression --------------------------------------------------------------------------------


def test_truncated_gzip_sitemap(audit: AuditFn, site: Site) -> None:
    data = gz(urlset([FRESH] * 200))
    site.route("/sitemap.xml", reply(data[: len(data) // 2], content_type="application/gzip"))
    site.route("/sitemap_index.xml", reply(data[:-4], headers={"Content-Encoding": "gzip"}))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "400"]
    assert data_of(result)["issues"][1:3] == [
        f"{site.url('/sitemap.xml')}: fetch error (truncated compressed data)",
        f"{site.url('/sitemap_index.xml')}: fetch error (truncated compressed data)",
    ]


def test_truncated_gzip_robots_counts_as_not_served(audit: AuditFn, site: Site) -> None:
    data = gz(b"Sitemap: /listed.xml\n" * 50)
    site.route("/robots.txt", reply(data[: len(data) // 2], content_type="text/plain"))
    result = audit(site.url("/"))
    data_map = data_of(result)
    assert data_map["robotsTxtHttpStatus"] == 200
    assert data_map["robotsTxtListsSitemap"] is False
    assert codes_of(result) == ["100", "400"]  # no 302: robots.txt was not read whole
    assert data_map["issues"][0] == (
        f"{site.url('/robots.txt')}: HTTP 200 but the body could not be read whole: "
        "fetch error (truncated compressed data)"
    )


def test_gzip_layers_three_are_peeled_a_fourth_is_refused(audit: AuditFn, site: Site) -> None:
    doc = urlset([FRESH])
    site.route("/robots.txt", robots_with("Sitemap: /four.xml", "Sitemap: /three.xml"))
    site.route("/four.xml", reply(gz(gz(gz(gz(doc))))))
    site.route("/three.xml", reply(gz(gz(gz(doc)))))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "200"]
    assert data_of(result)["selectedSitemapUrl"] == site.url("/three.xml")
    assert data_of(result)["issues"] == [
        f"{site.url('/four.xml')}: fetch error (bad compressed data: too many gzip layers)"
    ]


def test_garbage_behind_gzip_magic_bytes(audit: AuditFn, site: Site) -> None:
    site.route("/sitemap.xml", reply(b"\x1f\x8b" + random.Random(7).randbytes(4096)))
    result = audit(site.url("/"))
    assert data_of(result)["issues"][1] == (
        f"{site.url('/sitemap.xml')}: fetch error (bad compressed data)"
    )


def test_a_multi_member_gzip_is_read_whole(audit: AuditFn, site: Site) -> None:
    doc = urlset([FRESH] * 3)
    cut = doc.index(b"<url>")
    site.route("/sitemap.xml", reply(gz(doc[:cut]) + gz(doc[cut:])))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "200"]
    assert data_of(result)["entryCount"] == 3


def gzip_member_of_exactly(size: int, payload: bytes) -> bytes:
    """A stored (level 0) gzip member of exactly size bytes: payload, then an XML comment."""
    pad = size - 100
    for _ in range(10):
        member = gzip.compress(payload + b"<!--" + b"x" * pad + b"-->", compresslevel=0, mtime=0)
        if len(member) == size:
            return member
        pad += size - len(member)
    raise AssertionError(f"no stored gzip member of exactly {size} bytes")


def test_a_multi_member_gzip_whose_member_ends_on_a_read_boundary(
    audit: AuditFn, site: Site
) -> None:
    doc = urlset([FRESH] * 3)
    cut = doc.index(b"<url>")
    first = gzip_member_of_exactly(64 * 1024, doc[:cut])
    site.route("/sitemap.xml", reply(first + gz(doc[cut:])))
    result = audit(site.url("/"))
    assert data_of(result)["issues"] == [f"{site.url('/robots.txt')}: HTTP 404"]
    assert codes_of(result) == ["100", "200"]


def test_gzip_cap_applies_after_decompression_to_the_byte() -> None:
    def inflated_size(size: int) -> tuple[int, str | None]:
        c = zlib.compressobj(1, zlib.DEFLATED, 31)
        block = b" " * (1 << 20)
        parts = [c.compress(block) for _ in range(size >> 20)]
        parts += [c.compress(b" " * (size & ((1 << 20) - 1))), c.flush()]
        total = 0
        try:
            for chunk in peel_gzip(parts, layers=3):
                total += len(chunk)
        except FetchError as e:
            return total, e.describe()
        return total, None

    with cost(trace_memory=True) as c:
        assert inflated_size(MAX_BODY_BYTES) == (MAX_BODY_BYTES, None)
        total, why = inflated_size(MAX_BODY_BYTES + 1)
    assert total <= MAX_BODY_BYTES
    assert why == "body larger than 52,428,800 bytes once decompressed"
    assert c.peak_bytes < FLAT_MEMORY_BYTES


@pytest.mark.parametrize("path", ["/robots.txt", "/sitemap.xml"])
def test_thousands_of_stacked_content_codings(audit: AuditFn, site: Site, path: str) -> None:
    codings = ", ".join(["gzip"] * 3000)
    site.route(path, reply(b"Sitemap: /s.xml\n", headers={"Content-Encoding": codings}))
    result = audit(site.url("/"))
    assert result["status"] == "FAIL"
    assert result["checks"] is not None
    assert any(i.startswith(site.url(path)) for i in data_of(result)["issues"])


# --- big and endless bodies ---------------------------------------------------------------------


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
    ],
    ids=["exactly-500-KiB", "one-byte-more"],
)
def test_robots_at_the_500_kib_boundary(
    audit: AuditFn, site: Site, size: int, listed: list[str]
) -> None:
    last = b"Sitemap: /last.xml"  # no final newline: the body's very last bytes
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


@pytest.mark.slow
def test_a_sitemap_of_exactly_50_mb_is_read(audit: AuditFn, site: Site) -> None:
    count, body = sitemap_of_exactly(MAX_BODY_BYTES, FRESH)
    site.route("/sitemap.xml", stream(body))
    with cost(trace_memory=True) as c:
        result = audit(site.url("/"))
    data = data_of(result)
    assert codes_of(result) == ["100", "200"]
    assert data["entryCount"] == count
    assert data["latestLastmod"] == FRESH
    assert c.seconds < 30
    assert c.peak_bytes < FLAT_MEMORY_BYTES


@pytest.mark.slow
def test_a_sitemap_of_50_mb_and_one_byte_is_refused(audit: AuditFn, site: Site) -> None:
    site.route("/sitemap.xml", stream(sitemap_of_exactly(MAX_BODY_BYTES + 1, FRESH)[1]))
    with cost(trace_memory=True) as c:
        result = audit(site.url("/"))
    data = data_of(result)
    assert codes_of(result) == ["100", "400"]
    assert data["issues"] == [
        f"{site.url('/robots.txt')}: HTTP 404",
        f"{site.url('/sitemap.xml')}: body larger than 52,428,800 bytes",
        *fallback_404s(site)[1:],
    ]
    assert c.seconds < 30
    assert c.peak_bytes < FLAT_MEMORY_BYTES


@pytest.mark.slow
def test_an_endless_sitemap_stops_at_the_cap_in_flat_memory(site: Site) -> None:
    def body() -> Iterator[bytes]:
        yield b"<urlset>"
        entry = b"<url><loc>https://example.com/p</loc><lastmod>2026-01-01</lastmod></url>"
        block = entry * 1000
        while True:
            yield block

    site.route("/sitemap.xml", stream(body()))
    with cost(trace_memory=True) as c:
        _, issues = first_sitemap(quick_fetcher(site, deadline_s=30), [site.url("/sitemap.xml")])
    assert issues == (f"{site.url('/sitemap.xml')}: body larger than 52,428,800 bytes",)
    assert c.seconds < 30
    assert c.peak_bytes < FLAT_MEMORY_BYTES


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


# --- what the body is: garbage, encodings, documents that never close ---------------------------


GARBAGE = bytes(range(256)) * 64


def test_binary_garbage_as_robots_is_a_robots_without_sitemap(audit: AuditFn, site: Site) -> None:
    site.route(
        "/robots.txt",
        reply(GARBAGE + random.Random(3).randbytes(50_000), content_type="text/plain"),
    )
    site.route("/sitemap.xml", reply(urlset([FRESH])))
    result = audit(site.url("/"))
    data = data_of(result)
    assert codes_of(result) == ["100", "302", "200"]
    assert data["robotsTxtHttpStatus"] == 200
    assert data["robotsTxtListsSitemap"] is False
    assert data["issues"] == []


def test_a_sitemap_line_among_binary_garbage_is_still_found(audit: AuditFn, site: Site) -> None:
    body = GARBAGE + b"\nSitemap: /s.xml\n" + GARBAGE
    site.route("/robots.txt", reply(body, content_type="text/plain"))
    site.route("/s.xml", reply(urlset([FRESH])))
    result = audit(site.url("/"))
    assert data_of(result)["candidateSitemaps"] == [site.url("/s.xml")]
    assert codes_of(result) == ["100", "200"]


def test_robots_in_utf16_is_read_with_an_issue(audit: AuditFn, site: Site) -> None:
    # docs/contract.md §4: decoded and read, though Google reads robots.txt as UTF-8 only.
    site.route(
        "/robots.txt", reply("Sitemap: /s.xml\n".encode("utf-16"), content_type="text/plain")
    )
    site.route("/s.xml", reply(urlset([FRESH])))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "200"]
    assert data_of(result)["issues"][0].startswith(f"{site.url('/robots.txt')}: UTF-16")


@pytest.mark.parametrize(
    ("body", "issue"),
    [
        (GARBAGE, "not well-formed XML at line 1, column 0: not well-formed (invalid token)"),
        (
            b"\xff\xfe" + GARBAGE,
            "not well-formed XML at line 1, column 3: not well-formed (invalid token)",
        ),
        (
            b"\xef\xbb\xbf\x00\x00",
            "not well-formed XML at line 1, column 1: not well-formed (invalid token)",
        ),
        (
            random.Random(5).randbytes(100_000),
            "not well-formed XML at line 1, column 0: syntax error",
        ),
        (
            b"<urlset>" + GARBAGE,
            "not well-formed XML at line 1, column 8: not well-formed (invalid token)",
        ),
    ],
    ids=[
        "bytes-0-255",
        "utf16-bom-then-garbage",
        "utf8-bom-then-nul",
        "random",
        "root-then-garbage",
    ],
)
def test_binary_garbage_as_sitemap(audit: AuditFn, site: Site, body: bytes, issue: str) -> None:
    site.route("/robots.txt", robots_with("Sitemap: /sitemap.xml"))
    site.route("/sitemap.xml", reply(body))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "400"]
    assert data_of(result)["issues"] == [f"{site.url('/sitemap.xml')}: {issue}"]


def utf16_sitemap(codec: str, bom: bytes, declare: bool = True) -> bytes:
    text = urlset([FRESH, "2020-01-01"]).decode()
    text = (
        text.replace('encoding="UTF-8"', 'encoding="UTF-16"') if declare else text.split("\n", 1)[1]
    )
    return bom + text.encode(codec)


@pytest.mark.parametrize(
    "body",
    [
        utf16_sitemap("utf-16-le", b"\xff\xfe"),
        utf16_sitemap("utf-16-be", b"\xfe\xff"),
        utf16_sitemap("utf-16-le", b"\xff\xfe", declare=False),
        gz(utf16_sitemap("utf-16-be", b"\xfe\xff")),
        b"\xef\xbb\xbf" + urlset([FRESH, "2020-01-01"]),
        gz(b"\xef\xbb\xbf" + urlset([FRESH, "2020-01-01"])),
    ],
    ids=[
        "utf16le-bom",
        "utf16be-bom",
        "utf16le-bom-no-declaration",
        "gzip-utf16be",
        "utf8-bom",
        "gzip-utf8-bom",
    ],
)
def test_byte_order_marks_and_utf16(audit: AuditFn, site: Site, body: bytes) -> None:
    site.route("/sitemap.xml", reply(body))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "200"]
    data = data_of(result)
    assert (data["sitemapType"], data["entryCount"], data["latestLastmod"]) == ("urlset", 2, FRESH)


def test_utf16_bytes_declared_as_utf8_are_not_well_formed(audit: AuditFn, site: Site) -> None:
    site.route("/sitemap.xml", reply(urlset([FRESH]).decode().encode("utf-16")))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "400"]
    assert data_of(result)["issues"][1] == (
        f"{site.url('/sitemap.xml')}: not well-formed XML at line 1, column 31: "
        "encoding specified in XML declaration is incorrect"
    )


def test_a_sitemap_whose_root_never_closes_is_refused(audit: AuditFn, site: Site) -> None:
    doc = urlset([FRESH] * 3)
    unclosed = doc[: doc.index(b"</urlset>")]
    site.route("/sitemap.xml", reply(unclosed))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "400"]
    lines = unclosed.split(b"\n")
    assert data_of(result)["issues"][1] == (
        f"{site.url('/sitemap.xml')}: not well-formed XML at line {len(lines)}, "
        f"column {len(lines[-1])}: no element found"
    )


def test_a_document_after_the_root_is_refused(audit: AuditFn, site: Site) -> None:
    site.route("/sitemap.xml", reply(urlset([FRESH]) + sitemapindex([FRESH])))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "400"]
    assert "not well-formed XML at line 5" in data_of(result)["issues"][1]


@pytest.mark.parametrize("encoding", ["ISO-8859-1", "windows-1252", "KOI8-R", "utf-8-sig"])
def test_a_declared_single_byte_encoding_is_read(audit: AuditFn, site: Site, encoding: str) -> None:
    doc = urlset([FRESH]).replace(b'encoding="UTF-8"', f'encoding="{encoding}"'.encode())
    site.route("/sitemap.xml", reply(doc))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "200"]


@pytest.mark.parametrize(
    "encoding", ["Shift_JIS", "EUC-JP", "GB2312", "UTF-7", "UTF-32", "ETF-8", "rot13", "idna"]
)
def test_an_unusable_declared_encoding_refuses_the_candidate(
    audit: AuditFn, site: Site, encoding: str
) -> None:
    doc = urlset([FRESH]).replace(b'encoding="UTF-8"', f'encoding="{encoding}"'.encode())
    site.route("/robots.txt", robots_with("Sitemap: /declared.xml", "Sitemap: /plain.xml"))
    site.route("/declared.xml", reply(doc))
    site.route("/plain.xml", reply(urlset([FRESH])))
    result = audit(site.url("/"))
    assert result["status"] != "ERROR" and result["checks"] is not None
    # Either read, or refused with an issue and the next candidate tried.
    selected = data_of(result)["selectedSitemapUrl"]
    assert selected == site.url("/declared.xml") or data_of(result)["issues"][0].startswith(
        f"{site.url('/declared.xml')}: "
    )


# --- redirects ----------------------------------------------------------------------------------


def test_redirect_loops_everywhere_fail_fast(audit: AuditFn, site: Site) -> None:
    for path in ("/robots.txt", *FALLBACKS):
        site.route(path, redirect(path))
    with cost() as c:
        result = audit(site.url("/"))
    data = data_of(result)
    assert codes_of(result) == ["100", "400"]
    assert data["robotsTxtHttpStatus"] is None
    assert data["issues"] == [
        f"{site.url(p)}: fetch error (too many redirects: more than 10)"
        for p in ("/robots.txt", *FALLBACKS)
    ]
    assert len(site.seen) == 4 * 11
    assert c.seconds < 10


def test_a_redirect_loop_between_two_origins(audit: AuditFn, site: Site, other_site: Site) -> None:
    site.route("/sitemap.xml", redirect(other_site.url("/bounce")))
    other_site.route("/bounce", redirect(site.url("/sitemap.xml")))
    result = audit(site.url("/"))
    assert data_of(result)["issues"][1] == (
        f"{site.url('/sitemap.xml')}: fetch error (too many redirects: more than 10)"
    )
    assert len(other_site.seen) == 5


def no_dns(host: str, port: int) -> list[str]:
    raise OSError(errno.ENOENT, f"no look-up of {host} in this test")


@pytest.mark.parametrize(
    ("location", "kind"),
    [
        ("http://[::1]:abc/", "invalid URL"),
        ("http://x:99999/", "invalid URL"),
        ("http://[v1.x]/", "invalid URL"),
        ("http://exa mple.com/", "invalid URL"),
        ("http://%/", "invalid URL"),
        ("https://:80/", "invalid URL"),
        ("http://", "too many redirects: more than 10"),  # resolves to the URL itself
        ("\x00\x01", "too many redirects: more than 10"),
        ("ftp://127.0.0.1/", "redirect to another scheme: ftp"),
        ("javascript:alert(1)", "redirect to another scheme: javascript"),
    ],
)
def test_malformed_redirect_targets_are_fetch_errors(
    audit: AuditFn, site: Site, location: str, kind: str
) -> None:
    site.route("/sitemap.xml", redirect(location))
    result = audit(site.url("/"), resolver=no_dns)
    assert codes_of(result) == ["100", "400"]
    assert data_of(result)["issues"][1] == f"{site.url('/sitemap.xml')}: fetch error ({kind})"


@pytest.mark.parametrize("location", ["http://[::1", "http://[", "http://]/", "//[zz]/"])
@pytest.mark.parametrize("path", ["/robots.txt", "/sitemap.xml"])
def test_a_redirect_to_an_invalid_ipv6_host_is_a_fetch_error(
    audit: AuditFn, site: Site, location: str, path: str
) -> None:
    site.route(path, redirect(location))
    result = audit(site.url("/"), resolver=no_dns)
    assert result["checks"] is not None
    assert any(i.startswith(f"{site.url(path)}: fetch error (") for i in data_of(result)["issues"])


# --- network safety: the end-to-end matrix ------------------------------------------------------


@dataclass(frozen=True)
class Internal:
    """A host spelling that names a non-public address, and the address it names."""

    host: str  # as written in a URL
    address: str  # as the issue names it
    reason: str  # why it is refused, as the issue says (without the monkeypatch)


INTERNAL = [
    Internal("127.0.0.2", "127.0.0.2", "loopback"),
    Internal("127.255.255.254", "127.255.255.254", "loopback"),
    Internal("[::1]", "::1", "loopback"),
    Internal("0.0.0.0", "0.0.0.0", "unspecified"),
    Internal("10.0.0.1", "10.0.0.1", "private"),
    Internal("10.255.255.254", "10.255.255.254", "private"),
    Internal("172.16.0.1", "172.16.0.1", "private"),
    Internal("172.31.255.254", "172.31.255.254", "private"),
    Internal("192.168.0.1", "192.168.0.1", "private"),
    Internal("169.254.169.254", "169.254.169.254", "link-local"),
    Internal("169.254.170.2", "169.254.170.2", "link-local"),
    Internal("100.64.0.1", "100.64.0.1", "not public"),
    Internal("100.127.255.254", "100.127.255.254", "not public"),
    Internal("[fc00::1]", "fc00::1", "private"),
    Internal("[fd00:ec2::254]", "fd00:ec2::254", "private"),
    Internal("[fe80::1]", "fe80::1", "link-local"),
    Internal("[::ffff:127.0.0.2]", "::ffff:7f00:2", "loopback, embedded in IPv6"),
    Internal("[::ffff:10.0.0.1]", "::ffff:a00:1", "private, embedded in IPv6"),
    Internal("[::ffff:169.254.169.254]", "::ffff:a9fe:a9fe", "link-local, embedded in IPv6"),
    # decimal, octal, hexadecimal and short IPv4 spellings
    Internal("2852039166", "169.254.169.254", "link-local"),
    Internal("167772161", "10.0.0.1", "private"),
    Internal("2130706434", "127.0.0.2", "loopback"),
    Internal("0251.0376.0251.0376", "169.254.169.254", "link-local"),
    Internal("012.0.0.1", "10.0.0.1", "private"),
    Internal("0177.0.0.2", "127.0.0.2", "loopback"),
    Internal("0xa9fea9fe", "169.254.169.254", "link-local"),
    Internal("0xa9.0xfe.0xa9.0xfe", "169.254.169.254", "link-local"),
    Internal("0x7f.0.0.2", "127.0.0.2", "loopback"),
    Internal("10.1", "10.0.0.1", "private"),
    Internal("169.254.43518", "169.254.169.254", "link-local"),
]
# Spellings of 127.0.0.1 itself, where the test servers listen: refused as the audited site.
LOOPBACK_ITSELF = [
    Internal("127.0.0.1", "127.0.0.1", "loopback"),
    Internal("2130706433", "127.0.0.1", "loopback"),
    Internal("017700000001", "127.0.0.1", "loopback"),
    Internal("0x7f000001", "127.0.0.1", "loopback"),
    Internal("0x7f.1", "127.0.0.1", "loopback"),
    Internal("127.1", "127.0.0.1", "loopback"),
    Internal("[::ffff:127.0.0.1]", "::ffff:7f00:1", "loopback, embedded in IPv6"),
]
# Host names whose (only, or one of their) addresses are internal, through a resolver we control.
NAMED = {
    "loopback.test": ["127.0.0.2"],
    "ipv6-loopback.test": ["::1"],
    "unspecified.test": ["0.0.0.0"],
    "ten.test": ["10.0.0.1"],
    "one-seven-two.test": ["172.16.0.1"],
    "one-nine-two.test": ["192.168.0.1"],
    "metadata.test": ["169.254.169.254"],
    "ecs-credentials.test": ["169.254.170.2"],
    "cgnat.test": ["100.64.0.1"],
    "ula.test": ["fc00::1"],
    "link-local-v6.test": ["fe80::1"],
    "mapped.test": ["::ffff:169.254.169.254"],
    "mixed.test": ["93.184.216.34", "10.0.0.1"],  # one public, one private: refused
}


def named_resolver(host: str, port: int) -> list[str]:
    if host in NAMED:
        return NAMED[host]
    raise OSError(errno.ENOENT, f"no such test host {host}")


def named_case(name: str) -> Internal:
    address = ipaddress.ip_address(NAMED[name][-1])
    reason = ng.blocked_reason(address)
    assert reason is not None
    return Internal(name, str(address), reason)


SPELLED_AND_NAMED = [*INTERNAL, *(named_case(n) for n in NAMED)]
ID = [c.host for c in SPELLED_AND_NAMED]


def blocked(url: str, case: Internal) -> str:
    """The issue for url, refused because its host is case.host."""
    return f"{url}: blocked address {case.address} ({case.reason}) for host {case.host.strip('[]')}"


def assert_blocked(issue: str, url: str, case: Internal, host: str | None = None) -> None:
    """Like blocked(), the reason aside: the monkeypatched rule words embedded addresses its way."""
    assert issue.startswith(f"{url}: blocked address {case.address} (")
    assert issue.endswith(f") for host {host or case.host.strip('[]')}")


@pytest.fixture
def only_127_0_0_1_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Production's address rule, except that 127.0.0.1 (the test servers) may be reached."""
    original = ng.blocked_reason

    def rule(address: ng.IPAddress) -> str | None:
        return None if str(address) == "127.0.0.1" else original(address)

    monkeypatch.setattr(ng, "blocked_reason", rule)


def assert_no_traffic_off_loopback(outbound: Outbound) -> None:
    assert outbound.refused == []
    assert set(outbound.allowed) <= {"127.0.0.1"}


@pytest.mark.parametrize(
    "case",
    [*SPELLED_AND_NAMED, *LOOPBACK_ITSELF],
    ids=ID + [f"self-{c.host}" for c in LOOPBACK_ITSELF],
)
def test_an_internal_audited_site_is_refused(
    audit: AuditFn, site: Site, outbound: Outbound, case: Internal
) -> None:
    site.route("/robots.txt", robots_with("Sitemap: /sitemap.xml"))
    base = f"http://{case.host}:{site.port}"
    result = audit(base + "/page", settings=PRODUCTION, resolver=named_resolver)
    data = data_of(result)
    assert codes_of(result) == ["100", "400"]
    assert data["robotsTxtHttpStatus"] is None
    assert data["issues"] == [blocked(base + p, case) for p in ("/robots.txt", *FALLBACKS)]
    assert site.seen == []
    assert outbound.allowed == [] and outbound.refused == []


@pytest.mark.usefixtures("only_127_0_0_1_allowed")
@pytest.mark.parametrize("case", SPELLED_AND_NAMED, ids=ID)
def test_a_sitemap_line_to_an_internal_address_is_refused(
    audit: AuditFn, site: Site, outbound: Outbound, case: Internal
) -> None:
    from ada_url import URL

    written = f"http://{case.host}:{site.port}/sitemap.xml"
    site.route("/robots.txt", robots_with(f"Sitemap: {written}"))
    result = audit(site.url("/"), settings=PRODUCTION, resolver=named_resolver)
    data = data_of(result)
    assert codes_of(result) == ["100", "400"]
    assert data["robotsTxtListsSitemap"] is True
    # The candidate is the URL a browser makes of the value (docs/contract.md §4), which writes
    # legacy IPv4 spellings and IPv4 in IPv6 in their canonical forms.
    target = URL(written).href
    assert data["candidateSitemaps"] == [target]
    assert len(data["issues"]) == 1
    assert_blocked(data["issues"][0], target, case, URL(target).hostname.strip("[]"))
    assert site.paths() == ["/robots.txt"]
    assert_no_traffic_off_loopback(outbound)


@pytest.mark.usefixtures("only_127_0_0_1_allowed")
@pytest.mark.parametrize("scheme_relative", [False, True], ids=["absolute", "scheme-relative"])
@pytest.mark.parametrize("case", SPELLED_AND_NAMED, ids=ID)
def test_a_redirect_to_an_internal_address_is_refused(
    audit: AuditFn, site: Site, outbound: Outbound, case: Internal, scheme_relative: bool
) -> None:
    location = f"//{case.host}:{site.port}/landing.xml"
    site.route("/sitemap.xml", redirect(location if scheme_relative else "http:" + location))
    result = audit(site.url("/"), settings=PRODUCTION, resolver=named_resolver)
    data = data_of(result)
    assert codes_of(result) == ["100", "400"]
    assert data["issues"][0] == f"{site.url('/robots.txt')}: HTTP 404"
    assert_blocked(data["issues"][1], site.url("/sitemap.xml"), case)
    assert data["issues"][2:] == fallback_404s(site)[1:]
    assert "/landing.xml" not in site.paths()
    assert_no_traffic_off_loopback(outbound)


@pytest.mark.usefixtures("only_127_0_0_1_allowed")
@pytest.mark.parametrize("case", SPELLED_AND_NAMED, ids=ID)
def test_a_robots_redirect_to_an_internal_address_is_refused(
    audit: AuditFn, site: Site, outbound: Outbound, case: Internal
) -> None:
    site.route("/robots.txt", redirect(f"http://{case.host}:{site.port}/robots.txt"))
    site.route("/sitemap.xml", reply(urlset([FRESH])))
    result = audit(site.url("/"), settings=PRODUCTION, resolver=named_resolver)
    data = data_of(result)
    assert codes_of(result) == ["100", "200"]  # robots.txt gave no answer: no 302
    assert data["robotsTxtHttpStatus"] is None
    assert_blocked(data["issues"][0], site.url("/robots.txt"), case)
    assert site.paths() == ["/robots.txt", "/sitemap.xml"]
    assert_no_traffic_off_loopback(outbound)


@pytest.mark.parametrize("value", ["http://x]/s.xml", "http://[::1/s.xml", "//[zz]/s.xml"])
def test_a_sitemap_line_with_a_malformed_ipv6_host_is_skipped(
    audit: AuditFn, site: Site, value: str
) -> None:
    site.route("/robots.txt", robots_with(f"Sitemap: {value}", "Sitemap: /ok.xml"))
    site.route("/ok.xml", reply(urlset([FRESH])))
    result = audit(site.url("/"), resolver=no_dns)
    assert result["status"] == "SUCCESS"
    data = data_of(result)
    assert data["candidateSitemaps"] == [site.url("/ok.xml")]
    assert data["issues"][0].startswith(f"{site.url('/robots.txt')}: skipped Sitemap: value")


@pytest.mark.usefixtures("only_127_0_0_1_allowed")
def test_a_redirect_chain_is_checked_at_every_hop(
    audit: AuditFn, site: Site, other_site: Site, outbound: Outbound
) -> None:
    # Two allowed hops, then an internal one: refused there, nothing sent to it.
    site.route("/sitemap.xml", redirect(other_site.url("/hop1")))
    other_site.route("/hop1", redirect(site.url("/hop2")))
    site.route("/hop2", redirect("http://metadata.test/latest/meta-data/"))
    result = audit(site.url("/"), settings=PRODUCTION, resolver=named_resolver)
    assert data_of(result)["issues"][1] == (
        f"{site.url('/sitemap.xml')}: blocked address 169.254.169.254 (link-local) "
        "for host metadata.test"
    )
    assert site.paths()[:3] == ["/robots.txt", "/sitemap.xml", "/hop2"]
    assert_no_traffic_off_loopback(outbound)


def test_production_refuses_loopback_even_when_a_name_hides_it(
    audit: AuditFn, site: Site, outbound: Outbound
) -> None:
    def localhost_resolver(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]

    site.route("/robots.txt", robots_with())
    result = audit(
        f"http://localhost:{site.port}/", settings=PRODUCTION, resolver=localhost_resolver
    )
    assert all(
        "blocked address 127.0.0.1 (loopback) for host localhost" in i
        for i in data_of(result)["issues"]
    )
    assert site.seen == []
    assert outbound.allowed == []


# --- credentials ---------------------------------------------------------------------------------


@pytest.fixture
def observed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Metrics emitted and info lines logged, whatever an earlier test (the CLI's) switched off."""
    from sitemap_auditor import observability

    monkeypatch.setitem(observability._state, "emit_metrics", True)
    level = observability.logger.log_level
    observability.logger.setLevel("INFO")
    yield
    observability.logger.setLevel(level)


# ASCII on purpose: JSON escapes non-ASCII characters, which would hide a leak from `in`.
USER, PASSWORD = "auditor", "Pa55-w0rd-9Zq"
TOKEN = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()


def two_names(host: str, port: int) -> list[str]:
    """site.test and other.test (and their sub-domains) are both the test server on 127.0.0.1."""
    if host.endswith(("site.test", "other.test")):
        return ["127.0.0.1"]
    raise OSError(errno.ENOENT, host)


AUTHORIZATION = f"Basic {TOKEN}"


def authorization_seen(site: Site) -> dict[str, str | None]:
    """For each request the server saw, by Host header and path: its Authorization header."""
    return {
        f"{s.headers['host'].split(':')[0].lower()}{s.path}": s.headers.get("authorization")
        for s in site.seen
    }


@pytest.mark.usefixtures("observed")
def test_credentials_go_to_the_same_host_and_port_only(
    audit: AuditFn, site: Site, logs: LogCapture, capsys: pytest.CaptureFixture[str]
) -> None:
    port = site.port
    site.route(
        "/robots.txt",
        robots_with(
            f"Sitemap: http://other.test:{port}/elsewhere.xml",
            f"Sitemap: http://www.site.test:{port}/sub.xml",
            f"Sitemap: http://user:pw@other.test:{port}/userinfo.xml",
            "Sitemap: /hop.xml",
            f"Sitemap: http://SITE.TEST:{port}/upper.xml",
        ),
    )
    site.route("/hop.xml", redirect(f"http://other.test:{port}/moved.xml"))
    site.route("/moved.xml", redirect(f"http://site.test:{port}/back.xml"))
    site.route("/upper.xml", reply(urlset([FRESH])))
    result = audit(
        f"http://site.test:{port}/",
        resolver=two_names,
        basicAuth={"username": USER, "password": PASSWORD},
    )
    assert codes_of(result) == ["100", "200"]
    assert authorization_seen(site) == {
        "site.test/robots.txt": AUTHORIZATION,
        "other.test/elsewhere.xml": None,
        "www.site.test/sub.xml": None,
        "other.test/userinfo.xml": None,  # nor the URL's own user:pw
        "site.test/hop.xml": AUTHORIZATION,
        "other.test/moved.xml": None,
        "site.test/back.xml": AUTHORIZATION,
        "site.test/upper.xml": AUTHORIZATION,  # host names are case-insensitive: same origin
    }
    out = capsys.readouterr().out
    assert "audit finished" in logs.text() and "Check200" in out  # nothing vacuous
    for where in (json.dumps(result), logs.text(), out):
        assert PASSWORD not in where and TOKEN not in where


@pytest.mark.parametrize(
    ("url", "sent"),
    [
        ("http://site.test/x", True),
        ("http://site.test:80/x", True),
        ("http://SITE.test/x", True),
        ("http://u:p@site.test/x", True),
        ("https://site.test/x", False),
        ("https://site.test:80/x", False),
        ("http://site.test:8080/x", False),
        ("http://site.test./x", False),
        ("http://www.site.test/x", False),
        ("http://site.test.evil.test/x", False),
        ("http://evil.test/site.test", False),
        ("http://evil.test/?site.test:80", False),
    ],
)
def test_the_authorization_header_follows_the_origin_exactly(url: str, sent: bool) -> None:
    policy = FetchPolicy(origin=("http", "site.test", 80), credentials=Credentials(USER, PASSWORD))
    headers = Fetcher(policy)._headers(url, NO_VALIDATORS)
    assert ("Authorization" in headers) is sent


def test_an_https_origin_never_sends_credentials_over_http() -> None:
    policy = FetchPolicy(
        origin=("https", "site.test", 443), credentials=Credentials(USER, PASSWORD)
    )
    fetcher = Fetcher(policy)
    assert "Authorization" in fetcher._headers("https://site.test/robots.txt", NO_VALIDATORS)
    assert "Authorization" not in fetcher._headers("http://site.test/robots.txt", NO_VALIDATORS)
    assert "Authorization" not in fetcher._headers("http://site.test:443/robots.txt", NO_VALIDATORS)


@pytest.mark.usefixtures("observed")
def test_userinfo_in_the_audited_url_is_never_sent_shown_or_logged(
    audit: AuditFn, site: Site, logs: LogCapture, capsys: pytest.CaptureFixture[str]
) -> None:
    site.route("/sitemap.xml", reply(urlset([FRESH])))
    result = audit(site.url("/").replace("http://", "http://bob:hunter22@"))
    assert codes_of(result) == ["100", "200"]
    assert all("authorization" not in s.headers for s in site.seen)
    out = capsys.readouterr().out
    assert "audit finished" in logs.text() and "CloudWatchMetrics" in out  # nothing vacuous
    for where in (json.dumps(result), logs.text(), out):
        assert "hunter22" not in where
        assert base64.b64encode(b"bob:hunter22").decode() not in where


@pytest.mark.usefixtures("observed")
def test_credentials_stay_out_of_every_failure_path(
    audit: AuditFn, site: Site, logs: LogCapture, capsys: pytest.CaptureFixture[str]
) -> None:
    # A run that meets a loop, a reset, garbage, a truncated gzip and a refused address.
    site.route(
        "/robots.txt",
        robots_with(
            "Sitemap: /loop.xml",
            "Sitemap: /reset.xml",
            "Sitemap: /garbage.xml",
            "Sitemap: /trunc.xml",
            "Sitemap: http://10.0.0.1/internal.xml",
        ),
    )
    site.route("/loop.xml", redirect("/loop.xml"))
    site.route("/reset.xml", reset_after(b"<urlset>", 10_000))
    site.route("/garbage.xml", reply(GARBAGE))
    site.route("/trunc.xml", reply(gz(urlset([FRESH]))[:30]))
    result = audit(site.url("/"), basicAuth={"username": USER, "password": PASSWORD})
    assert codes_of(result) == ["100", "400"]
    assert len(data_of(result)["issues"]) == 5
    out = capsys.readouterr().out
    assert "audit finished" in logs.text() and "CloudWatchMetrics" in out  # nothing vacuous
    for where in (json.dumps(result), logs.text(), out):
        assert PASSWORD not in where and TOKEN not in where


@pytest.mark.usefixtures("observed")
def test_a_defect_message_with_the_token_is_redacted(
    audit: AuditFn, site: Site, logs: LogCapture, capsys: pytest.CaptureFixture[str]
) -> None:
    def leaky_resolver(host: str, port: int) -> list[str]:
        raise RuntimeError(f"bug: header was Basic {TOKEN} for {PASSWORD}")

    result = audit(
        f"http://leaky.test:{site.port}/",
        resolver=leaky_resolver,
        basicAuth={"username": USER, "password": PASSWORD},
    )
    assert result["status"] == "ERROR" and result["checks"] is None
    assert (
        result["message"] == "The audit could not finish: RuntimeError: bug: header was *** for ***"
    )
    out = capsys.readouterr().out
    assert "audit finished" in logs.text() and "CloudWatchMetrics" in out  # nothing vacuous
    for where in (result["message"], logs.text(), out):
        assert PASSWORD not in where and TOKEN not in where


def echo_password(h: BaseHTTPRequestHandler) -> str:
    """The password a request carried, as a hostile server would read it."""
    auth = h.headers.get("Authorization", "")
    return base64.b64decode(auth[6:]).decode().split(":", 1)[1] if auth else "none"


@pytest.mark.usefixtures("observed")
def test_a_site_echoing_the_password_does_not_get_it_into_the_result(
    audit: AuditFn, site: Site, logs: LogCapture
) -> None:
    def robots(h: BaseHTTPRequestHandler) -> None:
        send(
            h,
            200,
            f"Sitemap: /s.xml?k={echo_password(h)}\n".encode(),
            {"Content-Type": "text/plain"},
        )

    def sitemap(h: BaseHTTPRequestHandler) -> None:
        pw = echo_password(h)
        send(h, 200, urlset([pw, FRESH]), {"Content-Type": f"application/xml; x={pw}"})

    site.route("/robots.txt", robots)
    site.route(f"/s.xml?k={PASSWORD}", sitemap)
    result = audit(site.url("/"), basicAuth={"username": USER, "password": PASSWORD})
    assert codes_of(result) == ["100", "200"]  # the echo reached the result path
    assert PASSWORD not in json.dumps(result)
    assert PASSWORD not in logs.text()
