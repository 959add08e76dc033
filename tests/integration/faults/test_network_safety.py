"""Network safety, end to end: every internal address, in every spelling and behind names,
refused wherever it appears.

Part of the fault injection of tests/integration/faults (its conftest.py guards the network).
"""

from __future__ import annotations

import errno
import ipaddress
from dataclasses import dataclass

import pytest
from support.documents import urlset
from support.faults import (
    FALLBACKS,
    FRESH,
    PRODUCTION,
    Outbound,
    fallback_404s,
    no_dns,
)
from support.results import AuditFn, codes_of, data_of

import sitemap_auditor.fetching.addresses as ng
from harness.servers import (
    Site,
    redirect,
    reply,
    robots_with,
)
from sitemap_auditor.core import urls


@dataclass(frozen=True)
class Internal:
    """A host spelling that names a non-public address, and the address it names."""

    host: str  # as written in a URL
    address: str  # as the issue names it
    reason: str  # why it is refused, as the issue says (without the monkeypatch)


INTERNAL = [
    Internal("127.0.0.2", "127.0.0.2", "loopback"),
    Internal("127.255.255.254", "127.255.255.254", "loopback"),
    Internal("[::1]", "::1", "loopback"),
    Internal("0.0.0.0", "0.0.0.0", "unspecified"),
    Internal("10.0.0.1", "10.0.0.1", "private"),
    Internal("10.255.255.254", "10.255.255.254", "private"),
    Internal("172.16.0.1", "172.16.0.1", "private"),
    Internal("172.31.255.254", "172.31.255.254", "private"),
    Internal("192.168.0.1", "192.168.0.1", "private"),
    Internal("169.254.169.254", "169.254.169.254", "link-local"),
    Internal("169.254.170.2", "169.254.170.2", "link-local"),
    Internal("100.64.0.1", "100.64.0.1", "not public"),
    Internal("100.127.255.254", "100.127.255.254", "not public"),
    Internal("[fc00::1]", "fc00::1", "private"),
    Internal("[fd00:ec2::254]", "fd00:ec2::254", "private"),
    Internal("[fe80::1]", "fe80::1", "link-local"),
    Internal("[::ffff:127.0.0.2]", "::ffff:7f00:2", "loopback, embedded in IPv6"),
    Internal("[::ffff:10.0.0.1]", "::ffff:a00:1", "private, embedded in IPv6"),
    Internal("[::ffff:169.254.169.254]", "::ffff:a9fe:a9fe", "link-local, embedded in IPv6"),
    # decimal, octal, hexadecimal and short IPv4 spellings
    Internal("2852039166", "169.254.169.254", "link-local"),
    Internal("167772161", "10.0.0.1", "private"),
    Internal("2130706434", "127.0.0.2", "loopback"),
    Internal("0251.0376.0251.0376", "169.254.169.254", "link-local"),
    Internal("012.0.0.1", "10.0.0.1", "private"),
    Internal("0177.0.0.2", "127.0.0.2", "loopback"),
    Internal("0xa9fea9fe", "169.254.169.254", "link-local"),
    Internal("0xa9.0xfe.0xa9.0xfe", "169.254.169.254", "link-local"),
    Internal("0x7f.0.0.2", "127.0.0.2", "loopback"),
    Internal("10.1", "10.0.0.1", "private"),
    Internal("169.254.43518", "169.254.169.254", "link-local"),
]
# Spellings of 127.0.0.1 itself, where the test servers listen: refused as the audited site.
LOOPBACK_ITSELF = [
    Internal("127.0.0.1", "127.0.0.1", "loopback"),
    Internal("2130706433", "127.0.0.1", "loopback"),
    Internal("017700000001", "127.0.0.1", "loopback"),
    Internal("0x7f000001", "127.0.0.1", "loopback"),
    Internal("0x7f.1", "127.0.0.1", "loopback"),
    Internal("127.1", "127.0.0.1", "loopback"),
    Internal("[::ffff:127.0.0.1]", "::ffff:7f00:1", "loopback, embedded in IPv6"),
]
# Host names whose (only, or one of their) addresses are internal, through a resolver we control.
NAMED = {
    "loopback.test": ["127.0.0.2"],
    "ipv6-loopback.test": ["::1"],
    "unspecified.test": ["0.0.0.0"],
    "ten.test": ["10.0.0.1"],
    "one-seven-two.test": ["172.16.0.1"],
    "one-nine-two.test": ["192.168.0.1"],
    "metadata.test": ["169.254.169.254"],
    "ecs-credentials.test": ["169.254.170.2"],
    "cgnat.test": ["100.64.0.1"],
    "ula.test": ["fc00::1"],
    "link-local-v6.test": ["fe80::1"],
    "mapped.test": ["::ffff:169.254.169.254"],
    "mixed.test": ["93.184.216.34", "10.0.0.1"],  # one public, one private: refused
}


