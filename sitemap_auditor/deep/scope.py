"""Where a sitemap's URLs may be: its scope (scheme, host, port and folder, with the other places
a cross-submit or a redirect allows), and what is wrong with a `<loc>` against it.

Pure: every URL is read by the fetcher's one reading (core.urls, docs/contract.md §8).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from sitemap_auditor.core import urls
from sitemap_auditor.deep.kinds import Kind

__all__ = [
    "ELSEWHERE",
    "MAX_URL_CHARS",
    "NOT_IN_URLS",
    "SitemapScope",
    "classify_loc",
    "classify_reading",
    "read_loc",
]

# The Sitemaps protocol: a URL under 2,048 characters.
MAX_URL_CHARS = 2048
# What no URL holds as written: controls, space, and what URLs must escape.
NOT_IN_URLS = re.compile(r"[\x00-\x20\x7f<>\"{}|\\^`]")


@dataclass(frozen=True)
class SitemapScope:
    """Where a sitemap's URLs may be: its scheme, host and port, under a path."""

    scheme: str
    host: str
    port: int | None
    folder: str  # the path every URL must start with ("/" for a sitemap robots.txt lists)
    # Where else its URLs may be (`of`): a sitemap on another host than the site whose
    # robots.txt lists it (a cross-submit, as sitemaps.org allows: the robots.txt proves the
    # site's owner put it there) has the site's root as its scope, and its own location's as
    # well; a sitemap that redirected has its final location's, and the one listed as well.
    also: tuple[SitemapScope, ...] = ()

    @property
    def prefix(self) -> str:
        """What a URL of this scope starts with when written as the sitemap's own URL is."""
        port = f":{self.port}" if self.port is not None else ""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}{port}{self.folder}"

    @classmethod
    def of(
        cls,
        sitemap_url: str,
        from_robots: bool,
        site_url: str | None = None,
        final_url: str | None = None,
    ) -> SitemapScope:
        """The scope of a sitemap at sitemap_url (its folder, or the host's root), read as the
        fetcher reads it (docs/contract.md §8: one reading of every URL). One robots.txt lists
        (from_robots) on another origin than the site's (site_url) has the site's root, and
        its own location's `also`; one answered from final_url after redirects, that
        location's, and the listed one's `also`."""
        own = cls._at(sitemap_url, from_robots)
        where = own
        if final_url is not None and final_url != sitemap_url:
            moved = cls._at(final_url, from_robots)
            if moved.host and moved != own:
                where = replace(moved, also=(own,))
        if from_robots and site_url is not None:
            site = cls._at(site_url, True)
            if site.host and site.origin != where.origin:
                return replace(site, also=(where, *where.also))
        return where

    @property
    def origin(self) -> tuple[str, str, int | None]:
        return self.scheme, self.host, self.port

    @classmethod
    def _at(cls, sitemap_url: str, from_robots: bool) -> SitemapScope:
        try:
            web = urls.read(sitemap_url)
        except urls.UnfetchableURLError:
            return cls("", "", None, "/")
        path = web.target.split("?", 1)[0]
        folder = "/" if from_robots else path[: path.rfind("/") + 1] or "/"
        port = None if web.port == urls.DEFAULT_PORTS[web.scheme] else web.port
        return cls(web.scheme, web.host, port, folder)


# What a URL of another host, scheme, port or folder is (classify_loc).
ELSEWHERE = frozenset({Kind.URL_NOT_ALLOWED, Kind.PATH_MISMATCH})
# A dot segment, plain or percent-encoded: `/blog/../shop/` is read as `/shop/`.
_DOT_SEGMENT = re.compile(r"/(?:\.|%2[eE])")


def classify_loc(loc: str, scope: SitemapScope) -> Kind | None:
    """What is wrong with a <loc> in a sitemap of that scope, or None."""
    return read_loc(loc, scope)[0]


def read_loc(loc: str, scope: SitemapScope) -> tuple[Kind | None, urls.WebURL | None]:
    """What is wrong with a <loc> in a sitemap of that scope (or None), and the one reading of
    it when it took one (None in the common case, which needs none, and for an invalid URL):
    whoever decides more about the URL (another scope, robots.txt) uses that reading."""
    if len(loc) > MAX_URL_CHARS or NOT_IN_URLS.search(loc):
        return Kind.INVALID_URL, None
    prefix = scope.prefix
    if loc.startswith(prefix) and not _DOT_SEGMENT.search(loc, len(prefix) - 1):
        # The common case: the sitemap's own scheme, host and port, in its folder (no dot
        # segment that would lead out of it once read).
        return None, None
    # Anything else is read as the fetcher would read it, by the one parser.
    try:
        web = urls.read(loc)
    except urls.UnfetchableURLError:
        return Kind.INVALID_URL, None
    return classify_reading(web, scope), web


def classify_reading(web: urls.WebURL, scope: SitemapScope) -> Kind | None:
    """What is wrong with a listed URL, as the one reading reads it, in a sitemap of that
    scope, or None."""
    if web.host != scope.host:
        if web.host.removeprefix("www.") == scope.host.removeprefix("www."):
            return Kind.PATH_MISMATCH
        return Kind.URL_NOT_ALLOWED
    scope_port = scope.port or urls.DEFAULT_PORTS.get(scope.scheme)
    if web.scheme != scope.scheme or web.port != scope_port:
        return Kind.URL_NOT_ALLOWED
    if not web.target.startswith(scope.folder):
        return Kind.URL_NOT_ALLOWED
    return None
