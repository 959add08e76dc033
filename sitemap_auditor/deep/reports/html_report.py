"""The deep audit's HTML report: one self-contained page rendered from the JSON document v1 alone.

`render(document)` returns the whole page as a string. The page loads nothing: its one style sheet
and its one small script are inline and allowed by their hashes in a Content-Security-Policy that
forbids every other source, so it opens the same from disk, from an e-mail attachment or offline.
Without JavaScript everything is readable; the script only adds sorting and filtering, expand and
collapse, and opens every file before printing.

Every string of the document comes from a stranger's site. Each is cut to a stated length, its
lone surrogates, control and bidirectional-override characters replaced, and escaped where it is
written; none becomes an `id`, a class or a script; a URL becomes a link only when it starts with
`http://` or `https://`, is at most MAX_LINK characters and holds none of the characters a URL
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

import base64
import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from math import isfinite
from typing import Any

from sitemap_auditor.deep.reports import charts, pages_html

__all__ = [
    "MAX_FILES_LISTED",
    "MAX_FINDINGS_LISTED",
    "MAX_FINDINGS_PER_KIND",
    "render",
]

MAX_FILES_LISTED = 1000
MAX_BROKEN_LISTED = 800
MAX_FINDINGS_LISTED = 300
MAX_FINDINGS_PER_KIND = 25
MAX_KINDS = 50  # the document defines 31 kinds: more are a site's or a bug's doing
OCCURRENCES_SHOWN = 3
MAX_SPARKLINES = 400
MAX_NEST = 6
MAX_URL = 300
MAX_LINK = 1000
# Past these many characters a section stops adding detail (its files keep their one line, its
# findings their counts): whatever the strings, the page stays a few megabytes.
TREE_BUDGET = 2_000_000
FINDINGS_BUDGET = 1_000_000
MAX_TEXT = 1000
MAX_VALUE = 200
MAX_EXAMPLES = 5
MAX_CHECKS = 20
FILE_FINDINGS = 8
SMALL_SITE = 5
LARGEST_FILES_DRAWN = 20
URL_LIMIT = 50_000
_BIG = 10**18

_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
# A link only where a browser reads what the text says: http(s), and none of the characters a URL
# never holds raw (white space, controls, quotes, angle brackets, bidirectional overrides).
_LINKABLE = re.compile(
    r"https?://[^\s\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff\"'<>\\^`{|}]+\Z",
    re.I,
)
_TIME = re.compile(r"(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})Z\Z")
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


# --- Reading the document: every value checked, none trusted --------------------------------


def _text(value: object, cap: int = MAX_TEXT) -> str:
    """A document string made safe to show: cut to `cap` characters, unsafe characters replaced
    by U+FFFD. Anything that is not a string is the empty string."""
    if not isinstance(value, str):
        return ""
    cut = _UNSAFE.sub("\ufffd", value[: cap + 1])
    return cut if len(cut) <= cap else cut[: cap - 1] + "…"


def _h(value: object, cap: int = MAX_TEXT) -> str:
    """_text, escaped for HTML text and attribute values alike."""
    return escape(_text(value, cap), quote=True)


def _int(value: object) -> int | None:
    # type(), not isinstance(): True is no number here, and this runs for every count.
    return value if type(value) is int and -_BIG < value < _BIG else None


def _float(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if isfinite(number) and abs(number) < 1e18 else None


def _map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: object) -> Sequence[Any]:
    return value if isinstance(value, list | tuple) else ()


def _n(value: int | None) -> str:
    return "–" if value is None else f"{value:,}"


def _bytes(value: int | None) -> str:
    if value is None:
        return "–"
    for unit, size in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if abs(value) >= size:
            return f"{value / size:,.1f} {unit}"
    return f"{value:,} B"


def _time(value: object) -> str:
    """A document time as `2026-12-01 20:00:00 UTC`, or the escaped text when it is not one."""
    match = _TIME.match(value) if isinstance(value, str) else None
    return f'<span class="nw">{match[1]} {match[2]} UTC</span>' if match else _h(value, 40) or "–"


def _day(value: object) -> str:
    match = _TIME.match(value) if isinstance(value, str) else None
    return f'<span class="nw">{match[1]}</span>' if match else _h(value, 40) or "–"


def _link(url: object, text: str | None = None) -> str:
    """A link to url when it is plainly http(s), else the URL as text; `text` is already HTML."""
    shown = text if text is not None else _h(url, MAX_URL)
    if isinstance(url, str) and len(url) <= MAX_LINK and _LINKABLE.match(url):
        return (
            f'<a href="{escape(url, quote=True)}" rel="noopener noreferrer nofollow" '
            f'referrerpolicy="no-referrer">{shown}</a>'
        )
    return shown


def _sev_name(rank: int) -> str:
    return _SEV_LABEL[_SEVERITIES[rank]] if rank < len(_SEVERITIES) else "Other"


def _severity(value: object) -> int:
    return _RANK.get(value, 3) if isinstance(value, str) else 3


@dataclass(frozen=True, slots=True)
class _File:
    index: int
    raw: Mapping[str, Any]
    url: str
    parent: str | None
    errors: int
    warnings: int
    notices: int
    entries: int | None
    bytes: int | None
    type: str
    rank: int  # 0 broken (an error, or an HTTP error), 1 a warning, 2 a notice, 3 none
    latest: str | None


def _files(document: Mapping[str, Any]) -> list[_File]:
    files = []
    for index, raw in enumerate(_list(document.get("sitemaps"))):
        item = _map(raw)
        counts = _map(item.get("findings"))
        url, parent = item.get("url"), item.get("parent")
        errors = max(_int(counts.get("error")) or 0, 0)
        warnings = max(_int(counts.get("warning")) or 0, 0)
        notices = max(_int(counts.get("notice")) or 0, 0)
        status = _int(item.get("httpStatus"))
        rank = (
            0
            if errors or (status is not None and status >= 400)
            else 1
            if warnings
            else 2
            if notices
            else 3
        )
        latest = _map(item.get("lastmod")).get("latest")
        files.append(
            _File(
                index,
                item,
                url if isinstance(url, str) else "",
                parent if isinstance(parent, str) else None,
                errors,
                warnings,
                notices,
                _int(item.get("entries")),
                _int(item.get("bytes")),
                _text(item.get("type"), 40) or "unknown",
                rank,
                latest if isinstance(latest, str) else None,
            )
        )
    return files


# --- The tree: parents and children, broken first, what is listed ----------------------------


@dataclass(slots=True)
class _Tree:
    files: list[_File]
    roots: list[int]
    children: dict[int, list[int]]
    parent_of: dict[int, int]
    worst: list[int]
    broken_below: list[int]
    listed: set[int]
    broken_total: int
    broken_listed: int


def _tree(files: list[_File]) -> _Tree:
    by_url: dict[str, int] = {}
    for f in files:
        by_url.setdefault(f.url, f.index)
    children: dict[int, list[int]] = {}
    parent_of: dict[int, int] = {}
    roots: list[int] = []
    for f in files:
        p = by_url.get(f.parent) if f.parent is not None else None
        if p is None or p == f.index:
            roots.append(f.index)
        else:
            children.setdefault(p, []).append(f.index)
            parent_of[f.index] = p
    # Depth first from the roots; whatever a loop of parents keeps out of reach becomes a root.
    order: list[int] = []
    seen: set[int] = set()
    is_root = set(roots)
    for start in [*roots, *range(len(files))]:
        if start in seen:
            continue
        if start not in is_root:
            roots.append(start)
            parent_of.pop(start, None)
        stack = [start]
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            order.append(node)
            stack.extend(c for c in reversed(children.get(node, ())) if c not in seen)
    for node, kids in children.items():
        children[node] = [k for k in kids if parent_of.get(k) == node]
    worst = [f.rank for f in files]
    broken_below = [0] * len(files)
    for node in reversed(order):
        for kid in children.get(node, ()):
            worst[node] = min(worst[node], worst[kid])
            broken_below[node] += broken_below[kid] + (files[kid].rank <= 1)

    def key(i: int) -> tuple[int, int]:
        return (worst[i], i)

    roots.sort(key=key)
    for kids in children.values():
        kids.sort(key=key)
    broken = sorted(
        (f for f in files if f.rank <= 1), key=lambda f: (f.rank, -f.errors, -f.warnings, f.index)
    )
    listed: set[int] = set()
    for f in broken[:MAX_BROKEN_LISTED]:
        up: int | None = f.index
        while up is not None and up not in listed:
            listed.add(up)
            up = parent_of.get(up)
    for node in _walk(roots, children):
        if len(listed) >= MAX_FILES_LISTED:
            break
        if node not in listed and (parent_of.get(node) is None or parent_of[node] in listed):
            listed.add(node)
    broken_listed = sum(1 for f in broken if f.index in listed)
    return _Tree(
        files, roots, children, parent_of, worst, broken_below, listed, len(broken), broken_listed
    )


def _walk(roots: Iterable[int], children: Mapping[int, list[int]]) -> Iterable[int]:
    stack = list(reversed(list(roots)))
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children.get(node, ())))


# A piece of the tree still to write: ("list", its files, its nesting level, whether flattened).
_Task = tuple[str, list[int], int, bool]


# --- Findings: grouped by kind, what is listed ------------------------------------------------


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


def _cost(item: Mapping[str, Any]) -> int:
    """About how many characters a finding takes on the page, its markup included."""
    examples = _list(item.get("examples"))[:MAX_EXAMPLES]
    return (
        400
        + len(_h(item.get("sitemap"), MAX_URL))
        + len(_h(item.get("message")))
        + len(_h(item.get("fix")))
        + sum(80 + len(_h(_map(e).get("value"), MAX_VALUE)) for e in examples)
    )


def _groups(document: Mapping[str, Any]) -> list[_Group]:
    groups: dict[str, _Group] = {}
    listed = spent = 0
    for index, raw in enumerate(_list(document.get("findings"))):
        item = _map(raw)
        kind = _text(item.get("kind"), 60) or "unknown"
        group = groups.get(kind)
        if group is None:
            title = _text(item.get("title"), 120) or kind
            group = groups[kind] = _Group(len(groups), kind, title, 3, 0, [], [], set())
        group.rank = min(group.rank, _severity(item.get("severity")))
        group.count += max(_int(item.get("count")) or 1, 1)
        group.findings.append((index, item))
        sitemap = item.get("sitemap")
        group.files.add(sitemap if isinstance(sitemap, str) else "")
        if listed < MAX_FINDINGS_LISTED and len(group.listed) < MAX_FINDINGS_PER_KIND:
            cost = _cost(item)
            if spent + cost <= FINDINGS_BUDGET:
                group.listed.append((index, item))
                listed += 1
                spent += cost
    ordered = sorted(groups.values(), key=lambda g: (g.rank, g.number))
    for group in ordered[MAX_KINDS:]:
        group.shown = False
        group.listed = []
    return ordered


# --- The page ------------------------------------------------------------------------------


def render(document: Mapping[str, Any]) -> str:
    """The whole self-contained HTML page for a deep audit's JSON document (v1)."""
    doc = _map(document)
    files = _files(doc)
    tree = _tree(files)
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
    verdict = _map(doc.get("verdict"))
    site = _text(doc.get("siteBase"), MAX_URL) or "an unknown site"
    status = _text(verdict.get("status"), 20) or "no verdict"
    left_out: list[str] = []
    body = [
        _header(doc, site),
        _glance(doc, verdict, groups),
        _charts_section(files, groups, month),
        _findings_section(groups, tree, left_out),
        pages_html.section(doc.get("pages")),  # the listed pages, when --pages checked them
        _tree_section(tree, by_sitemap, finding_anchor, month, left_out),
        _footer(doc),
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
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
            '<meta http-equiv="x-dns-prefetch-control" content="off">',
            '<meta name="referrer" content="no-referrer">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta name="color-scheme" content="light dark">',
            f"<title>Sitemap audit: {escape(site)} ({escape(status)})</title>",
            f"<style>{_STYLE}</style></head><body>",
            '<a class="skip" href="#findings">Skip to the findings</a>',
            *body,
            f"<script>{_SCRIPT}</script></body></html>\n",
        ]
    )


