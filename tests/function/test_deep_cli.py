"""`sitemap-auditor deep`: its outputs and exit statuses, run in-process against 127.0.0.1."""

from __future__ import annotations

import csv
import importlib
import io
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.deep import SITEMAPS_NS, urlset_of
from support.deep_schema import validated

import sitemap_auditor
from harness.servers import Site, drip, reply
from sitemap_auditor.cli import main as cli


def _site(site: Site, body: bytes) -> None:
    site.route("/robots.txt", reply(f"Sitemap: {site.url('/s.xml')}\n", content_type="text/plain"))
    site.route("/s.xml", reply(body))


def _deep(*args: str) -> int:
    return cli.main(["deep", "--allow-private-networks", *args])


def test_a_clean_site_exits_0_and_the_report_says_so(
    site: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    _site(site, urlset_of([f"<loc>{site.url('/a')}</loc><lastmod>2026-11-30</lastmod>"]))
    assert _deep(site.url("/")) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Deep audit of {site.url('/')}")
    assert "none: every sitemap read passes every check" in out


def test_a_warning_exits_1(site: Site, capsys: pytest.CaptureFixture[str]) -> None:
    _site(site, urlset_of([f"<loc>{site.url('/a')}</loc><lastmod>2099-01-01</lastmod>"]))
    assert _deep(site.url("/")) == 1
    assert "future-lastmod" in capsys.readouterr().out


def test_json_csv_and_urls(site: Site, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # The first lastmod pretty-printed (its line break and indent are no part of it).
    entries = [f"<loc>{site.url(f'/p{i}')}</loc><lastmod>2026-13-0{i}</lastmod>" for i in range(3)]
    entries[0] = entries[0].replace("</lastmod>", "\n\t\t</lastmod>")
    _site(site, urlset_of(entries))
    urls = tmp_path / "urls.jsonl"
    status = _deep("--json", "--csv", str(tmp_path / "csv"), "--urls", str(urls), site.url("/"))
    assert status == 2
    doc = validated(json.loads(capsys.readouterr().out))
    assert doc["format"] == "sitemap-auditor-deep" and doc["version"] == 6
    assert doc["findings"][0]["kind"] == "invalid-date"
    lines = [json.loads(x) for x in urls.read_text().splitlines()]
    assert [x["url"] for x in lines] == [site.url(f"/p{i}") for i in range(3)]
    assert lines[0] == {"url": site.url("/p0"), "sitemap": site.url("/s.xml"), "line": 3,
                        "lastmod": "2026-13-00"}  # fmt: skip
    for name in ("findings.csv", "sitemaps.csv"):
        # A UTF-8 byte order mark first: Excel then opens non-Latin URLs right.
        assert (tmp_path / "csv" / name).read_bytes().startswith(b"\xef\xbb\xbf")
    with (tmp_path / "csv" / "findings.csv").open(encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    assert rows[0]["kind"] == "invalid-date" and rows[0]["count"] == "3"
    assert rows[0]["source"] == "search-console"
    # The examples one a line, no JSON in a cell.
    assert rows[0]["examples"].splitlines()[0] == "line 3: 2026-13-00"
    assert not any(cell.lstrip().startswith(("[", "{")) for row in rows for cell in row.values())
    with (tmp_path / "csv" / "sitemaps.csv").open(encoding="utf-8-sig") as f:
        (row,) = list(csv.DictReader(f))
    assert row["url"] == site.url("/s.xml") and row["entries"] == "3" and row["errors"] == "1"


def test_a_large_file_read_in_runs_streams_the_same_urls_and_findings(
    site: Site, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # 3,000 plain entries (read in runs), after blank lines before the XML declaration (lines
    # shifted) and with a repeat, a future date and one entry with an image among them: the
    # --urls stream, the lines and the findings are those of the entry-by-entry reading.
    entries = [
        f"<loc>{site.url(f'/p{i % 2999}')}</loc><lastmod>2026-11-{1 + i % 28:02d}</lastmod>"
        for i in range(3000)
    ]
    entries[1200] = f"<loc>{site.url('/future')}</loc><lastmod>2099-01-01</lastmod>"
    entries[2000] += f"<image:image><image:loc>{site.url('/i.png')}</image:loc></image:image>"
    image_ns = ' xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'
    body = b"\n\n" + urlset_of(entries, image_ns)
    _site(site, body)
    urls = tmp_path / "urls.jsonl"
    status = _deep("--json", "--urls", str(urls), site.url("/"))
    doc = validated(json.loads(capsys.readouterr().out))
    assert status == 2  # leading white space is an error: search engines refuse the file
    lines = [json.loads(x) for x in urls.read_text().splitlines()]
    assert len(lines) == 3000
    # Entry i is on line i + 5: two blank lines, the declaration, the root, then one a line.
    assert [x["line"] for x in lines] == [i + 5 for i in range(3000)]
    assert lines[1200] == {"url": site.url("/future"), "sitemap": site.url("/s.xml"),
                           "line": 1205, "lastmod": "2099-01-01"}  # fmt: skip
    kinds = {f["kind"]: f for f in doc["findings"]}
    assert set(kinds) == {"leading-whitespace", "future-lastmod", "duplicate-url"}
    assert kinds["future-lastmod"]["examples"][0]["line"] == 1205
    assert kinds["duplicate-url"]["examples"][0] == {"line": 3004, "value": site.url("/p0")}
    (record,) = doc["sitemaps"]
    assert record["entries"] == 3000 and record["extensions"]["image"] == 1


def test_usage_errors_exit_64(capsys: pytest.CaptureFixture[str]) -> None:
    assert _deep("ftp://example.com/") == 64
    with pytest.raises(SystemExit) as e:
        _deep("--max-sitemaps", "50001", "https://example.com/")
    assert e.value.code == 64
    assert "--max-sitemaps must be 1 to 50,000" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        _deep("--max-dedupe-urls", "0", "https://example.com/")
    assert e.value.code == 64
    assert "--max-dedupe-urls must be 1 to 100,000,000" in capsys.readouterr().err
    # One limit at a time, by its option's name (three were named at once, as Python's).
    with pytest.raises(SystemExit) as e:
        _deep("--max-depth", "-1", "https://example.com/")
    assert "--max-depth must be 0 or more" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--max-seconds", "nan", "--max-seconds must be a finite number of seconds above 0"),
        ("--max-seconds", "inf", "--max-seconds must be a finite number of seconds above 0"),
        ("--rate", "nan", "--rate a number > 0"),
        ("--rate", "inf", "--rate a number > 0"),
    ],
)
def test_a_limit_that_is_no_finite_number_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], option: str, value: str, said: str
) -> None:
    # float() takes each of these; NaN would pass a `<= 0` test and stop the walk at once, and
    # either would be echoed into --json as a value JSON has not.
    with pytest.raises(SystemExit) as e:
        _deep("--pages", option, value, "https://example.com/")
    assert e.value.code == 64
    assert said in capsys.readouterr().err


