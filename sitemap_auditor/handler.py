"""The Lambda entry point: one event in, the platform's Response out, and the error boundary.

The pipeline reads top to bottom in `run`: the event as a typed request (`request.parse`) ->
site root -> robots probe -> candidates -> streaming parse (`audit.fetch_facts`, or the facts
another audit of the site fetched, through sharing) -> rules -> outcome (`audit.apply_rules`) ->
the Response, the log lines and the metrics, each a rendering of that outcome. What lives as
long as the process is in lifetime.py; the steps themselves are in audit.py.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from sitemap_auditor.audit import config, lifetime, observability, response
from sitemap_auditor.audit import secrets as secret_store
from sitemap_auditor.audit import steps as audit
from sitemap_auditor.audit.observability import Invocation
from sitemap_auditor.audit.outcome import Outcome, Provenance, redacted
from sitemap_auditor.audit.request import parse as parse_event
from sitemap_auditor.core import errors
from sitemap_auditor.core import site as sites
from sitemap_auditor.core.credentials import Credentials
from sitemap_auditor.core.text import valid_unicode
from sitemap_auditor.fetching.exchange import Transport
from sitemap_auditor.fetching.fetch import Fetcher, FetchPolicy
from sitemap_auditor.fetching.guard import Resolver, system_resolver

# The real transport, imported here: requests and urllib3 load in the Lambda's init phase, with
# its full CPU, not in the first audit (fetch.py would otherwise import them on first use).
from sitemap_auditor.fetching.transport import HttpTransport
from sitemap_auditor.sharing import driver as sharing
from sitemap_auditor.sharing.dynamostore import DynamoStore

__all__ = ["RESPONSE_MARGIN_S", "SETTINGS", "SHARING", "lambda_handler", "run"]

# The process-lifetime objects (lifetime.py): settings, the sharing stores, the process's key.
SETTINGS = lifetime.SETTINGS
SHARING = lifetime.SHARING
# Time kept back from the Lambda's own limit to build and return the result.
RESPONSE_MARGIN_S = 3.0
# Of that margin, what is left once the last store call has had its time: rules, rendering,
# logs and metrics take milliseconds.
STORE_MARGIN_S = 0.5


def _budget_deadline(context: Any) -> float | None:
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    if remaining is None:
        return None
    return time.monotonic() + float(remaining()) / 1000.0 - RESPONSE_MARGIN_S


def _answer_by(budget_deadline: float | None) -> float | None:
    """When a store or secret call must have answered (time.monotonic()): before the answer is
    due, whatever the call's own timeouts (None: no deadline known)."""
    if budget_deadline is None:
        return None
    return budget_deadline + RESPONSE_MARGIN_S - STORE_MARGIN_S


def _shared_store(
    creds: Credentials | None,
    settings: config.Settings,
    log: Invocation,
    budget_deadline: float | None,
) -> tuple[sharing.SharedStore | None, bytes]:
    """The table this audit may share facts through, if any, and the key that scopes them."""
    if not settings.cache_table or settings.share_seconds <= 0:
        return None, lifetime.PROCESS_KEY
    # No store call outlasts the moment the answer is due (the margin kept for it, but a bit).
    answer_by = _answer_by(budget_deadline)
    store = DynamoStore(settings.cache_table, log.store_item_rejected, answer_by=answer_by)
    if creds is None:
        return store, lifetime.PROCESS_KEY
    if settings.cache_key_secret:
        # Facts learnt with credentials go to the table only under a key kept outside it.
        try:
            key = secret_store.cache_key(settings.cache_key_secret, answer_by)
        except errors.SecretError as e:
            log.store_error(sharing.StoreError("cache key", str(e)))
        else:
            return store, key
    return None, lifetime.PROCESS_KEY


