"""Deep audit documents (JSON document v1) built for the tests of its reports, as the deep audit
writes them: every key present, totals that add up, findings worst first."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, NotRequired, TypedDict

__all__ = [
    "HOSTILE",
    "Document",
    "Example",
    "Finding",
    "Sitemap",
    "document",
    "finding",
    "heavy_document",
    "hostile_document",
    "large_document",
    "sitemap",
    "small_site",
]

Severity = Literal["error", "warning", "notice"]
_ORDER = {"error": 0, "warning": 1, "notice": 2}


class Lastmod(TypedDict):
    count: int
    share: float | None
    earliest: str | None
    latest: str | None
    distinctDays: int
    invalid: int
    byMonth: dict[str, int]


class Counts(TypedDict):
    error: int
    warning: int
    notice: int


class Sitemap(TypedDict):
    url: str
    parent: str | None
    depth: int
    source: str
    type: str
    httpStatus: int | None
    finalUrl: str | None
    contentType: str | None
    compression: str | None
    wireBytes: int | None
    bytes: int | None
    entries: int
    lastmod: Lastmod
    extensions: dict[str, int]
    findings: Counts


class Example(TypedDict):
    line: int | None
    value: str


class Finding(TypedDict):
    kind: str
    severity: str
    title: str
    source: str
    impact: str
    sitemap: str | None
    line: int | None
    count: int
    urls: int | None
    share: float | None
    examples: list[Example]
    message: str
    fix: str


class Document(TypedDict):
    format: str
    version: int
    auditedUrl: str
    siteBase: str
    robotsTxt: dict[str, Any]
    verdict: dict[str, Any]
    complete: bool
    stoppedBy: str | None
    limits: dict[str, int]
    totals: dict[str, Any]
    sitemaps: list[Sitemap]
    findings: list[Finding]
    run: dict[str, Any]
    # Only with --compare: what changed since an earlier document.
    comparison: NotRequired[dict[str, Any]]


def sitemap(
    url: str,
    *,
    parent: str | None = None,
    depth: int = 0,
    type: str = "urlset",  # noqa: A002 - the document's own key
    http_status: int | None = 200,
    entries: int = 0,
    by_month: Mapping[str, int] | None = None,
    distinct_days: int | None = None,
    source: str | None = None,
    compression: str | None = "gzip",
    findings: tuple[int, int, int] = (0, 0, 0),
    extensions: Mapping[str, int] | None = None,
) -> Sitemap:
    """One sitemap record; the lastmod statistics follow from `by_month` (month → entries)."""
    months = dict(by_month or {})
    dated = sum(months.values())
    first, last = (min(months), max(months)) if months else (None, None)
    size = entries * 120 + 200 if http_status == 200 else None
    return {
        "url": url,
        "parent": parent,
        "depth": depth,
        "source": source or ("robots" if parent is None else "index"),
        "type": type,
        "httpStatus": http_status,
        "finalUrl": None,
        "contentType": "application/xml" if http_status == 200 else "text/html",
        "compression": compression if http_status == 200 else None,
        "wireBytes": size // 6 if size and compression else size,
        "bytes": size,
        "entries": entries,
        "lastmod": {
            "count": dated,
            "share": dated / entries if entries else None,
            "earliest": f"{first}-01T00:00:00Z" if first else None,
            "latest": f"{last}-28T12:00:00Z" if last else None,
            "distinctDays": distinct_days if distinct_days is not None else len(months) * 20,
            "invalid": 0,
            "byMonth": months,
        },
        "extensions": {
            "image": 0,
            "video": 0,
            "news": 0,
            "alternates": 0,
            "alternatesDropped": 0,
            **(extensions or {}),
        },
        "findings": {"error": findings[0], "warning": findings[1], "notice": findings[2]},
    }


def finding(
    kind: str,
    severity: Severity | str,
    title: str,
    sitemap: str | None,
    *,
    count: int = 1,
    examples: Iterable[tuple[int | None, str]] = (),
    message: str = "",
    fix: str = "",
    source: str = "search-console",
    impact: str = "urls-affected",
    urls: int | Literal["count"] | None = "count",
) -> Finding:
    """One finding; its `line` is that of its first example; its URLs its count unless given
    (its share is set by `document`)."""
    listed = [Example(line=line, value=value[:200]) for line, value in examples][:5]
    return {
        "kind": kind,
        "severity": severity,
        "title": title,
        "source": source,
        "impact": impact,
        "sitemap": sitemap,
        "line": listed[0]["line"] if listed else None,
        "count": count,
        "urls": count if urls == "count" else urls,
        "share": None,
        "examples": listed,
        "message": message or f"{title}: {count} in this file.",
        "fix": fix or f"Fix the {title.lower()} where the sitemap is generated.",
    }


def document(
    sitemaps: Sequence[Sitemap],
    findings: Sequence[Finding],
    *,
    site: str = "https://www.example.com",
    status: str = "SUCCESS",
    message: str = "The sitemap is fresh.",
    stopped_by: str | None = None,
    robots_status: int | None = 200,
) -> Document:
    """A whole document; its totals are the sums of its parts and its findings worst first."""
    total = sum(s["entries"] for s in sitemaps if s["type"] == "urlset")
    for f in findings:
        n = f["urls"]
        f["share"] = None if n is None else min(round(n / total, 4), 1.0) if total else 0.0
    ordered = sorted(findings, key=lambda f: (_ORDER.get(f["severity"], 3), -f["count"]))
    counts = {s: sum(1 for f in findings if f["severity"] == s) for s in _ORDER}
    lines = sum(1 for s in sitemaps if s["source"] == "robots")
    return {
        "format": "sitemap-auditor-deep",
        "version": 6,
        "auditedUrl": f"{site}/",
        "siteBase": site,
        "robotsTxt": {
            "url": f"{site}/robots.txt",
            "httpStatus": robots_status,
            "sitemapLines": lines,
            "agents": [
                {"agent": "Googlebot", "group": "global", "disallows": False},
                {"agent": "Bingbot", "group": "global", "disallows": False},
            ],
        },
        "verdict": {
            "status": status,
            "message": message,
            "checks": [
                {"code": "37A-SitemapAuditor-100", "status": "INFORMATION", "message": "0.9"},
                {"code": "37A-SitemapAuditor-200", "status": status, "message": message},
            ],
        },
        "complete": stopped_by is None,
        "stoppedBy": stopped_by,
        "limits": {
            "maxSitemaps": 1000,
            "maxDepth": 5,
            "maxBytes": 1073741824,
            "maxSeconds": 600,
            "concurrency": 4,
            "maxDedupeUrls": 5_000_000,
        },
        "totals": {
            "sitemaps": len(sitemaps),
            "fetched": sum(1 for s in sitemaps if s["type"] != "unfetched"),
            "urls": total,
            "wireBytes": sum(s["wireBytes"] or 0 for s in sitemaps),
            "bytes": sum(s["bytes"] or 0 for s in sitemaps),
            "findings": counts,
        },
        "sitemaps": list(sitemaps),
        "findings": ordered,
        "run": {
            "startedAt": "2026-12-01T20:00:00Z",
            "finishedAt": "2026-12-01T20:00:03Z",
            "seconds": 3.2,
            "sitemapSeconds": {s["url"]: 0.05 for s in sitemaps},
        },
    }


def _months(start: int, count: int, per_month: int) -> dict[str, int]:
    return {f"{(start + i) // 12:04d}-{(start + i) % 12 + 1:02d}": per_month for i in range(count)}


def small_site() -> Document:
    """A site as people have them: an index of three files, one of them broken, one stale."""
    base = "https://www.example.com"
    index = f"{base}/sitemap_index.xml"
    posts, pages, old = f"{base}/post-sitemap.xml", f"{base}/page-sitemap.xml", f"{base}/old.xml"
    maps = [
        sitemap(index, type="sitemapindex", entries=3, by_month={"2026-11": 3}),
        sitemap(
            posts,
            parent=index,
            depth=1,
            entries=1200,
            by_month=_months(2025 * 12, 23, 50) | {"2026-12": 50, "2099-01": 2},
            findings=(1, 1, 0),
            extensions={"image": 800},
        ),
        sitemap(
            pages,
            parent=index,
            depth=1,
            entries=60,
            by_month={"2026-11": 60},
            distinct_days=1,
            findings=(0, 1, 0),
        ),
        sitemap(old, parent=index, depth=1, http_status=404, entries=0, findings=(1, 0, 0)),
    ]
    found = [
        finding(
            "invalid-date",
            "error",
            "Invalid date",
            posts,
            count=3,
            examples=[(12, "2026-13-01"), (40, "yesterday"), (41, "2026-02-30")],
            message="3 <lastmod> values are not W3C Datetime dates; search engines ignore them.",
            fix="Write dates as YYYY-MM-DD or with a time and a time zone.",
        ),
        finding(
            "couldnt-fetch",
            "error",
            "Couldn't fetch",
            old,
            examples=[(None, "HTTP 404")],
            message="The index lists a file that answers 404 Not Found.",
            fix="Remove it from the index or publish it again.",
        ),
        finding(
            "future-lastmod",
            "warning",
            "Future lastmod",
            posts,
            count=2,
            examples=[(88, "2099-01-01")],
        ),
        finding(
            "identical-lastmods",
            "warning",
            "Identical lastmods",
            pages,
            count=60,
            examples=[(3, "2026-11-30")],
        ),
        finding("partial-lastmod", "notice", "Partial lastmod", None, count=4),
    ]
    return document(maps, found, status="SUCCESS", message="The sitemap is fresh.")


# What a stranger's site can put in any string the document carries.
HOSTILE = (
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(2)>',
    "javascript:alert(3)",
    "]]><![CDATA[<svg onload=alert(4)>",
    "\ud800 lone \udfff surrogates",
    "</style><style>*{display:none}</style>",
    "<!-- </title></desc></svg><script>alert(5)</script>",
    "\u202egnp.exe\x00\x1b[31m",
    "' onmouseover='alert(6)",
)


def hostile_document() -> Document:
    """Every string of the document hostile: URLs, titles, kinds, messages, examples, keys."""
    bad = " ".join(HOSTILE)
    urls = [
        "javascript:alert('root')",
        "JaVaScRiPt:alert(7)",
        " javascript:alert(8)",
        "java\tscript:alert(9)",
        "data:text/html,<script>alert(10)</script>",
        'https://evil.example/"><script>alert(11)</script>',
        "https://evil.example/\u202e/x",
        "http://ok.example/sitemap.xml?a=1&b=<2>",
        "https://ok.example/sitemap.xml?a=1&b=2",
    ]
    maps = [
        sitemap(url, type=HOSTILE[i % len(HOSTILE)], entries=5, by_month={"2026-01": 5})
        for i, url in enumerate(urls)
    ]
    maps[0]["lastmod"]["byMonth"] = {"<script>": 3, "2026-02": 4, bad: 5}
    maps[1]["contentType"] = bad
    maps[1]["source"] = bad
    maps[2]["parent"] = bad
    found = [
        finding(
            HOSTILE[i % len(HOSTILE)],
            ("error", "warning", "notice", bad)[i % 4],
            HOSTILE[(i + 1) % len(HOSTILE)],
            urls[i % len(urls)] if i % 3 else bad,
            count=i + 1,
            examples=[(i, HOSTILE[(i + 2) % len(HOSTILE)]), (None, bad)],
            message=bad,
            fix=HOSTILE[(i + 3) % len(HOSTILE)],
        )
        for i in range(12)
    ]
    doc = document(maps, found, site="javascript:alert('site')", status=bad, message=bad)
    doc["auditedUrl"] = bad
    doc["robotsTxt"]["url"] = "javascript:alert('robots')"
    doc["stoppedBy"] = bad
    doc["complete"] = False
    doc["run"]["startedAt"] = bad
    doc["verdict"]["checks"] = [{"code": bad, "status": bad, "message": bad}]
    doc["format"] = bad
    return doc


def large_document(sitemaps: int = 50_000, urls: int = 10_000_000) -> Document:
    """A site at the deep audit's largest: one index of indexes and `sitemaps` files in all,
    `urls` URLs, one file in fifty broken (so more than the report lists one by one)."""
    base = "https://shop.example.com"
    root = f"{base}/sitemap.xml"
    indexes = [root] + [f"{base}/sitemaps/index-{i}.xml" for i in range(1, 50)]
    leaves = sitemaps - len(indexes)
    per_leaf, extra = divmod(urls, leaves)
    maps: list[Sitemap] = [sitemap(root, type="sitemapindex", entries=len(indexes) - 1)]
    maps += [
        sitemap(url, parent=root, depth=1, type="sitemapindex", entries=leaves // len(indexes))
        for url in indexes[1:]
    ]
    found: list[Finding] = []
    for i in range(leaves):
        parent = indexes[i % len(indexes)]
        url = f"{base}/sitemaps/products-{i}.xml.gz"
        broken = i % 49 == 7
        entries = per_leaf + (1 if i < extra else 0)
        maps.append(
            sitemap(
                url,
                parent=parent,
                depth=1 if parent == root else 2,
                entries=entries,
                by_month=_months(2025 * 12 + i % 12, 12, entries // 12),
                findings=(1, 0, 0) if broken else (0, 0, 1) if i % 10 == 3 else (0, 0, 0),
            )
        )
        if broken:
            found.append(
                finding(
                    "invalid-date",
                    "error",
                    "Invalid date",
                    url,
                    count=entries,
                    examples=[(n * 4 + 3, f"2026-13-{n:02d}T00:00:00Z") for n in range(5)],
                )
            )
        elif i % 10 == 3:
            found.append(finding("partial-lastmod", "notice", "Partial lastmod", url, count=3))
    return document(maps, found, site=base, status="SUCCESS")


def heavy_document() -> Document:
    """The large document with every string at the report's caps and made of characters that
    HTML writes five times longer, and a kind of its own for each finding."""
    doc = large_document()
    heavy = "&" * 5000  # each one written as five characters
    renamed = {
        s["url"]: f"https://shop.example.com/{'&' * 280}{i}" for i, s in enumerate(doc["sitemaps"])
    }
    for s in doc["sitemaps"]:
        s["url"] = renamed[s["url"]]
        s["parent"] = renamed[s["parent"]] if s["parent"] else None
        s["contentType"] = s["compression"] = s["source"] = heavy
        s["findings"] = {"error": 1, "warning": 0, "notice": 0}
    for i, f in enumerate(doc["findings"]):
        f["kind"] = f"{'<' * 50}{i}"  # a kind of its own each: thousands of kinds
        f["title"] = f["message"] = f["fix"] = heavy
        f["sitemap"] = renamed[f["sitemap"] or ""]
        f["examples"] = [{"line": n, "value": "&" * 200} for n in range(5)]
    doc["verdict"]["checks"] = [{"code": heavy, "status": heavy, "message": heavy}] * 100
    return doc