def _header(doc: Mapping[str, Any], site: str) -> str:
    return (
        '<header class="top"><p class="eyebrow">Sitemap audit</p>'
        f"<h1>{_link(doc.get('siteBase'), escape(site))}</h1>"
        f'<p class="sub">Audited URL: {_link(doc.get("auditedUrl"))} · '
        f"{_time(doc.get('startedAt'))}</p>"
        '<nav aria-label="Contents"><ul><li><a href="#glance">At a glance</a></li>'
        '<li><a href="#charts">Charts</a></li><li><a href="#findings">Findings</a></li>'
        '<li><a href="#tree">Sitemaps</a></li></ul></nav></header><main>'
    )


def _glance(doc: Mapping[str, Any], verdict: Mapping[str, Any], groups: list[_Group]) -> str:
    status = _text(verdict.get("status"), 20)
    css = _VERDICT_CSS.get(status, "note")
    totals = _map(doc.get("totals"))
    severities = _map(totals.get("findings"))
    robots = _map(doc.get("robotsTxt"))
    tiles = []
    for sev, css_sev in zip(_SEVERITIES, ("err", "warn", "note"), strict=True):
        n = _int(severities.get(sev))
        label = f"{_SEV_LABEL[sev].lower()}s" if n != 1 else _SEV_LABEL[sev].lower()
        tiles.append(
            f'<li class="tile t-{css_sev if n else "zero"}"><span class="n">{_n(n)}</span> '
            f"{label}</li>"
        )
    tiles.append(
        f'<li class="tile"><span class="n">{_n(_int(totals.get("sitemaps")))}</span> sitemaps</li>'
        f'<li class="tile"><span class="n">{_n(_int(totals.get("urls")))}</span> URLs</li>'
        f'<li class="tile"><span class="n">{_bytes(_int(totals.get("bytes")))}</span> '
        "read</li>"
    )
    complete = doc.get("complete")
    stopped = doc.get("stoppedBy")
    if complete is True and stopped is None:
        walk = "complete: every sitemap listed was read"
    else:
        reason = _STOPPED.get(stopped, _h(stopped, 40)) if isinstance(stopped, str) else ""
        walk = f'<strong class="warn-text">incomplete</strong>{": " + reason if reason else ""}'
    lines = _int(robots.get("sitemapLines"))
    seconds = _float(doc.get("seconds"))
    rows = [
        ("Site root", _link(doc.get("siteBase"))),
        (
            "robots.txt",
            f"{_link(robots.get('url'))} · HTTP {_n(_int(robots.get('httpStatus')))} · "
            f"{_n(lines)} <code>Sitemap:</code> line{'' if lines == 1 else 's'}",
        ),
        (
            "Audited",
            f"{_time(doc.get('startedAt'))} to {_time(doc.get('finishedAt'))}"
            + (f" ({seconds:,.1f} s)" if seconds is not None else ""),
        ),
        ("The walk", walk),
    ]
    checks = [_map(c) for c in _list(verdict.get("checks"))[:MAX_CHECKS]]
    check_rows = "".join(
        f"<tr><td><code>{_h(c.get('code'), 60)}</code></td>"
        f'<td><span class="pill p-{_VERDICT_CSS.get(_text(c.get("status"), 20), "note")}">'
        f"{_h(c.get('status'), 20)}</span></td><td>{_h(c.get('message'))}</td></tr>"
        for c in checks
    )
    worst = groups[0] if groups and groups[0].rank <= 1 else None
    if worst:
        headline = (
            f'<p class="worst">Worst finding: <a href="#k-{worst.number}">'
            f"{escape(worst.title)}</a> ({_n(worst.count)})</p>"
        )
    elif _list(doc.get("sitemaps")):
        headline = '<p class="worst">No errors or warnings in the sitemaps.</p>'
    else:
        headline = '<p class="worst">No sitemap was found, so none could be checked.</p>'

    return (
        '<section id="glance" aria-labelledby="glance-h"><h2 id="glance-h">At a glance</h2>'
        f'<div class="verdict v-{css}"><p class="vlabel">The Sitemap Auditor\'s verdict '
        "(is there a sitemap, and is it fresh?)</p>"
        f'<p class="vstatus">{escape(status) or "no verdict"}</p>'
        f'<p class="vmsg">{_h(verdict.get("message"))}</p></div>'
        '<p class="tiles-h">What the deep audit found in every sitemap:</p>'
        f'<ul class="tiles" aria-label="Findings and totals">{"".join(tiles)}</ul>{headline}'
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


def _where(item: Mapping[str, Any], tree: _Tree, anchors: Mapping[str, int]) -> str:
    sitemap = item.get("sitemap")
    if not isinstance(sitemap, str):
        return "the site or its robots.txt"
    node = anchors.get(sitemap)
    if node is not None and node in tree.listed:
        return f'<a href="#s-{node}" class="url">{_h(sitemap, MAX_URL)}</a>'
    return f'<span class="url">{_h(sitemap, MAX_URL)}</span>'


def _findings_section(groups: list[_Group], tree: _Tree, left: list[str]) -> str:
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
        f'<span class="pill p-{_FINDING_CSS[g.rank]}">{_sev_name(g.rank)}</span></td>'
        f'<td><a href="#k-{g.number}">{escape(g.title)}</a></td>'
        f'<td class="kind"><code>{escape(g.kind)}</code></td>'
        f'<td class="num" data-v="{len(g.files)}">{_n(len(g.files))}</td>'
        f'<td class="num" data-v="{g.count}">{_n(g.count)}</td></tr>'
        for g in shown
    )
    parts = [
        '<section id="findings" aria-labelledby="findings-h"><h2 id="findings-h">Findings</h2>',
        '<p class="hint">Worst first. Each finding uses Search Console\'s name for it, says what '
        "it means and what to do, with examples from the files.</p>",
        '<div class="controls" hidden><label>Filter findings <input type="search" '
        'data-filter="findings-table" autocomplete="off"></label></div>',
        '<div class="scroll"><table class="sortable" id="findings-table"><caption>Findings by '
        'kind</caption><thead><tr><th scope="col" data-num>Severity</th><th scope="col">Finding'
        '</th><th scope="col" class="kind">Kind</th><th scope="col" class="num" data-num>Files</th>'
        '<th scope="col" class="num" data-num>Count</th></tr></thead>'
        f"<tbody>{rows}</tbody></table></div>",
    ]
    not_listed = 0
    for g in shown:
        sample = g.listed or g.findings[:1]
        messages = {_text(item.get("message")) for _, item in sample}
        fixes = {_text(item.get("fix")) for _, item in sample}
        one_message = len(messages) == 1
        one_fix = len(fixes) == 1
        css = _FINDING_CSS[g.rank]
        files = len(g.files - {""})
        where = f"{_n(files)} file{'' if files == 1 else 's'}" if files else ""
        if "" in g.files:
            where += " and " if where else ""
            where += "the site or its robots.txt"
        parts.append(
            f'<article class="finding f-{css}" id="k-{g.number}" aria-labelledby="k-{g.number}-h">'
            f'<h3 id="k-{g.number}-h"><span class="pill p-{css}">'
            f"{_sev_name(g.rank)}</span> "
            f"{escape(g.title)} <code>{escape(g.kind)}</code></h3>"
            f'<p class="count">{_n(g.count)} time{"" if g.count == 1 else "s"} in '
            f"{where}</p>"
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
                    f'</ul><details class="more-occ"><summary>{_n(more)} more place'
                    f"{'' if more == 1 else 's'} with this finding</summary>"
                    '<ul class="occurrences">'
                )
            count = max(_int(item.get("count")) or 1, 1)
            line = _int(item.get("line"))
            parts.append(
                f'<li id="f-{index}"><p class="where">In {_where(item, tree, anchors)}: '
                f"{_n(count)} time{'' if count == 1 else 's'}"
                + (f", first at line {_n(line)}" if line is not None else "")
                + "</p>"
            )
            if not one_message and _text(item.get("message")):
                parts.append(f'<p class="meaning">{_h(item.get("message"))}</p>')
            examples = [_map(e) for e in _list(item.get("examples"))[:MAX_EXAMPLES]]
            if examples:
                parts.append(
                    '<table class="examples"><thead><tr><th scope="col">Line</th>'
                    '<th scope="col">Example</th></tr></thead><tbody>'
                    + "".join(
                        f"<tr><td>{_n(_int(e.get('line')))}</td>"
                        f"<td><code>{_h(e.get('value'), MAX_VALUE)}</code></td></tr>"
                        for e in examples
                    )
                    + "</tbody></table>"
                )
            if not one_fix and _text(item.get("fix")):
                parts.append(
                    f'<p class="fix"><strong>What to do:</strong> {_h(item.get("fix"))}</p>'
                )
            parts.append("</li>")
        parts.append("</ul></details>" if len(g.listed) > OCCURRENCES_SHOWN else "</ul>")
        rest = len(g.findings) - len(g.listed)
        if rest:
            not_listed += rest
            rest_count = g.count - sum(max(_int(i.get("count")) or 1, 1) for _, i in g.listed)
            parts.append(
                f'<p class="more">And {_n(rest)} more of this kind ({_n(rest_count)} times), '
                "not listed one by one.</p>"
            )
        parts.append("</article>")
    unshown = [g for g in groups if not g.shown]
    if unshown:
        more = sum(len(g.findings) for g in unshown)
        note = (
            f"{_n(len(unshown))} more kinds of finding ({_n(more)} findings) are left out: "
            f"the report shows {MAX_KINDS}."
        )
        parts.append(f'<p class="more">{note}</p>')
        left.append(note)
    if not_listed:
        left.append(
            f"{_n(not_listed)} findings are counted but not listed with their examples "
            f"(at most {MAX_FINDINGS_LISTED} are, {MAX_FINDINGS_PER_KIND} of one kind, "
            "as many as a few megabytes hold)."
        )
    parts.append("</section>")
    return "".join(parts)


