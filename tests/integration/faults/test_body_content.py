"""What the body is: binary garbage, byte order marks and UTF-16, declared encodings,
documents that never close.

Part of the fault injection of tests/integration/faults (its conftest.py guards the network).
"""

from __future__ import annotations

import random

import pytest
from support.documents import gz, sitemapindex, urlset
from support.faults import (
    FRESH,
    GARBAGE,
)
from support.results import AuditFn, codes_of, data_of

from harness.servers import (
    Site,
    reply,
    robots_with,
)


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
