"""The error hierarchy, the CheckCode table's own numbers and the one reset of the process's
state. What each layer may import is checked in fresh processes, in
tests/function/test_layer_imports.py."""

from __future__ import annotations

import ast
from datetime import UTC, datetime
from pathlib import Path

from support.results import LogCapture

from sitemap_auditor.audit import config, secrets
from sitemap_auditor.core import codes, errors
from sitemap_auditor.sharing import driver as sharing


def test_the_errors_are_where_their_modules_say_and_as_the_docstring_draws() -> None:
    assert issubclass(errors.ConfigError, ValueError)
    assert issubclass(errors.SecretError, RuntimeError)
    assert config.ConfigError is errors.ConfigError
    assert secrets.SecretError is errors.SecretError
    assert sharing.StoreError is errors.StoreError
    for name in errors.__all__:
        assert name in (errors.__doc__ or "") or name in ("MAX_BODY_BYTES", "FetchErrorKind")


def test_each_checkcode_knows_its_number() -> None:
    assert [c.number for c in codes.ALL] == ["100", "400", "300", "301", "302", "200", "501"]
    assert all(codes.BY_ID[c.id] is c for c in codes.ALL)


def test_one_reset_forgets_what_the_process_learnt(logs: LogCapture) -> None:
    from sitemap_auditor.audit import lifetime, observability, response
    from sitemap_auditor.core import facts

    known = facts.SiteFacts(facts.RobotsProbe(404, False, (), (), ()), (), (), fetched_at=1.0)
    lifetime.SHARING.local.put("k", known, 10)
    failed = response.error(ValueError("x"), datetime(2026, 12, 1, tzinfo=UTC))
    for _ in range(2):
        observability.Invocation("r", "https://ex.com/").finished(failed)
    lifetime.reset()
    observability.Invocation("r", "https://ex.com/").finished(failed)
    assert lifetime.SHARING.local.get("k", 2.0) is None
    started = [x["cold_start"] for x in logs.lines() if x["message"] == "audit started"]
    assert started[-2:] == [False, True]


def _imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_bench_and_the_harness_import_no_test_machinery() -> None:
    root = Path(__file__).resolve().parents[2]
    for folder in ("bench", "harness"):
        for path in sorted((root / folder).glob("*.py")):
            found = _imported(path) & {"support", "pytest", "conftest", "tests"}
            assert not found, f"{folder}/{path.name} imports {found}"
