"""The deep audit's JSON document, version 6: the one interface of its reports (text, CSV, HTML).

Pure: a finished walk in, a dict of JSON values out. Keys are camelCase and always present.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sitemap_auditor.core.lastmod import format_instant, key_to_instant
from sitemap_auditor.deep import redaction
from sitemap_auditor.deep.checks import Finding, LastmodStats
from sitemap_auditor.deep.kinds import IMPACT_ORDER, KINDS, SEVERITY_ORDER, Reach, Severity, share
from sitemap_auditor.deep.records import SitemapRecord, Walk

__all__ = ["FORMAT", "VERSION", "build", "severity_counts", "share", "with_pages", "worst_severity"]

FORMAT = "sitemap-auditor-deep"
VERSION = 6


def _time(moment: datetime) -> str:
    return format_instant(moment)


def _key(key: int | None) -> str | None:
    return None if key is None else format_instant(key_to_instant(key))


def _lastmod(stats: LastmodStats | None, entries: int | None) -> dict[str, Any] | None:
    if stats is None:
        return None
    return {
        "count": stats.count,
        "share": share(stats.count, entries or 0),
        "earliest": _key(stats.earliest),
        "latest": _key(stats.latest),
        "distinctDays": len(stats.days),
        "invalid": stats.invalid,
        "byMonth": dict(sorted(stats.months.items())),
    }


def severity_counts(findings: list[Finding]) -> dict[str, int]:
    """How many findings of each severity."""
    counts = {s.value: 0 for s in SEVERITY_ORDER}
    for f in findings:
        counts[KINDS[f.kind].severity.value] += 1
    return counts


def _record(r: SitemapRecord, findings: list[Finding]) -> dict[str, Any]:
    return {
        "url": r.url,
        "parent": r.parent,
        "depth": r.depth,
        "source": r.source,
        "type": r.type,
        "httpStatus": r.http_status,
        "finalUrl": r.final_url,
        "contentType": r.content_type,
        "compression": r.compression,
        "wireBytes": r.wire_bytes,
        "bytes": r.bytes,
        "entries": r.entries,
        "lastmod": _lastmod(r.lastmod, r.entries),
        "extensions": dict(r.extensions),
        "findings": severity_counts(findings),
    }


def _file_urls(walk: Walk) -> dict[str, int | None]:
    """Each sitemap's URLs as far as read: a file's entries; for an index, what the sitemaps it
    lists list (None when none of them was read)."""
    by_number: dict[int, int | None] = {}
    # Children come after their index in the walk's order: read backwards, each is known first.
    for r in reversed(walk.records):
        if r.type == "sitemapindex":
            known = [n for c in r.children if (n := by_number.get(c)) is not None]
            by_number[r.number] = sum(known) if known else (0 if r.entries == 0 else None)
        else:
            by_number[r.number] = r.entries
    return {r.url: by_number.get(r.number) for r in walk.records}


def _reach(f: Finding, file_urls: dict[str, int | None], indexes: set[str]) -> int | None:
    """The listed URLs a finding affects (kinds.Reach). An index's entries are sitemaps, not the
    site's URLs: what one of them says of its entries affects no counted URL (None)."""
    reach = KINDS[f.kind].reach
    if reach in (Reach.URLS, Reach.ENTRIES) and f.sitemap in indexes:
        return None
    if reach is Reach.URLS:
        return f.count
    if reach is Reach.ENTRIES:
        return f.entries
    if reach is Reach.FILE and f.sitemap is not None:
        return file_urls.get(f.sitemap)
    return None


def _finding(f: Finding, urls: int | None, total: int) -> dict[str, Any]:
    info = KINDS[f.kind]
    return {
        "kind": f.kind.value,
        "severity": info.severity.value,
        "title": info.title,
        "source": info.source.value,
        "impact": info.impact.value,
        "sitemap": f.sitemap,
        "line": f.line,
        "count": f.count,
        "urls": urls,
        "share": share(urls, total),
        "examples": [{"line": e.line, "value": e.value} for e in f.examples],
        "message": f.message,
        "fix": info.fix,
    }


def _verdict(result: dict[str, Any]) -> dict[str, Any]:
    return {
        "status": result.get("status"),
        "message": result.get("message"),
        "checks": [
            {"code": c["code"]["id"], "status": c["status"], "message": c["message"]}
            for c in result.get("checks") or []
        ],
    }


