"""What the deep audit's reports show of the credentials it was given: nothing (docs/deep.md).

Every string a site could have put in a report is redacted, map keys that are URLs included
(`run.sitemapSeconds`). The values the audit writes itself from a fixed vocabulary or a
canonical time (a finding's kind and severity, the document's format, a UTC instant) are left as
they are: a credential that happens to spell one (a password `error`, a header value `1`) is no
echo of it, and redacting it would break the document's schema and every report read from it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from sitemap_auditor.audit import outcome
from sitemap_auditor.core.parser import MAX_LASTMOD_CHARS
from sitemap_auditor.core.text import CUT_MARK, clip
from sitemap_auditor.core.urls import strip_userinfo
from sitemap_auditor.deep.options import UrlRecord
from sitemap_auditor.deep.reading.entries import MAX_FIELD_CHARS

__all__ = ["CUT_MARKS", "OWN_VALUES", "cleaner", "redact", "redacted", "url_stream"]

# Where a shown text was cut: the deep audit's own mark (core.text.clip, and the quotes of a
# line, cut at either end) and the Lambda's "...". What a cut left of a secret is by one of them.
CUT_MARKS = ("...", CUT_MARK)

# The keys whose values come from the audit's own vocabulary, never from what a site sent: in
# the document (docs/deep-document.schema.json: an enum, a constant or the time pattern; the
# agents robots.txt is read for; the Lambda verdict's CheckCodes and statuses) and in the page
# check's rows (`reason`, a kind; `noindex`; `blockedFor`, agents).
OWN_VALUES = frozenset(
    {
        "format",
        "version",
        "kind",
        "severity",
        "source",
        "group",
        "impact",
        "stoppedBy",
        "startedAt",
        "finishedAt",
        "earliest",
        "latest",
        "agent",
        "code",
        "status",
        "reason",
        "noindex",
        "blockedFor",
    }
)
# The maps whose keys are URLs a site gave.
_URL_KEYED = frozenset({"sitemapSeconds"})


def cleaner(secrets: Sequence[str]) -> Callable[[str], str]:
    """What a value holding an "@" is shown as: its secrets hidden while whole, then the userinfo
    of every URL in it removed (a password holding "@" and "/", `p@ss/word`, ends a URL's
    authority inside it: stripped first, its tail would be shown), then the secrets again."""
    if not secrets:
        return strip_userinfo

    def clean(text: str) -> str:
        return redact(strip_userinfo(redact(text, secrets)), secrets)

    return clean


def redact(text: str, secrets: Iterable[str]) -> str:
    """text with every secret replaced by ***, and what a cut left of one: its first characters
    before a mark (or a closing quote), its last characters after a mark text starts with."""
    return outcome.redact(text, secrets, CUT_MARKS)


def redacted(value: Any, secrets: Sequence[str]) -> Any:
    """A copy of a report's JSON-like value as it may be shown, wherever a site could have put a
    text: every secret replaced by ***, and the userinfo of every URL removed (a sitemap or a
    page may be listed as `http://user:password@host/...`; docs/contract.md §8)."""
    return _shown(value, cleaner(secrets), None)


def _shown(value: Any, clean: Callable[[str], str], key: str | None) -> Any:
    if isinstance(value, str):
        return value if key in OWN_VALUES else clean(value)
    if isinstance(value, dict):
        url_keyed = key in _URL_KEYED
        return {(clean(k) if url_keyed else k): _shown(v, clean, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_shown(v, clean, key) for v in value]
    return value


def url_stream(
    on_listed: Callable[[UrlRecord], None] | None,
    on_url: Callable[[UrlRecord], None] | None,
    secrets: tuple[str, ...],
) -> Callable[[UrlRecord], None] | None:
    """The one callback the walk gives each listed URL: on_listed's as listed, then on_url's
    with the secrets (longest first) replaced by *** in each of its texts: the URL, the
    sitemap's (a sitemap URL may be spelt with them) and the lastmod. A URL or a lastmod at
    the reading's bound was cut there: on_url's ends with the mark, as every cut does, so that
    the redaction finds what the cut left of a secret."""
    if on_url is not None:
        shown = on_url
        clean = cleaner(secrets)

        def redacted(u: UrlRecord) -> None:
            url, lastmod = clip(u.url, MAX_FIELD_CHARS), u.lastmod
            if lastmod is not None:
                lastmod = clip(lastmod, MAX_LASTMOD_CHARS)
            if not secrets:
                # Userinfo only: a text without "@" holds none, and is kept as it is.
                sitemap = clean(u.sitemap)
                url = clean(url)
                if url is not u.url or lastmod is not u.lastmod or sitemap is not u.sitemap:
                    u = UrlRecord(url, sitemap, u.line, lastmod)
                shown(u)
                return
            lastmod = None if lastmod is None else redact(lastmod, secrets)
            shown(UrlRecord(clean(url), clean(u.sitemap), u.line, lastmod))

        on_url = redacted
    if on_listed is None or on_url is None:
        return on_listed or on_url
    first, then = on_listed, on_url

    def both(u: UrlRecord) -> None:
        first(u)
        then(u)

    return both
