"""The boundary with requests and urllib3: the real `exchange.Transport`. One request sent, its
wire bytes read, and whatever they raise mapped, in one table, to the audit's kinds of fetch error.

Every connection goes through the fetch's Guard (checked addresses, its deadline), to the host
and port of the request's one reading (urls.WebURL), and none is kept for reuse: the Lambda's
fetches and the walk's open one a hop (the page check keeps them: kept_transport.py, which
shares this module's error table). Nothing above these modules sees an exception or a type of
the HTTP stack.
"""

from __future__ import annotations

import contextvars
import http.client
import socket
import ssl
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import requests
import urllib3
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from sitemap_auditor.core.errors import FetchError, FetchErrorKind
from sitemap_auditor.core.urls import WebURL
from sitemap_auditor.fetching import wire_bound
from sitemap_auditor.fetching.exchange import Reply, Request
from sitemap_auditor.fetching.guard import Guard, connect_failed
from sitemap_auditor.fetching.interim import FinalResponse, head_limited

__all__ = [
    "ERROR_TABLE",
    "TRANSPORT_ERRORS",
    "GuardedAdapter",
    "HttpTransport",
    "check_content_length",
    "classify",
    "explain",
    "is_stale",
    "mapped_body_errors",
    "mapped_errors",
    "prepared",
]

if TYPE_CHECKING:
    from urllib3._base_connection import BaseHTTPConnection

# What the network and the HTTP stack raise; anything else is a defect and is not swallowed.
TRANSPORT_ERRORS: tuple[type[BaseException], ...] = (
    requests.RequestException,
    urllib3.exceptions.HTTPError,
    http.client.HTTPException,
    OSError,
    UnicodeError,  # a host name that no IDNA encoding accepts
)

# One row: the exceptions it matches, the kind they give, and whether the error has a detail
# (in words: what the exception says, or its kind's words; a reset says all there is to say).
_Row = tuple[tuple[type[BaseException], ...], FetchErrorKind, bool]

# The one mapping from what the stack raised to a fetch error kind. It is read tier by tier: the
# first tier that matches any exception of the chain (outermost first) decides, so a TLS failure
# wrapped in a connection error is a TLS error whatever wraps it.
ERROR_TABLE: tuple[tuple[_Row, ...], ...] = (
    (
        (
            (ssl.SSLError, ssl.CertificateError, requests.exceptions.SSLError),
            FetchErrorKind.TLS,
            True,
        ),
    ),
    (((TimeoutError, requests.exceptions.Timeout), FetchErrorKind.TIMEOUT, True),),
    (
        # A server that closes without answering (http.client's RemoteDisconnected) is a
        # ConnectionResetError too, and is reported as a reset.
        ((ConnectionResetError,), FetchErrorKind.CONNECTION_RESET, False),
        ((http.client.IncompleteRead,), FetchErrorKind.INCOMPLETE_BODY, False),
    ),
    (
        (
            (requests.exceptions.InvalidURL, urllib3.exceptions.LocationParseError),
            FetchErrorKind.INVALID_URL,
            False,
        ),
        ((requests.exceptions.ChunkedEncodingError,), FetchErrorKind.BROKEN_BODY, True),
        (
            # InvalidHeader: Content-Length lines that disagree (check_content_length)
            (
                urllib3.exceptions.ProtocolError,
                urllib3.exceptions.InvalidHeader,
                http.client.HTTPException,
            ),
            FetchErrorKind.PROTOCOL,
            True,
        ),
    ),
)


def _chain(exc: BaseException) -> list[BaseException]:
    """The exception and what it wraps, outermost first (requests and urllib3 wrap twice)."""
    chain: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and len(chain) < 8:
        chain.append(cur)
        inner = cur.__cause__ or cur.__context__
        if inner is None and cur.args and isinstance(cur.args[-1], BaseException):
            inner = cur.args[-1]
        cur = inner
    return chain


def classify(exc: BaseException, guard: Guard) -> FetchError:
    """The fetch error a transport exception stands for."""
    if isinstance(exc, FetchError):
        return exc
    # Past the deadline, whatever broke was broken by the watchdog.
    if guard.past_deadline():
        return guard.timeout()
    chain = _chain(exc)
    for e in chain:
        if isinstance(e, FetchError):
            return e
    for tier in ERROR_TABLE:
        for e in chain:
            for types, kind, detailed in tier:
                if isinstance(e, types):
                    return FetchError(kind, explain(kind, chain, guard) if detailed else "")
    return FetchError(FetchErrorKind.CONNECTION, explain(FetchErrorKind.CONNECTION, chain, guard))


# OpenSSL's reasons that are not words by themselves.
_TLS_REASONS = {"WRONG_VERSION_NUMBER": "the server does not speak TLS on that port: plain HTTP?"}


