"""The page check's connections, as real servers on 127.0.0.1 and the socket layer see them:
where they may go (never to a metadata or link-local address, even with private networks
allowed) and how many it opens (kept alive, not one a page).

No test here sends a byte off loopback: an autouse guard refuses (and records) every connection
to an address other than 127.0.0.1, before any packet, so that a regression shows as a recorded
attempt rather than as traffic.
"""

from __future__ import annotations

import errno
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.deep import urlset_of
from support.faults import Outbound

from harness.servers import Site, redirect, reply
from sitemap_auditor.cli import deep as deep_cli
from sitemap_auditor.deep.pages.store import PagesFile

PAGE = b"<!DOCTYPE html><html><head><title>Linen</title></head><body><p>Linen</p></body></html>"


@pytest.fixture(autouse=True)
def outbound(monkeypatch: pytest.MonkeyPatch) -> Outbound:
    """Refuse (and record) any connection to an address other than 127.0.0.1."""
    record = Outbound()
    original = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> None:
        host = str(address[0]) if isinstance(address, tuple) else str(address)
        if host == "127.0.0.1":
            record.allowed.append(host)
            original(self, address)
            return
        record.refused.append(host)
        raise ConnectionRefusedError(errno.ECONNREFUSED, f"test guard: no traffic to {host}")

    monkeypatch.setattr(socket.socket, "connect", guarded)
    return record


@pytest.fixture
def site() -> Iterator[Site]:
    s = Site().start()
    yield s
    s.stop()


def _listing(site: Site, paths: list[str]) -> None:
    site.route(
        "/robots.txt", reply(f"Sitemap: {site.url('/sitemap.xml')}\n", content_type="text/plain")
    )
    site.route("/sitemap.xml", reply(urlset_of(f"<loc>{site.url(p)}</loc>" for p in paths)))


def _deep_pages(
    site: Site, tmp_path: Path, capsys: pytest.CaptureFixture[str], *more: str
) -> tuple[int, dict[str, Any], dict[str, dict[str, Any]]]:
    """`deep --pages --allow-private-networks --json` in this process: the exit status, the
    document and the pages file's rows by path."""
    out = tmp_path / "pages.jsonl"
    argv = ["--allow-private-networks", "--pages", "--pages-out", str(out), "--json", *more]
    status = deep_cli.main([*argv, site.base + "/"])
    doc = json.loads(capsys.readouterr().out)
    rows = {r["url"].removeprefix(site.base): r for r in PagesFile.rows(str(out))}
    return status, doc, rows


# Where a listed page's redirect leads, and the address the guard names in refusing it. With
# --allow-private-networks the guard lets loopback and private ranges (10/8, 192.168/16, ...)
# through, for a site on the developer's own machine; the instance-metadata and link-local
# addresses stay refused for the page check whatever the option says.
METADATA_TARGETS = {
    "/aws": ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 (link-local)"),
    "/ecs": ("http://169.254.170.2/v2/credentials", "169.254.170.2 (link-local)"),
    "/decimal": ("http://2852039166/latest/meta-data/", "169.254.169.254 (link-local)"),
    "/mapped": (
        "http://[::ffff:169.254.169.254]/latest/",
        "::ffff:a9fe:a9fe (link-local, embedded in IPv6)",
    ),
    "/aws-v6": ("http://[fd00:ec2::254]/latest/meta-data/", "fd00:ec2::254 (instance metadata)"),
    "/link-local-v6": ("http://[fe80::1]/", "fe80::1 (link-local)"),
}


def test_a_redirect_to_a_metadata_address_is_a_redirect_error_and_never_connected(
    site: Site, tmp_path: Path, capsys: pytest.CaptureFixture[str], outbound: Outbound
) -> None:
    paths = ["/linen", *METADATA_TARGETS]
    _listing(site, paths)
    site.route("/linen", reply(PAGE, content_type="text/html"))
    for path, (target, _) in METADATA_TARGETS.items():
        site.route(path, redirect(target, 302))
    status, doc, rows = _deep_pages(site, tmp_path, capsys)
    assert rows["/linen"]["indexable"]
    for path, (target, refused) in METADATA_TARGETS.items():
        row = rows[path]
        assert (row["reason"], row["status"]) == ("page-redirect-error", None), path
        assert row["redirects"] == [{"status": 302, "location": target}]
        assert row["error"].startswith(f"blocked: {refused} for host "), row["error"]
    # Nothing was even attempted off loopback: the guard refused before any socket.
    assert outbound.refused == []
    assert set(outbound.allowed) == {"127.0.0.1"}
    (finding,) = doc["pages"]["findings"]
    assert (finding["kind"], finding["count"]) == ("page-redirect-error", len(METADATA_TARGETS))
    assert "169.254.169.254 (link-local)" in finding["message"]
    assert status == 2  # an error among the page findings
