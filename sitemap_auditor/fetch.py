"""The only module that speaks HTTP: one guarded GET at a time, its body as bounded, decoded chunks.

What it guarantees for every URL it fetches (docs/contract.md §4):
- the 37AuditsBot user agent, and Basic Auth only on the site's own origin, hop by hop;
- every resolved address checked before any connection opens, and the connection made to a checked
  address, with no second lookup (no DNS rebinding), on every redirect hop;
- at most 10 redirects, http(s) only;
- one deadline for the whole fetch (name look-ups, redirects and body), enforced by a watchdog
  that shuts the socket down, because a per-read timeout never fires on a server that drips a byte
  at a time, and for look-ups by no longer waiting for them;
- the wire bytes and every decompressed layer capped, gzip found by its magic bytes.
"""

from __future__ import annotations

import contextvars
import http.client
import itertools
import socket
import ssl
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

import requests
import urllib3
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from . import errors, netguard
from .credentials import Credentials as Credentials
from .errors import FetchError as FetchError
from .errors import FetchErrorKind as FetchErrorKind
from .facts import NO_VALIDATORS, Validators
from .fetch_stats import FetchStats as FetchStats
from .site import DEFAULT_PORTS, ascii_host

__all__ = [
    "CHUNK_BYTES",
    "GZIP_MAGIC",
    "MAX_BODY_BYTES",
    "MAX_CONTENT_CODINGS",
    "MAX_PENDING_LOOKUPS",
    "MAX_REDIRECTS",
    "MAX_SNIFFED_GZIP_LAYERS",
    "MAX_VALIDATOR_CHARS",
    "REQUEST_DEADLINE_S",
    "USER_AGENT",
    "Answer",
    "Credentials",
    "FetchError",
    "FetchErrorKind",
    "FetchPolicy",
    "FetchStats",
    "Fetcher",
    "Resolver",
    "system_resolver",
    "transient_status",
]

if TYPE_CHECKING:
    from urllib3._base_connection import BaseHTTPConnection

# The platform's crawler identity (docs/contract.md §4), to the letter.
USER_AGENT = "37AuditsBot/1.0 (+https://www.37audits.com/bot)"
# auditor-doc.md step 4: 30 s per request, which docs/contract.md §4 makes a whole-fetch deadline.
REQUEST_DEADLINE_S = 30.0
# docs/contract.md §4: 10 hops are followed, an 11th fails the request.
MAX_REDIRECTS = 10
# auditor-doc.md step 4: bodies up to 50 MB; docs/contract.md §4 fixes the number of bytes.
MAX_BODY_BYTES = errors.MAX_BODY_BYTES
# Reads and decompression work in slices of this size, so memory does not grow with the body.
CHUNK_BYTES = 64 * 1024
# A sitemap.xml.gz sent with Content-Encoding: gzip has two layers; more than three sniffed
# layers is no sitemap anyone publishes, only a way to burn CPU.
MAX_SNIFFED_GZIP_LAYERS = 3
GZIP_MAGIC = b"\x1f\x8b"
# Servers stack at most one or two codings; each is one more decompression layer.
MAX_CONTENT_CODINGS = 2
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
# A validator is echoed back to the site and kept in the shared store; real ones are short
# (a quoted hash, an HTTP date), so a longer one is not kept rather than stored and resent.
MAX_VALIDATOR_CHARS = 256
_TRANSPORT_ENCODINGS = frozenset({"gzip", "x-gzip", "deflate"})

Resolver = Callable[[str, int], Sequence[str]]
# A look-up runs in a daemon thread that the fetch stops waiting for at its deadline; one that a
# name server keeps stalling goes on until the system resolver gives up. At most this many may
# be pending at once, so a warm container cannot pile them up: past that, a fetch waits for a
# slot within its own deadline.
MAX_PENDING_LOOKUPS = 16
_LOOKUP_SLOTS = threading.BoundedSemaphore(MAX_PENDING_LOOKUPS)


def system_resolver(host: str, port: int) -> list[str]:
    """Resolve a host name to its addresses with the system resolver, each once."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class _Lookup:
    """One name look-up in its own thread, its answer or exception kept for the fetch."""

    def __init__(self, resolver: Resolver, host: str, port: int) -> None:
        self.done = threading.Event()
        self.names: Sequence[str] = ()
        self.error: BaseException | None = None
        self._call = (resolver, host, port)

    def run(self) -> None:
        resolver, host, port = self._call
        try:
            self.names = resolver(host, port)
        except BaseException as e:  # noqa: BLE001 -- handed to the fetch, which raises it
            self.error = e
        finally:
            _LOOKUP_SLOTS.release()
            self.done.set()


@dataclass(frozen=True)
class FetchPolicy:
    """What one audit's fetches may do: where credentials go, which addresses, how long."""

    origin: tuple[str, str, int]
    credentials: Credentials | None = None
    allow_private_networks: bool = False
    resolver: Resolver = system_resolver
    deadline_s: float = REQUEST_DEADLINE_S
    # A time.monotonic() value after which no fetch may run on (the Lambda's own time limit).
    budget_deadline: float | None = None


