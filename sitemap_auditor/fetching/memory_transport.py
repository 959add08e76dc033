"""An `exchange.Transport` that answers from memory, as httpx's MockTransport does: the fetcher's
redirects, credentials by origin, body bounds and errors, tested without a socket.

It keeps the contract of the real transport where the fetcher relies on it: the guard is asked
about the host's addresses before an answer is given (a blocked address is refused as it would
be before a connection), the deadline is checked, and the body comes in chunks of at most the
size asked for. It records every request, so that a test can say who received an Authorization.
It never opens a socket; name look-ups go to the FetchPolicy's resolver, which a test supplies.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sitemap_auditor.core.errors import FetchError
from sitemap_auditor.fetching.exchange import Headers, Reply, Request

if TYPE_CHECKING:
    from sitemap_auditor.fetching.guard import Guard

__all__ = ["Canned", "MemoryTransport", "Route"]


@dataclass(frozen=True)
class Canned:
    """One answer: its status, headers (a mapping, or (name, value) pairs, one a header line, so
    that a header may come on several lines), body (whole, or in the chunks it comes in), and a
    FetchError to raise once those chunks are sent (a reset mid-body, say)."""

    status: int = 200
    headers: Mapping[str, str] | Sequence[tuple[str, str]] = field(default_factory=dict)
    body: bytes | Sequence[bytes] = b""
    fails_after: FetchError | None = None


# What answers a request: a Canned, or a FetchError it raises (a refused connection, say).
Route = Callable[[Request], Canned]


class _MemoryReply:
    def __init__(self, canned: Canned, guard: Guard) -> None:
        self._canned = canned
        self._guard = guard
        self.status = canned.status
        self._headers = Headers(canned.headers)
        self.headers: Mapping[str, str] = self._headers
        self.closed = False

    def header_lines(self, name: str) -> tuple[str, ...]:
        return self._headers.lines(name)

    def chunks(self, size: int, eager: bool = False) -> Iterator[bytes]:
        body = self._canned.body
        parts = [body] if isinstance(body, bytes) else list(body)
        for part in parts:
            for start in range(0, len(part), size):
                self._guard.check()
                yield part[start : start + size]
        if self._canned.fails_after is not None:
            raise self._canned.fails_after

    def close(self) -> None:
        self.closed = True


class MemoryTransport:
    """Answers each request with what its route gives; keeps every request it was sent."""

    def __init__(self, route: Route | Mapping[str, Canned]) -> None:
        if isinstance(route, Mapping):
            table = dict(route)

            def by_url(request: Request) -> Canned:
                return table.get(request.url.href, Canned(404))

            self._route: Route = by_url
        else:
            self._route = route
        self.requests: list[Request] = []
        self.closed = False

    def send(self, request: Request, guard: Guard) -> Reply:
        """Check the deadline and the host's addresses as a connection would, then answer."""
        guard.check()
        guard.checked_addresses(request.url.host, request.url.port)
        self.requests.append(request)
        return _MemoryReply(self._route(request), guard)

    def close(self) -> None:
        self.closed = True

    def authorized(self) -> list[str]:
        """The URLs of the requests that carried an Authorization header, in order."""
        return [r.url.href for r in self.requests if "Authorization" in r.headers]