def run(
    event: Any,
    context: Any = None,
    settings: config.Settings = SETTINGS,
    resolver: Resolver = system_resolver,
    observe: Callable[[Outcome], None] | None = None,
    transport: Transport | None = None,
) -> dict[str, Any]:
    """Audit the URL of one event under the given settings; never raises. `observe` is given
    the audit's outcome, what the Response renders (the command line's report renders it too);
    `transport` replaces the real HTTP one (an in-memory one, in tests)."""
    # Lone surrogates become U+FFFD here, once, so no result or log line can fail to encode.
    request = parse_event(valid_unicode(event))
    # Inline credentials are known at once: the event's own url may carry the password (in its
    # query, say), and no line, not even the first, may show it (docs/contract.md §8).
    # A basicAuthSecretId's password is known once the secret is read: the first line waits
    # for it (Invocation.begin).
    secrets: tuple[str, ...] = request.basic_auth.secrets() if request.basic_auth else ()
    log = Invocation(request.id, request.url, getattr(context, "aws_request_id", None), secrets)
    # Known once the facts are in; the logs and metrics carry it even when a defect follows.
    provenance: Provenance | None = None
    try:
        site = sites.resolve(request.url)
        if site is None:
            outcome = redacted(audit.invalid_url(request.url, settings, datetime.now(UTC)), secrets)
            result = response.render(outcome)
            if secrets:
                result = response.redact_tree(result, secrets)
        else:
            budget_deadline = _budget_deadline(context)
            creds = secret_store.resolve(
                request.basic_auth,
                request.secret_id,
                request.unreadable_secret_id,
                settings.cache_key_secret,
                _answer_by(budget_deadline),
            )
            secrets = creds.secrets() if creds else ()
            log.begin(secrets)
            store, key = _shared_store(creds, settings, log, budget_deadline)
            share = audit.share_request(site, creds, settings, budget_deadline, store, key)
            fetcher = Fetcher(
                FetchPolicy(
                    origin=site.origin(),
                    credentials=creds,
                    allow_private_networks=settings.allow_private_networks,
                    resolver=resolver,
                    budget_deadline=budget_deadline,
                ),
                on_fetch=log.fetched,
                transport=transport if transport is not None else HttpTransport(),
            )
            try:
                # The site's answers, from this audit's own fetch or shared with other audits.
                shared = SHARING.obtain(
                    share,
                    lambda previous, progress: audit.fetch_facts(site, fetcher, previous, progress),
                    log.store_error,
                )
            finally:
                fetcher.close()
            provenance = audit.provenance(shared)
            found = audit.apply_rules(site, request, shared.facts, settings, datetime.now(UTC))
            found = replace(found, provenance=provenance)
            result = response.render(found)
            if secrets:
                # A site may echo the credentials back (in a Sitemap: URL, a header, a lastmod):
                # none of it reaches the result, the logs or the report.
                result = response.redact_tree(result, secrets)
            outcome = redacted(found, secrets)
    except errors.SecretError as e:
        # A deployment problem, not a defect: said plainly, without a stack trace.
        log.secret_unreadable(e)
        outcome = replace(response.error(e, datetime.now(UTC), secrets), provenance=provenance)
        result = response.render(outcome)
    except Exception as e:  # noqa: BLE001 -- a defect becomes the platform's ERROR response
        log.failed(e, secrets)
        outcome = replace(response.error(e, datetime.now(UTC), secrets), provenance=provenance)
        result = response.render(outcome)
    try:
        log.finished(outcome)
    except Exception:  # noqa: BLE001 -- a failing log or metric must not cost the result
        observability.logger.exception("logging or metrics failed")
    if observe is not None:
        observe(outcome)
    return result


def _lambda_handler(event: Any, context: Any) -> dict[str, Any]:
    """The Lambda handler (docs/contract.md §1)."""
    return run(event, context)


# X-Ray wraps the handler only when tracing is on; otherwise this is _lambda_handler itself.
lambda_handler = observability.traced(_lambda_handler)
