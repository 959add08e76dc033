"""What the fault-injection tests share: their settings, how they measure, short-deadline
fetches and the routes they build."""

from __future__ import annotations

import errno
import socket
import threading
import time
import tracemalloc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from harness.servers import (
    Route,
    Site,
)
from sitemap_auditor.audit import probe
from sitemap_auditor.audit.config import Settings
from sitemap_auditor.core.facts import RobotsProbe, SelectedSitemap, SiteFacts
from sitemap_auditor.fetching.fetch import Fetcher, FetchPolicy
from support.results import days_ago

__all__ = [
    "FALLBACKS",
    "FLAT_MEMORY_BYTES",
    "FRESH",
    "GARBAGE",
    "NO_ROBOTS",
    "PRODUCTION",
    "QUICK_DEADLINE_S",
    "QUICK_TIMEOUT",
    "Cost",
    "Outbound",
    "cost",
    "fallback_404s",
    "first_sitemap",
    "no_dns",
    "quick_fetcher",
    "raw_route",
    "unresolved",
]

PRODUCTION = Settings(max_age_days=7, allow_private_networks=False, share_seconds=0)
FRESH = days_ago(1)
# Elapsed-time bounds are generous (the suite runs beside others on two cores): what they catch is
# a fetch that ignored its deadline, which would take 30 s or forever.
QUICK_DEADLINE_S = 1.5
QUICK_TIMEOUT = "fetch error (timeout: no complete answer within 1.5 s)"
FALLBACKS = ("/sitemap.xml", "/sitemap_index.xml", "/sitemap/sitemap.xml")
# A streaming parse of a 50 MB sitemap peaks well under 1 MB of Python allocations; 16 MB leaves
# room for the interpreter and the test's own servers while still catching a held body.
FLAT_MEMORY_BYTES = 16 * 1024 * 1024


@dataclass
class Cost:
    """What a block of code cost: wall time and, when traced, the peak of Python allocations."""

    seconds: float = 0.0
    peak_bytes: int = 0


@contextmanager
def cost(trace_memory: bool = False) -> Iterator[Cost]:
    """Measure the elapsed time of the block and, when asked, how far traced memory rose in it."""
    measured = Cost()
    was_tracing = tracemalloc.is_tracing()  # e.g. python -X tracemalloc: leave it running
    before = 0
    if trace_memory:
        if not was_tracing:
            tracemalloc.start()
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
    start = time.monotonic()
    try:
        yield measured
    finally:
        measured.seconds = time.monotonic() - start
        if trace_memory:
            measured.peak_bytes = tracemalloc.get_traced_memory()[1] - before
            if not was_tracing:
                tracemalloc.stop()


@dataclass
class Outbound:
    """Every connection the process tried to open during a test."""

    allowed: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


# Every byte value, many times over: no text, no XML, no gzip.
GARBAGE = bytes(range(256)) * 64


def no_dns(host: str, port: int) -> list[str]:
    """A resolver that answers no name (the cases that need no look-up must make none)."""
    raise OSError(errno.ENOENT, f"no look-up of {host} in this test")


def quick_fetcher(site: Site, deadline_s: float = QUICK_DEADLINE_S) -> Fetcher:
    """The handler's fetcher for site, on loopback, with a short deadline."""
    return Fetcher(
        FetchPolicy(
            origin=("http", "127.0.0.1", site.port),
            allow_private_networks=True,
            deadline_s=deadline_s,
        )
    )


NO_ROBOTS = RobotsProbe(None, False, (), (), ())


def first_sitemap(
    fetcher: Fetcher, urls: Sequence[str]
) -> tuple[SelectedSitemap | None, tuple[str, ...]]:
    """The candidate that parsed, if any, and why the others were not accepted."""
    facts = SiteFacts(NO_ROBOTS, tuple(urls), probe.first_sitemap(fetcher, urls))
    return facts.selected, facts.candidate_issues


def fallback_404s(site: Site) -> list[str]:
    return [f"{site.url(p)}: HTTP 404" for p in FALLBACKS]


def raw_route(data: bytes, hold_open_s: float = 0.0) -> Route:
    """Like harness.servers.raw, optionally keeping the connection open (silent) after the bytes."""

    def route(h: BaseHTTPRequestHandler) -> None:
        h.wfile.write(data)
        h.wfile.flush()
        time.sleep(hold_open_s)
        h.close_connection = True

    return route


@contextmanager
def unresolved(host: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """For the block, a resolver that hangs on host's name (as one that stops answering, in a
    function attached to a VPC): socket.getaddrinfo of it waits for the block's end (at most
    30 s), then fails; every other name resolves as before."""
    ended = threading.Event()
    resolve = socket.getaddrinfo

    def hanging(name: Any, *args: Any, **kwargs: Any) -> Any:
        if name == host:
            ended.wait(30)
            raise socket.gaierror(socket.EAI_AGAIN, "the resolver gave up")
        return resolve(name, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", hanging)
    try:
        yield
    finally:
        ended.set()
