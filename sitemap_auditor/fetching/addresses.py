"""Network safety: which addresses the auditor may connect to (docs/contract.md §4)."""

from __future__ import annotations

import ipaddress
import socket

__all__ = [
    "METADATA_NETWORKS",
    "IPAddress",
    "blocked_reason",
    "metadata_reason",
    "parse_ip_literal",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Ranges Python's flags miss or that embed another address worth a second look.
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
# Older embeddings, long deprecated but still read by stacks that route them: IPv4-compatible
# (RFC 4291 §2.5.5.1; `::` and `::1` are no IPv4 address) and IPv4-translated (RFC 2765).
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_IPV4_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")
# Deprecated IPv6 site-local addresses (RFC 3879): still routed inside some networks, and Python
# counts them global (docs/contract.md §8).
_SITE_LOCAL = ipaddress.ip_network("fec0::/10")
# Ranges that IANA's special-purpose address registries mark not globally reachable and that
# Python's flags (3.11.7 and older) count global; one row a range, and why, in words.
_NOT_GLOBAL: tuple[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, str], ...] = (
    (ipaddress.ip_network("192.0.0.0/24"), "not public"),  # IETF protocol assignments
    (ipaddress.ip_network("3fff::/20"), "documentation"),  # RFC 9637
)
# In those ranges, what the registries mark globally reachable: PCP and TURN anycast (RFC 7723,
# RFC 8155).
_GLOBAL_IN_NOT_GLOBAL = frozenset(map(ipaddress.ip_address, ("192.0.0.9", "192.0.0.10")))


def parse_ip_literal(host: str) -> IPAddress | None:
    """Return the address a host string spells, including legacy IPv4 forms (0x7f.1, 2130706433)."""
    text = host.strip("[]")
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        pass
    if text and all(c in "0123456789abcdefxABCDEFX." for c in text):
        try:
            # inet_aton takes what resolvers and browsers take: decimal, octal, hex, short forms.
            return ipaddress.IPv4Address(socket.inet_aton(text))
        except OSError:
            return None
    return None


# Where cloud hosts serve instance metadata and container credentials: refused, for a caller
# that asks (FetchPolicy.refuse_metadata, the deep audit's page check), even where private
# networks are allowed for local development. One row a range: the range, and why, in words.
METADATA_NETWORKS: tuple[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, str], ...] = (
    # 169.254.169.254 (AWS, Google Cloud, Azure, ...), 169.254.170.2 (ECS and Lambda credentials)
    (ipaddress.ip_network("169.254.0.0/16"), "link-local"),
    (ipaddress.ip_network("fe80::/10"), "link-local"),
    (ipaddress.ip_network("fd00:ec2::254/128"), "instance metadata"),  # AWS, over IPv6
    (ipaddress.ip_network("100.100.100.200/32"), "instance metadata"),  # Alibaba Cloud
)


def _embedded(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries (mapped, 6to4, Teredo, NAT64, IPv4-compatible,
    IPv4-translated), if any. The local-use NAT64 prefix places it where its network's prefix
    length says (`_local_nat64_forms`): refused as private whatever it carries, checked against
    the metadata ranges at every placement."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    embedded = address.ipv4_mapped or address.sixtofour
    if embedded is None and address.teredo is not None:
        embedded = address.teredo[1]
    if embedded is None and (
        address in _NAT64
        or address in _IPV4_TRANSLATED
        or (address in _IPV4_COMPATIBLE and int(address) > 1)
    ):
        embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return embedded


def _local_nat64_forms(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses a local-use NAT64 address may carry: its network may use any of the
    prefix lengths RFC 6052 §2.2 allows within 64:ff9b:1::/48 (48, 56, 64 or 96 bits), each
    placing the address elsewhere, around the u octet (bits 64 to 71)."""
    b = address.packed
    return [
        ipaddress.IPv4Address(b[6:8] + b[9:11]),  # /48
        ipaddress.IPv4Address(b[7:8] + b[9:12]),  # /56
        ipaddress.IPv4Address(b[9:13]),  # /64
        ipaddress.IPv4Address(b[12:16]),  # /96
    ]


def metadata_reason(address: IPAddress) -> str | None:
    """Why address is a metadata or link-local one (METADATA_NETWORKS), in any spelling or
    embedding, or None when it is not."""
    embedded = _embedded(address)
    carried = [] if embedded is None else [embedded]
    if isinstance(address, ipaddress.IPv6Address) and address in _NAT64_LOCAL:
        carried = _local_nat64_forms(address)
    for inner_address in carried:
        inner = metadata_reason(inner_address)
        if inner is not None:
            return f"{inner}, embedded in IPv6"
    for network, why in METADATA_NETWORKS:
        if address.version == network.version and address in network:
            return why
    return None


def blocked_reason(address: IPAddress) -> str | None:
    """Return why an address is not public (loopback, private, ...), or None when it is public."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded(address)
        if embedded is not None:
            inner = blocked_reason(embedded)
            if inner is not None:
                return f"{inner}, embedded in IPv6"
            if address in _NAT64:
                return None  # a public IPv4 address through the NAT64 of an IPv6-only network
        if address in _NAT64_LOCAL:
            return "private"
        if address in _SITE_LOCAL:
            return "site-local"
    if address.is_loopback:
        return "loopback"
    if address.is_unspecified:
        return "unspecified"
    if address.is_link_local:
        return "link-local"
    if address.is_multicast:
        return "multicast"
    if address.is_private:
        return "private"
    if address.is_reserved:
        return "reserved"
    for network, why in _NOT_GLOBAL:
        in_range = address.version == network.version and address in network
        if in_range and address not in _GLOBAL_IN_NOT_GLOBAL:
            return why
    if not address.is_global:
        return "not public"  # shared (100.64/10), documentation, benchmarking ranges and the like
    return None
