"""Every exception of the auditor, and which of them may leave it.

    Exception
    ├── ConfigError (ValueError)   a deployment setting is invalid: the function does not start.
    │                              The one error that leaves the handler (at import or first call).
    ├── SecretError (RuntimeError) a basicAuthSecretId cannot be read: the platform's ERROR
    │                              response, said plainly, without a stack trace.
    ├── FetchError                 a fetch could not be completed: part of the audit, it becomes an
    │                              issue (its kind a FetchErrorKind), never an exception outside.
    │                              One table gives each kind its label, words, issue kind, cause
    │                              line and whether it is transient (TRANSIENT_KINDS, derived).
    ├── StoreError                 the shared store failed, timed out or throttled: the audit goes
    │                              on by itself (docs/contract.md §7), with the same result.
    └── InvalidItemError           an item read from the shared store is not what the function
        (ValueError)               writes: it counts as no item (section 7), the audit goes on.

Any other exception is a defect: the handler turns it into the platform's ERROR response
(docs/contract.md §2). A few signals stay private to the module that raises and catches them: a
conditional write refused (dynamostore), an element refused inside expat's callbacks (parser), a
command line given something it cannot use (cli).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from sitemap_auditor.core.issues import Issue, Kind, issue

__all__ = [
    "MAX_BODY_BYTES",
    "TRANSIENT_KINDS",
    "ConfigError",
    "FetchError",
    "FetchErrorKind",
    "InvalidItemError",
    "SecretError",
    "StoreError",
]

# auditor-doc.md step 4: bodies up to 50 MB; docs/contract.md §4 fixes the number of bytes.
MAX_BODY_BYTES = 52_428_800


class ConfigError(ValueError):
    """A deployment setting is invalid; the function must not start with it."""


class SecretError(RuntimeError):
    """The secret named by `basicAuthSecretId` could not be turned into credentials."""


class StoreError(Exception):
    """A call to the shared store failed or timed out (`throttled`: it answered, but later)."""

    def __init__(self, op: str, detail: str, throttled: bool = False) -> None:
        super().__init__(f"{op}: {detail}")
        self.op = op
        self.detail = detail
        self.throttled = throttled


class InvalidItemError(ValueError):
    """An item read from the shared store whose shape, types, sizes or times are not what the
    function writes. Its message names the attribute or field and what is wrong with it, never
    what was read there, and is at most MAX_REASON_CHARS long: it is logged as it is."""

    MAX_REASON_CHARS = 200

    def __init__(self, reason: str) -> None:
        super().__init__(reason[: self.MAX_REASON_CHARS])

    @property
    def reason(self) -> str:
        """Why the item was refused."""
        return str(self.args[0])


class FetchErrorKind(StrEnum):
    """Why a fetch could not be completed, as issues and the `fetch_error` log field say it.

    Its value is its label, stable (the part of `fetch error (<label>: ...)` before the colon);
    everything else about a kind is in the one table below, `_KINDS`.
    """

    TIMEOUT = "timeout"
    DNS = "dns"
    CONNECT = "connect"
    CONNECTION = "connection"
    CONNECTION_RESET = "connection reset"
    INCOMPLETE_BODY = "incomplete body"
    TLS = "tls"
    BLOCKED = "blocked"
    TOO_LARGE = "too-large"
    INVALID_URL = "invalid URL"
    BROKEN_BODY = "broken body"
    PROTOCOL = "protocol"
    BAD_COMPRESSED_DATA = "bad compressed data"
    TRUNCATED_COMPRESSED_DATA = "truncated compressed data"
    UNSUPPORTED_ENCODING = "unsupported Content-Encoding"
    TOO_MANY_REDIRECTS = "too many redirects"
    OTHER_SCHEME = "redirect to another scheme"

    @property
    def label(self) -> str:
        """The kind as issues and log lines write it."""
        return self.value

    @property
    def words(self) -> str:
        """What happened, in words a site owner knows: an issue's detail when the network or
        the HTTP stack said no more than the name of an exception."""
        return _KINDS[self].words

    @property
    def issue_kind(self) -> Kind:
        """The kind of the issue this error gives."""
        return _KINDS[self].issue_kind

    @property
    def transient(self) -> bool:
        """True when it says something of this moment rather than of the site: a timeout, a
        failed connection or name look-up (docs/contract.md §7)."""
        return _KINDS[self].transient

    @property
    def cause(self) -> str | None:
        """What the command line's report says first of a FAIL whose every candidate failed
        this way, when that is not the sitemap's fault; None when the issues say enough."""
        return _KINDS[self].cause


