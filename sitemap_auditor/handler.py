"""The Lambda entry point: one audited URL in, the platform's Response out.

The pipeline reads top to bottom in `audit`:
site root -> robots probe -> candidates -> streaming parse -> rules -> result.
"""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from typing import Any

from . import candidates, config, credentials, observability, probe, response, rules
from . import site as sites
from .fetch import Fetcher, FetchPolicy, Resolver, system_resolver
from .issues import issue
from .observability import Invocation
from .parser import MAX_UNPARSABLE_SAMPLES
from .text import valid_unicode

# Read once per cold start; an invalid SITEMAP_MAX_AGE_DAYS stops the function here, at import.
SETTINGS = config.load(os.environ)
# Time kept back from the Lambda's own limit to build and return the result.
RESPONSE_MARGIN_S = 3.0


def audit(
    site: sites.SiteBase, event: dict[str, Any], settings: config.Settings, fetcher: Fetcher
) -> dict[str, Any]:
    """Audit one site root and return the platform Response."""
    max_age_days, preference_issue = config.event_max_age_days(
        event.get("preferences"), settings.max_age_days
    )
    robots = probe.robots_txt(fetcher, site.robots_txt_url)
    tried = candidates.for_site(site, robots.sitemaps)
    selected, candidate_issues = probe.first_sitemap(fetcher, tried)

    lastmod_issues: list[str] = []
    if selected is not None:
        parsed = selected.parsed
        for value in parsed.unparsable_samples:
            lastmod_issues.append(issue(selected.url, f"unparsable <lastmod> {value!r}"))
        if parsed.unparsable_total > MAX_UNPARSABLE_SAMPLES:
            lastmod_issues.append(
                issue(selected.url, f"{parsed.unparsable_total} unparsable <lastmod> values in all")
            )
    # CONTRACT section 6: each kind of issue in this order.
    issues = [
        *robots.issues,
        *candidate_issues,
        *robots.skipped,
        *([preference_issue] if preference_issue else []),
        *lastmod_issues,
    ]
    finished = datetime.now(UTC)
    facts = rules.Facts(
        url_value=event.get("url"),
        site=site,
        robots_status=robots.status,
        robots_lists_sitemap=robots.read_whole and bool(robots.sitemaps),
        robots_served_without_sitemap=robots.read_whole and not robots.sitemaps,
        candidates=tried,
        selected=selected,
        max_age_days=max_age_days,
        now=finished,
    )
    return response.build(rules.evaluate(facts), response.data_map(facts, issues), finished)


def invalid_url(url_value: object, settings: config.Settings) -> dict[str, Any]:
    """The 501 result: nothing fetched, nothing else in the event looked at."""
    finished = datetime.now(UTC)
    facts = rules.Facts(
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


def run(
    event: Any,
    context: Any = None,
    settings: config.Settings = SETTINGS,
    resolver: Resolver = system_resolver,
) -> dict[str, Any]:
    """Audit the URL of one event under the given settings; never raises."""
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
            policy = FetchPolicy(
                origin=site.origin(),
                credentials=creds,
                allow_private_networks=settings.allow_private_networks,
                resolver=resolver,
                budget_deadline=_budget_deadline(context),
            )
            fetcher = Fetcher(policy, on_fetch=log.fetched)
            try:
                result = audit(site, ev, settings, fetcher)
            finally:
                fetcher.close()
            if secrets:
                # A site may echo the credentials back (in a Sitemap: URL, a header, a lastmod):
                # none of it reaches the result.
                result = response.redact_tree(result, secrets)
    except credentials.SecretError as e:
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
    """The Lambda handler (CONTRACT section 1)."""
    return run(event, context)


# X-Ray wraps the handler only when tracing is on; otherwise this is _lambda_handler itself.
lambda_handler = observability.traced(_lambda_handler)
