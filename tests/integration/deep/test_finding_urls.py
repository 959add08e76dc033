"""`deep --csv`'s finding_urls.csv: every occurrence of every finding, one row each, in one order
whatever the fetch order, Excel-ready, and no credential in it. That the rows are spooled, not
held, is tests/integration/deep/test_deep_memory.py's."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from support.deep import local_only, urlset_of

from harness.servers import Site, late, reply
from sitemap_auditor import deep
from sitemap_auditor.cli import main as cli
from sitemap_auditor.deep import document as documents
from sitemap_auditor.deep.finding_rows import FindingRows
from sitemap_auditor.deep.reports import finding_urls

PASSWORD = "s3cretPW-9"
HEADER = "severity,kind,source,sitemap,line,value,detail"


def _serve(site: Site, slow: str | None = None) -> None:
    """a.xml and b.xml, robots.txt listing a.xml first; slow (a path) answers late."""
    u = site.url
    a = urlset_of(
        [
            f"<loc>{u('/p1')}</loc><lastmod>2026-11-30</lastmod>",  # line 3
            "<loc>relative/page</loc>",  # 4: invalid-url
            f"<loc>{u('/two words')}</loc>",  # 5: invalid-url
            '<loc>=HYPERLINK("http://x.test/")</loc>',  # 6: invalid-url, a formula
            f"<loc>{u('/shared')}</loc><lastmod>2026-13-01</lastmod>",  # 7: invalid-date
            f"<loc>http://bob:hunter2@127.0.0.1:{site.port}/x y</loc>",  # 8: userinfo
            f"<loc>{u('/q')}?token={PASSWORD}</loc>",  # 9: the password, echoed
        ]
    )
    b = urlset_of(
        [
            f"<loc>{u('/shared')}</loc>",  # 3: also in a.xml, which comes first
            f"<loc>{u('/b1')}</loc>",  # 4
            f"<loc>{u('/b1')}</loc>",  # 5: within this file
            f"<loc>{u('/q')}?token={PASSWORD}</loc>",  # 6: also in a.xml
        ]
    )
    robots = f"User-agent: *\nDisallow:\nSitemap: {u('/a.xml')}\nSitemap: {u('/b.xml')}\n"
    site.route("/robots.txt", reply(robots, content_type="text/plain"))
    for path, body in (("/a.xml", a), ("/b.xml", b)):
        site.route(path, late(body, 0.4) if path == slow else reply(body))


def _deep(site: Site, out: Path, monkeypatch: pytest.MonkeyPatch) -> bytes:
    monkeypatch.setenv("SITEMAP_AUDITOR_PASSWORD", PASSWORD)
    argv = ["deep", "--allow-private-networks", "--concurrency", "4", "--user", "audit"]
    status = cli.main([*argv, "--csv", str(out), site.url("/")])
    assert status == 2
    return (out / "finding_urls.csv").read_bytes()


def test_every_occurrence_is_a_row_in_one_order_whatever_file_is_read_first(
    site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _serve(site, slow="/a.xml")  # b.xml is read first: its repeats are known only later
    first = _deep(site, tmp_path / "one", monkeypatch)
    _serve(site, slow="/b.xml")  # a.xml is read first
    second = _deep(site, tmp_path / "two", monkeypatch)
    _serve(site)
    third = _deep(site, tmp_path / "three", monkeypatch)
    capsys.readouterr()
    assert first == second == third
    assert first.startswith(b"\xef\xbb\xbf")
    text = first.decode("utf-8-sig")
    a, b, port = site.url("/a.xml"), site.url("/b.xml"), site.port
    assert list(csv.reader(io.StringIO(text))) == [
        HEADER.split(","),
        ["notice", "partial-lastmod", "tool", a, "", "", ""],
        ["error", "invalid-url", "search-console", a, "4", "relative/page", ""],
        ["error", "invalid-url", "search-console", a, "5", site.url("/two words"), ""],
        ["error", "invalid-url", "search-console", a, "6", '\'=HYPERLINK("http://x.test/")', ""],
        ["error", "invalid-date", "search-console", a, "7", "2026-13-01", ""],
        ["error", "invalid-url", "search-console", a, "8", f"http://127.0.0.1:{port}/x y", ""],
        ["warning", "duplicate-url", "tool", b, "3", site.url("/shared"), "also in another file"],
        ["warning", "duplicate-url", "tool", b, "5", site.url("/b1"), "within this file"],
        [
            "warning",
            "duplicate-url",
            "tool",
            b,
            "6",
            site.url("/q?token=***"),
            "also in another file",
        ],
    ]
    for secret in (PASSWORD, "hunter2", "bob:"):
        assert secret not in text
    for name in ("sitemaps.csv", "findings.csv"):
        assert PASSWORD not in (tmp_path / "one" / name).read_text(encoding="utf-8-sig")


def test_the_document_counts_what_the_rows_list(site: Site, tmp_path: Path) -> None:
    _serve(site, slow="/a.xml")
    with FindingRows() as rows:
        options = deep.Options(
            allow_private_networks=True,
            resolver=local_only,
            limits=deep.Limits(concurrency=4),
            finding_rows=rows,
        )
        walk = deep.audit_walk(site.url("/"), options=options)
        doc = documents.build(walk)
        target = finding_urls.write(doc, rows, tmp_path, walk.secrets)
    listed = list(csv.DictReader(io.StringIO(target.read_text(encoding="utf-8-sig"))))
    for f in doc["findings"]:
        mine = [r for r in listed if r["kind"] == f["kind"] and r["sitemap"] == f["sitemap"]]
        # A finding counted for the file as a whole is one row.
        assert len(mine) == (1 if f["kind"] == "partial-lastmod" else f["count"]), f["kind"]
    assert len(listed) == sum(
        1 if f["kind"] == "partial-lastmod" else f["count"] for f in doc["findings"]
    )
    dup = next(f for f in doc["findings"] if f["kind"] == "duplicate-url")
    assert dup["sitemap"] == site.url("/b.xml") and dup["count"] == 3
    assert [e["line"] for e in dup["examples"]] == [3, 5, 6]


def test_nothing_is_spooled_without_csv(
    site: Site, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _serve(site)

    def refused(*args: object) -> None:
        raise AssertionError("a spool was made without --csv")

    monkeypatch.setattr(FindingRows, "__init__", refused)
    assert cli.main(["deep", "--allow-private-networks", "--json", site.url("/")]) == 2
    assert '"kind": "duplicate-url"' in capsys.readouterr().out


def test_controls_a_site_wrote_are_replaced_in_every_csv_as_in_the_other_reports(
    site: Site, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # C1 controls XML allows (CSI, a terminal's commands; NEL) and a right-to-left override (a
    # file name that reads backwards): U+FFFD in each CSV, as the text and HTML reports show.
    hostile = "\x9b31m\x85\u202egpj.exe"
    body = urlset_of([f"<loc>{site.url('/a')}</loc><lastmod>{hostile}</lastmod>"])
    site.route("/robots.txt", reply(f"Sitemap: {site.url('/s.xml')}\n", content_type="text/plain"))
    site.route("/s.xml", reply(body))
    site.route("/a", reply(b"<html><head></head></html>", content_type="text/html"))
    out = tmp_path / "csv"
    cli.main(["deep", "--allow-private-networks", "--pages", "--csv", str(out), site.url("/")])
    capsys.readouterr()
    shown = "\ufffd31m\ufffd\ufffdgpj.exe"
    for name in ("findings.csv", "finding_urls.csv", "pages.csv"):
        text = (out / name).read_text(encoding="utf-8-sig")
        assert not any(c in text for c in "\x9b\x85\u202e"), name
        assert shown in text, name


def test_the_urls_file_shows_no_credential_in_any_field(
    site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Sitemaps whose own URLs hold the password (in their path, and as userinfo): the --urls
    # stream names each URL's sitemap, redacted as the URL and its lastmod are.
    u, port = site.url, site.port
    listed = urlset_of([f"<loc>{u('/p')}</loc><lastmod>{PASSWORD}</lastmod>"])
    robots = (
        f"User-agent: *\nDisallow:\nSitemap: {u(f'/{PASSWORD}.xml')}\n"
        f"Sitemap: http://audit:{PASSWORD}@127.0.0.1:{port}/b.xml\n"
    )
    site.route("/robots.txt", reply(robots, content_type="text/plain"))
    site.route(f"/{PASSWORD}.xml", reply(listed))
    site.route("/b.xml", reply(urlset_of([f"<loc>{u('/q')}?k={PASSWORD}</loc>"])))
    monkeypatch.setenv("SITEMAP_AUDITOR_PASSWORD", PASSWORD)
    out = tmp_path / "urls.jsonl"
    argv = ["deep", "--allow-private-networks", "--user", "audit", "--urls", str(out)]
    cli.main([*argv, "--json", site.url("/")])
    capsys.readouterr()
    text = out.read_text(encoding="utf-8")
    assert len(text.splitlines()) == 2
    assert PASSWORD not in text
    assert "***" in text


def test_no_report_shows_the_userinfo_a_site_listed_its_urls_with(
    site: Site, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A sitemap, and pages, listed as `http://user:password@host/...` (the site's password, not
    # the audit's): the URL is asked for without it, and no report shows it (§8).
    u, port = site.url, site.port
    index = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"<sitemap><loc>http://dave:{PASSWORD}@127.0.0.1:{port}/a.xml</loc></sitemap>\n"
        f"<sitemap><loc>http://dave:{PASSWORD}@127.0.0.1:{port}/gone.xml</loc></sitemap>\n"
        "</sitemapindex>\n"
    )
    pages = [
        f"<loc>http://carol:{PASSWORD}@127.0.0.1:{port}/p?access=1</loc>",
        f"<loc>http://carol:{PASSWORD}@127.0.0.1:{port}/missing</loc>",
    ]
    site.route("/robots.txt", reply(f"Sitemap: {u('/index.xml')}\n", content_type="text/plain"))
    site.route("/index.xml", reply(index))
    site.route("/a.xml", reply(urlset_of(pages)))
    site.route("/p", reply(b"<html><head><title>P</title></head></html>", 200, "text/html"))
    out = tmp_path / "out"
    argv = ["deep", "--allow-private-networks", "--pages", "--csv", str(out / "csv")]
    argv += ["--html", str(out / "report.html"), "--urls", str(out / "urls.jsonl")]
    argv += ["--pages-out", str(out / "pages.jsonl")]
    out.mkdir()
    for extra in (["--json"], []):
        cli.main([*argv, *extra, u("/")])
        said = capsys.readouterr()
        assert PASSWORD not in said.out + said.err
        assert "dave" not in said.out and "carol" not in said.out
        for path in out.rglob("*"):
            if path.is_file():
                text = path.read_text(encoding="utf-8-sig")
                assert PASSWORD not in text and "dave:" not in text, path.name
    assert {p.split("?")[0] for p in site.paths()} >= {"/a.xml", "/gone.xml", "/p"}


def test_a_url_whose_path_holds_word_colon_at_is_shown_whole(
    site: Site, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `/wiki/User:Bob@home` has no userinfo (the reading's authority ends at its first `/`):
    # shown whole, not as `/wiki/User:home`, and two such pages are two rows, resumed apart.
    u = site.url
    paths = ["/wiki/User:Bob@home", "/wiki/User:Alice@home", "/share?to=mailto:jane@example.com"]
    site.route("/robots.txt", reply(f"Sitemap: {u('/a.xml')}\n", content_type="text/plain"))
    site.route("/a.xml", reply(urlset_of([f"<loc>{u(p)}</loc>" for p in paths])))
    page = b"<html><head><title>P</title></head></html>"
    for p in paths:
        site.route(p.split("?")[0], reply(page, 200, "text/html"))
    pages, listed = tmp_path / "pages.jsonl", tmp_path / "urls.jsonl"
    argv = ["deep", "--allow-private-networks", "--pages", "--pages-out", str(pages)]
    cli.main([*argv, "--max-pages", "1", "--urls", str(listed), "--json", u("/")])
    capsys.readouterr()
    cli.main([*argv, "--resume", "--json", u("/")])
    said = capsys.readouterr().out
    rows = [json.loads(line) for line in pages.read_text(encoding="utf-8").splitlines()]
    assert sorted(r["url"] for r in rows) == sorted(u(p) for p in paths)
    assert sorted(json.loads(x)["url"] for x in listed.read_text().splitlines()) == sorted(
        u(p) for p in paths
    )
    assert "User:home" not in said and "mailto:example.com" not in said
