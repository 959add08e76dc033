"""The deep audit's HTML report: one self-contained page rendered from the JSON document v1 alone.

`render(document)` returns the whole page as a string. The page loads nothing: its one style sheet
and its one small script are inline and allowed by their hashes in a Content-Security-Policy that
forbids every other source, so it opens the same from disk, from an e-mail attachment or offline.
Without JavaScript everything is readable; the script only adds sorting and filtering, expand and
collapse, and opens every file before printing.

Every string of the document comes from a stranger's site. Each is cut to a stated length, its
lone surrogates, control and bidirectional-override characters replaced, and escaped where it is
written; none becomes an `id`, a class or a script; a URL becomes a link only when it starts with
`http://` or `https://`, is at most v.MAX_LINK characters and holds none of the characters a URL
never holds raw (white space, controls, quotes, angle brackets). Numbers that are not numbers
are shown as absent, never trusted.

Large sites stay small: at most MAX_FILES_LISTED files are listed one by one (the broken ones
first, with the indexes above them), the others are summed up per index; at most
MAX_FINDINGS_LISTED findings are listed with their examples (MAX_FINDINGS_PER_KIND of one kind,
MAX_KINDS kinds), the rest counted. Whatever the strings weigh once escaped, the tree stops
adding details past TREE_BUDGET characters and the findings their examples past
FINDINGS_BUDGET. The page says what it left out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from html import escape
from typing import Any

from sitemap_auditor.deep.kinds import IMPACT_ORDER, SOURCE_NAMES, share
from sitemap_auditor.deep.reports import (
    charts,
    compare_html,
    html_assets,
    html_frame,
    html_tree,
    pages_html,
)
from sitemap_auditor.deep.reports import html_values as v
from sitemap_auditor.deep.reports.html_tree import MAX_BROKEN_LISTED, MAX_FILES_LISTED
from sitemap_auditor.deep.reports.text_report import is_probe, percent, reach

__all__ = [
    "MAX_BROKEN_LISTED",
    "MAX_FILES_LISTED",
    "MAX_FINDINGS_LISTED",
    "MAX_FINDINGS_PER_KIND",
    "render",
]

MAX_FINDINGS_LISTED = 300
MAX_FINDINGS_PER_KIND = 25
MAX_KINDS = 50  # the document defines 31 kinds: more are a site's or a bug's doing
OCCURRENCES_SHOWN = 3
MAX_SPARKLINES = 400
MAX_NEST = 6
# Past these many characters a section stops adding detail (its files keep their one line, its
# findings their counts): whatever the strings, the page stays a few megabytes.
TREE_BUDGET = 2_000_000
FINDINGS_BUDGET = 1_000_000
MAX_VALUE = 200
MAX_EXAMPLES = 5
MAX_CHECKS = 20
FILE_FINDINGS = 8
SMALL_SITE = 5
LARGEST_FILES_DRAWN = 20
URL_LIMIT = 50_000
v.BIG = 10**18

_SEVERITIES = ("error", "warning", "notice")
_RANK = {"error": 0, "warning": 1, "notice": 2}
_SEV_LABEL = {"error": "Error", "warning": "Warning", "notice": "Notice"}
_SEV_CSS = {0: "err", 1: "warn", 2: "note", 3: "ok"}
# A finding of a severity the document does not define is shown as such, never as "OK".
_FINDING_CSS = {0: "err", 1: "warn", 2: "note", 3: "other"}
_VERDICT_CSS = {"SUCCESS": "ok", "WARNING": "warn", "FAIL": "err", "ERROR": "err"}
_STOPPED = {
    "max-sitemaps": "the limit on sitemaps fetched was reached",
    "max-bytes": "the limit on bytes fetched was reached",
    "max-seconds": "the time limit was reached",
    "interrupted": "the audit was interrupted",
}


# A piece of the tree still to write: ("list", its files, its nesting level, whether flattened).
_Task = tuple[str, list[int], int, bool]


# --- Findings: grouped by kind, what is listed ------------------------------------------------


# A finding's impact as its place in the order (an unknown one last).
_IMPACTS = {x.value: i for i, x in enumerate(IMPACT_ORDER)}


@dataclass(slots=True)
class _Group:
    number: int
    kind: str
    title: str
    rank: int
    count: int
    findings: list[tuple[int, Mapping[str, Any]]]
    listed: list[tuple[int, Mapping[str, Any]]]
    files: set[str]
    shown: bool = True
    source: str = ""
    impact: int = len(_IMPACTS)  # the place of its worst impact in _IMPACTS; unknown last
    urls: int | None = None  # the listed URLs its findings affect, added up (None: unknown)
    share: float | None = None  # of the site's listed URLs


def _cost(item: Mapping[str, Any]) -> int:
    """About how many characters a finding takes on the page, its markup included."""
    examples = v.as_list(item.get("examples"))[:MAX_EXAMPLES]
    return (
        400
        + len(v.h(item.get("sitemap"), v.MAX_URL))
        + len(v.h(item.get("message")))
        + len(v.h(item.get("fix")))
        + sum(80 + len(v.h(v.as_map(e).get("value"), MAX_VALUE)) for e in examples)
    )


def _source_name(value: Any) -> str:
    """Whose rule a finding's source names, in words (an unknown one is not shown)."""
    return SOURCE_NAMES.get(value, "") if isinstance(value, str) else ""  # type: ignore[call-overload]


