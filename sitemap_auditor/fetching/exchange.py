"""What one HTTP exchange is made of, in the project's own terms: the request the fetcher sends,
the reply a transport gives back, the transport's interface, and the validators an answer carries.

The fetcher (fetch.py) speaks only these. `transport.HttpTransport` implements the interface over
requests and urllib3 (the only module that imports them); `memory_transport.MemoryTransport`
implements it in memory, for tests that need no socket. Importing this module pulls in neither.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from sitemap_auditor.core.urls import WebURL

if TYPE_CHECKING:
    from sitemap_auditor.fetching.guard import Guard

__all__ = ["Headers", "Reply", "Request", "Transport"]


class Headers(Mapping[str, str]):
    """Response headers, looked up whatever the case of their names (the last value of a
    repeated header wins, as http.client's does for the ones read here)."""

    def __init__(self, items: Mapping[str, str] | None = None) -> None:
        self._items: dict[str, tuple[str, str]] = {}
        for name, value in (items or {}).items():
            self._items[name.lower()] = (name, value)

    def __getitem__(self, name: str) -> str:
        return self._items[name.lower()][1]

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self._items.values())

    def __len__(self) -> int:
        return len(self._items)


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
        """The response headers, looked up case-insensitively."""

    def chunks(self, size: int) -> Iterator[bytes]:
        """The body as it came over the wire (no content coding undone), in chunks of at most
        size bytes; raises only FetchError."""

    def close(self) -> None:
        """Release the connection."""


class Transport(Protocol):
    """Sends one request at a time; redirects, credentials and bounds are the fetcher's."""

    def send(self, request: Request, guard: Guard) -> Reply:
        """Send request under guard (its deadline, its checked addresses) and return the reply's
        head; raises only FetchError."""

    def close(self) -> None:
        """Release whatever the transport holds."""