def test_a_report_that_cannot_be_written_is_a_usage_error_before_the_walk(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Site
) -> None:
    site.route("/sitemap.xml", reply(urlset_of([])))
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    missing = tmp_path / "missing" / "report.html"
    refused = [
        ("--html", str(missing), "no such folder"),
        ("--html", str(tmp_path), "it is a folder"),
        ("--csv", str(a_file), "it is a file, not a folder"),
        ("--csv", str(a_file / "out"), "Not a directory"),
        ("--pages-out", str(missing), "no such folder"),
        ("--urls", str(tmp_path), "it is a folder"),  # it was told after the walk's start
    ]
    for option, path, said in refused:
        extra = ["--pages"] if option == "--pages-out" else []
        with pytest.raises(SystemExit) as e:
            _deep(*extra, option, path, site.url("/"))
        assert e.value.code == 64
        assert f"cannot write {option} {path}: {said}" in capsys.readouterr().err
    listing = tmp_path / "sites.txt"
    listing.write_text(site.url("/") + "\n")
    for option in ("--html", "--csv"):
        with pytest.raises(SystemExit) as e:
            _deep("--input", str(listing), option, str(a_file))
        assert e.value.code == 64
        assert f"cannot write {option} {a_file}: it is a file" in capsys.readouterr().err
    assert site.paths() == []  # refused before the first fetch
    # A folder that is missing is made, as before.
    assert _deep("--csv", str(tmp_path / "new" / "csv"), site.url("/")) != 64
    assert (tmp_path / "new" / "csv" / "sitemaps.csv").exists()