def _charts_section(files: list[_File], groups: list[_Group], month: str | None) -> str:
    parts = [
        '<section id="charts" aria-labelledby="charts-h"><h2 id="charts-h">Charts</h2>',
    ]
    overall: dict[str, int] = {}
    for f in files:
        if f.type == "sitemapindex":
            continue
        for key, value in _map(_map(f.raw.get("lastmod")).get("byMonth")).items():
            if type(value) is int and 0 < value < _BIG and type(key) is str:
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
                _short_url(f.url),
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
            + f", against the limit of {URL_LIMIT:,} URLs (or sitemaps) a file. {escape(desc)}"
            "</p></figcaption>"
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


def _short_url(url: str) -> str:
    text = _text(url, MAX_URL)
    rest = text.split("://", 1)[-1]
    slash = rest.find("/")
    return rest[slash:] if 0 <= slash < len(rest) - 1 else rest


def _badges(errors: int, warnings: int, notices: int, ok: bool = True) -> str:
    out = []
    for n, label, css in (
        (errors, "error", "err"),
        (warnings, "warning", "warn"),
        (notices, "notice", "note"),
    ):
        if n:
            out.append(f'<span class="pill p-{css}">{n:,} {label}{"" if n == 1 else "s"}</span>')
    return "".join(out) or ('<span class="pill p-ok">OK</span>' if ok else "")


