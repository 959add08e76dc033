"""robots.txt reading: the `Sitemap:` lines of a body, resolved, checked and de-duplicated."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, urljoin, urlsplit

from .issues import cut_value, issue

# Google reads only the first 500 KiB of a robots.txt (CONTRACT section 4).
MAX_ROBOTS_BYTES = 500 * 1024
# The Sitemaps protocol caps a URL below 2,048 characters; longer values are not sitemap URLs.
MAX_URL_CHARS = 2048
# Every candidate is echoed in each check's data map; the cap keeps the result far below Lambda's
# 6 MB response limit whatever a robots.txt lists (100 x 2,048 characters is 200 KB a copy).
MAX_CANDIDATES = 100
# Like unparsable lastmods, skipped values are listed up to a cap and then counted.
MAX_SKIPPED_LISTED = 20

_LINE_END = re.compile(r"\r\n|\r|\n")
# What may stand in a URL as it is; anything else (space, quotes, non-ASCII, controls) is
# percent-encoded, as it will be on the wire.
_URL_SAFE = "!#$%&'()*+,/:;=?@[]~-._"


@dataclass(frozen=True)
class RobotsSitemaps:
    """The usable `Sitemap:` URLs of a robots.txt, and issues about the values that were not."""

    urls: tuple[str, ...]
    issues: tuple[str, ...]


def _usable(url: str) -> bool:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 -- raises ValueError on a bad port
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def sitemap_urls(
    body: bytes, final_url: str, robots_url: str, truncated: bool = False
) -> RobotsSitemaps:
    """Collect the `Sitemap:` URLs of a robots.txt body, resolved against its final URL."""
    text = body.decode("utf-8", errors="replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = _LINE_END.split(text)
    if truncated and len(lines) > 1:
        lines.pop()  # the last line was cut by the read cap; its value would be a wrong URL
    urls: dict[str, None] = {}
    skipped: list[str] = []
    skipped_total = 0
    beyond_cap = 0
    for line in lines:
        name, sep, rest = line.partition(":")
        if not sep or name.strip().lower() != "sitemap":
            continue
        value = rest.split("#", 1)[0].strip()
        reason = None
        url = ""
        if not value:
            reason = "empty value"
        elif len(value) > MAX_URL_CHARS:
            reason = f"longer than {MAX_URL_CHARS} characters"
        else:
            try:
                url = quote(urljoin(final_url, value), safe=_URL_SAFE)
            except ValueError:  # urljoin refuses a malformed [IPv6] host
                url = ""
            if not _usable(url):
                reason = "not an http(s) URL"
        if reason is not None:
            skipped_total += 1
            if len(skipped) < MAX_SKIPPED_LISTED:
                skipped.append(
                    issue(robots_url, f"skipped Sitemap: value {cut_value(value)!r} ({reason})")
                )
            continue
        if url in urls:
            continue
        if len(urls) >= MAX_CANDIDATES:
            beyond_cap += 1
            continue
        urls[url] = None
    if skipped_total > len(skipped):
        skipped.append(issue(robots_url, f"{skipped_total} Sitemap: values skipped in all"))
    if beyond_cap:
        skipped.append(
            issue(
                robots_url,
                f"{beyond_cap} more Sitemap: URLs beyond the first {MAX_CANDIDATES} not used",
            )
        )
    return RobotsSitemaps(urls=tuple(urls), issues=tuple(skipped))
