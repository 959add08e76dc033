"""The two steps that fetch: the robots.txt probe, and the candidates tried until one parses.

Each step takes what the site answered before (when known): a URL with validators is asked
conditionally, and a 304 reuses its earlier outcome without downloading or parsing it again.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from sitemap_auditor.core import robots
from sitemap_auditor.core.errors import FetchError
from sitemap_auditor.core.facts import CandidateOutcome, RobotsProbe, SelectedSitemap, SiteFacts
from sitemap_auditor.core.issues import Issue, Kind, cut_header, issue
from sitemap_auditor.core.parser import MAX_UNPARSABLE_SAMPLES, ParsedSitemap, SitemapParser
from sitemap_auditor.core.validators import NO_VALIDATORS
from sitemap_auditor.fetching.fetch import Fetcher, transient_status

__all__ = [
    "NOT_MODIFIED",
    "OUT_OF_TIME",
    "PARTIAL_EVERY_BYTES",
    "Step",
    "first_sitemap",
    "gather",
    "robots_txt",
    "watching",
]

NOT_MODIFIED = 304
# How often a sitemap's outcome so far is shown while its body is read (bytes on the wire): the
# facts are encoded to be sized each time, about 50 µs.
PARTIAL_EVERY_BYTES = 256 * 1024
OUT_OF_TIME = "not fetched: the audit ran out of time"
# A sitemap whose answer has begun, before its body is read: shown to sharing only, to be sized.
_NOTHING_YET = ParsedSitemap("", 0, None, (), 0)


@dataclass(frozen=True)
class Step:
    """The fetch an audit is about to wait for: robots.txt, or the n-th of its candidates."""

    url: str
    candidate: int = 0  # 0 for robots.txt, else 1 ... of
    of: int = 0


# Who is told of each step of the audits of this context (the command line's status line).
_WATCHER: contextvars.ContextVar[Callable[[Step], None] | None] = contextvars.ContextVar(
    "sitemap_auditor_probe_watcher", default=None
)


@contextmanager
def watching(watcher: Callable[[Step], None]) -> Iterator[None]:
    """Tell watcher of every fetch step the audits run in this context (thread) start."""
    token = _WATCHER.set(watcher)
    try:
        yield
    finally:
        _WATCHER.reset(token)


def _tell(step: Step) -> None:
    watcher = _WATCHER.get()
    if watcher is not None:
        watcher(step)


def robots_txt(
    fetcher: Fetcher, robots_url: str, previous: RobotsProbe | None = None
) -> RobotsProbe:
    """Fetch robots.txt and collect its `Sitemap:` lines."""
    # Only a robots.txt that was read is worth revalidating: anything else is fetched afresh.
    validators = previous.validators if previous is not None and previous.read_whole else None
    _tell(Step(robots_url))
    try:
        with fetcher.open(robots_url, validators or NO_VALIDATORS) as resp:
            if resp.status == NOT_MODIFIED and validators and previous is not None:
                return previous
            if resp.status != 200:
                return RobotsProbe(
                    resp.status,
                    False,
                    (),
                    (issue(robots_url, Kind.HTTP_STATUS, f"HTTP {resp.status}"),),
                    (),
                    transient=transient_status(resp.status),
                )
            try:
                body = b"".join(resp.body(limit=robots.MAX_ROBOTS_BYTES, truncate=True))
            except FetchError as e:
                why = f"HTTP 200 but the body could not be read whole: {e.describe()}"
                return RobotsProbe(
                    resp.status,
                    False,
                    (),
                    (issue(robots_url, Kind.ROBOTS_UNREAD, why),),
                    (),
                    transient=e.transient,
                )
            # The last line read is whole when the cut fell at its end (docs/contract.md §4).
            cut = resp.truncated and resp.past_limit not in (b"\n", b"\r")
            found = robots.sitemap_urls(body, resp.url, robots_url, truncated=cut)
            notes: tuple[Issue, ...] = ()
            if resp.truncated:
                notes = (
                    issue(
                        robots_url,
                        Kind.ROBOTS_TRUNCATED,
                        f"larger than {robots.MAX_ROBOTS_BYTES:,} bytes; only that much was read",
                    ),
                )
            # Notes on the whole answer: its size, then its encoding (UTF-16).
            notes = (*notes, *found.notes)
            return RobotsProbe(
                resp.status,
                True,
                found.urls,
                notes,
                found.issues,
                validators=resp.validators,
                wire_bytes=resp.wire_bytes,
            )
    except FetchError as e:
        return RobotsProbe(None, False, (), (e.issue(robots_url),), (), transient=e.transient)


def _try_candidate(
    fetcher: Fetcher,
    url: str,
    previous: CandidateOutcome | None,
    partial: Callable[[CandidateOutcome], None] | None = None,
) -> CandidateOutcome:
    """The candidate's outcome; `partial`, when given, is shown the outcome so far when a
    sitemap's answer begins, after each PARTIAL_EVERY_BYTES of its body and after each chunk
    that gave new samples (what the sitemap gave up to there), and an earlier outcome a 304
    brings back."""
    # A transient answer (a 503 that carried an ETag) is asked afresh, never revalidated.
    if previous is not None and previous.transient:
        previous = None
    validators = previous.validators if previous is not None else NO_VALIDATORS
    try:
        with fetcher.open(url, validators) as resp:
            if resp.status == NOT_MODIFIED and validators and previous is not None:
                if partial is not None:
                    partial(previous)  # what it brings back, shown before the fetch goes on
                return previous
            if not 200 <= resp.status < 300:
                refused = issue(url, Kind.HTTP_STATUS, f"HTTP {resp.status}")
                transient = transient_status(resp.status)
                return CandidateOutcome(
                    url, None, refused, resp.validators, resp.wire_bytes, transient
                )
            parser = SitemapParser()
            told = 0
            content_type = cut_header(resp.content_type)
            if partial is not None:
                # Its answer begun: what its headers put in the facts is shown before its body is
                # read (a parse of nothing yet, its root unread), so that all the end can add is
                # bounded (facts.UNSHOWN_BYTES).
                found = SelectedSitemap(url, resp.status, content_type, _NOTHING_YET)
                partial(CandidateOutcome(url, found, None, resp.validators, 0))
            samples = 0  # the unparsable <lastmod> samples shown
            for chunk in resp.body():
                parser.feed(chunk)
                if parser.finished:
                    break  # refused already: the rest of the body cannot change that
                if partial is None:
                    continue
                # Shown every PARTIAL_EVERY_BYTES, and at once when the chunk gave new samples
                # (up to MAX_UNPARSABLE_SAMPLES of 100 characters: what a file adds most); the
                # facts are built only then (a count tells of new samples).
                kept = min(parser.unparsable_so_far(), MAX_UNPARSABLE_SAMPLES)
                if kept > samples or resp.wire_bytes - told >= PARTIAL_EVERY_BYTES:
                    told = resp.wire_bytes
                    so_far = parser.so_far()
                    if so_far is not None:
                        samples = len(so_far.unparsable_samples)
                        found = SelectedSitemap(url, resp.status, content_type, so_far)
                        partial(CandidateOutcome(url, found, None, resp.validators, told))
            outcome = parser.close()
            if isinstance(outcome, ParsedSitemap):
                selected = SelectedSitemap(url, resp.status, content_type, outcome)
                return CandidateOutcome(url, selected, None, resp.validators, resp.wire_bytes)
            refused = issue(url, outcome.kind, outcome.reason)
            return CandidateOutcome(url, None, refused, resp.validators, resp.wire_bytes)
    except FetchError as e:
        return CandidateOutcome(url, None, e.issue(url), transient=e.transient)


def first_sitemap(
    fetcher: Fetcher,
    candidates: Sequence[str],
    previous: SiteFacts | None = None,
    tried: Callable[[tuple[CandidateOutcome, ...]], None] | None = None,
) -> tuple[CandidateOutcome, ...]:
    """Try candidates in order until one parses; return the outcome of each one tried.

    `tried` is shown the outcomes so far after each candidate that leaves more to try, and for
    a sitemap's answer, as it begins, every PARTIAL_EVERY_BYTES of its body and as it gives new
    samples, with that candidate's outcome so far (or the earlier one a 304 brings back):
    sharing looks at the facts' size as they grow, and what the end of the fetch still adds
    after the last of these is bounded (facts.UNSHOWN_BYTES)."""
    outcomes: list[CandidateOutcome] = []

    def partial(so_far: CandidateOutcome) -> None:
        if tried is not None:
            tried((*outcomes, so_far))

    for number, url in enumerate(candidates, 1):
        budget = fetcher.remaining_budget()
        if budget is not None and budget <= 0:
            fetcher.ran_out_of_budget = True
            outcomes.append(CandidateOutcome(url, None, issue(url, Kind.OUT_OF_TIME, OUT_OF_TIME)))
            continue
        _tell(Step(url, number, len(candidates)))
        outcome = _try_candidate(
            fetcher, url, previous.outcome(url) if previous else None, partial if tried else None
        )
        outcomes.append(outcome)
        if outcome.selected is not None:
            break
        if tried is not None and number < len(candidates):
            tried(tuple(outcomes))
    return tuple(outcomes)


def gather(
    fetcher: Fetcher,
    robots_probe: RobotsProbe,
    candidates: tuple[str, ...],
    outcomes: tuple[CandidateOutcome, ...],
    previous: SiteFacts | None,
    fetched_at: float,
    fetch_seconds: float = 0.0,
) -> SiteFacts:
    """Gather one fetch's answers as the site's facts, counting what a 304 let it reuse."""
    # A step answered 304 hands back the very object it was given.
    reused: list[RobotsProbe | CandidateOutcome] = []
    if previous is not None:
        earlier = {id(previous.robots), *(id(o) for o in previous.outcomes)}
        steps: tuple[RobotsProbe | CandidateOutcome, ...] = (robots_probe, *outcomes)
        reused = [x for x in steps if id(x) in earlier]
    return SiteFacts(
        robots=robots_probe,
        candidates=candidates,
        outcomes=outcomes,
        complete=not fetcher.ran_out_of_budget,
        fetched_at=fetched_at,
        fetch_seconds=fetch_seconds,
        revalidated=len(reused),
        revalidated_bytes=sum(x.wire_bytes for x in reused),
    )
