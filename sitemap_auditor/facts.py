"""What a site answered, apart from any rule: what audits of one site share (docs/contract.md §7).

A result is the rules applied to these facts at one moment with one window; the facts themselves
depend only on the site's answers. They travel between audits as JSON (`encode` / `decode`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .exchange import NO_VALIDATORS, Validators
from .issues import Issue, Kind
from .parser import ParsedSitemap

__all__ = [
    "FORMAT",
    "CandidateOutcome",
    "RobotsProbe",
    "SelectedSitemap",
    "SiteFacts",
    "decode",
    "encode",
    "from_json",
    "to_json",
]

# Bumped whenever the shape below changes, so that a store written by an older version is
# read as empty instead of misread.
FORMAT = 4


@dataclass(frozen=True)
class SelectedSitemap:
    """The first candidate that parsed, with what its final answer said."""

    url: str
    http_status: int
    content_type: str | None
    parsed: ParsedSitemap


@dataclass(frozen=True)
class RobotsProbe:
    """What robots.txt answered and the usable `Sitemap:` URLs it lists."""

    status: int | None
    read_whole: bool  # answered 200 and its body (up to the cap) was read
    sitemaps: tuple[str, ...]
    issues: tuple[Issue, ...]  # its answer other than 200, fetch errors
    skipped: tuple[Issue, ...]  # Sitemap: values that were not usable
    validators: Validators = NO_VALIDATORS
    wire_bytes: int = 0
    # The answer may not hold a moment later (429, 5xx, a timeout, a failed connection or name
    # look-up): such facts go only to the audits that waited for their fetch (section 7).
    transient: bool = False


@dataclass(frozen=True)
class CandidateOutcome:
    """One candidate tried: the sitemap it gave, or the issue saying why not."""

    url: str
    selected: SelectedSitemap | None
    issue: Issue | None  # None exactly when selected is set
    validators: Validators = NO_VALIDATORS
    wire_bytes: int = 0
    transient: bool = False  # as for RobotsProbe


@dataclass(frozen=True)
class SiteFacts:
    """Everything one site answered to one audit's fetches."""

    robots: RobotsProbe
    candidates: tuple[str, ...]
    outcomes: tuple[CandidateOutcome, ...]  # the candidates tried, in order
    # False when the audit's own time budget cut the fetching short: such facts are incomplete
    # and never shared (docs/contract.md §7, last bullet).
    complete: bool = True
    fetched_at: float = 0.0  # wall-clock seconds when the fetching finished
    fetch_seconds: float = 0.0  # how long the fetching took (how early to refresh them)
    # What this fetch did not download again because the site answered 304: URLs and bytes.
    revalidated: int = field(default=0, compare=False)
    revalidated_bytes: int = field(default=0, compare=False)

    @property
    def transient(self) -> bool:
        """True when any answer in them may not hold a moment later (a 503, a timeout)."""
        return self.robots.transient or any(o.transient for o in self.outcomes)

    @property
    def selected(self) -> SelectedSitemap | None:
        """The candidate that parsed, if any."""
        return next((o.selected for o in self.outcomes if o.selected is not None), None)

    @property
    def candidate_issues(self) -> tuple[Issue, ...]:
        """Why each candidate tried before the selected one (or every one) was not accepted."""
        return tuple(o.issue for o in self.outcomes if o.issue is not None)

    @property
    def wire_bytes(self) -> int:
        """Bytes the site sent for these facts (what a reuse saves)."""
        return self.robots.wire_bytes + sum(o.wire_bytes for o in self.outcomes)

    def outcome(self, url: str) -> CandidateOutcome | None:
        """The outcome of a candidate URL, if it was tried."""
        return next((o for o in self.outcomes if o.url == url), None)


# --- JSON codec -------------------------------------------------------------------------------


def _issue(i: Issue) -> list[str]:
    return [i.subject, i.kind.value, i.detail]


def _read_issue(value: Any) -> Issue:
    subject, kind, detail = value
    return Issue(str(subject), Kind(kind), str(detail))


def _validators(v: Validators) -> list[str | None]:
    return [v.etag, v.last_modified]


