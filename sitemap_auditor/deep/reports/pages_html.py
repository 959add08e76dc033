"""The HTML report's pages section, from the document's `pages` key alone: the indexable share per
sitemap as a chart, the reasons with Search Console's titles, a few examples each (the full list
is pages.csv). Every string the site wrote is escaped and cut."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

from sitemap_auditor.deep.reports import charts
from sitemap_auditor.deep.reports import html_values as v

__all__ = ["headline", "section"]

MAX_SITEMAPS_DRAWN = 30
_TONE = {"error": "err", "warning": "warn", "notice": "note"}


def _t(value: object, cap: int = 300) -> str:
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    return escape(text[:cap] + ("…" if len(text) > cap else ""))


def _int(value: object) -> int:
    return value if type(value) is int and value >= 0 else 0


def graded(pages: object) -> list[tuple[str, str, int]]:
    """The page findings that count in the exit status (errors, then warnings, each worst
    count first): their title (raw: the caller escapes it), severity and count of pages."""
    if not isinstance(pages, Mapping):
        return []
    found = [
        (str(f.get("title"))[:200], str(f.get("severity")), _int(f.get("count")))
        for f in pages.get("findings") or []
        if isinstance(f, Mapping)
        and f.get("severity") in ("error", "warning")
        and _int(f.get("count")) > 0
    ]
    return sorted(found, key=lambda f: (f[1] != "error", -f[2], f[0]))


def headline(pages: object) -> str:
    """The glance's line on the listed pages ("" when they were not checked): how many search
    engines may not index, linked to the section."""
    if not isinstance(pages, Mapping):
        return ""
    checked, indexable = _int(pages.get("checked")), _int(pages.get("indexable"))
    failed = _int(pages.get("internalErrors"))
    not_indexable = max(0, checked - indexable - failed)
    if not checked:
        return '<p class="vmsg">No listed page was checked.</p>'
    tone = "warn-text" if not_indexable else ""
    return (
        f'<p class="vmsg"><a href="#pages">Listed pages</a>: <span class="{tone}">'
        f"{not_indexable:,} of {checked:,} checked cannot be indexed</span>.</p>"
    )


def section(pages: object) -> str:
    """The section, or "" when the audit did not check the pages."""
    if not isinstance(pages, Mapping):
        return ""
    checked, indexable = _int(pages.get("checked")), _int(pages.get("indexable"))
    failed = _int(pages.get("internalErrors"))
    unjudged = f", {failed:,} not judged (an internal error)" if failed else ""
    parts = [
        '<section id="pages" aria-labelledby="pages-h"><h2 id="pages-h">Listed pages</h2>',
        f"<p>{checked:,} listed pages checked: {indexable:,} indexable, "
        f"{max(0, checked - indexable - failed):,} not{unjudged}. "
        "The audit's CSV files, when it wrote them, hold a row for each page (pages.csv).</p>",
    ]
    if pages.get("sampled"):
        parts.append(f"<p>An even sample of {_int(pages.get('toCheck')):,} listed URLs.</p>")
    if pages.get("stoppedBy"):
        parts.append(f"<p>Stopped early ({_t(pages.get('stoppedBy'), 40)}).</p>")
    sitemaps = [s for s in pages.get("sitemaps") or [] if isinstance(s, Mapping)]
    bars = [
        charts.Bar(
            v.short_url(s.get("sitemap")),
            _whole_percent(_int(s.get("indexable")), _int(s.get("checked"))),
            "bar",
            f" % of {_int(s.get('checked')):,}",
            keep_end=True,
            unit="%",
        )
        for s in sitemaps[:MAX_SITEMAPS_DRAWN]
    ]
    if bars:
        desc = "; ".join(f"{b.label}: {b.value}%" for b in bars)
        chart = charts.horizontal_bars("ch-pages", "Indexable share", desc, bars, scale=100)
        parts.append(
            "<figure><figcaption><h3>Indexable share per sitemap</h3><p>The percentage of each "
            "sitemap's checked pages that search engines may index.</p></figcaption>"
            f'<div class="chart">{chart}</div></figure>'
        )
    rows = []
    for f in pages.get("findings") or []:
        if not isinstance(f, Mapping):
            continue
        examples = "".join(
            f'<li class="url">{_t(e.get("url"))}'
            + (
                f" → {_t(to)}"
                if (to := e.get("canonical") or e.get("finalUrl")) and to != e.get("url")
                else ""
            )
            + "</li>"
            for e in (f.get("examples") or [])[:5]
            if isinstance(e, Mapping)
        )
        severity = str(f.get("severity"))
        tone = _TONE.get(severity, "note")
        rows.append(
            f'<tr><td><span class="pill p-{tone}">{_t(severity.capitalize(), 20)}</span></td>'
            f'<td>{_t(f.get("title"))}<br><code class="nw">{_t(f.get("kind"), 40)}</code></td>'
            f'<td class="num">{_int(f.get("count")):,}</td><td>{_t(f.get("message"))}'
            f"<ul>{examples}</ul></td></tr>"
        )
    if rows:
        parts.append(
            '<div class="scroll"><table class="pages-reasons"><thead><tr><th>Severity</th>'
            "<th>Reason</th><th>Pages</th><th>What it means</th></tr></thead><tbody>"
            + "".join(rows)
            + "</tbody></table></div>"
        )
    parts.append("</section>")
    return "".join(parts)


def _whole_percent(part: int, whole: int) -> int:
    """part of whole in whole percent, never 100 for fewer than all nor 0 for more than none."""
    if whole <= 0 or part <= 0:
        return 0
    return 100 if part >= whole else min(max(round(100 * part / whole), 1), 99)
