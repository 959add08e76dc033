"""The one table that maps what the HTTP stack raises to a fetch error kind."""

from __future__ import annotations

import builtins
import errno
import http.client
import os
import re
import ssl
import time

import pytest
import requests
import urllib3

from sitemap_auditor.core.errors import TRANSIENT_KINDS, FetchError, FetchErrorKind
from sitemap_auditor.fetching.guard import Guard, connect_failed
from sitemap_auditor.fetching.transport import classify, mapped_errors


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
    """A guard far from its deadline, given the usual 30 s."""
    return Guard(time.monotonic() + 3600, 30)


def cert_refused(message: str) -> ssl.SSLCertVerificationError:
    error = ssl.SSLCertVerificationError(
        1, "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed"
    )
    error.verify_message = message
    error.reason = "CERTIFICATE_VERIFY_FAILED"
    return error


def wrong_version() -> ssl.SSLError:
    error = ssl.SSLError(1, "[SSL: WRONG_VERSION_NUMBER] wrong version number")
    error.reason = "WRONG_VERSION_NUMBER"
    return error


# The details are words a site owner knows (issue texts show them), never an exception's name.
@pytest.mark.parametrize(
    ("raised", "kind", "detail"),
    [
        (ssl.SSLError("bad"), FetchErrorKind.TLS, "the TLS handshake failed"),
        (
            wrapped(wrong_version()),
            FetchErrorKind.TLS,
            "the TLS handshake failed (the server does not speak TLS on that port: plain HTTP?)",
        ),
        (
            wrapped(cert_refused("certificate has expired")),
            FetchErrorKind.TLS,
            "the site's certificate was not accepted: certificate has expired",
        ),
        (TimeoutError(), FetchErrorKind.TIMEOUT, "no complete answer within 30 s"),
        (
            requests.exceptions.ReadTimeout(),
            FetchErrorKind.TIMEOUT,
            "no complete answer within 30 s",
        ),
        (wrapped(ConnectionResetError()), FetchErrorKind.CONNECTION_RESET, ""),
        (http.client.IncompleteRead(b""), FetchErrorKind.INCOMPLETE_BODY, ""),
        (wrapped(http.client.RemoteDisconnected("closed")), FetchErrorKind.CONNECTION_RESET, ""),
        (requests.exceptions.InvalidURL(), FetchErrorKind.INVALID_URL, ""),
        (urllib3.exceptions.LocationParseError("x"), FetchErrorKind.INVALID_URL, ""),
        (
            requests.exceptions.ChunkedEncodingError(),
            FetchErrorKind.BROKEN_BODY,
            "the chunked body is broken",
        ),
        (
            http.client.BadStatusLine("x"),
            FetchErrorKind.PROTOCOL,
            "the answer does not follow HTTP",
        ),
        (ConnectionRefusedError(), FetchErrorKind.CONNECTION, "the connection was refused"),
        (
            BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE)),
            FetchErrorKind.CONNECTION,
            "broken pipe",
        ),
        (OSError("down"), FetchErrorKind.CONNECTION, "the connection failed"),
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


def test_no_detail_is_the_name_of_an_exception() -> None:
    """`fetch error (connect: ConnectionRefusedError)` told a site owner nothing."""
    names = {
        c.__name__
        for module in (builtins, ssl, http.client, requests.exceptions, urllib3.exceptions)
        for c in vars(module).values()
        if isinstance(c, type) and issubclass(c, BaseException)
    }
    raised: list[BaseException] = [
        ssl.SSLError("bad"),
        TimeoutError(),
        requests.exceptions.ChunkedEncodingError(),
        http.client.BadStatusLine("x"),
        http.client.LineTooLong("header line"),
        urllib3.exceptions.ProtocolError("x"),
        ConnectionRefusedError(),
        OSError(),
        UnicodeError(),
        requests.exceptions.RequestException(),
    ]
    for exc in raised:
        error = classify(exc, live())
        assert not set(re.findall(r"\w+", error.describe())) & names, (exc, error.describe())


def test_every_kind_has_its_row_and_the_transient_set_is_derived() -> None:
    for kind in FetchErrorKind:
        assert kind.words and kind.words == kind.words.strip()
        assert kind.issue_kind.value.startswith(("fetch-", "blocked-", "body-"))
    # docs/contract.md §7: timeouts, failed connections and look-ups say something of the moment.
    assert {
        FetchErrorKind.TIMEOUT,
        FetchErrorKind.DNS,
        FetchErrorKind.CONNECT,
        FetchErrorKind.CONNECTION,
        FetchErrorKind.CONNECTION_RESET,
        FetchErrorKind.INCOMPLETE_BODY,
    } == TRANSIENT_KINDS
    assert {k for k in FetchErrorKind if k.transient} == TRANSIENT_KINDS
    # The labels stay what issues and log queries have always matched.
    assert [k.label for k in FetchErrorKind] == [
        "timeout", "dns", "connect", "connection", "connection reset", "incomplete body", "tls",
        "blocked", "too-large", "invalid URL", "broken body", "protocol", "bad compressed data",
        "truncated compressed data", "unsupported Content-Encoding", "too many redirects",
        "redirect to another scheme",
    ]  # fmt: skip
    causes = {k for k in FetchErrorKind if k.cause is not None}
    assert causes == {
        FetchErrorKind.TIMEOUT,
        FetchErrorKind.DNS,
        FetchErrorKind.CONNECT,
        FetchErrorKind.TLS,
        FetchErrorKind.BLOCKED,
        FetchErrorKind.TOO_LARGE,
    }


def test_connect_failures_in_words() -> None:
    assert connect_failed(ConnectionRefusedError()) == "the connection was refused"
    assert connect_failed(TimeoutError()) == "the connection timed out"
    unreachable = OSError(errno.ENETUNREACH, os.strerror(errno.ENETUNREACH))
    assert connect_failed(unreachable) == "network is unreachable"
    assert connect_failed(None) == "no connection could be opened"
