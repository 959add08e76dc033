"""One audit's steps, from a site root to the platform's Response.

The pipeline: robots probe -> candidates -> streaming parse (`fetch_facts`) -> rules -> result
(`apply_rules`); `invalid_url` is the result for an event whose URL gives no site root, and
`share_request` how an audit takes part in sharing. `fetch_facts` reaches the site only through
the fetcher it is given (and reads the clock to date what it found); the others are pure
functions of their arguments, the moment included. The handler wires these to the process and
the event: nothing here reads the environment or keeps state between audits.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from sitemap_auditor.audit import config, probe, response, rules
from sitemap_auditor.audit.outcome import Outcome, Provenance, redact
from sitemap_auditor.audit.request import AuditRequest
from sitemap_auditor.core import candidates
from sitemap_auditor.core import site as sites
from sitemap_auditor.core.credentials import Credentials, echoed_in
from sitemap_auditor.core.facts import CandidateOutcome, SiteFacts
from sitemap_auditor.core.issues import Issue, Kind, issue
from sitemap_auditor.core.parser import MAX_UNPARSABLE_SAMPLES
from sitemap_auditor.core.text import map_text
from sitemap_auditor.fetching.fetch import Fetcher

if TYPE_CHECKING:
    # The handler imports sharing at its start; the deep audit, which only fetches, never needs it.
    from sitemap_auditor.sharing import driver as sharing

__all__ = ["apply_rules", "fetch_facts", "invalid_url", "provenance", "share_request"]


def fetch_facts(
    site: sites.SiteBase,
    fetcher: Fetcher,
    previous: SiteFacts | None,
    progress: Callable[[SiteFacts], None] | None = None,
) -> SiteFacts:
    """What the site answers now: robots probe -> candidates -> streaming parse.

    `progress` is shown what is known (as incomplete facts) once robots.txt has answered, then
    after each candidate that leaves more to try, and as a sitemap's answer begins and streams
    (probe.first_sitemap): facts only grow, and the end adds at most facts.UNSHOWN_BYTES, so
    sharing can tell the audits waiting for this fetch as soon as its facts cannot be shared,
    or may not be (too large, a credential echoed)."""
    started = time.monotonic()
    robots = probe.robots_txt(fetcher, site.robots_txt_url, previous.robots if previous else None)
    tried = candidates.for_site(site, robots.sitemaps)

    def so_far(outcomes: tuple[CandidateOutcome, ...]) -> None:
        if progress is not None:
            progress(SiteFacts(robots, tried, outcomes, complete=False))

    so_far(())
    outcomes = probe.first_sitemap(fetcher, tried, previous, so_far)
    took = time.monotonic() - started
    return probe.gather(fetcher, robots, tried, outcomes, previous, time.time(), took)


def apply_rules(
    site: sites.SiteBase,
    request: AuditRequest,
    facts: SiteFacts,
    settings: config.Settings,
    now: datetime,
) -> Outcome:
    """The outcome the rules give for a site's facts, this request and this moment."""
    max_age_days, preference_issue = request.window(settings.max_age_days)
    selected = facts.selected
    lastmod_issues: list[Issue] = []
    if selected is not None:
        parsed = selected.parsed
        for value in parsed.unparsable_samples:
            lastmod_issues.append(
                issue(selected.url, Kind.UNPARSABLE_LASTMOD, f"unparsable <lastmod> {value!r}")
            )
        if parsed.unparsable_total > MAX_UNPARSABLE_SAMPLES:
            lastmod_issues.append(
                issue(
                    selected.url,
                    Kind.UNPARSABLE_TOTAL,
                    f"{parsed.unparsable_total} unparsable <lastmod> values in all",
                )
            )
    robots = facts.robots
    # docs/contract.md §6: each kind of issue in this order.
    issues = [
        *robots.issues,
        *facts.candidate_issues,
        *robots.skipped,
        *([preference_issue] if preference_issue else []),
        *lastmod_issues,
    ]
    checked = rules.RuleInputs(
        url_value=request.url,
        site=site,
        robots_status=robots.status,
        robots_lists_sitemap=robots.read_whole and bool(robots.sitemaps),
        robots_served_without_sitemap=robots.read_whole and not robots.sitemaps,
        candidates=facts.candidates,
        selected=selected,
        max_age_days=max_age_days,
        now=now,
    )
    written = selected.parsed.latest_lastmod_text if selected is not None else None
    data = response.data_map(checked, issues)
    return response.build(rules.evaluate(checked), data, now, issues, written)


def invalid_url(url_value: object, settings: config.Settings, finished: datetime) -> Outcome:
    """The 501 result: nothing fetched, nothing else in the event looked at."""
    facts = rules.RuleInputs(
        url_value=url_value,
        site=None,
        robots_status=None,
        robots_lists_sitemap=False,
        robots_served_without_sitemap=False,
        candidates=(),
        selected=None,
        max_age_days=settings.max_age_days,
        now=finished,
    )
    return response.build(rules.evaluate(facts), response.data_map(facts, []), finished)


def provenance(shared: sharing.Shared) -> Provenance:
    """How the audit got its facts, as the logs and metrics report it."""
    from sitemap_auditor.sharing.lease import Source

    source = Source(shared.source)
    return Provenance(
        source=source,
        revalidated=shared.facts.revalidated if source is Source.FETCHED else 0,
        bytes_saved=shared.bytes_saved,
        reason=shared.reason,
        refreshed_ahead=shared.refreshed_ahead,
        throttled=shared.throttled,
        unshareable=shared.unshareable,
        waited_s=shared.waited_s,
    )


def share_request(
    site: sites.SiteBase,
    creds: Credentials | None,
    settings: config.Settings,
    budget_deadline: float | None,
    store: sharing.SharedStore | None,
    key: bytes,
) -> sharing.ShareRequest:
    """How this audit takes part in sharing: its store key, its window and where facts may go."""
    from sitemap_auditor.sharing import driver as sharing

    secrets = creds.secrets() if creds else ()
    return sharing.ShareRequest(
        key=sharing.scope_key(
            site.url,
            settings.allow_private_networks,
            creds.scope() if creds else None,
            key,
        ),
        window_s=settings.share_seconds,
        # Waiting for another audit's fetch never outlasts this audit's own budget (section 7).
        budget_end=budget_deadline,
        shared_store=store,
        # A site may echo a credential back into what it answers: such facts stay in this process.
        publishable=lambda data: not _echoes(data, secrets),
    )


def _echoes(data: bytes, secrets: tuple[str, ...]) -> bool:
    """True when facts encoded as JSON hold a credential, whole in any of its forms
    (`echoed_in`) or as what a cut left of one (its first characters before a "..." or a
    closing quote, or at a string's end, which every result redacts too): such facts stay in
    the process."""
    if not secrets:
        return False
    if echoed_in(data, secrets):
        return True
    try:
        value: object = json.loads(data)
    except ValueError:
        value = data.decode("utf-8", "replace")  # not JSON: the text as a whole
    changed: list[str] = []

    def look(text: str) -> str:
        # The end of every string counts as a cut: facts keep samples cut to their length
        # (MAX_SAMPLE_CHARS), and a result shows them with the "..." that makes the cut plain.
        if not changed and redact(text + "...", secrets) != text + "...":
            changed.append(text)
        return text

    map_text(value, look)
    return bool(changed)
