"""What the documents cite exists: every path of the repository that the README, docs/ and the
bench results name, and every module of the package they name by its dotted name."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "bench" / "RESULTS.md",
]
# A path of the repository: one of its top folders, then a file or folder name. Paths written
# with a placeholder (`<name>`, `*`, `...`) are patterns, not citations.
PATH = re.compile(
    r"(?<![\w./-])((?:sitemap_auditor|tests|bench|harness|docs|events|\.ci)/[\w./-]*[\w/])"
)
# A module of the package by its dotted name (a trailing attribute is allowed: `x.y.name`).
DOTTED = re.compile(r"\bsitemap_auditor(?:\.[a-z_][a-z0-9_]*)+")


# What the tools make, not what the repository holds.
MADE = ("bench/out/",)


def cited_paths(text: str) -> set[str]:
    return {m for m in PATH.findall(text) if not re.search(r"[<*]|\.\.\.", m)}


def resolves(dotted: str) -> bool:
    """The longest module prefix of the name exists, and what follows is at most one attribute."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:  # a name below a module that is no package
            found = False
        if found:
            return len(parts) - i <= 2
    return False


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_a_document_cites_exists(document: Path) -> None:
    text = document.read_text(encoding="utf-8")
    missing = sorted(
        p
        for p in cited_paths(text)
        if not (ROOT / p.rstrip("/")).exists() and not p.startswith(MADE)
    )
    assert missing == []


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_a_document_names_exists(document: Path) -> None:
    text = document.read_text(encoding="utf-8")
    missing = sorted({d for d in DOTTED.findall(text) if not resolves(d)})
    assert missing == []


# A test by its file and name: `tests/unit/test_x.py::test_y`, or without `tests/` (tables
# of docs/reliability.md write `unit/test_x.py::test_y`).
TEST = re.compile(
    r"(?<![\w./-])((?:tests/)?(?:unit|integration|property|simulation|function)/[\w/]+\.py)"
    r"::(\w+)"
)


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_test_a_document_cites_is_in_its_file(document: Path) -> None:
    text = document.read_text(encoding="utf-8")
    missing = []
    for path, name in sorted(set(TEST.findall(text))):
        file = ROOT / (path if path.startswith("tests/") else f"tests/{path}")
        source = file.read_text(encoding="utf-8") if file.exists() else ""
        if not re.search(rf"^(?:async )?def {name}\(|^    def {name}\(", source, re.M):
            missing.append(f"{path}::{name}")
    assert missing == []
