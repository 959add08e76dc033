"""The HTML report's comparison section, from the document's `comparison` key alone (`deep
--compare OLD.json`): findings new, resolved and changed since the earlier document, and the
sitemaps whose URL counts moved. Every string is escaped and cut, every list bounded (the full
lists are in the JSON document)."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

from sitemap_auditor.deep.kinds import KINDS
from sitemap_auditor.deep.reports.html_values import time_of

__all__ = ["MAX_ROWS", "section"]

# Rows drawn for each list; the document's counts say how many there are.
MAX_ROWS = 100
_TONE = {"error": "err", "warning": "warn", "notice": "note"}


def _t(value: object, cap: int = 300) -> str:
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    return escape(text[:cap] + ("…" if len(text) > cap else ""))


def _n(value: object) -> str:
    return f"{value:,}" if type(value) is int else "–"


def _items(value: object) -> list[Mapping[str, object]]:
    return [x for x in value if isinstance(x, Mapping)] if isinstance(value, list) else []


_KIND_TITLES = {kind.value: info.title for kind, info in KINDS.items()}


def _finding_row(change: str, f: Mapping[str, object], counts: str) -> str:
    severity = str(f.get("severity"))
    tone = _TONE.get(severity, "note")
    where = f.get("sitemap")
    kind = str(f.get("kind"))
    title = _KIND_TITLES.get(kind)  # a kind this version knows by its title, the rest as written
    named = f'{escape(title)}<br><code class="nw">{_t(kind, 40)}</code>' if title else _t(kind, 40)
    return (
        f'<tr><td>{change}</td><td><span class="pill p-{tone}">{_t(severity.capitalize(), 20)}'
        f"</span></td><td>{named}</td>"
        f'<td class="url">{_t(where) if where else "the site"}</td><td>{counts}</td></tr>'
    )


def _table(heads: tuple[str, ...], rows: list[str], what: str) -> str:
    """A table of at most MAX_ROWS rows (the rest counted), scrolling within its box; "" for
    no rows."""
    if not rows:
        return ""
    head = "".join(f"<th>{h}</th>" for h in heads)
    more = (
        f"<p>And {len(rows) - MAX_ROWS:,} more {what} in the JSON document.</p>"
        if len(rows) > MAX_ROWS
        else ""
    )
    return (
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>'
        + "".join(rows[:MAX_ROWS])
        + "</tbody></table></div>"
        + more
    )


def section(comparison: object) -> str:
    """The section, or "" when the document was compared with none."""
    if not isinstance(comparison, Mapping):
        return ""
    previous = comparison.get("previous")
    before = previous.get("startedAt") if isinstance(previous, Mapping) else None
    counts = comparison.get("counts")
    counts = counts if isinstance(counts, Mapping) else {}
    parts = [
        '<section id="changes" aria-labelledby="changes-h"><h2 id="changes-h">What changed</h2>',
        f"<p>Since the audit of {time_of(before) if before else 'the earlier document'}: "
        f"{_n(counts.get('new'))} new findings, {_n(counts.get('resolved'))} resolved, "
        f"{_n(counts.get('changed'))} with another count; "
        f"{_n(counts.get('sitemapsChanged'))} sitemaps list another number of URLs.</p>",
    ]
    unchecked = counts.get("notChecked")
    if isinstance(unchecked, int) and unchecked > 0:
        parts.append(
            f"<p>{_n(unchecked)} earlier finding{'s were' if unchecked != 1 else ' was'} not "
            "checked again: this audit did not read their sitemaps (a limit or an interruption "
            "stopped it, or they now redirect to another sitemap listed too).</p>"
        )
    if comparison.get("urlsBefore") != comparison.get("urlsAfter"):
        parts.append(
            f"<p>URLs listed: {_n(comparison.get('urlsBefore'))} then "
            f"{_n(comparison.get('urlsAfter'))}.</p>"
        )
    rows = [
        _finding_row("new", f, f"×{_n(f.get('count'))}")
        for f in _items(comparison.get("newFindings"))
    ]
    rows += [
        _finding_row("resolved", f, f"×{_n(f.get('count'))} before")
        for f in _items(comparison.get("resolvedFindings"))
    ]
    rows += [
        _finding_row("changed", f, f"×{_n(f.get('countBefore'))} then ×{_n(f.get('countAfter'))}")
        for f in _items(comparison.get("changedFindings"))
    ]
    parts.append(_table(("Change", "Severity", "Finding", "Where", "Count"), rows, "findings"))
    sitemaps = [
        f'<tr><td class="url">{_t(s.get("url"))}</td><td>{_n(s.get("entriesBefore"))}</td>'
        f"<td>{_n(s.get('entriesAfter'))}</td></tr>"
        for s in _items(comparison.get("sitemaps"))
    ]
    parts.append(_table(("sitemap", "URLs before", "URLs now"), sitemaps, "sitemaps"))
    parts.append("</section>")
    return "".join(parts)
