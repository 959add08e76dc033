"""The one table that maps what the HTTP stack raises to a fetch error kind."""

from __future__ import annotations

import http.client
import ssl
import time

import pytest
import requests
import urllib3

from sitemap_auditor.errors import FetchError, FetchErrorKind
from sitemap_auditor.guard import Guard
from sitemap_auditor.transport import classify, mapped_errors


def wrapped(inner: BaseException) -> BaseException:
    """As requests raises it: a ConnectionError around urllib3's error around the cause."""
    try:
        try:
            raise urllib3.exceptions.ProtocolError("Connection aborted.", inner)
        except urllib3.exceptions.ProtocolError as e:
            raise requests.exceptions.ConnectionError(e) from e
    except requests.exceptions.ConnectionError as outer:
        return outer


def live() -> Guard:
    return Guard(time.monotonic() + 3600, 3600)


@pytest.mark.parametrize(
    ("raised", "kind", "detail"),
    [
        (ssl.SSLError("bad"), FetchErrorKind.TLS, "SSLError"),
        (
            wrapped(ssl.SSLCertVerificationError("x")),
            FetchErrorKind.TLS,
            "SSLCertVerificationError",
        ),
        (TimeoutError(), FetchErrorKind.TIMEOUT, "TimeoutError"),
        (requests.exceptions.ReadTimeout(), FetchErrorKind.TIMEOUT, "ReadTimeout"),
        (wrapped(ConnectionResetError()), FetchErrorKind.CONNECTION_RESET, ""),
        (http.client.IncompleteRead(b""), FetchErrorKind.INCOMPLETE_BODY, ""),
        (wrapped(http.client.RemoteDisconnected("closed")), FetchErrorKind.CONNECTION_RESET, ""),
        (requests.exceptions.InvalidURL(), FetchErrorKind.INVALID_URL, ""),
        (urllib3.exceptions.LocationParseError("x"), FetchErrorKind.INVALID_URL, ""),
        (
            requests.exceptions.ChunkedEncodingError(),
            FetchErrorKind.BROKEN_BODY,
            "ChunkedEncodingError",
        ),
        (http.client.BadStatusLine("x"), FetchErrorKind.PROTOCOL, "BadStatusLine"),
        (ConnectionRefusedError(), FetchErrorKind.CONNECTION, "ConnectionRefusedError"),
    ],
)
def test_each_exception_maps_to_its_kind(
    raised: BaseException, kind: FetchErrorKind, detail: str
) -> None:
    error = classify(raised, live())
    assert (error.kind, error.detail) == (kind, detail)


def test_a_fetch_error_inside_the_chain_is_the_answer() -> None:
    refused = FetchError(FetchErrorKind.BLOCKED, "127.0.0.1 (loopback) for host h")
    assert classify(wrapped(refused), live()) is refused


def test_past_the_deadline_whatever_broke_is_a_timeout() -> None:
    guard = Guard(time.monotonic() + 3600, 3600)
    guard.expire()
    error = classify(wrapped(ConnectionResetError()), guard)
    assert error.kind is FetchErrorKind.TIMEOUT
    assert error.detail.startswith("no complete answer within")


def test_the_boundary_lets_fetch_errors_and_defects_through_unchanged() -> None:
    with pytest.raises(FetchError) as caught, mapped_errors(live()):
        raise OSError("down")
    assert caught.value.kind is FetchErrorKind.CONNECTION
    with pytest.raises(KeyError), mapped_errors(live()):
        raise KeyError("a defect is not a fetch error")
