"""The whole shared corpus through the deep audit: every file served on 127.0.0.1, as a sitemap
robots.txt lists or as robots.txt itself; none may crash it, and every document has its shape."""

from __future__ import annotations

from pathlib import Path

from support.deep import SHARED_CORPUS, run
from support.shared import needs_shared

from harness.servers import Site, reply
from sitemap_auditor.deep.kinds import Kind

FILES = sorted(
    p
    for folder in ("realworld", "realworld2", "realworld3")
    if (SHARED_CORPUS / folder).is_dir()
    for p in (SHARED_CORPUS / folder).iterdir()
)
KEYS = {
    "format", "version", "auditedUrl", "siteBase", "robotsTxt", "verdict", "complete",
    "stoppedBy", "limits", "totals", "sitemaps", "findings", "run",
}  # fmt: skip
RECORD_KEYS = {
    "url", "parent", "depth", "source", "type", "httpStatus", "finalUrl", "contentType",
    "compression",
    "wireBytes", "bytes", "entries", "lastmod", "extensions", "findings",
}  # fmt: skip


@needs_shared
def test_every_corpus_file_goes_through_the_deep_audit(site: Site) -> None:
    kinds = {k.value for k in Kind}
    for path in FILES:
        body = path.read_bytes()
        site.routes.clear()
        if path.name.startswith("robots"):
            site.route("/robots.txt", reply(body, content_type="text/plain"))
        else:
            listing = f"Sitemap: {site.url('/' + path.name)}\n"
            site.route("/robots.txt", reply(listing, content_type="text/plain"))
            site.route("/" + path.name, reply(body))
        doc = run(site.url("/"), max_sitemaps=20, max_seconds=60)
        where = Path(path.parent.name) / path.name
        assert set(doc) == KEYS, where
        assert doc["sitemaps"], where
        for record in doc["sitemaps"]:
            assert set(record) == RECORD_KEYS, where
        for f in doc["findings"]:
            assert f["kind"] in kinds, where
            # Every real file is UTF-8 (or ASCII), by whatever name it declares, and every
            # Sitemap: line of the real robots.txt files is a URL (relative ones included).
            assert f["kind"] not in ("not-utf8", "robots-sitemap-invalid"), where
            assert len(f["examples"]) <= 5
        severities = [f["severity"] for f in doc["findings"]]
        order = {"error": 0, "warning": 1, "notice": 2}
        assert severities == sorted(severities, key=order.__getitem__), where