def _groups(document: Mapping[str, Any]) -> list[_Group]:
    groups: dict[str, _Group] = {}
    listed = spent = 0
    for index, raw in enumerate(v.as_list(document.get("findings"))):
        item = v.as_map(raw)
        kind = v.text(item.get("kind"), 60) or "unknown"
        group = groups.get(kind)
        if group is None:
            title = v.text(item.get("title"), 120) or kind
            group = groups[kind] = _Group(len(groups), kind, title, 3, 0, [], [], set())
            group.source = _source_name(item.get("source"))
        group.rank = min(group.rank, v.severity_rank(item.get("severity")))
        group.impact = min(
            group.impact, _IMPACTS.get(v.text(item.get("impact"), 20), len(_IMPACTS))
        )
        group.count += max(v.as_int(item.get("count")) or 1, 1)
        urls = v.as_int(item.get("urls"))
        if urls is not None and urls >= 0:
            group.urls = (group.urls or 0) + urls
        group.findings.append((index, item))
        sitemap = item.get("sitemap")
        group.files.add(sitemap if isinstance(sitemap, str) else "")
        if listed < MAX_FINDINGS_LISTED and len(group.listed) < MAX_FINDINGS_PER_KIND:
            cost = _cost(item)
            if spent + cost <= FINDINGS_BUDGET:
                group.listed.append((index, item))
                listed += 1
                spent += cost
    total = v.as_int(v.as_map(document.get("totals")).get("urls")) or 0
    for group in groups.values():
        if group.urls is not None:
            group.share = share(group.urls, total)
    # Impact first (unreadable files, then URLs lost), then severity, then the document's order.
    ordered = sorted(groups.values(), key=lambda g: (g.impact, g.rank, g.number))
    for group in ordered[MAX_KINDS:]:
        group.shown = False
        group.listed = []
    return ordered


# --- The page ------------------------------------------------------------------------------


def render(document: Mapping[str, Any]) -> str:
    """The whole self-contained HTML page for a deep audit's JSON document (v1)."""
    doc = html_frame.with_run(v.as_map(document))
    files = html_tree.files_of(doc)
    tree = html_tree.tree_of(files)
    groups = _groups(doc)
    finding_anchor = {i: g.number for g in groups for i, _ in g.listed}
    by_sitemap: dict[str, list[tuple[int, _Group, Mapping[str, Any]]]] = {}
    for g in groups:
        for i, item in g.findings:
            sitemap = item.get("sitemap")
            if isinstance(sitemap, str):
                by_sitemap.setdefault(sitemap, []).append((i, g, item))
    audit_month = doc.get("finishedAt") or doc.get("startedAt")
    month = audit_month[:7] if isinstance(audit_month, str) else None
    verdict = v.as_map(doc.get("verdict"))
    site = v.text(doc.get("siteBase"), v.MAX_URL) or "an unknown site"
    status = v.text(verdict.get("status"), 20) or "no verdict"
    left_out: list[str] = []
    body = [
        html_frame.header(doc, site),
        _glance(doc, verdict, groups),
        _charts_section(files, groups, month),
        _findings_section(groups, tree, left_out),
        compare_html.section(doc.get("comparison")),  # with --compare: what changed since
        pages_html.section(doc.get("pages")),  # the listed pages, when --pages checked them
        _tree_section(
            tree, by_sitemap, finding_anchor, month, left_out, html_tree.probes_line(doc)
        ),
        html_frame.footer(doc),
    ]
    # What was left out is known only once every section is drawn: it goes in its place now.
    notes = "".join(f"<li>{note}</li>" for note in left_out)
    body[1] = body[1].replace(
        "<!--left-out-->",
        f'<div class="left-out" role="note"><p>This report is a summary of a large audit:</p>'
        f"<ul>{notes}</ul></div>"
        if notes
        else "",
    )
    return "".join(
        [
            "<!DOCTYPE html>\n",
            '<html lang="en"><head><meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{html_assets.CSP}">',
            '<meta http-equiv="x-dns-prefetch-control" content="off">',
            '<meta name="referrer" content="no-referrer">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta name="color-scheme" content="light dark">',
            f"<title>Sitemap audit: {escape(site)} ({escape(status)})</title>",
            f"<style>{html_assets.STYLE}</style></head><body>",
            '<a class="skip" href="#findings">Skip to the findings</a>',
            *body,
            f"<script>{html_assets.SCRIPT}</script></body></html>\n",
        ]
    )


