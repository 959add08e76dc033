"""The HTML report's sitemaps as a tree: each file's facts read from the JSON document, the usual
paths tried with no sitemap there set apart, parents and children, the broken files first and
what is listed (at most MAX_FILES_LISTED, the broken ones first)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sitemap_auditor.deep.reports import html_values as v
from sitemap_auditor.deep.reports.text_report import is_probe

__all__ = [
    "FEEDS",
    "MAX_BROKEN_LISTED",
    "MAX_FILES_LISTED",
    "File",
    "Tree",
    "files_of",
    "probes_line",
    "tree_of",
    "walk_nodes",
]

MAX_FILES_LISTED = 1000
MAX_BROKEN_LISTED = 800

# Feeds search engines take as sitemaps; their items are not read as a sitemap's entries.
FEEDS = frozenset({"rss", "atom"})


@dataclass(frozen=True, slots=True)
class File:
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


def probes_line(document: Mapping[str, Any]) -> str:
    """The usual paths tried, with no sitemap there, as one line (empty: none)."""
    tried = [v.as_map(raw) for raw in v.as_list(document.get("sitemaps"))]
    probes = [s for s in tried if is_probe(s)]
    if not probes:
        return ""
    shown = ", ".join(
        f"<code>{v.h(s.get('url'), v.MAX_URL)}</code> "
        f"(HTTP {v.count(v.as_int(s.get('httpStatus')))})"
        for s in probes[:10]
    )
    return f'<p class="hint">Also tried, with no sitemap there: {shown}.</p>'


def files_of(document: Mapping[str, Any]) -> list[File]:
    files: list[File] = []
    for raw in v.as_list(document.get("sitemaps")):
        item = v.as_map(raw)
        if is_probe(item):
            continue  # a guessed path that is not there: listed apart (probes_line)
        index = len(files)
        counts = v.as_map(item.get("findings"))
        url, parent = item.get("url"), item.get("parent")
        errors = max(v.as_int(counts.get("error")) or 0, 0)
        warnings = max(v.as_int(counts.get("warning")) or 0, 0)
        notices = max(v.as_int(counts.get("notice")) or 0, 0)
        status = v.as_int(item.get("httpStatus"))
        rank = (
            0
            if errors or (status is not None and status >= 400)
            else 1
            if warnings
            else 2
            if notices
            else 3
        )
        latest = v.as_map(item.get("lastmod")).get("latest")
        files.append(
            File(
                index,
                item,
                url if isinstance(url, str) else "",
                parent if isinstance(parent, str) else None,
                errors,
                warnings,
                notices,
                v.as_int(item.get("entries")),
                v.as_int(item.get("bytes")),
                v.text(item.get("type"), 40) or "unknown",
                rank,
                latest if isinstance(latest, str) else None,
            )
        )
    return files


# --- The tree: parents and children, broken first, what is listed ----------------------------


@dataclass(slots=True)
class Tree:
    files: list[File]
    roots: list[int]
    children: dict[int, list[int]]
    parent_of: dict[int, int]
    worst: list[int]
    broken_below: list[int]
    listed: set[int]
    broken_total: int
    broken_listed: int


def tree_of(files: list[File]) -> Tree:
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
    for node in walk_nodes(roots, children):
        if len(listed) >= MAX_FILES_LISTED:
            break
        if node not in listed and (parent_of.get(node) is None or parent_of[node] in listed):
            listed.add(node)
    broken_listed = sum(1 for f in broken if f.index in listed)
    return Tree(
        files, roots, children, parent_of, worst, broken_below, listed, len(broken), broken_listed
    )


def walk_nodes(roots: Iterable[int], children: Mapping[int, list[int]]) -> Iterable[int]:
    stack = list(reversed(list(roots)))
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children.get(node, ())))
