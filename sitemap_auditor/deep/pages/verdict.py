"""Indexability, read as Google documents it: pure rules from a page's final status, the redirect
hops, its headers and its head. No I/O: check.py gathers the facts, this module judges them.

The most restrictive reason wins, in this order: a redirect that fails, a final status that is not
2xx, `noindex` (header or meta; `none` and a past `unavailable_after` count), a canonical naming
another URL, a soft 404 (this tool's own hint: a 2xx HTML page whose <title>, or a part of it
the site joined with a separator, is only an error's words, "404", "Page not found", or an empty
body).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime

from sitemap_auditor.core import urls
from sitemap_auditor.core.errors import FetchErrorKind
from sitemap_auditor.core.lastmod import XML_SPACE, lastmod_key, parse_lastmod
from sitemap_auditor.core.text import clip
from sitemap_auditor.deep.lastmods import DATE_SLACK_US, period_start
from sitemap_auditor.deep.pages.head import HeadFacts

__all__ = [
    "LASTMOD_TOLERANCE",
    "REASONS",
    "PageTime",
    "Verdict",
    "canonical_of",
    "failed",
    "judge",
    "lastmod_disagrees",
    "page_modified",
    "robots_noindex",
    "same_resource",
]

# Reasons a listed page is not indexable, as the page rows and findings name them.
REASONS = (
    "blocked-by-robots",
    "page-not-found",
    "page-unauthorized",
    "page-forbidden",
    "page-other-4xx",
    "page-server-error",
    "page-rate-limited",
    "page-redirect",
    "page-redirect-error",
    "page-noindex",
    "page-canonicalised",
    "page-unreachable",
    "page-soft-404",
)
# A page's own time and its <lastmod> may differ this much before they are said to disagree.
LASTMOD_TOLERANCE = timedelta(days=1)
# A date alone names a day in a zone it does not say: its first moment is at most the widest
# zone's 14 hours (lastmods.DATE_SLACK_US) before 00:00 UTC, its last at most this much after
# 23:59:59 UTC (UTC-12).
_WEST_MOST = timedelta(hours=12)
_EPOCH = datetime(1, 1, 1, tzinfo=UTC)  # where lastmod keys count from
_US = timedelta(microseconds=1)
# A Last-Modified this close to the answer's Date is the time of the response, not of the page.
_RESPONSE_TIME = timedelta(seconds=60)
_REDIRECT_ERRORS = frozenset(
    {FetchErrorKind.TOO_MANY_REDIRECTS, FetchErrorKind.OTHER_SCHEME, FetchErrorKind.INVALID_URL}
)
# A Link header is read this far for a canonical (headers of that size are no one's links).
MAX_LINK_CHARS = 16 * 1024
# Names that are directives with a value, not a user agent's prefix.
_VALUED = frozenset({"unavailable_after", "max-snippet", "max-image-preview", "max-video-preview"})
# The soft 404 hint reads a <title> in the parts sites join with a separator ("Page not found
# – Shop", "Page Not Found • Instagram") and takes one whose whole part says so ("404: Not
# found", "Error 404 - Not Found", "Page Not Found (404)"): the words alone are in ordinary
# titles too ("404 Days of Summer – Movie Review", "Why the Nokia 3310 is no longer available",
# "Error – Wikipedia"). A colon or a comma also joins a site's name to an error's words
# ("Acme: Page not found", "Page Not Found, Acme"), but a subtitle to a number or a phrase just
# as often ("404: A Novel", "Not Found: A Memoir", "Article not found, by Jane Doe"): past them,
# only a page's or a file's words count ("page not found", "404 not found").
_TITLE_PARTS = re.compile(r"\s+-+\s+|\s*[|\u2013\u2014\u00b7\u2022\u00bb\u00ab]+\s*|\s+::\s+")
_SUBTITLES = re.compile(r"\s*[:,]\s+")
_GONE = (
    r"(?:(?:you\s+(?:are|were|re)\s+looking\s+for|(?:you\s+)?requested)\s+)?"
    r"(?:(?:was|is|has been)\s+)?"
    r"(?:not[\s_]+found(?:\s+on\s+this\s+server)?|(?:could\s*(?:not|n't)|can\s*not|can't)\s+be"
    r"\s+found|does\s*(?:not|n't)\s+exist|(?:isn't|is\s+not|no\s+longer)\s+available"
    r"|nothing\s+found)"
    r"(?:\s*\((?:error\s*)?404\))?"
)
_THE = r"(?:(?:the|this|that)\s+)?(?:requested\s+)?"
_NOT_THERE = (
    rf"{_THE}(?:(?:page|file|file or directory|content|post|article|product|resource|url"
    rf"|document)\s+)?{_GONE}"
)
_PAGE_NOT_THERE = rf"{_THE}(?:page|file|file or directory|url)\s+{_GONE}"
_404 = r"(?:http\s*)?(?:error\s*)?404(?:\s*error)?(?:\s*page)?"
_ERROR_TITLE = re.compile(
    r"(?:(?:oops|sorry|whoops)[!.,]*\s*)?(?:error\s*:?\s*)?"
    rf"(?:{_404}(?:\s*[-:.(]?\s*{_NOT_THERE}\)?)?|{_NOT_THERE})"
    r"(?:\s*!*1*)?"
)
_NOT_THERE_ONLY = re.compile(
    rf"(?:(?:oops|sorry|whoops)[!.,]*\s*)?(?:{_404}\s*[-.(]?\s*{_NOT_THERE}|{_PAGE_NOT_THERE})\)?"
)


@dataclass(frozen=True)
class Verdict:
    """Whether a page may be indexed, and if not, why."""

    indexable: bool
    reason: str | None
    noindex: str | None  # "header" or "meta"
    canonical: str | None  # the canonical URL as resolved, when one is given


def _instant(text: str) -> datetime | None:
    text = text.strip()
    found = parse_lastmod(text)
    if found is not None:
        return found
    try:
        got = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        pass
    else:
        return got if got.tzinfo is not None else None
    try:
        got = datetime.fromisoformat(text)
    except ValueError:
        return None
    return got if got.tzinfo is not None else None


def _applies(agent: str | None) -> bool:
    return agent is None or agent in ("googlebot", "robots")


def _noindex_in(tokens: Sequence[str], now: datetime, prefixed: bool) -> bool:
    """Whether comma-split directives say noindex for Googlebot; prefixed: header `bot: ...`."""
    agent: str | None = None
    i = 0
    while i < len(tokens):
        token = tokens[i].strip()
        i += 1
        name, colon, rest = token.partition(":")
        name = name.strip().lower()
        if prefixed and colon and name not in _VALUED and " " not in name and name:
            agent, token = name, rest.strip()
            name, colon, rest = token.partition(":")
            name = name.strip().lower()
        if not _applies(agent):
            continue
        if name in ("noindex", "none"):
            return True
        if name == "unavailable_after" and colon:
            when = _instant(rest)
            if when is None and i < len(tokens):  # a date with a comma: "Friday, 25-Jun-2010"
                when = _instant(rest + "," + tokens[i])
            if when is not None and when < now:
                return True
    return False


def robots_noindex(header_lines: Sequence[str], meta: Sequence[str], now: datetime) -> str | None:
    """ "header" when an X-Robots-Tag line says noindex to Googlebot, else "meta" when a meta tag
    does. Each header line is read on its own, as Google reads them: a `bot:` prefix applies to
    the directives after it in its line, never to another line's."""
    if any(_noindex_in(line.split(","), now, prefixed=True) for line in header_lines):
        return "header"
    if any(_noindex_in(m.split(","), now, prefixed=False) for m in meta):
        return "meta"
    return None


