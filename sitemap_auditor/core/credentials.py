"""The site's Basic Auth credentials as a value, and the forms an echo of them takes (pure)."""

from __future__ import annotations

import base64
import contextlib
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import quote, quote_plus

from sitemap_auditor.core import urls

__all__ = [
    "MAX_SPELLED_CHARS",
    "MIN_FREE_TEXT_SECRET",
    "Credentials",
    "SpelledSecret",
    "WholeSecret",
    "echoed_forms",
    "echoed_in",
    "from_mapping",
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
        forms.append(_b64(self.password))
        # A site may echo the password back, percent-encoded into a URL as likely as not, and
        # trimmed or with its white space folded (docs/contract.md §8: whatever the white space).
        password = self.password
        variants = dict.fromkeys((password, password.strip(), " ".join(password.split())))
        for variant in variants:
            forms += echoed_forms(variant)
        # Echoed as a host (`Sitemap: http://PASSWORD.example/`), it is read lower-cased and,
        # when not ASCII, IDNA-encoded (docs/contract.md §8: one reading of every URL).
        forms += _host_forms(password.strip())
        forms += _split_forms(password)
        short = len(password.strip()) < MIN_FREE_TEXT_SECRET
        if short:
            forms.pop(3)  # a short password's Base64 (`cA==`) is as short as it
        elif len(password) <= MAX_SPELLED_CHARS:
            # And in any other spelling of its characters (SpelledSecret), composed or not;
            # first, so that these stand for the plain forms they equal.
            spelled = {unicodedata.normalize(f, v) for v in variants for f in ("NFC", "NFD")}
            forms[:0] = [SpelledSecret(v) for v in sorted(spelled | set(variants))]
        # Base64 as URLs and JWT-like tokens carry it too: without its padding, and in the URL-
        # safe alphabet (RFC 4648 §5); each decodes to the credentials as readily.
        in_base64 = [token] if short else [token, _b64(self.password)]
        for form in in_base64:
            safe = form.translate(_URL_SAFE)
            forms += [f for f in (form.rstrip("="), safe, safe.rstrip("=")) if f != form]
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


def _split_forms(password: str) -> list[str]:
    """What is left of a password echoed as a URL's userinfo once the reading has split it: one
    holding `@` and then `/`, `?`, `#` or `\\` (`p@ss/word`) ends the URL's authority inside
    it, so `http://u:p@ss/word@host/` is userinfo `u:p`, host `ss` and path `/word@host/`;
    stripped of its userinfo, the URL still shows `//ss/word`. That, as the reading spells it
    (its host lower-cased, `\\` as `/`, a path's `/` before a `?` or `#`), with the `//` that
    starts an authority: the tail alone (`2024/` of `Welcome@2024/`) is ordinary text."""
    ends = [i for i in (password.find(c) for c in "/?#\\") if i >= 0]
    if not ends:
        return []
    end = min(ends)
    at = password.rfind("@", 0, end)
    if at < 0:
        return []
    host, rest = password[at + 1 : end], password[end:]
    rest = rest.replace("\\", "/") if rest[0] in "/\\" else "/" + rest
    forms = {f"//{host}{password[end:]}", f"//{host.lower()}{rest}"}
    # And as the one reading spells the rest of such a URL: its host normalised (`0x7f.1`, a
    # default port), its path's dot segments resolved and characters percent-encoded.
    with contextlib.suppress(urls.UnfetchableURLError):
        forms.add(urls.read("http://" + password[at + 1 :]).href.removeprefix("http:"))
    return sorted(forms)


# Shorter secrets are redacted only where they stand as a credential (see Credentials.secrets).
MIN_FREE_TEXT_SECRET = 3
# A password up to this long is also hunted for in every spelling of its characters
# (SpelledSecret: its patterns, one a variant of it, take about 0.1 ms a character to build:
# 0.11 s at this length, twice an audit); a longer one in the forms
# an echo takes whole (as it is, percent-encoded as a URL does it, Base64...).
MAX_SPELLED_CHARS = 1024


class WholeSecret(str):
    """A secret redacted only where it stands whole: a prefix of it left by a cut is not
    hunted for (response.redact), since it starts with what is no secret (the username)."""


class SpelledSecret(str):
    """A secret also hunted for in every spelling a URL, a header or a quote gives it
    (response.redact, `echoed_in`): each of its characters as itself, percent-encoded as its
    UTF-8 bytes or its Latin-1 byte (either case of hex), a space as `+`, or as its UTF-8 bytes
    read as Latin-1 (a header's text), in any mixture, and in any case of its letters (a URL's
    reading lower-cases a host: `http://Hunter%20Two/` is shown as host 'hunter two').
    docs/contract.md §8: a site that echoes the password back, percent-encoding some of it,
    shows it to no one."""

    pattern: re.Pattern[str]

    def __new__(cls, text: str) -> SpelledSecret:
        self = super().__new__(cls, text)
        self.pattern = re.compile("".join(map(_spellings, text)), re.IGNORECASE)
        return self


def _percent(data: bytes) -> str:
    # A byte string percent-encoded, either case of hex, as a pattern.
    return "".join(
        "%" + "".join(f"[{d}{d.lower()}]" if d.isalpha() else d for d in f"{b:02X}") for b in data
    )


def _spellings(c: str) -> str:
    """A pattern of the spellings of one character (SpelledSecret)."""
    utf8 = c.encode("utf-8", "surrogatepass")
    forms = [re.escape(c), _percent(utf8)]
    if 0x80 <= ord(c) <= 0xFF:
        forms.append(_percent(bytes([ord(c)])))
    if len(utf8) > 1:
        forms.append(re.escape(utf8.decode("latin-1")))
    if c == " ":
        forms.append(r"\+")
    return "(?:" + "|".join(forms) + ")"


_URL_SAFE = str.maketrans("+/", "-_")


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode("ascii")


def echoed_in(data: bytes, secrets: Iterable[str]) -> bool:
    """True when facts encoded as JSON (`facts.encode`) hold a secret in any of its forms: each
    of their strings is read as JSON gives it, so that no escape hides one."""
    wanted = [s for s in secrets if s]
    if not wanted:
        return False
    text = data.decode("utf-8", "replace")
    if "\\" in text:  # an escape: the strings as they are
        with contextlib.suppress(ValueError):
            text = "\n".join(_strings(json.loads(text)))
    return any(
        (s.pattern.search(text) is not None) if isinstance(s, SpelledSecret) else s in text
        for s in wanted
    )


def _strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


_HEX = re.compile(r"%[0-9A-F]{2}")


def _lower_hex(text: str) -> str:
    return _HEX.sub(lambda m: m.group(0).lower(), text)


def echoed_forms(text: str) -> list[str]:
    """The forms a password takes when it is echoed back (docs/contract.md §8): as it is; in a
    URL percent-encoded as quote() and quote_plus() do it, with upper- or lower-case hex, or
    as the WHATWG serializer does in a path, a query and a fragment (which leave `@`, `&`, `{`
    and more as they are); and as an issue quotes a value, with repr()'s escapes, in either of
    its quotes."""
    from ada_url import URL

    forms = [text]
    for encoded in (quote(text, safe=""), quote(text), quote_plus(text)):
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
    """The credentials of a `{"username": .., "password": ..}` object of strings, else None.

    A string with a lone surrogate (`"\\ud800"` is valid JSON) is no text UTF-8 can carry, so
    no `Authorization` header can be made of it: None, as for a value that is not a string."""
    if not isinstance(value, Mapping):
        return None
    username, password = value.get("username"), value.get("password")
    if not isinstance(username, str) or not isinstance(password, str):
        return None
    if not _utf8(username) or not _utf8(password):
        return None
    return Credentials(username, password)


def _utf8(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
