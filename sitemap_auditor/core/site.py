"""Site root: from the audited URL to `scheme://host[:port]`, or the reason there is none."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from sitemap_auditor.core import urls
from sitemap_auditor.core.urls import (
    FETCHED_SCHEMES,
    UnfetchableURLError,
    WebURL,
    ascii_host,
    echoed_url,
    strip_userinfo,
)

__all__ = ["MAX_ECHOED_URL", "SiteBase", "describe_url_value", "resolve"]


@dataclass(frozen=True)
class SiteBase:
    """The audited site's origin, normalised as the data map's `siteBase`."""

    scheme: str
    host: str  # lower-case, ASCII (IDNA) form, IPv6 without brackets
    port: int | None  # as written in the URL, None when absent
    # The site's root as the WHATWG Standard reads it. Its origin decides where credentials go
    # (docs/contract.md §8): it and every URL fetched are compared in that one reading.
    root: WebURL = field(repr=False, compare=False)

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

    def origin(self) -> urls.Origin:
        """(scheme, host, effective port) as every fetched URL is read, for same-origin checks."""
        return self.root.origin


def resolve(url: object) -> SiteBase | None:
    """Return the site root of an audited URL, or None when it has no http(s) scheme and host.

    The documented auditor's reading (RFC 3986) says what the site is; the URL is refused when
    browsers read it with another scheme, host or port (docs/contract.md §8), because every URL
    the audit fetches is read their way: `http://site.example\\@other.example/` is no usable URL.
    """
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
    if scheme not in FETCHED_SCHEMES or not parts.netloc or not hostname:
        return None
    host = ascii_host(hostname)
    if host is None:
        return None
    written = f"[{hostname}]" if ":" in hostname else hostname
    try:
        # Both through the one parser, so that only which part is the host can differ, not how
        # a host is spelled (IDNA, the legacy IPv4 forms, a default port written or not).
        browsers = urls.read(text)
        root = urls.read(f"{scheme}://{written}" + (f":{port}" if port is not None else "") + "/")
    except UnfetchableURLError:
        return None
    if browsers.origin != root.origin:
        return None
    return SiteBase(scheme=scheme, host=host, port=port, root=root)


# An event may carry megabytes in `url`; the result echoes it twice and must stay small.
MAX_ECHOED_URL = 2048


def _cut(text: str) -> str:
    return text if len(text) <= MAX_ECHOED_URL else text[: MAX_ECHOED_URL - 3] + "..."


def describe_url_value(url: object) -> str:
    """Render the event's `url` for the 501 recommendation: trimmed, without userinfo, or JSON
    (each of its strings without userinfo, however deep it nests)."""
    if url is None:
        return "null"
    if isinstance(url, str):
        return _cut(echoed_url(url.strip()))
    return _cut(_bounded_json(url, MAX_ECHOED_URL))


def _bounded_json(value: object, limit: int) -> str:
    """The JSON text of a decoded JSON value, made without recursion and stopped once past
    limit characters: an event may nest as deep as the decoder allows, which json.dumps cannot
    follow (docs/contract.md §8)."""
    out: list[str] = []
    size = 0
    stack: list[Iterator[object]] = [iter((value,))]
    while stack and size <= limit:
        item = next(stack[-1], _END)
        if item is _END:
            stack.pop()
            continue
        if isinstance(item, _Text):
            token = str(item)
        elif isinstance(item, dict):
            stack.append(_dict_tokens(item))
            continue
        elif isinstance(item, list | tuple):
            stack.append(_list_tokens(item))
            continue
        else:
            token = _scalar(item)
        out.append(token)
        size += len(token)
    return "".join(out)


class _Text(str):
    """Punctuation of the JSON being made, as opposed to a value to render."""


_END = object()


def _dict_tokens(value: dict[object, object]) -> Iterator[object]:
    yield _Text("{")
    for i, (key, item) in enumerate(value.items()):
        yield _Text((", " if i else "") + _scalar(str(key)) + ": ")
        yield item
    yield _Text("}")


def _list_tokens(value: list[object] | tuple[object, ...]) -> Iterator[object]:
    yield _Text("[")
    for i, item in enumerate(value):
        if i:
            yield _Text(", ")
        yield item
    yield _Text("]")


def _scalar(value: object) -> str:
    if isinstance(value, str):
        return json.dumps(strip_userinfo(value), ensure_ascii=False)
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        pass
    if isinstance(value, int):
        # Python refuses the decimal text of an integer over 4,300 digits, however it is asked.
        digits = int(value.bit_length() * 0.30103) + 1
        return json.dumps(f"an integer of about {digits:,} digits")
    return json.dumps(repr(value), ensure_ascii=False)
