"""The audit's rules: one pure function per CheckCode, from the audit's facts to a fired check.

The CheckCode table (codes.ALL) is the one list: each rule is registered for its code with
`@rule(code)`, fires only that code, and `RULES` is derived in the table's order (a code
without its rule, or a rule for a code twice, fails at import)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import wraps

from sitemap_auditor.core import codes
from sitemap_auditor.core.codes import CheckCode
from sitemap_auditor.core.facts import SelectedSitemap
from sitemap_auditor.core.lastmod import format_instant
from sitemap_auditor.core.site import SiteBase, describe_url_value

__all__ = [
    "RULES",
    "Fired",
    "Firing",
    "Rule",
    "RuleInputs",
    "check_100_spec_pin",
    "check_200_fresh",
    "check_300_stale",
    "check_301_no_lastmod",
    "check_302_robots_without_sitemap",
    "check_400_no_sitemap",
    "check_501_invalid_url",
    "evaluate",
    "rule",
]


@dataclass(frozen=True)
class RuleInputs:
    """Everything the rules look at, gathered by the pipeline."""

    url_value: object
    site: SiteBase | None
    robots_status: int | None
    robots_lists_sitemap: bool
    robots_served_without_sitemap: bool  # answered 200, read whole, no usable Sitemap: line
    candidates: tuple[str, ...]
    selected: SelectedSitemap | None
    max_age_days: int
    now: datetime


@dataclass(frozen=True)
class Fired:
    """A check that fired: its code, the resource it is about and the values for its texts."""

    code: CheckCode
    resource: str | None
    values: dict[str, object]


Rule = Callable[[RuleInputs], Fired | None]
# What a rule says when its code fires: the resource and the values of its texts.
Firing = tuple[str | None, dict[str, object]]
_BY_CODE: dict[CheckCode, Rule] = {}


def rule(code: CheckCode) -> Callable[[Callable[[RuleInputs], Firing | None]], Rule]:
    """Register a rule as the one for `code`: it fires `code` whenever it answers."""

    def register(decide: Callable[[RuleInputs], Firing | None]) -> Rule:
        if code in _BY_CODE:
            raise ValueError(f"{code.id} has two rules")

        @wraps(decide)
        def fire(f: RuleInputs) -> Fired | None:
            firing = decide(f)
            return None if firing is None else Fired(code, *firing)

        _BY_CODE[code] = fire
        return fire

    return register


def _sitemap_values(f: RuleInputs, s: SelectedSitemap) -> dict[str, object]:
    latest = s.parsed.latest_lastmod
    return {
        "sitemapUrl": s.url,
        "sitemapType": s.parsed.root,
        "entryCount": s.parsed.entry_count,
        "latestLastmod": format_instant(latest) if latest else None,
        "maxAgeDays": f.max_age_days,
    }


_ONE_US = timedelta(microseconds=1)


def _age_seconds(f: RuleInputs, latest: datetime) -> int:
    # Integer seconds: a window of 10**30 days must not overflow timedelta.
    return int((f.now - latest).total_seconds())


def _is_stale(f: RuleInputs, latest: datetime) -> bool:
    # now - latest > maxAgeDays x 24 h (CONTRACT §6), to the microsecond: a lastmod half a
    # second past the window is stale. Whole microseconds, as ints: no window overflows them.
    return (f.now - latest) // _ONE_US > f.max_age_days * 86_400 * 1_000_000


@rule(codes.INFO_100)
def check_100_spec_pin(f: RuleInputs) -> Firing | None:
    """Always: the Sitemaps protocol version this auditor implements."""
    return codes.SPEC_URL, {"specUrl": codes.SPEC_URL}


@rule(codes.FAIL_400)
def check_400_no_sitemap(f: RuleInputs) -> Firing | None:
    """No candidate answered 2xx with a <urlset> or <sitemapindex> root."""
    if f.site is None or f.selected is not None:
        return None
    return (
        f.site.url,
        {
            "siteBase": f.site.url,
            "robotsTxtUrl": f.site.robots_txt_url,
            "candidates": ", ".join(f.candidates),
            "candidateCount": len(f.candidates),
        },
    )


@rule(codes.WARN_300)
def check_300_stale(f: RuleInputs) -> Firing | None:
    """The latest <lastmod> is older than the freshness window."""
    s = f.selected
    if s is None or s.parsed.latest_lastmod is None or not _is_stale(f, s.parsed.latest_lastmod):
        return None
    values = _sitemap_values(f, s)
    values["ageDays"] = _age_seconds(f, s.parsed.latest_lastmod) // 86_400
    return s.url, values


@rule(codes.WARN_301)
def check_301_no_lastmod(f: RuleInputs) -> Firing | None:
    """The sitemap parsed but no entry has a parsable <lastmod>."""
    s = f.selected
    if s is None or s.parsed.latest_lastmod is not None:
        return None
    return s.url, _sitemap_values(f, s)


@rule(codes.WARN_302)
def check_302_robots_without_sitemap(f: RuleInputs) -> Firing | None:
    """robots.txt answered 200 but lists no Sitemap: line."""
    if f.site is None or not f.robots_served_without_sitemap:
        return None
    sitemap_url = f.selected.url if f.selected else f"{f.site.url}/sitemap.xml"
    return f.site.robots_txt_url, {"robotsTxtUrl": f.site.robots_txt_url, "sitemapUrl": sitemap_url}


@rule(codes.OK_200)
def check_200_fresh(f: RuleInputs) -> Firing | None:
    """The sitemap parsed and its latest <lastmod> is within the window."""
    s = f.selected
    if s is None or s.parsed.latest_lastmod is None or _is_stale(f, s.parsed.latest_lastmod):
        return None
    return s.url, _sitemap_values(f, s)


@rule(codes.ERROR_501)
def check_501_invalid_url(f: RuleInputs) -> Firing | None:
    """The audited URL gives no site root."""
    if f.site is not None:
        return None
    return None, {"url": describe_url_value(f.url_value)}


# One rule per CheckCode, in the table's order (codes.ALL): derived, never listed by hand.
if set(_BY_CODE) != set(codes.ALL):
    raise ImportError("every CheckCode of codes.ALL needs exactly one rule")
RULES: tuple[Rule, ...] = tuple(_BY_CODE[code] for code in codes.ALL)


def evaluate(facts: RuleInputs) -> list[Fired]:
    """Run every rule and return the checks that fired, in table order."""
    return [fired for rule in RULES if (fired := rule(facts)) is not None]
