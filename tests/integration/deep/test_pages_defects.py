"""A page whose check fails by a defect (an exception nothing foresaw), on a real server on
127.0.0.1: its row says so, the other pages are checked, the totals count it, standard error
says it once, and no credential of the audit's shows in any of it.

No input is known to raise inside the check any more (the last one, a head holding `<![ x` that
the standard library's HTML parser gave up on, is now read as browsers read it), so the defect is
made: the head reader fails on a marker in the page, quoting (as a parser's message does) the
bytes where it stopped, which here echo the password the request carried. The heads that used to
raise are served beside it and now get their verdict."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.deep import urlset_of

from harness.servers import Site, reply
from sitemap_auditor.cli import deep as deep_cli
from sitemap_auditor.cli.password import PASSWORD_ENV
from sitemap_auditor.deep.pages.head import HeadReader
from sitemap_auditor.deep.pages.store import PagesFile

PASSWORD = "Zq9-hunter"
PAGE = b"<!DOCTYPE html><html><head><title>Linen</title></head><body>Linen</body></html>"
MARKER = b"<x-defect "
# A head the (made) defect meets, echoing (as a hostile or broken site may) the password the
# request carried.
BROKEN = f"<!DOCTYPE html><html><head><title>Linen</title><x-defect {PASSWORD}></head>".encode()
# Heads the standard library's parser raised AssertionError on: read now, as browsers do.
ODD = b"<html><head><![if-lt-IE-9[ <p> ]]></head><body></body></html>"
REVEALED = b"<html><head><![ x ]><![if !IE]><meta name=robots content=noindex><![endif]></head>"


def _failing_feed(original: Callable[[HeadReader, bytes], None]) -> Callable[..., None]:
    def feed(self: HeadReader, chunk: bytes) -> None:
        at = chunk.find(MARKER)
        if at >= 0:
            raise AssertionError(f"expected name token at {chunk[at : at + 20].decode()!r}")
        original(self, chunk)

    return feed


@pytest.fixture
def site() -> Iterator[Site]:
    s = Site().start()
    yield s
    s.stop()


def test_a_page_the_check_fails_on_gets_a_row_and_the_others_go_on(
    site: Site,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(HeadReader, "feed", _failing_feed(HeadReader.feed))
    paths = ["/a", "/broken", "/b", "/odd", "/c", "/gone", "/revealed"]
    site.route(
        "/robots.txt", reply(f"Sitemap: {site.url('/sitemap.xml')}\n", content_type="text/plain")
    )
    site.route("/sitemap.xml", reply(urlset_of(f"<loc>{site.url(p)}</loc>" for p in paths)))
    for path in ("/a", "/b", "/c"):
        site.route(path, reply(PAGE, content_type="text/html"))
    site.route("/broken", reply(BROKEN, content_type="text/html"))
    site.route("/odd", reply(ODD, content_type="text/html"))
    site.route("/revealed", reply(REVEALED, content_type="text/html"))
    site.route("/gone", reply(b"", 404, "text/html"))
    monkeypatch.setenv(PASSWORD_ENV, PASSWORD)
    out = tmp_path / "pages.jsonl"
    argv = ["--allow-private-networks", "--pages", "--pages-out", str(out), "--json"]
    status = deep_cli.main([*argv, "--concurrency", "1", "--user", "agency", site.base + "/"])
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    rows = {r["url"].removeprefix(site.base): r for r in PagesFile.rows(str(out))}
    # Every page has its row; those after the failures were checked.
    assert {p: r["reason"] for p, r in rows.items()} == {
        "/a": None,
        "/broken": None,
        "/b": None,
        "/odd": None,
        "/c": None,
        "/gone": "page-not-found",
        "/revealed": "page-noindex",
    }
    assert all(rows[p]["indexable"] for p in ("/a", "/b", "/c", "/odd"))
    assert rows["/revealed"]["noindex"] == "meta"
    row = rows["/broken"]
    assert row["indexable"] is None and row["status"] is None, row  # not judged
    assert row["error"].startswith("internal: AssertionError: "), row["error"]
    assert len(row["error"]) <= len("internal: ") + 300
    assert "expected name token at '<x-defect ***" in row["error"]
    pages = doc["pages"]
    assert (pages["checked"], pages["indexable"], pages["internalErrors"]) == (7, 4, 1)
    assert pages["notIndexable"] == 2 and pages["stoppedBy"] is None
    assert [f["kind"] for f in pages["findings"]] == ["page-not-found", "page-noindex"]
    # Said once on standard error, in one line, without the password.
    told = [line for line in captured.err.splitlines() if "page check:" in line]
    assert len(told) == 1 and "internal: AssertionError" in told[0], captured.err
    assert site.url("/broken") in told[0]
    assert PASSWORD not in captured.err + captured.out + out.read_text(encoding="utf-8")
    assert "Traceback" not in captured.err
    assert status == 2  # the 404


def test_a_listed_url_holding_the_password_is_asked_for_as_listed_and_shown_redacted(
    site: Site,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A site may list the token it was given (a preview link); the page is that URL, so it is
    # requested whole, and no output shows the password.
    paths = [f"/p?key={PASSWORD}", "/q"]
    site.route(
        "/robots.txt", reply(f"Sitemap: {site.url('/sitemap.xml')}\n", content_type="text/plain")
    )
    site.route("/sitemap.xml", reply(urlset_of(f"<loc>{site.url(p)}</loc>" for p in paths)))
    for path in paths:
        site.route(path, reply(PAGE, content_type="text/html"))  # routed by path and query
    monkeypatch.setenv(PASSWORD_ENV, PASSWORD)
    out, listed = tmp_path / "pages.jsonl", tmp_path / "urls.jsonl"
    argv = ["--allow-private-networks", "--pages", "--pages-out", str(out), "--json"]
    argv += ["--urls", str(listed), "--user", "agency", site.base + "/"]
    assert deep_cli.main(argv) == 0
    captured = capsys.readouterr()
    asked = [p for p in site.paths() if p.startswith(("/p", "/q"))]
    assert sorted(asked) == sorted(paths)
    written = captured.out + captured.err + out.read_text(encoding="utf-8")
    written += listed.read_text(encoding="utf-8")
    assert PASSWORD not in written
    rows = sorted(r["url"] for r in PagesFile.rows(str(out)))
    assert rows == [site.url("/p?key=***"), site.url("/q")]
    assert json.loads(captured.out)["pages"]["indexable"] == 2
    # A resumed run knows the redacted row for the page it lists: nothing is asked again.
    assert deep_cli.main([*argv, "--resume"]) == 0
    capsys.readouterr()
    assert sorted(p for p in site.paths() if p.startswith(("/p", "/q"))) == sorted(paths)
