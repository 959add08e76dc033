"""Helpers for the deep audit's tests: local sites, a resolver that answers loopback only."""

from __future__ import annotations

import errno
from collections.abc import Iterable
from typing import Any

from harness.servers import Site, reply
from sitemap_auditor import deep
from support.deep_schema import validated
from support.shared import CORPUS as SHARED_CORPUS

__all__ = [
    "SHARED_CORPUS",
    "corpus_file",
    "kinds_of",
    "local_only",
    "run",
    "serve_listed",
    "urlset_of",
]

SITEMAPS_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def local_only(host: str, port: int) -> list[str]:
    """Names of this machine only: localhost is 127.0.0.1, any other name does not resolve, so
    a real file's links to real hosts never leave the machine."""
    if host in ("localhost", "www.localhost"):
        return ["127.0.0.1"]
    raise OSError(errno.ENOENT, f"no look-up of {host} in this test")


def corpus_file(name: str) -> bytes:
    """A real file of the shared corpus, byte-exact."""
    found = sorted(SHARED_CORPUS.glob(f"*/{name}"))
    assert found, f"{name} is not in the shared corpus"
    return found[0].read_bytes()


def serve_listed(
    site: Site, files: dict[str, bytes], content_type: str = "application/xml"
) -> None:
    """Serve each file at its path, robots.txt listing the first."""
    first = next(iter(files))
    site.route(
        "/robots.txt",
        reply(
            f"User-agent: *\nDisallow:\nSitemap: {site.base}{first}\n", content_type="text/plain"
        ),
    )
    for path, body in files.items():
        site.route(path, reply(body, content_type=content_type))


def run(url: str, **limits: Any) -> dict[str, Any]:
    """The deep audit's document of url, on loopback."""
    options = deep.Options(
        allow_private_networks=True, resolver=local_only, limits=deep.Limits(**limits)
    )
    return validated(deep.audit(url, options=options))


def kinds_of(document: dict[str, Any], sitemap: str | None = None) -> dict[str, dict[str, Any]]:
    """The document's findings by kind (of one sitemap, when named)."""
    return {
        f["kind"]: f for f in document["findings"] if sitemap is None or f["sitemap"] == sitemap
    }


def urlset_of(entries: Iterable[str], extra_ns: str = "") -> bytes:
    """A <urlset> of the given <url> bodies."""
    head = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAPS_NS}"{extra_ns}>\n'
    body = "".join(f"<url>{e}</url>\n" for e in entries)
    return (head + body + "</urlset>\n").encode()


def with_head(body: bytes, head_bytes: int, content_type: str, last: str = "") -> bytes:
    """An answer of body whose header lines come to about head_bytes, each under http.client's
    64 KiB and fewer than its 100; `last` the final header line before the length."""
    lines = [f"X-Pad-{i}: {'p' * 60_000}\r\n" for i in range(head_bytes // 60_012)]
    rest = head_bytes - sum(map(len, lines)) - 200
    if rest > 0:
        lines.append(f"X-Pad-last: {'p' * rest}\r\n")
    head = f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n" + "".join(lines) + last
    return f"{head}Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body
