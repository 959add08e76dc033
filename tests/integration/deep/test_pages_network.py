"""The page check's connections, as real servers on 127.0.0.1 and the socket layer see them:
where they may go (never to a metadata or link-local address, even with private networks
allowed) and how many it opens (kept alive, not one a page).

No test here sends a byte off loopback: an autouse guard refuses (and records) every connection
to an address other than 127.0.0.1 and 127.0.0.2, before any packet, so that a regression shows
as a recorded attempt rather than as traffic.
"""

from __future__ import annotations

import errno
import json
import socket
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest
from support.deep import urlset_of
from support.faults import Outbound

from harness.servers import Site, redirect, reply, send, slow_headers
from sitemap_auditor.cli import deep as deep_cli
from sitemap_auditor.core.credentials import Credentials
from sitemap_auditor.core.urls import read as read_url
from sitemap_auditor.deep.pages import check
from sitemap_auditor.deep.pages.check import PageOptions, check_pages
from sitemap_auditor.deep.pages.store import PagesFile
from sitemap_auditor.fetching.fetch import FetchPolicy

PAGE = b"<!DOCTYPE html><html><head><title>Linen</title></head><body><p>Linen</p></body></html>"
# A WordPress-like page: its head, then about 6 KB of body the check does not need.
LONG_PAGE = (
    b"<!DOCTYPE html><html lang='en'><head><meta charset='UTF-8'>"
    b"<meta name='robots' content='index, follow'><title>Linen</title></head><body>"
    + b"<p>Lorem ipsum dolor sit amet.</p>" * 180
    + b"</body></html>"
)


@pytest.fixture(autouse=True)
def outbound(monkeypatch: pytest.MonkeyPatch) -> Outbound:
    """Refuse (and record) any connection to an address other than 127.0.0.1 and 127.0.0.2."""
    record = Outbound()
    original = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> None:
        host = str(address[0]) if isinstance(address, tuple) else str(address)
        if host in ("127.0.0.1", "127.0.0.2"):
            record.allowed.append(host)
            original(self, address)
            return
        record.refused.append(host)
        raise ConnectionRefusedError(errno.ECONNREFUSED, f"test guard: no traffic to {host}")

    monkeypatch.setattr(socket.socket, "connect", guarded)
    return record


def _check(
    site: Site, urls: list[str], tmp_path: Path, deadline_s: float = 5.0, **options: Any
) -> dict[str, dict[str, Any]]:
    """The page check of urls (the library call), loopback allowed; its rows by URL."""
    out = str(tmp_path / "pages.jsonl")
    listed = [(u, site.url("/sitemap.xml"), None) for u in urls]
    policy = FetchPolicy(
        origin=("http", "127.0.0.1", site.port),
        allow_private_networks=True,
        deadline_s=deadline_s,
        credentials=options.pop("credentials", None),
    )
    check_pages(
        lambda: iter(listed), site.url("/robots.txt"), policy, PageOptions(pages_out=out, **options)
    )
    return {r["url"]: r for r in PagesFile.rows(out)}


def _listing(site: Site, paths: list[str]) -> None:
    site.route(
        "/robots.txt", reply(f"Sitemap: {site.url('/sitemap.xml')}\n", content_type="text/plain")
    )
    site.route("/sitemap.xml", reply(urlset_of(f"<loc>{site.url(p)}</loc>" for p in paths)))


def _deep_pages(
    site: Site, tmp_path: Path, capsys: pytest.CaptureFixture[str], *more: str
) -> tuple[int, dict[str, Any], dict[str, dict[str, Any]]]:
    """`deep --pages --allow-private-networks --json` in this process: the exit status, the
    document and the pages file's rows by path."""
    out = tmp_path / "pages.jsonl"
    argv = ["--allow-private-networks", "--pages", "--pages-out", str(out), "--json", *more]
    status = deep_cli.main([*argv, site.base + "/"])
    doc = json.loads(capsys.readouterr().out)
    rows = {r["url"].removeprefix(site.base): r for r in PagesFile.rows(str(out))}
    return status, doc, rows


