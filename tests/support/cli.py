"""The installed `sitemap-auditor` script, and a clean environment to run it in."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

__all__ = ["PASSWORD", "ROOT", "SCRIPT", "env"]

SCRIPT = shutil.which("sitemap-auditor", path=str(Path(sys.executable).parent))
ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "correct-horse-battery"


def env(**extra: str) -> dict[str, str]:
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SITEMAP_", "NO_COLOR", "POWERTOOLS_"))
    }
    base.update(extra)
    return base
