"""What a site answered, apart from any rule: what audits of one site share (docs/contract.md §7).

A result is the rules applied to these facts at one moment with one window; the facts themselves
depend only on the site's answers. They travel between audits as JSON (`encode` / `decode`);
`decode` takes nothing on trust: what it reads back is checked against what `encode` writes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, NoReturn

from sitemap_auditor.core import robots
from sitemap_auditor.core.errors import MAX_BODY_BYTES, InvalidItemError
from sitemap_auditor.core.issues import Issue, Kind
from sitemap_auditor.core.parser import (
    MAX_SAMPLE_CHARS,
    MAX_UNPARSABLE_SAMPLES,
    ROOTS,
    ParsedSitemap,
)
from sitemap_auditor.core.validators import NO_VALIDATORS, Validators

__all__ = [
    "FORMAT",
    "MAX_CANDIDATES",
    "MAX_COUNT",
    "MAX_FACTS_BYTES",
    "MAX_FETCH_SECONDS",
    "MAX_JSON_CONTAINERS",
    "MAX_JSON_DEPTH",
    "MAX_JSON_VALUES",
    "MAX_ROBOTS_ISSUES",
    "MAX_TEXT_CHARS",
    "MAX_URL_CHARS",
    "MAX_VALIDATOR_CHARS",
    "UNSHOWN_BYTES",
    "CandidateOutcome",
    "RobotsProbe",
    "SelectedSitemap",
    "SiteFacts",
    "decode",
    "encode",
    "from_json",
    "to_json",
]

# Bumped whenever the shape below, or the item that holds it (dynamostore), changes, so that a
# store written by an older version is read as empty instead of misread (5: items state the
# length of their facts).
FORMAT = 5


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


def encode(facts: SiteFacts) -> bytes:
    """The facts as compact UTF-8 JSON."""
    text = json.dumps(to_json(facts), ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", "surrogatepass")


# --- reading facts back: nothing read is trusted as written (docs/contract.md §7) -------------
#
# Facts come back from a table that older versions, a bug or anyone with write access may have
# written. `decode` accepts exactly the shape `to_json` writes, each value of its type and within
# the bounds the writer itself keeps (a looser bound where the writer's depends on things the
# reader cannot see, as stated), and raises InvalidItemError for anything else, whatever the
# bytes: never another exception, never more memory than a few times MAX_FACTS_BYTES.

# The JSON of the largest facts the writer makes: 100 candidates with URLs of up to 2,048
# characters, each URL in the candidate list, its outcome and its issue, robots.txt's 100
# Sitemap: URLs, 43 skipped-value issues and the longest validators come to about 0.9 MB (an
# item holds at most 300 KB of them compressed; those take 460 KB). Bytes beyond this are never
# inflated, parsed or held.
MAX_FACTS_BYTES = 4 * 1024 * 1024
# What json.loads may build from those bytes, counted before it runs: at most MAX_JSON_DEPTH
# nested arrays and objects (the writer nests 6 deep: facts, outcomes, an outcome, its sitemap,
# its parse, its samples), MAX_JSON_CONTAINERS arrays and objects in all (those largest facts
# hold 354) and MAX_JSON_VALUES commas (1,266): a hostile item cannot make millions of small
# objects out of 4 MiB.
MAX_JSON_DEPTH = 8
MAX_JSON_CONTAINERS = 4096
MAX_JSON_VALUES = 16_384
# A URL: robots.txt's are at most robots.MAX_URL_CHARS (2,048); a fallback candidate is a site
# base (part of the item's key, which DynamoDB keeps under 2,048 bytes) and a 20-character path.
MAX_URL_CHARS = 2 * robots.MAX_URL_CHARS
# Lists: at most MAX_CANDIDATES candidates (robots.MAX_CANDIDATES; the fallback paths are 3),
# each tried once; robots.txt's issues and skipped values are a few more than
# robots.MAX_SKIPPED_LISTED twice over.
MAX_CANDIDATES = robots.MAX_CANDIDATES
MAX_ROBOTS_ISSUES = 4 * robots.MAX_SKIPPED_LISTED
# Any other text (an issue's subject and detail, a Content-Type, the latest <lastmod> as
# written): no longer than a header line http.client reads (65,536).
MAX_TEXT_CHARS = 65_536
# A validator is a header value the fetcher kept (fetch.MAX_VALIDATOR_CHARS, stripped): it goes
# back to the site as a request header, so no line break, NUL or character beyond Latin-1.
MAX_VALIDATOR_CHARS = 256
# CR, LF, NUL or a character past Latin-1 (written as the complement: a class of the
# whole range past U+00FF costs milliseconds to compile, at every cold start).
_HEADER_UNSAFE = re.compile("[^\x01-\x09\x0b\x0c\x0e-\xff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# Counts of bytes and entries: no answer is read past MAX_BODY_BYTES (twice that is room).
MAX_COUNT = 2 * MAX_BODY_BYTES
# A fetch of a site: robots.txt and 100 candidates, each within its 30 s deadline (3,030 s).
MAX_FETCH_SECONDS = 3600.0
# What a fetch's facts may still gain after the last time the fetch showed them (their size
# packed, zlib as the table keeps them): audit/probe.py shows them once robots.txt has answered,
# after each candidate that leaves more to try, as soon as a sitemap's answer begins (its URL,
# status, Content-Type and validators in them), every PARTIAL_EVERY_BYTES of its body and as it
# gives new samples of unparsable <lastmod>, and what a 304 brings back. What is left for the
# end is one candidate's outcome: an answer that is no sitemap (its issue, a URL and a detail,
# and its two validators), or what a sitemap adds at its end (its latest date and counts, or
# its refusal, which drops its samples), and what packing them beside the rest costs (a copy
# pushed out of zlib's window, literals sharing a block). Hostile answers gain under 5 KB
# packed (tests/property/test_facts_growth.py); sharing reckons with this much (sharing/driver.py).
UNSHOWN_BYTES = 8 * 1024
# HTTP status codes as http.client reads them (three digits).
STATUS_RANGE = (100, 999)

_KINDS = {k.value: k for k in Kind}
_ROOTS = frozenset(ROOTS)
# Bytes that are not JSON structure, once strings are taken out.
_ESCAPE = re.compile(rb"\\.", re.DOTALL)
_STRING = re.compile(rb'"[^"]*"')
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b"[]{},")


def _invalid(path: str, what: str) -> NoReturn:
    raise InvalidItemError(f"facts {path}: {what}" if path else f"facts: {what}")


def _object(value: object, path: str, keys: frozenset[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        _invalid(path, "not an object")
    if value.keys() != keys:
        _invalid(path, "not the fields written")
    return value


def _list(value: object, path: str, max_len: int) -> list[Any]:
    if not isinstance(value, list):
        _invalid(path, "not a list")
    if len(value) > max_len:
        _invalid(path, f"more than {max_len} items")
    return value


def _str(value: object, path: str, max_chars: int) -> str:
    if not isinstance(value, str):
        _invalid(path, "not a string")
    if len(value) > max_chars:
        _invalid(path, f"longer than {max_chars} characters")
    if _SURROGATE.search(value):
        # The writer's text is valid Unicode; a lone surrogate could not be encoded in a result.
        _invalid(path, "not valid Unicode")
    return value


def _opt_str(value: object, path: str, max_chars: int) -> str | None:
    return None if value is None else _str(value, path, max_chars)


def _int(value: object, path: str, low: int, high: int) -> int:
    if type(value) is not int:  # bool is an int to Python, not to the writer
        _invalid(path, "not an integer")
    if not low <= value <= high:
        _invalid(path, f"not within {low}..{high}")
    return value


def _number(value: object, path: str, low: float, high: float) -> float:
    if type(value) not in (int, float):
        _invalid(path, "not a number")
    # Compared before any conversion: Python compares an int of any size with a float exactly,
    # where float() of a 400-digit int would overflow; NaN is within no range.
    if not low <= value <= high:  # type: ignore[operator]  # int or float, as checked
        _invalid(path, f"not within {low:g}..{high:g}")
    return float(value)  # type: ignore[arg-type]


def _bool(value: object, path: str) -> bool:
    if type(value) is not bool:
        _invalid(path, "not a boolean")
    return value


def _read_issue(value: object, path: str) -> Issue:
    subject, kind, detail = _fixed(value, path, 3)
    known = _KINDS.get(kind) if isinstance(kind, str) else None
    if known is None:
        _invalid(f"{path}[1]", "not an issue kind")
    return Issue(
        _str(subject, f"{path}[0]", MAX_TEXT_CHARS),
        known,
        _str(detail, f"{path}[2]", MAX_TEXT_CHARS),
    )


def _read_issues(value: object, path: str, max_len: int) -> tuple[Issue, ...]:
    return tuple(_read_issue(v, f"{path}[{n}]") for n, v in enumerate(_list(value, path, max_len)))


def _fixed(value: object, path: str, length: int) -> list[Any]:
    items = _list(value, path, length)
    if len(items) != length:
        _invalid(path, f"not {length} items")
    return items


def _validator(value: object, path: str) -> str | None:
    text = _opt_str(value, path, MAX_VALIDATOR_CHARS)
    if text is not None and (not text or text != text.strip() or _HEADER_UNSAFE.search(text)):
        _invalid(path, "not a header value the fetcher keeps")
    return text


def _read_validators(value: object, path: str) -> Validators:
    etag, last_modified = _fixed(value, path, 2)
    return Validators(_validator(etag, f"{path}[0]"), _validator(last_modified, f"{path}[1]"))


def _urls(value: object, path: str) -> tuple[str, ...]:
    items = _list(value, path, MAX_CANDIDATES)
    return tuple(_str(v, f"{path}[{n}]", MAX_URL_CHARS) for n, v in enumerate(items))


def _instant(value: object, path: str) -> datetime | None:
    text = _opt_str(value, path, 64)
    if text is None:
        return None
    try:
        instant = datetime.fromisoformat(text)
    except ValueError:
        _invalid(path, "not an ISO 8601 instant")
    # The writer writes UTC instants (lastmod.py): one without a zone, or in another, is not its.
    if instant.utcoffset() != timedelta(0):
        _invalid(path, "not a UTC instant")
    return instant


_PARSED_KEYS = frozenset({"root", "entries", "latest", "samples", "unparsable", "latestText"})
_SELECTED_KEYS = frozenset({"url", "status", "type", "parsed"})
_ROBOTS_KEYS = frozenset(
    {"status", "whole", "sitemaps", "issues", "skipped", "validators", "bytes", "transient"}
)
_OUTCOME_KEYS = frozenset({"url", "selected", "issue", "validators", "bytes", "transient"})
_FACTS_KEYS = frozenset(
    {"format", "robots", "candidates", "outcomes", "complete", "fetchedAt", "fetchSeconds"}
)


def _read_parsed(value: object, path: str) -> ParsedSitemap:
    p = _object(value, path, _PARSED_KEYS)
    root = _str(p["root"], f"{path}.root", 16)
    if root not in _ROOTS:
        _invalid(f"{path}.root", "not a sitemap root")
    samples = _list(p["samples"], f"{path}.samples", MAX_UNPARSABLE_SAMPLES)
    return ParsedSitemap(
        root=root,
        entry_count=_int(p["entries"], f"{path}.entries", 0, MAX_COUNT),
        latest_lastmod=_instant(p["latest"], f"{path}.latest"),
        unparsable_samples=tuple(
            _str(v, f"{path}.samples[{n}]", MAX_SAMPLE_CHARS) for n, v in enumerate(samples)
        ),
        unparsable_total=_int(p["unparsable"], f"{path}.unparsable", 0, MAX_COUNT),
        latest_lastmod_text=_opt_str(p["latestText"], f"{path}.latestText", MAX_TEXT_CHARS),
    )


def _read_selected(value: object, path: str) -> SelectedSitemap | None:
    if value is None:
        return None
    s = _object(value, path, _SELECTED_KEYS)
    return SelectedSitemap(
        _str(s["url"], f"{path}.url", MAX_URL_CHARS),
        _int(s["status"], f"{path}.status", 200, 299),
        _opt_str(s["type"], f"{path}.type", MAX_TEXT_CHARS),
        _read_parsed(s["parsed"], f"{path}.parsed"),
    )


def _read_robots(value: object) -> RobotsProbe:
    r = _object(value, "robots", _ROBOTS_KEYS)
    status = None if r["status"] is None else _int(r["status"], "robots.status", *STATUS_RANGE)
    return RobotsProbe(
        status=status,
        read_whole=_bool(r["whole"], "robots.whole"),
        sitemaps=_urls(r["sitemaps"], "robots.sitemaps"),
        issues=_read_issues(r["issues"], "robots.issues", MAX_ROBOTS_ISSUES),
        skipped=_read_issues(r["skipped"], "robots.skipped", MAX_ROBOTS_ISSUES),
        validators=_read_validators(r["validators"], "robots.validators"),
        wire_bytes=_int(r["bytes"], "robots.bytes", 0, MAX_COUNT),
        transient=_bool(r["transient"], "robots.transient"),
    )


def _read_outcome(value: object, path: str) -> CandidateOutcome:
    o = _object(value, path, _OUTCOME_KEYS)
    url = _str(o["url"], f"{path}.url", MAX_URL_CHARS)
    selected = _read_selected(o["selected"], f"{path}.selected")
    issue = None if o["issue"] is None else _read_issue(o["issue"], f"{path}.issue")
    # The rules read an outcome as the sitemap it gave or the issue saying why not.
    if (selected is None) == (issue is None):
        _invalid(path, "not exactly one of a sitemap and an issue")
    if selected is not None and selected.url != url:
        _invalid(f"{path}.selected.url", "not the outcome's URL")
    return CandidateOutcome(
        url=url,
        selected=selected,
        issue=issue,
        validators=_read_validators(o["validators"], f"{path}.validators"),
        wire_bytes=_int(o["bytes"], f"{path}.bytes", 0, MAX_COUNT),
        transient=_bool(o["transient"], f"{path}.transient"),
    )


def from_json(value: object) -> SiteFacts:
    """Facts from what `to_json` gave; InvalidItemError for anything `to_json` does not give."""
    if not isinstance(value, dict) or value.get("format") != FORMAT:
        raise InvalidItemError("facts: of another format")
    v = _object(value, "", _FACTS_KEYS)
    outcomes = _list(v["outcomes"], "outcomes", MAX_CANDIDATES)
    facts = SiteFacts(
        robots=_read_robots(v["robots"]),
        candidates=_urls(v["candidates"], "candidates"),
        outcomes=tuple(_read_outcome(o, f"outcomes[{n}]") for n, o in enumerate(outcomes)),
        complete=_bool(v["complete"], "complete"),
        # When they were fetched is checked against the reader's clock by the store, which has it.
        fetched_at=_number(v["fetchedAt"], "fetchedAt", 0.0, float(2**53)),
        fetch_seconds=_number(v["fetchSeconds"], "fetchSeconds", 0.0, MAX_FETCH_SECONDS),
    )
    _check_as_written(facts)
    return facts


def _check_as_written(facts: SiteFacts) -> None:
    """Refuse facts no audit publishes, however well each field reads (docs/contract.md §7: an
    item not as the function writes it counts as no item): only complete facts are stored, and
    their outcomes are the candidates tried in order (probe.first_sitemap), the selected one, if
    any, last; without one, every candidate was tried."""
    if not facts.complete:
        _invalid("complete", "false: cut facts are never stored")
    tried = tuple(o.url for o in facts.outcomes)
    if tried != facts.candidates[: len(tried)]:
        _invalid("outcomes", "not the candidates tried in order")
    chosen = [n for n, o in enumerate(facts.outcomes) if o.selected is not None]
    if chosen and chosen != [len(tried) - 1]:
        _invalid("outcomes", "a candidate tried after the selected one")
    if not chosen and len(tried) != len(facts.candidates):
        _invalid("outcomes", "candidates left untried without a selected one")


def _check_structure(data: bytes) -> None:
    """Refuse JSON nested deeper, or holding more arrays, objects or values, than facts do,
    before json.loads builds any of it."""
    bare = _STRING.sub(b"", _ESCAPE.sub(b"", data)).translate(None, _NOT_STRUCTURE)
    commas = bare.count(b",")
    if bare.count(b"[") + bare.count(b"{") > MAX_JSON_CONTAINERS:
        raise InvalidItemError(f"facts: more than {MAX_JSON_CONTAINERS} arrays and objects")
    if len(bare) - commas > 2 * MAX_JSON_CONTAINERS:  # closing brackets with no opening one
        raise InvalidItemError("facts: not JSON")
    if commas > MAX_JSON_VALUES:
        raise InvalidItemError(f"facts: more than {MAX_JSON_VALUES} values")
    depth = 0
    for byte in bare.replace(b",", b""):
        depth += 1 if byte in b"[{" else -1
        if depth > MAX_JSON_DEPTH:
            raise InvalidItemError(f"facts: nested deeper than {MAX_JSON_DEPTH}")


def decode(data: bytes) -> SiteFacts:
    """Facts from `encode`'s bytes. Whatever the bytes, the only exception is InvalidItemError."""
    if not isinstance(data, bytes | bytearray):
        raise InvalidItemError("facts: not bytes")
    if len(data) > MAX_FACTS_BYTES:
        raise InvalidItemError(f"facts: more than {MAX_FACTS_BYTES} bytes")
    _check_structure(bytes(data))
    try:
        value = json.loads(bytes(data).decode("utf-8", "surrogatepass"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise InvalidItemError("facts: not UTF-8 JSON") from None
    return from_json(value)
