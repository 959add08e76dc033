"""What one audit came to, as values: the checks, the data map, the issues and where the facts
came from. The platform's Response (response.render), the log lines and metrics
(observability.py) and the command line's report (cli.py) are each a rendering of it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, is_dataclass, replace
from datetime import datetime
from enum import Enum
from typing import TYPE_CHECKING, Any, TypeVar

from sitemap_auditor.core.codes import CheckCode, Status
from sitemap_auditor.core.credentials import SpelledSecret, WholeSecret
from sitemap_auditor.core.issues import Issue

if TYPE_CHECKING:
    from sitemap_auditor.sharing.lease import (
        Source,  # only named here: the deep audit, which shares nothing, skips it
    )

__all__ = ["Check", "DataMap", "Outcome", "Provenance", "redact", "redacted"]

T = TypeVar("T")


# docs/contract.md §8: what a cut leaves of a secret. Every cut of an echoed text ends in "...",
# or in the quote or bracket that closes what it cut (a sample quoted with repr()); none keeps
# more than an issue's 500 characters.
_CUT = ("...",)
_CLOSERS = frozenset("'\">)")
MIN_CUT_PREFIX = 3
_MAX_CUT_PREFIX = 500


def redact(text: str, secrets: Iterable[str], marks: tuple[str, ...] = _CUT) -> str:
    """Replace every secret in text with ***, and what a cut left of one: its first
    characters (3 or more) right before a cut's mark ("..."; marks: the marks a caller's cuts
    leave) or the quote that closes the text, and, where text starts with a mark (a cut at its
    start), its last characters (3 or more) right after that mark."""
    wanted = [s for s in secrets if s]
    lowered: str | None = None  # text.lower(), while text is unchanged
    for secret in wanted:
        if isinstance(secret, SpelledSecret):
            text, lowered = secret.pattern.sub("***", text), None
            continue
        if secret in text:
            text, lowered = text.replace(secret, "***"), None
        # And in any case of its letters: a URL's reading lower-cases a host, and a token a
        # site lists as one is named so in the look-up's error (docs/contract.md §8).
        low = _lower_cased(secret)
        if low is not None:
            if lowered is None:
                lowered = text.lower()
            if low in lowered:
                text, lowered = re.sub(re.escape(secret), "***", text, flags=re.IGNORECASE), None
    cuttable = [s for s in wanted if not isinstance(s, WholeSecret)]
    pattern = _pattern(marks)
    if marks != _CUT:
        text = _redact_cut_suffix(text, cuttable, pattern)
    return _redact_cut_prefixes(text, cuttable, pattern, marks)


@functools.lru_cache(maxsize=256)
def _lower_cased(secret: str) -> str | None:
    """The secret in lower case, or None when it has no letter that case changes."""
    return secret.lower() if secret.lower() != secret.upper() else None


@functools.lru_cache(maxsize=8)
def _pattern(marks: tuple[str, ...]) -> re.Pattern[str]:
    """Where a text was cut: any of marks (the longest first)."""
    return re.compile("|".join(re.escape(m) for m in sorted(marks, key=len, reverse=True)))


def _redact_cut_suffix(text: str, secrets: Sequence[str], marks: re.Pattern[str]) -> str:
    # A cut at the start of text (a quote of the middle of a line) may have left a secret's
    # last characters right after its mark (the longest such suffix is replaced), or, cut at
    # both ends, nothing but a piece of its middle.
    lead = marks.match(text)
    if lead is None:
        return text
    at = lead.end()
    head = text[at : at + MIN_CUT_PREFIX]
    if len(head) < MIN_CUT_PREFIX:
        return text
    # A mark that ends text (marks are at most 3 characters long: "...").
    ends = (m for m in marks.finditer(text, max(at, len(text) - 3)) if m.end() == len(text))
    tail = next(ends, None)
    if tail is not None:
        inner = text[at : tail.start()]
        if len(inner) >= MIN_CUT_PREFIX and any(inner in s for s in secrets):
            return text[:at] + "***" + text[tail.start() :]
    longest = 0
    for secret in secrets:
        # Where in the secret the text after the mark may begin: its first characters found
        # in it, each tried once (not every suffix length: a long token has hundreds).
        pos = secret.find(head, max(1, len(secret) - _MAX_CUT_PREFIX))
        while pos != -1:
            size = len(secret) - pos
            if size > longest and text.startswith(secret[pos:], at):
                longest = size
                break
            pos = secret.find(head, pos + 1)
    if longest:
        return text[:at] + "***" + text[at + longest :]
    return text


def _redact_cut_prefixes(
    text: str, secrets: Sequence[str], pattern: re.Pattern[str], marks: tuple[str, ...]
) -> str:
    ends = [m.start() for m in pattern.finditer(text)]
    if text and text[-1] in _CLOSERS:
        ends.append(len(text) - 1)
    if not ends:
        return text  # no cut: the common case, decided before the secrets are looked at
    # In any case of its letters, as a whole secret is (`redact`): looked for in the lower-cased
    # text, where lower-casing keeps every position (it nearly always does).
    hay = text.lower()
    if len(hay) == len(text):
        secrets = [s.lower() for s in secrets]
    else:
        hay = text
    spans: list[tuple[int, int]] = []
    previous = 0  # where the text after the previous mark starts
    # Each secret's first characters, the longest prefix a cut may have left, and whether a
    # mark of its own may be in it.
    hunted = [
        (
            s,
            s[:MIN_CUT_PREFIX],
            min(len(s) - 1, _MAX_CUT_PREFIX),
            any(m in s[:_MAX_CUT_PREFIX] for m in marks),
        )
        for s in secrets
        if len(s) > MIN_CUT_PREFIX
    ]
    for end in ends:
        for secret, head, longest, dotted in hunted:
            lo = max(0, end - longest)
            if not dotted:
                # What a cut left holds no mark of its own: the windows searched are then
                # disjoint, and the work linear, however many marks a hostile text holds.
                lo = max(lo, previous)
            # The leftmost start found is the longest prefix that ends here.
            start = hay.find(head, lo, end)
            while start != -1 and not secret.startswith(hay[start:end]):
                start = hay.find(head, start + 1, end)
            if start != -1:
                spans.append((start, end))
        mark = pattern.match(text, end)
        if mark is not None:
            previous = mark.end()
    if not spans:
        return text
    out: list[str] = []
    pos = 0
    for start, end in sorted(spans):
        if end <= pos:
            continue
        out.append(text[pos : max(start, pos)])
        out.append("***")
        pos = end
    out.append(text[pos:])
    return "".join(out)


@dataclass(frozen=True)
class Check:
    """One check that fired, its texts filled in."""

    code: CheckCode
    resource: str | None
    message: str | None
    recommendation: str | None

    @property
    def status(self) -> Status:
        """The status of its CheckCode."""
        return self.code.status


@dataclass(frozen=True)
class DataMap:
    """The data map every check carries (docs/contract.md §3), field for field."""

    site_base: str | None
    robots_txt_url: str | None
    robots_txt_http_status: int | None
    robots_txt_lists_sitemap: bool
    candidate_sitemaps: tuple[str, ...]
    selected_sitemap_url: str | None
    sitemap_type: str | None
    sitemap_http_status: int | None
    content_type: str | None
    entry_count: int | None
    latest_lastmod: str | None
    max_age_days: int
    issues: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """The data map as the Response carries it, keys in the contract's order."""
        return {
            "siteBase": self.site_base,
            "robotsTxtUrl": self.robots_txt_url,
            "robotsTxtHttpStatus": self.robots_txt_http_status,
            "robotsTxtListsSitemap": self.robots_txt_lists_sitemap,
            "candidateSitemaps": list(self.candidate_sitemaps),
            "selectedSitemapUrl": self.selected_sitemap_url,
            "sitemapType": self.sitemap_type,
            "sitemapHttpStatus": self.sitemap_http_status,
            "contentType": self.content_type,
            "entryCount": self.entry_count,
            "latestLastmod": self.latest_lastmod,
            "maxAgeDays": self.max_age_days,
            "issues": list(self.issues),
        }