def test_demo_audits_the_embedded_demo_site(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # No --allow-private-networks: the demo site is served on 127.0.0.1, which --demo allows.
    report = tmp_path / "demo.html"
    assert cli.main(["deep", "--demo", "--json", "--html", str(report)]) == 0
    doc = validated(json.loads(capsys.readouterr().out))
    assert doc["verdict"]["status"] == "SUCCESS" and doc["complete"] is True
    assert doc["auditedUrl"].startswith("http://127.0.0.1:")
    (sitemap,) = doc["sitemaps"]
    assert (sitemap["type"], sitemap["entries"], sitemap["compression"]) == ("urlset", 4, "gzip")
    assert [f["kind"] for f in doc["findings"]] == ["partial-lastmod"]
    assert doc["findings"][0]["message"] == "1 entry has no <lastmod> while others do."
    assert "Partial lastmod" in report.read_text(encoding="utf-8")
    assert cli.main(["deep", "demo"]) == 0
    assert "1 entry has no <lastmod>" in capsys.readouterr().out


def test_demo_takes_no_url_and_a_url_is_needed_without_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for argv in (["deep", "--demo", "https://example.com/"], ["deep"]):
        with pytest.raises(SystemExit) as e:
            cli.main(argv)
        assert e.value.code == 64
    err = capsys.readouterr().err
    assert "takes no URL" in err and "no URL given" in err


def test_the_index_and_its_children_make_a_tree(
    site: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    index = (
        f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">'
        f"<sitemap><loc>{site.url('/a.xml')}</loc></sitemap></sitemapindex>"
    ).encode()
    site.route("/robots.txt", reply(f"Sitemap: {site.url('/i.xml')}\n", content_type="text/plain"))
    site.route("/i.xml", reply(index))
    site.route("/a.xml", reply(urlset_of([f"<loc>{site.url('/x')}</loc>"])))
    assert _deep(site.url("/")) == 0
    out = capsys.readouterr().out
    assert f"\n  {site.url('/i.xml')}  <sitemapindex>" in out
    assert f"\n    {site.url('/a.xml')}  <urlset>" in out


def test_ctrl_c_prints_what_was_read_and_exits_130(site: Site) -> None:
    index = (
        f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">'
        f"<sitemap><loc>{site.url('/a.xml')}</loc></sitemap>"
        f"<sitemap><loc>{site.url('/slow.xml')}</loc></sitemap></sitemapindex>"
    ).encode()
    site.route("/robots.txt", reply(f"Sitemap: {site.url('/i.xml')}\n", content_type="text/plain"))
    site.route("/i.xml", reply(index))
    site.route("/a.xml", reply(urlset_of([f"<loc>{site.url('/x')}</loc>"])))
    site.route("/slow.xml", drip(b'<?xml version="1.0"?><urlset>', b" ", 0.2, 20.0))
    args = [sys.executable, "-m", "sitemap_auditor", "deep", "--allow-private-networks"]
    proc = subprocess.Popen(
        [*args, "--concurrency", "1", site.url("/")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 20
    while "/slow.xml" not in site.paths() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    assert out.startswith(f"Deep audit of {site.url('/')}")
    assert "stopped: interrupted" in out
    assert f"{site.url('/a.xml')}  <urlset>" in out
    assert "interrupted" in err


def test_the_command_leaves_its_outputs_whole_and_its_status(site: Site, tmp_path: Path) -> None:
    # The process ends without the interpreter's teardown (cli.exit_with): what it wrote to its
    # pipe and its files is all there, and the status is the worst finding's.
    entries = [f"<loc>{site.url(f'/p{i}')}</loc>" for i in range(2000)]
    _site(site, urlset_of(entries + entries[:10]))  # 10 repeats: a warning
    urls = tmp_path / "urls.jsonl"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "sitemap_auditor", "deep", "--allow-private-networks"),
            *("--json", "--urls", str(urls), site.url("/")),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    document = validated(json.loads(done.stdout))
    assert document["totals"]["urls"] == 2010
    lines = urls.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2010 and json.loads(lines[-1])["url"] == site.url("/p9")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("no_color", "coloured"), [(None, True), ("1", False), ("", True)])
def test_the_report_is_coloured_on_a_terminal_unless_no_color_has_a_value(
    site: Site,
    monkeypatch: pytest.MonkeyPatch,
    no_color: str | None,
    coloured: bool,
) -> None:
    # https://no-color.org: NO_COLOR set to a value turns colour off; set but empty does not
    # (as the main command reads it).
    _site(site, urlset_of([f"<loc>{site.url('/a')}</loc><lastmod>2026-13-01</lastmod>"]))
    if no_color is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", no_color)
    terminal = _Terminal()
    monkeypatch.setattr("sys.stdout", terminal)
    _deep(site.url("/"))
    assert ("\033[" in terminal.getvalue()) is coloured


def test_the_progress_line_is_for_a_terminal_only() -> None:
    from sitemap_auditor.cli.deep import ProgressLine
    from sitemap_auditor.deep.walk import Progress

    shown = _Terminal()
    line = ProgressLine(shown)
    line(Progress(done=3, queued=17, urls=25_000, bytes=5_000_000))
    line.erase()
    assert shown.getvalue().startswith("\r0:00  3 sitemaps done, 17 queued, 25,000 URLs, 5.0 MB")
    assert shown.getvalue().endswith("\r")
    piped = io.StringIO()
    ProgressLine(piped)(Progress(done=1, queued=0, urls=1, bytes=1))
    assert piped.getvalue() == ""
    # Within a file: the URLs of the files being read count too; one sitemap is "1 sitemap".
    moving = _Terminal()
    ProgressLine(moving)(Progress(done=1, queued=1, urls=10, bytes=1, reading=40_000))
    assert "1 sitemap done, 1 queued, 40,010 URLs" in moving.getvalue()


def test_html_is_written_by_the_html_report_when_there_is_one(
    site: Site, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _site(site, urlset_of([f"<loc>{site.url('/a')}</loc><lastmod>2026-11-30</lastmod>"]))
    page = tmp_path / "report.html"
    assert _deep("--html", str(page), site.url("/")) == 0
    try:
        importlib.import_module("sitemap_auditor.deep.reports.html_report")
    except ModuleNotFoundError:
        assert "--html ignored" in capsys.readouterr().err
        assert not page.exists()
    else:
        assert page.read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html")


# --- Command-line manners (issue 35) ------------------------------------------------------------


def test_the_main_help_lists_the_subcommands_and_version_answers() -> None:
    shown = subprocess.run(
        [sys.executable, "-m", "sitemap_auditor", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0
    assert "sitemap-auditor deep URL" in shown.stdout
    assert "sitemap-auditor demo" in shown.stdout
    version = subprocess.run(
        [sys.executable, "-m", "sitemap_auditor", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert version.returncode == 0
    assert version.stdout.strip() == f"sitemap-auditor {sitemap_auditor.__version__}"


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "user:s3cr3t@10.0.0.1"])
def test_a_private_address_without_the_option_is_a_usage_error_naming_it(
    site: Site, host: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _site(site, urlset_of([f"<loc>{site.url('/a')}</loc>"]))
    url = f"http://{host}:{site.port}/" if "@" not in host else f"http://{host}/"
    with pytest.raises(SystemExit) as stopped:
        cli.main(["deep", url])
    assert stopped.value.code == 64
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "--allow-private-networks" in captured.err
    assert "s3cr3t" not in captured.err  # no password echoed
    assert site.seen == []  # nothing was fetched


def test_the_progress_line_shows_the_time_and_says_one_sitemap() -> None:
    from sitemap_auditor.cli.deep import ProgressLine
    from sitemap_auditor.deep.walk import Progress

    screen = _Terminal()
    line = ProgressLine(screen)
    line(Progress(done=1, queued=0, urls=1, bytes=2_000_000))
    line(Progress(done=2, queued=3, urls=1200, bytes=3_500_000))
    first, second = screen.getvalue().split("\r")[1:]
    assert first.startswith("0:00  1 sitemap done, 0 queued, 1 URL, 2.0 MB")
    assert second.startswith("0:00  2 sitemaps done, 3 queued, 1,200 URLs, 3.5 MB")
