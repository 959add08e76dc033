"""A whole audit through the handler, its site answered from memory: the pipeline, the
credentials by origin and the Response, without a socket (the same audits run against real
servers in tests/integration/test_handler.py)."""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from support.results import LogCapture

from sitemap_auditor import handler
from sitemap_auditor.audit.config import Settings
from sitemap_auditor.fetching.exchange import Request
from sitemap_auditor.fetching.memory_transport import Canned, MemoryTransport

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


def audit_url(transport: MemoryTransport, url: str, **event: Any) -> dict[str, Any]:
    return handler.run(
        {"id": "memory", "url": url, **event},
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


def _echoing_site(password: str, lastmod: str, sitemap_line: str) -> MemoryTransport:
    """A site that echoes the audit's password back: in a lastmod and in a Sitemap: line."""
    body = urlset(today()).replace(
        b"</urlset>",
        f"<url><loc>{SITE}/b</loc><lastmod>{lastmod}</lastmod></url></urlset>".encode(),
    )

    def route(request: Request) -> Canned:
        if request.url.href == SITE + "/robots.txt":
            return Canned(200, {}, f"Sitemap: /s.xml\n{sitemap_line}\n".encode())
        if request.url.href == SITE + "/s.xml":
            return Canned(200, {}, body)
        return Canned(404)

    return MemoryTransport(route)


def _echoed(value: object) -> str:
    """Every string of a result, one a line (not its JSON text, which escapes them again)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return "\n".join(_echoed(v) for v in value)
    return ""


@pytest.mark.parametrize(
    "password",
    [
        # The issues quote what the site wrote with repr(): a backslash or a quote in the
        # password was echoed escaped (`pa\\ss`), which redaction of the raw form missed.
        "pa\\ss-w0rd-9Zq",
        'it\'s-"quoted"-9Zq',
        "tab\tinside-9Zq",
    ],
)
def test_a_password_the_site_echoes_is_never_in_the_result_however_quoted(password: str) -> None:
    t = _echoing_site(password, f"bad {password}", f"Sitemap: http://[{password}]/x")
    result = audit(t, basicAuth={"username": "auditor", "password": password})
    text = _echoed(result)
    assert "unparsable <lastmod>" in text
    for form in (password, repr(password)[1:-1], repr("'" + password)[2:-1]):
        assert form not in text


@pytest.mark.parametrize("password", ["S3cretPass-9Zq", "Pässwort-9Zq"])
def test_a_password_the_site_echoes_as_a_host_is_never_in_the_result(password: str) -> None:
    # The listed Sitemap: URL is the reading's: its host lower-cased and IDNA-encoded.
    t = _echoing_site(password, today(), f"Sitemap: http://{password.upper()}.example/x.xml")
    result = audit(t, basicAuth={"username": "auditor", "password": password})
    text = _echoed(result)
    assert ".example/x.xml" in text
    assert password.lower() not in text and "xn--" not in text, text


def test_a_password_cut_by_an_issue_leaves_no_prefix_of_it() -> None:
    # Quoted values are cut at 100 characters: a password that straddles the cut left its
    # first characters in the result.
    password = "Pa55-w0rd-9Zq-long"
    lastmod = "x" * 93 + password
    t = _echoing_site(password, lastmod, "Sitemap: " + "y" * 90 + password + "\x00[")
    result = audit(t, basicAuth={"username": "auditor", "password": password})
    text = _echoed(result)
    assert "x" * 93 in text and "y" * 90 in text
    for n in range(3, len(password) + 1):
        assert password[:n] not in text, n


def test_a_password_in_a_sitemap_url_is_never_listed_as_the_standard_encodes_it() -> None:
    # The WHATWG serializer encodes a query as neither quote() nor quote_plus() does:
    # `p@ss w{rd}&1` is `p@ss%20w{rd}&1` in a listed URL.
    password = "p@ss w{rd}&1"
    t = _echoing_site(password, today(), f"Sitemap: /s2.xml?pw={password}#{password}")
    result = audit(t, basicAuth={"username": "auditor", "password": password})
    text = _echoed(result)
    assert "/s2.xml?pw=" in text
    assert "p@ss%20w{rd}&1" not in text and "p@ss%20w%7Brd%7D&1" not in text


@pytest.mark.parametrize("url", [SITE + "/?pw={pw}", "http://[v1.x]/?pw={pw}"])
def test_the_password_in_the_audited_urls_query_is_in_no_result_nor_log_line(
    url: str, logs: LogCapture
) -> None:
    password = CREDS["password"]
    result = audit_url(MemoryTransport({}), url.format(pw=password), basicAuth=CREDS)
    assert password not in _echoed(result)
    assert password not in logs.text()
