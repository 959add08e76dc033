"""Credentials: sent to the site's own origin only, never shown, logged or echoed into a result.

Part of the fault injection of tests/integration/faults (its conftest.py guards the network).
"""

from __future__ import annotations

import base64
import errno
import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from urllib.parse import quote, unquote

import pytest
from support.documents import gz, urlset
from support.faults import (
    FRESH,
    GARBAGE,
)
from support.results import AuditFn, LogCapture, codes_of, data_of

from harness.servers import (
    Site,
    redirect,
    reply,
    reset_after,
    robots_with,
    send,
)
from sitemap_auditor.core.credentials import Credentials
from sitemap_auditor.core.validators import NO_VALIDATORS
from sitemap_auditor.fetching.fetch import Fetcher, FetchPolicy


@pytest.fixture
def observed() -> Iterator[None]:
    """Metrics emitted and info lines logged, whatever an earlier test (the CLI's) switched off."""
    from sitemap_auditor.audit import observability

    metrics_were_on = observability.emit_metrics(True)
    level = observability.logger.log_level
    observability.logger.setLevel("INFO")
    yield
    observability.logger.setLevel(level)
    observability.emit_metrics(metrics_were_on)


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
    headers = Fetcher(policy).headers_for(url, NO_VALIDATORS)
    assert ("Authorization" in headers) is sent


def test_an_https_origin_never_sends_credentials_over_http() -> None:
    policy = FetchPolicy(
        origin=("https", "site.test", 443), credentials=Credentials(USER, PASSWORD)
    )
    fetcher = Fetcher(policy)
    assert "Authorization" in fetcher.headers_for("https://site.test/robots.txt", NO_VALIDATORS)
    assert "Authorization" not in fetcher.headers_for("http://site.test/robots.txt", NO_VALIDATORS)
    assert "Authorization" not in fetcher.headers_for(
        "http://site.test:443/robots.txt", NO_VALIDATORS
    )


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
@pytest.mark.parametrize("cut", ["/", "#", "?"])
def test_a_password_with_what_ends_an_authority_is_never_shown_or_logged(
    audit: AuditFn, site: Site, logs: LogCapture, capsys: pytest.CaptureFixture[str], cut: str
) -> None:
    # `http://bob:hun/ter22@host/`: by the one reading, the authority ends at the password's own
    # `/` and the URL is refused (501); whoever wrote it meant userinfo, so it is never echoed.
    result = audit(site.url("/").replace("http://", f"http://bob:hun{cut}ter22@"))
    assert codes_of(result) == ["100", "501"]
    assert site.seen == []
    out = capsys.readouterr().out
    assert "audit finished" in logs.text() and "CloudWatchMetrics" in out  # nothing vacuous
    assert "***@127.0.0.1" in json.dumps(result)
    for where in (json.dumps(result), logs.text(), out):
        assert "ter22" not in where and f"hun{cut}" not in where


@pytest.mark.usefixtures("observed")
def test_a_password_holding_at_then_slash_in_a_sitemap_line_is_never_shown_or_logged(
    audit: AuditFn, site: Site, logs: LogCapture, capsys: pytest.CaptureFixture[str]
) -> None:
    # `Sitemap: http://u:p@ss/w0rd-XYZ@host/x.xml` is, by the one reading, userinfo `u:p`,
    # host `ss`, path `/w0rd-XYZ@host/x.xml`: stripped of its userinfo the candidate showed
    # `http://ss/w0rd-XYZ@...`, the password's tail, in the result and on every log line.
    secret = "p@ss/w0rd-XYZ"
    line = f"Sitemap: http://u:{secret}@127.0.0.1:{site.port}/x.xml\n"
    site.route("/robots.txt", reply(line, content_type="text/plain"))
    result = audit(site.url("/"), basicAuth={"username": "u", "password": secret})
    assert codes_of(result) == ["100", "400"]
    out = capsys.readouterr().out
    assert "audit finished" in logs.text() and "***@127.0.0.1" in json.dumps(result)
    for where in (json.dumps(result), logs.text(), out):
        assert "w0rd" not in where and "XYZ" not in where


