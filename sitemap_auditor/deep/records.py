"""The walk's values: one record per sitemap found, the walk as a whole for the document, and
the sitemaps an index lists, waiting to be recorded in the walk's order (a claim)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sitemap_auditor.core import site as sites
from sitemap_auditor.deep.checks import AgentRules, Finding, LastmodStats, Tally
from sitemap_auditor.deep.options import Limits

__all__ = ["Claim", "SitemapRecord", "Walk", "is_probe", "walk_order"]


def is_probe(source: str | None, http_status: int | None) -> bool:
    """True for a record that is a probe, not a sitemap: a usual path guessed because robots.txt
    listed none (`source` "fallback") that answered 404 or 410. The walk counts no finding for
    it (it was a guess); its progress and the reports count it apart, as tried."""
    return source == "fallback" and http_status in (404, 410)


@dataclass
class SitemapRecord:
    """One sitemap of the walk: found, fetched (or not), and what its checks found."""

    number: int
    url: str
    parent: str | None
    depth: int
    source: str  # robots, fallback or index
    type: str = "unfetched"
    http_status: int | None = None
    final_url: str | None = None  # where it answered from, when redirects led elsewhere
    content_type: str | None = None
    compression: str | None = None
    wire_bytes: int | None = None
    bytes: int | None = None
    entries: int | None = None
    seconds: float | None = None
    lastmod: LastmodStats | None = None
    extensions: dict[str, int] = field(
        default_factory=lambda: {
            "image": 0,
            "video": 0,
            "news": 0,
            "alternates": 0,
            "alternatesDropped": 0,
        }
    )
    findings: list[Finding] = field(default_factory=list)
    children: list[int] = field(default_factory=list)
    # Its place in the walk's order (breadth first, each index's children in the order it lists
    # them), as a key: its depth, its parent's place, its rank among the parent's children.
    place: tuple[Any, ...] = ()
    cut: bool = False  # its fetch was cut by the walk's own time limit
    # Its fetch was refused (the address guard, a URL that cannot be requested) or failed before
    # any answer: it stays `unfetched`, and its finding says why; no limit left it unread.
    unanswered: bool = False
    # An index lists it, its parent or another (an index listing one robots.txt lists too, or
    # itself): a sitemap index an index lists is a nested index, whoever listed it first.
    in_index: bool = False

    @property
    def left_by_a_limit(self) -> bool:
        """Listed, and not fetched because a limit of the walk was reached."""
        return self.type == "unfetched" and not self.unanswered


@dataclass
class Walk:
    """What a walk found, for the document."""

    audited_url: str
    site: sites.SiteBase
    robots_url: str
    robots_status: int | None
    robots_sitemap_lines: int
    started: datetime
    finished: datetime
    seconds: float
    verdict: dict[str, Any]
    limits: Limits
    stopped_by: str | None
    complete: bool
    records: list[SitemapRecord]  # in walk order
    findings: list[Finding]  # every finding, the records' included
    urls: int
    wire_bytes: int
    bytes: int
    # What must appear in no report: the credentials, in every form (Credentials.secrets).
    secrets: tuple[str, ...] = ()
    # The crawlers every listed URL was matched against in robots.txt, and the group each obeys.
    robots_agents: tuple[AgentRules, ...] = ()


@dataclass(order=True)
class Claim:
    """The sitemaps an index lists (URL and line each), to record in the walk's order: by the
    index's place, then its number."""

    place: tuple[Any, ...]
    number: int
    record: SitemapRecord = field(compare=False)
    children: list[tuple[str, int]] = field(compare=False)
    tally: Tally = field(compare=False)


def walk_order(records: list[SitemapRecord]) -> list[SitemapRecord]:
    """Breadth first from the roots, each index's children in the order it lists them."""
    order: list[SitemapRecord] = []
    queue = deque(r for r in records if r.parent is None)
    while queue:
        r = queue.popleft()
        order.append(r)
        queue.extend(records[n] for n in r.children)
    return order