@dataclass(slots=True)
class _Room:
    """What the tree has used of its room: small charts drawn, characters written, and files
    written as their one line because the others used it up."""

    charts: int = 0
    written: int = 0
    cut: int = 0


def _tree_section(
    tree: _Tree,
    by_sitemap: Mapping[str, list[tuple[int, _Group, Mapping[str, Any]]]],
    anchors: Mapping[int, int],
    month: str | None,
    left: list[str],
) -> str:
    files = tree.files
    types = Counter(f.type for f in files)
    summary = ", ".join(f"{_n(n)} {escape(t)}" for t, n in types.most_common(8))
    out: list[str] = [
        '<section id="tree" aria-labelledby="tree-h"><h2 id="tree-h">Sitemaps</h2>',
        f'<p class="hint">{_files_n(len(files))} ({summary}). Indexes hold the files they list; '
        "files with errors come first. Open a file for its details and findings.</p>"
        if files
        else "<p>No sitemap was found: neither robots.txt nor the usual places listed one.</p>",
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
                below = [n for n in _walk(kids, tree.children)]
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
            f"{_n(len(files) - len(tree.listed))} of {_n(len(files))} files are summed up under "
            f"the index that lists them instead of being listed one by one (at most "
            f"{MAX_FILES_LISTED:,} are, the broken ones first)"
            + (
                f"; {_n(broken_hidden)} of them have errors or warnings, past the "
                f"{tree.broken_listed:,} listed."
                if broken_hidden
                else "; none of them has an error or a warning."
            )
        )
    if room.cut:
        left.append(
            f"{_n(room.cut)} files listed are shown by their one line, without their details: "
            "the details of the others filled the report's room."
        )
    if room.charts > MAX_SPARKLINES:
        left.append(
            f"Date charts are drawn for the first {MAX_SPARKLINES:,} files listed; the others "
            "give their dates in words."
        )
    out.append("</section>")
    return "".join(out)


