"""A whole audit through the handler, its site answered from memory: the pipeline, the
credentials by origin and the Response, without a socket (the same audits run against real
servers in tests/integration/test_handler.py)."""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sitemap_auditor import handler
from sitemap_auditor.config import Settings
from sitemap_auditor.memory_transport import Canned, MemoryTransport

SITE = "http://site.test"
SETTINGS = Settings(max_age_days=7, allow_private_networks=False, share_seconds=0)
CREDS = {"username": "auditor", "password": "Pa55-w0rd-9Zq"}


def public(host: str, port: int) -> Sequence[str]:
    return ["93.184.216.34"] if host.endswith(".test") else []


def today() -> str:
    return (datetime.now(UTC) - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")


def urlset(lastmod: str) -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{SITE}/a</loc><lastmod>{lastmod}</lastmod></url></urlset>"
    ).encode()


def audit(transport: MemoryTransport, **event: Any) -> dict[str, Any]:
    return handler.run(
        {"id": "memory", "url": SITE + "/page", **event},
        None,
        SETTINGS,
        resolver=public,
        transport=transport,
    )


def test_a_fresh_gzipped_sitemap_listed_in_robots_is_a_success() -> None:
    t = MemoryTransport(
        {
            SITE + "/robots.txt": Canned(200, {}, b"Sitemap: /s.xml.gz\n"),
            SITE + "/s.xml.gz": Canned(
                200, {"Content-Type": "application/gzip"}, gzip.compress(urlset(today()))
            ),
        }
    )
    result = audit(t, basicAuth=CREDS)
    assert result["status"] == "SUCCESS"
    data = result["checks"][0]["data"]
    assert data["selectedSitemapUrl"] == SITE + "/s.xml.gz"
    assert data["contentType"] == "application/gzip"
    assert data["entryCount"] == 1
    assert t.authorized() == [SITE + "/robots.txt", SITE + "/s.xml.gz"]


def test_a_sitemap_on_another_origin_is_fetched_without_credentials() -> None:
    t = MemoryTransport(
        {
            SITE + "/robots.txt": Canned(200, {}, b"Sitemap: http://cdn.test/s.xml\n"),
            "http://cdn.test/s.xml": Canned(200, {}, urlset("2020-01-01")),
        }
    )
    result = audit(t, basicAuth=CREDS)
    assert [c["code"]["id"][-3:] for c in result["checks"]] == ["100", "300"]
    assert t.authorized() == [SITE + "/robots.txt"]


def test_no_sitemap_anywhere_is_a_fail_naming_every_candidate() -> None:
    t = MemoryTransport({SITE + "/robots.txt": Canned(404)})
    result = audit(t)
    assert result["status"] == "FAIL"
    issues = result["checks"][0]["data"]["issues"]
    assert issues == [
        f"{SITE}/robots.txt: HTTP 404",
        f"{SITE}/sitemap.xml: HTTP 404",
        f"{SITE}/sitemap_index.xml: HTTP 404",
        f"{SITE}/sitemap/sitemap.xml: HTTP 404",
    ]
    assert [r.url.href for r in t.requests] == [
        SITE + "/robots.txt",
        SITE + "/sitemap.xml",
        SITE + "/sitemap_index.xml",
        SITE + "/sitemap/sitemap.xml",
    ]


def test_an_audited_url_read_two_ways_fetches_nothing() -> None:
    t = MemoryTransport({})
    result = audit(t, url="http://site.test\\@other.test/", basicAuth=CREDS)
    assert result["status"] == "ERROR"
    assert t.requests == []
