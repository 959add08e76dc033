"""The one reading of a URL (docs/contract.md §8) against urlsplit's (RFC 3986, the documented
auditor's) on every `<loc>` and `Sitemap:` URL of the shared corpus (about 90,000): a URL both
read alike is never refused. The made cases are tests/unit/test_site.py's."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from support.shared import CORPUS, needs_shared

from sitemap_auditor.core.site import resolve
from sitemap_auditor.core.urls import NOT_IN_HOSTS


@needs_shared
def test_no_real_url_the_documented_auditor_accepts_is_refused() -> None:
    # Every <loc> and Sitemap: URL of the real files (about 90,000): refusing a URL whose
    # readings differ must not refuse one browsers and RFC 3986 read alike.
    found: set[str] = set()
    for path in CORPUS.rglob("*"):
        if path.is_file() and path.suffix in (".xml", ".txt"):
            text = path.read_bytes()[:3_000_000].decode("utf-8", "replace")
            found.update(re.findall(r"<loc>\s*([^<\s]+)\s*</loc>", text))
            found.update(re.findall(r"(?im)^\s*sitemap\s*:\s*(\S+)", text))
    refused = []
    for url in (u.replace("&amp;", "&") for u in found):
        try:
            parts = urlsplit(url)
            accepted = parts.scheme.lower() in ("http", "https") and bool(parts.hostname)
            parts.port  # noqa: B018 -- a port that is no number is refused by both
        except ValueError:
            continue
        if accepted and resolve(url) is None and not NOT_IN_HOSTS & set(parts.hostname or ""):
            refused.append(url)
    assert len(found) > 1000 and refused == []
