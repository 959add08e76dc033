"""What each layer may import, checked in a fresh interpreter per module (so nothing the test
process already imported hides a dependency)."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    ("module", "forbidden"),
    [
        # The logs and metrics render the audit's outcome: they never read sharing or the facts.
        (
            "sitemap_auditor.audit.observability",
            ("requests", "urllib3", "sitemap_auditor.sharing.driver"),
        ),
        # The event's request and the audit's outcome are values: nothing that fetches or stores.
        (
            "sitemap_auditor.audit.request",
            ("requests", "urllib3", "boto3", "sitemap_auditor.fetching.fetch"),
        ),
        (
            "sitemap_auditor.audit.outcome",
            ("requests", "urllib3", "boto3", "sitemap_auditor.sharing.driver"),
        ),
        (
            "sitemap_auditor.sharing.lease",
            ("requests", "urllib3", "boto3", "sitemap_auditor.fetching.fetch"),
        ),
        ("sitemap_auditor.core.issues", ("requests", "urllib3", "sitemap_auditor.fetching.fetch")),
        ("sitemap_auditor.core.errors", ("requests", "urllib3", "sitemap_auditor.fetching.fetch")),
        ("sitemap_auditor.core.parser", ("requests", "urllib3", "sitemap_auditor.fetching.fetch")),
        ("sitemap_auditor.audit.rules", ("requests", "urllib3", "sitemap_auditor.fetching.fetch")),
        # Body decoding is fed chunks; the guard knows sockets, not HTTP.
        (
            "sitemap_auditor.fetching.decoding",
            ("requests", "urllib3", "socket", "sitemap_auditor.fetching.guard"),
        ),
        (
            "sitemap_auditor.fetching.guard",
            ("requests", "urllib3", "sitemap_auditor.fetching.transport"),
        ),
        # Credentials travel into the fetcher, not the other way: boto3 only for a secret.
        (
            "sitemap_auditor.core.credentials",
            ("requests", "urllib3", "boto3", "sitemap_auditor.fetching.fetch"),
        ),
        # The fetcher knows HTTP, not what audits share nor how a sitemap parses; its transport
        # is injected, so importing it brings neither requests nor urllib3.
        (
            "sitemap_auditor.fetching.fetch",
            (
                "requests",
                "urllib3",
                "sitemap_auditor.fetching.transport",
                "sitemap_auditor.core.facts",
                "sitemap_auditor.core.parser",
                "sitemap_auditor.sharing.driver",
            ),
        ),
        # The transport interface and the in-memory transport need no HTTP stack.
        (
            "sitemap_auditor.fetching.exchange",
            ("requests", "urllib3", "sitemap_auditor.fetching.fetch"),
        ),
        ("sitemap_auditor.fetching.memory_transport", ("requests", "urllib3", "socket")),
        # The one reading of URLs: ada, imported on first use, and nothing of HTTP.
        (
            "sitemap_auditor.core.urls",
            ("requests", "urllib3", "ada_url", "sitemap_auditor.fetching.fetch"),
        ),
        # The deep audit is a layer above the Lambda's: the handler never imports it, and its
        # checks, document and reports are pure (only the walk fetches).
        ("sitemap_auditor.handler", ("sitemap_auditor.deep",)),
        ("sitemap_auditor.deep.checks", ("requests", "urllib3", "sitemap_auditor.fetching.fetch")),
        ("sitemap_auditor.deep.kinds", ("requests", "urllib3", "sitemap_auditor.fetching.fetch")),
        (
            "sitemap_auditor.deep.reports.text_report",
            ("requests", "urllib3", "sitemap_auditor.deep.walk"),
        ),
        (
            "sitemap_auditor.deep.reports.csv_report",
            ("requests", "urllib3", "sitemap_auditor.deep.walk"),
        ),
        # The HTML report is drawn from the document alone; robots rules are pure too.
        (
            "sitemap_auditor.deep.reports.html_report",
            ("requests", "urllib3", "sitemap_auditor.deep.walk"),
        ),
        (
            "sitemap_auditor.deep.robots_rules",
            ("requests", "urllib3", "sitemap_auditor.fetching.fetch"),
        ),
        # The duplicate table is loaded alone by its helper process: nothing of the package, and
        # no subprocess until a helper is started.
        (
            "sitemap_auditor.deep.seen",
            (
                "requests",
                "subprocess",
                "sitemap_auditor.core.parser",
                "sitemap_auditor.deep.checks",
            ),
        ),
        # The deep audit shares no fetch: it never loads the sharing protocol nor boto3.
        (
            "sitemap_auditor.cli.deep",
            ("boto3", "sitemap_auditor.sharing.driver", "sitemap_auditor.sharing.lease"),
        ),
        (
            "sitemap_auditor.deep.walk",
            ("boto3", "sitemap_auditor.sharing.driver", "sitemap_auditor.sharing.lease"),
        ),
    ],
)
def test_a_layer_imports_none_of_what_it_must_not(module: str, forbidden: tuple[str, ...]) -> None:
    code = f"import sys, {module}; print([m for m in {list(forbidden)!r} if m in sys.modules])"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"
