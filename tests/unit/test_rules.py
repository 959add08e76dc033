"""The rules as pure functions (docs/contract.md §6): which CheckCodes fire for which inputs."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from sitemap_auditor.audit import rules
from sitemap_auditor.audit.rules import RuleInputs
from sitemap_auditor.core import codes
from sitemap_auditor.core.facts import SelectedSitemap
from sitemap_auditor.core.parser import ParsedSitemap
from sitemap_auditor.core.site import resolve

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
SITE = resolve("https://www.example.com/a/page")
assert SITE is not None
SITEMAP = "https://www.example.com/sitemap.xml"
FALLBACKS = tuple(f"https://www.example.com{p}" for p in ("/sitemap.xml", "/sitemap_index.xml"))


def selected(latest: datetime | None, root: str = "urlset", entries: int = 3) -> SelectedSitemap:
    return SelectedSitemap(SITEMAP, 200, "text/xml", ParsedSitemap(root, entries, latest, (), 0))


def inputs(chosen: SelectedSitemap | None = None, **changes: object) -> RuleInputs:
    base = RuleInputs(
        url_value="https://www.example.com/a/page",
        site=SITE,
        robots_status=200,
        robots_lists_sitemap=True,
        robots_served_without_sitemap=False,
        candidates=(SITEMAP,),
        selected=chosen,
        max_age_days=7,
        now=NOW,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def fired(f: RuleInputs) -> list[str]:
    return [x.code.number for x in rules.evaluate(f)]


def test_a_fresh_sitemap_gives_100_then_200() -> None:
    assert fired(inputs(selected(NOW - timedelta(days=1)))) == ["100", "200"]


def test_the_window_is_exact_to_the_microsecond() -> None:
    edge = NOW - timedelta(days=7)
    assert fired(inputs(selected(edge))) == ["100", "200"]
    assert fired(inputs(selected(edge - timedelta(seconds=1)))) == ["100", "300"]
    # now - latest > 7 x 24 h (CONTRACT §6): half a second past the window was cut to whole
    # seconds, and fresh.
    assert fired(inputs(selected(edge - timedelta(microseconds=510_000)))) == ["100", "300"]
    assert fired(inputs(selected(edge - timedelta(microseconds=1)))) == ["100", "300"]


def test_a_lastmod_in_the_future_is_fresh() -> None:
    assert fired(inputs(selected(NOW + timedelta(days=400)))) == ["100", "200"]


def test_no_parsable_lastmod_gives_301_and_no_freshness_verdict() -> None:
    assert fired(inputs(selected(None))) == ["100", "301"]


def test_nothing_parsed_is_400() -> None:
    assert fired(inputs(None, candidates=FALLBACKS, robots_lists_sitemap=False)) == ["100", "400"]


def test_robots_served_without_a_sitemap_line_adds_302_whatever_else_happened() -> None:
    without = {"robots_served_without_sitemap": True, "robots_lists_sitemap": False}
    assert fired(inputs(None, **without)) == ["100", "400", "302"]
    assert fired(inputs(selected(NOW), **without)) == ["100", "302", "200"]
    assert fired(inputs(selected(NOW - timedelta(days=30)), **without)) == ["100", "300", "302"]


def test_no_site_root_is_501_and_nothing_else() -> None:
    assert fired(inputs(None, site=None, url_value=None)) == ["100", "501"]


def test_stale_values_name_the_age_in_whole_days() -> None:
    (stale,) = [
        x
        for x in rules.evaluate(inputs(selected(NOW - timedelta(days=9, hours=23))))
        if x.code is codes.WARN_300
    ]
    assert stale.values["ageDays"] == 9
    assert stale.values["latestLastmod"] == "2026-11-21T13:00:00Z"
    assert stale.resource == SITEMAP


def test_a_window_of_any_size_does_not_overflow() -> None:
    assert fired(inputs(selected(datetime(1, 1, 1, tzinfo=UTC)), max_age_days=10**30)) == [
        "100",
        "200",
    ]


@pytest.mark.parametrize(
    ("chosen", "resource_of"),
    [
        (
            None,
            {
                "100": codes.SPEC_URL,
                "400": "https://www.example.com",
                "302": "https://www.example.com/robots.txt",
            },
        ),
        (
            selected(NOW),
            {"100": codes.SPEC_URL, "302": "https://www.example.com/robots.txt", "200": SITEMAP},
        ),
    ],
)
def test_each_check_is_about_its_documented_resource(
    chosen: SelectedSitemap | None, resource_of: dict[str, str]
) -> None:
    f = inputs(chosen, robots_served_without_sitemap=True)
    assert {x.code.number: x.resource for x in rules.evaluate(f)} == resource_of


def test_302_names_the_selected_sitemap_or_the_usual_path() -> None:
    def sitemap_url(chosen: SelectedSitemap | None) -> object:
        f = inputs(chosen, robots_served_without_sitemap=True)
        return rules.check_302_robots_without_sitemap(f).values["sitemapUrl"]  # type: ignore[union-attr]

    assert sitemap_url(selected(NOW)) == SITEMAP
    assert sitemap_url(None) == "https://www.example.com/sitemap.xml"


def test_every_rule_is_in_table_order() -> None:
    assert [r.__name__.split("_")[1] for r in rules.RULES] == [c.number for c in codes.ALL]


def test_the_code_table_is_the_one_list_of_rules() -> None:
    # RULES is derived from codes.ALL: a second rule for a code is refused where it is written.
    assert len(rules.RULES) == len(codes.ALL)
    with pytest.raises(ValueError, match="37A-SitemapAuditor-100 has two rules"):
        rules.rule(codes.INFO_100)(lambda f: None)
