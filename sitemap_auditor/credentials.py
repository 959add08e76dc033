"""The site's Basic Auth credentials: inline in the event, or from a Secrets Manager secret."""

from __future__ import annotations

import base64
import contextlib
import json
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast
from urllib.parse import quote, quote_plus

from .errors import SecretError as SecretError

__all__ = [
    "MIN_CACHE_KEY_CHARS",
    "MIN_FREE_TEXT_SECRET",
    "SECRET_CACHE_SECONDS",
    "Credentials",
    "SecretError",
    "T",
    "WholeSecret",
    "cache_key",
    "clear_cache",
    "from_mapping",
    "from_secret",
    "resolve",
]


@dataclass(frozen=True)
class Credentials:
    """HTTP Basic Auth credentials of the audited site."""

    username: str
    password: str = field(repr=False)

    def header(self) -> str:
        """The Authorization header value: Basic base64(username:password) in UTF-8."""
        token = base64.b64encode(f"{self.username}:{self.password}".encode()).decode("ascii")
        return f"Basic {token}"

    def secrets(self) -> tuple[str, ...]:
        """The strings that must never appear in a result, log line or message, longest first
        (so that the header goes before the token inside it)."""
        header = self.header()
        token = header[6:]
        # The token as a URL carries it, and the password's own Base64.
        forms = [header, token, quote(token, safe="")]
        forms.append(base64.b64encode(self.password.encode()).decode("ascii"))
        # A site may echo the password back, percent-encoded into a URL as likely as not, and
        # trimmed or with its white space folded (docs/contract.md §8: whatever the white space).
        password = self.password
        for variant in dict.fromkeys((password, password.strip(), " ".join(password.split()))):
            forms += _echoed_forms(variant)
        # Echoed as a host (`Sitemap: http://PASSWORD.example/`), it is read lower-cased and,
        # when not ASCII, IDNA-encoded (docs/contract.md §8: one reading of every URL).
        forms += _host_forms(password.strip())
        short = len(password.strip()) < MIN_FREE_TEXT_SECRET
        if short:
            forms.pop(3)  # a short password's Base64 (`cA==`) is as short as it
        found = [s for s in forms if len(s.strip()) >= MIN_FREE_TEXT_SECRET]
        if password and short:
            # Too short to hunt for in free text (every "a" of a message would go), such a
            # password is redacted wherever it stands as a credential: after its username, or
            # as a URL's userinfo, plain or percent-encoded. Only whole: a cut prefix of these
            # is the username's, no secret.
            user, encoded = quote(self.username, safe=""), quote(password, safe="")
            found += map(WholeSecret, (f"{self.username}:{password}", f"{user}:{encoded}"))
            found += map(WholeSecret, (f":{password}@", f":{encoded}@"))
        return tuple(sorted(dict.fromkeys(found), key=len, reverse=True))

    def scope(self) -> str:
        """The credentials as one string that no other pair gives: each part length-prefixed,
        since a username or password may hold any separator (for the keyed hash that scopes
        shared facts; never stored as such)."""
        return f"{len(self.username)}:{self.username}{len(self.password)}:{self.password}"


# Shorter secrets are redacted only where they stand as a credential (see Credentials.secrets).
MIN_FREE_TEXT_SECRET = 3


class WholeSecret(str):
    """A secret redacted only where it stands whole: a prefix of it left by a cut is not
    hunted for (response.redact), since it starts with what is no secret (the username)."""


_HEX = re.compile(r"%[0-9A-F]{2}")


def _lower_hex(text: str) -> str:
    return _HEX.sub(lambda m: m.group(0).lower(), text)


def _echoed_forms(text: str) -> list[str]:
    """The forms a password takes when it is echoed back (docs/contract.md §8): as it is; in a
    URL percent-encoded as quote() and quote_plus() do it, with upper- or lower-case hex, or
    as the WHATWG serializer does in a path, a query and a fragment (which leave `@`, `&`, `{`
    and more as they are); and as an issue quotes a value, with repr()'s escapes, in either of
    its quotes."""
    from ada_url import URL

    forms = [text]
    for encoded in (quote(text, safe=""), quote_plus(text)):
        forms += [encoded, _lower_hex(encoded)]
    url = URL("http://h/")
    url.search = "?" + text
    url.hash = "#" + text
    forms += [url.search[1:], url.hash[1:]]
    with contextlib.suppress(ValueError):
        url.pathname = "/" + text
        forms.append(url.pathname[1:])
    forms += [repr('"' + text)[2:-1], repr("'" + text)[2:-1]]
    return list(dict.fromkeys(forms))


