"""What one HTTP exchange is made of, in the project's own terms: the request the fetcher sends,
the reply a transport gives back, the transport's interface, and the validators an answer carries.

The fetcher (fetch.py) speaks only these. `transport.HttpTransport` implements the interface over
requests and urllib3 (the only module that imports them), `kept_transport.KeptTransport` over
http.client on kept connections (the page check's); `memory_transport.MemoryTransport`
implements it in memory, for tests that need no socket. Importing this module pulls in neither.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from sitemap_auditor.core.urls import WebURL

if TYPE_CHECKING:
    from sitemap_auditor.fetching.guard import Guard

__all__ = ["Headers", "Reply", "Request", "Transport"]


class Headers(Mapping[str, str]):
    """Response headers, looked up whatever the case of their names. A header sent on several
    lines reads as its values joined by ", ", as requests and urllib3 read it (so a lookup means
    the same whichever transport answered); `lines` gives each line's value on its own."""

    def __init__(self, items: Mapping[str, str] | Iterable[tuple[str, str]] | None = None) -> None:
        pairs = items.items() if isinstance(items, Mapping) else (items or ())
        self._items: dict[str, tuple[str, list[str]]] = {}
        for name, value in pairs:
            self._items.setdefault(name.lower(), (name, []))[1].append(value)

    def __getitem__(self, name: str) -> str:
        return ", ".join(self._items[name.lower()][1])

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def lines(self, name: str) -> tuple[str, ...]:
        """The value of each line of header name, in the order received (none: empty)."""
        found = self._items.get(name.lower())
        return tuple(found[1]) if found is not None else ()


@dataclass(frozen=True)
class Request:
    """One GET: the URL in its one reading, and the headers it carries."""

    url: WebURL
    headers: Mapping[str, str]


class Reply(Protocol):
    """A transport's answer to one Request: its head now, its body when read."""

    @property
    def status(self) -> int:
        """The HTTP status code."""

    @property
    def headers(self) -> Mapping[str, str]:
        """The response headers, looked up case-insensitively; a header sent on several lines
        reads as its values joined by ", "."""

    def header_lines(self, name: str) -> tuple[str, ...]:
        """The value of each line of header name, on its own, in the order received: where a
        header's lines are read one by one (X-Robots-Tag), not as one joined value."""

    def chunks(self, size: int, eager: bool = False) -> Iterator[bytes]:
        """The body as it came over the wire (no content coding undone), in chunks of at most
        size bytes; raises only FetchError. eager: each chunk is what has arrived (up to size),
        for a reader that stops at a bound and must not wait for bytes past it; else each is
        size bytes but the last, so that a reading stopped early stops at the same byte
        whatever the network's timing."""

    def close(self) -> None:
        """Release the connection."""


class Transport(Protocol):
    """Sends one request at a time; redirects, credentials and bounds are the fetcher's."""

    def send(self, request: Request, guard: Guard) -> Reply:
        """Send request under guard (its deadline, its checked addresses) and return the reply's
        head; raises only FetchError."""

    def close(self) -> None:
        """Release whatever the transport holds."""
