"""The CheckCodes of this auditor and their texts, in the documentation's table order.

Recommendations and rationales are auditor-doc.md's texts to the letter, with the element names the
rendered page lost restored (docs/contract.md §2). Placeholders are filled with str.format.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "ALL",
    "BY_ID",
    "ERROR",
    "ERROR_501",
    "FAIL",
    "FAIL_400",
    "INFORMATION",
    "INFO_100",
    "OK_200",
    "SPEC_URL",
    "SUCCESS",
    "WARNING",
    "WARN_300",
    "WARN_301",
    "WARN_302",
    "CheckCode",
    "Status",
]


class Status(StrEnum):
    """A check's or an audit's status; its value is the Response's string."""

    INFORMATION = "INFORMATION"
    SUCCESS = "SUCCESS"
    WARNING = "WARNING"
    FAIL = "FAIL"
    ERROR = "ERROR"


INFORMATION = Status.INFORMATION
SUCCESS = Status.SUCCESS
WARNING = Status.WARNING
FAIL = Status.FAIL
ERROR = Status.ERROR

SPEC_URL = "https://www.sitemaps.org/protocol.html"


@dataclass(frozen=True)
class CheckCode:
    """One rule's identity and texts."""

    id: str
    status: Status
    description: str
    message: str
    recommendation: str | None
    rationale: str | None

    @property
    def number(self) -> str:
        """The suffix of the id, `100` ... `501` (metric names and reports use it)."""
        return self.id.rsplit("-", 1)[1]


INFO_100 = CheckCode(
    id="37A-SitemapAuditor-100",
    status=INFORMATION,
    description="Sitemaps protocol version",
    message="This audit follows the Sitemaps XML format, protocol version 0.9 ({specUrl}).",
    recommendation=None,
    rationale=None,
)
FAIL_400 = CheckCode(
    id="37A-SitemapAuditor-400",
    status=FAIL,
    description="No sitemap found",
    message=(
        "No sitemap found: none of the {candidateCount} candidate sitemaps answered HTTP 2xx "
        "with a <urlset> or <sitemapindex> root."
    ),
    recommendation=(
        "Publish an XML sitemap at {siteBase}/sitemap.xml (or any URL) that answers HTTP 200 "
        "with a <urlset> or <sitemapindex> root, and reference it from {robotsTxtUrl} with a "
        '"Sitemap:" line. Candidates tried: {candidates}.'
    ),
    rationale=(
        "Without a sitemap, search engines only discover pages by following links, so deep or "
        "new pages are indexed late or not at all and bring in no search traffic."
    ),
)
WARN_300 = CheckCode(
    id="37A-SitemapAuditor-300",
    status=WARNING,
    description="Sitemap out of date",
    message=(
        "The latest <lastmod> of {sitemapUrl} is {latestLastmod}, {ageDays} days ago, older "
        "than the {maxAgeDays}-day freshness window."
    ),
    recommendation=(
        "Regenerate {sitemapUrl} whenever pages change so its <lastmod> values stay within "
        "{maxAgeDays} days; the latest is currently {latestLastmod}."
    ),
    rationale=(
        "Search engines use lastmod to decide which pages to recrawl; a sitemap that looks "
        "abandoned is trusted less, so new and updated pages are found and ranked later."
    ),
)
WARN_301 = CheckCode(
    id="37A-SitemapAuditor-301",
    status=WARNING,
    description="No parsable lastmod",
    message=(
        "None of the {entryCount} entries of {sitemapUrl} has a parsable <lastmod>, so its "
        "freshness cannot be assessed."
    ),
    recommendation=(
        "Add a <lastmod> element in W3C Datetime format (for example 2026-10-16 or "
        "2026-10-16T09:30:00Z) to each <url> (or <sitemap>) entry of {sitemapUrl}, set to the "
        "date the page last changed."
    ),
    rationale=(
        "Without lastmod dates, search engines cannot tell which pages changed and crawl them "
        "all alike, so updates to important pages are picked up later."
    ),
)
WARN_302 = CheckCode(
    id="37A-SitemapAuditor-302",
    status=WARNING,
    description="robots.txt lists no sitemap",
    message="{robotsTxtUrl} answered HTTP 200 but lists no Sitemap: line.",
    recommendation='Add the line "Sitemap: {sitemapUrl}" to {robotsTxtUrl}.',
    rationale=(
        "robots.txt is the first file every crawler reads, and a Sitemap: line there is how "
        "search engines discover the sitemap without a manual submission; without it some "
        "crawlers never find the sitemap at all."
    ),
)
OK_200 = CheckCode(
    id="37A-SitemapAuditor-200",
    status=SUCCESS,
    description="Sitemap found and fresh",
    message=(
        "{sitemapUrl} is a <{sitemapType}> of {entryCount} entries whose latest <lastmod>, "
        "{latestLastmod}, is within the {maxAgeDays}-day freshness window."
    ),
    recommendation=None,
    rationale=None,
)
ERROR_501 = CheckCode(
    id="37A-SitemapAuditor-501",
    status=ERROR,
    description="Invalid audited URL",
    message=(
        "The audited URL {url} is missing, malformed or has no scheme or hostname, so no site "
        "root can be built."
    ),
    recommendation=(
        "Audit a URL with a scheme and a hostname, such as https://example.com/, instead of {url}."
    ),
    rationale=None,
)

# The documentation's table order, which is also the order of `checks` in a result.
ALL: tuple[CheckCode, ...] = (INFO_100, FAIL_400, WARN_300, WARN_301, WARN_302, OK_200, ERROR_501)
# The CheckCode of an id, for what reads a Response (metrics, the command line's report).
BY_ID: dict[str, CheckCode] = {code.id: code for code in ALL}