def build(walk: Walk) -> dict[str, Any]:
    """The document of a finished (or stopped) walk."""
    by_sitemap: dict[str | None, list[Finding]] = {}
    for f in walk.findings:
        by_sitemap.setdefault(f.sitemap, []).append(f)
    limits = walk.limits
    fetched = sum(1 for r in walk.records if r.type != "unfetched")
    file_urls = _file_urls(walk)
    indexes = {r.url for r in walk.records if r.type == "sitemapindex"}
    reached = [(f, _reach(f, file_urls, indexes)) for f in walk.findings]
    # The walk's order (impact, severity, count, the kinds table, the sitemap), with the URLs a
    # finding affects before its count: a file that loses 10,000 URLs before one that loses 3.
    impact = {x: i for i, x in enumerate(IMPACT_ORDER)}
    rank = {x: i for i, x in enumerate(SEVERITY_ORDER)}
    reached.sort(
        key=lambda fu: (
            impact[KINDS[fu[0].kind].impact],
            rank[KINDS[fu[0].kind].severity],
            -(fu[1] or 0),
        )
    )
    document = {
        "format": FORMAT,
        "version": VERSION,
        "auditedUrl": walk.audited_url,
        "siteBase": walk.site.url,
        "robotsTxt": {
            "url": walk.robots_url,
            "httpStatus": walk.robots_status,
            "sitemapLines": walk.robots_sitemap_lines,
            "agents": [
                {"agent": a.agent, "group": a.group, "disallows": a.disallows}
                for a in walk.robots_agents
            ],
        },
        "verdict": _verdict(walk.verdict),
        "complete": walk.complete,
        "stoppedBy": walk.stopped_by,
        "limits": {
            "maxSitemaps": limits.max_sitemaps,
            "maxDepth": limits.max_depth,
            "maxBytes": limits.max_bytes,
            "maxSeconds": limits.max_seconds,
            "concurrency": limits.concurrency,
            "maxDedupeUrls": limits.max_dedupe_urls,
        },
        "totals": {
            "sitemaps": len(walk.records),
            "fetched": fetched,
            "urls": walk.urls,
            "wireBytes": walk.wire_bytes,
            "bytes": walk.bytes,
            "findings": severity_counts(walk.findings),
        },
        "sitemaps": [_record(r, by_sitemap.get(r.url, [])) for r in walk.records],
        "findings": [_finding(f, urls, walk.urls) for f, urls in reached],
        # What differs between two audits of an unchanged site, and nothing else: two documents
        # of one site compare equal without this block.
        "run": {
            "startedAt": _time(walk.started),
            "finishedAt": _time(walk.finished),
            "seconds": walk.seconds,
            "sitemapSeconds": {r.url: r.seconds for r in walk.records},
        },
    }
    # A site may echo the credentials back (in a <loc>, a lastmod), or list a sitemap with a
    # password in its URL: none reaches a report.
    shown: dict[str, Any] = redaction.redacted(document, walk.secrets)
    return shown


def with_pages(document: dict[str, Any], pages: dict[str, Any]) -> None:
    """Put the page check's `pages` key in the document, each of its findings with the URLs it
    affects and their share of the site's listed URLs (a page is one listed URL)."""
    total = document["totals"]["urls"]
    for f in pages.get("findings") or []:
        count = f.get("count")
        urls = count if isinstance(count, int) else None  # each row is one page
        f["urls"], f["share"] = urls, share(urls, total)
    # How long the check took varies from run to run: it goes with the walk's times.
    seconds = pages.pop("seconds", None)
    run = document.get("run")
    if isinstance(run, dict) and seconds is not None:
        run["pagesSeconds"] = seconds
    document["pages"] = pages


def worst_severity(document: dict[str, Any]) -> Severity | None:
    """The worst severity among a document's findings, the page check's (`pages.findings`, when
    it ran) with the walk's, or None when it has none: what the exit status says."""
    seen = {f["severity"] for f in document["findings"]}
    pages = document.get("pages")
    if isinstance(pages, dict):
        seen.update(f["severity"] for f in pages.get("findings", ()))
    for s in SEVERITY_ORDER:
        if s.value in seen:
            return s
    return None