def _outcome(
    doc: Mapping[str, Any], severities: Mapping[str, Any], groups: list[_Group]
) -> tuple[str, str, str]:
    """The headline: the deep audit's own outcome (its CSS, its words, its worst finding), the
    listed pages' findings with the files', as the exit status counts them."""
    errors, warnings = (
        v.as_int(severities.get("error")) or 0,
        v.as_int(severities.get("warning")) or 0,
    )
    # A walk a limit or an interruption stopped says so: what it did not read, it did not check.
    stopped = doc.get("stoppedBy")
    cut = doc.get("complete") is not True
    # No stop but not complete: the depth limit (or the records' bound) left some unread.
    reason = (_STOPPED.get(stopped, v.h(stopped, 40)) if isinstance(stopped, str) else "") or (
        "a limit left some unread"
    )
    if not v.as_list(doc.get("sitemaps")):
        if cut:
            return "note", "Stopped before any sitemap was found", f"Nothing was checked: {reason}."
        return "err", "No sitemap found", "No sitemap was found, so none could be checked."
    parts = [f"{v.count(n)} {word}{'' if n == 1 else 's'}" for n, word in ((errors, "error"),
             (warnings, "warning")) if n]  # fmt: skip
    pages = pages_html.graded(doc.get("pages"))
    for severity in ("error", "warning"):
        n = sum(count for _, sev, count in pages if sev == severity)
        if n:
            parts.append(f"{v.count(n)} listed page{'' if n == 1 else 's'} with {severity}s")
    worst = next((g for g in groups if g.rank <= 1), None)
    if worst is None and not pages:
        if cut:
            return (
                "note",
                "No errors or warnings in what was read",
                f"Not every sitemap was read ({reason}): the others were not checked.",
            )
        return "ok", "No errors or warnings", "Every sitemap read passes every check that counts."
    if worst is not None and (not pages or worst.rank == 0 or pages[0][1] != "error"):
        detail = (
            f'<span class="worst">Worst finding: <a href="#k-{worst.number}">'
            f"{escape(worst.title)}</a> ({v.count(worst.count)})</span>"
        )
    else:
        title, _, count = pages[0]
        detail = (
            f'<span class="worst">Worst finding: <a href="#pages">{escape(title)}</a> '
            f"({v.count(count)} listed page{'' if count == 1 else 's'})</span>"
        )
    failing = errors or any(sev == "error" for _, sev, _ in pages)
    said = " and ".join(parts) if len(parts) < 3 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return ("err" if failing else "warn"), said, detail


def _glance(doc: Mapping[str, Any], verdict: Mapping[str, Any], groups: list[_Group]) -> str:
    status = v.text(verdict.get("status"), 20)
    css = _VERDICT_CSS.get(status, "note")
    totals = v.as_map(doc.get("totals"))
    severities = v.as_map(totals.get("findings"))
    robots = v.as_map(doc.get("robotsTxt"))
    tiles = []
    for sev, css_sev in zip(_SEVERITIES, ("err", "warn", "note"), strict=True):
        n = v.as_int(severities.get(sev))
        label = f"{_SEV_LABEL[sev].lower()}s" if n != 1 else _SEV_LABEL[sev].lower()
        tiles.append(
            f'<li class="tile t-{css_sev if n else "zero"}"><span class="n">{v.count(n)}</span> '
            f"{label}</li>"
        )
    # Sitemaps, not the usual paths tried where there was none (is_probe).
    sitemaps = v.as_int(totals.get("sitemaps"))
    if sitemaps is not None:
        sitemaps -= sum(1 for raw in v.as_list(doc.get("sitemaps")) if is_probe(v.as_map(raw)))
    tiles.append(
        f'<li class="tile"><span '
        f'class="n">{v.count(sitemaps)}</span> sitemap{"" if sitemaps == 1 else "s"}</li>'
        f'<li class="tile"><span class="n">{v.count(v.as_int(totals.get("urls")))}</span> URLs</li>'
        f'<li class="tile"><span class="n">{v.size(v.as_int(totals.get("bytes")))}</span> '
        "read</li>"
    )
    complete = doc.get("complete")
    stopped = doc.get("stoppedBy")
    # Not read: not fetched, or answered with no sitemap (a 404, an error, a file not parsed);
    # the usual paths tried where there was none are no listed sitemaps.
    listed = [v.as_map(raw) for raw in v.as_list(doc.get("sitemaps"))]
    unread = sum(
        1
        for m in listed
        if not is_probe(m)
        and (
            m.get("type") in ("unfetched", "unknown", None)
            or not 200 <= (v.as_int(m.get("httpStatus")) or 0) <= 299
        )
    )
    if complete is True and stopped is None and unread:
        walk = (
            f"complete: every sitemap found was tried; {v.count(unread)} could not be read "
            "(see the findings)"
        )
    elif complete is True and stopped is None and not any(not is_probe(m) for m in listed):
        walk = "complete: no sitemap was found"
    elif complete is True and stopped is None:
        walk = "complete: every sitemap listed was read"
    else:
        reason = _STOPPED.get(stopped, v.h(stopped, 40)) if isinstance(stopped, str) else ""
        walk = f'<strong class="warn-text">incomplete</strong>{": " + reason if reason else ""}'
    lines = v.as_int(robots.get("sitemapLines"))
    seconds = v.as_float(doc.get("seconds"))
    rows = [
        ("Site root", v.link(doc.get("siteBase"))),
        (
            "robots.txt",
            f"{v.link(robots.get('url'))} · "
            + (
                f"HTTP {v.count(robots_status)} · {v.count(lines)} <code>Sitemap:</code> "
                f"line{'' if lines == 1 else 's'}"
                if (robots_status := v.as_int(robots.get("httpStatus"))) is not None
                else "no answer"
            ),
        ),
        (
            "Audited",
            f"{v.time_of(doc.get('startedAt'))} to {v.time_of(doc.get('finishedAt'))}"
            + (f" ({seconds:,.1f} s)" if seconds is not None else ""),
        ),
        ("Sitemaps read", walk),
        (
            "Freshness",
            f'<span class="pill p-{css}">{escape(status.capitalize()) or "no verdict"}</span> '
            f'{v.h(verdict.get("message"))} <span class="hint">(the quick check: '
            "is there a sitemap, and is its latest &lt;lastmod&gt; recent?)</span>",
        ),
    ]
    checks = [v.as_map(c) for c in v.as_list(verdict.get("checks"))[:MAX_CHECKS]]
    check_rows = "".join(
        f"<tr><td><code>{v.h(c.get('code'), 60)}</code></td>"
        f'<td><span class="pill p-{_VERDICT_CSS.get(v.text(c.get("status"), 20), "note")}">'
        f"{escape(v.text(c.get('status'), 20).capitalize())}</span></td>"
        f"<td>{v.h(c.get('message'))}</td></tr>"
        for c in checks
    )
    outcome_css, outcome, detail = _outcome(doc, severities, groups)
    return (
        '<section id="glance" aria-labelledby="glance-h"><h2 id="glance-h">At a glance</h2>'
        f'<div class="verdict v-{outcome_css}"><p class="vlabel">What the deep audit found in '
        f"every sitemap{' and the pages checked' if isinstance(doc.get('pages'), Mapping) else ''}"
        "</p>"
        f'<p class="vstatus">{outcome}</p>'
        f'<p class="vmsg">{detail}</p>{pages_html.headline(doc.get("pages"))}</div>'
        f'<ul class="tiles" aria-label="Findings and totals">{"".join(tiles)}</ul>'
        f'<dl class="facts">{"".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in rows)}</dl>'
        "<!--left-out-->"
        + (
            '<details class="checks"><summary>The auditor\'s checks</summary>'
            '<div class="scroll"><table><thead><tr><th scope="col">Check</th>'
            '<th scope="col">Status</th><th scope="col">Message</th></tr></thead>'
            f"<tbody>{check_rows}</tbody></table></div></details>"
            if checks
            else ""
        )
        + "</section>"
    )


