"""The Lambda Runtime API (2018-06-01) on 127.0.0.1, and a function process that polls it.

What Lambda's own service does for a function, reduced to what the tests need: it hands out one
queued event per `GET /runtime/invocation/next`, with Lambda's headers, and records what the
runtime posts back (`.../response`, `.../error`, `/runtime/init/error`). The function process is
`python -m awslambdaric <handler>`, AWS's Python runtime interface client, the program AWS's Python
base images run, started with the variables Lambda sets.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import queue
import re
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from harness.servers import serve

VERSION = "2018-06-01"
HANDLER = "sitemap_auditor.handler.lambda_handler"
FUNCTION_NAME = "sitemap-auditor"
FUNCTION_ARN = f"arn:aws:lambda:us-east-1:123456789012:function:{FUNCTION_NAME}"
MEMORY_MB = "256"

_INVOCATION = re.compile(rf"^/{VERSION}/runtime/invocation/([^/]+)/(response|error)$")


@dataclass
class Invoke:
    """One invocation handed to the runtime: the event's bytes and the headers that came with it."""

    request_id: str
    body: bytes
    timeout_ms: int
    trace_id: str
    deadline_ms: int | None = None  # epoch milliseconds, set when the runtime takes the event


@dataclass
class Post:
    """One request the runtime sent to the API other than `next`."""

    kind: str  # "response", "error", "init-error" or "unexpected"
    path: str
    headers: dict[str, str]
    body: bytes
    request_id: str | None = None
    received_ms: int = field(default_factory=lambda: int(time.time() * 1000))

    def json(self) -> Any:
        return json.loads(self.body)


def trace_header() -> str:
    """A sampled X-Ray trace header as Lambda sends it, with a fresh trace id."""
    epoch = f"{int(time.time()):08x}"
    return f"Root=1-{epoch}-{uuid.uuid4().hex[:24]};Parent={uuid.uuid4().hex[:16]};Sampled=1"


class RuntimeAPI:
    """The Runtime API on a free port of 127.0.0.1; `address` goes into AWS_LAMBDA_RUNTIME_API."""

    def __init__(self) -> None:
        self._queue: queue.Queue[Invoke] = queue.Queue()
        self._invokes: dict[str, Invoke] = {}
        self._lock = threading.Condition()
        self._stopping = threading.Event()
        self.posts: list[Post] = []
        self.polls = 0  # GET .../next requests received
        self._server: ThreadingHTTPServer | None = None

    @property
    def address(self) -> str:
        assert self._server is not None
        return f"127.0.0.1:{self._server.server_address[1]}"

    def invoke(self, event: Any, *, timeout_ms: int = 150_000, raw: bytes | None = None) -> str:
        """Queue an event (or raw bytes as its body); return its request id."""
        body = raw if raw is not None else json.dumps(event).encode()
        item = Invoke(str(uuid.uuid4()), body, timeout_ms, trace_header())
        with self._lock:
            self._invokes[item.request_id] = item
        self._queue.put(item)
        return item.request_id

    def handed_out(self, request_id: str) -> Invoke:
        with self._lock:
            return self._invokes[request_id]

    def wait_for(self, request_id: str, timeout_s: float = 60.0) -> Post:
        """The response or error the runtime posted for this request."""
        return self._wait(lambda p: p.request_id == request_id, timeout_s, request_id)

    def wait_for_init_error(self, timeout_s: float = 60.0) -> Post:
        return self._wait(lambda p: p.kind == "init-error", timeout_s, "init error")

    def _wait(self, match: Any, timeout_s: float, what: str) -> Post:
        end = time.monotonic() + timeout_s
        with self._lock:
            while True:
                found = [p for p in self.posts if match(p)]
                if found:
                    return found[0]
                left = end - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"the runtime posted nothing for {what} in {timeout_s} s")
                self._lock.wait(min(left, 0.2))

    def _record(self, post: Post) -> None:
        with self._lock:
            self.posts.append(post)
            self._lock.notify_all()

    def _next(self) -> Invoke | None:
        """Block until an event is queued (or the API stops), as Lambda does between invocations."""
        while not self._stopping.is_set():
            try:
                item = self._queue.get(timeout=0.1)
            except queue.Empty:
                continue
            item.deadline_ms = int(time.time() * 1000) + item.timeout_ms
            return item
        return None

    def start(self) -> RuntimeAPI:
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _reply(self, status: int, payload: Any, headers: Mapping[str, str] = {}) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _body(self) -> bytes:
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    parts: list[bytes] = []
                    while True:
                        size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                        if size == 0:
                            self.rfile.readline()
                            return b"".join(parts)
                        parts.append(self.rfile.read(size))
                        self.rfile.readline()
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            def do_GET(self) -> None:
                if self.path != f"/{VERSION}/runtime/invocation/next":
                    api._record(Post("unexpected", self.path, dict(self.headers), b""))
                    self._reply(404, {"errorType": "NotFound", "errorMessage": self.path})
                    return
                with api._lock:
                    api.polls += 1
                item = api._next()
                if item is None:  # shutting down: the runtime never gets an answer
                    self.close_connection = True
                    return
                assert item.deadline_ms is not None
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Lambda-Runtime-Aws-Request-Id", item.request_id)
                self.send_header("Lambda-Runtime-Deadline-Ms", str(item.deadline_ms))
                self.send_header("Lambda-Runtime-Invoked-Function-Arn", FUNCTION_ARN)
                self.send_header("Lambda-Runtime-Trace-Id", item.trace_id)
                self.send_header("Content-Length", str(len(item.body)))
                self.end_headers()
                self.wfile.write(item.body)

            def do_POST(self) -> None:
                body = self._body()
                headers = dict(self.headers)
                if self.path == f"/{VERSION}/runtime/init/error":
                    api._record(Post("init-error", self.path, headers, body))
                    self._reply(202, {"status": "OK"})
                    return
                m = _INVOCATION.match(self.path)
                if m is None:
                    api._record(Post("unexpected", self.path, headers, body))
                    self._reply(404, {"errorType": "NotFound", "errorMessage": self.path})
                    return
                request_id, kind = m.groups()
                with api._lock:
                    known = request_id in api._invokes
                    repeated = any(p.request_id == request_id for p in api.posts)
                if not known or repeated:
                    api._record(Post("unexpected", self.path, headers, body, request_id))
                    self._reply(400, {"errorType": "InvalidRequestID", "errorMessage": request_id})
                    return
                api._record(Post(kind, self.path, headers, body, request_id))
                self._reply(202, {"status": "OK"})

            def log_message(self, fmt: str, *args: object) -> None:
                pass

        self._server = serve(Handler)
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()


