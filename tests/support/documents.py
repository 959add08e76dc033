"""Sitemap documents for the tests, built as sites publish them."""

from __future__ import annotations

import gzip
import itertools
from collections.abc import Iterable

__all__ = ["gz", "sitemapindex", "urlset"]


def gz(data: bytes) -> bytes:
    """Gzip data (deterministic header)."""
    return gzip.compress(data, mtime=0)


def _sitemap(root: str, entry: str, locs: Iterable[str], lastmods: Iterable[str | None]) -> bytes:
    parts = ['<?xml version="1.0" encoding="UTF-8"?>\n']
    parts.append(f'<{root} xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
    for loc, lm in zip(locs, lastmods, strict=False):
        parts.append(f"  <{entry}><loc>{loc}</loc>")
        if lm is not None:
            parts.append(f"<lastmod>{lm}</lastmod>")
        parts.append(f"</{entry}>\n")
    parts.append(f"</{root}>\n")
    return "".join(parts).encode()


def urlset(lastmods: Iterable[str | None], base: str = "https://example.com") -> bytes:
    """A <urlset> with one <url> per lastmod (None: no <lastmod>)."""
    return _sitemap("urlset", "url", (f"{base}/p{i}" for i in itertools.count()), lastmods)


def sitemapindex(lastmods: Iterable[str | None], base: str = "https://example.com") -> bytes:
    """A <sitemapindex> with one <sitemap> per lastmod."""
    locs = (f"{base}/s{i}.xml" for i in itertools.count())
    return _sitemap("sitemapindex", "sitemap", locs, lastmods)
