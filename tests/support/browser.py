"""Headless Chromium driven through the DevTools protocol over a pipe (no port is opened), with the
network off: every host name resolves to nothing and every request that still leaves goes to a
recording proxy on 127.0.0.1, so a test can say that a page asked for nothing."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import queue
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

__all__ = ["Browser", "Page", "RecordingProxy", "chromium_path", "launch"]

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--proxy-bypass-list=<-loopback>",
    "--remote-debugging-pipe",
)

# What the page's own script cannot see: recorded before it runs, read by the test.
_WATCH = """
window.__violations = []; window.__alerts = [];
document.addEventListener("securitypolicyviolation",
  function (e) { window.__violations.push(e.violatedDirective + " " + e.blockedURI); });
window.alert = window.confirm = window.prompt = function (m) { window.__alerts.push(String(m)); };
"""


def chromium_path() -> str | None:
    """The Chromium binary (Debian's `chromium` package), or None when it is not installed."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _above_four(fd: int) -> int:
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return moved


class RecordingProxy:
    """A listener on 127.0.0.1 that records the first line of every request made to it."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._server.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    first = conn.recv(4096).split(b"\r\n", 1)[0]
                except OSError:
                    first = b"(no request line)"
                self.requests.append(first.decode("latin-1"))

    def close(self) -> None:
        self._server.close()


class Browser:
    """One Chromium process and its DevTools pipe."""

    def __init__(self, binary: str, profile: Path, proxy_port: int) -> None:
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # The child's ends move above 4, so that making them 3 and 4 overwrites neither.
        to_browser_r, from_browser_w = (_above_four(fd) for fd in (to_browser_r, from_browser_w))
        args = [binary, *FLAGS, f"--user-data-dir={profile}"]
        args.append(f"--proxy-server=http://127.0.0.1:{proxy_port}")
        # The protocol's pipe is the browser's descriptors 3 (commands) and 4 (answers).
        shell = (
            f'exec "$@" 3<&{to_browser_r} 4>&{from_browser_w} {to_browser_r}<&- {from_browser_w}>&-'
        )
        self.process = subprocess.Popen(
            ["bash", "-c", shell, "chromium", *args],
            pass_fds=(to_browser_r, from_browser_w),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=None if os.environ.get("REPORT_BROWSER_LOG") else subprocess.DEVNULL,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next = 0
        self._answers: dict[int, dict[str, Any]] = {}
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self._lock = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = os.read(self._from_browser, 1 << 20)
            except OSError:
                chunk = b""
            if not chunk:
                with self._lock:
                    self._lock.notify_all()
                return
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            for raw in messages:
                message = json.loads(raw)
                if "id" in message:
                    with self._lock:
                        self._answers[message["id"]] = message
                        self._lock.notify_all()
                else:
                    self.events.put(message)

    def call(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> dict[str, Any]:
        """Send one command and wait (at most 60 s) for its answer."""
        self._next += 1
        number = self._next
        message: dict[str, Any] = {"id": number, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + 60
        with self._lock:
            while number not in self._answers:
                left = deadline - time.monotonic()
                if left <= 0 or self.process.poll() is not None:
                    raise TimeoutError(f"no answer to {method}")
                self._lock.wait(left)
            answer = self._answers.pop(number)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        result: dict[str, Any] = answer.get("result", {})
        return result

    def page(self) -> Page:
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})
        return Page(self, session["sessionId"])

    def close(self) -> None:
        with suppress(OSError, RuntimeError, TimeoutError):
            self.call("Browser.close")
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        os.close(self._to_browser)
        os.close(self._from_browser)


class Page:
    """One tab: loads a file, answers questions about its DOM, takes screenshots."""

    def __init__(self, browser: Browser, session: str) -> None:
        self.browser = browser
        self.session = session
        self.requests: list[str] = []
        for domain in ("Page", "Network", "Runtime"):
            self.call(f"{domain}.enable")
        self.call("Page.addScriptToEvaluateOnNewDocument", {"source": _WATCH})

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.browser.call(method, params, self.session)

    def view(self, width: int, height: int = 900, dark: bool = False) -> None:
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )
        scheme = "dark" if dark else "light"
        self.call(
            "Emulation.setEmulatedMedia",
            {"features": [{"name": "prefers-color-scheme", "value": scheme}]},
        )

    def load(self, path: Path, timeout: float = 60) -> float:
        """Open the file and wait for its load event; the wall seconds it took."""
        self._drain()
        started = time.monotonic()
        self.call("Page.navigate", {"url": path.resolve().as_uri()})
        deadline = started + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{path} did not load")
            try:
                event = self.browser.events.get(timeout=left)
            except queue.Empty:
                continue
            self._note(event)
            if (
                event.get("method") == "Page.loadEventFired"
                and event.get("sessionId") == self.session
            ):
                return time.monotonic() - started

    def _note(self, event: dict[str, Any]) -> None:
        if event.get("method") == "Network.requestWillBeSent":
            self.requests.append(event["params"]["request"]["url"])

    def _drain(self) -> None:
        while True:
            try:
                self._note(self.browser.events.get_nowait())
            except queue.Empty:
                return

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (returned by value)."""
        answer = self.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in answer:
            raise RuntimeError(f"{expression[:80]}: {answer['exceptionDetails']}")
        self._drain()
        return answer["result"].get("value")

    def screenshot(self, scale: float = 1.0, full: bool = False) -> bytes:
        """The page as PNG: the viewport, or with `full` the whole page."""
        params: dict[str, Any] = {"format": "png"}
        if full or scale != 1.0:
            width, height = self.evaluate(
                "[document.documentElement.clientWidth, "
                "full ? document.documentElement.scrollHeight : innerHeight]".replace(
                    "full", "true" if full else "false"
                )
            )
            params["clip"] = {"x": 0, "y": 0, "width": width, "height": height, "scale": scale}
            params["captureBeyondViewport"] = full
        return base64.b64decode(self.call("Page.captureScreenshot", params)["data"])


@contextmanager
def launch(binary: str) -> Iterator[tuple[Browser, RecordingProxy]]:
    """A fresh browser with a fresh profile and the network off; closed afterwards."""
    proxy = RecordingProxy()
    with tempfile.TemporaryDirectory(prefix="report-browser-") as profile:
        browser = Browser(binary, Path(profile), proxy.port)
        try:
            yield browser, proxy
        finally:
            browser.close()
            proxy.close()


def main(argv: list[str]) -> int:
    """`python tests/support/browser.py REPORT.html OUT.png [WIDTH] [dark]`: a whole-page
    screenshot of a report, taken as the tests take theirs (for the README's picture)."""
    binary = chromium_path()
    if binary is None or len(argv) < 2:
        print(main.__doc__)
        return 64
    width = int(argv[2]) if len(argv) > 2 else 1280
    with launch(binary) as (browser, _):
        page = browser.page()
        page.view(width, 900, dark="dark" in argv[3:])
        page.load(Path(argv[0]))
        Path(argv[1]).write_bytes(page.screenshot(full=True))
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
