"""The rooms of the package and what each may import.

Two readings of the same rules: every `import` statement of the package, at any depth of a
module (so an import made on first use counts too), read from the source; and a fresh
interpreter per module, for the third-party weights (nothing the test process already imported
hides a dependency there).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "sitemap_auditor"

# (room, rooms it never imports): one line per rule. A room is a sub-package, or a module at the
# package's top (`handler`). "Above" core is every other room.
RULES = [
    # core holds pure values and readers: it imports nothing above it.
    ("core", {"fetching", "sharing", "audit", "cli", "deep", "handler"}),
    # The fetcher knows HTTP, not what audits share; sharing knows facts, not how they were fetched.
    ("fetching", {"sharing", "audit", "cli", "deep", "handler"}),
    ("sharing", {"fetching", "audit", "cli", "deep", "handler"}),
    # One Lambda audit, and the handler's whole path: never the deep audit nor the command line.
    ("audit", {"cli", "deep", "handler"}),
    ("handler", {"cli", "deep"}),
    # The deep audit shares no fetch, and is a library below its command line.
    ("deep", {"sharing", "cli"}),
]


def room_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def imported_by(module: str, path: Path) -> set[str]:
    """Every package module an `import` or `from ... import` of this file names, at any depth."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.add(target)
            out.update(f"{target}.{a.name}" for a in node.names)
    known = modules()
    return {m for m in out if m in known}


GRAPH = {name: imported_by(name, path) for name, path in modules().items()}


@pytest.mark.parametrize(("room", "never"), RULES, ids=[r for r, _ in RULES])
def test_a_room_never_imports_the_rooms_its_rule_names(room: str, never: set[str]) -> None:
    broken = sorted(
        f"{m} imports {t}"
        for m, targets in GRAPH.items()
        if room_of(m) == room
        for t in targets
        if room_of(t) in never
    )
    assert broken == []


def test_the_handlers_path_never_reaches_the_deep_audit_or_the_command_line() -> None:
    # Transitively, from the entry point: what the function imports, at any depth.
    seen, todo = set(), ["sitemap_auditor.handler"]
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(GRAPH.get(m, ()))
    assert sorted(m for m in seen if room_of(m) in {"deep", "cli"}) == []
    # Nor what the artifact leaves out beside them (the Makefile's build-AuditorFunction).
    left_out = {"sitemap_auditor.fetching.replay", "sitemap_auditor.fetching.memory_transport"}
    assert seen & left_out == set()


def test_no_module_imports_by_a_name_computed_at_run_time() -> None:
    # importlib.import_module would hide an edge from the graph above.
    hidden = sorted(
        name
        for name, path in modules().items()
        if "import_module(" in path.read_text(encoding="utf-8")
        or "__import__(" in path.read_text(encoding="utf-8")
    )
    assert hidden == []


@pytest.mark.parametrize(
    ("module", "forbidden"),
    [
        # Pure values: nothing of HTTP, nor boto3.
        ("sitemap_auditor.core.facts", ("requests", "urllib3", "boto3")),
        ("sitemap_auditor.core.parser", ("requests", "urllib3", "boto3")),
        ("sitemap_auditor.core.credentials", ("requests", "urllib3", "boto3")),
        # The one reading of URLs: ada, imported on first use.
        ("sitemap_auditor.core.urls", ("requests", "urllib3", "ada_url")),
        # The page check's pure rules: no HTTP stack, no socket for the head's reading.
        ("sitemap_auditor.deep.pages.head", ("requests", "urllib3", "boto3", "socket")),
        ("sitemap_auditor.deep.pages.verdict", ("requests", "urllib3", "boto3")),
        ("sitemap_auditor.deep.pages.pacing", ("requests", "urllib3", "boto3")),
        # The fetcher's transport is injected: importing it brings no HTTP stack.
        ("sitemap_auditor.fetching.fetch", ("requests", "urllib3")),
        ("sitemap_auditor.fetching.memory_transport", ("requests", "urllib3", "socket")),
        ("sitemap_auditor.fetching.decoding", ("requests", "urllib3", "socket")),
        # The lease protocol is pure; boto3 only with a table; secrets only with a secret.
        ("sitemap_auditor.sharing.lease", ("requests", "urllib3", "boto3", "threading")),
        ("sitemap_auditor.sharing.dynamostore", ("requests", "urllib3", "boto3")),
        ("sitemap_auditor.audit.secrets", ("boto3",)),
        # The deep audit's checks, document and reports are pure: only the walk fetches.
        ("sitemap_auditor.deep.checks", ("requests", "urllib3", "boto3")),
        ("sitemap_auditor.deep.reports.html_report", ("requests", "urllib3", "boto3")),
        ("sitemap_auditor.deep.robots_rules", ("requests", "urllib3", "boto3")),
        ("sitemap_auditor.cli.deep", ("boto3",)),
    ],
)
def test_a_module_loads_none_of_the_weights_it_must_not(
    module: str, forbidden: tuple[str, ...]
) -> None:
    code = f"import sys, {module}; print([m for m in {list(forbidden)!r} if m in sys.modules])"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"