def transient_status(status: int) -> bool:
    """True for an HTTP status that says the site could not answer now: 429 and 5xx."""
    return status == 429 or 500 <= status <= 599


class _Hop:
    """Mutable state of one URL's fetch: its deadline, policy and the sockets it opened."""

    def __init__(self, policy: FetchPolicy, deadline: float, budget_bound: bool = False) -> None:
        self.policy = policy
        self.deadline = deadline
        # The deadline is the audit's own time limit, not the site's 30 s.
        self.budget_bound = budget_bound
        self.seconds = max(0.0, deadline - time.monotonic())
        self.expired = False
        self.wire_bytes = 0
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    def remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def check_deadline(self) -> None:
        if self.expired or time.monotonic() >= self.deadline:
            self.expired = True
            raise self.timeout()

    def timeout(self) -> FetchError:
        if self.budget_bound:
            # Not the site's fault: said so, lest its owner look for a slow server.
            return FetchError(
                FetchErrorKind.TIMEOUT, f"the audit ran out of time after {self.seconds:.3g} s"
            )
        return FetchError(FetchErrorKind.TIMEOUT, f"no complete answer within {self.seconds:.3g} s")

    def expire(self) -> None:
        """Watchdog: cut every socket of this fetch, waking any read blocked on it."""
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                with suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def resolve(self, host: str, port: int) -> Sequence[str]:
        """The resolver's answer for host, or a timeout FetchError at this fetch's deadline."""
        # getaddrinfo cannot be interrupted and the watchdog has no socket to cut yet: a slow
        # name server would hold the fetch for the system resolver's own timeouts and retries.
        if not _LOOKUP_SLOTS.acquire(timeout=self.remaining()):
            self.expired = True
            raise self.timeout()
        lookup = _Lookup(self.policy.resolver, host, port)
        try:
            threading.Thread(target=lookup.run, name="resolve", daemon=True).start()
        except BaseException:
            _LOOKUP_SLOTS.release()
            raise
        if not lookup.done.wait(self.remaining()):
            self.expired = True
            raise self.timeout()
        if lookup.error is not None:
            raise lookup.error
        return lookup.names

    def addresses(self, host: str, port: int) -> list[str]:
        """Resolve host once and check every address; raise FetchError when any is refused."""
        literal = netguard.parse_ip_literal(host)
        found: list[netguard.IPAddress] = []
        if literal is not None:
            found.append(literal)
        else:
            try:
                names = self.resolve(host, port)
            except (OSError, UnicodeError) as e:
                raise FetchError(FetchErrorKind.DNS, f"{host}: {e.__class__.__name__}") from None
            for name in names:
                address = netguard.parse_ip_literal(name)
                if address is None:
                    raise FetchError(FetchErrorKind.DNS, f"{host}: unusable address {name[:60]!r}")
                found.append(address)
            if not found:
                raise FetchError(FetchErrorKind.DNS, f"{host}: no address")
        if not self.policy.allow_private_networks:
            for address in found:
                reason = netguard.blocked_reason(address)
                if reason is not None:
                    raise FetchError(
                        FetchErrorKind.BLOCKED, f"{address} ({reason}) for host {host}"
                    )
        return [str(a) for a in found]

    def connect(self, host: str, port: int, options: Sequence[Any] | None) -> socket.socket:
        """Open a TCP connection to a checked address of host."""
        self.check_deadline()
        last: OSError | None = None
        for address in self.addresses(host, port):
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            sock = socket.socket(family, socket.SOCK_STREAM)
            with self._lock:
                self._sockets.append(sock)
            try:
                for opt in options or ():
                    sock.setsockopt(*opt)
                sock.settimeout(self.remaining())
                sock.connect((address, port))
                return sock
            except OSError as e:
                last = e
                sock.close()
                if self.expired:
                    break
        self.check_deadline()
        raise FetchError(FetchErrorKind.CONNECT, type(last).__name__ if last else "no address")


_HOP: contextvars.ContextVar[_Hop] = contextvars.ContextVar("sitemap_auditor_hop")


