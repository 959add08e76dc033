"""Local DynamoDB servers for the sharing tests: dynalite, and a proxy that counts and throttles.

dynalite (npm, installed by `make test` into tests/dynalite) is an independent implementation of
DynamoDB that validates requests as DynamoDB does (key sizes, expressions, types), where moto is
lenient; the sharing tests run against both. The proxy sits in front of either: it counts each
operation, and can answer chosen calls with the error DynamoDB gives when it throttles an item.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.client import HTTPConnection
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from harness.servers import LoopbackService, free_port, wait_for

DYNALITE = Path(__file__).resolve().parent.parent / "dynalite" / "node_modules" / "dynalite"


def dynalite_available() -> bool:
    """True when node and the installed dynalite are there."""
    return shutil.which("node") is not None and (DYNALITE / "cli.js").exists()


@contextmanager
def dynalite(host: str = "127.0.0.1") -> Iterator[str]:
    """dynalite in a process of its own, in memory, on a free port; yield its URL."""
    if not dynalite_available():
        raise RuntimeError("dynalite is not installed: run `make test` (npm ci in tests/dynalite)")
    port = free_port(host)
    proc = subprocess.Popen(
        [
            "node",
            str(DYNALITE / "cli.js"),
            "--host",
            host,
            "--port",
            str(port),
            # Tables are ACTIVE at once, as the tests create one per test.
            "--createTableMs",
            "0",
            "--deleteTableMs",
            "0",
            "--updateTableMs",
            "0",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(host, port, proc)
        yield f"http://{host}:{port}"
    finally:
        proc.terminate()
        proc.wait(10)


THROTTLED = json.dumps(
    {
        "__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
        "message": "The level of configured provisioned throughput for the table was exceeded.",
    }
).encode()

# (operation, request body) -> True to answer this call as throttled
Throttle = Callable[[str, dict[str, Any]], bool]


class Proxy(LoopbackService):
    """A loopback endpoint in front of a DynamoDB server: counts calls, throttles chosen ones."""

    def __init__(self, backend: str, throttle: Throttle | None = None) -> None:
        self.backend = urlsplit(backend)
        self.throttle = throttle or (lambda op, body: False)
        self.calls: Counter[str] = Counter()
        self.throttled: Counter[str] = Counter()
        self.refused: Counter[str] = Counter()  # conditional writes whose condition failed
        self.reads: list[tuple[str, bool]] = []  # (operation, ConsistentRead) of each read
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                op = self.headers.get("X-Amz-Target", "").rsplit(".", 1)[-1]
                body = json.loads(raw or b"{}")
                with proxy._lock:
                    proxy.calls[op] += 1
                    if op == "GetItem":
                        proxy.reads.append((op, bool(body.get("ConsistentRead"))))
                    throttled = proxy.throttle(op, body)
                    if throttled:
                        proxy.throttled[op] += 1
                if throttled:
                    self._send(400, THROTTLED, "application/x-amz-json-1.0")
                    return
                host = proxy.backend.hostname or "127.0.0.1"
                conn = HTTPConnection(host, proxy.backend.port, timeout=10)
                headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
                conn.request("POST", self.path, raw, headers)
                answer = conn.getresponse()
                data = answer.read()
                conn.close()
                if answer.status == 400 and b"ConditionalCheckFailed" in data:
                    with proxy._lock:
                        proxy.refused[op] += 1
                self._send(
                    answer.status,
                    data,
                    answer.getheader("Content-Type") or "application/x-amz-json-1.0",
                )

            def _send(self, status: int, data: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, fmt: str, *args: object) -> None:
                pass

        self._serve(Handler)