def _group_line(tree: _Tree, hidden: list[int], flat: bool, left: list[str]) -> str:
    members = hidden if flat else list(_walk(hidden, tree.children))
    files = [tree.files[i] for i in members]
    types = Counter(f.type for f in files)
    entries = sum(f.entries or 0 for f in files)
    size = sum(f.bytes or 0 for f in files)
    latest = max((f.latest for f in files if f.latest and _TIME.match(f.latest)), default=None)
    broken = sum(1 for f in files if f.rank <= 1)
    errors = sum(f.errors for f in files)
    warnings = sum(f.warnings for f in files)
    notices = sum(f.notices for f in files)
    kinds = ", ".join(f"{_n(n)} {escape(t)}" for t, n in types.most_common(4))
    return (
        f'<li class="group{" broken" if broken else ""}"><p>{_badges(errors, warnings, notices)} '
        f"<strong>{_n(len(files))} more file{'' if len(files) == 1 else 's'}</strong> ({kinds}): "
        f"{_n(entries)} entries, {_bytes(size)}"
        + (f", latest <code>&lt;lastmod&gt;</code> {_day(latest)}" if latest else "")
        + (
            f"; {_n(broken)} of them with errors or warnings"
            if broken
            else "; none with an error or a warning"
        )
        + ". Not listed one by one.</p></li>"
    )


