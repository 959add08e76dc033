"""What an answer may send after its head, counted as it comes off the socket.

The body is bounded where it is read (fetch.MAX_BODY_BYTES of it, docs/contract.md §4), but a
chunked answer also sends framing the HTTP library reads and drops on its own: each chunk's size
line, and after the last chunk a trailer section of header lines, which neither http.client nor
urllib3 bounds in number. A server that sends a whole sitemap and then endless trailer lines
would be read until the fetch's deadline (about 640 MB in 30 s on loopback). The socket's file
is wrapped once the head is read: past MAX_WIRE_BYTES, or a run of MAX_WIRE_LINES lines with no
data between them, whatever is reading fails the fetch as an answer that does not follow HTTP.
"""

from __future__ import annotations

from typing import Any

from sitemap_auditor.core.errors import MAX_BODY_BYTES, FetchError, FetchErrorKind

__all__ = ["MAX_WIRE_BYTES", "MAX_WIRE_LINES", "WireBound", "bound"]

# The body's own bound and as much again for its framing: a chunk's size line and its line end
# cost a few bytes (real servers send chunks of kilobytes; 1-byte chunks would cost 6 each).
MAX_WIRE_BYTES = 2 * MAX_BODY_BYTES
# Lines read one after the other with no data between them: a chunk's size line is followed by
# its data, so only the trailer section after the last chunk makes a run of them (real servers
# send none or a few). A line of a few bytes each costs a call, so that a flood of short trailer
# lines is cut at once, not after MAX_WIRE_BYTES of them; a body of many small chunks is not.
MAX_WIRE_LINES = 1_000
_PIECE_BYTES = 64 * 1024  # a read to the end goes in pieces of this size


class WireBound:
    """A socket's file (a buffered reader) that fails once more than `limit` bytes were read
    through it, in any of the ways http.client and urllib3 read."""

    def __init__(self, raw: Any, limit: int = MAX_WIRE_BYTES, lines: int = MAX_WIRE_LINES) -> None:
        self._raw = raw
        self._left = limit
        self._lines = lines
        self._lines_left = lines  # of the run of lines under way

    def _took(self, n: int, line: bool = False) -> None:
        if n and not line:
            self._lines_left = self._lines  # data: the run of lines is over
        self._left -= n
        if self._left < 0:
            raise FetchError(
                FetchErrorKind.PROTOCOL,
                f"more than {MAX_WIRE_BYTES:,} bytes sent after the head (the answer's framing "
                "or trailer never ends)",
            )

    def _most(self, n: int | None) -> int:
        # One byte past what is left: reading it is what fails.
        room = self._left + 1
        return room if n is None or n < 0 else min(n, room)

    def read(self, n: int | None = -1) -> bytes:
        if n is None or n < 0:
            # To the end, in pieces: a buffered reader given a size allocates all of it first.
            parts = []
            while piece := self.read(_PIECE_BYTES):
                parts.append(piece)
            return b"".join(parts)
        data: bytes = self._raw.read(self._most(n))
        self._took(len(data))
        return data

    def read1(self, n: int = -1) -> bytes:
        data: bytes = self._raw.read1(self._most(n))
        self._took(len(data))
        return data

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        got: int = self._raw.readinto(view[: self._most(len(view))])
        self._took(got)
        return got

    def readline(self, limit: int = -1) -> bytes:
        self._lines_left -= 1
        if self._lines_left < 0:
            raise FetchError(
                FetchErrorKind.PROTOCOL,
                f"more than {MAX_WIRE_LINES:,} lines in a row after the body's data (a "
                "trailer section that never ends)",
            )
        line: bytes = self._raw.readline(self._most(limit))
        self._took(len(line), line=True)
        return line

    def peek(self, n: int = 0) -> bytes:
        data: bytes = self._raw.peek(n)
        return data

    def close(self) -> None:
        self._raw.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


def bound(response: Any) -> None:
    """Wrap the socket file of an http.client response whose head was read (once)."""
    fp = getattr(response, "fp", None)
    if fp is not None and not isinstance(fp, WireBound):
        response.fp = WireBound(fp)