def _where(item: Mapping[str, Any], tree: html_tree.Tree, anchors: Mapping[str, int]) -> str:
    sitemap = item.get("sitemap")
    if not isinstance(sitemap, str):
        return "the site or its robots.txt"
    node = anchors.get(sitemap)
    if node is not None and node in tree.listed:
        return f'<a href="#s-{node}" class="url">{v.h(sitemap, v.MAX_URL)}</a>'
    return f'<span class="url">{v.h(sitemap, v.MAX_URL)}</span>'


def _share_cell(g: _Group) -> str:
    """The URLs a kind's findings affect and their share of the site's, or a dash."""
    if g.urls is None:
        return "–"
    return f"{v.count(g.urls)} ({escape(percent(g.share))})" if g.urls else "0"


def _findings_section(groups: list[_Group], tree: html_tree.Tree, left: list[str]) -> str:
    if not groups:
        return (
            '<section id="findings" aria-labelledby="findings-h"><h2 id="findings-h">Findings</h2>'
            "<p>No findings: the sitemaps read pass every check of the deep audit.</p></section>"
        )
    anchors: dict[str, int] = {}
    for f in tree.files:
        anchors.setdefault(f.url, f.index)
    shown = [g for g in groups if g.shown]
    rows = "".join(
        f'<tr class="r-{_FINDING_CSS[g.rank]}"><td data-v="{g.rank}">'
        f'<span class="pill p-{_FINDING_CSS[g.rank]}">{v.severity_name(g.rank)}</span></td>'
        f'<td><a href="#k-{g.number}">{escape(g.title)}</a></td>'
        f'<td class="kind"><code>{escape(g.kind)}</code></td>'
        f'<td class="num" data-v="{len(g.files)}">{v.count(len(g.files))}</td>'
        f'<td class="num" data-v="{g.count}">{v.count(g.count)}</td>'
        f'<td class="num" data-v="{g.urls if g.urls is not None else -1}">'
        f"{_share_cell(g)}</td></tr>"
        for g in shown
    )
    parts = [
        '<section id="findings" aria-labelledby="findings-h"><h2 id="findings-h">Findings</h2>',
        '<p class="hint">By impact: files search engines cannot read first, then URLs lost, '
        "then the rest, each by severity. Each finding says whose rule it is (Search Console, "
        "Bing, sitemaps.org, or this tool's heuristic: a sign that something is likely wrong), "
        "what it means and what to do, with examples from the files.</p>",
        '<div class="controls" hidden><label>Filter findings <input type="search" '
        'data-filter="findings-table" data-cards="#findings .finding" autocomplete="off">'
        '</label><span class="hint" id="findings-table-none" hidden>No finding matches.</span>'
        "</div>",
        '<div class="scroll"><table class="sortable" id="findings-table"><caption>Findings by '
        'kind</caption><thead><tr><th scope="col" data-num>Severity</th><th scope="col">Finding'
        '</th><th scope="col" class="kind">Kind</th><th scope="col" class="num" data-num>Files</th>'
        '<th scope="col" class="num" data-num>Count</th><th scope="col" class="num" data-num>'
        "URLs affected</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></div>",
    ]
    not_listed = 0
    for g in shown:
        sample = g.listed or g.findings[:1]
        messages = {v.text(item.get("message")) for _, item in sample}
        fixes = {v.text(item.get("fix")) for _, item in sample}
        one_message = len(messages) == 1
        one_fix = len(fixes) == 1
        css = _FINDING_CSS[g.rank]
        files = len(g.files - {""})
        where = f"{v.count(files)} file{'' if files == 1 else 's'}" if files else ""
        if "" in g.files:
            where += " and " if where else ""
            where += "the site or its robots.txt"
        parts.append(
            f'<article class="finding f-{css}" id="k-{g.number}" aria-labelledby="k-{g.number}-h">'
            f'<h3 id="k-{g.number}-h"><span class="pill p-{css}">'
            f"{v.severity_name(g.rank)}</span> "
            f"{escape(g.title)} <code>{escape(g.kind)}</code></h3>"
            f'<p class="count">{v.count(g.count)} time{"" if g.count == 1 else "s"} in '
            f"{where}{'. Rule: ' + escape(g.source) if g.source else ''}</p>"
        )
        if one_message and next(iter(messages)):
            parts.append(
                '<p class="meaning"><strong>What it means:</strong> '
                f"{escape(next(iter(messages)))}</p>"
            )
        if one_fix and next(iter(fixes)):
            parts.append(
                f'<p class="fix"><strong>What to do:</strong> {escape(next(iter(fixes)))}</p>'
            )
        parts.append('<ul class="occurrences">')
        for number, (index, item) in enumerate(g.listed):
            if number == OCCURRENCES_SHOWN:
                more = len(g.listed) - number
                parts.append(
                    f'</ul><details class="more-occ"><summary>{v.count(more)} more place'
                    f"{'' if more == 1 else 's'} with this finding</summary>"
                    '<ul class="occurrences">'
                )
            count = max(v.as_int(item.get("count")) or 1, 1)
            line = v.as_int(item.get("line"))
            urls = reach(item)
            parts.append(
                f'<li id="f-{index}"><p class="where">In {_where(item, tree, anchors)}: '
                f"{v.count(count)} time{'' if count == 1 else 's'}"
                + (f", first at line {v.count(line)}" if line is not None else "")
                + (f"; {escape(urls)}" if urls else "")
                + "</p>"
            )
            if not one_message and v.text(item.get("message")):
                parts.append(f'<p class="meaning">{v.h(item.get("message"))}</p>')
            examples = [v.as_map(e) for e in v.as_list(item.get("examples"))[:MAX_EXAMPLES]]
            if examples:
                parts.append(
                    '<table class="examples"><thead><tr><th scope="col">Line</th>'
                    '<th scope="col">Example</th></tr></thead><tbody>'
                    + "".join(
                        f"<tr><td>{v.count(v.as_int(e.get('line')))}</td>"
                        f"<td><code>{v.h(e.get('value'), MAX_VALUE)}</code></td></tr>"
                        for e in examples
                    )
                    + "</tbody></table>"
                )
            if not one_fix and v.text(item.get("fix")):
                parts.append(
                    f'<p class="fix"><strong>What to do:</strong> {v.h(item.get("fix"))}</p>'
                )
            parts.append("</li>")
        parts.append("</ul></details>" if len(g.listed) > OCCURRENCES_SHOWN else "</ul>")
        rest = len(g.findings) - len(g.listed)
        if rest:
            not_listed += rest
            rest_count = g.count - sum(max(v.as_int(i.get("count")) or 1, 1) for _, i in g.listed)
            parts.append(
                f'<p class="more">And {v.count(rest)} more of this kind '
                f"({v.count(rest_count)} times), "
                "not listed one by one.</p>"
            )
        parts.append("</article>")
    unshown = [g for g in groups if not g.shown]
    if unshown:
        more = sum(len(g.findings) for g in unshown)
        note = (
            f"{v.count(len(unshown))} more kinds of finding ({v.count(more)} findings) are "
            f"left out: "
            f"the report shows {MAX_KINDS}."
        )
        parts.append(f'<p class="more">{note}</p>')
        left.append(note)
    if not_listed:
        left.append(
            f"{v.count(not_listed)} findings are counted but not listed with their examples "
            f"(at most {MAX_FINDINGS_LISTED} are, {MAX_FINDINGS_PER_KIND} of one kind, "
            "as many as a few megabytes hold)."
        )
    parts.append("</section>")
    return "".join(parts)


