"""Redirects: loops on one origin and across two, malformed targets, invalid IPv6 hosts.

Part of the fault injection of tests/integration/faults (its conftest.py guards the network).
"""

from __future__ import annotations

import pytest
from support.faults import (
    FALLBACKS,
    cost,
    no_dns,
)
from support.results import AuditFn, codes_of, data_of

from harness.servers import (
    Site,
    redirect,
)


def test_redirect_loops_everywhere_fail_fast(audit: AuditFn, site: Site) -> None:
    for path in ("/robots.txt", *FALLBACKS):
        site.route(path, redirect(path))
    with cost() as c:
        result = audit(site.url("/"))
    data = data_of(result)
    assert codes_of(result) == ["100", "400"]
    assert data["robotsTxtHttpStatus"] is None
    assert data["issues"] == [
        f"{site.url(p)}: fetch error (too many redirects: more than 10)"
        for p in ("/robots.txt", *FALLBACKS)
    ]
    assert len(site.seen) == 4 * 11
    assert c.seconds < 10


def test_a_redirect_loop_between_two_origins(audit: AuditFn, site: Site, other_site: Site) -> None:
    site.route("/sitemap.xml", redirect(other_site.url("/bounce")))
    other_site.route("/bounce", redirect(site.url("/sitemap.xml")))
    result = audit(site.url("/"))
    assert data_of(result)["issues"][1] == (
        f"{site.url('/sitemap.xml')}: fetch error (too many redirects: more than 10)"
    )
    assert len(other_site.seen) == 5


@pytest.mark.parametrize(
    ("location", "kind"),
    [
        ("http://[::1]:abc/", "invalid URL"),
        ("http://x:99999/", "invalid URL"),
        ("http://[v1.x]/", "invalid URL"),
        ("http://exa mple.com/", "invalid URL"),
        ("http://%/", "invalid URL"),
        ("https://:80/", "invalid URL"),
        # No host, as browsers read it (docs/contract.md §8), not the URL itself again.
        ("http://", "invalid URL"),
        ("\x00\x01", "too many redirects: more than 10"),
        ("ftp://127.0.0.1/", "redirect to another scheme: ftp"),
        ("javascript:alert(1)", "redirect to another scheme: javascript"),
    ],
)
def test_malformed_redirect_targets_are_fetch_errors(
    audit: AuditFn, site: Site, location: str, kind: str
) -> None:
    site.route("/sitemap.xml", redirect(location))
    result = audit(site.url("/"), resolver=no_dns)
    assert codes_of(result) == ["100", "400"]
    assert data_of(result)["issues"][1] == f"{site.url('/sitemap.xml')}: fetch error ({kind})"


@pytest.mark.parametrize("location", ["http://[::1", "http://[", "http://]/", "//[zz]/"])
@pytest.mark.parametrize("path", ["/robots.txt", "/sitemap.xml"])
def test_a_redirect_to_an_invalid_ipv6_host_is_a_fetch_error(
    audit: AuditFn, site: Site, location: str, path: str
) -> None:
    site.route(path, redirect(location))
    result = audit(site.url("/"), resolver=no_dns)
    assert result["checks"] is not None
    assert any(i.startswith(f"{site.url(path)}: fetch error (") for i in data_of(result)["issues"])
