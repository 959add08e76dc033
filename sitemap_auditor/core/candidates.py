"""Candidate sitemaps: the robots.txt URLs, or the three usual paths when it lists none."""

from __future__ import annotations

from sitemap_auditor.core.site import SiteBase

__all__ = ["FALLBACK_PATHS", "for_base", "for_site"]

# auditor-doc.md, "How it works", step 3, in this order.
FALLBACK_PATHS = ("/sitemap.xml", "/sitemap_index.xml", "/sitemap/sitemap.xml")


def for_site(site: SiteBase, robots_sitemaps: tuple[str, ...]) -> tuple[str, ...]:
    """Return the candidate sitemap URLs to try, in order."""
    return for_base(site.url, robots_sitemaps)


def for_base(site_url: str, robots_sitemaps: tuple[str, ...]) -> tuple[str, ...]:
    """The candidates of the site whose siteBase is site_url (for_site's rule)."""
    if robots_sitemaps:
        return robots_sitemaps
    return tuple(site_url + path for path in FALLBACK_PATHS)
