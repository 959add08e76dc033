"""What one audit came to, as values: the checks, the data map, the issues and where the facts
came from. The platform's Response (response.render), the log lines and metrics
(observability.py) and the command line's report (cli.py) are each a rendering of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, is_dataclass, replace
from datetime import datetime
from enum import Enum
from typing import Any, TypeVar

from .codes import CheckCode, Status
from .issues import Issue
from .lease import Source

__all__ = ["Check", "DataMap", "Outcome", "Provenance", "redact", "redacted"]

T = TypeVar("T")


def redact(text: str, secrets: Iterable[str]) -> str:
    """Replace every secret in text with ***."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


@dataclass(frozen=True)
class Check:
    """One check that fired, its texts filled in."""

    code: CheckCode
    resource: str | None
    message: str | None
    recommendation: str | None

    @property
    def status(self) -> Status:
        """The status of its CheckCode."""
        return self.code.status


@dataclass(frozen=True)
class DataMap:
    """The data map every check carries (docs/contract.md §3), field for field."""

    site_base: str | None
    robots_txt_url: str | None
    robots_txt_http_status: int | None
    robots_txt_lists_sitemap: bool
    candidate_sitemaps: tuple[str, ...]
    selected_sitemap_url: str | None
    sitemap_type: str | None
    sitemap_http_status: int | None
    content_type: str | None
    entry_count: int | None
    latest_lastmod: str | None
    max_age_days: int
    issues: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """The data map as the Response carries it, keys in the contract's order."""
        return {
            "siteBase": self.site_base,
            "robotsTxtUrl": self.robots_txt_url,
            "robotsTxtHttpStatus": self.robots_txt_http_status,
            "robotsTxtListsSitemap": self.robots_txt_lists_sitemap,
            "candidateSitemaps": list(self.candidate_sitemaps),
            "selectedSitemapUrl": self.selected_sitemap_url,
            "sitemapType": self.sitemap_type,
            "sitemapHttpStatus": self.sitemap_http_status,
            "contentType": self.content_type,
            "entryCount": self.entry_count,
            "latestLastmod": self.latest_lastmod,
            "maxAgeDays": self.max_age_days,
            "issues": list(self.issues),
        }


@dataclass(frozen=True)
class Provenance:
    """How the audit got its site's facts (docs/contract.md §7) and what sharing did."""

    source: Source
    revalidated: int = 0  # URLs a 304 confirmed, when this audit fetched
    bytes_saved: int = 0  # what the site did not have to send again
    reason: str | None = None  # why it fetched (lease.Reason), when it did
    refreshed_ahead: bool = False
    throttled: int = 0  # throttled store answers it rode out
    unshareable: str | None = None  # why its own facts could not go to the store
    waited_s: float = 0.0  # how long it waited for another audit's fetch


@dataclass(frozen=True)
class Outcome:
    """One audit's outcome. `checks` and `data` are None when the audit could not finish (the
    ERROR response of a defect or an unreadable secret)."""

    status: Status
    message: str | None
    finished: datetime
    checks: tuple[Check, ...] | None
    data: DataMap | None
    issues: tuple[Issue, ...] = ()
    latest_lastmod_written: str | None = None  # the selected sitemap's latest, as written
    provenance: Provenance | None = None

    @property
    def check_codes(self) -> tuple[CheckCode, ...]:
        """The CheckCodes that fired, in order."""
        return tuple(c.code for c in self.checks or ())


def _redact(value: T, secrets: Sequence[str]) -> T:
    # Identities (statuses, kinds, CheckCodes) are never redacted; what the site said is.
    result: Any = value
    if isinstance(value, Issue):
        result = Issue(redact(value.subject, secrets), value.kind, redact(value.detail, secrets))
    elif isinstance(value, Enum | CheckCode | datetime):
        pass
    elif isinstance(value, str):
        result = redact(value, secrets)
    elif isinstance(value, tuple):
        result = tuple(_redact(v, secrets) for v in value)
    elif is_dataclass(value) and not isinstance(value, type):
        result = replace(
            value, **{f.name: _redact(getattr(value, f.name), secrets) for f in fields(value)}
        )
    return result  # type: ignore[no-any-return]


def redacted(outcome: Outcome, secrets: Sequence[str]) -> Outcome:
    """The outcome with every secret replaced by *** in what the site said."""
    return _redact(outcome, secrets) if secrets else outcome