def named_resolver(host: str, port: int) -> list[str]:
    if host in NAMED:
        return NAMED[host]
    raise OSError(errno.ENOENT, f"no such test host {host}")


def named_case(name: str) -> Internal:
    address = ipaddress.ip_address(NAMED[name][-1])
    reason = ng.blocked_reason(address)
    assert reason is not None
    return Internal(name, str(address), reason)


SPELLED_AND_NAMED = [*INTERNAL, *(named_case(n) for n in NAMED)]
ID = [c.host for c in SPELLED_AND_NAMED]


def read_host(host: str) -> str:
    """The host as the one reading of every fetched URL has it (docs/contract.md §8): the
    Standard's IPv4 and IPv6 forms, which is what the guard checked and names."""
    return urls.read(f"http://{host}/").host


def blocked(url: str, case: Internal) -> str:
    """The issue for url, refused because its host is case.host."""
    return f"{url}: blocked address {case.address} ({case.reason}) for host {read_host(case.host)}"


def assert_blocked(issue: str, url: str, case: Internal, host: str | None = None) -> None:
    """Like blocked(), the reason aside: the monkeypatched rule words embedded addresses its way."""
    assert issue.startswith(f"{url}: blocked address {case.address} (")
    assert issue.endswith(f") for host {host or read_host(case.host)}")


@pytest.fixture
def only_127_0_0_1_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Production's address rule, except that 127.0.0.1 (the test servers) may be reached."""
    original = ng.blocked_reason

    def rule(address: ng.IPAddress) -> str | None:
        return None if str(address) == "127.0.0.1" else original(address)

    monkeypatch.setattr(ng, "blocked_reason", rule)


def assert_no_traffic_off_loopback(outbound: Outbound) -> None:
    assert outbound.refused == []
    assert set(outbound.allowed) <= {"127.0.0.1"}


@pytest.mark.parametrize(
    "case",
    [*SPELLED_AND_NAMED, *LOOPBACK_ITSELF],
    ids=ID + [f"self-{c.host}" for c in LOOPBACK_ITSELF],
)
def test_an_internal_audited_site_is_refused(
    audit: AuditFn, site: Site, outbound: Outbound, case: Internal
) -> None:
    site.route("/robots.txt", robots_with("Sitemap: /sitemap.xml"))
    base = f"http://{case.host}:{site.port}"
    result = audit(base + "/page", settings=PRODUCTION, resolver=named_resolver)
    data = data_of(result)
    assert codes_of(result) == ["100", "400"]
    assert data["robotsTxtHttpStatus"] is None
    assert data["issues"] == [blocked(base + p, case) for p in ("/robots.txt", *FALLBACKS)]
    assert site.seen == []
    assert outbound.allowed == [] and outbound.refused == []


@pytest.mark.usefixtures("only_127_0_0_1_allowed")
@pytest.mark.parametrize("case", SPELLED_AND_NAMED, ids=ID)
def test_a_sitemap_line_to_an_internal_address_is_refused(
    audit: AuditFn, site: Site, outbound: Outbound, case: Internal
) -> None:
    from ada_url import URL

    written = f"http://{case.host}:{site.port}/sitemap.xml"
    site.route("/robots.txt", robots_with(f"Sitemap: {written}"))
    result = audit(site.url("/"), settings=PRODUCTION, resolver=named_resolver)
    data = data_of(result)
    assert codes_of(result) == ["100", "400"]
    assert data["robotsTxtListsSitemap"] is True
    # The candidate is the URL a browser makes of the value (docs/contract.md §4), which writes
    # legacy IPv4 spellings and IPv4 in IPv6 in their canonical forms.
    target = URL(written).href
    assert data["candidateSitemaps"] == [target]
    assert len(data["issues"]) == 1
    assert_blocked(data["issues"][0], target, case, URL(target).hostname.strip("[]"))
    assert site.paths() == ["/robots.txt"]
    assert_no_traffic_off_loopback(outbound)


