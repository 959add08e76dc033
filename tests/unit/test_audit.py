"""One audit's steps as values: facts in, the platform's Response out, no socket, no clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sitemap_auditor.audit import response
from sitemap_auditor.audit import steps as audit
from sitemap_auditor.audit.config import Settings
from sitemap_auditor.audit.request import parse
from sitemap_auditor.core.credentials import Credentials
from sitemap_auditor.core.facts import CandidateOutcome, RobotsProbe, SelectedSitemap, SiteFacts
from sitemap_auditor.core.issues import Kind, issue
from sitemap_auditor.core.parser import ParsedSitemap
from sitemap_auditor.core.site import SiteBase, resolve

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
_SITE = resolve("https://www.example.com/page")
assert _SITE is not None
SITE: SiteBase = _SITE
SITEMAP = "https://www.example.com/sitemap.xml"
SETTINGS = Settings(max_age_days=7)


def facts(latest: datetime | None, unparsable: tuple[str, ...] = (), total: int = 0) -> SiteFacts:
    parsed = ParsedSitemap("urlset", 3, latest, unparsable, total, "x" if latest else None)
    chosen = SelectedSitemap(SITEMAP, 200, "application/xml", parsed)
    robots = RobotsProbe(
        200,
        True,
        (SITEMAP,),
        (),
        (issue("https://www.example.com/robots.txt", Kind.SKIPPED_SITEMAP, "ignored"),),
    )
    return SiteFacts(robots, (SITEMAP,), (CandidateOutcome(SITEMAP, chosen, None),))


def apply_rules(event: dict[str, Any], value: SiteFacts) -> dict[str, Any]:
    """The Response the rules give for these facts and this event."""
    return response.render(audit.apply_rules(SITE, parse(event), value, SETTINGS, NOW))


def codes(result: dict[str, Any]) -> list[str]:
    return [c["code"]["id"].rsplit("-", 1)[1] for c in result["checks"]]


def test_a_fresh_sitemap_listed_in_robots_passes() -> None:
    result = apply_rules({"url": SITE.url}, facts(NOW - timedelta(days=1)))
    assert result["status"] == "SUCCESS"
    assert codes(result) == ["100", "200"]


def test_the_event_window_decides_and_a_stale_sitemap_fails() -> None:
    stale = facts(NOW - timedelta(days=10))
    assert codes(apply_rules({"url": SITE.url}, stale))[-1] == "300"
    event = {"url": SITE.url, "preferences": {"maxAgeDays": 30}}
    assert codes(apply_rules(event, stale))[-1] == "200"


def test_issues_come_in_the_contract_order_and_are_observed_as_values() -> None:
    value = facts(NOW, unparsable=("yesterday",), total=30)
    event = {"url": SITE.url, "preferences": {"maxAgeDays": "soon"}}
    found = audit.apply_rules(SITE, parse(event), value, SETTINGS, NOW)
    result = response.render(found)
    assert [i.kind for i in found.issues] == [
        Kind.SKIPPED_SITEMAP,
        Kind.IGNORED_PREFERENCE,
        Kind.UNPARSABLE_LASTMOD,
        Kind.UNPARSABLE_TOTAL,
    ]
    assert result["checks"][0]["data"]["issues"] == [str(i) for i in found.issues]
    assert found.latest_lastmod_written == "x"


def test_an_invalid_url_is_the_501_with_nothing_fetched() -> None:
    result = response.render(audit.invalid_url("not a url", SETTINGS, NOW))
    assert codes(result) == ["100", "501"]
    assert result["status"] == "ERROR"
    assert result["checks"][0]["data"]["issues"] == []


def test_sharing_keys_and_what_may_leave_the_process() -> None:
    creds = Credentials("editor", "s3cr3t")
    plain = audit.share_request(SITE, None, SETTINGS, None, None, b"k" * 32)
    keyed = audit.share_request(SITE, creds, SETTINGS, 5.0, None, b"k" * 32)
    other = audit.share_request(SITE, creds, SETTINGS, 5.0, None, b"j" * 32)
    assert len({plain.key, keyed.key, other.key}) == 3
    assert "s3cr3t" not in keyed.key and keyed.budget_end == 5.0
    assert plain.publishable(b"s3cr3t") and keyed.publishable(b"facts")
    assert not keyed.publishable(b"<loc>https://editor:s3cr3t@www.example.com/</loc>")
