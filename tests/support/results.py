"""What the tests read a result and the logs with, and the settings they audit local sites under."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sitemap_auditor.audit.config import Settings

__all__ = [
    "CHECK_KEYS",
    "CORPUS",
    "DATA_MAP_OF_501",
    "LOCAL",
    "AuditFn",
    "LogCapture",
    "codes_of",
    "data_of",
    "days_ago",
]

CORPUS = Path(__file__).resolve().parent.parent / "corpus"

# Local servers live on loopback, which production refuses: tests lift that as developers do.
# Each test audits its own site afresh; tests of sharing between audits turn it on themselves.
LOCAL = Settings(max_age_days=7, allow_private_networks=True, share_seconds=0)

# docs/contract.md §2: a check's keys, in the platform's order.
CHECK_KEYS = ["status", "resource", "message", "recommendation", "score", "data", "code", "order"]

# docs/contract.md §3: the data map of a 501 under a 7-day window, every key there.
DATA_MAP_OF_501: dict[str, Any] = {
    "siteBase": None,
    "robotsTxtUrl": None,
    "robotsTxtHttpStatus": None,
    "robotsTxtListsSitemap": False,
    "candidateSitemaps": [],
    "selectedSitemapUrl": None,
    "sitemapType": None,
    "sitemapHttpStatus": None,
    "contentType": None,
    "entryCount": None,
    "latestLastmod": None,
    "maxAgeDays": 7,
    "issues": [],
}


def days_ago(days: float) -> str:
    """A W3C datetime `days` days before now, in UTC."""
    moment = datetime.now(UTC) - timedelta(days=days)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


AuditFn = Callable[..., dict[str, Any]]


def data_of(result: dict[str, Any]) -> dict[str, Any]:
    """The shared data map of a result."""
    data: dict[str, Any] = result["checks"][0]["data"]
    return data


def codes_of(result: dict[str, Any]) -> list[str]:
    """The CheckCode suffixes of a result, in order."""
    return [c["code"]["id"].rsplit("-", 1)[1] for c in result["checks"]]


class LogCapture:
    """The auditor's JSON log lines, as written by its Powertools Logger."""

    def __init__(self) -> None:
        self.buffer = io.StringIO()

    def text(self) -> str:
        return self.buffer.getvalue()

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.text().splitlines() if line.strip()]