@pytest.mark.usefixtures("only_127_0_0_1_allowed")
@pytest.mark.parametrize("scheme_relative", [False, True], ids=["absolute", "scheme-relative"])
@pytest.mark.parametrize("case", SPELLED_AND_NAMED, ids=ID)
def test_a_redirect_to_an_internal_address_is_refused(
    audit: AuditFn, site: Site, outbound: Outbound, case: Internal, scheme_relative: bool
) -> None:
    location = f"//{case.host}:{site.port}/landing.xml"
    site.route("/sitemap.xml", redirect(location if scheme_relative else "http:" + location))
    result = audit(site.url("/"), settings=PRODUCTION, resolver=named_resolver)
    data = data_of(result)
    assert codes_of(result) == ["100", "400"]
    assert data["issues"][0] == f"{site.url('/robots.txt')}: HTTP 404"
    assert_blocked(data["issues"][1], site.url("/sitemap.xml"), case)
    assert data["issues"][2:] == fallback_404s(site)[1:]
    assert "/landing.xml" not in site.paths()
    assert_no_traffic_off_loopback(outbound)


@pytest.mark.usefixtures("only_127_0_0_1_allowed")
@pytest.mark.parametrize("case", SPELLED_AND_NAMED, ids=ID)
def test_a_robots_redirect_to_an_internal_address_is_refused(
    audit: AuditFn, site: Site, outbound: Outbound, case: Internal
) -> None:
    site.route("/robots.txt", redirect(f"http://{case.host}:{site.port}/robots.txt"))
    site.route("/sitemap.xml", reply(urlset([FRESH])))
    result = audit(site.url("/"), settings=PRODUCTION, resolver=named_resolver)
    data = data_of(result)
    assert codes_of(result) == ["100", "200"]  # robots.txt gave no answer: no 302
    assert data["robotsTxtHttpStatus"] is None
    assert_blocked(data["issues"][0], site.url("/robots.txt"), case)
    assert site.paths() == ["/robots.txt", "/sitemap.xml"]
    assert_no_traffic_off_loopback(outbound)


@pytest.mark.parametrize("value", ["http://x]/s.xml", "http://[::1/s.xml", "//[zz]/s.xml"])
def test_a_sitemap_line_with_a_malformed_ipv6_host_is_skipped(
    audit: AuditFn, site: Site, value: str
) -> None:
    site.route("/robots.txt", robots_with(f"Sitemap: {value}", "Sitemap: /ok.xml"))
    site.route("/ok.xml", reply(urlset([FRESH])))
    result = audit(site.url("/"), resolver=no_dns)
    assert result["status"] == "SUCCESS"
    data = data_of(result)
    assert data["candidateSitemaps"] == [site.url("/ok.xml")]
    assert data["issues"][0].startswith(f"{site.url('/robots.txt')}: skipped Sitemap: value")


@pytest.mark.usefixtures("only_127_0_0_1_allowed")
def test_a_redirect_chain_is_checked_at_every_hop(
    audit: AuditFn, site: Site, other_site: Site, outbound: Outbound
) -> None:
    # Two allowed hops, then an internal one: refused there, nothing sent to it.
    site.route("/sitemap.xml", redirect(other_site.url("/hop1")))
    other_site.route("/hop1", redirect(site.url("/hop2")))
    site.route("/hop2", redirect("http://metadata.test/latest/meta-data/"))
    result = audit(site.url("/"), settings=PRODUCTION, resolver=named_resolver)
    assert data_of(result)["issues"][1] == (
        f"{site.url('/sitemap.xml')}: blocked address 169.254.169.254 (link-local) "
        "for host metadata.test"
    )
    assert site.paths()[:3] == ["/robots.txt", "/sitemap.xml", "/hop2"]
    assert_no_traffic_off_loopback(outbound)


def test_production_refuses_loopback_even_when_a_name_hides_it(
    audit: AuditFn, site: Site, outbound: Outbound
) -> None:
    def localhost_resolver(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]

    site.route("/robots.txt", robots_with())
    result = audit(
        f"http://localhost:{site.port}/", settings=PRODUCTION, resolver=localhost_resolver
    )
    assert all(
        "blocked address 127.0.0.1 (loopback) for host localhost" in i
        for i in data_of(result)["issues"]
    )
    assert site.seen == []
    assert outbound.allowed == []
