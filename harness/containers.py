"""The other side of harness/share_worker.py: start a "container" of the function, and read
what it did.

Used by the sharing tests and by bench/share.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

WORKER = Path(__file__).parent / "share_worker.py"


def json_objects(line: str) -> Iterator[dict[str, Any]]:
    """The JSON objects of one line of a container's output.

    With many invocations at once in one process, a log line can land between an EMF document
    and its newline (print() writes them separately), so one line may hold two objects.
    """
    decoder = json.JSONDecoder()
    at = line.find("{")
    while at != -1:
        try:
            value, end = decoder.raw_decode(line, at)
        except ValueError:
            at = line.find("{", at + 1)
            continue
        if isinstance(value, dict):
            yield value
        at = line.find("{", end)


class Container:
    """A process of the function auditing URLs with threads; its results come back as JSON."""

    def __init__(self, env: dict[str, str], spec: dict[str, Any]) -> None:
        handle, self.out = tempfile.mkstemp(suffix=".json")
        os.close(handle)
        self.proc = subprocess.Popen(
            [sys.executable, str(WORKER), json.dumps({**spec, "out": self.out})],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
            encoding="utf-8",
        )
        self.lines: list[dict[str, Any]] = []
        self.ready = threading.Event()
        self.ready_at: float | None = None
        self._errors: list[str] = []
        self._readers = [
            threading.Thread(target=self._read, daemon=True),
            threading.Thread(target=self._read_errors, daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            for value in json_objects(line):
                if value.get("ready"):
                    self.ready_at = time.time()
                    self.ready.set()
                self.lines.append(value)

    def _read_errors(self) -> None:
        assert self.proc.stderr is not None
        self._errors = self.proc.stderr.read().splitlines()[-5:]

    def finish(self, timeout: float = 120) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """The answers, in order, and the CPU usage of the audits when the worker gave it."""
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        for reader in self._readers:
            reader.join(10)
        self._close_pipes()
        try:
            if self.proc.returncode != 0:
                raise RuntimeError(f"a container failed: {' / '.join(self._errors)[-400:]}")
            answers: list[dict[str, Any]] = json.loads(Path(self.out).read_text("utf-8"))
        finally:
            os.unlink(self.out)
        usage = next((x["usage"] for x in self.lines if "usage" in x), None)
        return answers, usage

    def answers(self, timeout: float = 120) -> list[dict[str, Any]]:
        """The answers, in order, once the process has ended."""
        return self.finish(timeout)[0]

    def logs(self) -> list[dict[str, Any]]:
        """The function's log lines."""
        return [x for x in self.lines if "message" in x]

    def finished_logs(self) -> list[dict[str, Any]]:
        """The "audit finished" lines of the timed audits (warm-up audits left out)."""
        return [
            x
            for x in self.logs()
            if x["message"] == "audit finished" and str(x.get("run_id", "")).startswith("run-")
        ]

    def _close_pipes(self) -> None:
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()

    def kill(self) -> None:
        """End the process at once, as a crashed or timed-out container ends."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        for reader in self._readers:
            reader.join(10)
        self._close_pipes()
        # Its answers will never come: leave no empty file behind.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.out)
