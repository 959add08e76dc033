"""--user-agent and --header on every request of a deep audit, counted by real servers on
127.0.0.1 (the site) and 127.0.0.2 (another origin): credential headers never leave the site's
own origin, whether another origin's sitemap is listed or a redirect leads there."""

from __future__ import annotations

import pytest
from support.deep import SITEMAPS_NS, local_only, urlset_of
from support.deep_schema import validated

from harness.servers import Site, redirect, reply
from sitemap_auditor import deep
from sitemap_auditor.cli import deep as deep_cli
from sitemap_auditor.core.request_headers import ExtraHeaders, parse_header

AGENT = "Mozilla/5.0 (compatible; ExampleAgencyBot/2.0)"


def _serve(site: Site, elsewhere: Site) -> None:
    index = (
        f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">'
        f"<sitemap><loc>{site.url('/a.xml')}</loc></sitemap>"
        f"<sitemap><loc>{site.url('/moved.xml')}</loc></sitemap>"
        f"<sitemap><loc>{elsewhere.url('/b.xml')}</loc></sitemap></sitemapindex>"
    ).encode()
    site.route(
        "/robots.txt",
        reply(f"User-agent: *\nSitemap: {site.url('/index.xml')}\n", content_type="text/plain"),
    )
    site.route("/index.xml", reply(index))
    site.route("/a.xml", reply(urlset_of([f"<loc>{site.url('/a')}</loc>"])))
    site.route("/moved.xml", redirect(elsewhere.url("/c.xml")))
    elsewhere.route("/b.xml", reply(urlset_of([f"<loc>{elsewhere.url('/b')}</loc>"])))
    elsewhere.route("/c.xml", reply(urlset_of([f"<loc>{elsewhere.url('/c')}</loc>"])))


def _headers() -> ExtraHeaders:
    return ExtraHeaders.of(
        [
            parse_header("User-Agent: " + AGENT),
            parse_header("X-Audit: agency-42"),
            parse_header("Cookie: session=c00kie-value"),
            parse_header("Authorization: Bearer t0ken-value"),
        ]
    )


def test_every_request_carries_the_headers_and_credentials_stay_on_the_origin(
    site: Site, elsewhere: Site
) -> None:
    _serve(site, elsewhere)
    options = deep.Options(allow_private_networks=True, resolver=local_only, headers=_headers())
    document = validated(deep.audit(site.url("/"), options=options))
    on_site = {s.path for s in site.seen}
    assert {"/robots.txt", "/index.xml", "/a.xml", "/moved.xml"} <= on_site
    assert {s.path for s in elsewhere.seen} >= {"/b.xml", "/c.xml"}
    for seen in site.seen:
        assert seen.headers["user-agent"] == AGENT, seen.path
        assert seen.headers["x-audit"] == "agency-42"
        assert seen.headers["cookie"] == "session=c00kie-value"
        assert seen.headers["authorization"] == "Bearer t0ken-value"
    for seen in elsewhere.seen:  # listed by the index, or reached by a redirect
        assert seen.headers["user-agent"] == AGENT, seen.path
        assert seen.headers["x-audit"] == "agency-42"
        assert "cookie" not in seen.headers
        assert "authorization" not in seen.headers
    assert document["totals"]["fetched"] >= 4


def test_without_the_options_the_default_agent_is_sent(site: Site, elsewhere: Site) -> None:
    _serve(site, elsewhere)
    deep.audit(site.url("/"), options=deep.Options(allow_private_networks=True))
    assert site.seen and all(s.headers["user-agent"].startswith("37AuditsBot/") for s in site.seen)
    assert not any("x-audit" in s.headers for s in site.seen)


