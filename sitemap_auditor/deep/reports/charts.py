"""The HTML report's charts, drawn as inline SVG strings (pure: no plotting library, no I/O).

Every label that reaches a chart comes from a stranger's site: it is escaped here, where the SVG
is written, and the caller passes plain text. Colours are CSS classes (`.c-err`, `.c-bar`, ...)
that the page's style sheet defines, so the charts follow the page into dark mode and print.
Each chart is `role="img"` with a `<title>` and a `<desc>` that say in words what it shows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape

__all__ = [
    "LIMIT_SHOWN_FROM",
    "Bar",
    "Bucket",
    "column_chart",
    "fit_label",
    "horizontal_bars",
    "lastmod_buckets",
    "sparkline",
]

_MONTH = re.compile(r"(\d{4})-(0[1-9]|1[0-2])\Z")
# Beyond four years of months a chart reads better by year; beyond this many years, the years
# around the audit are drawn and the rest fall into an "earlier" and a "later" bucket.
MAX_MONTHS = 48
MAX_YEARS = 36
# At most this many characters left of a bar (fewer when they are wide: `fit_label`).
LABEL_CHARS = 25
# The largest font size a chart's text takes, in the chart's own units (a phone's style sheet
# draws it larger, as the chart is drawn smaller: svg.cols 19px, svg.bars 16px), and the share of
# it a character takes at most, by kind: labels are cut, and margins made, for what that needs.
_COLS_FONT, _BARS_FONT = 19.0, 16.0
_NARROW = frozenset(" .,:;|!'/()[]ilIjtf1")
_WIDE = frozenset("MWQ@%&mwGOD")


def _width(text: str, font: float) -> float:
    """A generous estimate of the text's width, in the chart's units, at this font size."""
    em = sum(
        0.34 if c in _NARROW else 0.88 if c in _WIDE else 0.66 if c.isascii() else 1.0 for c in text
    )
    return em * font


def fit_label(label: str, room: float, keep_end: bool = False) -> str:
    """The label, cut (with "…" where it was cut) to fit `room` units at a bar chart's largest
    font, and to LABEL_CHARS."""
    if len(label) <= LABEL_CHARS and _width(label, _BARS_FONT) <= room:
        return label
    kept = label[-(LABEL_CHARS - 1) :] if keep_end else label[: LABEL_CHARS - 1]
    while kept and _width(kept + "…", _BARS_FONT) > room:
        kept = kept[1:] if keep_end else kept[:-1]
    return "…" + kept if keep_end else kept + "…"


@dataclass(frozen=True, slots=True)
class Bucket:
    """One column of a date chart: its label, how many entries, and whether it lies after the
    audit (a `<lastmod>` in the future) or gathers the dates outside the drawn years."""

    label: str
    count: int
    future: bool = False
    overflow: bool = False


@dataclass(frozen=True, slots=True)
class Bar:
    """One bar of a horizontal bar chart; `tone` is a CSS class suffix (err, warn, note, bar)."""

    label: str
    value: int
    tone: str = "bar"
    note: str = ""
    keep_end: bool = False  # cut a long label at its start (a URL's end tells files apart)
    unit: str = ""  # written after the value, on the bar ("%")


def _month_index(key: object) -> int | None:
    if not isinstance(key, str):
        return None
    match = _MONTH.match(key)
    return int(match[1]) * 12 + int(match[2]) - 1 if match else None


def lastmod_buckets(by_month: Mapping[str, object], audit_month: str | None) -> list[Bucket]:
    """The columns that show a `byMonth` map, oldest first.

    Every month from the first date up to the audit's month is drawn, empty ones included (so
    "nothing since March" shows as empty columns up to today); when that is more than MAX_MONTHS,
    by year; when even the years are more than MAX_YEARS, the older years fall into one "before"
    column. Dates after the audit's month are one "after the audit" column, whatever their
    spread. Keys that are not `YYYY-MM` and counts that are not positive whole numbers are
    ignored. Without the audit's month, the last date stands for it."""
    counts: dict[int, int] = {}
    for key, value in by_month.items():
        index = _month_index(key)
        if index is None or not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            continue
        counts[index] = counts.get(index, 0) + value
    if not counts:
        return []
    now = _month_index(audit_month)
    end = now if now is not None else max(counts)
    later = sum(c for i, c in counts.items() if i > end)
    past = {i: c for i, c in counts.items() if i <= end}
    tail = [Bucket("after the audit", later, future=True, overflow=True)] if later else []
    if not past:
        return tail
    first = min(past)
    if end - first < MAX_MONTHS:
        months = [
            Bucket(f"{i // 12:04d}-{i % 12 + 1:02d}", past.get(i, 0)) for i in range(first, end + 1)
        ]
        return months + tail
    years: dict[int, int] = {}
    for index, count in past.items():
        years[index // 12] = years.get(index // 12, 0) + count
    low, high = min(years), end // 12
    start = max(low, high - MAX_YEARS + 1)
    before = sum(c for y, c in years.items() if y < start)
    head = [Bucket(f"before {start:04d}", before, overflow=True)] if before else []
    return head + [Bucket(f"{y:04d}", years.get(y, 0)) for y in range(start, high + 1)] + tail


def _n(value: int) -> str:
    return f"{value:,}"


def _svg_open(uid: str, title: str, desc: str, width: int, height: int, css: str) -> str:
    return (
        f'<svg class="{css}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-labelledby="{uid}-t {uid}-d" preserveAspectRatio="xMinYMin meet">'
        f'<title id="{uid}-t">{escape(title)}</title><desc id="{uid}-d">{escape(desc)}</desc>'
    )


# The singular of a chart's units, for a count of one ("1 entry").
_ONE = {"entries": "entry", "URLs": "URL", "files": "file", "sitemaps": "sitemap"}


def _counted(n: int, unit: str) -> str:
    """n and its unit, in the singular for one."""
    return f"{_n(n)} {_ONE.get(unit, unit) if n == 1 else unit}"


def _describe(buckets: Sequence[Bucket], unit: str) -> str:
    total = sum(b.count for b in buckets)
    used = [b for b in buckets if b.count]
    if not used:
        return f"No {unit}."
    peak = max(used, key=lambda b: b.count)
    future = sum(b.count for b in buckets if b.future)
    text = (
        f"{_counted(total, unit)} from {used[0].label} to {used[-1].label}; "
        f"the most, {_n(peak.count)}, in {peak.label}."
    )
    empty_tail = 0
    for bucket in reversed([b for b in buckets if not b.future]):
        if bucket.count:
            break
        empty_tail += 1
    if empty_tail:
        unit_of = "months" if len(buckets[-1 - bool(future)].label) == 7 else "years"
        unit_of = unit_of if empty_tail > 1 else unit_of[:-1]
        text += f" None in the last {empty_tail} {unit_of} up to the audit."
    if future:
        text += f" {_n(future)} dated after the audit."
    return text


def column_chart(uid: str, title: str, buckets: Sequence[Bucket], unit: str = "entries") -> str:
    """A column chart of date buckets with a `<title>` per column (the overall lastmod chart)."""
    peak = max((b.count for b in buckets), default=0) or 1
    # Room left of the plot for the scale's largest number, at the largest font.
    width, height, bottom, top = 640, 200, 34, 14
    left = max(60, round(_width(_n(peak), _COLS_FONT)) + 16)
    plot_w, plot_h = width - left - 8, height - bottom - top
    step = plot_w / max(len(buckets), 1)
    gap = min(2.0, step * 0.2)
    parts = [_svg_open(uid, title, _describe(buckets, unit), width, height, "chart cols")]
    base_y = top + plot_h
    parts.append(
        f'<text class="c-axis" x="{left - 6}" y="{top + 4}" text-anchor="end">{_n(peak)}</text>'
        f'<text class="c-axis" x="{left - 6}" y="{base_y}" text-anchor="end">0</text>'
        f'<line class="c-grid" x1="{left}" y1="{top}" x2="{width - 8}" y2="{top}"/>'
    )
    label_every = max(1, round(len(buckets) / 12))
    drawn = 0  # labels written so far: every other one is hidden on a narrow screen (c-alt)
    for i, bucket in enumerate(buckets):
        x = left + i * step
        if bucket.count:
            h = max(1.0, bucket.count / peak * plot_h)
            tone = "c-future" if bucket.future else "c-over" if bucket.overflow else "c-bar"
            parts.append(
                f'<rect class="{tone}" x="{x + gap / 2:.1f}" y="{base_y - h:.1f}" '
                f'width="{max(step - gap, 0.5):.1f}" height="{h:.1f}">'
                f"<title>{escape(bucket.label)}: {_counted(bucket.count, unit)}</title></rect>"
            )
        text = _axis_label(bucket, i, len(buckets), label_every)
        if text:
            # The first and last labels are held inside the chart; the others sit mid-column.
            anchor, at = (
                ("start", x)
                if i == 0
                else ("end", x + step)
                if i == len(buckets) - 1
                else ("middle", x + step / 2)
            )
            alt = " c-alt" if drawn % 2 else ""
            drawn += 1
            parts.append(
                f'<text class="c-axis{alt}" x="{at:.1f}" y="{base_y + 16}" '
                f'text-anchor="{anchor}">{escape(text)}</text>'
            )
    parts.append(
        f'<line class="c-base" x1="{left}" y1="{base_y}" x2="{width - 8}" y2="{base_y}"/></svg>'
    )
    return "".join(parts)


def _axis_label(bucket: Bucket, i: int, count: int, every: int) -> str:
    """What to write under a column: every month of a short span, the year at each January of a
    long one, every few years, and always the columns outside the drawn span."""
    if bucket.overflow:
        return "later" if bucket.future else "earlier"
    if len(bucket.label) == 7:
        if count <= 12:
            return bucket.label
        return bucket.label[:4] if bucket.label.endswith("-01") or i == 0 else ""
    return bucket.label if i % every == 0 else ""


def sparkline(uid: str, title: str, buckets: Sequence[Bucket]) -> str:
    """A small column chart as two paths (past and future): cheap enough for one per file."""
    width, height = 240, 40
    peak = max((b.count for b in buckets), default=0) or 1
    step = width / max(len(buckets), 1)
    past: list[str] = []
    future: list[str] = []
    for i, bucket in enumerate(buckets):
        if not bucket.count:
            continue
        h = max(1.0, bucket.count / peak * (height - 2))
        w = max(step - 1, 0.5)
        (future if bucket.future else past).append(
            f"M{i * step:.1f} {height}h{w:.1f}v{-h:.1f}h{-w:.1f}z"
        )
    parts = [_svg_open(uid, title, _describe(buckets, "dated entries"), width, height, "spark")]
    if past:
        parts.append(f'<path class="c-bar" d="{"".join(past)}"/>')
    if future:
        parts.append(f'<path class="c-future" d="{"".join(future)}"/>')
    parts.append(f'<line class="c-base" x1="0" y1="{height}" x2="{width}" y2="{height}"/></svg>')
    return "".join(parts)


# A limit line is drawn once the largest bar reaches this share of it.
LIMIT_SHOWN_FROM = 0.4


def horizontal_bars(
    uid: str,
    title: str,
    desc: str,
    bars: Iterable[Bar],
    limit: int | None = None,
    limit_label: str = "",
    scale: int | None = None,
) -> str:
    """Labelled horizontal bars, largest first as given, with an optional dashed limit line:
    drawn only when a bar comes near it (LIMIT_SHOWN_FROM of it), so that the scale is the data's
    and bars far below a limit are not drawn as slivers against it. `scale`: the value of a
    full-width bar when it is fixed (100 for percentages), else the largest value's."""
    rows = list(bars)
    if limit and max((b.value for b in rows), default=0) < limit * LIMIT_SHOWN_FROM:
        limit = None
    label_w, row_h, width, right = 220, 24, 600, 76
    plot_w = width - label_w - right
    peak = scale or max([b.value for b in rows] + [int(limit * 1.1) if limit else 0]) or 1
    height = row_h * len(rows) + (26 if limit else 6)
    parts = [_svg_open(uid, title, desc, width, height, "chart bars")]
    for i, bar in enumerate(rows):
        y = 4 + i * row_h
        w = max(1.0, bar.value / peak * plot_w) if bar.value else 0.0
        label = fit_label(bar.label, label_w - 12, bar.keep_end)
        parts.append(
            f"<g><title>{escape(bar.label)}: {_n(bar.value)}{escape(bar.note)}</title>"
            f'<text class="c-label" x="{label_w - 8}" y="{y + 14}" text-anchor="end">'
            f"{escape(label)}</text>"
            f'<rect class="c-{escape(bar.tone)}" x="{label_w}" y="{y + 3}" width="{w:.1f}" '
            f'height="{row_h - 8}"/>'
            f'<text class="c-value" x="{label_w + w + 6:.1f}" y="{y + 14}">'
            f"{_n(bar.value)}{escape(bar.unit)}</text></g>"
        )
    if limit:
        x = label_w + limit / peak * plot_w
        parts.append(
            f'<line class="c-limit" x1="{x:.1f}" y1="0" x2="{x:.1f}" y2="{height - 18}"/>'
            f'<text class="c-axis" x="{x:.1f}" y="{height - 5}" text-anchor="middle">'
            f"{escape(limit_label)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)
