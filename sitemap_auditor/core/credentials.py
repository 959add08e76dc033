"""The site's Basic Auth credentials as a value, and the forms an echo of them takes (pure)."""

from __future__ import annotations

import base64
import contextlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import quote, quote_plus

__all__ = ["MIN_FREE_TEXT_SECRET", "Credentials", "WholeSecret", "from_mapping"]


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


def from_mapping(value: object) -> Credentials | None:
    """The credentials of a `{"username": .., "password": ..}` object of strings, else None."""
    if not isinstance(value, Mapping):
        return None
    username, password = value.get("username"), value.get("password")
    if not isinstance(username, str) or not isinstance(password, str):
        return None
    return Credentials(username, password)