def _node(
    tree: _Tree,
    node: int,
    by_sitemap: Mapping[str, list[tuple[int, _Group, Mapping[str, Any]]]],
    anchors: Mapping[int, int],
    month: str | None,
    room: _Room,
) -> str:
    f = tree.files[node]
    raw = f.raw
    status = _int(raw.get("httpStatus"))
    lastmod = _map(raw.get("lastmod"))
    ext = _map(raw.get("extensions"))
    css = _SEV_CSS[f.rank]
    meta = [
        f'<span class="type">{escape(f.type)}</span>',
        f"HTTP {_n(status)}" if status is not None else "not fetched",
    ]
    if f.entries is not None and (f.entries or (status is not None and status < 400)):
        meta.append(f"{_n(f.entries)} entr{'y' if f.entries == 1 else 'ies'}")
    if f.bytes is not None:
        meta.append(_bytes(f.bytes))
    if f.latest:
        meta.append(f"latest {_day(f.latest)}")
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
        f'<span class="pill p-{_SEV_CSS[tree.worst[node]]} holds">{inside:,} broken '
        f"file{'' if inside == 1 else 's'} inside</span>"
        if inside
        else ""
    )
    head = (
        f'<li class="node n-{css}{" broken" if f.rank <= 1 else ""}" id="s-{node}">'
        f"<details{is_open}><summary>{_badges(f.errors, f.warnings, f.notices, not inside)}{holds} "
        f'<span class="url">{_h(f.url, MAX_URL) or "(no URL)"}</span> '
        f'<span class="meta">{" · ".join(meta)}</span></summary><div class="body">'
    )
    if room.written > TREE_BUDGET:
        room.cut += 1
        return head
    facts: list[tuple[str, str]] = [
        ("File", _link(f.url, "open the file") if _LINKABLE.match(f.url) else "no link")
    ]
    source = _text(raw.get("source"), 20)
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
    depth = _int(raw.get("depth"))
    if depth is not None:
        facts.append(("Depth", _n(depth)))
    for key, label in (("contentType", "Content type"), ("compression", "Compression")):
        text = _text(raw.get(key), 100)
        if text:
            facts.append((label, f"<code>{escape(text)}</code>"))
    wire = _int(raw.get("wireBytes"))
    if wire is not None or f.bytes is not None:
        facts.append(("Size", f"{_bytes(wire)} on the wire, {_bytes(f.bytes)} read"))
    seconds = _float(raw.get("seconds"))
    if seconds is not None:
        facts.append(("Fetched in", f"{seconds:,.2f} s"))
    count = _int(lastmod.get("count"))
    if count == 0:
        facts.append(("Dates", "no entry has a <code>&lt;lastmod&gt;</code>"))
    elif count is not None:
        share = _float(lastmod.get("share"))
        days = _int(lastmod.get("distinctDays"))
        facts.append(
            (
                "Dates",
                f"{_n(count)} entr{'y' if count == 1 else 'ies'} with a "
                "<code>&lt;lastmod&gt;</code>"
                + (f" ({share * 100:.0f}%)" if share is not None else "")
                + (
                    f", from {_day(lastmod.get('earliest'))} to {_day(lastmod.get('latest'))}"
                    if lastmod.get("earliest") or lastmod.get("latest")
                    else ""
                )
                + (
                    f", on {_n(days)} distinct day{'' if days == 1 else 's'}"
                    if days is not None
                    else ""
                ),
            )
        )
    extras = [
        f"{_n(_int(ext.get(k)))} {k}"
        for k in ("image", "video", "news", "alternates")
        if _int(ext.get(k))
    ]
    if extras:
        facts.append(("Extensions", ", ".join(extras)))
    pairs = (f"<div><dt>{k}</dt><dd>{v}</dd></div>" for k, v in facts)
    parts = [head, '<dl class="kv">', *pairs, "</dl>"]
    by_month = _map(lastmod.get("byMonth"))
    if by_month:
        room.charts += 1
        if room.charts <= MAX_SPARKLINES:
            buckets = charts.lastmod_buckets(by_month, month)
            if buckets:
                parts.append(
                    '<div class="sparkbox">'
                    + charts.sparkline(f"sp-{node}", "Lastmod dates in this file", buckets)
                    + f'<span class="axis">{escape(buckets[0].label)} – '
                    f"{escape(buckets[-1].label)}</span></div>"
                )
    found = by_sitemap.get(f.url, [])
    if found:
        parts.append('<p class="fl">Findings in this file:</p><ul class="file-findings">')
        for index, group, item in found[:FILE_FINDINGS]:
            c = max(_int(item.get("count")) or 1, 1)
            target = f"#f-{index}" if index in anchors else f"#k-{group.number}"
            title = (
                f'<a href="{target}">{escape(group.title)}</a>'
                if group.shown
                else escape(group.title)
            )
            parts.append(
                f'<li><span class="pill p-{_FINDING_CSS[group.rank]}">{_sev_name(group.rank)}'
                f"</span> {title} ({_n(c)})</li>"
            )
        if len(found) > FILE_FINDINGS:
            parts.append(f"<li>and {_n(len(found) - FILE_FINDINGS)} more</li>")
        parts.append("</ul>")
    written = "".join(parts)
    room.written += len(written)
    return written


def _footer(doc: Mapping[str, Any]) -> str:
    limits = _map(doc.get("limits"))
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
        number = _float(limits.get(key))
        if number is None:
            continue
        whole = int(number) if number.is_integer() else None
        value = (
            _bytes(whole)
            if key == "maxBytes"
            else _n(whole)
            if whole is not None
            else f"{number:,.1f}"
        )
        shown.append(f"{value} {label}")
    text = ", ".join(shown)
    version = _int(doc.get("version"))
    return (
        "</main><footer><p>The deep audit's limits: " + (text or "not given") + ". "
        f"Rendered from the deep audit's document (<code>{_h(doc.get('format'), 40)}</code> "
        f"version {_n(version)}) by the Sitemap Auditor. This page loads nothing from any host; "
        "the links open the files on the audited site.</p></footer>"
    )


