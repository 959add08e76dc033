"""A credential the site echoes where the deep audit cuts what it shows: a <loc> past the
reading's 4,097 characters, a <lastmod> past 257 and an example past 200. Every report, the
--urls file and the CSVs included, shows no part of it: each cut ends with its mark, and the
redaction replaces what a cut left before it."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.deep import urlset_of

from harness.servers import Site, reply
from sitemap_auditor.cli import deep as deep_cli

TOKEN = "Zq7Secr3tTokenValue"


def _serve(site: Site) -> None:
    start = site.url("/a?t=")
    # The reading keeps 4,097 characters of a <loc>: the token straddles that cut.
    loc = start + "x" * (4097 - len(start) - 8) + TOKEN + "/rest"
    # An example keeps 200 characters and the reading 257 of a <lastmod>: one straddles each.
    cut_by_the_example = "2024-" + "y" * 190 + TOKEN + "z" * 20
    cut_by_the_reading = "2024-" + "y" * 245 + TOKEN
    entries = [
        f"<loc>{loc}</loc>",
        f"<loc>{site.url('/b')}</loc><lastmod>{cut_by_the_example}</lastmod>",
        f"<loc>{site.url('/c')}</loc><lastmod>{cut_by_the_reading}</lastmod>",
    ]
    site.route("/s.xml", reply(urlset_of(entries)))
    site.route("/robots.txt", reply(f"Sitemap: {site.url('/s.xml')}\n", content_type="text/plain"))


def test_no_part_of_a_token_survives_a_cut_in_any_report(
    site: Site, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _serve(site)
    args = ["--allow-private-networks", "--header", f"Authorization: Bearer {TOKEN}"]
    written = [
        *("--csv", str(tmp_path / "csv")),
        *("--urls", str(tmp_path / "urls.jsonl")),
        *("--html", str(tmp_path / "report.html")),
    ]
    shown = []
    for extra in ([], ["--json"], written):
        deep_cli.main([*args, *extra, site.url("/")])
        shown.append(capsys.readouterr().out)
    files = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    assert {p.name for p in files} >= {"urls.jsonl", "report.html", "finding_urls.csv"}
    shown += [p.read_text(encoding="utf-8") for p in files]
    for text in shown:
        assert TOKEN[:3] not in text
    # The cuts are there, marked, and the token's place is ***.
    assert "***…" in (tmp_path / "urls.jsonl").read_text(encoding="utf-8")
