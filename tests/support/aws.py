"""The local AWS the tests talk to: moto's server on 127.0.0.1, boto3 pointed at it, and sites
that ask for Basic Auth."""

from __future__ import annotations

import base64
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from harness.environments import REGION, aws_environment
from harness.servers import Site, reply, send
from support.documents import urlset
from support.results import days_ago

__all__ = [
    "PREFIX",
    "basic",
    "guarded",
    "moto_server",
    "point_at",
    "protect",
    "secrets_client",
]

PREFIX = "sitemap-auditor/"  # the template's default SecretPrefix


@contextmanager
def moto_server() -> Iterator[str]:
    """moto's Secrets Manager (and the rest of moto) on a free port of 127.0.0.1; yield its URL."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()


def secrets_client(endpoint: str) -> Any:
    """A boto3 client of the local server, for the tests' own set-up."""
    import boto3

    return boto3.session.Session(
        aws_access_key_id="testing", aws_secret_access_key="testing", region_name=REGION
    ).client("secretsmanager", endpoint_url=endpoint)


def basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def guarded(expected: str, route: Callable[[BaseHTTPRequestHandler], None]) -> Any:
    """A route that answers 401 unless the request carries exactly this Authorization value."""

    def answer(h: BaseHTTPRequestHandler) -> None:
        if h.headers.get("Authorization") != expected:
            send(h, 401, b"authorization required", {"WWW-Authenticate": 'Basic realm="site"'})
        else:
            route(h)

    return answer


def protect(site: Site, expected: str) -> None:
    """Serve a fresh sitemap, listed in robots.txt, only to requests with these credentials."""
    robots = f"User-agent: *\nSitemap: {site.url('/sitemap.xml')}\n"
    site.route("/robots.txt", guarded(expected, reply(robots, content_type="text/plain")))
    site.route("/sitemap.xml", guarded(expected, reply(urlset([days_ago(1)]))))


def point_at(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point this process's AWS settings at the local server, and nothing else."""
    for key in list(os.environ):
        if key.startswith("AWS_"):
            monkeypatch.delenv(key)
    for key, value in aws_environment(endpoint).items():
        monkeypatch.setenv(key, value)