# Where a listed page's redirect leads, and the address the guard names in refusing it. With
# --allow-private-networks the guard lets loopback and private ranges (10/8, 192.168/16, ...)
# through, for a site on the developer's own machine; the instance-metadata and link-local
# addresses stay refused for the page check whatever the option says.
METADATA_TARGETS = {
    "/aws": ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 (link-local)"),
    "/ecs": ("http://169.254.170.2/v2/credentials", "169.254.170.2 (link-local)"),
    "/decimal": ("http://2852039166/latest/meta-data/", "169.254.169.254 (link-local)"),
    "/mapped": (
        "http://[::ffff:169.254.169.254]/latest/",
        "::ffff:a9fe:a9fe (link-local, embedded in IPv6)",
    ),
    "/aws-v6": ("http://[fd00:ec2::254]/latest/meta-data/", "fd00:ec2::254 (instance metadata)"),
    "/link-local-v6": ("http://[fe80::1]/", "fe80::1 (link-local)"),
}


def test_a_redirect_to_a_metadata_address_is_a_redirect_error_and_never_connected(
    site: Site, tmp_path: Path, capsys: pytest.CaptureFixture[str], outbound: Outbound
) -> None:
    paths = ["/linen", *METADATA_TARGETS]
    _listing(site, paths)
    site.route("/linen", reply(PAGE, content_type="text/html"))
    for path, (target, _) in METADATA_TARGETS.items():
        site.route(path, redirect(target, 302))
    status, doc, rows = _deep_pages(site, tmp_path, capsys)
    assert rows["/linen"]["indexable"]
    for path, (target, refused) in METADATA_TARGETS.items():
        row = rows[path]
        assert (row["reason"], row["status"]) == ("page-redirect-error", None), path
        # Where it led, as the fetch read it (`2852039166` is 169.254.169.254).
        assert row["redirects"] == [{"status": 302, "location": read_url(target).href}]
        assert row["error"].startswith(f"blocked: {refused} for host "), row["error"]
    # Nothing was even attempted off loopback: the guard refused before any socket.
    assert outbound.refused == []
    assert set(outbound.allowed) == {"127.0.0.1"}
    (finding,) = doc["pages"]["findings"]
    assert (finding["kind"], finding["count"]) == ("page-redirect-error", len(METADATA_TARGETS))
    assert "169.254.169.254 (link-local)" in finding["message"]
    assert status == 2  # an error among the page findings


def test_forty_pages_go_over_a_connection_a_worker(site: Site, tmp_path: Path) -> None:
    # Pages as sites answer them: 200 with a body past the head, 301 to another listed page,
    # 404 with an error page, a noindex. Each worker keeps its connection for its next page.
    site.route("/robots.txt", reply("User-agent: *\nDisallow:\n", content_type="text/plain"))
    paths = [f"/p{i}" for i in range(40)]
    expected: dict[str, str | None] = {}
    for i, path in enumerate(paths):
        if i % 10 == 7:
            site.route(path, redirect("/p0", 301))
            expected[path] = "page-redirect"
        elif i % 10 == 8:
            site.route(path, reply(b"<html><head><title>Gone</title></head>", 404, "text/html"))
            expected[path] = "page-not-found"
        elif i % 10 == 9:
            site.route(path, reply(LONG_PAGE.replace(b"index,", b"noindex,"), 200, "text/html"))
            expected[path] = "page-noindex"
        else:
            site.route(path, reply(LONG_PAGE, content_type="text/html"))
            expected[path] = None
    rows = _check(site, [site.url(p) for p in paths], tmp_path, concurrency=4)
    assert {u.removeprefix(site.base): r["reason"] for u, r in rows.items()} == expected
    assert site.paths().count("/p0") == 1 + 4  # listed once, and the target of four redirects
    # robots.txt's fetch, and one connection for each of the four workers: not one a page.
    assert len(site.seen) == 1 + 40 + 4
    assert site.connections <= 1 + 4


def test_a_kept_connection_is_cut_at_its_own_fetchs_deadline(site: Site, tmp_path: Path) -> None:
    # A server that drips its headers is cut only by the fetch's watchdog (no read ever times
    # out): a connection kept from earlier pages must be this fetch's to cut.
    for i in range(4):
        site.route(f"/p{i}", reply(PAGE, content_type="text/html"))
    site.route("/drip", slow_headers(0.1, 4.0))
    site.route("/after", reply(PAGE, content_type="text/html"))
    paths = ["/p0", "/p1", "/p2", "/p3", "/drip", "/after"]
    rows = _check(site, [site.url(p) for p in paths], tmp_path, deadline_s=1.0, concurrency=1)
    drip = rows[site.url("/drip")]
    assert drip["reason"] == "page-unreachable" and drip["error"].startswith("timeout: ")
    assert drip["ms"] < 2500  # the deadline (1 s), not the server's 4 s of dripping
    assert rows[site.url("/after")]["indexable"]
    # robots.txt's; the one the first five pages shared (the drip on it: it was reused); the
    # one after the cut.
    assert site.connections == 3


