"""Logs and metrics, built once per process: Powertools Logger (JSON lines) and Metrics (EMF)."""

from __future__ import annotations

import json
import logging
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from aws_lambda_powertools.logging import Logger
from aws_lambda_powertools.metrics import Metrics, MetricUnit

from sitemap_auditor.audit.outcome import Outcome, redact
from sitemap_auditor.core import codes
from sitemap_auditor.core.codes import Status
from sitemap_auditor.core.errors import StoreError
from sitemap_auditor.core.text import valid_text
from sitemap_auditor.core.urls import echoed_url, strip_userinfo
from sitemap_auditor.fetching.fetch_stats import FetchStats
from sitemap_auditor.sharing.lease import Source

__all__ = [
    "MAX_ISSUE_KINDS",
    "MAX_LOG_RUN_ID_CHARS",
    "MAX_METRIC_VALUES",
    "MAX_RUN_ID_CHARS",
    "METRICS",
    "NAMESPACE",
    "SERVICE",
    "SHARING_METRICS",
    "Handler",
    "Invocation",
    "emit_metrics",
    "logger",
    "metrics",
    "muted",
    "quiet",
    "reset",
    "traced",
    "tracing_enabled",
]

SERVICE = os.environ.get("POWERTOOLS_SERVICE_NAME") or "sitemap-auditor"
NAMESPACE = os.environ.get("POWERTOOLS_METRICS_NAMESPACE") or "37Audits/SitemapAuditor"
# CloudWatch takes at most 100 values of one metric in one EMF document, and Powertools flushes on
# its own when a metric reaches 100: stay below, so each invocation is one EMF document.
MAX_METRIC_VALUES = 99
# The event's id as logged and put on the EMF document.
MAX_RUN_ID_CHARS = 256  # on the EMF document (CONTRACT §1)
# On the other log lines the id is whole up to this: an event's id may be megabytes, and
# CloudWatch cuts a log event at 256 KB.
MAX_LOG_RUN_ID_CHARS = 2048
# Distinct issue kinds logged per audit, for "failures by issue kind" queries.
MAX_ISSUE_KINDS = 20


# The metrics of sharing (docs/contract.md §7): how each audit got its facts, what the store did.
_SHARING_METRICS: dict[str, MetricUnit] = {
    **{f"Facts{source.value.title()}": MetricUnit.Count for source in Source},
    "FactsRevalidated": MetricUnit.Count,
    "BytesSaved": MetricUnit.Bytes,
    "StoreErrors": MetricUnit.Count,
    "FactsRefreshedAhead": MetricUnit.Count,
    "StoreThrottles": MetricUnit.Count,
    "FactsUnshareable": MetricUnit.Count,
    "StoreItemsRejected": MetricUnit.Count,
    # How long an audit waited for another audit's fetch (in this process or another container);
    # only from an audit that waited at all, so that its percentiles are those of the waits.
    "ShareWaitTime": MetricUnit.Milliseconds,
}
# Every metric the function emits, with its unit: the one table. The code below emits only these
# (an unknown name raises), the tests take the units from it and the dashboard's test asserts
# template.yaml against it.
METRICS: dict[str, MetricUnit] = {
    **{f"Audit{s.value.title()}": MetricUnit.Count for s in Status if s is not Status.INFORMATION},
    **{f"Check{code.number}": MetricUnit.Count for code in codes.ALL},
    "AuditDuration": MetricUnit.Milliseconds,
    "BytesFetched": MetricUnit.Bytes,
    "FetchLatency": MetricUnit.Milliseconds,
    "SitemapBytes": MetricUnit.Bytes,
    "SitemapEntries": MetricUnit.Count,
    **_SHARING_METRICS,
}
SHARING_METRICS: tuple[str, ...] = tuple(_SHARING_METRICS)


def _add(name: str, value: float) -> None:
    metrics.add_metric(name=name, unit=METRICS[name], value=value)


def _json_line(record: Mapping[str, Any]) -> str:
    """One log record as a JSON line that UTF-8 can always encode."""
    # Powertools' own serializer keeps non-ASCII text as is (ensure_ascii=False), so a lone
    # surrogate anywhere in a record (a key, an exception message) would make the stream's
    # encoder raise and logging drop the whole line.
    line = json.dumps(record, default=str, separators=(",", ":"), ensure_ascii=False)
    return valid_text(line)


logger = Logger(service=SERVICE, json_serializer=_json_line)
metrics = Metrics(service=SERVICE, namespace=NAMESPACE)
_state = {"cold_start": True, "emit_metrics": True}


