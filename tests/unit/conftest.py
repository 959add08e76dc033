"""The unit layer's promise, kept: no test here opens a socket or sleeps."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from typing import Any, NoReturn

import pytest


def _refused(what: str) -> Any:
    def refuse(*args: Any, **kwargs: Any) -> NoReturn:
        raise AssertionError(f"a unit test used {what}: it belongs in tests/integration")

    return refuse


@pytest.fixture(autouse=True)
def no_sockets_no_sleeps(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Make a socket or a sleep in a unit test fail loudly."""
    monkeypatch.setattr(socket.socket, "connect", _refused("a socket"))
    monkeypatch.setattr(socket.socket, "bind", _refused("a socket"))
    monkeypatch.setattr(socket, "create_connection", _refused("a socket"))
    monkeypatch.setattr(socket, "getaddrinfo", _refused("a name look-up"))
    monkeypatch.setattr(time, "sleep", _refused("a sleep"))
    yield
