"""The timeout a fetch's guard reports (the span the fetch was given, stated as given), and
which addresses it refuses where private networks are allowed."""

from __future__ import annotations

import time

from sitemap_auditor.core.errors import FetchError, FetchErrorKind
from sitemap_auditor.fetching.guard import Guard, Watchdog


def test_the_watchdog_holds_about_the_running_fetches_however_many_ended() -> None:
    watchdog = Watchdog()
    far = time.monotonic() + 3600
    running = [watchdog.watch(Guard(far, 1.0)) for _ in range(10)]
    for _ in range(100_000):
        watchdog.cancel(watchdog.watch(Guard(far, 1.0)))
    assert watchdog.held <= 2 * len(running) + 65
    for entry in running:
        watchdog.cancel(entry)
    assert watchdog.held <= 65


def test_a_site_limit_reads_as_given_however_late_the_guard_is_made() -> None:
    # The guard is made a little after the fetch started: its deadline is then nearer than the
    # limit, yet the message must not read "0.999 s" for a 1 s limit.
    started = time.monotonic() - 0.004
    guard = Guard(started + 1.0, 1.0)
    assert str(guard.timeout()) == "timeout: no complete answer within 1 s"


def test_the_audit_budget_reads_as_what_was_left_of_it() -> None:
    guard = Guard(time.monotonic() + 1.49, 1.4913, budget_bound=True)
    assert str(guard.timeout()) == "timeout: the audit ran out of time after 1.49 s"


def test_a_span_is_never_negative() -> None:
    # A budget already spent when the fetch starts.
    guard = Guard(time.monotonic() - 1.0, -1.0, budget_bound=True)
    assert str(guard.timeout()) == "timeout: the audit ran out of time after 0 s"


def _refusal(host: str, allow_private: bool, refuse_metadata: bool) -> str | None:
    """The guard's refusal of host, in words, or None when it may be connected to."""
    names = {"metadata.test": ["169.254.169.254"], "ten.test": ["10.0.0.1"]}
    guard = Guard(
        time.monotonic() + 5.0,
        5.0,
        resolver=lambda name, port: names[name],
        allow_private_networks=allow_private,
        refuse_metadata=refuse_metadata,
    )
    try:
        guard.checked_addresses(host, 80)
    except FetchError as e:
        assert e.kind is FetchErrorKind.BLOCKED
        return e.detail
    return None


def test_metadata_addresses_stay_refused_where_private_networks_are_allowed() -> None:
    # The page check's policy: a local site may be audited, the metadata services never reached.
    refused = {
        "169.254.169.254": "169.254.169.254 (link-local)",
        "169.254.170.2": "169.254.170.2 (link-local)",
        "2852039166": "169.254.169.254 (link-local)",
        "::ffff:169.254.169.254": "::ffff:a9fe:a9fe (link-local, embedded in IPv6)",
        "64:ff9b::a9fe:a9fe": "64:ff9b::a9fe:a9fe (link-local, embedded in IPv6)",
        # IPv4-compatible (::/96), IPv4-translated (::ffff:0:0:0/96, RFC 2765) and local-use
        # NAT64 (64:ff9b:1::/48, RFC 8215) carry it too.
        "::169.254.169.254": "::a9fe:a9fe (link-local, embedded in IPv6)",
        "::ffff:0:a9fe:a9fe": "::ffff:0:a9fe:a9fe (link-local, embedded in IPv6)",
        "64:ff9b:1::a9fe:a9fe": "64:ff9b:1::a9fe:a9fe (link-local, embedded in IPv6)",
        # The local-use prefix at RFC 6052's other lengths: /48, /56, /64.
        "64:ff9b:1:a9fe:a9:fe00::": "64:ff9b:1:a9fe:a9:fe00:: (link-local, embedded in IPv6)",
        "64:ff9b:1:a9:fe:a9fe::": "64:ff9b:1:a9:fe:a9fe:: (link-local, embedded in IPv6)",
        "64:ff9b:1:0:a9:fea9:fe00:0": "64:ff9b:1:0:a9:fea9:fe00:0 (link-local, embedded in IPv6)",
        "fe80::1": "fe80::1 (link-local)",
        "fd00:ec2::254": "fd00:ec2::254 (instance metadata)",
        "100.100.100.200": "100.100.100.200 (instance metadata)",
        "metadata.test": "169.254.169.254 (link-local)",
    }
    for host, words in refused.items():
        assert _refusal(host, True, True) == f"{words} for host {host}", host
    for host in ("127.0.0.1", "::1", "10.0.0.1", "192.168.1.5", "fd00::1", "ten.test"):
        assert _refusal(host, True, True) is None, host


def test_the_lambdas_allowance_still_lifts_every_refusal() -> None:
    # SITEMAP_ALLOW_PRIVATE_NETWORKS (docs/contract.md §4) leaves refuse_metadata False.
    for host in ("169.254.169.254", "fd00:ec2::254", "10.0.0.1", "metadata.test"):
        assert _refusal(host, True, False) is None, host
    # Without the allowance, refuse_metadata changes nothing: every non-public address is refused.
    assert _refusal("10.0.0.1", False, True) == "10.0.0.1 (private) for host 10.0.0.1"
    assert _refusal("169.254.169.254", False, False) == (
        "169.254.169.254 (link-local) for host 169.254.169.254"
    )


def test_every_range_the_registries_mark_not_global_is_refused() -> None:
    # IANA's special-purpose registries, where Python's flags lag behind them.
    refused = {
        "192.0.0.8": "not public",
        "192.0.0.200": "not public",
        "3fff::1": "documentation",
        "5f00::1": "reserved",  # SRv6 segment identifiers (RFC 9602): in Python's 4000::/3
        "64:ff9b::c000:8": "not public, embedded in IPv6",  # 192.0.0.8 through NAT64
        # The local-use prefix is private whatever it carries, at whichever length.
        "64:ff9b:1::a9fe:a9fe": "private",
        "64:ff9b:1:a9fe:a9:fe00::": "private",
        "64:ff9b:1:808:8:800::": "private",
    }
    for host, why in refused.items():
        detail = _refusal(host, False, False)
        assert detail is not None and detail.endswith(f"({why}) for host {host}"), host
    # Globally reachable: PCP and TURN anycast, and a public address through NAT64.
    for host in ("192.0.0.9", "192.0.0.10", "64:ff9b::808:808", "8.8.8.8", "2606:4700::1111"):
        assert _refusal(host, False, False) is None, host
