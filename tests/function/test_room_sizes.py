"""A gauge of small rooms: no module of the package, the bench or the harness over 1,000 lines,
no function over 150 (nested functions counted in the one that holds them)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_MODULE_LINES = 1000
MAX_FUNCTION_LINES = 150


def _sources() -> list[Path]:
    return sorted(
        p for d in ("sitemap_auditor", "bench", "harness") for p in (ROOT / d).rglob("*.py")
    )


def test_no_module_is_over_a_thousand_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in _sources()
        if (n := p.read_text(encoding="utf-8").count("\n")) > MAX_MODULE_LINES
    }
    assert long == {}


def test_no_function_is_over_150_lines() -> None:
    long = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines})")
    assert long == []