def _charts_section(files: list[html_tree.File], groups: list[_Group], month: str | None) -> str:
    parts = [
        '<section id="charts" aria-labelledby="charts-h"><h2 id="charts-h">Charts</h2>',
    ]
    overall: dict[str, int] = {}
    for f in files:
        if f.type == "sitemapindex":
            continue
        for key, value in v.as_map(v.as_map(f.raw.get("lastmod")).get("byMonth")).items():
            if type(value) is int and 0 < value < v.BIG and type(key) is str:
                overall[key] = overall.get(key, 0) + value
    buckets = charts.lastmod_buckets(overall, month)
    parts.append(
        "<figure><figcaption><h3>When the pages say they changed</h3>"
        "<p>The <code>&lt;lastmod&gt;</code> dates of every URL entry, by month (by year "
        "over a long span), up to the audit; dates after the audit are drawn in "
        "orange. All on one day, or nothing for months, means the dates are not "
        "kept.</p></figcaption>"
    )
    parts.append(
        _box(charts.column_chart("ch-lastmod", "Lastmod dates of all URL entries", buckets))
        if buckets
        else "<p>No URL entry has a parsable <code>&lt;lastmod&gt;</code>.</p>"
    )
    parts.append("</figure>")
    if groups:
        bars = [
            charts.Bar(g.title, g.count, _SEV_CSS[g.rank] if g.rank < 3 else "bar", f" ({g.kind})")
            for g in sorted(groups, key=lambda g: (g.rank, -g.count))[:30]
        ]
        desc = "; ".join(f"{b.label}: {b.value:,}" for b in bars)
        parts.append(
            "<figure><figcaption><h3>Findings by kind</h3><p>How many times each kind of finding "
            "was seen, coloured by severity.</p></figcaption>"
            + _box(charts.horizontal_bars("ch-kinds", "Findings by kind", desc, bars))
            + "</figure>"
        )
    sized = sorted((f for f in files if f.entries), key=lambda f: (-(f.entries or 0), f.index))
    if sized:
        over = sum(1 for f in sized if (f.entries or 0) > URL_LIMIT)
        drawn = sized[:LARGEST_FILES_DRAWN]
        bars = [
            charts.Bar(
                v.short_url(f.url),
                f.entries or 0,
                "err" if (f.entries or 0) > URL_LIMIT else "bar",
                keep_end=True,
            )
            for f in drawn
        ]
        desc = (
            f"{_files_n(len(sized))} with entries; the largest has {sized[0].entries:,}; "
            f"{over:,} over the limit of {URL_LIMIT:,} entries a file."
        )
        parts.append(
            "<figure><figcaption><h3>Entries per file</h3><p>"
            + (
                f"The {len(drawn)} largest of {len(sized):,} files"
                if len(sized) > len(drawn)
                else "Every file"
            )
            + (
                f", against the limit of {URL_LIMIT:,} URLs (or sitemaps) a file. "
                if (sized[0].entries or 0) >= URL_LIMIT * charts.LIMIT_SHOWN_FROM
                else f" (the limit, {URL_LIMIT:,} a file, is far above them). "
            )
            + escape(desc)
            + "</p></figcaption>"
            + _box(
                charts.horizontal_bars(
                    "ch-entries", "Entries per file", desc, bars, URL_LIMIT, "50,000 limit"
                )
            )
            + "</figure>"
        )
    parts.append("</section>")
    return "".join(parts)


