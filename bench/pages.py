"""The page check on a loopback site, beside advertools' list-mode crawl (issue 34, 7).

    .venv/bin/python -m pip install advertools     # the peer (make bench-deep installs it too)
    .venv/bin/python bench/pages.py                 # 10,000 pages, concurrency 16 and 64
    .venv/bin/python bench/pages.py --pages 200000 --only ours --concurrency 16   # memory

A site on 127.0.0.1, served by a process of its own (a threaded HTTP/1.1 server; pages are
generated from their number, nothing held): robots.txt, one <urlset> per 25,000 pages, and pages
in the issue's mix: indexable WordPress-like heads, 404s, 301s to another listed page, meta
noindex, X-Robots-Tag noindex, canonicals elsewhere, 500s. Each contender runs in a process of its
own, timed from its start to its exit; its CPU time and peak RSS come from the kernel (wait4).
Figures on a shared two-core machine are noisy: the server shares the cores with the contender.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

PER_SITEMAP = 25_000
HEAD = (
    '<!DOCTYPE html><html lang="en-US"><head><meta charset="UTF-8">'
    "<meta name='robots' content='{robots}' /><title>Page {n} &#8211; Site</title>"
    '<link rel="canonical" href="{canonical}" />'
    '<meta property="article:modified_time" content="2026-11-02T09:14:11+00:00" />'
    "</head><body>{body}</body></html>"
)
FILLER = "<p>" + "Lorem ipsum dolor sit amet. " * 200 + "</p>"  # about 6 KB of body


def kind_of(n: int) -> str:
    """The page's part of the mix, from its number."""
    r = n % 100
    if r < 80:
        return "ok"
    return (
        "404",
        "404",
        "301",
        "301",
        "301",
        "noindex",
        "noindex",
        "noindex",
        "header",
        "header",
        "canonical",
        "canonical",
        "canonical",
        "500",
        "500",
        "ok",
        "ok",
        "ok",
        "ok",
        "ok",
    )[r - 80]


