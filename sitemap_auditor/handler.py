"""The Lambda entry point: one audited URL in, the platform's Response out.

The pipeline reads top to bottom: site root (`run`) -> robots probe -> candidates -> streaming
parse (`fetch_facts`, or the facts another audit of the site fetched: `audit`) -> rules -> result
(`apply_rules`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from . import (
    candidates,
    config,
    credentials,
    errors,
    lifetime,
    observability,
    probe,
    response,
    rules,
    sharing,
)
from . import site as sites
from .credentials import Credentials
from .dynamostore import DynamoStore
from .facts import SiteFacts
from .fetch import Fetcher, FetchPolicy
from .guard import Resolver, system_resolver
from .issues import Issue, Kind, issue
from .observability import Invocation
from .parser import MAX_UNPARSABLE_SAMPLES
from .text import valid_unicode

__all__ = [
    "RESPONSE_MARGIN_S",
    "SETTINGS",
    "SHARING",
    "Audited",
    "apply_rules",
    "audit",
    "fetch_facts",
    "invalid_url",
    "lambda_handler",
    "run",
    "share_request",
]

# The process-lifetime objects (lifetime.py): settings, the sharing stores, the process's key.
SETTINGS = lifetime.SETTINGS
SHARING = lifetime.SHARING
# Time kept back from the Lambda's own limit to build and return the result.
RESPONSE_MARGIN_S = 3.0


@dataclass(frozen=True)
class Audited:
    """What an audit found besides its Response: its issues as values, and the selected
    sitemap's latest <lastmod> as written."""

    issues: tuple[Issue, ...]
    latest_lastmod_written: str | None


def fetch_facts(site: sites.SiteBase, fetcher: Fetcher, previous: SiteFacts | None) -> SiteFacts:
    """What the site answers now: robots probe -> candidates -> streaming parse."""
    started = time.monotonic()
    robots = probe.robots_txt(fetcher, site.robots_txt_url, previous.robots if previous else None)
    tried = candidates.for_site(site, robots.sitemaps)
    outcomes = probe.first_sitemap(fetcher, tried, previous)
    took = time.monotonic() - started
    return probe.gather(fetcher, robots, tried, outcomes, previous, time.time(), took)


def apply_rules(
    site: sites.SiteBase,
    event: dict[str, Any],
    facts: SiteFacts,
    settings: config.Settings,
    now: datetime,
    observe: Callable[[Audited], None] | None = None,
) -> dict[str, Any]:
    """The platform Response the rules give for a site's facts, this event and this moment."""
    max_age_days, preference_issue = config.event_max_age_days(
        event.get("preferences"), settings.max_age_days
    )
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
    if observe is not None:
        written = selected.parsed.latest_lastmod_text if selected is not None else None
        observe(Audited(tuple(issues), written))
    checked = rules.RuleInputs(
        url_value=event.get("url"),
        site=site,
        robots_status=robots.status,
        robots_lists_sitemap=robots.read_whole and bool(robots.sitemaps),
        robots_served_without_sitemap=robots.read_whole and not robots.sitemaps,
        candidates=facts.candidates,
        selected=selected,
        max_age_days=max_age_days,
        now=now,
    )
    return response.build(rules.evaluate(checked), response.data_map(checked, issues), now)


def audit(
    site: sites.SiteBase,
    event: dict[str, Any],
    settings: config.Settings,
    fetcher: Fetcher,
    share: sharing.ShareRequest,
    log: Invocation,
    observe: Callable[[Audited], None] | None = None,
) -> dict[str, Any]:
    """Audit one site root and return the platform Response."""
    # The site's answers, from this audit's own fetch or shared with other audits of the site.
    shared = SHARING.obtain(
        share, lambda previous: fetch_facts(site, fetcher, previous), log.store_error
    )
    log.shared(shared)

    def seen(audited: Audited) -> None:
        log.issues(audited.issues)
        if observe is not None:
            observe(audited)

    return apply_rules(site, event, shared.facts, settings, datetime.now(UTC), seen)


def invalid_url(url_value: object, settings: config.Settings) -> dict[str, Any]:
    """The 501 result: nothing fetched, nothing else in the event looked at."""
    finished = datetime.now(UTC)
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


