"""A page whose check fails by a defect (an exception nothing foresaw), on a real server on
127.0.0.1: its row says so, the other pages are checked, the totals count it, standard error
says it once, and no credential of the audit's shows in any of it.

The trigger is a real one: the standard library's HTML parser (Python 3.11 and 3.12) raises
AssertionError on a marked section it cannot read (`<![ x`), which a site's head can hold."""

from __future__ import annotations

import json
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from support.deep import urlset_of

from harness.servers import Site, reply
from sitemap_auditor.cli import deep as deep_cli
from sitemap_auditor.cli.deep import PASSWORD_ENV
from sitemap_auditor.deep.pages.store import PagesFile

PASSWORD = "Zq9-hunter"
PAGE = b"<!DOCTYPE html><html><head><title>Linen</title></head><body>Linen</body></html>"
# A head the parser gives up on, echoing (as a hostile or broken site may) the password the
# request carried: the parser's message quotes the 20 characters where it stopped.
BROKEN = f"<!DOCTYPE html><html><head><title>Linen</title><![ {PASSWORD} ]></head>".encode()
ODD = b"<html><head><![if-lt-IE-9[ <p> ]]></head><body></body></html>"


def _parser_raises(head: bytes) -> bool:
    parser = HTMLParser()
    try:
        parser.feed(head.decode())
    except AssertionError:
        return True
    return False


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
    if not (_parser_raises(BROKEN) and _parser_raises(ODD)):
        pytest.skip("this Python's HTML parser reads these heads: no real defect to meet")
    paths = ["/a", "/broken", "/b", "/odd", "/c", "/gone"]
    site.route(
        "/robots.txt", reply(f"Sitemap: {site.url('/sitemap.xml')}\n", content_type="text/plain")
    )
    site.route("/sitemap.xml", reply(urlset_of(f"<loc>{site.url(p)}</loc>" for p in paths)))
    for path in ("/a", "/b", "/c"):
        site.route(path, reply(PAGE, content_type="text/html"))
    site.route("/broken", reply(BROKEN, content_type="text/html"))
    site.route("/odd", reply(ODD, content_type="text/html"))
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
    }
    assert all(rows[p]["indexable"] for p in ("/a", "/b", "/c"))
    for path in ("/broken", "/odd"):
        row = rows[path]
        assert row["indexable"] is None and row["status"] is None, row  # not judged
        assert row["error"].startswith("internal: AssertionError: "), row["error"]
        assert len(row["error"]) <= len("internal: ") + 300
    assert "expected name token at '<![ ***" in rows["/broken"]["error"]
    assert "marked section" in rows["/odd"]["error"]
    pages = doc["pages"]
    assert (pages["checked"], pages["indexable"], pages["internalErrors"]) == (6, 3, 2)
    assert pages["notIndexable"] == 1 and pages["stoppedBy"] is None
    assert [f["kind"] for f in pages["findings"]] == ["page-not-found"]
    # Said once on standard error, in one line, without the password.
    told = [line for line in captured.err.splitlines() if "page check:" in line]
    assert len(told) == 1 and "internal: AssertionError" in told[0], captured.err
    assert site.url("/broken") in told[0]
    assert PASSWORD not in captured.err + captured.out + out.read_text(encoding="utf-8")
    assert "Traceback" not in captured.err
    assert status == 2  # the 404
