"""Request headers a user adds to every request of a deep audit (`--user-agent`, `--header`):
read and checked once, as values; which of them are credentials.

Pure: no I/O. The fetcher (fetching/fetch.py) sends them, a credential one only to the site's
own origin, by the same rule as Basic Auth.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

from sitemap_auditor.core.credentials import echoed_forms

__all__ = [
    "CREDENTIAL_HEADERS",
    "MAX_HEADERS",
    "MAX_HEADER_CHARS",
    "MIN_TOKEN_CHARS",
    "NO_EXTRA_HEADERS",
    "RESERVED_HEADERS",
    "ExtraHeaders",
    "parse_header",
]

# Headers that carry credentials: never sent to another origin, never echoed.
CREDENTIAL_HEADERS = frozenset({"authorization", "cookie", "proxy-authorization"})
# A token inside a credential header (a bearer token, a cookie's value) is redacted alone when
# it is at least this long: shorter ones (`1`, `en`) would blank out ordinary words.
MIN_TOKEN_CHARS = 6
# Headers the fetcher itself decides (the connection, the body's encoding, the conditional
# request's validators, the host the URL names): a user cannot replace them.
RESERVED_HEADERS = frozenset(
    {
        "host",
        "connection",
        "content-length",
        "transfer-encoding",
        "accept-encoding",
        "te",
        "upgrade",
        "if-none-match",
        "if-modified-since",
    }
)
MAX_HEADERS = 32
MAX_HEADER_CHARS = 4096
# RFC 9110 §5.1: a field name is a token; a value holds visible characters, spaces and tabs.
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_VALUE = re.compile(r"[\t\x20-\x7e\x80-\xff]*")


@dataclass(frozen=True)
class ExtraHeaders:
    """The user's headers, in the order given, one per name (the last given wins)."""

    items: tuple[tuple[str, str], ...] = ()

    def for_origin(self, same_origin: bool) -> dict[str, str]:
        """The headers a request carries: credential ones only to the site's own origin."""
        return {
            name: value
            for name, value in self.items
            if same_origin or name.lower() not in CREDENTIAL_HEADERS
        }

    def has(self, name: str) -> bool:
        """True when a header of this name (any case) is given."""
        return any(n.lower() == name.lower() for n, _ in self.items)

    def secrets(self) -> tuple[str, ...]:
        """What no report may echo of the credential headers: each value, and the tokens in
        it a site could echo alone (an Authorization's after its scheme, or the whole of one
        that names no scheme; each cookie's value, with and without the quotes it may be
        written in), in every form a password is echoed in (percent-encoded either way, hex in
        either case), those of MIN_TOKEN_CHARS or more."""
        found: list[str] = []
        for name, value in self.items:
            lower = name.lower()
            if lower not in CREDENTIAL_HEADERS or not value:
                continue
            found.append(value)
            tokens = [value.strip()]
            if lower == "cookie":
                values = [part.partition("=")[2].strip() for part in value.split(";")]
                tokens += values + [v[1:-1] for v in values if len(v) > 1 and v[0] == v[-1] == '"']
            else:
                scheme, space, rest = value.strip().partition(" ")
                if space:
                    tokens.append(rest.strip())
                    if scheme.lower() == "basic":
                        tokens += _basic_password(rest.strip())
            for token in tokens:
                if len(token) >= MIN_TOKEN_CHARS:
                    found += echoed_forms(token)  # as the password's are (Credentials)
        return tuple(dict.fromkeys(found))

    @staticmethod
    def of(pairs: list[tuple[str, str]]) -> ExtraHeaders:
        """The headers of these (name, value) pairs, checked; raises ValueError."""
        if len(pairs) > MAX_HEADERS:
            raise ValueError(f"at most {MAX_HEADERS} headers")
        by_name: dict[str, tuple[str, str]] = {}
        for name, value in pairs:
            _check(name, value)
            by_name[name.lower()] = (name, value)
        return ExtraHeaders(tuple(by_name.values()))


NO_EXTRA_HEADERS = ExtraHeaders()


def _basic_password(token: str) -> list[str]:
    """The password a Basic token carries (Base64 of `user:password`), which a site may echo
    as itself, as it may --user's; none when the token is not that."""
    try:
        decoded = base64.b64decode(token, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return []
    _user, colon, password = decoded.partition(":")
    return [password] if colon and password else []


def _check(name: str, value: str) -> None:
    if not _TOKEN.fullmatch(name):
        raise ValueError(
            "a header's name is not a token (its text is not shown: it may be a secret)"
        )
    if name.lower() in RESERVED_HEADERS:
        raise ValueError(f"{name} is set by the auditor itself and cannot be given")
    if len(name) + len(value) > MAX_HEADER_CHARS:
        raise ValueError(f"the {name} header is longer than {MAX_HEADER_CHARS:,} characters")
    if not _VALUE.fullmatch(value):
        raise ValueError(f"the {name} header's value holds a line break or control character")
    try:
        value.encode("latin-1")
    except UnicodeEncodeError:
        raise ValueError(f"the {name} header's value is not Latin-1 text") from None


def parse_header(text: str) -> tuple[str, str]:
    """`NAME:VALUE` (spaces around the value dropped) as a checked (name, value); ValueError."""
    name, colon, value = text.partition(":")
    if not colon or not name:
        # Only what can be a header's name is echoed: the rest may be a credential, mistyped.
        # Not echoed: a mistyped header may be a credential alone (`Bearer <token>`, a bare
        # token), whose every character can be a header name's.
        raise ValueError("a header is not NAME:VALUE (its text is not shown: it may be a secret)")
    name, value = name.strip(), value.strip(" \t")
    _check(name, value)
    return name, value
