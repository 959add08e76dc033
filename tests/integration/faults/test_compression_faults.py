"""Compression: truncated and damaged gzip, stacked layers and codings, multi-member files,
the cap after inflation.

Part of the fault injection of tests/integration/faults (its conftest.py guards the network).
"""

from __future__ import annotations

import gzip
import random
import zlib

import pytest
from support.documents import gz, urlset
from support.faults import (
    FLAT_MEMORY_BYTES,
    FRESH,
    cost,
)
from support.results import AuditFn, codes_of, data_of

from harness.servers import (
    Site,
    reply,
    robots_with,
)
from sitemap_auditor.core.errors import FetchError
from sitemap_auditor.fetching.decoding import peel_gzip
from sitemap_auditor.fetching.fetch import MAX_BODY_BYTES


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