def _files_n(count: int) -> str:
    return f"{count:,} file{'' if count == 1 else 's'}"


def _box(svg: str) -> str:
    return f'<div class="chartbox">{svg}</div>'


def _badges(
    errors: int, warnings: int, notices: int, ok: bool = True, read: bool = True, kind: str = ""
) -> str:
    """A file's (or a group's) pills: its findings, else OK when ok, or "Not read" for a file
    the audit never read (a limit, an interruption): it passed nothing; nor does a file whose
    redirects led to another sitemap listed too, fetched under that URL instead."""
    out = []
    for n, label, css in (
        (errors, "error", "err"),
        (warnings, "warning", "warn"),
        (notices, "notice", "note"),
    ):
        if n:
            out.append(f'<span class="pill p-{css}">{n:,} {label}{"" if n == 1 else "s"}</span>')
    if out:
        return "".join(out)
    if not read:
        return '<span class="pill p-other">Not read</span>'
    if kind == "redirect":
        return '<span class="pill p-other">Redirects to a listed sitemap</span>'
    return '<span class="pill p-ok">OK</span>' if ok else ""


@dataclass(slots=True)
class _Room:
    """What the tree has used of its room: small charts drawn, characters written, and files
    written as their one line because the others used it up."""

    charts: int = 0
    written: int = 0
    cut: int = 0