def explain(kind: FetchErrorKind, chain: list[BaseException], guard: Guard) -> str:
    """What went wrong, in words a site owner knows, never the name of an exception."""
    if kind is FetchErrorKind.TIMEOUT:
        return guard.timeout().detail
    if kind is FetchErrorKind.TLS:
        for e in chain:
            if isinstance(e, ssl.SSLCertVerificationError) and e.verify_message:
                return f"the site's certificate was not accepted: {e.verify_message[:200]}"
        for e in chain:
            reason = getattr(e, "reason", None)
            if isinstance(e, ssl.SSLError) and isinstance(reason, str) and reason:
                said = _TLS_REASONS.get(reason, reason.lower().replace("_", " ")[:100])
                return f"{kind.words} ({said})"
    if kind is FetchErrorKind.CONNECTION:
        for e in chain:
            if isinstance(e, ConnectionRefusedError) or (isinstance(e, OSError) and e.strerror):
                return connect_failed(e)  # the system's own words, e.g. "broken pipe"
    return kind.words


@contextmanager
def mapped_errors(guard: Guard) -> Iterator[None]:
    """Let FetchError through and turn any exception of the stack into one."""
    try:
        yield
    except FetchError:
        raise
    except TRANSPORT_ERRORS as e:
        raise classify(e, guard) from None


@contextmanager
def mapped_body_errors(guard: Guard) -> Iterator[None]:
    """mapped_errors for reading a body. urllib3 takes a chunk size that reads as a negative
    number (`-10`) and http.client then raises ValueError on the read: a bad chunk size, the
    site's like any other (the same kind as one that is no number), never a defect of ours."""
    try:
        with mapped_errors(guard):
            yield
    except ValueError:
        raise FetchError(FetchErrorKind.INCOMPLETE_BODY) from None


@dataclass
class _Exchange:
    """The exchange under way in this thread: its guard and the one reading of its URL."""

    guard: Guard
    url: WebURL


_EXCHANGE: contextvars.ContextVar[_Exchange] = contextvars.ContextVar("sitemap_auditor_exchange")


def _same_host(conn: HTTPConnection, url: WebURL) -> None:
    """docs/contract.md §8: urllib3 parsed the serialization it was handed again. Should it have
    read another host or port out of it, nothing is sent: the connection, the address guard and
    the credentials' origin must all be about the same host."""
    if (conn._dns_host.strip("[]").lower(), conn.port) != (url.host, url.port):
        raise FetchError(FetchErrorKind.INVALID_URL, "read as another host by the HTTP library")


def _connect(conn: HTTPConnection) -> socket.socket:
    """Open the connection of the exchange under way, to the host and port of its one reading."""
    exchange = _EXCHANGE.get()
    _same_host(conn, exchange.url)
    return exchange.guard.connect(exchange.url.host, exchange.url.port, conn.socket_options)


class _OneReadingRequest:
    """Send the request-target of the exchange's one reading, to the byte: urllib3 re-encodes
    the target it is handed (`%zz` becomes `%25zz` and, with it, `%41` becomes `%2541`, another
    resource; `%2f` becomes `%2F`; `|`, `[`, `]` are escaped), which is not the URL browsers
    request nor the one listed (docs/contract.md §8)."""

    def putrequest(
        self, method: str, url: str, skip_host: bool = False, skip_accept_encoding: bool = False
    ) -> None:
        reading = _EXCHANGE.get().url
        super().putrequest(  # type: ignore[misc]
            method, reading.target, skip_host=skip_host, skip_accept_encoding=skip_accept_encoding
        )


class _GuardedHTTPConnection(_OneReadingRequest, HTTPConnection):
    response_class = FinalResponse

    def _new_conn(self) -> socket.socket:
        return _connect(self)


class _GuardedHTTPSConnection(_OneReadingRequest, HTTPSConnection):
    response_class = FinalResponse

    def _new_conn(self) -> socket.socket:
        return _connect(self)

    def connect(self) -> None:
        super().connect()
        # The TLS socket took over the guarded one's descriptor and left it detached: the
        # watchdog must cut this one, or a site that drips its answer over TLS holds the fetch
        # (and the Lambda) past every deadline. The handshake itself is bounded by the socket's
        # timeout, which the guard set to the time left.
        _EXCHANGE.get().guard.adopt(self.sock)


class _NoReuse:
    """Never hand a connection back for reuse (the Lambda's fetches: a connection a hop, with
    Connection: close, so that reusing one the server is closing never races into a reset)."""

    def _put_conn(self, conn: BaseHTTPConnection | None) -> None:
        if conn is not None:
            conn.close()
        super()._put_conn(None)  # type: ignore[misc]


