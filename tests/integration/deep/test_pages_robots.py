"""robots.txt and the page check, on a real server on 127.0.0.1 that counts what it is asked: a
page disallowed to Googlebot, or to the product the User-Agent names, is never requested; and
the order its row (and every other) takes in the pages file and pages.csv."""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.deep import urlset_of

from harness.servers import Site, reply, send
from sitemap_auditor.cli import deep as deep_cli
from sitemap_auditor.core.request_headers import NO_EXTRA_HEADERS, ExtraHeaders
from sitemap_auditor.deep.pages.check import PageOptions, check_pages, page_agents
from sitemap_auditor.deep.pages.store import PagesFile
from sitemap_auditor.fetching.fetch import FetchPolicy

PAGE = b"<!DOCTYPE html><html><head><title>Linen</title></head><body>Linen</body></html>"
AGENCY = "Mozilla/5.0 (compatible; AgencyAudit/1.0; +https://agency.example/bot)"
# Googlebot and AgencyAudit each obey their own group; the `*` group is neither's.
ROBOTS = """User-agent: Googlebot
Disallow: /cart
Disallow: /private

User-agent: AgencyAudit
Crawl-delay: 0.2
Disallow: /drafts
Disallow: /private

User-agent: *
Disallow: /
"""
PATHS = ["/linen", "/cart", "/drafts", "/private"]


@pytest.fixture
def site() -> Iterator[Site]:
    s = Site().start()
    s.route("/robots.txt", reply(ROBOTS, content_type="text/plain"))
    for path in PATHS:
        s.route(path, reply(PAGE, content_type="text/html"))
    yield s
    s.stop()


def _check(
    site: Site, tmp_path: Path, headers: ExtraHeaders | None = None, **options: Any
) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    out = str(tmp_path / "pages.jsonl")
    listed = [(site.url(p), site.url("/sitemap.xml"), None) for p in PATHS]
    policy = FetchPolicy(
        origin=("http", "127.0.0.1", site.port),
        allow_private_networks=True,
        deadline_s=2.0,
        extra_headers=headers if headers is not None else NO_EXTRA_HEADERS,
    )
    summary = check_pages(
        lambda: iter(listed), site.url("/robots.txt"), policy, PageOptions(pages_out=out, **options)
    )
    rows = {r["url"].removeprefix(site.base): r for r in PagesFile.rows(out)}
    return rows, summary.document()


def _asked(site: Site) -> dict[str, list[str]]:
    """The paths the server was asked, each with the User-Agent of each request."""
    seen: dict[str, list[str]] = {}
    for s in site.seen:
        seen.setdefault(s.path, []).append(s.headers.get("user-agent", ""))
    return seen


def test_the_agents_are_googlebot_and_the_product_the_user_agent_names() -> None:
    assert page_agents(AGENCY) == ("Googlebot", "AgencyAudit")
    assert page_agents("AgencyAudit") == ("Googlebot", "AgencyAudit")
    assert page_agents("37AuditsBot/1.0") == ("Googlebot",)  # no name robots.txt can give
    assert page_agents("Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0") == ("Googlebot",)
    assert page_agents("Googlebot/2.1 (+http://www.google.com/bot.html)") == ("Googlebot",)


def test_a_page_disallowed_to_the_requesting_product_is_not_requested(
    site: Site, tmp_path: Path
) -> None:
    rows, pages = _check(site, tmp_path, user_agent=AGENCY)
    assert {p: (r["reason"], r["blockedFor"]) for p, r in rows.items()} == {
        "/linen": (None, None),
        "/cart": ("blocked-by-robots", ["Googlebot"]),
        "/drafts": ("blocked-by-robots", ["AgencyAudit"]),
        "/private": ("blocked-by-robots", ["Googlebot", "AgencyAudit"]),
    }
    # The server was asked for robots.txt and the one page allowed to both, as AgencyAudit.
    assert _asked(site) == {"/robots.txt": [AGENCY], "/linen": [AGENCY]}
    assert all(r["status"] is None and r["error"] is None for p, r in rows.items() if p != "/linen")
    (finding,) = pages["findings"]
    assert (finding["kind"], finding["count"]) == ("blocked-by-robots", 3)
    # As the walk says it: each URL is disallowed to one of them, or to both.
    assert "(for Googlebot or AgencyAudit)" in finding["message"]
    assert pages["crawlDelay"] == 0.2  # AgencyAudit's group's, not the `*` group's


def test_the_user_agent_a_header_sets_decides_too(site: Site, tmp_path: Path) -> None:
    # --header "User-Agent: ..." replaces the User-Agent sent: its product is the one asked.
    headers = ExtraHeaders.of([("User-Agent", "AgencyAudit/2.0")])
    rows, _ = _check(site, tmp_path, headers=headers)
    assert rows["/drafts"]["blockedFor"] == ["AgencyAudit"]
    assert _asked(site) == {"/robots.txt": ["AgencyAudit/2.0"], "/linen": ["AgencyAudit/2.0"]}


