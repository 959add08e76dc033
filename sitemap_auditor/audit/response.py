"""The platform's Response: the shared data map, the checks in order and the overall status.

`build` makes an audit's Outcome from the checks that fired; `render` is the Response of an
Outcome, the one place that knows the wire's keys.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sitemap_auditor import __version__
from sitemap_auditor.audit.outcome import Check, DataMap, Outcome, redact
from sitemap_auditor.audit.rules import Fired, RuleInputs
from sitemap_auditor.core.codes import Status
from sitemap_auditor.core.issues import Issue
from sitemap_auditor.core.lastmod import format_instant

__all__ = [
    "AUDITOR",
    "MAX_ERROR_MESSAGE",
    "OWN_FIELDS",
    "RESPONSE_VERSION",
    "build",
    "data_map",
    "error",
    "format_date",
    "overall_status",
    "redact",
    "redact_tree",
    "render",
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


def data_map(facts: RuleInputs, issues: Sequence[Issue]) -> DataMap:
    """Build the data map shared by every check (docs/contract.md §3)."""
    site = facts.site
    s = facts.selected
    latest = s.parsed.latest_lastmod if s else None
    return DataMap(
        site_base=site.url if site else None,
        robots_txt_url=site.robots_txt_url if site else None,
        robots_txt_http_status=facts.robots_status,
        robots_txt_lists_sitemap=facts.robots_lists_sitemap,
        candidate_sitemaps=tuple(facts.candidates),
        selected_sitemap_url=s.url if s else None,
        sitemap_type=s.parsed.root if s else None,
        sitemap_http_status=s.http_status if s else None,
        content_type=s.content_type if s else None,
        entry_count=s.parsed.entry_count if s else None,
        latest_lastmod=format_instant(latest) if latest else None,
        max_age_days=facts.max_age_days,
        issues=tuple(i.text for i in issues),
    )


def _fill(template: str | None, values: dict[str, object]) -> str | None:
    if template is None:
        return None
    return template.format(**{k: "null" if v is None else v for k, v in values.items()})


def overall_status(statuses: Iterable[str]) -> Status:
    """Combine the statuses of the checks other than INFORMATION (docs/contract.md §2)."""
    graded = [s for s in statuses if s != Status.INFORMATION]
    if graded and all(s == Status.ERROR for s in graded):
        return Status.ERROR
    for status in (Status.FAIL, Status.WARNING):
        if status in graded:
            return status
    return Status.SUCCESS


def format_date(moment: datetime) -> str:
    """The Response's `date`: UTC, to the second, with Z."""
    return format_instant(moment)


def build(
    fired: Sequence[Fired],
    data: DataMap,
    finished: datetime,
    issues: Sequence[Issue] = (),
    latest_lastmod_written: str | None = None,
) -> Outcome:
    """The outcome of the fired checks and the shared data map."""
    checks = tuple(
        Check(
            code=f.code,
            resource=f.resource,
            message=_fill(f.code.message, f.values),
            recommendation=_fill(f.code.recommendation, f.values),
        )
        for f in fired
    )
    status = overall_status(c.status for c in checks)
    return Outcome(
        status=status,
        message=next((c.message for c in checks if c.status == status), None),
        finished=finished,
        checks=checks,
        data=data,
        issues=tuple(issues),
        latest_lastmod_written=latest_lastmod_written,
    )


def render(outcome: Outcome) -> dict[str, Any]:
    """The platform Response of an outcome (docs/contract.md §2)."""
    checks = None
    if outcome.checks is not None:
        data = outcome.data.to_json() if outcome.data is not None else {}
        checks = [
            {
                "status": c.status.value,
                "resource": c.resource,
                "message": c.message,
                "recommendation": c.recommendation,
                "score": 0,
                "data": data,
                "code": {
                    "id": c.code.id,
                    "description": c.code.description,
                    "rationale": c.code.rationale,
                },
                "order": None,
            }
            for c in outcome.checks
        ]
    return {
        "version": RESPONSE_VERSION,
        "auditor": dict(AUDITOR),
        "status": outcome.status.value,
        "date": format_date(outcome.finished),
        "message": outcome.message,
        "groupId": None,
        "checks": checks,
    }


# The Response's fields whose values the audit writes from its own fixed vocabulary or in a
# canonical form, never from what a site or the event sent (docs/contract.md §1, §2): the
# auditor, a CheckCode, a status, the date, the sitemap's type, the latest lastmod as a UTC
# instant. A password that happens to spell one (`SUCCESS`, `2026`, `Sitemap`) is no echo of it:
# redacting it would break the format the platform reads, and point at the password besides.
OWN_FIELDS = frozenset({"auditor", "code", "status", "date", "sitemapType", "latestLastmod"})


def redact_tree(value: Any, secrets: Sequence[str], key: str | None = None) -> Any:
    """A copy of a JSON-like value with every secret replaced by *** in its strings, but for
    the OWN_FIELDS (`key`: the key the value is found under)."""
    if key in OWN_FIELDS:
        return value
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        return {k: redact_tree(v, secrets, k) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_tree(v, secrets, key) for v in value]
    return value


def error(exc: BaseException, finished: datetime, secrets: Iterable[str] = ()) -> Outcome:
    """The outcome of an audit that could not finish: the platform's ERROR Response."""
    # Redacted as raised, then folded: folding first would hide a secret that holds white space.
    secrets = tuple(secrets)
    detail = redact(f"{type(exc).__name__}: {exc}", secrets)
    # And again once folded: "a\tb" in the raw text is the password "a b" once folded.
    message = "The audit could not finish: " + redact(_SPACE.sub(" ", detail).strip(), secrets)
    if len(message) > MAX_ERROR_MESSAGE:
        message = message[: MAX_ERROR_MESSAGE - 3] + "..."
    return Outcome(status=Status.ERROR, message=message, finished=finished, checks=None, data=None)
