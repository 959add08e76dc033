"""Bodies cut short, lengths that lie, broken chunked framing, header floods.

Part of the fault injection of tests/integration/faults (its conftest.py guards the network).
"""

from __future__ import annotations

import json
from contextlib import suppress
from typing import Any

import pytest
from support.documents import urlset
from support.faults import (
    FALLBACKS,
    FRESH,
    QUICK_DEADLINE_S,
    QUICK_TIMEOUT,
    cost,
    first_sitemap,
    quick_fetcher,
    raw_route,
)
from support.results import AuditFn, codes_of, data_of

from harness.servers import (
    Site,
    raw,
    reply,
    reset_after,
)
from sitemap_auditor.core.issues import MAX_HEADER_CHARS
from sitemap_auditor.fetching.wire_bound import MAX_WIRE_LINES


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
        (b"9\r\n<urlset/>\r\n", "protocol: the answer does not follow HTTP"),
        # a negative chunk size: a length no reader can take, not a defect of ours
        (b"-10\r\n<urlset/>\r\n0\r\n\r\n", "incomplete body"),
        # -1, which a reader takes as "to the end": the body never gets its zero-size chunk
        (b"5\r\n<urls\r\n-1\r\net/>\r\n0\r\n\r\n", "incomplete body"),
        # a size larger than anything that follows
        (b"ffffffffffffffffffff\r\n<urlset/>", "incomplete body"),
        # a chunk-size line longer than any reader keeps
        (
            b"9;" + b"x" * 70_000 + b"\r\n<urlset/>\r\n0\r\n\r\n",
            "protocol: the answer does not follow HTTP",
        ),
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


@pytest.mark.slow
def test_a_body_sent_in_many_small_chunks_is_read_whole(audit: AuditFn, site: Site) -> None:
    # A server that writes its sitemap in tiny chunks: over a million chunk-size lines are
    # framing, not a trailer section (each is followed by its data), and the body is read.
    body = urlset([FRESH] * 50_000)
    pieces = [body[i : i + 4] for i in range(0, len(body), 4)]
    assert len(pieces) > 1_000_000
    framed = b"".join(b"4\r\n%s\r\n" % x for x in pieces[:-1])
    framed += b"%x\r\n%s\r\n0\r\n\r\n" % (len(pieces[-1]), pieces[-1])
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    site.route("/sitemap.xml", raw(head + framed))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "200"], data_of(result)["issues"]
    assert data_of(result)["entryCount"] == 50_000


def test_an_endless_trailer_section_is_a_protocol_error_not_a_timeout(
    audit: AuditFn, site: Site
) -> None:
    # A whole sitemap, its last chunk, then trailer lines that never end: the HTTP libraries
    # read and drop them without bound, past the body's 50 MB, until the fetch's deadline.
    body = urlset([FRESH])

    def endless(h: Any) -> None:
        h.wfile.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        h.wfile.write(b"%x\r\n%s\r\n0\r\n" % (len(body), body))
        with suppress(OSError):
            for _ in range(2_000):  # 2,000,000 lines, 16 MB: past the bound, then an end
                h.wfile.write(b"X-T: a\r\n" * 1_000)
            h.wfile.write(b"\r\n")
        h.close_connection = True

    site.route("/sitemap.xml", endless)
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "400"]
    assert data_of(result)["issues"][1] == (
        f"{site.url('/sitemap.xml')}: fetch error (protocol: more than "
        f"{MAX_WIRE_LINES:,} lines in a row after the body's data (a trailer section that never "
        "ends))"
    )


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
        f"{site.url('/sitemap.xml')}: fetch error (protocol: the answer does not follow HTTP)"
    )


def test_a_huge_content_type_keeps_the_result_small(audit: AuditFn, site: Site) -> None:
    content_type = "application/xml; x=" + "y" * 60_000
    site.route("/sitemap.xml", reply(urlset([FRESH]), content_type=content_type))
    result = audit(site.url("/"))
    assert data_of(result)["contentType"] == content_type  # as sent, docs/contract.md §3
    assert len(json.dumps(result)) < 1_000_000


def test_a_content_type_folded_over_megabytes_is_cut(audit: AuditFn, site: Site) -> None:
    # Obsolete line folding: 95 continuation lines of 65,000 bytes, each within the limit of a
    # line, joined into one 6 MB header shown in each check's data map (three here).
    fold = b"".join(b" " + b"y" * 65_000 + b"\r\n" for _ in range(95))
    body = urlset([])
    site.route(
        "/sitemap.xml",
        raw(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/xml;\r\n"
            + fold
            + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body)
            + body
        ),
    )
    result = audit(site.url("/"))
    shown = data_of(result)["contentType"]
    assert shown.startswith("application/xml;") and shown.endswith("y...")
    assert len(shown) == MAX_HEADER_CHARS
    assert len(json.dumps(result)) < 1_000_000


def test_two_different_content_lengths_are_a_protocol_error(audit: AuditFn, site: Site) -> None:
    # RFC 9112 §6.3: no length can be trusted, so the body is not read at all.
    body = urlset([FRESH])
    lengths = b"Content-Length: %d\r\nContent-Length: %d\r\n" % (len(body), len(body) + 1)
    site.route("/sitemap.xml", raw(b"HTTP/1.1 200 OK\r\n" + lengths + b"\r\n" + body))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "400"]
    assert data_of(result)["issues"][1] == (
        f"{site.url('/sitemap.xml')}: fetch error (protocol: the answer does not follow HTTP)"
    )