def test_kept_connections_carry_credentials_to_the_sites_origin_only(
    site: Site, elsewhere: Site, tmp_path: Path
) -> None:
    # Connections are kept a host each; the credentials are a request's, by its own origin.
    for i in range(6):
        site.route(f"/a{i}", reply(PAGE, content_type="text/html"))
        elsewhere.route(f"/b{i}", reply(PAGE, content_type="text/html"))
    site.route("/away", redirect(elsewhere.url("/b0"), 302))
    urls = [u for i in range(6) for u in (site.url(f"/a{i}"), elsewhere.url(f"/b{i}"))]
    creds = Credentials("agency", "s3cret")
    rows = _check(site, [*urls, site.url("/away")], tmp_path, concurrency=2, credentials=creds)
    assert len(rows) == 13 and sum(r["indexable"] for r in rows.values()) == 12
    assert all(s.headers.get("authorization") == creds.header() for s in site.seen)
    assert not any("authorization" in s.headers for s in elsewhere.seen)
    # Its own robots.txt (once, before its first page), six listed, and the redirect's target.
    assert [s.path for s in elsewhere.seen].count("/robots.txt") == 1
    assert elsewhere.seen[0].path == "/robots.txt" and len(elsewhere.seen) == 8
    assert site.connections <= 1 + 2 and elsewhere.connections <= 1 + 2


def test_a_kept_connection_the_server_dropped_is_asked_again_on_a_new_one(
    site: Site, tmp_path: Path
) -> None:
    # A server that answers one request a connection and, without saying so, drops the next
    # (as one whose idle timeout fires just as the request leaves): the page is not lost.
    def once_a_connection(h: Any) -> None:
        if getattr(h, "answered", False):
            h.close_connection = True  # no answer: the connection just closes
            return
        h.answered = True
        send(h, 200, PAGE, {"Content-Type": "text/html"})

    paths = [f"/p{i}" for i in range(5)]
    for path in paths:
        site.route(path, once_a_connection)
    rows = _check(site, [site.url(p) for p in paths], tmp_path, concurrency=1)
    assert all(r["indexable"] and r["error"] is None for r in rows.values())
    # Each page after the first was asked on the kept connection, dropped, and asked again.
    assert [p for p in site.paths() if p != "/robots.txt"] == ["/p0"] + [
        p for p in paths[1:] for _ in range(2)
    ]


def test_a_long_or_slow_rest_of_a_page_closes_its_connection(site: Site, tmp_path: Path) -> None:
    # Past its head a page is read on only to keep the connection, and not for long: 300 KB
    # more, or a last 10 KB that comes 2 s after the rest, costs a new connection, not the wait.
    big = LONG_PAGE + b"<!-- padding -->" * 20_000
    first = LONG_PAGE.replace(b"</body>", b"<!-- padding -->" * 4_400)  # past one 64 KiB read
    last = b"<!-- padding -->" * 640 + b"</body></html>"

    def slow(h: Any) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.send_header("Content-Length", str(len(first) + len(last)))
        h.end_headers()
        h.wfile.write(first)
        h.wfile.flush()
        time.sleep(2.0)
        h.wfile.write(last)

    for i in range(3):
        site.route(f"/big{i}", reply(big, content_type="text/html"))
    site.route("/slow", slow)
    site.route("/after", reply(PAGE, content_type="text/html"))
    paths = ["/big0", "/big1", "/big2", "/slow", "/after"]
    rows = _check(site, [site.url(p) for p in paths], tmp_path, concurrency=1)
    assert all(r["indexable"] for r in rows.values())
    assert rows[site.url("/slow")]["ms"] < 1500  # the head's time and 0.25 s, not 2 s
    # robots.txt's, then one a page: none of these could be kept.
    assert site.connections == 1 + 5