@dataclass(frozen=True)
class _KindRow:
    words: str
    transient: bool
    issue_kind: Kind
    cause: str | None = None


_K = FetchErrorKind
# The one table of fetch error kinds: each kind's words, whether it is transient (a fetch a moment
# later may well succeed: facts holding one are not shared beyond their fetch's waiters), its
# issue kind (docs/operations.md, "Issue kinds"), and the command line's cause line.
_KINDS: dict[FetchErrorKind, _KindRow] = {
    _K.TIMEOUT: _KindRow(
        "the site gave no complete answer in time",
        True,
        Kind.FETCH_TIMEOUT,
        "the site gave no complete answer in time",
    ),
    _K.DNS: _KindRow(
        "the site's name could not be resolved",
        True,
        Kind.FETCH_DNS,
        "the site's host name did not resolve (DNS): check the URL's spelling, or the network",
    ),
    _K.CONNECT: _KindRow(
        "no connection could be opened",
        True,
        Kind.FETCH_CONNECT,
        "the site refused the connection, or none could be opened: is the server running, "
        "on that port?",
    ),
    _K.CONNECTION: _KindRow("the connection failed", True, Kind.FETCH_CONNECTION),
    _K.CONNECTION_RESET: _KindRow(
        "the site closed the connection", True, Kind.FETCH_CONNECTION_RESET
    ),
    _K.INCOMPLETE_BODY: _KindRow(
        "the body ended before its announced length", True, Kind.FETCH_INCOMPLETE_BODY
    ),
    _K.TLS: _KindRow(
        "the TLS handshake failed",
        False,
        Kind.FETCH_TLS,
        "the TLS handshake with the site failed (certificate or protocol)",
    ),
    _K.BLOCKED: _KindRow(
        "the address is not a public one",
        False,
        Kind.BLOCKED_ADDRESS,
        "every candidate is on a loopback or private address, which the auditor refuses by "
        "default: to audit a local server, add --allow-private-networks",
    ),
    _K.TOO_LARGE: _KindRow(
        f"the body is larger than {MAX_BODY_BYTES:,} bytes",
        False,
        Kind.BODY_TOO_LARGE,
        "the sitemap is larger than 50 MB, which the auditor does not read",
    ),
    _K.INVALID_URL: _KindRow("the URL cannot be requested", False, Kind.FETCH_INVALID_URL),
    _K.BROKEN_BODY: _KindRow("the chunked body is broken", False, Kind.FETCH_BROKEN_BODY),
    _K.PROTOCOL: _KindRow("the answer does not follow HTTP", False, Kind.FETCH_PROTOCOL),
    _K.BAD_COMPRESSED_DATA: _KindRow(
        "the compressed body does not decompress", False, Kind.FETCH_BAD_COMPRESSED_DATA
    ),
    _K.TRUNCATED_COMPRESSED_DATA: _KindRow(
        "the compressed body ends too soon", False, Kind.FETCH_TRUNCATED_COMPRESSED_DATA
    ),
    _K.UNSUPPORTED_ENCODING: _KindRow(
        "a Content-Encoding the auditor does not decode", False, Kind.FETCH_UNSUPPORTED_ENCODING
    ),
    _K.TOO_MANY_REDIRECTS: _KindRow("too many redirects", False, Kind.FETCH_TOO_MANY_REDIRECTS),
    _K.OTHER_SCHEME: _KindRow(
        "a redirect to a scheme other than http or https", False, Kind.FETCH_OTHER_SCHEME
    ),
}
# Derived from the table: the kinds that make facts transient (docs/contract.md §7).
TRANSIENT_KINDS = frozenset(k for k, row in _KINDS.items() if row.transient)


class FetchError(Exception):
    """A fetch that could not be completed; part of the audit, not a defect."""

    def __init__(self, kind: FetchErrorKind, detail: str = "") -> None:
        super().__init__(f"{kind.label}: {detail}" if detail else kind.label)
        self.kind = kind
        self.detail = detail

    @property
    def transient(self) -> bool:
        """True when the same fetch a moment later may well succeed."""
        return self.kind.transient

    def describe(self) -> str:
        """A short phrase for the data map's issues."""
        if self.kind is FetchErrorKind.BLOCKED:
            return f"blocked address {self.detail}"
        if self.kind is FetchErrorKind.TOO_LARGE:
            return f"body larger than {MAX_BODY_BYTES:,} bytes{self.detail}"
        label = self.kind.label
        return f"fetch error ({label}{': ' + self.detail if self.detail else ''})"

    def issue(self, url: str) -> Issue:
        """The issue this error gives the URL it was about."""
        return issue(url, self.kind.issue_kind, self.describe())
