"""What each layer may import, the error hierarchy, and the CheckCode table's own numbers."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import LogCapture

from sitemap_auditor import codes, config, credentials, errors, sharing


@pytest.mark.parametrize(
    ("module", "forbidden"),
    [
        ("sitemap_auditor.observability", ("requests", "urllib3")),
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
    ],
)
def test_a_layer_imports_none_of_what_it_must_not(module: str, forbidden: tuple[str, ...]) -> None:
    code = f"import sys, {module}; print([m for m in {list(forbidden)!r} if m in sys.modules])"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


def test_the_errors_are_where_their_modules_say_and_as_the_docstring_draws() -> None:
    assert issubclass(errors.ConfigError, ValueError)
    assert issubclass(errors.SecretError, RuntimeError)
    assert config.ConfigError is errors.ConfigError
    assert credentials.SecretError is errors.SecretError
    assert sharing.StoreError is errors.StoreError
    for name in errors.__all__:
        assert name in (errors.__doc__ or "") or name in ("MAX_BODY_BYTES", "FetchErrorKind")


def test_each_checkcode_knows_its_number() -> None:
    assert [c.number for c in codes.ALL] == ["100", "400", "300", "301", "302", "200", "501"]
    assert all(codes.BY_ID[c.id] is c for c in codes.ALL)


def test_one_reset_forgets_what_the_process_learnt(logs: LogCapture) -> None:
    from sitemap_auditor import facts, lifetime, observability

    known = facts.SiteFacts(facts.RobotsProbe(404, False, (), (), ()), (), (), fetched_at=1.0)
    lifetime.SHARING.local.put("k", known, 10)
    for _ in range(2):
        observability.Invocation("r", "https://ex.com/").finished({"status": "ERROR"})
    lifetime.reset()
    observability.Invocation("r", "https://ex.com/").finished({"status": "ERROR"})
    assert lifetime.SHARING.local.get("k", 2.0) is None
    started = [x["cold_start"] for x in logs.lines() if x["message"] == "audit started"]
    assert started[-2:] == [False, True]