@pytest.mark.parametrize("rest", ["endless-trailers", "dripped-chunk-size"])
def test_a_chunked_rest_that_never_ends_closes_its_connection(
    site: Site, tmp_path: Path, rest: str
) -> None:
    # One read of a chunked answer reads whole lines: a trailer section of endless lines, or a
    # chunk-size line dripped a byte every 0.1 s, held the drain (and its worker) for the page's
    # whole deadline, reading about 1 GB of trailers.
    def chunked(h: Any) -> None:
        h.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n")
        h.wfile.write(b"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n" % (len(PAGE), PAGE))
        end = time.monotonic() + 8.0
        with suppress(OSError):
            if rest == "endless-trailers":
                h.wfile.write(b"0\r\n")
                while time.monotonic() < end:
                    h.wfile.write(b"X-T: a\r\n" * 100)
            else:
                while time.monotonic() < end:
                    h.wfile.write(b"0")
                    h.wfile.flush()
                    time.sleep(0.1)
        h.close_connection = True

    site.route("/chunked", chunked)
    site.route("/after", reply(PAGE, content_type="text/html"))
    rows = _check(site, [site.url("/chunked"), site.url("/after")], tmp_path, concurrency=1)
    assert all(r["indexable"] for r in rows.values())
    assert rows[site.url("/chunked")]["ms"] < 4000  # the head's time and 0.25 s, not 5 s
    assert site.connections == 1 + 2  # robots.txt's, then one a page: none could be kept


def test_the_walk_never_reaches_a_metadata_address_either(
    site: Site, capsys: pytest.CaptureFixture[str], outbound: Outbound
) -> None:
    # The sitemaps too: one listed at the metadata address, one redirected there; loopback
    # allowed for the site itself.
    site.route(
        "/robots.txt",
        reply(
            f"Sitemap: {site.url('/sitemap.xml')}\n"
            "Sitemap: http://169.254.169.254/latest/meta-data/sitemap.xml\n"
            f"Sitemap: {site.url('/moved.xml')}\n",
            content_type="text/plain",
        ),
    )
    site.route("/sitemap.xml", reply(urlset_of([f"<loc>{site.url('/linen')}</loc>"])))
    site.route("/moved.xml", redirect("http://[fd00:ec2::254]/sitemap.xml", 302))
    status = deep_cli.main(["--allow-private-networks", "--json", site.base + "/"])
    doc = json.loads(capsys.readouterr().out)
    by_url = {s["url"]: s for s in doc["sitemaps"]}
    assert by_url[site.url("/sitemap.xml")]["entries"] == 1
    unread = [f for f in doc["findings"] if f["kind"] == "couldnt-fetch"]
    assert {f["sitemap"] for f in unread} == {
        "http://169.254.169.254/latest/meta-data/sitemap.xml",
        site.url("/moved.xml"),
    }
    assert all("blocked" in f["message"] or "refused" in f["message"] for f in unread), unread
    assert outbound.refused == [] and set(outbound.allowed) == {"127.0.0.1"}
    assert status == 2


def test_each_origin_is_judged_by_its_own_robots_txt(
    site: Site, elsewhere: Site, tmp_path: Path
) -> None:
    site.route(
        "/robots.txt", reply("User-agent: *\nDisallow: /private/\n", content_type="text/plain")
    )
    elsewhere.route(
        "/robots.txt", reply("User-agent: *\nDisallow: /secret\n", content_type="text/plain")
    )
    for path in ("/private/page", "/secret", "/open"):
        elsewhere.route(path, reply(PAGE, content_type="text/html"))
    site.route("/private/x", reply(PAGE, content_type="text/html"))
    site.route("/away", redirect(elsewhere.url("/secret"), 302))
    paths = ["/private/page", "/secret", "/open"]
    urls = [*(elsewhere.url(p) for p in paths), site.url("/private/x"), site.url("/away")]
    rows = _check(site, urls, tmp_path, concurrency=3)
    got = {u: (r["reason"], r["blockedFor"]) for u, r in rows.items()}
    assert got == {
        # The site's rules say nothing of another origin's pages, nor its rules of the site's.
        elsewhere.url("/private/page"): (None, None),
        elsewhere.url("/secret"): ("blocked-by-robots", ["Googlebot"]),
        elsewhere.url("/open"): (None, None),
        site.url("/private/x"): ("blocked-by-robots", ["Googlebot"]),
        site.url("/away"): ("blocked-by-robots", ["Googlebot"]),  # its target's
    }
    asked = [s.path for s in elsewhere.seen]
    assert asked.count("/robots.txt") == 1 and "/secret" not in asked
    assert "/private/x" not in [s.path for s in site.seen]