def _tree_section(
    tree: html_tree.Tree,
    by_sitemap: Mapping[str, list[tuple[int, _Group, Mapping[str, Any]]]],
    anchors: Mapping[int, int],
    month: str | None,
    left: list[str],
    probes: str = "",
) -> str:
    files = tree.files
    types = Counter(f.type for f in files)
    summary = ", ".join(f"{v.count(n)} {escape(t)}" for t, n in types.most_common(8))
    out: list[str] = [
        '<section id="tree" aria-labelledby="tree-h"><h2 id="tree-h">Sitemaps</h2>',
        f'<p class="hint">{_files_n(len(files))} ({summary}). Indexes hold the files they list; '
        "files with errors come first. Open a file for its details and findings.</p>"
        if files
        else "<p>No sitemap was found: neither robots.txt nor the usual places listed one.</p>",
        probes,
    ]
    if files:
        out.append(
            '<div class="controls" hidden><label>Filter by URL <input type="search" id="tree-q" '
            'autocomplete="off"></label> <label><input type="checkbox" id="tree-bad"> Only files '
            'with errors or warnings</label> <button type="button" id="tree-open">Expand all'
            '</button> <button type="button" id="tree-close">Collapse all</button></div>'
        )
    room = _Room()
    stack: list[str | _Task] = [("list", tree.roots, 0, False)] if files else []
    while stack:
        task = stack.pop()
        if isinstance(task, str):
            out.append(task)
            continue
        _, nodes, level, flat = task
        pending: list[str | _Task] = [
            '<ul class="tree">' if level else '<ul class="tree" id="tree-root">'
        ]
        hidden = [n for n in nodes if n not in tree.listed]
        for node in nodes:
            if node not in tree.listed:
                continue
            kids = tree.children.get(node, [])
            if flat or not kids:
                pending.append(
                    _node(tree, node, by_sitemap, anchors, month, room) + "</div></details></li>"
                )
            elif level + 1 >= MAX_NEST:
                below = [n for n in html_tree.walk_nodes(kids, tree.children)]
                pending.append(_node(tree, node, by_sitemap, anchors, month, room))
                pending.append(("list", below, level + 1, True))
                pending.append("</div></details></li>")
            else:
                pending.append(_node(tree, node, by_sitemap, anchors, month, room))
                pending.append(("list", kids, level + 1, False))
                pending.append("</div></details></li>")
        if hidden:
            pending.append(_group_line(tree, hidden, flat, left))
        pending.append("</ul>")
        stack.extend(reversed(pending))
    if len(tree.listed) < len(files):
        broken_hidden = tree.broken_total - tree.broken_listed
        left.append(
            f"{v.count(len(files) - len(tree.listed))} of {v.count(len(files))} files are "
            f"summed up under "
            f"the index that lists them instead of being listed one by one (at most "
            f"{MAX_FILES_LISTED:,} are, the broken ones first)"
            + (
                f"; {v.count(broken_hidden)} of them have errors or warnings, past the "
                f"{tree.broken_listed:,} listed."
                if broken_hidden
                else "; none of them has an error or a warning."
            )
        )
    if room.cut:
        left.append(
            f"{v.count(room.cut)} files listed are shown by their one line, without their details: "
            "the details of the others filled the report's room."
        )
    if room.charts > MAX_SPARKLINES:
        left.append(
            f"Date charts are drawn for the first {MAX_SPARKLINES:,} files listed; the others "
            "give their dates in words."
        )
    out.append("</section>")
    return "".join(out)


def _group_line(tree: html_tree.Tree, hidden: list[int], flat: bool, left: list[str]) -> str:
    members = hidden if flat else list(html_tree.walk_nodes(hidden, tree.children))
    files = [tree.files[i] for i in members]
    types = Counter(f.type for f in files)
    entries = sum(f.entries or 0 for f in files)
    size = sum(f.bytes or 0 for f in files)
    latest = max((f.latest for f in files if f.latest and v.TIME.match(f.latest)), default=None)
    broken = sum(1 for f in files if f.rank <= 1)
    errors = sum(f.errors for f in files)
    warnings = sum(f.warnings for f in files)
    notices = sum(f.notices for f in files)
    kinds = ", ".join(f"{v.count(n)} {escape(t)}" for t, n in types.most_common(4))
    unread = types.get("unfetched", 0)
    if broken:
        said = f"; {v.count(broken)} of them with errors or warnings"
    elif unread == len(files):
        said = "; none of them was read"
    elif unread:
        said = f"; {v.count(unread)} not read, none of the others with an error or a warning"
    else:
        said = "; none with an error or a warning"
    badges = _badges(errors, warnings, notices, read=unread < len(files))
    return (
        f'<li class="group{" broken" if broken else ""}"><p>{badges} '
        f"<strong>{v.count(len(files))} more file{'' if len(files) == 1 else 's'}</strong> "
        f"({kinds}): "
        f"{v.count(entries)} entr{'y' if entries == 1 else 'ies'}, {v.size(size)}"
        + (f", latest <code>&lt;lastmod&gt;</code> {v.day_of(latest)}" if latest else "")
        + said
        + ". Not listed one by one.</p></li>"
    )


def _dates_fact(lastmod: Mapping[str, Any]) -> str | None:
    """What a file's <lastmod> values are, in words (None: nothing known)."""
    count = v.as_int(lastmod.get("count"))
    invalid = v.as_int(lastmod.get("invalid")) or 0
    if count == 0 and invalid:
        return (
            f"no valid <code>&lt;lastmod&gt;</code>: {v.count(invalid)} "
            f"{'is' if invalid == 1 else 'are'} not a date search engines read"
        )
    if count == 0:
        return "no entry has a <code>&lt;lastmod&gt;</code>"
    if count is None:
        return None
    share = v.as_float(lastmod.get("share"))
    days = v.as_int(lastmod.get("distinctDays"))
    return (
        f"{v.count(count)} entr{'y' if count == 1 else 'ies'} with a "
        "<code>&lt;lastmod&gt;</code>"
        + (f" ({escape(percent(share))})" if share is not None else "")
        + (
            f", from {v.day_of(lastmod.get('earliest'))} to {v.day_of(lastmod.get('latest'))}"
            if lastmod.get("earliest") or lastmod.get("latest")
            else ""
        )
        + (
            f", on {v.count(days)} distinct day{'' if days == 1 else 's'}"
            if days is not None
            else ""
        )
    )


