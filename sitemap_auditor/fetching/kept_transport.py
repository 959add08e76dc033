"""The page check's transport: `http.client` on guarded connections, one kept a host for the next
request there. The same seam (`exchange.Transport`), guard and error table as
`transport.HttpTransport`, which the Lambda and the walk use (a connection a hop); without
requests' and urllib3's layers, which cost about 350 µs of CPU a request, a third of a page.

Nothing reads the URL again: the connection is made to the host and port of the request's one
reading (urls.WebURL), through the fetch's Guard (checked addresses, its deadline), and the request
line carries the reading's target byte for byte. A kept connection is handed to a fetch only with
its socket made that fetch's (its watchdog cuts it at that fetch's deadline), and only to the
host, port and scheme it was opened for, whose address the guard checked then under the same
FetchPolicy. Over TLS the certificate is always verified (certifi's authorities, or ca_file's).
"""

from __future__ import annotations

import functools
import http.client
import re
import socket
import ssl
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping

from sitemap_auditor.core.errors import FetchError
from sitemap_auditor.core.urls import Origin, WebURL
from sitemap_auditor.fetching import wire_bound
from sitemap_auditor.fetching.exchange import Headers, Reply, Request
from sitemap_auditor.fetching.guard import Guard
from sitemap_auditor.fetching.interim import FinalResponse, head_limited
from sitemap_auditor.fetching.transport import (
    TRANSPORT_ERRORS,
    check_content_length,
    is_stale,
    mapped_errors,
)

__all__ = ["DRAIN_BYTES", "DRAIN_SECONDS", "MAX_KEPT_HOSTS", "KeptTransport"]

# What is left of a body is read to its end, so that the connection can serve the next request,
# when it is no more than this and comes within this time (a server that sends a page's head
# early and its body slowly costs at most that); a longer or slower rest closes the connection.
DRAIN_BYTES = 64 * 1024
DRAIN_SECONDS = 0.25
_FOLD = re.compile(r"\r?\n[ \t]+")
_DRAIN_ERRORS: tuple[type[BaseException], ...] = (*TRANSPORT_ERRORS, ValueError, FetchError)
# Connections kept: one a host (scheme, host, port), for at most this many hosts.
MAX_KEPT_HOSTS = 4


@functools.lru_cache(maxsize=4)
def _tls_context(ca_file: str | None) -> ssl.SSLContext:
    """Certificates verified and names checked, TLS 1.2 at least: as urllib3 does, with the same
    authorities (certifi's bundle, which requests uses) unless ca_file names others."""
    if ca_file is None:
        import certifi  # requests' own dependency

        ca_file = certifi.where()
    context = ssl.create_default_context(cafile=ca_file)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.set_alpn_protocols(["http/1.1"])
    return context


