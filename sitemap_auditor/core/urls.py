"""One reading of every URL the auditor fetches, and the host rules it shares with `siteBase`.

docs/contract.md §8: a URL the auditor fetches (a `Sitemap:` value, a redirect's `Location`, a
candidate, robots.txt) is read once, by the WHATWG URL Standard's parser (ada, which Node.js
runs), as browsers and crawlers read it. Every decision about it uses that reading, a `WebURL`:
the origin that decides whether credentials go along (fetch.py), the address guard and the
connection itself (transport.py connects to `WebURL.host` and `WebURL.port`, and refuses to go on
when the HTTP library would read another host out of the serialization it is handed). Where two
parsers could disagree (`http://a\\@b/`, `https:///x`, userinfo spelled with backslashes or one
slash), only this reading counts.

The host rules (IDNA, empty labels, what DNS can carry: docs/contract.md §4, §6) are here because
both readings, the event's RFC 3986 one in site.py and this one, apply them.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

__all__ = [
    "DEFAULT_PORTS",
    "FETCHED_SCHEMES",
    "MAX_HOST_CHARS",
    "MAX_LABEL_CHARS",
    "NOT_HTTP",
    "NOT_IN_HOSTS",
    "NO_IDNA_FORM",
    "TOO_LONG_FOR_DNS",
    "Origin",
    "UnfetchableURLError",
    "WebURL",
    "ascii_host",
    "echoed_url",
    "escape_undecodable",
    "host_or_reason",
    "read",
    "resource_key",
    "strip_userinfo",
]

FETCHED_SCHEMES = ("http", "https")
DEFAULT_PORTS = {"http": 80, "https": 443}
Origin = tuple[str, str, int]  # scheme, ASCII host (IPv6 without brackets), effective port

NOT_HTTP = "not an http(s) URL"


# --- host rules ----------------------------------------------------------------------------------


def _idna_accepts(label: str) -> bool:
    # An ASCII label that claims to be an A-label must decode under one of the encodings that
    # could have made it; `xn--a` or `xn--zz` is no name any encoder produces. The browsers'
    # (UTS 46 without transitions, ada's) makes some that neither IDNA 2008 nor 2003 decodes
    # back: `xn--zca921q` is `☃ß`, a symbol (refused by 2008) with a ß (2003 makes it "ss").
    try:
        import idna

        idna.decode(label)
        return True
    except (ImportError, UnicodeError, ValueError):
        try:
            label.encode("ascii").decode("idna")
            return True
        except UnicodeError:
            from ada_url import idna_to_ascii, idna_to_unicode

            try:
                unicode = idna_to_unicode(label)
                return unicode != label and idna_to_ascii(unicode) == label.lower().encode()
            except UnicodeError:
                return False


# Characters no host name, IPv4 or IPv6 literal can hold; urlsplit lets them through.
NOT_IN_HOSTS = frozenset(" \t\r\n\\/?#@<>\"'`{}|^%") | frozenset(map(chr, range(32))) | {"\x7f"}


# docs/contract.md §6: what DNS can carry. A name is at most 253 characters in its ASCII form
# (255 octets on the wire, less the length octets), a trailing dot aside, and a label at most 63.
MAX_HOST_CHARS = 253
MAX_LABEL_CHARS = 63
NO_IDNA_FORM = "has an empty label or no IDNA form"
TOO_LONG_FOR_DNS = (
    f"is too long for DNS (over {MAX_HOST_CHARS} characters, or a label over {MAX_LABEL_CHARS})"
)
# The longest IPv6 literal: eight groups of four, or six and an embedded IPv4 address.
_MAX_IPV6_CHARS = 45


def _ipv6_literal(host: str) -> bool:
    # docs/contract.md §8: a bracketed host is an IPv6 literal or no host (no IPvFuture, no zone).
    if len(host) > _MAX_IPV6_CHARS or "%" in host:
        return False
    try:
        ipaddress.IPv6Address(host)
    except ValueError:
        return False
    return True


def host_or_reason(host: str) -> tuple[str, None] | tuple[None, str]:
    """The lower-cased ASCII (IDNA) form of a host name, or why it is no host name."""
    host = host.lower()
    if not host.isascii():
        try:
            import idna  # requests' own dependency: IDNA 2008 with UTS 46 mapping

            host = idna.encode(host, uts46=True).decode("ascii")
        except (ImportError, UnicodeError, ValueError):
            # What browsers read (UTS 46 without transitions, ada's), which names hosts that
            # IDNA 2008 refuses (symbols: `☃.net`) as browsers do; IDNA 2003 would make `☃ß.com`
            # another name (ß is "ss" there). IDNA 2003 last, for what ada refuses.
            from ada_url import idna_to_ascii

            try:
                browsers = idna_to_ascii(host).decode("ascii")
            except UnicodeError:  # a lone surrogate
                browsers = ""
            if browsers:
                host = browsers
            else:
                try:
                    host = host.encode("idna").decode("ascii")
                except UnicodeError:
                    return None, NO_IDNA_FORM
    if ":" in host:  # an IPv6 literal (brackets removed): it has no labels
        return (host, None) if _ipv6_literal(host) else (None, NO_IDNA_FORM)
    if not host or not NOT_IN_HOSTS.isdisjoint(host):
        return None, NO_IDNA_FORM
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


def _cut(text: str, limit: int = 100) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- the one reading -----------------------------------------------------------------------------


class UnfetchableURLError(ValueError):
    """A URL the auditor will not fetch, and why (`scheme`: the scheme it has, when not http(s))."""

    def __init__(self, reason: str, scheme: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.scheme = scheme


@dataclass(frozen=True)
class WebURL:
    """A URL as the WHATWG URL Standard reads it, without userinfo: what is fetched, and how."""

    href: str  # the Standard's serialization, userinfo removed: what is requested and listed
    scheme: str  # "http" or "https"
    host: str  # lower-case ASCII; an IPv6 literal without its brackets
    port: int  # the effective port

    @property
    def origin(self) -> Origin:
        """(scheme, host, port): what decides whether credentials go along."""
        return (self.scheme, self.host, self.port)

    @property
    def target(self) -> str:
        """The request-target: href's path and query exactly as serialized, no fragment (an
        http(s) URL's path is never empty, and its path and query hold no raw `#`)."""
        return self.href[self.href.index("/", len(self.scheme) + 3) :].split("#", 1)[0]

    @property
    def authority(self) -> str:
        """The Host header: the host (an IPv6 literal in brackets), and the port unless it is
        the scheme's default."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"


def read(text: str, base: str | None = None) -> WebURL:
    """Read a URL (against base) as browsers do; raise UnfetchableURLError when it is no http(s) URL
    with a host the contract accepts."""
    from ada_url import URL  # about 30 ms, once per container: not on the cold-start path

    try:
        parsed = URL(text, base) if base is not None else URL(text)
    except ValueError:
        raise UnfetchableURLError(_why_unreadable(text, base)) from None
    scheme = parsed.protocol[:-1]
    if scheme not in FETCHED_SCHEMES:
        raise UnfetchableURLError(NOT_HTTP, scheme)
    host, why = host_or_reason(parsed.hostname.strip("[]"))
    if host is None:
        from ada_url import idna_to_unicode

        # Quoted as a person would write it, not in its ASCII form.
        shown = idna_to_unicode(parsed.hostname) or parsed.hostname
        raise UnfetchableURLError(f"host {_cut(shown)!r} {why}")
    if parsed.username or parsed.password:
        # docs/contract.md §8: no URL is fetched or echoed with userinfo; credentials go in a
        # header, and only the audit's own.
        parsed.username = ""
        parsed.password = ""
    port = int(parsed.port) if parsed.port else DEFAULT_PORTS[scheme]
    return WebURL(href=parsed.href, scheme=scheme, host=host, port=port)


_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def _percent(m: re.Match[str]) -> str:
    char = chr(int(m.group()[1:], 16))
    return char if char in _UNRESERVED else m.group().upper()


def resource_key(url: WebURL) -> str:
    """What two spellings of one resource share: the Standard's serialization (host case, the
    default port and dot segments already made one), without its fragment or an empty query,
    each percent-encoded unreserved character decoded and every other escape in upper case
    (RFC 3986 §6.2.2: equivalent, whatever the server)."""
    href = url.href.split("#", 1)[0].removesuffix("?")
    return _PERCENT.sub(_percent, href) if "%" in href else href


def _why_unreadable(text: str, base: str | None) -> str:
    """Why the parser refused a URL, in the issue's words: its host when that is what failed.
    Only the wording is decided here; the URL is refused whatever this finds."""
    from urllib.parse import unquote, urljoin, urlsplit

    try:
        hostname = urlsplit(urljoin(base or "", text)).hostname
    except ValueError:
        return NOT_HTTP
    if hostname:
        host, why = host_or_reason(hostname)
        if host is None:
            # Shown as the Standard reads a host: percent-decoded (a byte that is no UTF-8
            # becomes U+FFFD).
            return f"host {_cut(unquote(hostname, errors='replace'))!r} {why}"
    return NOT_HTTP


# --- userinfo, never echoed ----------------------------------------------------------------------

# Where userinfo can start: a scheme and its colon, then any run of slashes and backslashes
# (browsers read userinfo in `http://u:p@h/`, `http:\\u:p@h/`, `http:/u:p@h/`, `http:u:p@h/`
# alike), or two slashes without a scheme (`//u:p@h/`, `\\u:p@h/`: a base gives them one). Tabs and
# newlines count for nothing, as browsers drop them. Two slashes right after a character a path
# holds (`https://h/a//y@@castle`, a path Google's own robots.txt patterns write) start no
# authority: that is a path, and shown as it reads. A scheme is tried only from the start of a
# run of scheme characters (the lookbehind): tried from every letter of a long run that no colon
# ends, the search would be quadratic in the run's length.
_AUTHORITY_START = re.compile(
    r"(?<![A-Za-z0-9+.\-])[0-9+.\-]*(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*):[/\\\t\n\r]*"
    r"|(?<![A-Za-z0-9_~%\-])[/\\][\t\n\r]*[/\\][/\\\t\n\r]*"
)
# What ends an authority, and so any userinfo in it. In the special schemes' URLs the WHATWG
# reading ends it at a `\` too; RFC 3986's, which the event's url keeps (docs/contract.md §8),
# does not: `http://admin:pw\@h/` has the userinfo `admin:pw\` to it. Userinfo is removed in
# either reading, so the longer authority stands for both kinds of URL.
_SPECIAL_SCHEMES = frozenset({"http", "https", "ws", "wss", "ftp", "file"})
# Those whose userinfo the WHATWG reading finds after any run of slashes (`http:u:p@h/`): not
# `file`, whose URLs hold none (`File:Logo@2x.png`, a wiki's page, is a path); RFC 3986 finds
# one only after `//`, as for any other scheme.
_SLASHLESS_USERINFO = _SPECIAL_SCHEMES - {"file"}
# The special schemes no word ends in, read as a URL's even when glued to what precedes them
# (not `ws`, which `news:` and `views:` end in, nor `file`, which `profile:` does).
_GLUED_SCHEMES = ("http", "https", "wss", "ftp")
_TWO_SLASHES = re.compile(r"[/\\]{2}")
_AUTHORITY_END = {True: re.compile(r"[/?#]"), False: re.compile(r"[/?#]")}


def escape_undecodable(value: str) -> str:
    """A URL a site wrote in bytes, decoded as UTF-8 with surrogateescape (a `Sitemap:` value,
    a Location), with each byte that was not UTF-8 percent-encoded as itself (`%FF`), as
    browsers do, before `read` (docs/contract.md §4, §8)."""
    if value.isascii() or not any("\udc80" <= c <= "\udcff" for c in value):
        return value
    return "".join(f"%{ord(c) - 0xDC00:02X}" if "\udc80" <= c <= "\udcff" else c for c in value)


def strip_userinfo(text: str) -> str:
    """The text with the userinfo (`user:password@`) of every URL in it removed, in any spelling.

    Linear in the text's length, however it is made (an event or a robots.txt line may carry
    megabytes): each authority's end and its last `@` are found once per kind of URL, not once
    per scheme-like run inside it. Browsers drop tabs and newlines anywhere in a URL, inside
    its scheme too (`http\t:u:p@h/`, `a\thttp://u\\:p@h/` whose scheme is `ahttp`): when the
    text still holds an `@` and one of them, it is read once more without them, and that
    reading stands when it finds userinfo the first did not (the text then loses its tabs and
    newlines)."""
    if "@" not in text:
        return text
    stripped = _strip_userinfo(text)
    if "@" in stripped and _DROPPED.search(stripped) is not None:
        squeezed = _DROPPED.sub("", stripped)
        again = _strip_userinfo(squeezed)
        if again != squeezed:
            return again
    return stripped


# What browsers drop from a URL wherever it stands.
_DROPPED = re.compile("[\t\n\r]")


def _glued(scheme: str) -> bool:
    """True for a scheme-like run (lower-cased) that ends in a special scheme glued to what
    precedes it: by a `+`, `.` or `-` (`a+ws`, `see-https`), or ending in a scheme no word ends in
    (`next%3Dhttps` is read from its `3`)."""
    last = scheme.replace("+", ".").replace("-", ".").rsplit(".", 1)[-1]
    return last in _SLASHLESS_USERINFO or scheme.endswith(_GLUED_SCHEMES)


def _strip_userinfo(text: str) -> str:
    out: list[str] = []
    pos = 0  # text[:pos] is done
    # Per kind of authority end: where the authority that holds the last match ends, and the
    # last "@" before it.
    regions = {True: (-1, -1), False: (-1, -1)}
    for match in _AUTHORITY_START.finditer(text):
        if match.start() < pos:
            continue  # inside userinfo already removed
        scheme = match.group("scheme")
        special = scheme is None or scheme.lower() in _SPECIAL_SCHEMES
        if (
            (scheme is not None and scheme.lower() not in _SLASHLESS_USERINFO)
            and not _glued(scheme.lower())
            and _TWO_SLASHES.match(_DROPPED.sub("", text[match.end("scheme") + 1 : match.end()]))
            is None
        ):
            # Another scheme has an authority only after `//`, in either reading: the rest of
            # `mailto:jane@example.com`, or of `User:Bob@home` in a path, is a path. Two slashes
            # of any kind (`Location:\\u:p@h/`) may start a URL a base gives its scheme; and a
            # run that ends in `http`, `https`, `wss` or `ftp` is one glued to what precedes it
            # (`next%3Dhttps:\\u:p@h/`, a scheme tried only from a run's start).
            continue
        start = match.end()
        region_end, region_at = regions[special]
        if start > region_end:
            found = _AUTHORITY_END[special].search(text, start)
            region_end = found.start() if found is not None else len(text)
            region_at = text.rfind("@", start, region_end)
            regions[special] = (region_end, region_at)
        if region_at >= start:
            out.append(text[pos:start])
            pos = region_at + 1
    out.append(text[pos:])
    return "".join(out)


def echoed_url(value: str) -> str:
    """A URL value as a message, a log line or a report may show it: strip_userinfo's text, and,
    when the one reading refuses it, whatever stands between its first `//` and its last `@`
    replaced by `***`.

    A password holding a raw `/`, `?` or `#` ends the authority early: `http://user:pa/ss@h/`
    has, by the WHATWG reading, no userinfo (its authority is `user:pa`, whose port is no
    number), yet whoever wrote it meant `user:pa/ss` as one (docs/contract.md §8: no echoed URL
    carries userinfo, in any spelling). A URL the reading accepts is left as it reads
    (`https://example.com/@team` keeps its path)."""
    text = strip_userinfo(value)
    if "@" not in text:
        return text
    try:
        read(text)
    except ValueError:
        start = _AUTHORITY_START.search(text)
        at = text.rfind("@", start.end()) if start is not None else -1
        if start is not None and at >= 0:
            return text[: start.end()] + "***" + text[at:]
    return text
