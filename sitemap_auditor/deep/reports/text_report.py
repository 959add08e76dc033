"""The deep audit's readable report, rendered from the JSON document alone: the sitemap tree,
the findings most harmful first with their fix, the counts."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any, cast

from sitemap_auditor.core.text import map_text, shown_text
from sitemap_auditor.deep import records
from sitemap_auditor.deep.kinds import SOURCE_NAMES, share

__all__ = ["MAX_TREE_LINES", "is_probe", "percent", "reach", "render"]

# A site with 50,000 sitemaps gets the first ones in its tree and a count of the rest.
MAX_TREE_LINES = 200
_MARKS = {"error": "✗", "warning": "!", "notice": "i"}
_COLOURS = {"error": "31", "warning": "33", "notice": "36"}


def _size(n: int | None) -> str:
    if n is None:
        return "-"
    if n < 1000:
        return f"{n:,} bytes"
    value = float(n)
    for unit in ("KB", "MB", "GB"):
        value /= 1000
        if value < 1000 or unit == "GB":
            break
    return f"{value:,.1f} {unit}"


def percent(share: Any) -> str:
    """A share (0 to 1) as a percentage: 1.23 %, 50 %, <0.01 % for a share rounded to 0."""
    if not isinstance(share, int | float) or isinstance(share, bool) or share < 0:
        return ""
    if share == 0:
        return "<0.01 %"
    return f"{share * 100:.2f}".rstrip("0").rstrip(".") + " %"


def reach(finding: Mapping[str, Any]) -> str:
    """The listed URLs a finding affects, in words ("" when unknown): 12 URLs, 1.5 % of the
    site's."""
    urls = finding.get("urls")
    if not isinstance(urls, int) or isinstance(urls, bool) or urls < 0:
        return ""
    words = _plural(urls, "URL")
    if urls == 0:
        return words
    shown = percent(finding.get("share"))
    return f"{words}, {shown} of the site's" if shown else words


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def _count(value: object) -> str:
    """A count of the document as a person reads it: 4,555; unknown as a dash."""
    return f"{value:,}" if type(value) is int else "–"


def is_probe(sitemap: Mapping[str, Any]) -> bool:
    """True for a sitemap record of the document that is a probe (`records.is_probe`): listed
    apart, as tried."""
    return records.is_probe(sitemap.get("source"), sitemap.get("httpStatus"))


def _counts(c: Mapping[str, int]) -> str:
    parts = [_plural(c[s], s) for s in ("error", "warning", "notice") if c.get(s)]
    return ", ".join(parts) if parts else "no findings"


def _tree(sitemaps: list[Mapping[str, Any]], interrupted: bool = False) -> list[str]:
    children: dict[str | None, list[Mapping[str, Any]]] = {}
    for s in sitemaps:
        children.setdefault(s["parent"], []).append(s)
    lines: list[str] = []
    shown = 0

    def visit(s: Mapping[str, Any], level: int) -> None:
        nonlocal shown
        shown += 1
        if len(lines) < MAX_TREE_LINES:
            what = s["type"]
            status = f"HTTP {s['httpStatus']}" if s["httpStatus"] is not None else "no answer"
            if s.get("finalUrl"):
                status += f" from {s['finalUrl']}"  # where redirects led
            if what == "redirect":  # to a sitemap listed too, read in its own right
                status = f"HTTP {s['httpStatus']}, redirects to {s['finalUrl']}, listed too"
            elif what == "unfetched":
                # Refused or unanswered (its error says why), or left by a limit of the walk.
                failed = s["findings"]["error"]
                left = "interrupted" if interrupted else "a limit was reached"
                status = "not fetched" if failed else f"not fetched ({left})"
                if s["httpStatus"] is not None and s.get("finalUrl") and not failed:
                    # Redirected to a sitemap listed too, which the walk did not get to.
                    status = f"HTTP {s['httpStatus']} from {s['finalUrl']}, not read ({left})"
            entries = f", {_plural(s['entries'], 'entry', 'entries')}" if s["entries"] else ""
            gz = ", gzip" if s["compression"] else ""
            found = _counts(s["findings"])
            lines.append(f"  {'  ' * level}{s['url']}  <{what}> {status}{entries}{gz}  [{found}]")
        for child in children.get(s["url"], []):
            if child is not s:
                visit(child, level + 1)

    for root in children.get(None, []):
        visit(root, 0)
    if shown > len(lines):
        lines.append(f"  ... and {shown - len(lines):,} more sitemaps (see --json or --csv)")
    return lines


