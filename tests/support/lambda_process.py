"""The function in a warm Python process of its own, fed one event at a time, as Lambda runs it.

Its log lines and EMF documents are whatever it prints to standard output, with no test double
in between (tests/function/test_metrics.py and others read them).
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Invocation", "LambdaProcess"]

# A line the child prints after each invocation, followed by the JSON of the handler's return.
_MARK = "@@lambda-result@@ "

_CHILD = """
import json
import sys

from sitemap_auditor import handler
from sitemap_auditor.audit import probe

MARK = sys.argv[1]


class Context:
    def __init__(self, millis):
        self.millis = millis

    def get_remaining_time_in_millis(self):
        return self.millis


for line in sys.stdin:
    request = json.loads(line)
    if "modules" in request:
        reply = sorted(sys.modules)
    else:
        saved = probe.robots_txt
        if "defect" in request:
            def broken(*args, **kwargs):
                raise RuntimeError(request["defect"])
            probe.robots_txt = broken
        try:
            millis = request.get("remaining_ms")
            context = Context(millis) if millis is not None else None
            reply = handler.lambda_handler(request["event"], context)
        finally:
            probe.robots_txt = saved
    sys.stdout.write(MARK + json.dumps(reply) + "\\n")
    sys.stdout.flush()
"""


# Settings of the test process that must not leak into the function's environment.
@dataclass
class Invocation:
    """What one invocation returned and printed."""

    result: Any
    text: str  # standard output of this invocation, as printed
    lines: list[dict[str, Any]]  # each line of it, parsed (every line is a JSON document)

    @property
    def emf(self) -> list[dict[str, Any]]:
        """The EMF documents (lines with an `_aws` key)."""
        return [line for line in self.lines if "_aws" in line]

    @property
    def logs(self) -> list[dict[str, Any]]:
        """The log lines (everything but the EMF documents)."""
        return [line for line in self.lines if "_aws" not in line]

    def metrics(self) -> dict[str, list[float]]:
        """The metric values of the invocation's single EMF document, by name."""
        assert len(self.emf) == 1, f"expected one EMF document, got {len(self.emf)}"
        doc = self.emf[0]
        names = [m["Name"] for m in doc["_aws"]["CloudWatchMetrics"][0]["Metrics"]]
        return {name: doc[name] for name in names}

    def units(self) -> dict[str, str]:
        """The unit of each metric of the EMF document, by name."""
        doc = self.emf[0]
        return {m["Name"]: m["Unit"] for m in doc["_aws"]["CloudWatchMetrics"][0]["Metrics"]}


class LambdaProcess:
    """The handler in its own warm process: one event in, its result and standard output out."""

    def __init__(self, env: Mapping[str, str], timeout_s: float = 120.0) -> None:
        self.timeout_s = timeout_s
        self._stderr = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 -- closed in close()
        self._proc = subprocess.Popen(
            [sys.executable, "-c", _CHILD, _MARK],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=dict(env),
            text=True,
            encoding="utf-8",
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def stderr(self) -> str:
        """Everything the process wrote to standard error so far."""
        self._stderr.seek(0)
        return self._stderr.read()

    def _request(self, request: dict[str, Any]) -> tuple[Any, str]:
        assert self._proc.stdin is not None
        self._proc.stdin.write(json.dumps(request) + "\n")
        self._proc.stdin.flush()
        printed: list[str] = []
        while True:
            try:
                line = self._lines.get(timeout=self.timeout_s)
            except queue.Empty:
                raise AssertionError(f"no answer in {self.timeout_s} s: {self.stderr()}") from None
            if line is None:
                raise AssertionError(f"the function process ended: {self.stderr()}")
            if line.startswith(_MARK):
                return json.loads(line[len(_MARK) :]), "".join(printed)
            printed.append(line)

    def invoke(
        self, event: Any, *, defect: str | None = None, remaining_ms: int | None = None
    ) -> Invocation:
        """Run one event through lambda_handler; `defect` makes the audit raise that message."""
        request: dict[str, Any] = {"event": event, "remaining_ms": remaining_ms}
        if defect is not None:
            request["defect"] = defect
        result, text = self._request(request)
        lines = [json.loads(line) for line in text.splitlines()]
        return Invocation(result, text, lines)

    def modules(self) -> set[str]:
        """The names in the process's sys.modules."""
        names, _ = self._request({"modules": True})
        return set(names)

    def close(self) -> None:
        """End the process."""
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        self._stderr.close()

    def __enter__(self) -> LambdaProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
