"""The shared specification and corpus, beside the checkout (`../shared`): where they are, and
what a test that needs them does without them.

A developer's checkout may lack `../shared`: such a test is skipped, and says so. CI always has
it beside the clone, so there a missing folder is a broken set-up, not a reason to pass: the
test fails.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

__all__ = ["CORPUS", "SHARED", "SPEC", "inflated", "needs_shared", "require"]

SHARED = Path(__file__).resolve().parents[3] / "shared"
CORPUS = SHARED / "corpus"
SPEC = SHARED / "spec"

# `@needs_shared` on a test, or `pytestmark = needs_shared` on a module: checked in conftest.py
# before the test runs (require()).
needs_shared = pytest.mark.needs_shared


def require(path: Path = SHARED) -> None:
    """Skip the running test without `path` (fail it in CI, where it must be there)."""
    if path.exists():
        return
    why = f"the shared specification and corpus are not beside the checkout ({path})"
    if os.environ.get("CI"):
        pytest.fail(f"{why}: CI must have them")
    pytest.skip(why)


def inflated(body: bytes) -> bytes:
    """A corpus file's bytes as a sitemap reader sees them: gunzipped when gzip (else as is)."""
    try:
        return gzip.decompress(body) if body[:2] == b"\x1f\x8b" else body
    except (OSError, EOFError):
        return body