def render(document: Mapping[str, Any], colour: bool = False, width: int | None = None) -> str:
    """The whole report as text; width: a terminal's, which a finding's sentences are wrapped
    to, at spaces, each line indented as the first (None: a line each, for a file or a pipe)."""

    def paint(severity: str, text: str) -> str:
        return f"\033[{_COLOURS[severity]}m{text}\033[0m" if colour else text

    def wrapped(first: str, text: str, rest: str) -> list[str]:
        return _wrap(first, text, rest, width)

    d = cast(Mapping[str, Any], map_text(document, shown_text))  # never a control character
    totals = d["totals"]
    verdict = d["verdict"]
    robots = d["robotsTxt"]
    out = [f"Deep audit of {d['auditedUrl']}"]
    said = verdict["status"] or "not reached"
    out.append(f"  Quick check: {said}  {verdict['message'] or ''}".rstrip())
    status = robots["httpStatus"]
    out.append(
        f"  robots.txt  {robots['url']}  "
        f"{'HTTP ' + str(status) if status is not None else 'no answer'}, "
        f"{_plural(robots['sitemapLines'], 'Sitemap: line')}"
    )
    # The usual paths tried with no sitemap there are no sitemaps found (is_probe).
    tried = [s for s in d["sitemaps"] if is_probe(s)]
    out.append(
        f"  read {_plural(totals['fetched'] - len(tried), 'sitemap')} of "
        f"{totals['sitemaps'] - len(tried):,} found, "
        f"{_plural(totals['urls'], 'URL')}, {_size(totals['bytes'])} "
        f"({_size(totals['wireBytes'])} on the wire) in {d['run']['seconds']:.1f} s"
    )
    if d["stoppedBy"] == "interrupted":
        out.append("  stopped: interrupted; the report covers what was read")
    elif d["stoppedBy"] is not None:
        out.append(f"  stopped by {d['stoppedBy']}: not every sitemap was read")
    out.append("")
    out.append("Sitemaps")
    sitemaps = [s for s in d["sitemaps"] if not is_probe(s)]
    none = "  none found" if d["complete"] else "  none found before the audit stopped"
    out.extend(_tree(sitemaps, d["stoppedBy"] == "interrupted") or [none])
    if tried:
        probes = ", ".join(f"{s['url']} (HTTP {s['httpStatus']})" for s in tried[:10])
        out.append(f"  also tried, no sitemap there: {probes}")
    out.append("")
    findings = d["findings"]
    out.append(f"Findings, the most harmful first ({_counts(totals['findings'])})")
    if not findings:
        out.append(
            "  none: every sitemap read passes every check"
            + ("" if d["complete"] else " (not every sitemap was read)")
        )
    for f in findings:
        sev = f["severity"]
        where = f["sitemap"] or "the site"
        line = f", line {f['line']}" if f["line"] is not None else ""
        urls = reach(f)
        out.append(
            f"  {paint(sev, _MARKS[sev] + ' ' + sev.upper())}  {f['title']} ({f['kind']})"
            f"  x{f['count']:,}  in {where}{line}" + (f"  [{urls}]" if urls else "")
        )
        source = SOURCE_NAMES.get(f.get("source"))
        if source:
            out.append(f"      rule: {source}")
        out.extend(wrapped("      ", f["message"], "      "))
        for e in f["examples"]:
            at = f"line {e['line']}: " if e["line"] is not None else ""
            out.extend(wrapped("        e.g. ", f"{at}{e['value']}", " " * 13))
        out.extend(wrapped("      fix: ", f["fix"], " " * 11))
    comparison = d.get("comparison")
    if isinstance(comparison, Mapping):
        out.append("")
        out.extend(_comparison(comparison))
    return "\n".join(out)


def _finding_line(f: Mapping[str, Any]) -> str:
    where = f.get("sitemap") or "the site"
    return f"{f.get('severity') or '?'} {f.get('kind')} in {where}"


