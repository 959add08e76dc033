"""The platform's Response: the shared data map, the checks in order and the overall status."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from . import __version__, codes
from .credentials import WholeSecret
from .issues import Issue
from .lastmod import format_instant
from .rules import Fired, RuleInputs

__all__ = [
    "AUDITOR",
    "MAX_ERROR_MESSAGE",
    "RESPONSE_VERSION",
    "build",
    "data_map",
    "error",
    "format_date",
    "overall_status",
    "redact",
    "redact_tree",
]

RESPONSE_VERSION = 2.0
AUDITOR = {
    "id": "com.thirtysevenaudits.auditor.SitemapAuditor",
    "name": "Sitemap",
    "version": __version__,
}
# docs/contract.md §2: a defect's message is cut at 300 characters.
MAX_ERROR_MESSAGE = 300
_SPACE = re.compile(r"\s+")


def data_map(facts: RuleInputs, issues: Sequence[Issue]) -> dict[str, Any]:
    """Build the data map shared by every check (docs/contract.md §3)."""
    site = facts.site
    s = facts.selected
    latest = s.parsed.latest_lastmod if s else None
    return {
        "siteBase": site.url if site else None,
        "robotsTxtUrl": site.robots_txt_url if site else None,
        "robotsTxtHttpStatus": facts.robots_status,
        "robotsTxtListsSitemap": facts.robots_lists_sitemap,
        "candidateSitemaps": list(facts.candidates),
        "selectedSitemapUrl": s.url if s else None,
        "sitemapType": s.parsed.root if s else None,
        "sitemapHttpStatus": s.http_status if s else None,
        "contentType": s.content_type if s else None,
        "entryCount": s.parsed.entry_count if s else None,
        "latestLastmod": format_instant(latest) if latest else None,
        "maxAgeDays": facts.max_age_days,
        "issues": [i.text for i in issues],
    }


def _fill(template: str | None, values: dict[str, object]) -> str | None:
    if template is None:
        return None
    return template.format(**{k: "null" if v is None else v for k, v in values.items()})


def overall_status(statuses: Iterable[str]) -> str:
    """Combine the statuses of the checks other than INFORMATION (docs/contract.md §2)."""
    graded = [s for s in statuses if s != codes.INFORMATION]
    if graded and all(s == codes.ERROR for s in graded):
        return codes.ERROR
    for status in (codes.FAIL, codes.WARNING):
        if status in graded:
            return status
    return codes.SUCCESS


def format_date(moment: datetime) -> str:
    """The Response's `date`: UTC, to the second, with Z."""
    return format_instant(moment)


def build(fired: Sequence[Fired], data: dict[str, Any], finished: datetime) -> dict[str, Any]:
    """Build the platform Response from the fired checks and the shared data map."""
    checks = [
        {
            "status": f.code.status,
            "resource": f.resource,
            "message": _fill(f.code.message, f.values),
            "recommendation": _fill(f.code.recommendation, f.values),
            "score": 0,
            "data": data,
            "code": {
                "id": f.code.id,
                "description": f.code.description,
                "rationale": f.code.rationale,
            },
            "order": None,
        }
        for f in fired
    ]
    status = overall_status(f.code.status for f in fired)
    message = next((c["message"] for c in checks if c["status"] == status), None)
    return {
        "version": RESPONSE_VERSION,
        "auditor": dict(AUDITOR),
        "status": status,
        "date": format_date(finished),
        "message": message,
        "groupId": None,
        "checks": checks,
    }


# docs/contract.md §8: what a cut leaves of a secret. Every cut of an echoed text ends in "...",
# or in the quote or bracket that closes what it cut (a sample quoted with repr()); none keeps
# more than an issue's 500 characters.
_CUT = re.compile(r"\.\.\.")
_CLOSERS = frozenset("'\">)")
MIN_CUT_PREFIX = 3
_MAX_CUT_PREFIX = 500


def redact(text: str, secrets: Iterable[str]) -> str:
    """Replace every secret in text with ***, and what a cut left of one: its first
    characters (3 or more) right before a cut's "..." or the quote that closes the text."""
    wanted = [s for s in secrets if s]
    for secret in wanted:
        text = text.replace(secret, "***")
    return _redact_cut_prefixes(text, [s for s in wanted if not isinstance(s, WholeSecret)])


def _redact_cut_prefixes(text: str, secrets: Sequence[str]) -> str:
    ends = [m.start() for m in _CUT.finditer(text)]
    if text and text[-1] in _CLOSERS:
        ends.append(len(text) - 1)
    spans: list[tuple[int, int]] = []
    previous = 0  # where the text after the previous "..." starts
    # Each secret's first characters, the longest prefix a cut may have left, and whether a
    # "..." of its own may be in it.
    hunted = [
        (s, s[:MIN_CUT_PREFIX], min(len(s) - 1, _MAX_CUT_PREFIX), "..." in s[:_MAX_CUT_PREFIX])
        for s in secrets
        if len(s) > MIN_CUT_PREFIX
    ]
    for end in ends:
        for secret, head, longest, dotted in hunted:
            lo = max(0, end - longest)
            if not dotted:
                # What a cut left holds no "..." of its own: the windows searched are then
                # disjoint, and the work linear, however many "..." a hostile text holds.
                lo = max(lo, previous)
            # The leftmost start found is the longest prefix that ends here.
            start = text.find(head, lo, end)
            while start != -1 and not secret.startswith(text[start:end]):
                start = text.find(head, start + 1, end)
            if start != -1:
                spans.append((start, end))
        if text.startswith("...", end):
            previous = end + 3
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


def redact_tree(value: Any, secrets: Sequence[str]) -> Any:
    """A copy of a JSON-like value with every secret replaced by *** in its strings."""
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        return {k: redact_tree(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_tree(v, secrets) for v in value]
    return value


def error(exc: BaseException, finished: datetime, secrets: Iterable[str] = ()) -> dict[str, Any]:
    """The platform's ERROR Response for an audit that could not finish."""
    # Redacted as raised, then folded: folding first would hide a secret that holds white space.
    secrets = tuple(secrets)
    detail = redact(f"{type(exc).__name__}: {exc}", secrets)
    # And again once folded: "a\tb" in the raw text is the password "a b" once folded.
    message = "The audit could not finish: " + redact(_SPACE.sub(" ", detail).strip(), secrets)
    if len(message) > MAX_ERROR_MESSAGE:
        message = message[: MAX_ERROR_MESSAGE - 3] + "..."
    return {
        "version": RESPONSE_VERSION,
        "auditor": dict(AUDITOR),
        "status": codes.ERROR,
        "date": format_date(finished),
        "message": message,
        "groupId": None,
        "checks": None,
    }
