"""Every exception of the auditor, and which of them may leave it.

    Exception
    ├── ConfigError (ValueError)   a deployment setting is invalid: the function does not start.
    │                              The one error that leaves the handler (at import or first call).
    ├── SecretError (RuntimeError) a basicAuthSecretId cannot be read: the platform's ERROR
    │                              response, said plainly, without a stack trace.
    ├── FetchError                 a fetch could not be completed: part of the audit, it becomes an
    │                              issue (its kind a FetchErrorKind), never an exception outside.
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

from enum import StrEnum

from .issues import Issue, Kind, issue

__all__ = [
    "MAX_BODY_BYTES",
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
    """Why a fetch could not be completed, as issues and the `fetch_error` log field say it."""

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
    def issue_kind(self) -> Kind:
        """The kind of the issue this error gives."""
        return _ISSUE_KINDS[self]

    @property
    def transient(self) -> bool:
        """True when it says something of this moment rather than of the site: a timeout, a
        failed connection or name look-up (docs/contract.md §7)."""
        return self in _TRANSIENT


_TRANSIENT = frozenset(
    {
        FetchErrorKind.TIMEOUT,
        FetchErrorKind.DNS,
        FetchErrorKind.CONNECT,
        FetchErrorKind.CONNECTION,
        FetchErrorKind.CONNECTION_RESET,
        FetchErrorKind.INCOMPLETE_BODY,
    }
)
_ISSUE_KINDS = {
    FetchErrorKind.TIMEOUT: Kind.FETCH_TIMEOUT,
    FetchErrorKind.DNS: Kind.FETCH_DNS,
    FetchErrorKind.CONNECT: Kind.FETCH_CONNECT,
    FetchErrorKind.CONNECTION: Kind.FETCH_CONNECTION,
    FetchErrorKind.CONNECTION_RESET: Kind.FETCH_CONNECTION_RESET,
    FetchErrorKind.INCOMPLETE_BODY: Kind.FETCH_INCOMPLETE_BODY,
    FetchErrorKind.TLS: Kind.FETCH_TLS,
    FetchErrorKind.BLOCKED: Kind.BLOCKED_ADDRESS,
    FetchErrorKind.TOO_LARGE: Kind.BODY_TOO_LARGE,
    FetchErrorKind.INVALID_URL: Kind.FETCH_INVALID_URL,
    FetchErrorKind.BROKEN_BODY: Kind.FETCH_BROKEN_BODY,
    FetchErrorKind.PROTOCOL: Kind.FETCH_PROTOCOL,
    FetchErrorKind.BAD_COMPRESSED_DATA: Kind.FETCH_BAD_COMPRESSED_DATA,
    FetchErrorKind.TRUNCATED_COMPRESSED_DATA: Kind.FETCH_TRUNCATED_COMPRESSED_DATA,
    FetchErrorKind.UNSUPPORTED_ENCODING: Kind.FETCH_UNSUPPORTED_ENCODING,
    FetchErrorKind.TOO_MANY_REDIRECTS: Kind.FETCH_TOO_MANY_REDIRECTS,
    FetchErrorKind.OTHER_SCHEME: Kind.FETCH_OTHER_SCHEME,
}


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