def _link_canonical(link: str | None) -> str | None:
    """The target of a `Link: <url>; rel="canonical"` header, if one is given: the header read
    as RFC 8288 writes it, link-value by link-value (a comma inside <...> or inside a quoted
    parameter separates nothing), in one pass over its first MAX_LINK_CHARS. A malformed
    link-value is passed over to the next comma; a link-value's first `rel` counts, a second is
    ignored (§3.3); a value in single quotes is read as in double ones, as browsers do."""
    if not link:
        return None
    link = link[:MAX_LINK_CHARS]
    n, at = len(link), 0
    for _ in range(50):
        while at < n and link[at] in " \t,":
            at += 1
        if at >= n:
            return None
        close = link.find(">", at) if link[at] == "<" else -1
        if close < 0:
            at = _next_value(link, at)
            continue
        target, at = link[at + 1 : close].strip(), close + 1
        rel: str | None = None
        while True:  # the parameters: `; name`, `; name=token` or `; name="quoted"`
            while at < n and link[at] in " \t":
                at += 1
            if at >= n or link[at] == ",":
                break
            if link[at] != ";":
                rel, at = None, _next_value(link, at)  # malformed: this link-value says nothing
                break
            end = at + 1
            while end < n and link[end] not in '=;,"':
                end += 1
            name = link[at + 1 : end].strip().lower()
            value = ""
            if end < n and link[end] == "=":
                end += 1
                while end < n and link[end] in " \t":
                    end += 1
                if end < n and link[end] == '"':
                    value, end = _quoted(link, end)
                else:
                    stop = end
                    while stop < n and link[stop] not in ";,":
                        stop += 1
                    value, end = link[end:stop].strip().strip("'"), stop
            if name == "rel" and rel is None:
                rel = value
            at = end
        if rel is not None and "canonical" in rel.lower().split():
            return clip(target, 4096)
    return None


