"""Network safety (docs/contract.md §4): non-public addresses are refused before any connection."""

from __future__ import annotations

import ipaddress

import pytest
from support.documents import urlset
from support.results import AuditFn, data_of

from harness.servers import Site, redirect, reply
from sitemap_auditor.audit.config import Settings
from sitemap_auditor.core.errors import FetchError
from sitemap_auditor.fetching.addresses import blocked_reason, parse_ip_literal
from sitemap_auditor.fetching.fetch import Fetcher, FetchPolicy

PRODUCTION = Settings(max_age_days=7, allow_private_networks=False, share_seconds=0)

BLOCKED = [
    "127.0.0.1",
    "127.255.255.254",
    "::1",
    "0.0.0.0",
    "::",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",  # instance metadata
    "169.254.170.2",  # ECS/Lambda container credentials
    "100.64.0.1",
    "100.127.255.254",
    "fc00::1",
    "fd00:ec2::254",  # instance metadata over IPv6
    "fe80::1",
    "fec0::1",  # deprecated site-local (docs/contract.md §8), which Python counts global
    "feff:ffff::1",
    "::ffff:127.0.0.1",
    "::ffff:169.254.169.254",
    "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
    "2002:7f00:1::",  # 6to4 of 127.0.0.1
    "224.0.0.1",
    "ff02::1",
    "240.0.0.1",
    "255.255.255.255",
    "192.0.2.1",
    "198.18.0.1",
]


@pytest.mark.parametrize("address", BLOCKED)
def test_non_public_addresses_are_blocked(address: str) -> None:
    assert blocked_reason(ipaddress.ip_address(address)) is not None


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "93.184.216.34"])
def test_public_addresses_pass(address: str) -> None:
    assert blocked_reason(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(
    ("spelling", "address"),
    [
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("017700000001", "127.0.0.1"),
        ("0x7f.0.0.1", "127.0.0.1"),
        ("0177.0.0.01", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("0xa9.0xfe.0xa9.0xfe", "169.254.169.254"),
        ("2852039166", "169.254.169.254"),
        ("[::ffff:7f00:1]", "127.0.0.1"),
    ],
)
def test_legacy_ipv4_spellings_are_read_as_addresses(spelling: str, address: str) -> None:
    parsed = parse_ip_literal(spelling)
    assert parsed is not None
    mapped = getattr(parsed, "ipv4_mapped", None) or parsed
    assert str(mapped) == address
    assert blocked_reason(parsed) is not None


def test_host_names_are_not_literals() -> None:
    assert parse_ip_literal("example.com") is None
    assert parse_ip_literal("deadbeef.example") is None


class RecordingResolver:
    """A resolver under the test's control: names to addresses, every call recorded."""

    def __init__(self, answers: dict[str, list[list[str]]]) -> None:
        self.answers = answers
        self.calls: list[str] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.calls.append(host)
        queue = self.answers[host]
        return queue.pop(0) if len(queue) > 1 else queue[0]


@pytest.mark.parametrize(
    "addresses",
    [["127.0.0.1"], ["10.0.0.7"], ["169.254.169.254"], ["8.8.8.8", "192.168.0.10"], ["::1"]],
)
def test_a_name_resolving_to_any_non_public_address_is_refused(addresses: list[str]) -> None:
    resolver = RecordingResolver({"evil.test": [addresses]})
    f = Fetcher(FetchPolicy(origin=("http", "evil.test", 80), resolver=resolver))
    with pytest.raises(FetchError) as e, f.open("http://evil.test/sitemap.xml"):
        pass
    assert e.value.kind == "blocked"
    assert resolver.calls == ["evil.test"]


def test_each_hop_resolves_once_and_connects_to_the_checked_address(site: Site) -> None:
    # DNS rebinding: the first answer is the one checked and connected to; a later,
    # different answer for the same name is never used within that hop.
    site.route("/a", reply("ok", content_type="text/plain"))
    resolver = RecordingResolver({"rebind.test": [["127.0.0.1"], ["10.9.9.9"]]})
    f = Fetcher(
        FetchPolicy(
            origin=("http", "rebind.test", site.port),
            resolver=resolver,
            allow_private_networks=True,
        )
    )
    with f.open(f"http://rebind.test:{site.port}/a") as resp:
        assert resp.status == 200 and b"".join(resp.body()) == b"ok"
    assert resolver.calls == ["rebind.test"]
    assert site.seen[0].headers["host"] == f"rebind.test:{site.port}"


def test_audited_site_on_a_private_address_is_refused(audit: AuditFn, site: Site) -> None:
    site.route("/robots.txt", reply("Sitemap: /s.xml", content_type="text/plain"))
    result = audit(site.url("/"), settings=PRODUCTION)
    assert site.seen == []
    data = data_of(result)
    assert result["status"] == "FAIL"
    assert data["robotsTxtHttpStatus"] is None
    assert data["issues"][0] == (
        f"{site.base}/robots.txt: blocked address 127.0.0.1 (loopback) for host 127.0.0.1"
    )
    assert all("blocked address" in i for i in data["issues"])


@pytest.mark.parametrize(
    "host", ["169.254.169.254", "2130706433", "0x7f.1", "[::1]", "[::ffff:a9fe:a9fe]", "10.0.0.1"]
)
def test_audited_url_spelled_as_an_internal_address(audit: AuditFn, host: str) -> None:
    result = audit(f"http://{host}/latest/meta-data/", settings=PRODUCTION)
    data = data_of(result)
    assert result["status"] == "FAIL"
    assert len(data["issues"]) == 4
    assert all("blocked address" in i for i in data["issues"])


def test_sitemap_line_and_redirect_to_internal_addresses_are_refused(
    audit: AuditFn, site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The site itself is public (by the test's resolver) and may be fetched; what it points at
    # is not. The site's server listens on 127.0.0.1, so "public" is simulated by the resolver.
    resolver = RecordingResolver(
        {
            "site.test": [["127.0.0.1"]],
            "metadata.test": [["169.254.169.254"]],
        }
    )
    site.route(
        "/robots.txt",
        reply(
            "Sitemap: http://metadata.test/latest/\nSitemap: /redirect.xml\n",
            content_type="text/plain",
        ),
    )
    site.route("/redirect.xml", redirect("http://10.0.0.1/internal.xml"))

    # Allow loopback for the site only: a policy that blocks what is not 127.0.0.1.
    import sitemap_auditor.fetching.addresses as ng

    original = ng.blocked_reason

    def only_loopback_allowed(address: ng.IPAddress) -> str | None:
        return None if str(address) == "127.0.0.1" else original(address)

    monkeypatch.setattr(ng, "blocked_reason", only_loopback_allowed)
    result = audit(f"http://site.test:{site.port}/", settings=PRODUCTION, resolver=resolver)
    issues = data_of(result)["issues"]
    assert issues == [
        "http://metadata.test/latest/: blocked address 169.254.169.254 (link-local) "
        "for host metadata.test",
        f"http://site.test:{site.port}/redirect.xml: blocked address 10.0.0.1 (private) "
        "for host 10.0.0.1",
    ]
    assert result["status"] == "FAIL"


def test_allow_private_networks_lifts_the_rule(audit: AuditFn, site: Site) -> None:
    site.route("/sitemap.xml", reply(urlset(["2026-01-01"])))
    result = audit(site.url("/"))
    assert data_of(result)["selectedSitemapUrl"] == site.url("/sitemap.xml")