def runtime_environment(
    api: RuntimeAPI, task_root: Path, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The variables Lambda gives a python3.13 function, pointed at this API and task root.

    Nothing of the test process's own environment goes in but PATH: no AWS settings, no proxies.
    The task root is the process's working directory, so it comes first on sys.path, as in Lambda.
    """
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "en_US.UTF-8",
        "TZ": ":UTC",
        "_HANDLER": HANDLER,
        "AWS_LAMBDA_RUNTIME_API": api.address,
        "LAMBDA_TASK_ROOT": str(task_root),
        "AWS_EXECUTION_ENV": "AWS_Lambda_python3.13",
        "AWS_LAMBDA_FUNCTION_NAME": FUNCTION_NAME,
        "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": MEMORY_MB,
        "AWS_LAMBDA_LOG_GROUP_NAME": f"/aws/lambda/{FUNCTION_NAME}",
        "AWS_LAMBDA_LOG_STREAM_NAME": "2026/11/30/[$LATEST]0123456789abcdef0123456789abcdef",
        "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand",
        "AWS_REGION": "us-east-1",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        # The template's settings (template.yaml, AuditorFunction's Environment).
        "POWERTOOLS_SERVICE_NAME": "sitemap-auditor",
        "POWERTOOLS_METRICS_NAMESPACE": "37Audits/SitemapAuditor",
        "POWERTOOLS_LOG_LEVEL": "INFO",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "SITEMAP_MAX_AGE_DAYS": "7",
        # The test sites live on loopback.
        "SITEMAP_ALLOW_PRIVATE_NETWORKS": "true",
    }
    env.update(extra or {})
    return env


class Function:
    """`python -m awslambdaric` against a RuntimeAPI: a Lambda execution environment."""

    def __init__(
        self,
        python: str | Path,
        env: Mapping[str, str],
        cwd: Path,
        args: Sequence[str] = (),
    ) -> None:
        self._out = tempfile.TemporaryFile()  # noqa: SIM115 -- closed in stop()
        self._err = tempfile.TemporaryFile()  # noqa: SIM115 -- closed in stop()
        self.proc = subprocess.Popen(
            [str(python), *args, "-m", "awslambdaric", env["_HANDLER"]],
            env=dict(env),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=self._out,
            stderr=self._err,
        )
        self.stdout = ""
        self.stderr = ""

    def stop(self, timeout_s: float = 10.0) -> int:
        """End the process (if still running) and keep what it printed."""
        if self._out.closed:
            return self.proc.wait()
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            code = self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        for name, f in (("stdout", self._out), ("stderr", self._err)):
            f.seek(0)
            setattr(self, name, f.read().decode("utf-8", errors="replace"))
            f.close()
        return code

    def wait_exit(self, timeout_s: float = 60.0) -> int | None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            return self.proc.wait(timeout_s)
        return None


_ids = itertools.count(1)


def run_id(label: str) -> str:
    """A run id unique in this test session."""
    return f"runtime-{label}-{next(_ids)}-{uuid.uuid4().hex[:8]}"
