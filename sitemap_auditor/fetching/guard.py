"""One fetch's deadline, and the only way its connections are opened: to checked addresses.

What it guarantees (docs/contract.md §4):
- every address a host resolves to is checked before any connection opens, and the connection is
  made to a checked address, with no second look-up (no DNS rebinding);
- one deadline for the whole fetch, enforced by a watchdog that shuts its sockets down, because a
  per-read timeout never fires on a server that drips a byte at a time, and for look-ups by no
  longer waiting for them.

It knows sockets and name look-ups, not HTTP: the transport calls `connect` for every hop.
"""

from __future__ import annotations

import heapq
import itertools
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from sitemap_auditor.core.errors import FetchError, FetchErrorKind
from sitemap_auditor.fetching import addresses

__all__ = [
    "MAX_PENDING_LOOKUPS",
    "Guard",
    "Resolver",
    "Watchdog",
    "connect_failed",
    "system_resolver",
]

Resolver = Callable[[str, int], Sequence[str]]
# A look-up runs in a daemon thread that the fetch stops waiting for at its deadline; one that a
# name server keeps stalling goes on until the system resolver gives up. At most this many may
# be pending at once, so a warm container cannot pile them up: past that, a fetch waits for a
# slot within its own deadline.
MAX_PENDING_LOOKUPS = 16
_LOOKUP_SLOTS = threading.BoundedSemaphore(MAX_PENDING_LOOKUPS)


def _lookup_failed(host: str, error: BaseException) -> str:
    """A failed name look-up, in words (not `gaierror`)."""
    if isinstance(error, UnicodeError):
        return f"the name {host} is not a valid host name"
    if isinstance(error, socket.gaierror) and error.errno == socket.EAI_AGAIN:
        return f"the name {host} could not be resolved now (the name server did not answer)"
    return f"the name {host} could not be resolved"


def connect_failed(error: OSError | None) -> str:
    """Why no connection opened, in words (not `ConnectionRefusedError`)."""
    if isinstance(error, ConnectionRefusedError):
        return "the connection was refused"
    if isinstance(error, TimeoutError):
        return "the connection timed out"
    if error is not None and error.strerror:
        # The system's own words (e.g. "network is unreachable", "no route to host").
        return error.strerror[:1].lower() + error.strerror[1:]
    return FetchErrorKind.CONNECT.words


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


class Watchdog:
    """One thread that expires every watched guard at its deadline, in deadline order.

    A timer thread a fetch cost about 175 µs of CPU to start and end, a tenth of a page check's;
    this costs a heap push. Entries of fetches that ended are dropped when they reach the top, or
    all at once when they are most of the heap, so it holds at most about twice the fetches
    running. The thread is started on first use (and again in a forked child, which has none).
    """

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._heap: list[list[Any]] = []  # [deadline, seq, guard or None once cancelled]
        self._seq = itertools.count()
        self._cancelled = 0
        self._pid = -1

    def watch(self, guard: Guard) -> list[Any]:
        """Expire guard at its deadline unless cancelled first; the entry to cancel."""
        entry: list[Any] = [guard.deadline, next(self._seq), guard]
        with self._cond:
            if self._pid != os.getpid():
                self._pid = os.getpid()
                self._heap, self._cancelled = [], 0
                threading.Thread(target=self._run, name="fetch-watchdog", daemon=True).start()
            heapq.heappush(self._heap, entry)
            if self._heap[0] is entry:
                self._cond.notify()
        return entry

    @property
    def held(self) -> int:
        """Entries held: the watched fetches, and ended ones not dropped yet."""
        return len(self._heap)

    def cancel(self, entry: list[Any]) -> None:
        """The fetch is over: its guard is not to be expired."""
        with self._cond:
            if entry[2] is None:
                return
            entry[2] = None
            self._cancelled += 1
            if self._cancelled > 64 and 2 * self._cancelled > len(self._heap):
                self._heap = [e for e in self._heap if e[2] is not None]
                heapq.heapify(self._heap)
                self._cancelled = 0

    def _due(self) -> Guard:
        with self._cond:
            while True:
                while self._heap and self._heap[0][2] is None:
                    heapq.heappop(self._heap)
                    self._cancelled -= 1
                if not self._heap:
                    self._cond.wait()
                    continue
                left = self._heap[0][0] - time.monotonic()
                if left <= 0:
                    entry = heapq.heappop(self._heap)
                    guard: Guard = entry[2]
                    entry[2] = None
                    return guard
                self._cond.wait(left)

    def _run(self) -> None:
        while True:
            self._due().expire()


_WATCHDOG = Watchdog()