class _GuardedHTTPConnection(HTTPConnection):
    def _new_conn(self) -> socket.socket:
        return _HOP.get().connect(self._dns_host, self.port, self.socket_options)


class _GuardedHTTPSConnection(HTTPSConnection):
    def _new_conn(self) -> socket.socket:
        return _HOP.get().connect(self._dns_host, self.port, self.socket_options)


class _NoReuse:
    """Never hand a connection back for reuse: a kept socket would outlive its fetch's watchdog,
    and reusing one the server is closing (we send Connection: close) races into a reset."""

    def _put_conn(self, conn: BaseHTTPConnection | None) -> None:
        if conn is not None:
            conn.close()
        super()._put_conn(None)  # type: ignore[misc]


class _GuardedHTTPPool(_NoReuse, HTTPConnectionPool):
    ConnectionCls = _GuardedHTTPConnection


class _GuardedHTTPSPool(_NoReuse, HTTPSConnectionPool):
    ConnectionCls = _GuardedHTTPSConnection


class _GuardedAdapter(HTTPAdapter):
    """A requests adapter whose connections go only to checked addresses."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {
            "http": _GuardedHTTPPool,
            "https": _GuardedHTTPSPool,
        }


def _no_auth(request: requests.PreparedRequest) -> requests.PreparedRequest:
    return request


def _origin(url: str) -> tuple[str, str, int] | None:
    try:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        host = ascii_host(parts.hostname or "")
        port = parts.port or DEFAULT_PORTS.get(scheme)
    except ValueError:
        return None
    if host is None or port is None:
        return None
    return (scheme, host, port)


# What the network and the HTTP stack raise; anything else is a defect and is not swallowed.
_TRANSPORT_ERRORS = (
    requests.RequestException,
    urllib3.exceptions.HTTPError,
    http.client.HTTPException,
    OSError,
    UnicodeError,  # a host name that no IDNA encoding accepts
)


def _classify(exc: BaseException, hop: _Hop) -> FetchError:
    """Turn a transport exception into the audit's kind of fetch error."""
    if isinstance(exc, FetchError):
        return exc
    if hop.expired or time.monotonic() >= hop.deadline:
        hop.expired = True
        return hop.timeout()
    # The innermost cause names what really happened (requests and urllib3 wrap it twice).
    chain: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and len(chain) < 8:
        chain.append(cur)
        inner = cur.__cause__ or cur.__context__
        if inner is None and cur.args and isinstance(cur.args[-1], BaseException):
            inner = cur.args[-1]
        cur = inner
    for e in chain:
        if isinstance(e, FetchError):
            return e
    for e in chain:
        if isinstance(e, (ssl.SSLError, ssl.CertificateError, requests.exceptions.SSLError)):
            return FetchError(FetchErrorKind.TLS, type(e).__name__)
    for e in chain:
        if isinstance(e, (TimeoutError, socket.timeout, requests.exceptions.Timeout)):
            return FetchError(FetchErrorKind.TIMEOUT, type(e).__name__)
    for e in chain:
        if isinstance(e, ConnectionResetError):
            return FetchError(FetchErrorKind.CONNECTION_RESET)
        if isinstance(e, http.client.IncompleteRead):
            return FetchError(FetchErrorKind.INCOMPLETE_BODY)
        if isinstance(e, http.client.RemoteDisconnected):
            return FetchError(FetchErrorKind.CONNECTION_CLOSED, "no answer")
    for e in chain:
        if isinstance(e, (requests.exceptions.InvalidURL, urllib3.exceptions.LocationParseError)):
            return FetchError(FetchErrorKind.INVALID_URL)
        if isinstance(e, requests.exceptions.ChunkedEncodingError):
            return FetchError(FetchErrorKind.BROKEN_BODY, type(e).__name__)
        if isinstance(e, (urllib3.exceptions.ProtocolError, http.client.HTTPException)):
            return FetchError(FetchErrorKind.PROTOCOL, type(e).__name__)
    return FetchError(FetchErrorKind.CONNECTION, type(exc).__name__)