# The light palette is also the printed one, whatever the reader's screen prefers.
_LIGHT = (
    "--bg:#ffffff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa;--link:#0550ae;"
    "--err:#b3261e;--warn:#8a4b00;--note:#0a58a8;--ok:#1a7f37;--bar:#3a6db3;--future:#c25e00;"
    "--errbg:#ffebe9;--warnbg:#fff3d6;--notebg:#ddf4ff;--okbg:#dafbe1"
)
_STYLE = (
    """
:root{LIGHT}
@media (prefers-color-scheme:dark){:root{--bg:#0f1419;--fg:#e6edf3;--muted:#9aa6b2;--line:#333c46;
--soft:#161c23;--link:#6cb6ff;--err:#ff8a80;--warn:#e8b04b;--note:#7cc4ff;--ok:#5fd07a;
--bar:#5b9ae8;--future:#ff9a40;--errbg:#3b1618;--warnbg:#33260b;--notebg:#0c2a45;--okbg:#0f2e1a}}
*{box-sizing:border-box}
html{background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",
Roboto,"Noto Sans",sans-serif}
body{margin:0 auto;max-width:76rem;padding:0 1rem 3rem;overflow-wrap:break-word}
a{color:var(--link)}code{font:0.9em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
overflow-wrap:anywhere}
h1{font-size:1.8rem;margin:.2rem 0;overflow-wrap:anywhere}h1 a{color:inherit}
h2{font-size:1.4rem;margin:2.2rem 0 .6rem;padding-bottom:.3rem;border-bottom:1px solid var(--line)}
h3{font-size:1.1rem;margin:0 0 .4rem}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--bg)}
.top{padding:1.5rem 0 .5rem}.eyebrow{margin:0;color:var(--muted);text-transform:uppercase;
letter-spacing:.08em;font-size:.8rem;font-weight:600}.sub{margin:.2rem 0;color:var(--muted);
overflow-wrap:anywhere}
nav ul{list-style:none;padding:0;margin:.6rem 0 0;display:flex;flex-wrap:wrap;gap:.3rem 1.2rem}
.verdict{border-left:6px solid var(--c);background:var(--cb);padding:.8rem 1rem;border-radius:6px;
margin:.5rem 0 1rem}.verdict p{margin:0}.vlabel{font-size:.8rem;color:var(--muted)}
.vstatus{font-size:1.6rem;font-weight:700;color:var(--c)}.vmsg{overflow-wrap:anywhere}
.v-ok{--c:var(--ok);--cb:var(--okbg)}.v-warn{--c:var(--warn);--cb:var(--warnbg)}
.v-err{--c:var(--err);--cb:var(--errbg)}.v-note{--c:var(--note);--cb:var(--notebg)}
.tiles{list-style:none;padding:0;margin:0 0 .8rem;display:grid;gap:.6rem;
grid-template-columns:repeat(auto-fill,minmax(9.5rem,1fr))}
.tile{border:1px solid var(--line);border-radius:6px;padding:.5rem .8rem;color:var(--muted)}
.tile .n{display:block;font-size:1.5rem;font-weight:700;color:var(--fg)}
.t-err{border-color:var(--err);background:var(--errbg)}.t-err .n{color:var(--err)}
.t-warn{border-color:var(--warn);background:var(--warnbg)}.t-warn .n{color:var(--warn)}
.t-note .n{color:var(--note)}.t-zero .n{color:var(--ok)}
.worst{font-weight:600}.tiles-h{margin:.2rem 0 .4rem;font-weight:600}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:.5rem 0}
.facts dt{color:var(--muted)}.facts dd{margin:0;overflow-wrap:anywhere;min-width:0}
.warn-text{color:var(--warn)}.nw{white-space:nowrap}
.left-out{border:1px dashed var(--line);border-radius:6px;padding:.2rem 1rem;margin:.8rem 0;
background:var(--soft)}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;margin:.5rem 0}caption{text-align:left;
font-weight:600;padding:.3rem 0}
th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid var(--line);vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums}
th[data-num].num{text-align:right}
thead th{background:var(--soft)}
button{font:inherit;color:inherit;background:var(--soft);border:1px solid var(--line);
border-radius:4px;padding:.1rem .6rem;cursor:pointer}
th button.sort{border:0;background:none;padding:0;font-weight:700}
th[aria-sort=ascending] button::after{content:" ▲"}
th[aria-sort=descending] button::after{content:" ▼"}
.controls{margin:.5rem 0;display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}
input[type=search]{font:inherit;padding:.2rem .4rem;border:1px solid var(--line);
border-radius:4px;background:var(--bg);color:var(--fg)}
.pill{display:inline-block;border-radius:999px;padding:0 .55rem;font-size:.8rem;font-weight:600;
border:1px solid var(--c);color:var(--c);background:var(--cb);margin-right:.25rem;
white-space:nowrap}
.p-err{--c:var(--err);--cb:var(--errbg)}.p-warn{--c:var(--warn);--cb:var(--warnbg)}
.p-note{--c:var(--note);--cb:var(--notebg)}.p-ok{--c:var(--ok);--cb:var(--okbg)}
.p-other{--c:var(--muted);--cb:var(--soft)}.f-other{--c:var(--muted)}
.hint{color:var(--muted)}
.finding{border:1px solid var(--line);border-left:6px solid var(--c);border-radius:6px;
padding:.8rem 1rem;margin:1rem 0;break-inside:avoid}
.f-err{--c:var(--err)}.f-warn{--c:var(--warn)}.f-note{--c:var(--note)}.f-ok{--c:var(--ok)}
.finding h3 code{font-size:.75rem;color:var(--muted);font-weight:400}
.finding .count{margin:.1rem 0 .4rem;color:var(--muted)}
.meaning,.fix{margin:.3rem 0;overflow-wrap:anywhere}
.occurrences{list-style:none;padding:0;margin:.5rem 0 0}
.occurrences>li{border-top:1px solid var(--line);padding:.4rem 0}.where{margin:0}
.url{overflow-wrap:anywhere;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
font-size:.9em}
.examples{width:auto;max-width:100%;font-size:.9rem;margin:.3rem 0}
.examples td{padding:.1rem .6rem}
.examples td:first-child{color:var(--muted);white-space:nowrap;text-align:right}
.more{color:var(--muted);font-style:italic}
.more-occ>summary{cursor:pointer;color:var(--link);padding:.3rem 0}
figure{margin:1rem 0 2rem}figcaption p{margin:0 0 .4rem;color:var(--muted)}
.chartbox{overflow-x:auto}
svg.chart{width:100%;height:auto;max-width:720px;display:block}
svg text{fill:var(--fg);font-size:13px;font-family:system-ui,sans-serif}
svg .c-axis{fill:var(--muted);font-size:12px}svg .c-value{fill:var(--muted)}
.c-bar{fill:var(--bar)}.c-future{fill:var(--future)}.c-over{fill:var(--muted)}
.c-err{fill:var(--err)}.c-warn{fill:var(--warn)}.c-note{fill:var(--note)}
.c-grid{stroke:var(--line);stroke-dasharray:2 3}.c-base{stroke:var(--muted)}
.c-limit{stroke:var(--err);stroke-width:2;stroke-dasharray:5 4}
ul.tree{list-style:none;margin:0;padding:0}ul.tree ul.tree{padding-left:1.1rem;
border-left:2px solid var(--line);margin:.3rem 0 .3rem .3rem}
.node{margin:.2rem 0}.node>details>summary{cursor:pointer;padding:.3rem .4rem;border-radius:4px;
overflow-wrap:anywhere}.node>details>summary:hover{background:var(--soft)}
.node .meta{color:var(--muted);font-size:.9rem;white-space:normal}
.node .type{font-weight:600;color:var(--fg)}
.n-err>details>summary{background:var(--errbg)}
.body{padding:.2rem .4rem .4rem 1.4rem}
.kv{display:flex;flex-wrap:wrap;gap:.1rem 1.6rem;margin:.2rem 0 .4rem;font-size:.92rem}
.kv div{display:flex;gap:.4rem;min-width:0}.kv dt{color:var(--muted)}.kv dd{margin:0;
overflow-wrap:anywhere;min-width:0}
.sparkbox{display:flex;align-items:flex-end;gap:.6rem;flex-wrap:wrap;margin:.3rem 0}
svg.spark{width:240px;height:40px}.sparkbox .axis{color:var(--muted);font-size:.8rem}
.fl{margin:.4rem 0 .1rem;font-weight:600}.file-findings{margin:0;padding-left:1.2rem}
.group p{margin:.3rem 0;padding:.3rem .4rem;color:var(--muted);border:1px dashed var(--line);
border-radius:4px}
footer{margin-top:3rem;color:var(--muted);font-size:.9rem;border-top:1px solid var(--line)}
@media (max-width:600px){html{font-size:15px}svg.cols text{font-size:19px}
svg.bars text{font-size:16px}.kind{display:none}.facts{grid-template-columns:1fr}
.facts dt{margin-top:.3rem}body{padding:0 .6rem 2rem}}
@media print{:root{LIGHT;--fg:#000;--link:#000;color-scheme:light}
html{font-size:11pt}.controls,.skip,nav{display:none!important}a{text-decoration:none}
.finding,figure,tr{break-inside:avoid}h2,h3{break-after:avoid}body{max-width:none}}
""".strip()
    .replace("\n", "")
    .replace("LIGHT", _LIGHT)
)