class Invocation:
    """What one invocation logs: started, each fetch, finished; never a credential or a body."""

    def __init__(
        self, run_id: object, url: object, request_id: object = None, secrets: tuple[str, ...] = ()
    ) -> None:
        self.fetches: list[FetchStats] = []
        self.secrets = secrets
        self.started = time.monotonic()
        self.store_errors = 0
        self.items_rejected = 0
        self.issue_kinds: list[str] = []
        # docs/contract.md §1: on every log line, cut to 256 characters on the EMF document;
        # shown once the audit knows the password it must hide in it (`begin`), as the url.
        self._run_id = run_id if isinstance(run_id, str) else None
        self.run_id: str | None = None
        self._cold_start, _state["cold_start"] = _state["cold_start"], False
        self._url = url
        self._request_id = request_id
        self._begun = False

    def begin(self, secrets: tuple[str, ...] | None = None) -> None:
        """Write the first line, `audit started`, once: with the audit's secrets known by now.

        The event's url may carry a password outside its userinfo (in its query, say) and every
        line carries the url: so no line is written before the audit knows the password it must
        hide, the one of a `basicAuthSecretId` included (docs/contract.md §8). Any other line
        begins the invocation first, with what is known then.
        """
        if self._begun:
            return
        self._begun = True
        if secrets is not None:
            self.secrets = secrets
        if self._run_id is not None:
            # Hidden whole, then cut: a cut first would leave a piece of a secret across it
            # (its spellings included), and hiding earlier copies would bring it into what is
            # kept. The event's size bounds the id.
            self.run_id = redact(self._run_id, self.secrets)[:MAX_LOG_RUN_ID_CHARS]
        url = self._url
        logger.thread_safe_append_keys(
            run_id=self.run_id,
            url=redact(echoed_url(url), self.secrets)[:2048] if isinstance(url, str) else None,
            cold_start=self._cold_start,
            # Matches these lines to the Lambda's own START/REPORT lines.
            request_id=self._request_id if isinstance(self._request_id, str) else None,
        )
        logger.info("audit started")

    def fetched(self, stats: FetchStats) -> None:
        """Record one fetch (a callback of the Fetcher)."""
        self.begin()
        self.fetches.append(stats)
        logger.info(
            "fetched",
            extra={
                "fetch_url": redact(strip_userinfo(stats.url), self.secrets)[:2048],
                "http_status": stats.status,
                "wire_bytes": stats.wire_bytes,
                "duration_ms": round(stats.seconds * 1000, 1),
                "fetch_error": stats.error,
            },
        )

    def store_error(self, error: StoreError) -> None:
        """Log a failed call to the shared store (the audit goes on by itself)."""
        self.begin()
        self.store_errors += 1
        logger.warning(
            "store error", extra={"store_op": error.op, "error": valid_text(error.detail)[:300]}
        )

    def store_item_rejected(self, reason: str) -> None:
        """Count an item read from the shared store that was not what the function writes (it
        counted as no item); the first one of the audit is logged, with why."""
        self.items_rejected += 1
        if self.items_rejected == 1:
            self.begin()
            # The reason names an attribute and what is wrong, never the value (errors.py).
            logger.warning("store item rejected", extra={"reason": valid_text(reason)[:300]})

    def sharing_fields(self, outcome: Outcome) -> dict[str, object]:
        """The log fields that say how the facts were got and what sharing saved."""
        s = outcome.provenance
        return {
            "facts_source": s.source.value if s else None,
            "revalidated": s.revalidated if s else 0,
            "bytes_saved": s.bytes_saved if s else 0,
            "store_errors": self.store_errors,
            "store_items_rejected": self.items_rejected,
            # Why it fetched (holder, refresh, store-failed, unshareable, budget, hedged), if so.
            "fetch_reason": s.reason if s else None,
            "refreshed_ahead": s.refreshed_ahead if s else False,
            "store_throttles": s.throttled if s else 0,
            "unshareable": s.unshareable if s else None,
            # How long it waited for another audit's fetch (0 when it did not).
            "waited_ms": round(s.waited_s * 1000) if s else 0,
        }

    def secret_unreadable(self, exc: BaseException) -> None:
        """Log a basicAuthSecretId that could not be read (its message names only the id)."""
        self.begin()
        logger.warning("basic auth secret unreadable", extra={"error": str(exc)[:300]})

    def failed(self, exc: BaseException, secrets: Iterable[str]) -> None:
        """Log a defect, its message and stack redacted."""
        self.begin()
        stack = "".join(traceback.format_exception(exc))
        logger.error("audit could not finish", extra={"error": redact(stack, secrets)[-4000:]})

    def finished(self, outcome: Outcome) -> None:
        """Log the outcome and flush this invocation's metrics."""
        self.begin()
        duration_ms = (time.monotonic() - self.started) * 1000
        try:
            logger.info(
                "audit finished",
                extra={
                    "status": outcome.status.value,
                    "check_codes": [c.id for c in outcome.check_codes],
                    "duration_ms": round(duration_ms, 1),
                    "issue_kinds": list(dict.fromkeys(i.kind.value for i in outcome.issues))[
                        :MAX_ISSUE_KINDS
                    ],
                    **self.sharing_fields(outcome),
                },
            )
            if _state["emit_metrics"]:
                try:
                    # A property of the EMF document, not a dimension (a dimension per run
                    # would make a metric per run): Logs Insights ties metrics to log lines.
                    if self.run_id is not None:
                        metrics.add_metadata(key="run_id", value=self.run_id[:MAX_RUN_ID_CHARS])
                    self._add_metrics(outcome, duration_ms)
                finally:
                    metrics.flush_metrics()
        except Exception:  # a failing log or metric must not cost the result
            logger.exception("logging or metrics failed")
        finally:
            # Only now, so that the failure line above carries the run id too.
            logger.thread_safe_clear_keys()

    def _add_metrics(self, outcome: Outcome, duration_ms: float) -> None:
        add = _add
        add(f"Audit{outcome.status.value.title()}", 1)
        for code in outcome.check_codes:
            add(f"Check{code.number}", 1)
        add("AuditDuration", duration_ms)
        shared = outcome.provenance
        if shared is not None:
            add(f"Facts{shared.source.value.title()}", 1)
            if shared.source is Source.FETCHED:
                add("FactsRevalidated", shared.revalidated)
            add("BytesSaved", shared.bytes_saved)
            if shared.refreshed_ahead:
                add("FactsRefreshedAhead", 1)
            if shared.throttled:
                add("StoreThrottles", shared.throttled)
            if shared.unshareable is not None:
                add("FactsUnshareable", 1)
            if shared.waited_s > 0:
                add("ShareWaitTime", shared.waited_s * 1000)
        if shared is not None or self.store_errors:
            add("StoreErrors", self.store_errors)
        if self.items_rejected:
            add("StoreItemsRejected", self.items_rejected)
        add("BytesFetched", sum(f.wire_bytes for f in self.fetches))
        for stats in self.fetches[:MAX_METRIC_VALUES]:
            add("FetchLatency", stats.seconds * 1000)
        data = outcome.data
        if data is not None and data.selected_sitemap_url is not None:
            sizes = [f.wire_bytes for f in self.fetches if f.url == data.selected_sitemap_url]
            add("SitemapBytes", sizes[-1] if sizes else 0)
            add("SitemapEntries", data.entry_count or 0)


