"""The two steps that fetch: the robots.txt probe, and the candidates tried until one parses."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from . import robots
from .fetch import Fetcher, FetchError
from .issues import issue
from .parser import ParsedSitemap, SitemapParser
from .rules import SelectedSitemap


@dataclass(frozen=True)
class RobotsProbe:
    """What robots.txt answered and the usable `Sitemap:` URLs it lists."""

    status: int | None
    read_whole: bool  # answered 200 and its body (up to the cap) was read
    sitemaps: tuple[str, ...]
    issues: tuple[str, ...]  # its answer other than 200, fetch errors
    skipped: tuple[str, ...]  # Sitemap: values that were not usable


def robots_txt(fetcher: Fetcher, robots_url: str) -> RobotsProbe:
    """Fetch robots.txt and collect its `Sitemap:` lines."""
    try:
        with fetcher.open(robots_url) as resp:
            if resp.status != 200:
                return RobotsProbe(
                    resp.status, False, (), (issue(robots_url, f"HTTP {resp.status}"),), ()
                )
            try:
                body = b"".join(resp.body(limit=robots.MAX_ROBOTS_BYTES, truncate=True))
            except FetchError as e:
                why = f"HTTP 200 but the body could not be read whole: {e.describe()}"
                return RobotsProbe(resp.status, False, (), (issue(robots_url, why),), ())
            found = robots.sitemap_urls(body, resp.url, robots_url, truncated=resp.truncated)
            notes: tuple[str, ...] = ()
            if resp.truncated:
                notes = (
                    issue(
                        robots_url,
                        f"larger than {robots.MAX_ROBOTS_BYTES:,} bytes; only that much was read",
                    ),
                )
            # Notes on the whole answer: its size, then its encoding (UTF-16).
            notes = (*notes, *found.notes)
            return RobotsProbe(resp.status, True, found.urls, notes, found.issues)
    except FetchError as e:
        return RobotsProbe(None, False, (), (issue(robots_url, e.describe()),), ())


def _try_candidate(fetcher: Fetcher, url: str) -> SelectedSitemap | str:
    try:
        with fetcher.open(url) as resp:
            if not 200 <= resp.status < 300:
                return f"HTTP {resp.status}"
            parser = SitemapParser()
            for chunk in resp.body():
                parser.feed(chunk)
                if parser.finished:
                    break  # refused already: the rest of the body cannot change that
            outcome = parser.close()
            if not isinstance(outcome, ParsedSitemap):
                return outcome.reason
            return SelectedSitemap(url, resp.status, resp.content_type, outcome)
    except FetchError as e:
        return e.describe()


def first_sitemap(
    fetcher: Fetcher, candidates: Sequence[str]
) -> tuple[SelectedSitemap | None, tuple[str, ...]]:
    """Try candidates in order until one parses; return it and why the others failed."""
    issues: list[str] = []
    for url in candidates:
        budget = fetcher.remaining_budget()
        if budget is not None and budget <= 0:
            issues.append(issue(url, "not fetched: the audit ran out of time"))
            continue
        outcome = _try_candidate(fetcher, url)
        if isinstance(outcome, SelectedSitemap):
            return outcome, tuple(issues)
        issues.append(issue(url, outcome))
    return None, tuple(issues)
