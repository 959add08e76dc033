"""The page check's totals: checked, indexable, by reason, per sitemap, with a few examples each.
Bounded: counts per sitemap (the walk bounds the sitemaps) and MAX_EXAMPLES rows per reason."""

from __future__ import annotations

from bisect import insort
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sitemap_auditor.deep.checks import joined_details, named_agents
from sitemap_auditor.deep.kinds import KINDS, Kind

__all__ = ["MAX_EXAMPLES", "Summary"]

MAX_EXAMPLES = 5
MAX_BLOCKED_DETAILS = 16  # distinct sets of agents named (at most 4 agents: 15 sets)


@dataclass
class _Sitemap:
    checked: int = 0
    indexable: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    lastmod_mismatch: int = 0


@dataclass
class Summary:
    """What the page check found, built one row at a time."""

    checked: int = 0  # rows, this run's and a resumed file's
    checked_now: int = 0  # rows of this run
    indexable: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    lastmod_mismatch: int = 0
    internal_errors: int = 0  # pages not judged: their check failed by a defect of this tool
    sitemaps: dict[str, _Sitemap] = field(default_factory=dict)
    examples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    # To whom robots.txt disallowed each page, in words ("Googlebot and Bingbot"): a set, as
    # the walk's details are, joined as the walk joins them (checks.joined_details).
    blocked_for: dict[str, None] = field(default_factory=dict)
    to_check: int = 0
    sampled: bool = False
    stopped_by: str | None = None
    crawl_delay: float | None = None
    seconds: float = 0.0

    def add(self, row: dict[str, Any], resumed: bool = False) -> None:
        """Count one page row."""
        self.checked += 1
        if not resumed:
            self.checked_now += 1
        per = self.sitemaps.setdefault(str(row.get("sitemap")), _Sitemap())
        per.checked += 1
        reason = row.get("reason")
        if row.get("indexable"):
            self.indexable += 1
            per.indexable += 1
        elif row.get("indexable") is None and reason is None:
            self.internal_errors += 1
        elif isinstance(reason, str):
            if reason == "blocked-by-robots":
                self._blocked(row.get("blockedFor"))
            self.reasons[reason] += 1
            per.reasons[reason] += 1
            self._example(reason, row)
        if row.get("lastmodMismatch"):
            self.lastmod_mismatch += 1
            per.lastmod_mismatch += 1
            self._example("lastmod-mismatch", row)

    def _blocked(self, agents: Any) -> None:
        # A row of an earlier version's file names none: those were blocked for Googlebot.
        names = agents if isinstance(agents, list) and agents else ["Googlebot"]
        shown = [name[:40] for name in names[:4] if isinstance(name, str)]
        if shown and len(self.blocked_for) < MAX_BLOCKED_DETAILS:
            self.blocked_for.setdefault(named_agents(shown))

    def _example(self, kind: str, row: dict[str, Any]) -> None:
        """Keep row as an example of kind when it is among the MAX_EXAMPLES first by URL:
        which pages finish first varies from run to run, the examples of one site do not."""
        shown = self.examples.setdefault(kind, [])
        key = _example_key(row)
        if len(shown) >= MAX_EXAMPLES and key >= _example_key(shown[-1]):
            return
        keep = ("url", "sitemap", "status", "finalUrl", "noindex", "canonical", "error")
        example = {k: row.get(k) for k in keep}
        if kind == "lastmod-mismatch":
            example.update(lastmod=row.get("lastmod"), pageModified=row.get("pageModified"))
        if kind in ("page-redirect", "page-redirect-error"):
            example["redirects"] = row.get("redirects")
        if kind == "blocked-by-robots":
            example["blockedFor"] = row.get("blockedFor")
        insort(shown, example, key=_example_key)
        del shown[MAX_EXAMPLES:]

    def document(self) -> dict[str, Any]:
        """The JSON document's `pages` key."""
        return {
            "checked": self.checked,
            "indexable": self.indexable,
            "notIndexable": self.checked - self.indexable - self.internal_errors,
            "internalErrors": self.internal_errors,
            "byReason": dict(sorted(self.reasons.items())),
            "lastmodMismatch": self.lastmod_mismatch,
            "sampled": self.sampled,
            "toCheck": self.to_check,
            "stoppedBy": self.stopped_by,
            "complete": self.stopped_by is None and not self.sampled,
            "crawlDelay": self.crawl_delay,
            "seconds": self.seconds,
            "sitemaps": [
                {
                    "sitemap": url,
                    "checked": s.checked,
                    "indexable": s.indexable,
                    "byReason": dict(sorted(s.reasons.items())),
                    "lastmodMismatch": s.lastmod_mismatch,
                }
                for url, s in sorted(self.sitemaps.items(), key=_worst_share_first)
            ],
            "findings": self.findings(),
        }

    def findings(self) -> list[dict[str, Any]]:
        """One finding per reason found, worst first, with its examples."""
        found = [*self.reasons.items()]
        if self.lastmod_mismatch:
            found.append(("lastmod-mismatch", self.lastmod_mismatch))
        order = {k: i for i, k in enumerate(KINDS)}
        rows = []
        for name, count in sorted(found, key=lambda kc: order.get(Kind(kc[0]), 0)):
            kind = Kind(name)
            info = KINDS[kind]
            examples = self.examples.get(name, [])
            rows.append(
                {
                    "kind": name,
                    "severity": info.severity.value,
                    "title": info.title,
                    "count": count,
                    "message": info.message_for(count, self._detail(name, examples)),
                    "fix": info.fix,
                    "examples": examples,
                }
            )
        return rows

    def _detail(self, kind: str, examples: list[dict[str, Any]]) -> str:
        """The {detail} of a finding's sentence, from its examples (the agents robots.txt
        disallowed pages to, from every row)."""
        if kind == "blocked-by-robots":
            if not self.blocked_for:
                return "Googlebot"
            return joined_details(Kind.BLOCKED_BY_ROBOTS, self.blocked_for)
        return _detail(kind, examples)


def _example_key(row: dict[str, Any]) -> tuple[str, str]:
    return str(row.get("url")), str(row.get("sitemap"))


def _detail(kind: str, examples: list[dict[str, Any]]) -> str:
    """The {detail} of a finding's sentence, from its examples."""
    if kind == "page-other-4xx":
        return ", ".join(sorted({str(e.get("status")) for e in examples}))
    if kind in ("page-redirect-error", "page-unreachable"):
        return ", ".join(sorted({str(e.get("error") or e.get("status")) for e in examples}))
    return ""


def _worst_share_first(item: tuple[str, _Sitemap]) -> tuple[float, str]:
    """The order of the per-sitemap list: the least indexable share first, then by URL (pages
    finish in the order a site answers, which differs from run to run; the report draws the
    first ones)."""
    url, s = item
    return (s.indexable / s.checked if s.checked else 1.0, url)