def reset() -> None:
    """The next invocation is a cold start again (for tests)."""
    _state["cold_start"] = True


def emit_metrics(on: bool) -> bool:
    """Turn the EMF metrics on or off for the process; returns whether they were on."""
    was, _state["emit_metrics"] = _state["emit_metrics"], on
    return was


def quiet(verbose: bool) -> None:
    """For the command line: no metrics, logs on standard error and only warnings unless verbose."""
    emit_metrics(False)
    handler = logger.registered_handler
    if isinstance(handler, logging.StreamHandler):
        handler.setStream(sys.stderr)
    logger.setLevel("INFO" if verbose else "WARNING")


@contextmanager
def muted() -> Iterator[None]:
    """No log line while the body runs (the command line says start-up warnings itself)."""
    level = logger.log_level
    logger.setLevel("CRITICAL")
    try:
        yield
    finally:
        logger.setLevel(level)


def tracing_enabled(environ: Mapping[str, str]) -> bool:
    """X-Ray tracing is on only when POWERTOOLS_TRACE_DISABLED is set to false."""
    return environ.get("POWERTOOLS_TRACE_DISABLED", "true").strip().lower() in ("false", "0")


Handler = Callable[[Any, Any], dict[str, Any]]


def traced(handler: Handler) -> Handler:
    """Wrap the Lambda handler in an X-Ray subsegment when tracing is on; else return it as is."""
    if not tracing_enabled(os.environ):
        return handler  # nothing of X-Ray is imported: no cold-start cost
    from aws_lambda_powertools.tracing import Tracer

    # Only botocore is patched (the Secrets Manager call): requests to audited sites must never
    # carry an X-Amzn-Trace-Id or any other header of ours.
    tracer = Tracer(service=SERVICE, auto_patch=True, patch_modules=("botocore",))
    # The response names the site's URLs and issues: keep it out of traces.
    wrapped: Handler = tracer.capture_lambda_handler(handler, capture_response=False)
    return wrapped