_SCRIPT = """
(function(){"use strict";var d=document,A=Array.prototype;
function each(s,f,r){A.forEach.call((r||d).querySelectorAll(s),f);}
function val(row,i){var c=row.cells[i];if(!c)return"";var v=c.getAttribute("data-v");
return v!==null?v:c.textContent.trim().toLowerCase();}
each("table.sortable",function(t){var hs=t.tHead.rows[0].cells;
A.forEach.call(hs,function(th,i){var b=d.createElement("button");b.type="button";b.className="sort";
while(th.firstChild)b.appendChild(th.firstChild);th.appendChild(b);
b.addEventListener("click",function(){var up=th.getAttribute("aria-sort")!=="ascending",
num=th.hasAttribute("data-num"),body=t.tBodies[0],rows=A.slice.call(body.rows);
A.forEach.call(hs,function(h){h.removeAttribute("aria-sort");});
th.setAttribute("aria-sort",up?"ascending":"descending");
rows.sort(function(a,b){var x=val(a,i),y=val(b,i),r=num?(+x)-(+y):(x<y?-1:x>y?1:0);
return up?r:-r;});rows.forEach(function(r){body.appendChild(r);});});});});
each("input[data-filter]",function(q){var t=d.getElementById(q.getAttribute("data-filter"));
if(!t)return;q.addEventListener("input",function(){var s=q.value.trim().toLowerCase();
A.forEach.call(t.tBodies[0].rows,function(r){
r.hidden=!!s&&r.textContent.toLowerCase().indexOf(s)<0;});});});
var root=d.getElementById("tree-root"),q=d.getElementById("tree-q"),
bad=d.getElementById("tree-bad");
if(root&&q&&bad){var items=A.slice.call(root.querySelectorAll("li.node,li.group")).reverse();
items.forEach(function(li){var u=li.querySelector(".url");
li._u=u?u.textContent.toLowerCase():"";});
var apply=function(){var s=q.value.trim().toLowerCase(),b=bad.checked;
items.forEach(function(li){li._k=false;});
items.forEach(function(li){var g=li.classList.contains("group"),
own=g?(!s&&(!b||li.classList.contains("broken"))):
((!s||li._u.indexOf(s)>=0)&&(!b||li.classList.contains("broken"))),show=own||li._k;
li.hidden=!show;if(show&&li.parentElement){var p=li.parentElement.closest("li.node");
if(p)p._k=true;}});};q.addEventListener("input",apply);bad.addEventListener("change",apply);
var all=function(o){each("details",function(x){x.open=o;},root);};
d.getElementById("tree-open").addEventListener("click",function(){all(true);});
d.getElementById("tree-close").addEventListener("click",function(){all(false);});}
each(".controls[hidden]",function(c){c.hidden=false;});
var shut=[];addEventListener("beforeprint",function(){
each("details:not([open])",function(x){shut.push(x);x.open=true;});});
addEventListener("afterprint",function(){shut.forEach(function(x){x.open=false;});shut=[];});
function reveal(){var t=null;try{t=location.hash&&
d.getElementById(decodeURIComponent(location.hash.slice(1)));}catch(e){}if(!t)return;if(t.classList.contains("node"))t.firstElementChild.open=true;
for(var p=t.parentElement;p;p=p.parentElement)if(p.tagName==="DETAILS")p.open=true;
t.scrollIntoView();}addEventListener("hashchange",reveal);reveal();})();
""".strip().replace("\n", "")


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


# Nothing but the page's own style sheet and script, allowed by their hashes: an injected element
# could neither run, nor style, nor load anything, and nothing leaves the page while it shows.
_CSP = (
    f"default-src 'none'; script-src {_hash(_SCRIPT)}; style-src {_hash(_STYLE)}; "
    "img-src 'none'; font-src 'none'; connect-src 'none'; media-src 'none'; object-src 'none'; "
    "frame-src 'none'; worker-src 'none'; manifest-src 'none'; base-uri 'none'; form-action 'none'"
)
