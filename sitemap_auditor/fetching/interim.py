"""Interim answers read past (docs/contract.md §3, §4): a server may send `102 Processing` or
`103 Early Hints` (RFC 8297) before its answer. RFC 9110 §15.2: a client must read past any 1xx
it did not expect, to the final answer. http.client reads past `100 Continue` only, and would
take a 103 for the answer itself: robots.txt's status 103, its `Sitemap:` lines lost."""

from __future__ import annotations

import http.client

__all__ = ["FinalResponse"]
# As http.client bounds a header line and the lines of a head.
_MAX_LINE = 65536
_MAX_LINES = 100


class FinalResponse(http.client.HTTPResponse):
    """An HTTPResponse whose status is the final one: each interim 1xx (101 aside, which only a
    request for an upgrade gets, and which this client never asks) is read past with its
    headers."""

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
