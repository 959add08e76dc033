"""The sample events of events/ (what `sam local invoke -e` sends), for the tests that run them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from harness.servers import Site

__all__ = ["COVERED", "EVENTS", "EVENT_KEYS", "ROOT", "load", "localise"]

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "events"
# The event keys of the platform's format and this auditor's two extensions (docs/contract.md §1).
EVENT_KEYS = {"id", "url", "stack", "basicAuth", "basicAuthSecretId", "preferences"}
COVERED = {"plain.json", "basic-auth.json", "secret.json", "invalid-url.json"}


def load(name: str) -> dict[str, Any]:
    event = json.loads((EVENTS / name).read_text(encoding="utf-8"))
    assert isinstance(event, dict)
    return event


def localise(event: dict[str, Any], site: Site) -> dict[str, Any]:
    """The event with its URL's scheme and host replaced by the local server's."""
    parts = urlsplit(event["url"])
    path = urlunsplit(("", "", parts.path, parts.query, parts.fragment))
    return {**event, "url": site.base + path}