def _parsed(p: ParsedSitemap) -> dict[str, Any]:
    return {
        "root": p.root,
        "entries": p.entry_count,
        "latest": p.latest_lastmod.isoformat() if p.latest_lastmod else None,
        "samples": list(p.unparsable_samples),
        "unparsable": p.unparsable_total,
        "latestText": p.latest_lastmod_text,
    }


def _selected(s: SelectedSitemap | None) -> dict[str, Any] | None:
    if s is None:
        return None
    return {
        "url": s.url,
        "status": s.http_status,
        "type": s.content_type,
        "parsed": _parsed(s.parsed),
    }


def to_json(facts: SiteFacts) -> dict[str, Any]:
    """The facts as a JSON-ready value."""
    r = facts.robots
    return {
        "format": FORMAT,
        "robots": {
            "status": r.status,
            "whole": r.read_whole,
            "sitemaps": list(r.sitemaps),
            "issues": [_issue(i) for i in r.issues],
            "skipped": [_issue(i) for i in r.skipped],
            "validators": _validators(r.validators),
            "bytes": r.wire_bytes,
            "transient": r.transient,
        },
        "candidates": list(facts.candidates),
        "outcomes": [
            {
                "url": o.url,
                "selected": _selected(o.selected),
                "issue": _issue(o.issue) if o.issue is not None else None,
                "validators": _validators(o.validators),
                "bytes": o.wire_bytes,
                "transient": o.transient,
            }
            for o in facts.outcomes
        ],
        "complete": facts.complete,
        "fetchedAt": facts.fetched_at,
        "fetchSeconds": facts.fetch_seconds,
    }


def _read_validators(value: Any) -> Validators:
    etag, last_modified = value
    return Validators(etag, last_modified)


def _read_selected(value: Any) -> SelectedSitemap | None:
    if value is None:
        return None
    p = value["parsed"]
    parsed = ParsedSitemap(
        root=p["root"],
        entry_count=int(p["entries"]),
        latest_lastmod=datetime.fromisoformat(p["latest"]) if p["latest"] else None,
        unparsable_samples=tuple(p["samples"]),
        unparsable_total=int(p["unparsable"]),
        latest_lastmod_text=p["latestText"],
    )
    return SelectedSitemap(value["url"], int(value["status"]), value["type"], parsed)


def from_json(value: Any) -> SiteFacts | None:
    """Facts from what `to_json` gave; None when the value is of another format or malformed."""
    try:
        if value.get("format") != FORMAT:
            return None
        r = value["robots"]
        robots = RobotsProbe(
            status=r["status"],
            read_whole=bool(r["whole"]),
            sitemaps=tuple(r["sitemaps"]),
            issues=tuple(_read_issue(i) for i in r["issues"]),
            skipped=tuple(_read_issue(i) for i in r["skipped"]),
            validators=_read_validators(r["validators"]),
            wire_bytes=int(r["bytes"]),
            transient=bool(r["transient"]),
        )
        outcomes = tuple(
            CandidateOutcome(
                url=o["url"],
                selected=_read_selected(o["selected"]),
                issue=_read_issue(o["issue"]) if o["issue"] is not None else None,
                validators=_read_validators(o["validators"]),
                wire_bytes=int(o["bytes"]),
                transient=bool(o["transient"]),
            )
            for o in value["outcomes"]
        )
        return SiteFacts(
            robots=robots,
            candidates=tuple(value["candidates"]),
            outcomes=outcomes,
            complete=bool(value["complete"]),
            fetched_at=float(value["fetchedAt"]),
            fetch_seconds=float(value["fetchSeconds"]),
        )
    except (AttributeError, KeyError, TypeError, ValueError):
        return None


def encode(facts: SiteFacts) -> bytes:
    """The facts as compact UTF-8 JSON."""
    text = json.dumps(to_json(facts), ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", "surrogatepass")


def decode(data: bytes) -> SiteFacts | None:
    """Facts from `encode`'s bytes; None when they cannot be read."""
    try:
        return from_json(json.loads(data.decode("utf-8", "surrogatepass")))
    except (UnicodeDecodeError, ValueError):
        return None