class _Connection:
    """One connection to the host and port of a reading, opened through a guard."""

    def __init__(self, url: WebURL, guard: Guard, ca_file: str | None) -> None:
        self.origin: Origin = url.origin
        # SNI and the certificate's name without a fully qualified name's trailing dot, as
        # urllib3 does (certificates do not write it); the address is the guard's.
        name = url.host.rstrip(".") or url.host
        if url.scheme == "https":
            self.http: http.client.HTTPConnection = http.client.HTTPSConnection(
                name, url.port, context=_tls_context(ca_file)
            )
        else:
            self.http = http.client.HTTPConnection(name, url.port)
        self.http.response_class = FinalResponse  # interim 1xx answers read past
        self._guard = guard
        self._url = url
        self.http._create_connection = self._open  # type: ignore[attr-defined]
        self.http.connect()
        if url.scheme == "https":
            # The TLS socket took over the guarded one's descriptor: the watchdog cuts this one.
            guard.adopt(self.sock)

    def _open(
        self, address: object, timeout: object = None, source: object = None
    ) -> socket.socket:
        return self._guard.connect(self._url.host, self._url.port, None)

    @property
    def sock(self) -> socket.socket:
        sock = self.http.sock
        assert sock is not None
        return sock

    def adopt(self, guard: Guard) -> None:
        """Make this kept connection's socket guard's (raises its timeout when past it)."""
        guard.adopt(self.sock)
        self.sock.settimeout(max(guard.remaining(), 0.001))

    def ask(self, request: Request) -> http.client.HTTPResponse:
        """Send the GET of request and read the head of its answer."""
        conn = self.http
        conn.putrequest("GET", request.url.target, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", request.url.authority)
        for name, value in request.headers.items():
            conn.putheader(name, value)
        conn.endheaders()
        response = conn.getresponse()
        _check_length(response)
        return response

    def close(self) -> None:
        self.http.close()


def _check_length(response: http.client.HTTPResponse) -> None:
    """Refuse an answer whose Content-Length lines disagree, as the requests transport does."""
    if not response.chunked:  # a chunked answer's length is ignored
        check_content_length(response.msg.get_all("Content-Length") or [])


class _KeptReply:
    """The head of an http.client answer; its body read through the same error table."""

    def __init__(
        self,
        transport: KeptTransport,
        conn: _Connection,
        response: http.client.HTTPResponse,
        guard: Guard,
    ) -> None:
        self._transport = transport
        self._conn = conn
        self._response = response
        wire_bound.bound(response)
        self._guard = guard
        self._closed = False
        self.status: int = response.status
        # A header folded over lines (obs-fold) reads as one line, as urllib3 reads it.
        self._headers = Headers((k, _FOLD.sub(" ", v)) for k, v in response.getheaders())
        self.headers: Mapping[str, str] = self._headers

    def header_lines(self, name: str) -> tuple[str, ...]:
        return self._headers.lines(name)

    def chunks(self, size: int, eager: bool = False) -> Iterator[bytes]:
        # Always what has arrived: the page check reads heads and stops (eager or not).
        response = self._response
        with mapped_errors(self._guard):
            while chunk := response.read1(size):
                yield chunk
            if response.length:  # the server closed before the length it promised
                raise http.client.IncompleteRead(b"", response.length)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        response = self._response
        if not response.will_close and not self._guard.past_deadline() and self._drained():
            self._transport.keep(self._conn)
        else:
            response.close()
            self._conn.close()

    def _drained(self) -> bool:
        """Read the rest of a short body (DRAIN_BYTES, DRAIN_SECONDS at most, within the fetch's
        deadline): True when the answer was read to its end, so the connection may serve again."""
        response = self._response
        if response.length is not None and response.length > DRAIN_BYTES:
            return False
        read = 0
        seconds = min(DRAIN_SECONDS, self._guard.remaining())
        until = time.monotonic() + seconds
        # A guard of the drain's own cuts the socket at its end: one read1 of a chunked answer
        # reads whole lines (a chunk's size, a trailer section of endless lines, or one
        # dripped a byte at a time), which no byte count or socket timeout bounds.
        drain = Guard(until, seconds)
        try:
            with drain.watched():
                drain.adopt(self._conn.sock)
                self._conn.sock.settimeout(max(until - time.monotonic(), 0.001))
                while not response.isclosed():
                    chunk = response.read1(16 * 1024)
                    read += len(chunk)
                    if not chunk or read > DRAIN_BYTES or time.monotonic() > until:
                        break
        except _DRAIN_ERRORS:  # a read that fails or is cut (or a drain begun too late): closed
            return False
        if drain.expired:  # cut as it ended: the socket is no longer of use
            return False
        # Read to its end: a chunked answer past its last chunk (a cut one raised), another to
        # its length (http.client closes one cut short too, with its length still owed).
        complete = response.isclosed() if response.chunked else response.length == 0
        response.close()  # the answer's file, never the connection
        return complete


class KeptTransport:
    """Sends one GET at a time through guarded connections, keeping one a host for the next
    request of that host (MAX_KEPT_HOSTS at most); redirects are the caller's."""

    def __init__(self, ca_file: str | None = None, head_limit: int | None = None) -> None:
        self._ca_file = ca_file
        self._head_limit = head_limit  # past http.client's bounds (None: those alone)
        self._kept: OrderedDict[Origin, _Connection] = OrderedDict()

    def close(self) -> None:
        """Close the kept connections."""
        while self._kept:
            self._kept.popitem()[1].close()

    def keep(self, conn: _Connection) -> None:
        """Keep conn, whose last answer was read to its end, for the next request of its host."""
        old = self._kept.pop(conn.origin, None)
        if old is not None:
            old.close()
        self._kept[conn.origin] = conn
        while len(self._kept) > MAX_KEPT_HOSTS:
            self._kept.popitem(last=False)[1].close()

    def send(self, request: Request, guard: Guard) -> Reply:
        """Send a GET for request and return the answer's head, its body not yet read."""
        with mapped_errors(guard), head_limited(self._head_limit):
            conn = self._kept.pop(request.url.origin, None)
            if conn is not None:
                try:
                    conn.adopt(guard)
                    return _KeptReply(self, conn, conn.ask(request), guard)
                except TRANSPORT_ERRORS as e:
                    conn.close()
                    if not is_stale(e) or guard.past_deadline():
                        raise
                    # The server closed the kept connection as it waited: once more, on a new
                    # one (a GET; nothing of an answer had come).
                except BaseException:
                    conn.close()
                    raise
            conn = _Connection(request.url, guard, self._ca_file)
            try:
                return _KeptReply(self, conn, conn.ask(request), guard)
            except BaseException:
                conn.close()
                raise