def _next_value(link: str, at: int) -> int:
    """Where the link-value after the one at `at` starts: past the next comma, or the end."""
    comma = link.find(",", at)
    return len(link) if comma < 0 else comma + 1


def _quoted(text: str, at: int) -> tuple[str, int]:
    """The quoted string opening at text[at] (escapes undone) and where it ends (past the
    closing quote; the text's end when it never closes)."""
    out: list[str] = []
    i = at + 1
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            out.append(text[i + 1])
            i += 2
        elif c == '"':
            return "".join(out), i + 1
        else:
            out.append(c)
            i += 1
    return "".join(out), i


def canonical_of(
    headers: Mapping[str, str], head: HeadFacts | None, page: urls.WebURL
) -> urls.WebURL | None:
    """The page's canonical URL (the head's first, then a Link header's), read once, against
    the page's own reading (the head's, against its <base href> when it gives one, as the HTML
    standard reads a document's URLs); None when none is given or it is no http(s) URL."""
    base = page.href
    written = head.canonical if head is not None and head.canonical else None
    if written is not None and head is not None and head.base:
        with contextlib.suppress(urls.UnfetchableURLError):
            base = urls.read(head.base, page.href).href
    written = written or _link_canonical(headers.get("Link"))
    if written is None:
        return None
    try:
        return urls.read(written, base)
    except urls.UnfetchableURLError:
        return None


def same_resource(a: urls.WebURL, b: urls.WebURL) -> bool:
    """Whether two readings name one page (urls.resource_key): host case, a default port, a
    fragment, an empty query and the spelling of a percent-escape make no difference; a
    trailing slash, the scheme, a path's case or a query do."""
    return urls.resource_key(a) == urls.resource_key(b)


def _status_reason(status: int) -> str | None:
    if status in (404, 410):
        return "page-not-found"
    if status == 401:
        return "page-unauthorized"
    if status == 403:
        return "page-forbidden"
    if status == 429:  # not a page's error but the site's pace: Google sets it apart
        return "page-rate-limited"
    if 400 <= status <= 499:
        return "page-other-4xx"
    if status >= 500:
        return "page-server-error"
    if not 200 <= status <= 299:
        return "page-redirect-error"  # a 3xx without a Location, or a 1xx
    return None


def _soft_404(status: int, head: HeadFacts | None, html: bool, body_bytes: int) -> bool:
    if status == 204:  # no content, whatever its type says: Google may show a soft 404
        return True
    if html and (body_bytes == 0 or (head is not None and head.empty)):
        return True
    if head is None or head.title is None:
        return False
    return _error_title(head.title)


def _error_title(title: str) -> bool:
    """Whether a page's <title> names an error page: one of its parts is only that."""
    text = " ".join(title.lower().replace("\u2019", "'").split())
    for part in _TITLE_PARTS.split(text):
        if _ERROR_TITLE.fullmatch(part.strip(_AROUND)) is not None:
            return True
        pieces = _SUBTITLES.split(part)
        if len(pieces) > 1 and any(_NOT_THERE_ONLY.fullmatch(p.strip(_AROUND)) for p in pieces):
            return True
    return False