class Guard:
    """One fetch's deadline and the sockets it opened, every hop included."""

    def __init__(
        self,
        deadline: float,
        seconds: float,
        resolver: Resolver = system_resolver,
        allow_private_networks: bool = False,
        budget_bound: bool = False,
        refuse_metadata: bool = False,
    ) -> None:
        self.deadline = deadline
        self.resolver = resolver
        self.allow_private_networks = allow_private_networks
        # Metadata and link-local addresses refused even where private networks are allowed.
        self.refuse_metadata = refuse_metadata
        # The deadline is the audit's own time limit, not the site's 30 s.
        self.budget_bound = budget_bound
        # The span the fetch was given, as its timeout message states it: passed in rather than
        # measured to the deadline here, so that a 30 s limit reads "30 s" however late this is.
        self.seconds = max(0.0, seconds)
        self.expired = False
        self._over = False  # the fetch is over: its sockets are no longer its own to cut
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    def remaining(self) -> float:
        """Seconds left before the deadline, never negative."""
        return max(0.0, self.deadline - time.monotonic())

    def past_deadline(self) -> bool:
        """True once the deadline has passed or the watchdog has fired."""
        if self.expired or time.monotonic() >= self.deadline:
            self.expired = True
        return self.expired

    def check(self) -> None:
        """Raise the timeout FetchError once the deadline has passed."""
        if self.past_deadline():
            raise self.timeout()

    def timeout(self) -> FetchError:
        """The FetchError a fetch cut at this deadline gives."""
        if self.budget_bound:
            # Not the site's fault: said so, lest its owner look for a slow server.
            return FetchError(
                FetchErrorKind.TIMEOUT, f"the audit ran out of time after {self.seconds:.3g} s"
            )
        return FetchError(FetchErrorKind.TIMEOUT, f"no complete answer within {self.seconds:.3g} s")

    def expire(self) -> None:
        """Cut every socket of this fetch, waking any read blocked on it (none once the fetch is
        over: a kept connection then serves another fetch, under that one's guard)."""
        with self._lock:
            if self._over:
                return
            self.expired = True
            for sock in self._sockets:
                with suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def adopt(self, sock: socket.socket) -> None:
        """Count a kept connection's socket as this fetch's, so that its watchdog cuts it too;
        raise the timeout FetchError when the deadline has passed."""
        with self._lock:
            if not self.past_deadline():
                self._sockets.append(sock)
                return
        raise self.timeout()

    @contextmanager
    def watched(self) -> Iterator[Guard]:
        """Run the body with a watchdog that expires this guard at its deadline."""
        entry = _WATCHDOG.watch(self)
        try:
            yield self
        finally:
            _WATCHDOG.cancel(entry)
            with self._lock:  # a watchdog that fired just now has finished cutting
                self._over = True

    def resolve(self, host: str, port: int) -> Sequence[str]:
        """The resolver's answer for host, or a timeout FetchError at this fetch's deadline."""
        # getaddrinfo cannot be interrupted and the watchdog has no socket to cut yet: a slow
        # name server would hold the fetch for the system resolver's own timeouts and retries.
        if not _LOOKUP_SLOTS.acquire(timeout=self.remaining()):
            self.expired = True
            raise self.timeout()
        lookup = _Lookup(self.resolver, host, port)
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

    def checked_addresses(self, host: str, port: int) -> list[str]:
        """Resolve host once and check every address; raise FetchError when any is refused."""
        literal = addresses.parse_ip_literal(host)
        found: list[addresses.IPAddress] = []
        if literal is not None:
            found.append(literal)
        else:
            try:
                names = self.resolve(host, port)
            except (OSError, UnicodeError) as e:
                raise FetchError(FetchErrorKind.DNS, _lookup_failed(host, e)) from None
            for name in names:
                address = addresses.parse_ip_literal(name)
                if address is None:
                    raise FetchError(
                        FetchErrorKind.DNS,
                        f"the name {host} resolved to an unusable address {name[:60]!r}",
                    )
                found.append(address)
            if not found:
                raise FetchError(FetchErrorKind.DNS, f"the name {host} has no address")
        for address in found:
            reason = self._refused(address)
            if reason is not None:
                raise FetchError(FetchErrorKind.BLOCKED, f"{address} ({reason}) for host {host}")
        return [str(a) for a in found]

    def _refused(self, address: addresses.IPAddress) -> str | None:
        """Why this fetch may not connect to address, or None when it may."""
        if not self.allow_private_networks:
            return addresses.blocked_reason(address)
        if self.refuse_metadata:
            return addresses.metadata_reason(address)
        return None

    def connect(self, host: str, port: int, options: Sequence[Any] | None) -> socket.socket:
        """Open a TCP connection to a checked address of host."""
        self.check()
        last: OSError | None = None
        for address in self.checked_addresses(host, port):
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
        self.check()
        raise FetchError(FetchErrorKind.CONNECT, connect_failed(last))