class _GuardedHTTPPool(_NoReuse, HTTPConnectionPool):
    ConnectionCls = _GuardedHTTPConnection


class _GuardedHTTPSPool(_NoReuse, HTTPSConnectionPool):
    ConnectionCls = _GuardedHTTPSConnection


class GuardedAdapter(HTTPAdapter):
    """A requests adapter whose connections go only to checked addresses, none kept."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {
            "http": _GuardedHTTPPool,
            "https": _GuardedHTTPSPool,
        }


def prepared(request: Request) -> requests.PreparedRequest:
    """The GET of request, made by hand: requests' own preparation would parse the URL again
    and re-quote its path, and it would send a URL's userinfo as Basic Auth."""
    prepared = requests.PreparedRequest()
    prepared.prepare_method("GET")
    prepared.url = request.url.href
    # The Host header too is the one reading's: urllib3 would cut a fully qualified name's
    # trailing dot, which browsers send.
    prepared.prepare_headers({"Host": request.url.authority, **request.headers})
    prepared.body = None
    return prepared


# A kept connection the server closed while it waited fails as one of these, before any answer.
# (http.client's RemoteDisconnected is a ConnectionResetError; over TLS, a server that closes
# without its close_notify gives an EOF error.)
_STALE = (ConnectionResetError, ConnectionAbortedError, BrokenPipeError, ssl.SSLEOFError)


class _HttpReply:
    """The head of a requests answer; its body read through the same error table."""

    def __init__(self, raw: requests.Response, guard: Guard) -> None:
        self._raw = raw
        # urllib3's answer reads through http.client's, whose socket file is bounded here.
        wire_bound.bound(getattr(raw.raw, "_fp", None))
        self._guard = guard
        self.status: int = raw.status_code
        self.headers: Mapping[str, str] = raw.headers

    def header_lines(self, name: str) -> tuple[str, ...]:
        # requests joined a repeated header's lines; urllib3's own headers keep each one.
        return tuple(self._raw.raw.headers.getlist(name))

    def chunks(self, size: int, eager: bool = False) -> Iterator[bytes]:
        raw = self._raw.raw
        with mapped_body_errors(self._guard):
            if not eager:
                yield from raw.stream(size, decode_content=False)
                return
            # What has arrived, up to size: a reader that stops at a bound (robots.txt's 500 KiB,
            # docs/contract.md §4) never waits for bytes past it that a server holds back.
            if raw.chunked and raw.supports_chunked_reads():
                yield from raw.read_chunked(size, decode_content=False)
                return
            while data := raw.read1(size, decode_content=False):
                yield data

    def close(self) -> None:
        self._raw.close()


class HttpTransport:
    """Sends one GET at a time through guarded connections, a new one a request; redirects are
    the caller's."""

    def __init__(self, ca_file: str | None = None, head_limit: int | None = None) -> None:
        self._head_limit = head_limit  # past http.client's bounds (None: those alone)
        # No Session: no cookies, no proxies or .netrc credentials from the environment.
        self._adapter = GuardedAdapter(max_retries=0, pool_connections=4, pool_maxsize=1)
        # Certificates are always verified: against ca_file's authorities, else certifi's.
        self._verify: str | bool = ca_file if ca_file is not None else True

    def close(self) -> None:
        """Release the connections."""
        self._adapter.close()

    def send(self, request: Request, guard: Guard) -> Reply:
        """Send a GET for request and return the answer's head, its body not yet read."""
        token = _EXCHANGE.set(_Exchange(guard, request.url))
        try:
            with mapped_errors(guard), head_limited(self._head_limit):
                return _HttpReply(self._send(request, guard), guard)
        finally:
            _EXCHANGE.reset(token)

    def _send(self, request: Request, guard: Guard) -> requests.Response:
        remaining = max(guard.remaining(), 0.001)
        # Straight to the adapter, not through a Session: a Session brings cookies, and it
        # works out the next request from Location even when it will not follow it.
        return self._adapter.send(
            prepared(request),
            stream=True,
            timeout=(remaining, remaining),
            proxies={},
            verify=self._verify,
        )


def check_content_length(lines: list[str]) -> None:
    """Raise what urllib3 raises for an answer whose Content-Length lines disagree (RFC 9112
    §6.3: no length can then be trusted); the same values repeated (`42, 42`) are one length,
    and one that is no number leaves the body to be read to the connection's end."""
    try:
        lengths = {int(v) for line in lines for v in line.split(",")}
    except ValueError:
        return
    if len(lengths) > 1:
        raise urllib3.exceptions.InvalidHeader(
            f"Content-Length contained multiple unmatching values ({lines})"
        )


def is_stale(exc: BaseException) -> bool:
    """Whether exc says a kept connection was closed by the server before it answered."""
    return any(isinstance(e, _STALE) for e in _chain(exc))
