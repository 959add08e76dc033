"""robots.txt reading: the `Sitemap:` lines of a body, as Googlebot reads them, made into URLs.

Which lines count follows Google's open-source parser (google/robotstxt, robots.cc) byte for byte
(docs/contract.md §4): a line Google reads does make the sitemap discoverable, so the auditor must
neither miss it nor, by ignoring it, report that robots.txt lists no sitemap.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from sitemap_auditor.core import urls
from sitemap_auditor.core.issues import Issue, Kind, cut_value, issue

__all__ = [
    "MAX_CANDIDATES",
    "MAX_LINE_BYTES",
    "MAX_ROBOTS_BYTES",
    "MAX_SKIPPED_LISTED",
    "MAX_URL_CHARS",
    "RobotsSitemaps",
    "SitemapLine",
    "iter_sitemap_lines",
    "shown",
    "sitemap_lines",
    "sitemap_url",
    "sitemap_urls",
    "utf16_encoding",
]

# Google reads only the first 500 KiB of a robots.txt (docs/contract.md §4).
MAX_ROBOTS_BYTES = 500 * 1024
# The Sitemaps protocol caps a URL below 2,048 characters; longer values are not sitemap URLs.
# The cap holds for the value as written and for the URL made from it, whose percent-encoding can
# make it up to twelve times longer: that keeps the size of each listed candidate bounded.
MAX_URL_CHARS = 2048
# docs/contract.md §4: every candidate tried costs up to 30 s and every one listed is echoed in each
# check's data map; 100 keeps the result far below Lambda's 6 MB response limit (100 x 2,048
# characters is 200 KB a copy). A robots.txt with 1,293 `Sitemap:` lines exists.
MAX_CANDIDATES = 100
# Like unparsable lastmods, skipped values (and lenient keys) are listed up to a cap, then counted.
MAX_SKIPPED_LISTED = 20
# robots.cc keeps at most kMaxLineLen - 1 = 2083 * 8 - 1 bytes of a line and drops the rest.
MAX_LINE_BYTES = 2083 * 8 - 1

_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = {b"\xff\xfe": "UTF-16LE", b"\xfe\xff": "UTF-16BE"}
_LINE_END = re.compile(rb"\r\n|\r|\n")
# robots.cc strips what C's isspace() accepts; only a space or a tab stands for a missing colon.
_SPACE = b" \t\n\v\f\r"
_BLANK = b" \t"
_KEYS = (b"sitemap", b"site-map")


@dataclass(frozen=True, slots=True)
class SitemapLine:
    """One line Google's parser reads as a `Sitemap:` line: its key and value as written."""

    number: int  # 1-based, counted as robots.cc counts (`\r\n` is one line end)
    key: bytes
    value: bytes
    colon: bool  # False when white space stood for the colon (`sitemap /s.xml`)

    @property
    def lenient(self) -> bool:
        """True when the line counts only through Google's leniency, not as `Sitemap:`."""
        return not self.colon or self.key.lower() != b"sitemap"


@dataclass(frozen=True)
class RobotsSitemaps:
    """The usable `Sitemap:` URLs of a robots.txt, and issues about how it was read."""

    urls: tuple[str, ...]
    issues: tuple[Issue, ...]  # about its Sitemap: lines: lenient keys, skipped values, the cap
    notes: tuple[Issue, ...] = ()  # about the file as a whole: its encoding


def utf16_encoding(body: bytes) -> str | None:
    """Return `UTF-16LE` or `UTF-16BE` when the body starts with that byte-order mark, else None."""
    return _UTF16_BOMS.get(body[:2])


def _as_utf8(body: bytes) -> bytes:
    if utf16_encoding(body) is not None:
        # Decoded for the owner's sake though Google would not; a lone surrogate or odd last byte
        # becomes U+FFFD, so the re-encoded text is valid UTF-8 like any other.
        return body.decode("utf-16", errors="replace").encode("utf-8")
    # robots.cc skips a full or partial UTF-8 byte-order mark at the very start.
    for size in (3, 2, 1):
        if body.startswith(_UTF8_BOM[:size]):
            return body[size:]
    return body


