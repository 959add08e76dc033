"""deep --input FILE --jobs N: an agency's list of sites, one document per site (JSON Lines), one
folder of CSV files and one HTML page per site; the exit status is the worst site's."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from support.deep import urlset_of
from support.deep_schema import validated

from harness.servers import Site, reply
from sitemap_auditor.cli import deep as deep_cli


def _serve(site: Site, lastmod: str) -> None:
    site.route("/robots.txt", reply(f"Sitemap: {site.url('/s.xml')}\n", content_type="text/plain"))
    site.route(
        "/s.xml", reply(urlset_of([f"<loc>{site.url('/a')}</loc><lastmod>{lastmod}</lastmod>"]))
    )


def test_every_site_of_the_file_gets_its_document_and_files(
    site: Site,
    other_site: Site,
    elsewhere: Site,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _serve(site, "2026-11-30")
    _serve(other_site, "2099-01-01")  # a future date: a warning
    _serve(elsewhere, "2026-13-01")  # an invalid date: an error
    listing = tmp_path / "sites.txt"
    urls = [site.url("/"), other_site.url("/"), elsewhere.url("/")]
    listing.write_text("# clients\n\n" + "\n".join([*urls, urls[0]]) + "\n", encoding="utf-8")
    status = deep_cli.main(
        [
            *("--allow-private-networks", "--json", "--jobs", "2"),
            *(
                "--input",
                str(listing),
                "--csv",
                str(tmp_path / "csv"),
                "--html",
                str(tmp_path / "html"),
            ),
        ]
    )
    assert status == 2  # the worst site's
    lines = capsys.readouterr().out.splitlines()
    documents = [validated(json.loads(line)) for line in lines]
    assert sorted(d["auditedUrl"] for d in documents) == sorted(urls)  # each site once
    kinds = {d["auditedUrl"]: {f["kind"] for f in d["findings"]} for d in documents}
    assert "future-lastmod" in kinds[other_site.url("/")]
    assert "invalid-date" in kinds[elsewhere.url("/")]
    folders = sorted(p.name for p in (tmp_path / "csv").iterdir())
    assert folders == sorted(
        [f"127.0.0.1_{site.port}", f"127.0.0.1_{other_site.port}", f"127.0.0.2_{elsewhere.port}"]
    )
    for folder in folders:
        assert (tmp_path / "csv" / folder / "findings.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    pages = sorted(p.name for p in (tmp_path / "html").iterdir())
    assert pages == [f + ".html" for f in folders]


def test_the_text_reports_follow_one_another(
    site: Site, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _serve(site, "2026-11-30")
    listing = tmp_path / "sites.txt"
    listing.write_text(site.url("/") + "\n" + site.url("/blog/") + "\n", encoding="utf-8")
    assert deep_cli.main(["--allow-private-networks", "--input", str(listing)]) == 0
    out = capsys.readouterr().out
    assert out.count("Deep audit of ") == 2


def test_sites_from_standard_input_with_a_bom_each_once_however_spelt(
    site: Site, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _serve(site, "2026-11-30")
    spellings = [
        site.url("/"),
        f"HTTP://127.0.0.1:{site.port}",
        f"http://127.0.0.1:{site.port}/#top",
        f"http://127.0.0.1:{site.port}/?",
    ]
    # A list saved on Windows and piped in: its first line begins with a byte order mark.
    monkeypatch.setattr("sys.stdin", io.StringIO("\ufeff" + "\n".join(spellings) + "\n"))
    assert deep_cli.main(["--allow-private-networks", "--json", "--input", "-"]) == 0
    (doc,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert doc["auditedUrl"] == site.url("/")


@pytest.mark.parametrize(
    "extra",
    [["http://127.0.0.1:9/"], ["--urls", "u.jsonl"], ["--jobs", "0"], ["--jobs", "99"]],
)
def test_input_with_what_it_cannot_take_is_a_usage_error(tmp_path: Path, extra: list[str]) -> None:
    listing = tmp_path / "sites.txt"
    listing.write_text("http://127.0.0.1:9/\n", encoding="utf-8")
    with pytest.raises(SystemExit) as stopped:
        deep_cli.main(["--allow-private-networks", "--input", str(listing), *extra])
    assert stopped.value.code == 64


def test_a_private_site_in_the_file_without_the_option_is_a_usage_error(tmp_path: Path) -> None:
    listing = tmp_path / "sites.txt"
    listing.write_text("http://127.0.0.1:9/\n", encoding="utf-8")
    with pytest.raises(SystemExit) as stopped:
        deep_cli.main(["--input", str(listing)])
    assert stopped.value.code == 64
