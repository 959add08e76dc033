"""Shared fixtures: local sites on 127.0.0.1 and a way to audit them through the handler."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings as hypothesis_settings

sys.path.insert(0, str(Path(__file__).parent))

# Importing the handler reads the environment: make it that of a plain deployment.
os.environ.pop("SITEMAP_MAX_AGE_DAYS", None)
os.environ.pop("SITEMAP_ALLOW_PRIVATE_NETWORKS", None)

from servers import Site

from sitemap_auditor import handler
from sitemap_auditor.config import Settings
from sitemap_auditor.guard import Resolver, system_resolver

# CI runs the properties with fixed examples, so a run can be repeated and stays green until code
# changes; developers' runs keep exploring new examples.
hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    hypothesis_settings.load_profile("ci")

CORPUS = Path(__file__).parent / "corpus"

# Local servers live on loopback, which production refuses: tests lift that as developers do.
# Each test audits its own site afresh; tests of sharing between audits turn it on themselves.
LOCAL = Settings(max_age_days=7, allow_private_networks=True, share_seconds=0)


def days_ago(days: float) -> str:
    """A W3C datetime `days` days before now, in UTC."""
    moment = datetime.now(UTC) - timedelta(days=days)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


# The X-Ray SDK, started as in Lambda (tests/test_runtime.py), marks itself in this fixed place.
_XRAY_MARK = Path(tempfile.gettempdir()) / ".aws-xray"


@pytest.fixture(scope="session", autouse=True)
def no_files_left_behind() -> Iterator[None]:
    """What the tests' own subjects leave in the temporary folder is removed at the end."""
    had_mark = _XRAY_MARK.exists()
    yield
    if not had_mark:
        shutil.rmtree(_XRAY_MARK, ignore_errors=True)


@pytest.fixture
def site() -> Iterator[Site]:
    s = Site().start()
    yield s
    s.stop()


@pytest.fixture
def other_site() -> Iterator[Site]:
    s = Site().start()
    yield s
    s.stop()


AuditFn = Callable[..., dict[str, Any]]


@pytest.fixture
def audit() -> AuditFn:
    """Audit a URL through the handler's run(), as the Lambda would, on loopback."""

    def run(
        url: object,
        settings: Settings = LOCAL,
        resolver: Resolver = system_resolver,
        **event: Any,
    ) -> dict[str, Any]:
        return handler.run({"id": "test-run", "url": url, **event}, None, settings, resolver)

    return run


def data_of(result: dict[str, Any]) -> dict[str, Any]:
    """The shared data map of a result."""
    return result["checks"][0]["data"]


def codes_of(result: dict[str, Any]) -> list[str]:
    """The CheckCode suffixes of a result, in order."""
    return [c["code"]["id"].rsplit("-", 1)[1] for c in result["checks"]]


class LogCapture:
    """The auditor's JSON log lines, as written by its Powertools Logger."""

    def __init__(self) -> None:
        import io

        self.buffer = io.StringIO()

    def text(self) -> str:
        return self.buffer.getvalue()

    def lines(self) -> list[dict[str, Any]]:
        import json

        return [json.loads(line) for line in self.text().splitlines() if line.strip()]


@pytest.fixture
def logs() -> Iterator[LogCapture]:
    """Redirect the auditor's log stream (bound to the stdout of import time) for one test."""
    import logging

    from sitemap_auditor.observability import logger

    capture = LogCapture()
    handler = logger.registered_handler
    assert isinstance(handler, logging.StreamHandler)
    previous = handler.setStream(capture.buffer)
    try:
        yield capture
    finally:
        handler.setStream(previous)


# The shared table's fixtures; imported last, as their module imports helpers from this one.
from support.tables import dynamo, local_aws, moto, table  # noqa: E402, F401
