"""The deep audit: every sitemap of a site, checked as search engines check them.

A layer of its own above the fetcher and the parser; the Lambda's handler never imports it.

    from sitemap_auditor import deep
    document = deep.audit("https://www.example.com/")            # the JSON document, version 1
    document = deep.audit(url, options=deep.Options(limits=deep.Limits(max_sitemaps=5000)))

`audit_walk` returns the walk itself (records and findings as values) for callers that want them
without the document; `Options.on_url` streams every listed URL as it is read. Importing this
package imports nothing of the fetcher: its pure modules (checks, kinds, document's renderers)
stay importable alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sitemap_auditor.deep.walk import Limits, Options, Progress, UrlRecord, Walk

__all__ = ["Limits", "Options", "Progress", "UrlRecord", "Walk", "audit", "audit_walk"]


def __getattr__(name: str) -> Any:
    if name in ("Limits", "Options", "Progress", "UrlRecord", "Walk"):
        from sitemap_auditor.deep import walk

        return getattr(walk, name)
    raise AttributeError(name)


def audit_walk(url: str, *, options: Options | None = None) -> Walk:
    """Walk every sitemap of url's site; raises ValueError for a URL without a site root."""
    from sitemap_auditor.deep.walk import walk

    return walk(url, options)


def audit(url: str, *, options: Options | None = None) -> dict[str, Any]:
    """The deep audit of url's site as the JSON document (docs/deep.md, version 1)."""
    from sitemap_auditor.deep.document import build

    return build(audit_walk(url, options=options))