def _inflate(chunks: Iterable[bytes], hop: _Hop) -> Iterator[bytes]:
    """Decompress one gzip or zlib layer, bounded: no more than MAX_BODY_BYTES come out."""
    d = zlib.decompressobj(32 + zlib.MAX_WBITS)  # 32: a gzip or a zlib header, found by itself
    produced = 0
    started = False
    pending = b""  # a lone byte after a member's end, until the next chunk tells what it starts
    it = iter(chunks)  # one pass: draining after a member's end goes on from here
    try:
        for chunk in it:
            data = pending + chunk if pending else chunk
            pending = b""
            while data:
                if d.eof:
                    # A member ended: another gzip member may follow (in this chunk or the
                    # next); anything else is trailing bytes, ignored as gzip(1) does.
                    if len(data) < len(GZIP_MAGIC):
                        pending = data
                        break
                    if data[:2] != GZIP_MAGIC:
                        # Read the rest anyway, so that an outer layer's own end (and its
                        # integrity check) is reached whatever the chunking.
                        for _ in it:
                            pass
                        return
                    d = zlib.decompressobj(32 + zlib.MAX_WBITS)
                started = True
                out = d.decompress(data, CHUNK_BYTES)
                data = d.unused_data if d.eof else d.unconsumed_tail
                if out:
                    produced += len(out)
                    if produced > MAX_BODY_BYTES:
                        raise FetchError(FetchErrorKind.TOO_LARGE, " once decompressed")
                    hop.check_deadline()
                    yield out
    except zlib.error:
        raise FetchError(FetchErrorKind.BAD_COMPRESSED_DATA) from None
    if started and not d.eof:
        raise FetchError(FetchErrorKind.TRUNCATED_COMPRESSED_DATA)


def _peel_gzip(chunks: Iterable[bytes], hop: _Hop, layers: int) -> Iterator[bytes]:
    """Undo every gzip layer found by its magic bytes, whatever the headers said."""
    it = iter(chunks)
    head = b""
    for chunk in it:
        head += chunk
        if len(head) >= len(GZIP_MAGIC):
            break
    stream = itertools.chain((head,), it) if head else it
    if head[:2] != GZIP_MAGIC:
        yield from stream
    elif layers <= 0:
        raise FetchError(FetchErrorKind.BAD_COMPRESSED_DATA, "too many gzip layers")
    else:
        yield from _peel_gzip(_inflate(stream, hop), hop, layers - 1)


def _validator(value: str | None) -> str | None:
    if value is None or not value.strip() or len(value) > MAX_VALIDATOR_CHARS:
        return None
    return value.strip()


class Answer:
    """The final answer of a fetch, after redirects; its body is read as decoded chunks."""

    def __init__(self, url: str, raw: requests.Response, hop: _Hop) -> None:
        self.url = url
        self.status: int = raw.status_code
        self.content_type: str | None = raw.headers.get("Content-Type")
        self.validators = Validators(
            _validator(raw.headers.get("ETag")), _validator(raw.headers.get("Last-Modified"))
        )
        self.truncated = False
        self._raw = raw
        self._hop = hop

    @property
    def wire_bytes(self) -> int:
        """Bytes received so far for this fetch, every hop included."""
        return self._hop.wire_bytes

    def _wire(self) -> Iterator[bytes]:
        hop = self._hop
        try:
            for chunk in self._raw.raw.stream(CHUNK_BYTES, decode_content=False):
                hop.wire_bytes += len(chunk)
                if hop.wire_bytes > MAX_BODY_BYTES:
                    raise FetchError(FetchErrorKind.TOO_LARGE)
                hop.check_deadline()
                yield chunk
        except FetchError:
            raise
        except _TRANSPORT_ERRORS as e:
            raise _classify(e, hop) from None
        # A watchdog shutdown can look like a clean end of a body sent without a length.
        hop.check_deadline()

    def body(self, limit: int = MAX_BODY_BYTES, truncate: bool = False) -> Iterator[bytes]:
        """Yield the decoded body in chunks; past limit, stop (truncate) or raise FetchError."""
        stream: Iterable[bytes] = self._wire()
        codings = [
            c.strip().lower()
            for c in self._raw.headers.get("Content-Encoding", "").split(",")
            if c.strip() and c.strip().lower() != "identity"
        ]
        if len(codings) > MAX_CONTENT_CODINGS:
            raise FetchError(FetchErrorKind.UNSUPPORTED_ENCODING, f"{len(codings)} codings")
        for coding in reversed(codings):
            if coding not in _TRANSPORT_ENCODINGS:
                raise FetchError(FetchErrorKind.UNSUPPORTED_ENCODING, coding[:40])
            stream = _inflate(stream, self._hop)
        total = 0
        for chunk in _peel_gzip(stream, self._hop, MAX_SNIFFED_GZIP_LAYERS):
            total += len(chunk)
            if total > limit:
                if not truncate:
                    raise FetchError(FetchErrorKind.TOO_LARGE)
                self.truncated = True
                yield chunk[: len(chunk) - (total - limit)]
                return
            yield chunk


