"""The whole auditor through its handler, on real sites of 127.0.0.1 (docs/contract.md §§1-6)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from support.documents import gz, sitemapindex, urlset
from support.results import (
    CHECK_KEYS,
    DATA_MAP_OF_501,
    LOCAL,
    AuditFn,
    LogCapture,
    codes_of,
    data_of,
    days_ago,
)

from harness.servers import Site, drip, redirect, reply, robots_with, stream
from sitemap_auditor import __version__
from sitemap_auditor.audit import probe
from sitemap_auditor.audit.config import Settings
from sitemap_auditor.fetching.fetch import Fetcher, FetchPolicy

DATA_KEYS = [
    "siteBase",
    "robotsTxtUrl",
    "robotsTxtHttpStatus",
    "robotsTxtListsSitemap",
    "candidateSitemaps",
    "selectedSitemapUrl",
    "sitemapType",
    "sitemapHttpStatus",
    "contentType",
    "entryCount",
    "latestLastmod",
    "maxAgeDays",
    "issues",
]
FRESH = days_ago(1)


def assert_platform_shape(result: dict[str, Any]) -> None:
    assert list(result) == ["version", "auditor", "status", "date", "message", "groupId", "checks"]
    assert result["version"] == 2.0
    assert result["auditor"] == {
        "id": "com.thirtysevenaudits.auditor.SitemapAuditor",
        "name": "Sitemap",
        "version": __version__,
    }
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", result["date"])
    assert result["groupId"] is None
    json.dumps(result)  # serialisable as it is
    first = result["checks"][0]
    for check in result["checks"]:
        assert list(check) == CHECK_KEYS
        assert list(check["code"]) == ["id", "description", "rationale"]
        assert check["order"] is None
        assert check["data"] == first["data"]
        assert list(check["data"]) == DATA_KEYS
    assert codes_of(result)[0] == "100"


# --- the documented status combinations ---------------------------------------------------------


def test_fresh_sitemap_listed_in_robots_is_success(audit: AuditFn, site: Site) -> None:
    site.route("/robots.txt", robots_with(f"Sitemap: {site.url('/sm.xml')}"))
    site.route("/sm.xml", reply(urlset([days_ago(3), FRESH, None])))
    result = audit(site.url("/some/page?x=1"))
    assert_platform_shape(result)
    assert result["status"] == "SUCCESS"
    assert codes_of(result) == ["100", "200"]
    data = data_of(result)
    assert data == {
        "siteBase": site.base,
        "robotsTxtUrl": site.url("/robots.txt"),
        "robotsTxtHttpStatus": 200,
        "robotsTxtListsSitemap": True,
        "candidateSitemaps": [site.url("/sm.xml")],
        "selectedSitemapUrl": site.url("/sm.xml"),
        "sitemapType": "urlset",
        "sitemapHttpStatus": 200,
        "contentType": "application/xml",
        "entryCount": 3,
        "latestLastmod": FRESH,
        "maxAgeDays": 7,
        "issues": [],
    }
    ok = result["checks"][1]
    assert ok["status"] == "SUCCESS"
    assert ok["resource"] == site.url("/sm.xml")
    assert ok["recommendation"] is None and ok["code"]["rationale"] is None
    for value in (site.url("/sm.xml"), "urlset", "3 entries", FRESH, "7-day"):
        assert value in ok["message"]
    assert result["message"] == ok["message"]
    assert site.paths() == ["/robots.txt", "/sm.xml"]


def test_fallback_sitemap_with_robots_lacking_a_sitemap_line_is_a_warning(
    audit: AuditFn, site: Site
) -> None:
    site.route("/robots.txt", robots_with())
    site.route("/sitemap.xml", reply(urlset([FRESH])))
    result = audit(site.url("/"))
    assert_platform_shape(result)
    assert codes_of(result) == ["100", "302", "200"]
    assert result["status"] == "WARNING"
    warn = result["checks"][1]
    assert result["message"] == warn["message"]
    assert warn["resource"] == site.url("/robots.txt")
    assert warn["recommendation"] == (
        f'Add the line "Sitemap: {site.url("/sitemap.xml")}" to {site.url("/robots.txt")}.'
    )
    assert warn["code"]["rationale"] == (
        "robots.txt is the first file every crawler reads, and a Sitemap: line there is how "
        "search engines discover the sitemap without a manual submission; without it some "
        "crawlers never find the sitemap at all."
    )
    data = data_of(result)
    assert data["robotsTxtListsSitemap"] is False
    assert data["candidateSitemaps"] == [
        site.url("/sitemap.xml"),
        site.url("/sitemap_index.xml"),
        site.url("/sitemap/sitemap.xml"),
    ]
    assert site.paths() == ["/robots.txt", "/sitemap.xml"]


def test_no_sitemap_with_robots_lacking_a_sitemap_line_is_a_fail(
    audit: AuditFn, site: Site
) -> None:
    site.route("/robots.txt", robots_with())
    result = audit(site.url("/"))
    assert_platform_shape(result)
    assert codes_of(result) == ["100", "400", "302"]
    assert result["status"] == "FAIL"
    fail, warn = result["checks"][1], result["checks"][2]
    assert result["message"] == fail["message"]
    assert fail["resource"] == site.base
    candidates = ", ".join(
        site.url(p) for p in ("/sitemap.xml", "/sitemap_index.xml", "/sitemap/sitemap.xml")
    )
    assert fail["recommendation"] == (
        f"Publish an XML sitemap at {site.base}/sitemap.xml (or any URL) that answers HTTP 200 "
        f"with a <urlset> or <sitemapindex> root, and reference it from {site.base}/robots.txt "
        f'with a "Sitemap:" line. Candidates tried: {candidates}.'
    )
    assert fail["code"]["rationale"] == (
        "Without a sitemap, search engines only discover pages by following links, so deep or "
        "new pages are indexed late or not at all and bring in no search traffic."
    )
    assert fail["code"]["description"] == "No sitemap found"
    # With no sitemap selected, 302 proposes the usual path.
    assert warn["recommendation"] == (
        f'Add the line "Sitemap: {site.base}/sitemap.xml" to {site.base}/robots.txt.'
    )
    data = data_of(result)
    assert data["selectedSitemapUrl"] is None
    assert data["sitemapType"] is None and data["entryCount"] is None
    assert data["sitemapHttpStatus"] is None and data["contentType"] is None
    assert data["issues"] == [
        f"{site.url('/sitemap.xml')}: HTTP 404",
        f"{site.url('/sitemap_index.xml')}: HTTP 404",
        f"{site.url('/sitemap/sitemap.xml')}: HTTP 404",
    ]


def test_missing_robots_is_no_finding_and_the_fallback_paths_are_tried(
    audit: AuditFn, site: Site
) -> None:
    site.route("/sitemap_index.xml", reply(sitemapindex([FRESH])))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "200"]
    data = data_of(result)
    assert data["robotsTxtHttpStatus"] == 404
    assert data["robotsTxtListsSitemap"] is False
    assert data["sitemapType"] == "sitemapindex"
    assert data["issues"] == [
        f"{site.url('/robots.txt')}: HTTP 404",
        f"{site.url('/sitemap.xml')}: HTTP 404",
    ]


@pytest.mark.parametrize("status", [403, 500, 401])
def test_robots_403_is_recorded_not_a_block(audit: AuditFn, site: Site, status: int) -> None:
    site.route("/robots.txt", reply("Forbidden", status=status, content_type="text/plain"))
    site.route("/sitemap.xml", reply(urlset([FRESH])))
    result = audit(site.url("/"))
    assert result["status"] == "SUCCESS"
    assert codes_of(result) == ["100", "200"]
    assert data_of(result)["robotsTxtHttpStatus"] == status
    assert data_of(result)["issues"] == [f"{site.url('/robots.txt')}: HTTP {status}"]


def test_stale_sitemap_warns_300(audit: AuditFn, site: Site) -> None:
    site.route("/robots.txt", robots_with("Sitemap: /sitemap.xml"))
    site.route("/sitemap.xml", reply(urlset(["2026-01-15", "2025-06-01T10:00:00+02:00"])))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "300"]
    assert result["status"] == "WARNING"
    check = result["checks"][1]
    assert check["resource"] == site.url("/sitemap.xml")
    assert check["recommendation"] == (
        f"Regenerate {site.url('/sitemap.xml')} whenever pages change so its <lastmod> values "
        "stay within 7 days; the latest is currently 2026-01-15T23:59:59Z."
    )
    assert check["code"]["rationale"] == (
        "Search engines use lastmod to decide which pages to recrawl; a sitemap that looks "
        "abandoned is trusted less, so new and updated pages are found and ranked later."
    )
    assert "2026-01-15T23:59:59Z" in check["message"] and "7-day" in check["message"]
    assert data_of(result)["latestLastmod"] == "2026-01-15T23:59:59Z"


def test_window_edges(audit: AuditFn, site: Site) -> None:
    site.route("/sitemap.xml", reply(urlset([days_ago(6.99)])))
    assert codes_of(audit(site.url("/"))) == ["100", "200"]
    site.route("/sitemap.xml", reply(urlset([days_ago(7.01)])))
    assert codes_of(audit(site.url("/"))) == ["100", "300"]
    site.route("/sitemap.xml", reply(urlset(["2099-01-01"])))  # the future counts as fresh
    assert codes_of(audit(site.url("/"))) == ["100", "200"]


def test_date_only_lastmod_of_today_is_always_fresh(audit: AuditFn, site: Site) -> None:
    today = datetime.now(UTC).date().isoformat()
    site.route("/sitemap.xml", reply(urlset([today])))
    result = audit(
        site.url("/"),
        settings=Settings(max_age_days=1, allow_private_networks=True, share_seconds=0),
    )
    assert codes_of(result) == ["100", "200"]
    assert data_of(result)["latestLastmod"] == f"{today}T23:59:59Z"


def test_no_parsable_lastmod_warns_301(audit: AuditFn, site: Site) -> None:
    site.route("/robots.txt", robots_with("Sitemap: /sitemap.xml"))
    site.route("/sitemap.xml", reply(urlset([None, "yesterday", "2026-10-16 09:30:00"])))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "301"]
    assert result["status"] == "WARNING"
    check = result["checks"][1]
    assert check["recommendation"] == (
        "Add a <lastmod> element in W3C Datetime format (for example 2026-10-16 or "
        "2026-10-16T09:30:00Z) to each <url> (or <sitemap>) entry of "
        f"{site.url('/sitemap.xml')}, set to the date the page last changed."
    )
    assert check["code"]["rationale"] == (
        "Without lastmod dates, search engines cannot tell which pages changed and crawl them "
        "all alike, so updates to important pages are picked up later."
    )
    data = data_of(result)
    assert data["latestLastmod"] is None and data["entryCount"] == 3
    assert data["issues"] == [
        f"{site.url('/sitemap.xml')}: unparsable <lastmod> 'yesterday'",
        f"{site.url('/sitemap.xml')}: unparsable <lastmod> '2026-10-16 09:30:00'",
    ]


def test_spec_pin_check(audit: AuditFn, site: Site) -> None:
    site.route("/sitemap.xml", reply(urlset([FRESH])))
    pin = audit(site.url("/"))["checks"][0]
    assert pin["status"] == "INFORMATION"
    assert pin["resource"] == "https://www.sitemaps.org/protocol.html"
    assert pin["recommendation"] is None and pin["code"]["rationale"] is None
    assert pin["code"]["id"] == "37A-SitemapAuditor-100"
    assert "0.9" in pin["message"]


# --- 501 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("event_url", "shown"),
    [
        (None, "null"),
        ("", ""),
        ("example.com/page", "example.com/page"),
        ("  ftp://user:secret@example.com/  ", "ftp://example.com/"),
        ("https://", "https://"),
        (12345, "12345"),
        ({"href": "https://x"}, '{"href": "https://x"}'),
    ],
)
def test_invalid_url_is_a_501_error(
    audit: AuditFn, site: Site, event_url: object, shown: str
) -> None:
    result = audit(event_url, basicAuthSecretId="never-looked-at", preferences={"maxAgeDays": "x"})
    assert_platform_shape(result)
    assert result["status"] == "ERROR"
    assert codes_of(result) == ["100", "501"]
    check = result["checks"][1]
    assert check["resource"] is None
    assert check["recommendation"] == (
        "Audit a URL with a scheme and a hostname, such as https://example.com/, "
        f"instead of {shown}."
    )
    assert check["code"]["rationale"] is None
    assert result["message"] == check["message"]
    assert "secret" not in json.dumps(result)
    assert data_of(result) == DATA_MAP_OF_501


def test_missing_url_key_and_non_dict_event(audit: AuditFn) -> None:
    from sitemap_auditor.handler import run

    events: tuple[object, ...] = ({}, None, [], "https://example.com/")
    for event in events:
        result = run(event, None, LOCAL)
        assert codes_of(result) == ["100", "501"]
        assert result["checks"][1]["recommendation"].endswith("instead of null.")


# --- candidates and parsing through HTTP --------------------------------------------------------


def test_candidates_in_order_until_one_parses(audit: AuditFn, site: Site) -> None:
    site.route(
        "/robots.txt",
        robots_with(
            "Sitemap: /missing.xml",
            "Sitemap: /feed.xml",
            "sitemap: /good.xml",
            "Sitemap: /never-fetched.xml",
            "Sitemap: /missing.xml",
        ),
    )
    site.route("/feed.xml", reply(b'<?xml version="1.0"?><rss version="2.0"><channel/></rss>'))
    site.route(
        "/good.xml", reply(urlset([FRESH]), status=203, content_type="text/xml; charset=UTF-8")
    )
    result = audit(site.url("/"))
    data = data_of(result)
    assert data["candidateSitemaps"] == [
        site.url("/missing.xml"),
        site.url("/feed.xml"),
        site.url("/good.xml"),
        site.url("/never-fetched.xml"),
    ]
    assert data["selectedSitemapUrl"] == site.url("/good.xml")
    assert data["sitemapHttpStatus"] == 203
    assert data["contentType"] == "text/xml; charset=UTF-8"
    assert data["issues"] == [
        f"{site.url('/missing.xml')}: HTTP 404",
        f"{site.url('/feed.xml')}: unknown root element <rss>",
    ]
    assert "/never-fetched.xml" not in site.paths()


def test_a_plain_text_list_of_urls_is_an_unknown_root_element(audit: AuditFn, site: Site) -> None:
    # auditor-doc.md: "Sitemaps in other formats (RSS, Atom, plain-text URL lists) are reported
    # as an unknown root element and do not count."
    body = f"\ufeff{site.url('/a')}\r\n{site.url('/b')}\r\n".encode()
    site.route("/sitemap.xml", reply(body, content_type="text/plain"))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "400"]
    assert data_of(result)["issues"][1] == (
        f"{site.url('/sitemap.xml')}: unknown root element (none: a plain-text list of URLs)"
    )


def test_sitemap_index_children_are_never_fetched(audit: AuditFn, site: Site) -> None:
    site.route("/sitemap.xml", reply(sitemapindex([FRESH, FRESH], base=site.base)))
    site.route("/s0.xml", reply(urlset([FRESH])))
    result = audit(site.url("/"))
    assert data_of(result)["sitemapType"] == "sitemapindex"
    assert data_of(result)["entryCount"] == 2
    assert "/s0.xml" not in site.paths()


def test_gzipped_sitemap_from_robots(audit: AuditFn, site: Site) -> None:
    site.route("/robots.txt", robots_with("Sitemap: /sitemap.xml.gz"))
    site.route(
        "/sitemap.xml.gz", reply(gz(urlset([FRESH])), content_type="application/octet-stream")
    )
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "200"]
    assert data_of(result)["contentType"] == "application/octet-stream"


def test_robots_redirect_and_relative_sitemap_resolve_against_its_final_url(
    audit: AuditFn, site: Site
) -> None:
    site.route("/robots.txt", redirect("/seo/robots-live.txt", 301))
    site.route("/seo/robots-live.txt", robots_with("Sitemap: maps/sitemap.xml"))
    site.route("/seo/maps/sitemap.xml", reply(urlset([FRESH])))
    result = audit(site.url("/"))
    data = data_of(result)
    assert data["robotsTxtUrl"] == site.url("/robots.txt")
    assert data["robotsTxtHttpStatus"] == 200
    assert data["selectedSitemapUrl"] == site.url("/seo/maps/sitemap.xml")


def test_sitemap_candidate_redirect_keeps_the_listed_url(audit: AuditFn, site: Site) -> None:
    site.route("/sitemap.xml", redirect("/wp-sitemap.xml", 301))
    site.route("/wp-sitemap.xml", reply(sitemapindex([FRESH])))
    data = data_of(audit(site.url("/")))
    assert data["selectedSitemapUrl"] == site.url("/sitemap.xml")
    assert data["sitemapHttpStatus"] == 200


@pytest.mark.parametrize(
    ("body", "issue_start"),
    [
        (b"", "empty body"),
        (b"<urlset><url><lastmod>2026-01-01</lastmod></url>", "not well-formed XML at line 1"),
        (
            b'<!DOCTYPE u [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
            b"<urlset>&b;</urlset>",
            "refused XML construct: entity declaration 'a'",
        ),
        (b"<html><head><title>Home</title></head></html>", "unknown root element <html>"),
    ],
)
def test_rejected_candidates_fail_400_with_why(
    audit: AuditFn, site: Site, body: bytes, issue_start: str
) -> None:
    site.route("/robots.txt", robots_with("Sitemap: /sitemap.xml"))
    site.route("/sitemap.xml", reply(body))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "400"]
    issues = data_of(result)["issues"]
    assert len(issues) == 1
    assert issues[0].startswith(f"{site.url('/sitemap.xml')}: {issue_start}")


def test_fifty_thousand_unparsable_lastmods_keep_the_result_small(
    audit: AuditFn, site: Site
) -> None:
    site.route("/sitemap.xml", reply(urlset([f"{i}-" + "z" * 300 for i in range(50_000)])))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "301"]
    issues = data_of(result)["issues"]
    assert issues[0] == f"{site.url('/robots.txt')}: HTTP 404"
    assert len(issues) == 1 + 21
    assert issues[-1] == f"{site.url('/sitemap.xml')}: 50000 unparsable <lastmod> values in all"
    assert all(len(i) <= 500 for i in issues)
    assert len(json.dumps(result)) < 40_000


def test_huge_robots_is_read_up_to_500_kib(audit: AuditFn, site: Site) -> None:
    body = "Sitemap: /sitemap.xml\n" + "# padding\n" * 1_000_000 + "Sitemap: /late.xml\n"
    site.route("/robots.txt", reply(body, content_type="text/plain"))
    site.route("/sitemap.xml", reply(urlset([FRESH])))
    result = audit(site.url("/"))
    data = data_of(result)
    assert data["candidateSitemaps"] == [site.url("/sitemap.xml")]
    assert data["robotsTxtListsSitemap"] is True
    assert codes_of(result) == ["100", "200"]


def test_many_sitemap_lines_keep_the_result_under_the_lambda_limit(
    audit: AuditFn, site: Site
) -> None:
    lines = [f'Sitemap: /{i}"{"é" * 900}.xml' for i in range(5_000)]
    site.route("/robots.txt", robots_with(*lines))
    result = audit(site.url("/"), context=None)
    assert len(json.dumps(result).encode()) < 3 * 1024 * 1024
    assert result["status"] == "FAIL"


# --- preferences and settings -------------------------------------------------------------------


def test_preferences_max_age_days_overrides_the_window(audit: AuditFn, site: Site) -> None:
    site.route("/sitemap.xml", reply(urlset([days_ago(20)])))
    result = audit(site.url("/"), preferences={"maxAgeDays": 30})
    assert codes_of(result) == ["100", "200"]
    assert data_of(result)["maxAgeDays"] == 30
    huge = audit(site.url("/"), preferences={"maxAgeDays": 10**30})
    assert codes_of(huge) == ["100", "200"]


@pytest.mark.parametrize("value", ["30", 0, -1, 2.5, 30.0, True, [30], {"d": 1}])
def test_invalid_preferences_are_ignored_with_an_issue(
    audit: AuditFn, site: Site, value: object
) -> None:
    site.route("/sitemap.xml", reply(urlset([days_ago(20)])))
    result = audit(site.url("/"), preferences={"maxAgeDays": value})
    data = data_of(result)
    assert data["maxAgeDays"] == 7
    assert codes_of(result) == ["100", "300"]
    assert [i for i in data["issues"] if i.startswith("preferences.maxAgeDays")] == [
        data["issues"][-1]
    ]
    assert json.dumps(value) in data["issues"][-1]


@pytest.mark.parametrize("preferences", [None, {}, {"maxAgeDays": None}, "x", {"other": 1}])
def test_absent_preferences_mean_no_override(
    audit: AuditFn, site: Site, preferences: object
) -> None:
    site.route("/sitemap.xml", reply(urlset([days_ago(20)])))
    result = audit(site.url("/"), preferences=preferences)
    assert data_of(result)["maxAgeDays"] == 7
    assert data_of(result)["issues"] == [f"{site.url('/robots.txt')}: HTTP 404"]


def test_deployment_window(audit: AuditFn, site: Site) -> None:
    site.route("/sitemap.xml", reply(urlset([days_ago(20)])))
    result = audit(
        site.url("/"),
        settings=Settings(max_age_days=45, allow_private_networks=True, share_seconds=0),
    )
    assert codes_of(result) == ["100", "200"]
    assert data_of(result)["maxAgeDays"] == 45


def test_issue_kinds_come_in_the_contract_order(audit: AuditFn, site: Site) -> None:
    site.route("/robots.txt", redirect("/robots2.txt"))
    site.route(
        "/robots2.txt", reply("Sitemap: ftp://x/y\nSitemap: /a.xml\nSitemap: /b.xml", status=200)
    )
    site.route("/b.xml", reply(urlset(["bad", days_ago(1)])))
    result = audit(site.url("/"), preferences={"maxAgeDays": "7"})
    issues = data_of(result)["issues"]
    assert [i.split(": ", 1)[0] for i in issues] == [
        site.url("/a.xml"),
        site.url("/robots.txt"),
        "preferences.maxAgeDays",
        site.url("/b.xml"),
    ]


# --- credentials, logs, defects -----------------------------------------------------------------


def test_credentials_go_only_to_the_site_origin(
    audit: AuditFn, site: Site, other_site: Site, logs: LogCapture
) -> None:
    site.route(
        "/robots.txt",
        robots_with(f"Sitemap: {other_site.url('/elsewhere.xml')}", "Sitemap: /own.xml"),
    )
    other_site.route("/elsewhere.xml", reply("<nope/>"))
    site.route("/own.xml", redirect(other_site.url("/moved.xml")))
    other_site.route("/moved.xml", reply(urlset([FRESH])))
    password = "pa55-w0rd-ü"
    result = audit(site.url("/"), basicAuth={"username": "bob", "password": password})
    assert codes_of(result) == ["100", "200"]
    assert all("authorization" in s.headers for s in site.seen)
    assert all("authorization" not in s.headers for s in other_site.seen)
    assert len(other_site.seen) == 2
    assert password not in json.dumps(result) and password not in logs.text()
    assert "Ym9iOnBhNTUtdzByZC3DvA" not in logs.text()


def test_log_lines_are_json_with_the_run_id(audit: AuditFn, site: Site, logs: LogCapture) -> None:
    site.route("/sitemap.xml", reply(urlset([FRESH])))
    audit(site.url("/"))
    lines = logs.lines()
    assert lines, "no log line"
    assert all(line["run_id"] == "test-run" for line in lines)
    messages = [line["message"] for line in lines]
    assert messages[0] == "audit started" and messages[-1] == "audit finished"
    assert "fetched" in messages


def test_a_run_id_holding_the_password_is_logged_without_it(
    audit: AuditFn, site: Site, logs: LogCapture
) -> None:
    # docs/contract.md §8: the password appears on no log line, the run id's field included.
    site.route("/sitemap.xml", reply(urlset([FRESH])))
    password = "Zq7-vault-Pa55word"
    audit(site.url("/"), id=f"run {password}", basicAuth={"username": "u", "password": password})
    lines = logs.lines()
    assert lines and all(line["run_id"] == "run ***" for line in lines), lines[0]
    assert password not in logs.text()


@pytest.mark.parametrize("spelled", [False, True], ids=["plain", "percent-encoded"])
def test_a_run_id_cut_across_a_copy_of_the_password_logs_none_of_it(
    audit: AuditFn, site: Site, logs: LogCapture, spelled: bool
) -> None:
    # The id holds the password twenty times, then once more across where it is cut: hiding
    # the first copies shortens the text, and must not bring the cut copy's start into the
    # 2,048 characters logged.
    from sitemap_auditor.audit.observability import MAX_LOG_RUN_ID_CHARS
    from sitemap_auditor.core.credentials import Credentials

    site.route("/sitemap.xml", reply(urlset([FRESH])))
    password = "Zq7-vault-Pa55word-long-secret-xy"
    room = MAX_LOG_RUN_ID_CHARS + max(map(len, Credentials("u", password).secrets()))
    head = (password + " ") * 20
    # The last copy in another spelling of its characters, hidden as the password is.
    last = "%5A" + password[1:].replace("a", "%61") if spelled else password
    run_id = head + "x" * (room - 25 - len(head)) + last
    audit(site.url("/"), id=run_id, basicAuth={"username": "u", "password": password})
    assert password[:12] not in logs.text() and last[:12] not in logs.text()


def test_a_defect_becomes_the_platform_error_response(
    audit: AuditFn, site: Site, logs: LogCapture
) -> None:
    password = "hunter2-very-secret"

    def broken_resolver(host: str, port: int) -> list[str]:
        raise RuntimeError(f"resolver bug   with\n{password} inside")

    result = audit(
        f"http://broken.test:{site.port}/",
        resolver=broken_resolver,
        basicAuth={"username": "u", "password": password},
    )
    assert result["status"] == "ERROR"
    assert result["checks"] is None
    assert (
        result["message"]
        == "The audit could not finish: RuntimeError: resolver bug with *** inside"
    )
    assert list(result) == ["version", "auditor", "status", "date", "message", "groupId", "checks"]
    assert "RuntimeError" in logs.text()
    assert password not in logs.text()


def test_error_message_is_cut_at_300_characters(audit: AuditFn, site: Site) -> None:
    def broken_resolver(host: str, port: int) -> list[str]:
        raise ValueError("x" * 1000)

    result = audit(f"http://broken.test:{site.port}/", resolver=broken_resolver)
    assert len(result["message"]) == 300 and result["message"].endswith("...")


# --- deadlines ----------------------------------------------------------------------------------


def test_robots_that_cannot_be_read_whole_counts_as_not_served(site: Site) -> None:
    site.route("/robots.txt", drip(b"Sitemap: /s.xml\n", b"#", interval=0.2, total_seconds=10))
    fetcher = Fetcher(
        FetchPolicy(
            origin=("http", "127.0.0.1", site.port), allow_private_networks=True, deadline_s=1.0
        )
    )
    found = probe.robots_txt(fetcher, site.url("/robots.txt"))
    assert found.status == 200
    assert found.read_whole is False
    assert found.sitemaps == ()
    assert found.issues == (
        f"{site.url('/robots.txt')}: HTTP 200 but the body could not be read whole: "
        "fetch error (timeout: no complete answer within 1 s)",
    )


class _Context:
    def __init__(self, millis: int) -> None:
        self.millis = millis

    def get_remaining_time_in_millis(self) -> int:
        return self.millis


def test_lambda_time_budget_bounds_the_audit(site: Site) -> None:
    from sitemap_auditor.handler import run

    site.route("/robots.txt", drip(b"Sitemap: /s.xml\n", b"#", interval=0.2, total_seconds=10))
    result = run({"id": "x", "url": site.url("/")}, _Context(4_500), LOCAL)
    issues = data_of(result)["issues"]
    assert result["status"] == "FAIL"
    # 4.5 s left less the 3 s reserve: the fetch is given what remains of 1.5 s when it starts,
    # a few milliseconds less on a loaded machine.
    cut = re.fullmatch(
        re.escape(f"{site.url('/robots.txt')}: HTTP 200 but the body could not be read whole: ")
        + r"fetch error \(timeout: the audit ran out of time after ([0-9.]+) s\)",
        issues[0],
    )
    assert cut is not None, issues[0]
    assert 1.0 < float(cut.group(1)) <= 1.5
    assert issues[1:] == [
        f"{site.url(p)}: not fetched: the audit ran out of time"
        for p in ("/sitemap.xml", "/sitemap_index.xml", "/sitemap/sitemap.xml")
    ]


@pytest.mark.slow
def test_a_sitemap_dripping_past_30_seconds_is_cut_off(audit: AuditFn, site: Site) -> None:
    site.route("/robots.txt", robots_with("Sitemap: /drip.xml", "Sitemap: /ok.xml"))
    site.route("/drip.xml", drip(b"<urlset><url>", b" ", interval=2.0, total_seconds=45))
    site.route("/ok.xml", reply(urlset([FRESH])))
    import time

    start = time.monotonic()
    result = audit(site.url("/"))
    elapsed = time.monotonic() - start
    assert 29 < elapsed < 35
    assert data_of(result)["issues"] == [
        f"{site.url('/drip.xml')}: fetch error (timeout: no complete answer within 30 s)"
    ]
    assert data_of(result)["selectedSitemapUrl"] == site.url("/ok.xml")


@pytest.mark.slow
def test_sixty_megabyte_sitemap_is_refused(audit: AuditFn, site: Site) -> None:
    def body() -> Any:
        yield b'<?xml version="1.0"?><urlset>'
        entry = b"<url><loc>https://example.com/page</loc><lastmod>2026-01-01</lastmod></url>\n"
        for _ in range(60 * 1024 * 1024 // len(entry)):
            yield entry

    site.route("/sitemap.xml", stream(body()))
    result = audit(site.url("/"))
    assert data_of(result)["issues"][1] == (
        f"{site.url('/sitemap.xml')}: body larger than 52,428,800 bytes"
    )
    assert codes_of(result) == ["100", "400"]


def test_a_lastmod_half_a_second_past_the_window_is_stale(site: Site) -> None:
    # now - latest > maxAgeDays x 24 h (CONTRACT §6): the age was cut to whole seconds, and a
    # lastmod under a second past the window was fresh (200).
    from datetime import timedelta

    from sitemap_auditor.handler import run

    latest = datetime.now(UTC) - timedelta(days=7, milliseconds=600)
    site.route("/robots.txt", robots_with(f"Sitemap: {site.url('/s.xml')}"))
    site.route("/s.xml", reply(urlset([latest.isoformat(timespec="milliseconds")])))
    result = run({"id": "edge", "url": site.url("/")}, None, LOCAL)
    assert codes_of(result) == ["100", "300"]