def _budget_deadline(context: Any) -> float | None:
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    if remaining is None:
        return None
    return time.monotonic() + float(remaining()) / 1000.0 - RESPONSE_MARGIN_S


def share_request(
    site: sites.SiteBase,
    creds: Credentials | None,
    settings: config.Settings,
    budget_deadline: float | None,
    log: Invocation,
) -> sharing.ShareRequest:
    """How this audit takes part in sharing: its store key, its window and where facts may go."""
    key = lifetime.PROCESS_KEY
    store: sharing.SharedStore | None = None
    if settings.cache_table and settings.share_seconds > 0:
        if creds is None:
            store = DynamoStore(settings.cache_table)
        elif settings.cache_key_secret:
            # Facts learnt with credentials go to the table only under a key kept outside it.
            try:
                key = credentials.cache_key(settings.cache_key_secret)
                store = DynamoStore(settings.cache_table)
            except errors.SecretError as e:
                log.store_error(sharing.StoreError("cache key", str(e)))
    secrets = [s.encode() for s in creds.secrets()] if creds else []
    return sharing.ShareRequest(
        key=sharing.scope_key(
            site.url,
            settings.allow_private_networks,
            f"{creds.username}\0{creds.password}" if creds else None,
            key,
        ),
        window_s=settings.share_seconds,
        # Waiting for another audit's fetch never outlasts this audit's own budget (section 7).
        budget_end=budget_deadline,
        shared_store=store,
        # A site may echo a credential back into what it answers: such facts stay in this process.
        publishable=lambda data: not any(secret in data for secret in secrets),
    )


def run(
    event: Any,
    context: Any = None,
    settings: config.Settings = SETTINGS,
    resolver: Resolver = system_resolver,
    observe: Callable[[Audited], None] | None = None,
) -> dict[str, Any]:
    """Audit the URL of one event under the given settings; never raises. `observe` is given
    what the audit found besides its Response (the command line's report uses it)."""
    # Lone surrogates become U+FFFD here, once, so no result or log line can fail to encode.
    event = valid_unicode(event)
    ev: dict[str, Any] = event if isinstance(event, dict) else {}
    log = Invocation(ev.get("id"), ev.get("url"), getattr(context, "aws_request_id", None))
    secrets: tuple[str, ...] = ()
    try:
        site = sites.resolve(ev.get("url"))
        if site is None:
            result = invalid_url(ev.get("url"), settings)
        else:
            creds = credentials.from_event(ev)
            secrets = creds.secrets() if creds else ()
            log.secrets = secrets
            budget_deadline = _budget_deadline(context)
            policy = FetchPolicy(
                origin=site.origin(),
                credentials=creds,
                allow_private_networks=settings.allow_private_networks,
                resolver=resolver,
                budget_deadline=budget_deadline,
            )
            share = share_request(site, creds, settings, budget_deadline, log)
            fetcher = Fetcher(policy, on_fetch=log.fetched)
            try:
                result = audit(site, ev, settings, fetcher, share, log, observe)
            finally:
                fetcher.close()
            if secrets:
                # A site may echo the credentials back (in a Sitemap: URL, a header, a lastmod):
                # none of it reaches the result.
                result = response.redact_tree(result, secrets)
    except errors.SecretError as e:
        # A deployment problem, not a defect: said plainly, without a stack trace.
        log.secret_unreadable(e)
        result = response.error(e, datetime.now(UTC), secrets)
    except Exception as e:  # noqa: BLE001 -- a defect becomes the platform's ERROR response
        log.failed(e, secrets)
        result = response.error(e, datetime.now(UTC), secrets)
    try:
        log.finished(result)
    except Exception:  # noqa: BLE001 -- a failing log or metric must not cost the result
        observability.logger.exception("logging or metrics failed")
    return result


def _lambda_handler(event: Any, context: Any) -> dict[str, Any]:
    """The Lambda handler (docs/contract.md §1)."""
    return run(event, context)


# X-Ray wraps the handler only when tracing is on; otherwise this is _lambda_handler itself.
lambda_handler = observability.traced(_lambda_handler)
