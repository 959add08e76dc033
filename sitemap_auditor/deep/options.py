"""What a deep audit is given and what it tells as it goes: its limits, its options, a listed
URL as `--urls` writes it, and its progress. Values that travel between the command line, the
library call and the walk (deep/walk.py)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sitemap_auditor.audit import config
from sitemap_auditor.core.credentials import Credentials
from sitemap_auditor.core.interrupts import Interrupt
from sitemap_auditor.core.request_headers import ExtraHeaders
from sitemap_auditor.deep.finding_rows import FindingRows
from sitemap_auditor.deep.seen import DEFAULT_MAX_DEDUPE_URLS
from sitemap_auditor.fetching.guard import Resolver, system_resolver

__all__ = [
    "MAX_DEDUPE_URLS_CEILING",
    "MAX_SITEMAPS_CEILING",
    "Limits",
    "Options",
    "Progress",
    "UrlRecord",
]

MAX_SITEMAPS_CEILING = 50_000
# 3.2 GB of duplicate table at 32 bytes a URL: past what a laptop lends a command.
MAX_DEDUPE_URLS_CEILING = 100_000_000


@dataclass(frozen=True)
class Limits:
    """How far a walk may go; each can be raised."""

    max_sitemaps: int = 1000
    max_depth: int = 5
    max_bytes: int = 1024**3
    max_seconds: float = 600.0
    concurrency: int = 4
    max_dedupe_urls: int = DEFAULT_MAX_DEDUPE_URLS

    def __post_init__(self) -> None:
        if not 1 <= self.max_sitemaps <= MAX_SITEMAPS_CEILING:
            raise ValueError(f"max_sitemaps must be 1 to {MAX_SITEMAPS_CEILING:,}")
        # `not 0 < s < inf`: NaN and infinity too (the document echoes its limits, in JSON)
        if self.max_depth < 0:
            raise ValueError("max_depth must be 0 or more")
        if self.max_bytes < 1:
            raise ValueError("max_bytes must be 1 or more")
        if not 0 < self.max_seconds < math.inf:
            raise ValueError("max_seconds must be a finite number of seconds above 0")
        if not 1 <= self.concurrency <= 32:
            raise ValueError("concurrency must be 1 to 32")
        if not 1 <= self.max_dedupe_urls <= MAX_DEDUPE_URLS_CEILING:
            raise ValueError(f"max_dedupe_urls must be 1 to {MAX_DEDUPE_URLS_CEILING:,}")


@dataclass(frozen=True)
class UrlRecord:
    """One listed URL, as `--urls` writes it."""

    url: str
    sitemap: str
    line: int | None
    lastmod: str | None


@dataclass(frozen=True)
class Progress:
    """How far a walk is: files done and queued, URLs and bytes read."""

    done: int
    queued: int
    urls: int
    bytes: int
    # URLs read so far in the files being read (not yet in `urls`): progress within a file.
    reading: int = 0


@dataclass(frozen=True)
class Options:
    """What a deep audit is given besides the URL."""

    limits: Limits = field(default_factory=Limits)
    credentials: Credentials | None = None
    allow_private_networks: bool = False
    resolver: Resolver = system_resolver
    max_age_days: int = config.DEFAULT_MAX_AGE_DAYS
    # Headers added to every request (--user-agent, --header); credential ones (Authorization,
    # Cookie) go to the site's own origin only.
    headers: ExtraHeaders = field(default_factory=ExtraHeaders)
    # Called with every listed URL, from the walk's threads one at a time (never concurrently),
    # the credentials in it replaced by *** (what may be shown or written).
    on_url: Callable[[UrlRecord], None] | None = None
    # The same, each URL as listed, credentials included: for requesting it (the page check),
    # never for showing it. Called before on_url.
    on_listed: Callable[[UrlRecord], None] | None = None
    on_progress: Callable[[Progress], None] | None = None
    now: Callable[[], datetime] = lambda: datetime.now(UTC)
    # A stop asked for by a signal (the command line installs its handler): the walk stops at
    # its next safe point with what it read. Without one, a KeyboardInterrupt stops it as well.
    interrupt: Interrupt | None = None
    # Where every occurrence of every finding goes as it is counted (`deep --csv`'s
    # finding_urls.csv); None: nowhere, and nothing is spooled.
    finding_rows: FindingRows | None = None