@pytest.mark.parametrize(
    ("password", "path"), [("Welcome@2024/", "/blog/2024/"), ("Admin@123/", "/shop/123/")]
)
def test_an_ordinary_password_holding_at_then_slash_leaves_the_result_whole(
    audit: AuditFn, site: Site, password: str, path: str
) -> None:
    # What follows the password's `@` alone (`2024/`) is ordinary text: hidden as such, it
    # rewrote a normal result's sitemap URL (`/blog/***sitemap.xml`).
    site.route("/robots.txt", reply(f"Sitemap: {site.url(path + 'sitemap.xml')}\n"))
    site.route(path + "sitemap.xml", reply(urlset([FRESH])))
    result = audit(site.url("/"), basicAuth={"username": "u", "password": password})
    assert codes_of(result) == ["100", "200"]
    assert site.url(path + "sitemap.xml") in json.dumps(result) and "***" not in json.dumps(result)


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


@pytest.mark.parametrize("password", ["SUCCESS", "Sitemap", "urlset", "200"])
def test_a_password_that_spells_a_word_of_the_format_leaves_the_result_whole(
    audit: AuditFn, site: Site, password: str
) -> None:
    # Redaction made the result's status, its CheckCode ids, its auditor or its sitemapType
    # "***": the format the platform reads broken, and the password shown by the stars.
    site.route("/robots.txt", reply("Sitemap: /s.xml\n", content_type="text/plain"))
    site.route("/s.xml", reply(urlset([FRESH])))
    result = audit(site.url("/"), basicAuth={"username": USER, "password": password})
    assert result["status"] == "SUCCESS" and codes_of(result) == ["100", "200"]
    assert [c["code"]["id"] for c in result["checks"]] == [
        "37A-SitemapAuditor-100",
        "37A-SitemapAuditor-200",
    ]
    assert result["auditor"]["name"] == "Sitemap" and data_of(result)["sitemapType"] == "urlset"
    # The messages may quote what the site sent: there the word is redacted, as before.


@pytest.mark.usefixtures("observed")
def test_a_password_echoed_in_other_spellings_is_in_no_result_nor_log_line(
    audit: AuditFn, site: Site, logs: LogCapture
) -> None:
    # Some characters percent-encoded (as UTF-8 and as Latin-1) in a Sitemap: URL, and the
    # UTF-8 bytes in a header, which the client reads as Latin-1.
    password = "sécret-Pässword"

    def robots(h: BaseHTTPRequestHandler) -> None:
        pw = echo_password(h)
        body = f"Sitemap: /a/{quote(pw[:3])}{pw[3:]}.xml\nSitemap: /s.xml\n"
        send(h, 200, body.encode() + b"Sitemap: /b/%73" + pw[1:].encode("latin-1"), {})

    def sitemap(h: BaseHTTPRequestHandler) -> None:
        send(h, 200, urlset([FRESH]), {"Content-Type": f"application/xml; x={echo_password(h)}"})

    site.route("/robots.txt", robots)
    site.route("/s.xml", sitemap)
    result = audit(site.url("/"), basicAuth={"username": USER, "password": password})
    assert codes_of(result) == ["100", "200"]
    data = result["checks"][0]["data"]
    assert data["contentType"] == "application/xml; x=***"
    echoes = [u for u in data["candidateSitemaps"] if "/a/" in u or "/b/" in u]
    assert len(echoes) == 2 and all("***" in url for url in echoes)
    for where in (json.dumps(result, ensure_ascii=False), logs.text()):
        readings = (unquote(where), unquote(where, "latin-1"), where)
        mojibake = where.encode("latin-1", "replace").decode("utf-8", "replace")
        assert not any(password in text for text in (*readings, mojibake))