# What may stand around an error's words in a title: punctuation, quotes, a sad face.
_AROUND = ' .!?\u00a1\u00bf":('


def judge(
    *,
    requested: urls.WebURL,
    final: urls.WebURL,
    status: int,
    redirected: bool,
    headers: Mapping[str, str],
    robots_tags: Sequence[str],
    head: HeadFacts | None,
    body_bytes: int,
    now: datetime,
) -> Verdict:
    """The verdict on one listed URL from its final answer (after redirected hops, if any):
    requested and final are the fetch's readings of the URL asked and of the one that answered;
    robots_tags: the value of each X-Robots-Tag line of that answer, on its own."""
    canonical = canonical_of(headers, head, final) if 200 <= status <= 299 else None
    reason = _status_reason(status)
    noindex = None
    if reason is None:
        meta = head.robots if head is not None else ()
        noindex = robots_noindex(robots_tags, meta, now)
        html = head is not None
        if noindex is not None:
            reason = "page-noindex"
        elif (
            canonical is not None
            and not same_resource(canonical, final)
            # A redirect whose target names the listed URL canonical: the two contradict each
            # other, and listing the canonical would not help. The redirect is what to fix.
            and not (redirected and same_resource(canonical, requested))
        ):
            reason = "page-canonicalised"
        elif _soft_404(status, head, html, body_bytes):
            reason = "page-soft-404"
        elif redirected and not same_resource(requested, final):
            reason = "page-redirect"
    shown = canonical.href.split("#", 1)[0] if canonical is not None else None
    return Verdict(reason is None, reason, noindex, shown)


def failed(kind: FetchErrorKind, redirected: bool) -> Verdict:
    """The verdict on a URL whose fetch failed: a redirect error when a redirect led to it,
    or unreachable (a listed URL that is no URL to request, a relative <loc>, was never a
    redirect: the walk's invalid-url says what is wrong with it)."""
    if redirected and (kind in _REDIRECT_ERRORS or kind is FetchErrorKind.BLOCKED):
        return Verdict(False, "page-redirect-error", None, None)
    return Verdict(False, "page-unreachable", None, None)


@dataclass(frozen=True)
class PageTime:
    """When a page last changed, as it says so: `stated` in its own head (its content's
    time), or not (a server's Last-Modified, which static hosts set to the deploy)."""

    when: datetime
    stated: bool

    def isoformat(self) -> str:
        return self.when.isoformat()


def page_modified(headers: Mapping[str, str], head: HeadFacts | None) -> PageTime | None:
    """When the page says it last changed: its head's time, or a Last-Modified that is not simply
    the time of the response."""
    if head is not None and head.modified:
        found = _instant(head.modified)
        if found is not None:
            return PageTime(found, stated=True)
    last = headers.get("Last-Modified")
    if not last:
        return None
    when = _instant(last)
    date = _instant(headers.get("Date") or "")
    if when is None or (date is not None and abs(date - when) <= _RESPONSE_TIME):
        return None
    return PageTime(when, stated=False)


def lastmod_disagrees(lastmod: str | None, modified: PageTime | None) -> bool:
    """Whether a sitemap's <lastmod> and the page's own time differ by more than the tolerance.

    A <lastmod> with a time is an instant. One without (a date, a month, a year) names a period
    in the site's own zone, which it does not say: from the period's first moment at UTC+14 to
    its last at UTC-12. A server's Last-Modified (not `stated`) counts one way only: a static
    host sends the deploy's time, later than a true <lastmod>; a <lastmod> later than it claims
    a change the server does not know of."""
    if lastmod is None or modified is None:
        return False
    # In lastmod keys (microseconds since 0001-01-01), as years 0001 and 9999 stay in range.
    text = lastmod.strip(XML_SPACE)
    listed = lastmod_key(text)
    if listed is None:
        return False
    latest = earliest = listed
    if "T" not in text:
        earliest = period_start(text, listed) - DATE_SLACK_US
        latest = listed + _WEST_MOST // _US
    when = (modified.when - _EPOCH) // _US
    tolerance = LASTMOD_TOLERANCE // _US
    if when < earliest - tolerance:
        return True  # the <lastmod> is later than the page's time
    return modified.stated and when > latest + tolerance