def test_the_command_line_options_reach_the_site(
    site: Site, elsewhere: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    _serve(site, elsewhere)
    status = deep_cli.main(
        [
            *("--allow-private-networks", "--json", "--user-agent", AGENT),
            *("--header", "Cookie: session=c00kie-value", "--header", "X-Audit:agency-42"),
            site.url("/"),
        ]
    )
    assert status in (0, 1, 2)
    out = capsys.readouterr().out
    assert "c00kie-value" not in out  # a credential is never echoed
    robots = next(s for s in site.seen if s.path == "/robots.txt")
    assert robots.headers["user-agent"] == AGENT
    assert robots.headers["cookie"] == "session=c00kie-value"
    assert robots.headers["x-audit"] == "agency-42"
    assert all("cookie" not in s.headers for s in elsewhere.seen)


@pytest.mark.parametrize(
    "header",
    ["Host: evil.example", "Bad Name: x", "X-A: line\r\nInjected: 1", "NoColon", "Connection: x"],
)
def test_a_header_the_auditor_cannot_send_is_a_usage_error(header: str) -> None:
    with pytest.raises(SystemExit) as stopped:
        deep_cli.main(["--allow-private-networks", "--header", header, "http://127.0.0.1:9/"])
    assert stopped.value.code == 64


def test_user_and_an_authorization_header_together_are_a_usage_error() -> None:
    args = ["--allow-private-networks", "--user", "u", "--header", "Authorization: Basic x"]
    with pytest.raises(SystemExit) as stopped:
        deep_cli.main([*args, "http://127.0.0.1:9/"])
    assert stopped.value.code == 64


def test_a_credential_echoed_in_a_sitemap_url_is_redacted_where_the_url_is_a_key(
    site: Site, elsewhere: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    # robots.txt lists a sitemap whose URL holds the cookie's value: the document's
    # run.sitemapSeconds is keyed by sitemap URL, and those keys were shown as sent.
    token = "tok-9f8e7d6c5b4a"
    site.route(
        "/robots.txt",
        reply(f"Sitemap: {site.url('/s.xml')}?key={token}\n", content_type="text/plain"),
    )
    site.route("/s.xml", reply(urlset_of([f"<loc>{site.url('/a')}</loc>"])))
    args = ["--allow-private-networks", "--json", "--header", f"Cookie: {token}"]
    status = deep_cli.main([*args, site.url("/")])
    out = capsys.readouterr().out
    assert status in (0, 1, 2) and token not in out and "?key=***" in out


@pytest.mark.parametrize("as_json", [True, False])
def test_a_credential_that_spells_a_severity_breaks_no_report(
    site: Site, as_json: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    # A cookie `error`, and a sitemap with an error (a <loc> that is no URL): the finding's
    # severity is the audit's word, not an echo; redacting it broke the document, the exit
    # status and the text report (a KeyError).
    site.route("/robots.txt", reply(f"Sitemap: {site.url('/s.xml')}\n", content_type="text/plain"))
    site.route("/s.xml", reply(urlset_of(["<loc>relative</loc>"])))
    args = ["--allow-private-networks", "--header", "Cookie: error", site.url("/")]
    status = deep_cli.main(["--json", *args] if as_json else args)
    out = capsys.readouterr().out
    assert status == 2  # an error was found
    if as_json:
        import json

        validated(json.loads(out))


def test_a_bearer_token_echoed_without_its_scheme_is_redacted(
    site: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    # The site echoes the token alone (in a <lastmod> the report quotes, and in a URL): only
    # the whole header value was redacted before.
    token = "TOKEN123secret"
    site.route("/robots.txt", reply(f"Sitemap: {site.url('/s.xml')}\n", content_type="text/plain"))
    entry = f"<loc>{site.url('/a')}?t={token}</loc><lastmod>{token}</lastmod>"
    site.route("/s.xml", reply(urlset_of([entry])))
    args = ["--allow-private-networks", "--header", f"Authorization: Bearer {token}"]
    for extra in ([], ["--json"]):
        deep_cli.main([*args, *extra, site.url("/")])
        out = capsys.readouterr().out
        assert token not in out and "***" in out
