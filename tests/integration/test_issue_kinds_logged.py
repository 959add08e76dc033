"""The `issue_kinds` log field: the stable kinds of an audit's issues, through the handler."""

from __future__ import annotations

from support.documents import urlset
from support.results import AuditFn, LogCapture, days_ago

from harness.servers import Site, reply, robots_with


def kinds(logs: LogCapture) -> list[str]:
    (finished,) = [x for x in logs.lines() if x.get("message") == "audit finished"]
    return list(finished["issue_kinds"])


def test_kinds_come_from_the_issues_not_their_wording(
    audit: AuditFn, site: Site, logs: LogCapture
) -> None:
    site.route("/robots.txt", robots_with("Sitemaps: /a.xml", "Sitemap: ftp://x/b.xml"))
    site.route("/a.xml", reply(urlset([days_ago(1), "2026-13-01", "nope"])))
    result = audit(site.url("/"), preferences={"maxAgeDays": "x"})
    assert result["status"] == "SUCCESS"
    assert kinds(logs) == [
        "lenient-sitemap-key",
        "skipped-sitemap-value",
        "ignored-preference",
        "unparsable-lastmod",
    ]


def test_fetch_and_status_kinds(audit: AuditFn, site: Site, logs: LogCapture) -> None:
    site.route("/robots.txt", reply(b"", status=404))
    site.route("/sitemap.xml", reply(b"<rss/>"))
    result = audit(site.url("/"))
    assert result["status"] == "FAIL"
    # robots.txt 404, sitemap.xml an RSS feed, the two other fallback paths 404 too.
    assert kinds(logs) == ["http-status", "unknown-root"]