def _key_and_value(line: bytes) -> tuple[bytes, bytes, bool] | None:
    # robots.cc GetKeyAndValueFrom, on a line already cut at its first NUL (C strings end there).
    line = line.split(b"#", 1)[0].strip(_SPACE)
    colon = line.find(b":")
    if colon >= 0:
        key, value = line[:colon].strip(_SPACE), line[colon + 1 :].strip(_SPACE)
    else:
        # "Some people forget the colon": white space stands for it between exactly two words.
        blank = min((i for i in (line.find(b" "), line.find(b"\t")) if i >= 0), default=-1)
        if blank < 0:
            return None
        rest = line[blank:].lstrip(_BLANK)
        if b" " in rest or b"\t" in rest:
            return None
        key, value = line[:blank].strip(_SPACE), line[blank + 1 :].strip(_SPACE)
    return (key, value, colon >= 0) if key else None


def _lines(text: bytes, truncated: bool) -> Iterator[bytes]:
    # One line at a time: a 500 KiB body of short lines, split at once, costs megabytes.
    start = 0
    for end in _LINE_END.finditer(text):
        yield text[start : end.start()]
        start = end.end()
    if not truncated or start == 0:
        yield text[start:]  # else the last line was cut by the read cap: its value would be wrong


def iter_sitemap_lines(body: bytes, truncated: bool = False) -> Iterator[SitemapLine]:
    """Yield the lines of a robots.txt body that Google's parser reads as `Sitemap:` lines."""
    for number, raw in enumerate(_lines(_as_utf8(body), truncated), start=1):
        line = raw[:MAX_LINE_BYTES].split(b"\0", 1)[0]
        # Cheap test first: a key starts the line, and most lines are not Sitemap: lines.
        if not line.lstrip(_SPACE)[:8].lower().startswith(_KEYS):
            continue
        parsed = _key_and_value(line)
        if parsed is not None and parsed[0].lower().startswith(_KEYS):
            yield SitemapLine(number, *parsed)


def sitemap_lines(body: bytes, truncated: bool = False) -> tuple[SitemapLine, ...]:
    """Return the lines of a robots.txt body that Google's parser reads as `Sitemap:` lines."""
    return tuple(iter_sitemap_lines(body, truncated))


def shown(data: bytes) -> str:
    """Bytes from a site as text for an issue: valid Unicode, U+FFFD where they are not UTF-8."""
    return data.decode("utf-8", errors="replace")


def _url(value: str, base: str) -> tuple[str, None] | tuple[None, str]:
    # docs/contract.md §4, §8: read once, as a browser reads it (the WHATWG URL Standard's
    # parser), resolved against robots.txt's final URL; that reading is what is listed and what
    # is fetched. Around it, the contract's own rules: the host as for siteBase (no empty label,
    # what DNS can carry), a byte that is not UTF-8 percent-encoded as itself, the length cap.
    try:
        url = urls.read(urls.escape_undecodable(value), base).href
    except urls.UnfetchableURLError as e:
        return None, e.reason
    # The cap holds the URL too, not only the value (CONTRACT §4 names the value's): a relative
    # value is resolved against robots.txt's final URL, which redirects make as long as they
    # like, and each candidate travels in the result three times, which CONTRACT §6 keeps well
    # under Lambda's 6 MB whatever the site serves (100 values under a 60,000-character path
    # made 18 MB).
    if len(url) > MAX_URL_CHARS:
        return None, f"longer than {MAX_URL_CHARS} characters as a URL"
    return url, None


def _made(written: bytes, base: str) -> tuple[str, None] | tuple[None, str]:
    value = written.decode("utf-8", errors="surrogateescape")
    if not value:
        return None, "empty value"
    if len(value) > MAX_URL_CHARS:
        return None, f"longer than {MAX_URL_CHARS} characters"
    return _url(value, base)


