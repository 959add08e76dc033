"""Interim answers read past (docs/contract.md §3, §4): a server may send `102 Processing` or
`103 Early Hints` (RFC 8297) before its answer. RFC 9110 §15.2: a client must read past any 1xx
it did not expect, to the final answer. http.client reads past `100 Continue` only, and would
take a 103 for the answer itself: robots.txt's status 103, its `Sitemap:` lines lost."""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, cast

from sitemap_auditor.core.errors import FetchError, FetchErrorKind

__all__ = ["MAX_HEAD_BYTES", "FinalResponse", "head_limited"]
# As http.client bounds a header line and the lines of a head.
_MAX_LINE = 65536
_MAX_LINES = 100
# The deep audit's bound on an answer's head (its status line, interim answers and header lines):
# Chromium's (its HTTP parser's largest head buffer, 256 KiB), past which a browser shows
# ERR_RESPONSE_HEADERS_TOO_BIG, so no page or sitemap anyone can open sends more. http.client
# alone lets 100 lines of 64 KiB through, which its parsing makes tens of megabytes: with
# `--pages --concurrency 32`, over a gigabyte for a site whose pages all send them. The Lambda
# keeps http.client's bounds alone (docs/contract.md §4): its answers do not change.
MAX_HEAD_BYTES = 256 * 1024
# The bound on the heads of the exchange under way in this thread (None: http.client's alone),
# set by the transport that sends it: the answer's head is read in the same call.
_HEAD_LIMIT: ContextVar[int | None] = ContextVar("sitemap_auditor_head_limit", default=None)


@contextmanager
def head_limited(limit: int | None) -> Iterator[None]:
    """The answers read within it have heads of at most limit bytes (None: no bound of ours)."""
    token = _HEAD_LIMIT.set(limit)
    try:
        yield
    finally:
        _HEAD_LIMIT.reset(token)


class _HeadReader:
    """The socket's file while a head is read: the lines it gives count against a bound."""

    def __init__(self, raw: Any, limit: int) -> None:
        self._raw = raw
        self._limit = self._left = limit

    def readline(self, limit: int = -1) -> bytes:
        room = self._left + 1  # a byte past the bound is what fails
        line: bytes = self._raw.readline(room if limit is None or limit < 0 else min(limit, room))
        self._left -= len(line)
        if self._left < 0:
            raise FetchError(
                FetchErrorKind.PROTOCOL,
                f"an answer's head of more than {self._limit // 1024} KiB (browsers refuse it)",
            )
        return line

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


class FinalResponse(http.client.HTTPResponse):
    """An HTTPResponse whose status is the final one: each interim 1xx (101 aside, which only a
    request for an upgrade gets, and which this client never asks) is read past with its
    headers."""

    def begin(self) -> None:
        limit = _HEAD_LIMIT.get()
        if limit is None:
            super().begin()
            return
        raw = self.fp
        reader = self.fp = cast(Any, _HeadReader(raw, limit))
        try:
            super().begin()
        finally:
            if self.fp is reader:  # not closed (and let go) by a head that failed
                self.fp = raw

    def _read_status(self) -> tuple[str, int, str]:
        # A server that sends interim answers without end is cut by the fetch's deadline (its
        # watchdog), as one that sends `100 Continue` without end always was: a timeout.
        while True:
            version, status, reason = super()._read_status()  # type: ignore[misc]
            if not 102 <= status <= 199:  # 100: http.client reads past it itself
                return version, status, reason
            self._skip_head()

    def _skip_head(self) -> None:
        for _ in range(_MAX_LINES + 1):
            line = self.fp.readline(_MAX_LINE + 1)
            if len(line) > _MAX_LINE:
                raise http.client.LineTooLong("interim header line")
            if line in (b"\r\n", b"\n", b""):
                return
        raise http.client.HTTPException(f"an interim answer of over {_MAX_LINES} header lines")