class Fetcher:
    """Fetches URLs for one audit under one FetchPolicy."""

    def __init__(
        self, policy: FetchPolicy, on_fetch: Callable[[FetchStats], None] | None = None
    ) -> None:
        self.policy = policy
        self._on_fetch = on_fetch
        # Set when a fetch was cut by the audit's own time budget rather than by the site: the
        # audit's facts are then incomplete (docs/contract.md §7).
        self.ran_out_of_budget = False
        # No Session: no cookies, no proxies or .netrc credentials from the environment.
        self._adapter = _GuardedAdapter(max_retries=0, pool_connections=4, pool_maxsize=1)

    def close(self) -> None:
        """Release the connections."""
        self._adapter.close()

    def remaining_budget(self) -> float | None:
        """Seconds left before the audit's own time limit, or None when it has none."""
        if self.policy.budget_deadline is None:
            return None
        return self.policy.budget_deadline - time.monotonic()

    def _headers(self, url: str, validators: Validators) -> dict[str, str]:
        headers = {
            "User-Agent": USER_AGENT,
            "Accept": "*/*",
            "Accept-Encoding": "gzip, deflate",
            # One connection per hop: a pooled socket would escape this fetch's watchdog.
            "Connection": "close",
        }
        creds = self.policy.credentials
        if creds is not None and _origin(url) == self.policy.origin:
            headers["Authorization"] = creds.header()
        headers.update(validators.headers())
        return headers

    def _send(self, url: str, hop: _Hop, validators: Validators) -> requests.Response:
        token = _HOP.set(hop)
        try:
            remaining = max(hop.remaining(), 0.001)
            # Not None: requests would otherwise send a URL's user:password@ as Basic Auth to
            # whatever host a Sitemap: line or redirect names.
            request = requests.Request(
                "GET", url, headers=self._headers(url, validators), auth=_no_auth
            )
            # Straight to the adapter, not through a Session: a Session brings cookies, and it
            # works out the next request from Location even when it will not follow it (where
            # a malformed [IPv6] host raises). Redirects are followed here, hop by hop.
            return self._adapter.send(
                request.prepare(), stream=True, timeout=(remaining, remaining), proxies={}
            )
        except _TRANSPORT_ERRORS as e:
            raise _classify(e, hop) from None
        finally:
            _HOP.reset(token)

    @contextmanager
    def open(self, url: str, validators: Validators = NO_VALIDATORS) -> Iterator[Answer]:
        """Fetch url, following redirects, and yield its final Answer; raises FetchError.

        With validators, the request is conditional: the final answer may then be a 304.
        """
        start = time.monotonic()
        deadline = start + self.policy.deadline_s
        budget_bound = False
        if self.policy.budget_deadline is not None and self.policy.budget_deadline < deadline:
            deadline = self.policy.budget_deadline
            budget_bound = True
        hop = _Hop(self.policy, deadline, budget_bound)
        watchdog = threading.Timer(max(0.0, deadline - start), hop.expire)
        watchdog.daemon = True
        watchdog.start()
        raw: requests.Response | None = None
        status: int | None = None
        error: str | None = None
        try:
            current = url
            for hop_number in itertools.count():
                raw = self._send(current, hop, validators)
                if hop.expired:
                    # The watchdog cut the headers short: no final answer came.
                    raise hop.timeout()
                location = raw.headers.get("Location")
                if raw.status_code not in _REDIRECTS or location is None:
                    break
                if hop_number >= MAX_REDIRECTS:
                    raise FetchError(
                        FetchErrorKind.TOO_MANY_REDIRECTS, f"more than {MAX_REDIRECTS}"
                    )
                raw.close()
                with suppress(UnicodeError):
                    location = location.encode("latin-1").decode("utf-8")
                try:
                    current = urljoin(current, location.strip())
                    urlsplit(current).port  # noqa: B018 -- raises ValueError on a bad port
                except ValueError:
                    raise FetchError(FetchErrorKind.INVALID_URL) from None
                if urlsplit(current).scheme.lower() not in ("http", "https"):
                    raise FetchError(FetchErrorKind.OTHER_SCHEME, urlsplit(current).scheme[:20])
            assert raw is not None
            status = raw.status_code
            yield Answer(current, raw, hop)
        except FetchError as e:
            error = e.kind.label
            if hop.budget_bound and hop.expired:
                self.ran_out_of_budget = True
            raise
        finally:
            watchdog.cancel()
            if raw is not None:
                raw.close()
            if self._on_fetch is not None:
                self._on_fetch(
                    FetchStats(url, status, hop.wire_bytes, time.monotonic() - start, error)
                )
