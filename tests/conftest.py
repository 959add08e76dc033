"""Shared fixtures: local sites on 127.0.0.1 and a way to audit them through the handler."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings as hypothesis_settings

sys.path.insert(0, str(Path(__file__).parent))

# Importing the handler reads the environment: make it that of a plain deployment.
os.environ.pop("SITEMAP_MAX_AGE_DAYS", None)
os.environ.pop("SITEMAP_ALLOW_PRIVATE_NETWORKS", None)

from support.results import LOCAL, AuditFn, LogCapture
from support.shared import require

from harness.servers import Site
from sitemap_auditor import handler
from sitemap_auditor.audit.config import Settings
from sitemap_auditor.fetching.guard import Resolver, system_resolver


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "needs_shared: reads ../shared (skipped without it, failed in CI)"
    )


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("needs_shared") is not None:
        require()


# CI runs the properties with fixed examples, so a run can be repeated and stays green until code
# changes; developers' runs keep exploring new examples.
hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    hypothesis_settings.load_profile("ci")

# The X-Ray SDK, started as in Lambda (tests/function/test_runtime.py), marks itself in this
# fixed place.
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


@pytest.fixture
def elsewhere() -> Iterator[Site]:
    """A site on another host: 127.0.0.2, another origin than `site`'s 127.0.0.1."""
    s = Site(host="127.0.0.2").start()
    yield s
    s.stop()


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


@pytest.fixture
def logs() -> Iterator[LogCapture]:
    """Redirect the auditor's log stream (bound to the stdout of import time) for one test."""
    import logging

    from sitemap_auditor.audit.observability import logger

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