def _node(
    tree: html_tree.Tree,
    node: int,
    by_sitemap: Mapping[str, list[tuple[int, _Group, Mapping[str, Any]]]],
    anchors: Mapping[int, int],
    month: str | None,
    room: _Room,
) -> str:
    f = tree.files[node]
    raw = f.raw
    status = v.as_int(raw.get("httpStatus"))
    lastmod = v.as_map(raw.get("lastmod"))
    ext = v.as_map(raw.get("extensions"))
    css = _SEV_CSS[f.rank]
    meta = [
        f'<span class="type">{escape(f.type)}</span>',
        f"HTTP {v.count(status)}" if status is not None else "not fetched",
    ]
    if f.type in html_tree.FEEDS:
        meta.append("a feed: its items are not read as entries")
    elif f.entries is not None and (f.entries or (status is not None and status < 400)):
        meta.append(f"{v.count(f.entries)} entr{'y' if f.entries == 1 else 'ies'}")
    if f.bytes is not None:
        meta.append(v.size(f.bytes))
    if f.latest:
        meta.append(f"latest {v.day_of(f.latest)}")
    # The top of the tree starts open where it holds something broken or lists other files;
    # a site of a few files shows them all.
    top = tree.parent_of.get(node) is None
    is_open = (
        " open"
        if len(tree.files) <= SMALL_SITE
        or (top and (tree.worst[node] <= 1 or tree.children.get(node)))
        else ""
    )
    inside = tree.broken_below[node]
    holds = (
        f'<span class="pill p-{_SEV_CSS[tree.worst[node]]} holds">{inside:,} '
        f"file{'' if inside == 1 else 's'} with errors or warnings inside</span>"
        if inside
        else ""
    )
    head = (
        f'<li class="node n-{css}{" broken" if f.rank <= 1 else ""}" id="s-{node}">'
        f"<details{is_open}><summary>"
        f"{_badges(f.errors, f.warnings, f.notices, not inside, f.type != 'unfetched', f.type)}"
        f"{holds} "
        f'<span class="url">{v.h(f.url, v.MAX_URL) or "(no URL)"}</span> '
        f'<span class="meta">{" · ".join(meta)}</span></summary><div class="body">'
    )
    if room.written > TREE_BUDGET:
        room.cut += 1
        return head
    facts: list[tuple[str, str]] = [
        ("File", v.link(f.url, "open the file") if v.LINKABLE.match(f.url) else "no link")
    ]
    source = v.text(raw.get("source"), 20)
    if source:
        facts.append(
            (
                "Found in",
                {
                    "robots": "robots.txt",
                    "fallback": "a usual place (no robots.txt line)",
                    "index": "an index",
                }.get(source, escape(source)),
            )
        )
    depth = v.as_int(raw.get("depth"))
    if depth is not None:
        facts.append(("Depth", v.count(depth)))
    moved = v.text(raw.get("finalUrl"), 300)
    if moved:
        facts.append(("Redirected to", f"<code>{escape(moved)}</code>"))
    for key, label in (("contentType", "Content type"), ("compression", "Compression")):
        text = v.text(raw.get(key), 100)
        if text:
            facts.append((label, f"<code>{escape(text)}</code>"))
    wire = v.as_int(raw.get("wireBytes"))
    if wire is not None or f.bytes is not None:
        facts.append(("Size", f"{v.size(wire)} on the wire, {v.size(f.bytes)} read"))
    seconds = v.as_float(raw.get("seconds"))
    if seconds is not None:
        facts.append(("Fetched in", f"{seconds:,.2f} s"))
    dates = _dates_fact(lastmod)
    if dates is not None:
        facts.append(("Dates", dates))
    extras = [
        f"{v.count(v.as_int(ext.get(k)))} {k}"
        for k in ("image", "video", "news", "alternates")
        if v.as_int(ext.get(k))
    ]
    if extras:
        facts.append(("Extensions", ", ".join(extras)))
    pairs = (f"<div><dt>{k}</dt><dd>{v}</dd></div>" for k, v in facts)
    parts = [head, '<dl class="kv">', *pairs, "</dl>"]
    by_month = v.as_map(lastmod.get("byMonth"))
    if by_month:
        room.charts += 1
        if room.charts <= MAX_SPARKLINES:
            buckets = charts.lastmod_buckets(by_month, month)
            if buckets:
                parts.append(
                    '<div class="sparkbox">'
                    + charts.sparkline(f"sp-{node}", "Lastmod dates in this file", buckets)
                    + f'<span class="axis">{escape(buckets[0].label)}'
                    + (f" – {escape(buckets[-1].label)}" if len(buckets) > 1 else "")
                    + "</span></div>"
                )
    found = by_sitemap.get(f.url, [])
    if found:
        parts.append('<p class="fl">Findings in this file:</p><ul class="file-findings">')
        for index, group, item in found[:FILE_FINDINGS]:
            c = max(v.as_int(item.get("count")) or 1, 1)
            target = f"#f-{index}" if index in anchors else f"#k-{group.number}"
            title = (
                f'<a href="{target}">{escape(group.title)}</a>'
                if group.shown
                else escape(group.title)
            )
            parts.append(
                f'<li><span class="pill p-{_FINDING_CSS[group.rank]}">{v.severity_name(group.rank)}'
                f"</span> {title} ({v.count(c)})</li>"
            )
        if len(found) > FILE_FINDINGS:
            parts.append(f"<li>and {v.count(len(found) - FILE_FINDINGS)} more</li>")
        parts.append("</ul>")
    written = "".join(parts)
    room.written += len(written)
    return written
