"""Real HTTP servers on 127.0.0.1, with well-behaved and hostile routes: the one loopback server
helper of the tests and the benchmarks.

`serve` starts any handler class on a free port; `Site` routes by path and records every request;
`LoopbackService` is a base for a service of one handler class (a fake AWS endpoint, a proxy).
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import struct
import subprocess
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.tls import Certificates

__all__ = [
    "LoopbackService",
    "Route",
    "Seen",
    "Site",
    "drip",
    "endless",
    "file",
    "free_port",
    "raw",
    "redirect",
    "reply",
    "reset_after",
    "robots_with",
    "send",
    "serve",
    "slow_headers",
    "stream",
    "wait_for",
]

Route = Callable[[BaseHTTPRequestHandler], None]


@dataclass
class Seen:
    """One request the server received."""

    path: str
    headers: dict[str, str]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256  # a hundred audits may connect at once
    accepted = 0  # TCP connections accepted so far

    def get_request(self) -> tuple[socket.socket, Any]:
        got = super().get_request()
        self.accepted += 1  # only the serving thread accepts
        return got


def serve(
    handler: type[BaseHTTPRequestHandler], host: str = "127.0.0.1", tls: Certificates | None = None
) -> _Server:
    """A threaded server of handler on a free port of host, serving from a daemon thread; stop it
    with `shutdown()` and `server_close()`. With tls, HTTPS: each connection's handshake is made
    in its own handler thread, as its first read asks."""
    server = _Server((host, 0), handler)
    if tls is not None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(tls.cert_file, tls.key_file)
        server.socket = context.wrap_socket(
            server.socket, server_side=True, do_handshake_on_connect=False
        )
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    return server


def free_port(host: str) -> int:
    """A port of host that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def wait_for(host: str, port: int, proc: subprocess.Popen[bytes], seconds: float = 30) -> None:
    """Return once the server process listens on host:port; raise if it died or never did."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with socket.create_connection((host, port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                raise
            time.sleep(0.05)


@dataclass
class Site:
    """A site on 127.0.0.1: routes by path, every request recorded."""

    routes: dict[str, Route] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)
    server: _Server | None = None
    host: str = "127.0.0.1"
    # HTTPS with this server certificate (harness/tls.py), else plain HTTP.
    tls: Certificates | None = None

    @property
    def connections(self) -> int:
        """TCP connections the site accepted so far (a kept-alive one counts once)."""
        assert self.server is not None
        return self.server.accepted

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(self.server.server_address[1])

    @property
    def base(self) -> str:
        return f"{'https' if self.tls else 'http'}://{self.host}:{self.port}"

    def url(self, path: str) -> str:
        return self.base + path

    def route(self, path: str, route: Route) -> None:
        self.routes[path] = route

    def paths(self) -> list[str]:
        return [s.path for s in self.seen]

    def start(self) -> Site:
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # TCP_NODELAY, as web servers set it on kept-alive connections: else an answer's
            # body, written after its head, waits for the client's delayed ACK (40 ms).
            disable_nagle_algorithm = True

            def do_GET(self) -> None:
                site.seen.append(Seen(self.path, {k.lower(): v for k, v in self.headers.items()}))
                route = site.routes.get(self.path)
                if route is None:
                    send(self, 404, b"not found", {"Content-Type": "text/plain"})
                    return
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    route(self)

            def log_message(self, fmt: str, *args: object) -> None:
                pass

        self.server = serve(Handler, self.host, self.tls)
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


class LoopbackService:
    """A threaded HTTP service of one handler class on a free port of 127.0.0.1."""

    url: str

    def _serve(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self._server = serve(handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def stop(self) -> None:
        """Stop serving and release the port."""
        self._server.shutdown()
        self._server.server_close()


def send(
    h: BaseHTTPRequestHandler,
    status: int,
    body: bytes = b"",
    headers: dict[str, str] | None = None,
) -> None:
    """Answer with a whole body and its true Content-Length."""
    h.send_response(status)
    for k, v in (headers or {}).items():
        h.send_header(k, v)
    h.send_header("Content-Length", str(len(body)))
    h.end_headers()
    h.wfile.write(body)


def reply(
    body: bytes | str = b"",
    status: int = 200,
    content_type: str = "application/xml",
    headers: dict[str, str] | None = None,
) -> Route:
    """A route that answers with a fixed body."""
    data = body.encode() if isinstance(body, str) else body
    all_headers = {"Content-Type": content_type, **(headers or {})}
    return lambda h: send(h, status, data, all_headers)


def file(path: Path, content_type: str, sent: Callable[[int], None] | None = None) -> Route:
    """A route that sends a file from disk with its true Content-Length, by sendfile (the site
    then costs the serving process, and so the audits' cores, little); `sent` is told each
    count of bytes that left, also when the client hangs up part way."""

    def route(h: BaseHTTPRequestHandler) -> None:
        size = path.stat().st_size
        h.send_response(200)
        h.send_header("Content-Type", content_type)
        h.send_header("Content-Length", str(size))
        h.end_headers()
        h.wfile.flush()
        with path.open("rb") as f:
            offset = 0
            try:
                while offset < size:
                    n = h.connection.sendfile(f, offset, min(1 << 20, size - offset))
                    if n == 0:
                        break
                    offset += n
                    if sent is not None:
                        sent(n)
            except OSError:
                h.close_connection = True  # the client hung up: what was sent is counted

    return route


def late(body: bytes | str, seconds: float) -> Route:
    """A route that answers with a fixed body after a pause (so other files are read first)."""
    now = reply(body)

    def route(h: Any) -> None:
        time.sleep(seconds)
        now(h)

    return route


def redirect(location: str, status: int = 302) -> Route:
    """A route that redirects."""
    return lambda h: send(h, status, b"", {"Location": location})


def stream(chunks: Iterable[bytes], content_type: str = "application/xml") -> Route:
    """A route that sends a body of unknown length, closing the connection at its end."""

    def route(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", content_type)
        h.send_header("Connection", "close")
        h.end_headers()
        for chunk in chunks:
            h.wfile.write(chunk)
        h.close_connection = True

    return route


def endless(chunk: bytes, limit_bytes: int) -> Route:
    """A body that goes on (up to limit_bytes, so a broken client cannot hang the test run)."""

    def chunks() -> Iterable[bytes]:
        sent = 0
        while sent < limit_bytes:
            yield chunk
            sent += len(chunk)

    return lambda h: stream(chunks())(h)


def drip(head: bytes, byte: bytes, interval: float, total_seconds: float) -> Route:
    """Send head, then one byte every interval seconds, for at most total_seconds."""

    def route(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/xml")
        h.send_header("Connection", "close")
        h.end_headers()
        h.wfile.write(head)
        h.wfile.flush()
        end = time.monotonic() + total_seconds
        while time.monotonic() < end:
            time.sleep(interval)
            h.wfile.write(byte)
            h.wfile.flush()
        h.close_connection = True

    return route


def slow_headers(interval: float, total_seconds: float) -> Route:
    """Send the status line, then header bytes one at a time, never finishing the headers."""

    def route(h: BaseHTTPRequestHandler) -> None:
        h.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
        h.wfile.flush()
        end = time.monotonic() + total_seconds
        while time.monotonic() < end:
            time.sleep(interval)
            h.wfile.write(b"a")
            h.wfile.flush()
        h.close_connection = True

    return route


def reset_after(body: bytes, content_length: int) -> Route:
    """Promise content_length bytes, send body, then reset the connection (RST)."""

    def route(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/xml")
        h.send_header("Content-Length", str(content_length))
        h.end_headers()
        h.wfile.write(body)
        h.wfile.flush()
        sock = h.connection
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
        h.close_connection = True

    return route


def raw(data: bytes) -> Route:
    """Write raw bytes as the whole answer (status line and headers included), then close."""

    def route(h: BaseHTTPRequestHandler) -> None:
        h.wfile.write(data)
        h.wfile.flush()
        h.close_connection = True

    return route


def robots_with(*lines: str) -> Route:
    """A robots.txt route: a catch-all group, then the given lines."""
    body = "User-agent: *\nDisallow:\n" + "".join(f"{x}\n" for x in lines)
    return reply(body, content_type="text/plain")