# What a password cannot hold to be read as (the labels of) a host.
_NOT_IN_A_HOST = re.compile(r"[\x00-\x20/\\?#@:\[\]%]")


def _host_forms(text: str) -> list[str]:
    """The password as a URL's host reads it, when it can stand as labels of one: lower
    case (ASCII letters), and its IDNA form (`xn--...`) when it is not ASCII."""
    if not text or _NOT_IN_A_HOST.search(text):
        return []
    from ada_url import URL

    forms = [text.lower()]
    with contextlib.suppress(ValueError):
        forms.append(URL(f"http://{text}.invalid/").hostname.removesuffix(".invalid"))
    return [f for f in dict.fromkeys(forms) if f and f != text]


# Warm invocations reuse a secret for this long; a rotated password is picked up after it.
SECRET_CACHE_SECONDS = 300.0

# The shared store's credential-hash key must be long enough not to be guessed.
MIN_CACHE_KEY_CHARS = 32

T = TypeVar("T")
_cache: dict[tuple[str, str], tuple[float, object]] = {}
_cache_lock = threading.Lock()
_client: Any = None


def from_mapping(value: object) -> Credentials | None:
    """The credentials of a `{"username": .., "password": ..}` object of strings, else None."""
    if not isinstance(value, Mapping):
        return None
    username, password = value.get("username"), value.get("password")
    if not isinstance(username, str) or not isinstance(password, str):
        return None
    return Credentials(username, password)


def _secrets_client() -> Any:
    global _client
    if _client is None:
        # Imported here, not at module level: boto3 costs ~100 ms of cold start and only
        # invocations with a secret need it. The endpoint comes from the environment
        # (AWS_ENDPOINT_URL_SECRETS_MANAGER), as boto3 reads it itself.
        import boto3

        _client = boto3.session.Session().client("secretsmanager")
    return _client


def _read(secret_id: str, what: str, parse: Callable[[str], T | None], wrong: str) -> T:
    """A secret's string parsed, cached while warm; errors name the secret, never its value."""
    now = time.monotonic()
    with _cache_lock:
        hit = _cache.get((what, secret_id))
        if hit is not None and hit[0] > now:
            return cast(T, hit[1])
    try:
        answer = _secrets_client().get_secret_value(SecretId=secret_id)
    except Exception as e:  # noqa: BLE001 -- any failure of the secret is the same outcome
        code = getattr(e, "response", {}).get("Error", {}).get("Code") or type(e).__name__
        raise SecretError(f"{what} {secret_id!r} could not be read: {code}") from None
    value = parse(answer.get("SecretString") or "")
    if value is None:
        raise SecretError(f"{what} {secret_id!r} {wrong}")
    with _cache_lock:
        _cache[(what, secret_id)] = (now + SECRET_CACHE_SECONDS, value)
    return value


def _credentials(text: str) -> Credentials | None:
    try:
        return from_mapping(json.loads(text))
    except ValueError:
        return None


def _key(text: str) -> bytes | None:
    # A short key would make the hash of a password guessable again.
    return text.encode() if len(text) >= MIN_CACHE_KEY_CHARS else None


def from_secret(secret_id: str) -> Credentials:
    """Read `{"username": .., "password": ..}` from a Secrets Manager secret, cached while warm."""
    return _read(
        secret_id,
        "basicAuthSecretId",
        _credentials,
        "is not a JSON object with string username and password",
    )


def cache_key(secret_id: str) -> bytes:
    """The key of the credential hash in the shared store, read from a secret, cached while warm."""
    return _read(
        secret_id, "cache key secret", _key, f"is shorter than {MIN_CACHE_KEY_CHARS} characters"
    )


def resolve(inline: Credentials | None, secret_id: str | None) -> Credentials | None:
    """The credentials of a request: inline, else read through its secret id, if any."""
    if inline is not None:
        return inline
    return from_secret(secret_id) if secret_id else None


def clear_cache() -> None:
    """Forget cached secrets and the client (for tests that change the endpoint)."""
    global _client
    with _cache_lock:
        _cache.clear()
    _client = None