@dataclass(frozen=True)
class Provenance:
    """How the audit got its site's facts (docs/contract.md §7) and what sharing did."""

    source: Source
    revalidated: int = 0  # URLs a 304 confirmed, when this audit fetched
    bytes_saved: int = 0  # what the site did not have to send again
    reason: str | None = None  # why it fetched (lease.Reason), when it did
    refreshed_ahead: bool = False
    throttled: int = 0  # throttled store answers it rode out
    unshareable: str | None = None  # why its own facts could not go to the store
    waited_s: float = 0.0  # how long it waited for another audit's fetch


@dataclass(frozen=True)
class Outcome:
    """One audit's outcome. `checks` and `data` are None when the audit could not finish (the
    ERROR response of a defect or an unreadable secret)."""

    status: Status
    message: str | None
    finished: datetime
    checks: tuple[Check, ...] | None
    data: DataMap | None
    issues: tuple[Issue, ...] = ()
    latest_lastmod_written: str | None = None  # the selected sitemap's latest, as written
    provenance: Provenance | None = None

    @property
    def check_codes(self) -> tuple[CheckCode, ...]:
        """The CheckCodes that fired, in order."""
        return tuple(c.code for c in self.checks or ())


def _redact(value: T, secrets: Sequence[str]) -> T:
    # Identities (statuses, kinds, CheckCodes) are never redacted; what the site said is.
    result: Any = value
    if isinstance(value, Issue):
        result = Issue(redact(value.subject, secrets), value.kind, redact(value.detail, secrets))
    elif isinstance(value, Enum | CheckCode | datetime):
        pass
    elif isinstance(value, str):
        result = redact(value, secrets)
    elif isinstance(value, tuple):
        result = tuple(_redact(v, secrets) for v in value)
    elif is_dataclass(value) and not isinstance(value, type):
        result = replace(
            value, **{f.name: _redact(getattr(value, f.name), secrets) for f in fields(value)}
        )
    return result  # type: ignore[no-any-return]


def redacted(outcome: Outcome, secrets: Sequence[str]) -> Outcome:
    """The outcome with every secret replaced by *** in what the site said."""
    return _redact(outcome, secrets) if secrets else outcome
