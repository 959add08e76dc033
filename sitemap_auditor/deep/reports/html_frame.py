"""The HTML report's frame: its header and footer, and the document's run block (the times)
put where the page shows them."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from sitemap_auditor.deep.reports import html_values as v

__all__ = ["footer", "header", "with_run"]


def with_run(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    """The document with its run block's times where the page shows them: the audit's start,
    end and seconds at the top, each fetch's seconds in its sitemap."""
    run = v.as_map(doc.get("run"))
    timed = v.as_map(run.get("sitemapSeconds"))
    sitemaps: list[Any] = []
    for raw in v.as_list(doc.get("sitemaps")):
        item = v.as_map(raw)
        url = item.get("url")
        sitemaps.append({**item, "seconds": timed.get(url) if isinstance(url, str) else None})
    times = {k: run.get(k) for k in ("startedAt", "finishedAt", "seconds")}
    return {**doc, **times, "sitemaps": sitemaps}


def header(doc: Mapping[str, Any], site: str) -> str:
    return (
        '<header class="top"><p class="eyebrow">Sitemap audit</p>'
        f"<h1>{v.link(doc.get('siteBase'), escape(site))}</h1>"
        f'<p class="sub">Audited URL: {v.link(doc.get("auditedUrl"))} · '
        f"{v.time_of(doc.get('startedAt'))}</p>"
        '<nav aria-label="Contents"><ul><li><a href="#glance">At a glance</a></li>'
        '<li><a href="#charts">Charts</a></li><li><a href="#findings">Findings</a></li>'
        + ('<li><a href="#changes">What changed</a></li>' if doc.get("comparison") else "")
        + ('<li><a href="#pages">Listed pages</a></li>' if doc.get("pages") else "")
        + '<li><a href="#tree">Sitemaps</a></li></ul></nav></header><main>'
    )


def footer(doc: Mapping[str, Any]) -> str:
    limits = v.as_map(doc.get("limits"))
    described = (
        ("maxSitemaps", "sitemaps"),
        ("maxDepth", "levels of indexes"),
        ("maxBytes", "read"),
        ("maxSeconds", "seconds"),
        ("concurrency", "fetches at once"),
        ("maxDedupeUrls", "URLs looked through for duplicates"),
    )
    shown = []
    for key, label in described:
        # A limit may be written 600 or 600.0: a whole number either way is shown as one.
        number = v.as_float(limits.get(key))
        if number is None:
            continue
        whole = int(number) if number.is_integer() else None
        value = (
            v.size(whole)
            if key == "maxBytes"
            else v.count(whole)
            if whole is not None
            else f"{number:,.1f}"
        )
        if whole == 1 and key == "concurrency":
            label = "fetch at once"
        shown.append(f"{value} {label}")
    text = ", ".join(shown)
    version = v.as_int(doc.get("version"))
    return (
        "</main><footer><p>The deep audit's limits: " + (text or "not given") + ". "
        f"Rendered from the deep audit's document (<code>{v.h(doc.get('format'), 40)}</code> "
        f"version {v.count(version)}) by the Sitemap Auditor. This page loads nothing from "
        f"any host; "
        "the links open the files on the audited site.</p></footer>"
    )