def _comparison(c: Mapping[str, Any]) -> list[str]:
    """What changed since the document given to --compare."""
    before = c["previous"].get("startedAt") or "the earlier audit"
    counts = c["counts"]
    out = [
        f"Since {before}: {_plural(counts['new'], 'new finding')}, "
        f"{_plural(counts['resolved'], 'resolved finding')}, "
        f"{_plural(counts['changed'], 'changed count')}, "
        f"{_plural(counts['sitemapsChanged'], 'sitemap')} with other URL counts"
    ]
    unchecked = counts.get("notChecked") or 0
    if unchecked:
        out.append(
            f"  {_plural(unchecked, 'earlier finding')} not checked again: this audit did not "
            "read their sitemaps (a limit or an interruption stopped it, or they now redirect "
            "to another sitemap listed too)"
        )
    if c.get("urlsBefore") != c.get("urlsAfter"):
        out.append(
            f"  URLs listed: {_count(c.get('urlsBefore'))} then {_count(c.get('urlsAfter'))}"
        )
    for f in c["newFindings"]:
        out.append(f"  new       {_finding_line(f)} (x{f.get('count')})")
    for f in c["resolvedFindings"]:
        out.append(f"  resolved  {_finding_line(f)}")
    for f in c["changedFindings"]:
        out.append(f"  changed   {_finding_line(f)}: x{f['countBefore']} then x{f['countAfter']}")
    for s in c["sitemaps"]:
        was = (
            "not listed or not read"
            if s["entriesBefore"] is None
            else _plural(s["entriesBefore"], "entry", "entries")
        )
        now = (
            "not listed or not read"
            if s["entriesAfter"] is None
            else _plural(s["entriesAfter"], "entry", "entries")
        )
        out.append(f"  sitemap   {s['url']}: {was} then {now}")
    return out


def _columns(text: str) -> int:
    """The columns text takes on a terminal: two for a wide character (CJK, full-width)."""
    if text.isascii():
        return len(text)
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _wrap(first: str, text: str, rest: str, width: int | None) -> list[str]:
    """first + text, wrapped at spaces to width columns (None: one line), each line after the
    first starting with rest; a word longer than a line (a URL) is kept whole."""
    if width is None or _columns(first) + _columns(text) <= width:
        return [first + text]
    width = max(width, _columns(rest) + 20)
    lines: list[str] = []
    line, used, empty = first, _columns(first), True
    for word in text.split():
        size = _columns(word)
        if not empty and used + 1 + size > width:
            lines.append(line)
            line, used, empty = rest, _columns(rest), True
        line, used = (line + word, used + size) if empty else (f"{line} {word}", used + 1 + size)
        empty = False
    lines.append(line)
    return lines


def pages_text(pages: Mapping[str, Any], width: int | None = None) -> str:
    """The page check's part of the text report, from the document's `pages` key. Each finding
    says its share of the site's listed URLs; when the pages were an even sample, its share of
    the pages checked too (the sample's estimate for the site). width: as render's."""
    p = cast(Mapping[str, Any], map_text(pages, shown_text))  # never a control character
    checked, indexable = p["checked"], p["indexable"]
    failed = p.get("internalErrors") or 0
    lines = [
        f"Pages: {checked:,} checked, {indexable:,} indexable, "
        f"{checked - indexable - failed:,} not."
    ]
    if failed:
        lines.append(
            f"  {failed:,} could not be judged: an internal error (the pages file's `error`)."
        )
    if p["sampled"]:
        lines.append(f"  An even sample of {p['toCheck']:,} listed URLs (--max-pages).")
    if p["stoppedBy"]:
        lines.append(f"  Stopped early ({p['stoppedBy']}): the counts cover what was checked.")
    for f in p["findings"]:
        said = f"{f['kind']}: {f['message']}{_page_share(f, p)}"
        lines.extend(_wrap(f"  {f['severity']:<7} ", said, " " * 10, width))
        for e in f["examples"][:3]:
            final = e.get("finalUrl") if e.get("finalUrl") != e["url"] else None
            more = e.get("canonical") or final or e.get("error") or e.get("status")
            lines.append(f"          {e['url']}" + (f" -> {more}" if more else ""))
    return "\n".join(lines)


def _page_share(finding: Mapping[str, Any], pages: Mapping[str, Any]) -> str:
    """(1.5 % of the listed URLs), and of the pages checked when they were a sample."""
    listed = percent(finding.get("share"))
    if not listed:
        return ""
    urls, checked = finding.get("urls"), pages.get("checked")
    if pages.get("sampled") and isinstance(urls, int) and isinstance(checked, int) and checked:
        return (
            f" ({percent(share(urls, checked))} of the pages checked; {listed} of the listed URLs)"
        )
    return f" ({listed} of the listed URLs)"