def sitemap_url(written: bytes, base: str) -> tuple[str, None] | tuple[None, str]:
    """A `Sitemap:` value made into a URL as for the candidates (or why it is none): for the deep
    audit, which reads every line rather than the first MAX_CANDIDATES."""
    return _made(written, base)


def _lenient_issue(robots_url: str, key: bytes, colon: bool, count: int) -> Issue:
    written = repr(cut_value(shown(key)))
    how = f"key {written}" if colon else f"key {written} without a colon"
    times = f" ({count} lines)" if count > 1 else ""
    return issue(
        robots_url,
        Kind.LENIENT_KEY,
        f"{how}{times} is read as Sitemap: by Google's lenient parser, but other crawlers may "
        "not read it: write 'Sitemap: <url>'",
    )


def sitemap_urls(
    body: bytes, final_url: str, robots_url: str, truncated: bool = False
) -> RobotsSitemaps:
    """Collect the `Sitemap:` URLs of a robots.txt body, resolved against its final URL."""
    encoding = utf16_encoding(body)
    notes: tuple[Issue, ...] = ()
    if encoding is not None:
        notes = (
            issue(
                robots_url,
                Kind.UTF16_ROBOTS,
                f"{encoding} (byte-order mark {body[:2].hex(' ').upper()}); read here, but Google "
                "reads robots.txt as UTF-8 only and finds none of its lines: save it as UTF-8",
            ),
        )
    urls: dict[str, None] = {}
    left_out: set[str] = set()
    # Issues in the order their lines come; a lenient key's entry is filled in at the end, when
    # the number of lines that wrote it is known.
    listed: list[Issue | tuple[bytes, bool]] = []
    lenient: Counter[tuple[bytes, bool]] = Counter()
    skipped_listed = skipped_total = 0
    # Large robots.txt files repeat their values; each is made into a URL once.
    made: dict[bytes, tuple[str, None] | tuple[None, str]] = {}
    for line in iter_sitemap_lines(body, truncated):
        if line.lenient:
            form = (line.key, line.colon)
            if form not in lenient and len(lenient) < MAX_SKIPPED_LISTED:
                listed.append(form)
            lenient[form] += 1
        if line.value not in made:
            made[line.value] = _made(line.value, final_url)
        url, reason = made[line.value]
        if url is None:
            skipped_total += 1
            if skipped_listed < MAX_SKIPPED_LISTED:
                skipped_listed += 1
                quoted = cut_value(shown(line.value))
                why = f"skipped Sitemap: value {quoted!r} ({reason})"
                listed.append(issue(robots_url, Kind.SKIPPED_SITEMAP, why))
        elif url not in urls:
            if len(urls) < MAX_CANDIDATES:
                urls[url] = None
            else:
                left_out.add(url)
    issues = [
        entry if isinstance(entry, Issue) else _lenient_issue(robots_url, *entry, lenient[entry])
        for entry in listed
    ]
    if len(lenient) > MAX_SKIPPED_LISTED:
        issues.append(
            issue(
                robots_url,
                Kind.LENIENT_KEYS_TOTAL,
                f"{sum(lenient.values())} lines in all, with {len(lenient)} different keys, "
                "are read as Sitemap: by Google's lenient parser only",
            )
        )
    if skipped_total > skipped_listed:
        total = f"{skipped_total} Sitemap: values skipped in all"
        issues.append(issue(robots_url, Kind.SKIPPED_TOTAL, total))
    if left_out:
        issues.append(
            issue(
                robots_url,
                Kind.CANDIDATES_LEFT_OUT,
                f"{len(left_out)} more distinct Sitemap: URLs beyond the first {MAX_CANDIDATES} "
                "left out, never tried",
            )
        )
    return RobotsSitemaps(urls=tuple(urls), issues=tuple(issues), notes=notes)