def test_without_a_named_product_googlebot_alone_decides(site: Site, tmp_path: Path) -> None:
    rows, pages = _check(site, tmp_path)
    assert {p: r["reason"] for p, r in rows.items()} == {
        "/linen": None,
        "/cart": "blocked-by-robots",
        "/drafts": None,  # AgencyAudit's rule: this tool's own name is no robots.txt agent
        "/private": "blocked-by-robots",
    }
    assert rows["/private"]["blockedFor"] == ["Googlebot"]
    assert sorted(_asked(site)) == ["/drafts", "/linen", "/robots.txt"]
    assert "(for Googlebot)" in pages["findings"][0]["message"]


def test_the_command_names_the_agents_in_the_pages_file_and_csv(
    site: Site, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site.route(
        "/robots.txt",
        reply(ROBOTS + f"\nSitemap: {site.url('/sitemap.xml')}\n", content_type="text/plain"),
    )
    site.route("/sitemap.xml", reply(urlset_of(f"<loc>{site.url(p)}</loc>" for p in PATHS)))
    out = tmp_path / "pages.jsonl"
    argv = ["--allow-private-networks", "--pages", "--pages-out", str(out), "--json"]
    argv += ["--user-agent", AGENCY, "--csv", str(tmp_path / "csv"), site.base + "/"]
    deep_cli.main(argv)
    doc = json.loads(capsys.readouterr().out)
    rows = {r["url"].removeprefix(site.base): r for r in PagesFile.rows(str(out))}
    assert rows["/private"]["blockedFor"] == ["Googlebot", "AgencyAudit"]
    asked = [s.path for s in site.seen]
    assert not {"/cart", "/drafts", "/private"} & set(asked) and asked.count("/linen") == 1
    (finding,) = doc["pages"]["findings"]
    assert finding["count"] == 3 and "for Googlebot or AgencyAudit" in finding["message"]
    csv_text = (tmp_path / "csv" / "pages.csv").read_text(encoding="utf-8-sig")
    assert '"Googlebot, AgencyAudit"' in csv_text


def test_rows_come_in_the_order_pages_finish_and_pages_csv_keeps_it(
    site: Site, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Listed in this order: a slow page, a quicker one, one robots.txt closes to Googlebot. The
    # blocked row needs no request and is written as the walk reaches it; the quicker page
    # finishes before the slow one.
    def after(seconds: float) -> Any:
        def route(h: Any) -> None:
            time.sleep(seconds)
            send(h, 200, PAGE, {"Content-Type": "text/html"})

        return route

    listed = ["/slow", "/linen", "/cart"]
    site.route(
        "/robots.txt",
        reply(ROBOTS + f"\nSitemap: {site.url('/sitemap.xml')}\n", content_type="text/plain"),
    )
    site.route("/sitemap.xml", reply(urlset_of(f"<loc>{site.url(p)}</loc>" for p in listed)))
    site.route("/slow", after(0.8))
    site.route("/linen", after(0.3))
    out = tmp_path / "pages.jsonl"
    argv = ["--allow-private-networks", "--pages", "--pages-out", str(out), "--json"]
    argv += ["--concurrency", "2", "--csv", str(tmp_path / "csv"), site.base + "/"]
    deep_cli.main(argv)
    capsys.readouterr()
    order = [r["url"].removeprefix(site.base) for r in PagesFile.rows(str(out))]
    assert order == ["/cart", "/linen", "/slow"]
    with (tmp_path / "csv" / "pages.csv").open(encoding="utf-8-sig", newline="") as f:
        in_csv = [r["url"].removeprefix(site.base) for r in csv.DictReader(f)]
    assert in_csv == order  # the pages file's order, not the walk's


def test_a_redirect_to_a_disallowed_page_is_not_followed(site: Site, tmp_path: Path) -> None:
    # /linen moves to /private/linen, which robots.txt disallows to Googlebot and AgencyAudit:
    # the crawler would not ask for it, so neither does the check; the listed URL gets the
    # target's reason. A redirect to another origin is not judged by this robots.txt.
    site.route("/linen", lambda h: send(h, 301, b"", {"Location": "/private/linen"}))
    rows, _ = _check(site, tmp_path, user_agent=AGENCY)
    linen = rows["/linen"]
    assert linen["reason"] == "blocked-by-robots" and linen["indexable"] is False
    assert linen["blockedFor"] == ["Googlebot", "AgencyAudit"]
    assert linen["finalUrl"] == site.url("/private/linen") and linen["status"] is None
    assert linen["redirects"] == [{"status": 301, "location": site.url("/private/linen")}]
    assert "/private/linen" not in _asked(site)
    # Another origin's /private is no business of this robots.txt: asked for (nobody answers).
    site.route("/linen", lambda h: send(h, 301, b"", {"Location": "http://127.0.0.2:9/private"}))
    (tmp_path / "again").mkdir()
    rows, _ = _check(site, tmp_path / "again", user_agent=AGENCY)
    assert rows["/linen"]["reason"] != "blocked-by-robots" and rows["/linen"]["error"]
