"""Building the project as `pip install` does prints no warning, and the wheel ships every file.

The build runs with pip's build isolation, as a newcomer's `pip install` does, so the build
backend is the one pyproject.toml asks for; it needs the package index for that backend.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# What setuptools (and pip relaying it) prints when the build configuration is out of date.
WARNING = re.compile(r"warn|deprecat|!!|\*{20}", re.IGNORECASE)
# pip's notices about this machine's own configuration, not about the project.
PIP_NOTICE = re.compile(r"^\s*Location '.*' is ignored", re.IGNORECASE)


def copy_sources(work: Path) -> Path:
    """A copy of what a build reads: the build writes build/ and *.egg-info beside the sources."""
    source = work / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(
        ROOT / "sitemap_auditor",
        source / "sitemap_auditor",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    return source


def warnings_in(printed: str) -> list[str]:
    return [
        line
        for line in printed.splitlines()
        if WARNING.search(line) and not PIP_NOTICE.search(line)
    ]


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """Build a wheel from a copy of the sources; return pip's output and the wheel."""
    work = tmp_path_factory.mktemp("install")
    source = copy_sources(work)
    out = work / "wheels"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    printed = done.stdout + done.stderr
    assert done.returncode == 0, printed
    (wheel,) = out.glob("sitemap_auditor-*.whl")
    return printed, wheel


def test_building_the_project_prints_no_warning(build: tuple[str, Path]) -> None:
    printed, _ = build
    assert warnings_in(printed) == [], printed


def test_the_editable_install_of_make_prints_no_warning(tmp_path: Path) -> None:
    # What `make` runs on a fresh machine (pip install -e), into a throwaway environment.
    source = copy_sources(tmp_path)
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "env")],
        check=True,
        timeout=120,
    )
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "--python", str(tmp_path / "env" / "bin" / "python")),
            *("install", "--no-deps", "--editable", str(source)),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    printed = done.stdout + done.stderr
    assert done.returncode == 0, printed
    assert warnings_in(printed) == [], printed


def test_the_wheel_ships_the_demo_site_and_the_type_marker(build: tuple[str, Path]) -> None:
    _, wheel = build
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
        headers = z.read(metadata).decode()
    assert {
        "sitemap_auditor/py.typed",
        "sitemap_auditor/cli/demo_site/robots.txt",
        "sitemap_auditor/cli/demo_site/sitemap.xml",
        "sitemap_auditor/handler.py",
        "sitemap_auditor/cli/demo.py",
    } <= names
    assert "License-Expression: LicenseRef-Proprietary" in headers.splitlines()
