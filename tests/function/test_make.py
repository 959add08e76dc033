"""The Makefile as a newcomer meets it: `make help`, `make clean`, and the paths it and the
README and requirements.txt cite."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from support.cli import ROOT

MAKEFILE = ROOT / "Makefile"


def _phony() -> list[str]:
    line = next(
        x for x in MAKEFILE.read_text(encoding="utf-8").splitlines() if x.startswith(".PHONY:")
    )
    return line.split(":", 1)[1].split()


def test_make_help_lists_every_target_on_one_line_each() -> None:
    done = subprocess.run(
        ["make", "--no-print-directory", "help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    lines = done.stdout.splitlines()
    listed = [line.split()[0] for line in lines]
    assert sorted(listed) == sorted(_phony())
    for line in lines:
        name, _, summary = line.partition(" ")
        assert summary.strip(), f"{name} has no description"
        assert len(line) <= 80, line
    assert "a few minutes" in next(x for x in lines if x.startswith("test "))


def test_make_clean_removes_what_the_targets_and_tests_leave(tmp_path: Path) -> None:
    shutil.copy(MAKEFILE, tmp_path / "Makefile")
    made = [
        ".venv/bin",
        ".aws-sam/build",
        ".hypothesis/examples",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        "bench/out",
        "sitemap_auditor/__pycache__",
        "tests/unit/__pycache__",
        "tests/dynalite/node_modules",
    ]
    for folder in made:
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "x").write_text("x")
    kept = tmp_path / "sitemap_auditor" / "cli.py"
    kept.write_text("# source\n")
    subprocess.run(
        ["make", "--no-print-directory", "clean"],
        cwd=tmp_path,
        capture_output=True,
        check=True,
        timeout=30,
    )
    assert [f for f in made if (tmp_path / f).exists()] == []
    assert not (tmp_path / ".aws-sam").exists() and not (tmp_path / ".hypothesis").exists()
    assert kept.exists() and (tmp_path / "bench").is_dir()


def test_paths_the_readme_makefile_and_requirements_cite_exist() -> None:
    cited: set[str] = set()
    for name in ("README.md", "Makefile", "requirements.txt", "pyproject.toml"):
        text = (ROOT / name).read_text(encoding="utf-8")
        cited.update(re.findall(r"\b(?:tests|bench)/[\w./-]+\.py\b", text))
    assert cited, "the pattern finds nothing"
    assert sorted(p for p in cited if not (ROOT / p).is_file()) == []


def test_readme_says_what_make_test_takes_and_needs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = readme.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    assert "a few minutes" in setup and "npm" in setup
    assert '-m "not slow"' in setup
    assert "../shared" in setup
