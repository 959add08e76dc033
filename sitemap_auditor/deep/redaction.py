"""What the deep audit's reports show of the credentials it was given: nothing (docs/deep.md).

Every string a site could have put in a report is redacted, map keys that are URLs included
(`run.sitemapSeconds`). The values the audit writes itself from a fixed vocabulary or a
canonical time (a finding's kind and severity, the document's format, a UTC instant) are left as
they are: a credential that happens to spell one (a password `error`, a header value `1`) is no
echo of it, and redacting it would break the document's schema and every report read from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sitemap_auditor.audit import outcome
from sitemap_auditor.core.text import CUT_MARK

__all__ = ["CUT_MARKS", "OWN_VALUES", "redact", "redacted"]

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


def redact(text: str, secrets: Iterable[str]) -> str:
    """text with every secret replaced by ***, and what a cut left of one: its first characters
    before a mark (or a closing quote), its last characters after a mark text starts with."""
    return outcome.redact(text, secrets, CUT_MARKS)


def redacted(value: Any, secrets: Sequence[str], key: str | None = None) -> Any:
    """A copy of a report's JSON-like value with every secret replaced by *** where a site could
    have put it (`key`: the key the value is found under)."""
    if isinstance(value, str):
        return value if key in OWN_VALUES else redact(value, secrets)
    if isinstance(value, dict):
        url_keyed = key in _URL_KEYED
        return {
            (redact(k, secrets) if url_keyed else k): redacted(v, secrets, k)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [redacted(v, secrets, key) for v in value]
    return value