def serve(pages: int) -> None:
    """Serve the site until killed; print the port."""
    site = {"base": ""}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # TCP_NODELAY, as web servers set it on kept-alive connections (nginx's tcp_nodelay):
        # else the body, written after the head, waits for the client's delayed ACK (40 ms).
        disable_nagle_algorithm = True

        def log_message(self, fmt: str, *args: object) -> None:
            pass

        def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            base = site["base"]
            path = self.path
            if path == "/robots.txt":
                lines = "".join(
                    f"Sitemap: {base}/sitemap-{i}.xml\n"
                    for i in range((pages + PER_SITEMAP - 1) // PER_SITEMAP)
                )
                self._send(200, ("User-agent: *\nDisallow:\n" + lines).encode(), {})
            elif path.startswith("/sitemap-"):
                i = int(path[9:-4])
                locs = "".join(
                    f"<url><loc>{base}/p/{n}</loc><lastmod>2026-11-02</lastmod></url>"
                    for n in range(i * PER_SITEMAP, min(pages, (i + 1) * PER_SITEMAP))
                )
                body = (
                    '<?xml version="1.0" encoding="UTF-8"?>'
                    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                    f"{locs}</urlset>"
                ).encode()
                self._send(200, body, {"Content-Type": "application/xml"})
            elif path.startswith("/p/"):
                n = int(path[3:])
                self._page(n, base)
            else:
                self._send(404, b"not found", {"Content-Type": "text/html"})

        def _page(self, n: int, base: str) -> None:
            kind = kind_of(n)
            own = f"{base}/p/{n}"
            html = {"Content-Type": "text/html; charset=UTF-8"}
            if kind == "404":
                self._send(404, b"<html><head><title>Not found</title></head></html>", html)
                return
            if kind == "500":
                self._send(500, b"error", html)
                return
            if kind == "301":
                # To a listed, indexable page (advertools gives the redirecting URL no row).
                self._send(301, b"", {"Location": f"/p/{n - n % 100}"})
                return
            robots = "noindex, follow" if kind == "noindex" else "index, follow"
            canonical = f"{base}/p/0" if kind == "canonical" else own
            body = HEAD.format(robots=robots, n=n, canonical=canonical, body=FILLER)
            headers = dict(html)
            if kind == "header":
                headers["X-Robots-Tag"] = "googlebot: noindex"
            self._send(200, body.encode(), headers)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.request_queue_size = 1024
    port = server.socket.getsockname()[1]
    site["base"] = f"http://127.0.0.1:{port}"
    print(port, flush=True)
    server.serve_forever()


def run_ours(base: str, pages: int, concurrency: int) -> None:
    """The page check, fed the site's listed URLs as the walk would hand them."""
    from sitemap_auditor.deep.pages.check import PageOptions, check_pages
    from sitemap_auditor.fetching.fetch import FetchPolicy

    def listed():  # type: ignore[no-untyped-def]
        for n in range(pages):
            yield f"{base}/p/{n}", f"{base}/sitemap-{n // PER_SITEMAP}.xml", "2026-11-02"

    port = int(base.rsplit(":", 1)[1])
    out = tempfile.mktemp(suffix=".jsonl")
    policy = FetchPolicy(origin=("http", "127.0.0.1", port), allow_private_networks=True)
    options = PageOptions(max_pages=0, concurrency=concurrency, max_seconds=3600, pages_out=out)
    summary = check_pages(listed, base + "/robots.txt", policy, options)
    doc = summary.document()
    rows = _lines(out)
    print(json.dumps({"rows": rows, "indexable": doc["indexable"], "byReason": doc["byReason"]}))


def run_advertools(base: str, pages: int, concurrency: int) -> None:
    """advertools' list-mode crawl (Scrapy) of the same URLs at the same concurrency."""
    import advertools as adv

    out = tempfile.mktemp(suffix=".jl")
    adv.crawl(
        [f"{base}/p/{n}" for n in range(pages)],
        out,
        follow_links=False,
        custom_settings={
            "CONCURRENT_REQUESTS": concurrency,
            "CONCURRENT_REQUESTS_PER_DOMAIN": concurrency,
            "LOG_LEVEL": "ERROR",
            # A host with a port is "offsite" to advertools' allowed domains: every row dropped.
            "DOWNLOADER_MIDDLEWARES": {
                "scrapy.downloadermiddlewares.offsite.OffsiteMiddleware": None
            },
        },
    )
    rows = _lines(out)
    print(json.dumps({"rows": rows}))


def _lines(path: str) -> int:
    """Rows written, and the file removed."""
    with open(path, encoding="utf-8") as f:
        rows = sum(1 for _ in f)
    os.unlink(path)
    return rows


def measure(argv: list[str]) -> dict[str, object]:
    """Run one contender in a process of its own: wall time, CPU time, peak RSS, its output."""
    start = time.monotonic()
    # advertools runs `scrapy` by name: the venv's bin first on PATH. wait4 counts the
    # contender's children it waited for (Scrapy's process) in its CPU time and peak RSS.
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**os.environ, "PATH": path}
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdout is not None
    output = proc.stdout.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    cpu = usage.ru_utime + usage.ru_stime
    lines = [x for x in output.splitlines() if x.startswith("{")]
    return {
        "ok": status == 0,
        "seconds": round(wall, 2),
        "cpu": round(cpu, 2),
        "peak_mib": round(usage.ru_maxrss / 1024, 1),
        "out": json.loads(lines[-1]) if lines else None,
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--pages", type=int, default=10_000)
    p.add_argument("--concurrency", type=int, action="append")
    p.add_argument("--only", choices=("ours", "advertools"))
    p.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--worker", nargs=3, metavar=("WHO", "BASE", "CONC"), help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.serve:
        serve(a.pages)
        return
    if a.worker:
        who, base, conc = a.worker
        (run_ours if who == "ours" else run_advertools)(base, a.pages, int(conc))
        return
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", "--pages", str(a.pages)], stdout=subprocess.PIPE
    )
    try:
        assert server.stdout is not None
        base = f"http://127.0.0.1:{int(server.stdout.readline())}"
        for conc in a.concurrency or [16, 64]:
            for who in ("ours", "advertools"):
                if a.only and who != a.only:
                    continue
                argv = [
                    sys.executable,
                    __file__,
                    "--pages",
                    str(a.pages),
                    "--worker",
                    who,
                    base,
                    str(conc),
                ]
                got = measure(argv)
                rows = (got["out"] or {}).get("rows", 0) if isinstance(got["out"], dict) else 0
                rate = rows / float(got["seconds"]) if got["seconds"] else 0.0  # type: ignore[arg-type]
                cpu_ms = 1000 * float(got["cpu"]) / rows if rows else 0.0  # type: ignore[arg-type]
                print(
                    f"| {who} | {conc} | {a.pages:,} | {rows:,} | {got['seconds']} | "
                    f"{rate:.0f} | {cpu_ms:.2f} | {got['peak_mib']} | {got['ok']} |",
                    flush=True,
                )
                print(json.dumps(got), file=sys.stderr, flush=True)
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    main()
