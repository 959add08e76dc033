"""Politeness as a pure pacer: a rate cap, robots.txt's Crawl-delay and Retry-After pauses, on an
injected clock. Threads ask `reserve()` how long to wait before their next request."""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Callable
from datetime import datetime
from email.utils import parsedate_to_datetime

__all__ = ["Pacer", "crawl_delay", "retry_after_seconds"]

MAX_CRAWL_DELAY = 60.0  # a longer Crawl-delay is read as this (a day's delay would stop a run)

# A delay is ASCII decimal seconds, `10` or `0.5`: not what float() also takes (`inf`, `nan`,
# `1e3`, `1_0`, other scripts' digits), which would let a robots.txt put Infinity in a report.
_SECONDS = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)\Z", re.ASCII)


class Pacer:
    """Spaces requests at least `interval` seconds apart (the rate cap or Crawl-delay, whichever
    is slower) and holds every request back during a pause the site asked for: a slot taken
    before the pause began and due within it is not used (`paused`: take another)."""

    def __init__(
        self,
        rate: float | None,
        crawl_delay_s: float | None,
        clock: Callable[[], float],
    ) -> None:
        spacing = [1.0 / rate] if rate else []
        if crawl_delay_s:
            spacing.append(min(crawl_delay_s, MAX_CRAWL_DELAY))
        self.interval = max(spacing, default=0.0)
        self._clock = clock
        self._next = clock()
        self._paused_until = self._next
        self._lock = threading.Lock()

    def reserve(self) -> float:
        """Take the next slot; return the seconds to wait before using it."""
        with self._lock:
            now = self._clock()
            at = max(now, self._next)
            self._next = at + self.interval
            return at - now

    def pause(self, seconds: float) -> None:
        """No request before seconds from now (a 429 or 503 with Retry-After)."""
        with self._lock:
            self._paused_until = max(self._paused_until, self._clock() + seconds)
            self._next = max(self._next, self._paused_until)

    def paused(self) -> bool:
        """True while a pause the site asked for lasts: a slot that came due within it, taken
        before it began, is not to be used."""
        with self._lock:
            return self._clock() < self._paused_until


def retry_after_seconds(value: str | None, now: datetime) -> float | None:
    """Retry-After as seconds from now: delta-seconds or an HTTP date; None when unreadable."""
    if value is None:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():  # delta-seconds: ASCII digits only (RFC 9110 §10.2.3)
        return float(min(int(value[:12]), 10**9))
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, (when - now).total_seconds())


def crawl_delay(body: bytes, agent: str) -> float | None:
    """The Crawl-delay robots.txt gives the group of agent (its product token), else of `*`.

    Google ignores Crawl-delay; polite tools (and Bing) honour it, and so does the page check."""
    token = agent.split("/", 1)[0].strip().lower()
    found: dict[str, float] = {}
    agents: list[str] = []
    in_rules = False
    for raw in body[: 512 * 1024].decode("utf-8", "replace").splitlines():
        line = raw.split("#", 1)[0].strip()
        key, colon, value = line.partition(":")
        if not colon:
            continue
        key, value = key.strip().lower(), value.strip()
        if key in ("user-agent", "useragent"):
            if in_rules:
                agents, in_rules = [], False
            agents.append(value.lower())
        elif key == "crawl-delay":
            in_rules = True
            delay = float(value) if _SECONDS.match(value) else math.inf
            if math.isfinite(delay):  # a string of 400 nines is no delay either
                for a in agents:
                    found.setdefault(a, delay)
        else:
            in_rules = True
    if token in found:
        return found[token]
    return found.get("*")