def test_an_origin_whose_robots_txt_fails_is_not_crawled(
    site: Site, elsewhere: Site, tmp_path: Path
) -> None:
    site.route("/robots.txt", reply("busy", 503, "text/plain"))
    site.route("/a", reply(PAGE, content_type="text/html"))
    elsewhere.route("/robots.txt", reply("", 404, "text/plain"))  # no rules at all
    elsewhere.route("/b", reply(PAGE, content_type="text/html"))
    rows = _check(site, [site.url("/a"), elsewhere.url("/b")], tmp_path)
    assert rows[site.url("/a")]["reason"] == "blocked-by-robots"
    assert rows[elsewhere.url("/b")]["indexable"]
    assert [s.path for s in site.seen] == ["/robots.txt"]


def test_pages_of_an_origin_whose_robots_txt_is_being_read_wait_for_it(
    site: Site, elsewhere: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The book full but for this origin, whose robots.txt is slow: every worker that meets one
    # of its pages waits for that reading, none checks a page unjudged.
    monkeypatch.setattr(check, "MAX_ROBOTS_ORIGINS", 1)

    def slow_robots(h: Any) -> None:
        time.sleep(0.5)
        send(h, 200, b"User-agent: *\nDisallow: /\n", {"Content-Type": "text/plain"})

    elsewhere.route("/robots.txt", slow_robots)
    for i in range(8):
        elsewhere.route(f"/p{i}", reply(PAGE, content_type="text/html"))
    rows = _check(site, [elsewhere.url(f"/p{i}") for i in range(8)], tmp_path, concurrency=4)
    assert {r["reason"] for r in rows.values()} == {"blocked-by-robots"}
    assert [s.path for s in elsewhere.seen] == ["/robots.txt"]


def test_a_hop_shows_where_it_led_as_read_without_userinfo(
    site: Site, elsewhere: Site, tmp_path: Path
) -> None:
    # A row shows each hop's target as the fetch read it: never a password, in whatever
    # spelling the site wrote it (the audit's own, percent-encoded; another's), and a Location
    # sent in UTF-8 as the URL that was asked for, not as Latin-1 text.
    creds = Credentials("agency", "pw")
    there = elsewhere.url("/x").removeprefix("http://")
    locations = {
        "/own": f"http://agency:p%77@{there}",
        "/other": f"http://other:OTHERSECRET@{there}",
        "/slashes": f"http:\\\\other:OTHERSECRET@{there}",
        "/bad-port": "http://other:OTHERSECRET@127.0.0.2:99999/x",
    }
    for path, location in locations.items():
        site.route(path, redirect(location, 301))
    # UTF-8 bytes: http.server sends a header's str as Latin-1, a byte a character.
    site.route("/cafe", redirect("/caf\u00e9".encode().decode("latin-1"), 301))
    site.route("/caf%C3%A9", reply(PAGE, content_type="text/html"))
    elsewhere.route("/x", reply(PAGE, content_type="text/html"))
    paths = [*locations, "/cafe"]
    rows = _check(site, [site.url(p) for p in paths], tmp_path, credentials=creds)
    shown = json.dumps(rows)
    assert "SECRET" not in shown and "p%77" not in shown and "agency" not in shown
    for path in ("/own", "/other", "/slashes"):
        hops = rows[site.url(path)]["redirects"]
        assert hops == [{"status": 301, "location": elsewhere.url("/x")}], path
    bad = rows[site.url("/bad-port")]
    assert bad["reason"] == "page-redirect-error"
    assert bad["redirects"] == [{"status": 301, "location": "http://127.0.0.2:99999/x"}]
    cafe = rows[site.url("/cafe")]
    assert cafe["redirects"] == [{"status": 301, "location": site.url("/caf%C3%A9")}]
    assert cafe["finalUrl"] == site.url("/caf%C3%A9") and cafe["reason"] == "page-redirect"
    assert cafe["status"] == 200
