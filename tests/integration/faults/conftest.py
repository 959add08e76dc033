"""Fault injection (tests/integration/faults): what a broken or hostile site serves, through the
real handler and fetcher.

Each case asserts what docs/contract.md implies (the issue strings, the CheckCodes, the status),
that the answer came back within its deadline (elapsed time, generous bounds) and, for big
bodies, that memory stayed bounded (tracemalloc peak). Where the 30 s deadline would make a
case slow, it runs through a Fetcher with a 1.5 s deadline and the probe functions the handler
calls.

No test here sends a byte off loopback: an autouse guard refuses (and records) every connection to
an address other than 127.0.0.1 and every look-up of a host name through the system's resolver,
and the network-safety matrix asserts that nothing was even attempted.
"""

from __future__ import annotations

import errno
import socket
from typing import Any

import pytest
from support.faults import Outbound

import sitemap_auditor.fetching.addresses as ng


@pytest.fixture(autouse=True)
def outbound(monkeypatch: pytest.MonkeyPatch) -> Outbound:
    """Refuse (and record) any connection to an address other than 127.0.0.1, the test servers',
    and any look-up of a host name through the system's resolver."""
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

    original_getaddrinfo = socket.getaddrinfo

    def no_dns(host: Any, *args: Any, **kwargs: Any) -> Any:
        # Literal addresses need no look-up; a name would send a query to the system's resolver.
        if host is None or ng.parse_ip_literal(str(host)) is not None:
            return original_getaddrinfo(host, *args, **kwargs)
        record.refused.append(f"dns:{host}")
        raise socket.gaierror(socket.EAI_NONAME, f"test guard: no look-up of {host}")

    monkeypatch.setattr(socket.socket, "connect", guarded)
    monkeypatch.setattr(socket, "getaddrinfo", no_dns)
    return record
