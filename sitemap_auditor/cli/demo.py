"""The demo site the package ships: a robots.txt and a gzipped sitemap, served on 127.0.0.1."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources

__all__ = ["serve"]


def _pages(base: str, today: date) -> dict[str, tuple[str, bytes]]:
    files = resources.files("sitemap_auditor.cli") / "demo_site"
    values = {
        "base": base,
        "today": today.isoformat(),
        "yesterday": (today - timedelta(days=1)).isoformat(),
    }
    robots = (files / "robots.txt").read_text("utf-8").format(**values)
    sitemap = (files / "sitemap.xml").read_text("utf-8").format(**values)
    return {
        "/robots.txt": ("text/plain; charset=utf-8", robots.encode()),
        # Served as a file, without Content-Encoding: the auditor finds the gzip by its magic bytes.
        "/sitemap.xml.gz": ("application/x-gzip", gzip.compress(sitemap.encode(), mtime=0)),
    }


@contextmanager
def serve(today: date | None = None) -> Iterator[str]:
    """Serve the demo site on 127.0.0.1 for the duration of the block; yield its base URL."""
    pages: dict[str, tuple[str, bytes]] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            page = pages.get(self.path)
            if page is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", page[0])
            self.send_header("Content-Length", str(len(page[1])))
            self.end_headers()
            self.wfile.write(page[1])

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass  # keep the demo's output to the result

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    pages.update(_pages(base, today or date.today()))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield base
    finally:
        server.shutdown()
        server.server_close()
