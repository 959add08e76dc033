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
        ("sitemap_auditor.observability", ("requests", "urllib3", "sitemap_auditor.sharing")),
        # The event's request and the audit's outcome are values: nothing that fetches or stores.
        ("sitemap_auditor.request", ("requests", "urllib3", "boto3", "sitemap_auditor.fetch")),
        ("sitemap_auditor.outcome", ("requests", "urllib3", "boto3", "sitemap_auditor.sharing")),
        ("sitemap_auditor.lease", ("requests", "urllib3", "boto3", "sitemap_auditor.fetch")),
        ("sitemap_auditor.issues", ("requests", "urllib3", "sitemap_auditor.fetch")),
        ("sitemap_auditor.errors", ("requests", "urllib3", "sitemap_auditor.fetch")),
        ("sitemap_auditor.parser", ("requests", "urllib3", "sitemap_auditor.fetch")),
        ("sitemap_auditor.rules", ("requests", "urllib3", "sitemap_auditor.fetch")),
        # Body decoding is fed chunks; the guard knows sockets, not HTTP.
        ("sitemap_auditor.decoding", ("requests", "urllib3", "socket", "sitemap_auditor.guard")),
        ("sitemap_auditor.guard", ("requests", "urllib3", "sitemap_auditor.transport")),
        # Credentials travel into the fetcher, not the other way: boto3 only for a secret.
        ("sitemap_auditor.credentials", ("requests", "urllib3", "boto3", "sitemap_auditor.fetch")),
        # The fetcher knows HTTP, not what audits share nor how a sitemap parses; its transport
        # is injected, so importing it brings neither requests nor urllib3.
        (
            "sitemap_auditor.fetch",
            (
                "requests",
                "urllib3",
                "sitemap_auditor.transport",
                "sitemap_auditor.facts",
                "sitemap_auditor.parser",
                "sitemap_auditor.sharing",
            ),
        ),
        # The transport interface and the in-memory transport need no HTTP stack.
        ("sitemap_auditor.exchange", ("requests", "urllib3", "sitemap_auditor.fetch")),
        ("sitemap_auditor.memory_transport", ("requests", "urllib3", "socket")),
        # The one reading of URLs: ada, imported on first use, and nothing of HTTP.
        ("sitemap_auditor.urls", ("requests", "urllib3", "ada_url", "sitemap_auditor.fetch")),
        # The deep audit is a layer above the Lambda's: the handler never imports it, and its
        # checks, document and reports are pure (only the walk fetches).
        ("sitemap_auditor.handler", ("sitemap_auditor.deep",)),
        ("sitemap_auditor.deep.checks", ("requests", "urllib3", "sitemap_auditor.fetch")),
        ("sitemap_auditor.deep.kinds", ("requests", "urllib3", "sitemap_auditor.fetch")),
        ("sitemap_auditor.deep.text_report", ("requests", "urllib3", "sitemap_auditor.deep.walk")),
        ("sitemap_auditor.deep.csv_report", ("requests", "urllib3", "sitemap_auditor.deep.walk")),
        # The HTML report is drawn from the document alone; robots rules are pure too.
        ("sitemap_auditor.deep.html_report", ("requests", "urllib3", "sitemap_auditor.deep.walk")),
        ("sitemap_auditor.deep.robots_rules", ("requests", "urllib3", "sitemap_auditor.fetch")),
        # The duplicate table is loaded alone by its helper process: nothing of the package, and
        # no subprocess until a helper is started.
        (
            "sitemap_auditor.deep.seen",
            ("requests", "subprocess", "sitemap_auditor.parser", "sitemap_auditor.deep.checks"),
        ),
        # The deep audit shares no fetch: it never loads the sharing protocol nor boto3.
        ("sitemap_auditor.deep.cli", ("boto3", "sitemap_auditor.sharing", "sitemap_auditor.lease")),
        (
            "sitemap_auditor.deep.walk",
            ("boto3", "sitemap_auditor.sharing", "sitemap_auditor.lease"),
        ),
    ],
)
def test_a_layer_imports_none_of_what_it_must_not(module: str, forbidden: tuple[str, ...]) -> None:
    code = f"import sys, {module}; print([m for m in {list(forbidden)!r} if m in sys.modules])"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"
