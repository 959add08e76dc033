"""Site root: from the audited URL to `scheme://host[:port]`, or the reason there is none."""

from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = [
    "ALLOWED_SCHEMES",
    "DEFAULT_PORTS",
    "MAX_ECHOED_URL",
    "MAX_HOST_CHARS",
    "MAX_LABEL_CHARS",
    "NO_IDNA_FORM",
    "TOO_LONG_FOR_DNS",
    "SiteBase",
    "ascii_host",
    "describe_url_value",
    "host_or_reason",
    "resolve",
    "strip_userinfo",
]

ALLOWED_SCHEMES = ("http", "https")
DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class SiteBase:
    """The audited site's origin, normalised as the data map's `siteBase`."""

    scheme: str
    host: str  # lower-case, ASCII (IDNA) form, IPv6 without brackets
    port: int | None  # as written in the URL, None when absent

    @property
    def url(self) -> str:
        """`scheme://host[:port]`, no trailing slash."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        port = f":{self.port}" if self.port is not None else ""
        return f"{self.scheme}://{host}{port}"

    @property
    def robots_txt_url(self) -> str:
        """The robots.txt URL of this site."""
        return f"{self.url}/robots.txt"

    def origin(self) -> tuple[str, str, int]:
        """(scheme, host, effective port), for same-origin comparisons."""
        return (self.scheme, self.host, self.port or DEFAULT_PORTS[self.scheme])


def _idna_accepts(label: str) -> bool:
    # An ASCII label that claims to be an A-label must decode under one of the encodings that
    # could have made it; `xn--a` or `xn--zz` is no name any encoder produces.
    try:
        import idna

        idna.decode(label)
        return True
    except (ImportError, UnicodeError, ValueError):
        try:
            label.encode("ascii").decode("idna")
            return True
        except UnicodeError:
            return False


# Characters no host name, IPv4 or IPv6 literal can hold; urlsplit lets them through.
_NOT_IN_HOSTS = frozenset(" \t\r\n\\/?#@<>\"'`{}|^%") | frozenset(map(chr, range(32))) | {"\x7f"}


# docs/contract.md §6: what DNS can carry. A name is at most 253 characters in its ASCII form
# (255 octets on the wire, less the length octets), a trailing dot aside, and a label at most 63.
MAX_HOST_CHARS = 253
MAX_LABEL_CHARS = 63
NO_IDNA_FORM = "has an empty label or no IDNA form"
TOO_LONG_FOR_DNS = (
    f"is too long for DNS (over {MAX_HOST_CHARS} characters, or a label over {MAX_LABEL_CHARS})"
)


def host_or_reason(host: str) -> tuple[str, None] | tuple[None, str]:
    """The lower-cased ASCII (IDNA) form of a host name, or why it is no host name."""
    host = host.lower()
    if not host.isascii():
        try:
            import idna  # requests' own dependency: IDNA 2008 with UTS 46 mapping

            host = idna.encode(host, uts46=True).decode("ascii")
        except (ImportError, UnicodeError, ValueError):
            try:  # IDNA 2003, which still names some hosts IDNA 2008 refuses (symbols)
                host = host.encode("idna").decode("ascii")
            except UnicodeError:
                return None, NO_IDNA_FORM
    if not host or not _NOT_IN_HOSTS.isdisjoint(host):
        return None, NO_IDNA_FORM
    if ":" in host:  # an IPv6 literal (brackets removed): it has no labels
        return host, None
    # docs/contract.md §6: a host with an empty label (`.example.com`, `a..b`) is no host. One
    # trailing dot is the DNS root, which a fully qualified name may write (`example.com.`).
    labels = host.split(".")
    if labels[-1] == "" and len(labels) > 1:
        labels.pop()
    if not all(labels):
        return None, NO_IDNA_FORM
    if sum(map(len, labels)) + len(labels) - 1 > MAX_HOST_CHARS or any(
        len(label) > MAX_LABEL_CHARS for label in labels
    ):
        return None, TOO_LONG_FOR_DNS
    if not all(_idna_accepts(label) for label in labels if label.startswith("xn--")):
        return None, NO_IDNA_FORM
    return host, None


def ascii_host(host: str) -> str | None:
    """Return the lower-cased ASCII (IDNA) form of a host name, or None when it is no host name."""
    return host_or_reason(host)[0]


def resolve(url: object) -> SiteBase | None:
    """Return the site root of an audited URL, or None when it has no http(s) scheme and host."""
    if not isinstance(url, str):
        return None
    text = url.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
        hostname = parts.hostname
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES or not parts.netloc or not hostname:
        return None
    host = ascii_host(hostname)
    if host is None:
        return None
    return SiteBase(scheme=scheme, host=host, port=port)


def strip_userinfo(url: str) -> str:
    """Remove any `user:password@` part from a URL-like string."""
    scheme_end = url.find("//")
    if scheme_end < 0:
        return url
    start = scheme_end + 2
    end = len(url)
    for sep in "/?#":
        pos = url.find(sep, start)
        if pos >= 0:
            end = min(end, pos)
    at = url.rfind("@", start, end)
    if at < 0:
        return url
    return url[:start] + url[at + 1 :]


# An event may carry megabytes in `url`; the result echoes it twice and must stay small.
MAX_ECHOED_URL = 2048


def _cut(text: str) -> str:
    return text if len(text) <= MAX_ECHOED_URL else text[: MAX_ECHOED_URL - 3] + "..."


def describe_url_value(url: object) -> str:
    """Render the event's `url` for the 501 recommendation: trimmed, without userinfo, or JSON."""
    if url is None:
        return "null"
    if isinstance(url, str):
        return _cut(strip_userinfo(url.strip()))
    try:
        return _cut(json.dumps(url, ensure_ascii=False))
    except (TypeError, ValueError):
        return _cut(repr(url))
