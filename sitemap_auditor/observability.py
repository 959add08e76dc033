"""Logs and metrics, built once per process: Powertools Logger (JSON lines) and Metrics (EMF)."""

from __future__ import annotations

import logging
import os
import sys
import traceback
from collections.abc import Iterable
from typing import Any

from aws_lambda_powertools.logging import Logger

from .fetch import FetchStats
from .response import redact
from .site import strip_userinfo

SERVICE = os.environ.get("POWERTOOLS_SERVICE_NAME") or "sitemap-auditor"

logger = Logger(service=SERVICE)


class Invocation:
    """What one invocation logs: started, each fetch, finished; never a credential or a body."""

    def __init__(self, run_id: object, url: object) -> None:
        self.fetches: list[FetchStats] = []
        logger.thread_safe_append_keys(
            run_id=run_id if isinstance(run_id, str) else None,
            url=strip_userinfo(url)[:2048] if isinstance(url, str) else None,
        )
        logger.info("audit started")

    def fetched(self, stats: FetchStats) -> None:
        """Record one fetch (a callback of the Fetcher)."""
        self.fetches.append(stats)
        logger.info(
            "fetched",
            extra={
                "fetch_url": strip_userinfo(stats.url)[:2048],
                "http_status": stats.status,
                "wire_bytes": stats.wire_bytes,
                "duration_ms": round(stats.seconds * 1000, 1),
                "fetch_error": stats.error,
            },
        )

    def failed(self, exc: BaseException, secrets: Iterable[str]) -> None:
        """Log a defect, its message and stack redacted."""
        stack = "".join(traceback.format_exception(exc))
        logger.error("audit could not finish", extra={"error": redact(stack, secrets)[-4000:]})

    def finished(self, result: dict[str, Any]) -> None:
        """Log the outcome."""
        checks = result.get("checks") or []
        logger.info(
            "audit finished",
            extra={
                "status": result.get("status"),
                "check_codes": [c["code"]["id"] for c in checks],
            },
        )
        logger.thread_safe_clear_keys()


def quiet(verbose: bool) -> None:
    """For the command line: logs go to standard error, and only warnings unless verbose."""
    handler = logger.registered_handler
    if isinstance(handler, logging.StreamHandler):
        handler.setStream(sys.stderr)
    logger.setLevel("INFO" if verbose else "WARNING")
