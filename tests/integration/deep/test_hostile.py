"""Hostile children of an index, bounded as the Lambda bounds them: an endless body, a slow one,
a redirect inside AWS. (The gzip bomb: test_kinds.py, file-too-large.)"""

from __future__ import annotations

import itertools
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from support.deep import SITEMAPS_NS, kinds_of, local_only, run, urlset_of, with_head
from support.deep_schema import validated

import sitemap_auditor.fetching.addresses as ng
from harness.servers import Site, drip, raw, redirect, reply, send, stream
from sitemap_auditor import deep
from sitemap_auditor.core.credentials import Credentials
from sitemap_auditor.deep import walk
from sitemap_auditor.deep.reports import text_report


def _index(site: Site, *paths: str) -> None:
    entries = "".join(f"<sitemap><loc>{site.url(p)}</loc></sitemap>" for p in paths)
    body = f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">{entries}</sitemapindex>'
    site.route(
        "/robots.txt", reply(f"Sitemap: {site.url('/index.xml')}\n", content_type="text/plain")
    )
    site.route("/index.xml", reply(body))


def test_an_endless_child_stops_at_50_mb(site: Site) -> None:
    _index(site, "/endless.xml")
    head = f'<?xml version="1.0"?><urlset xmlns="{SITEMAPS_NS}">'.encode()
    entry = f"<url><loc>{site.url('/' + 'y' * 1000)}</loc></url>".encode()
    # A body without a length that goes on (up to 60 MB, so a broken client cannot hang the run).
    site.route("/endless.xml", stream(itertools.chain([head], itertools.repeat(entry * 60, 1000))))
    started = time.monotonic()
    doc = run(site.url("/"))
    assert time.monotonic() - started < 30
    assert "file-too-large" in kinds_of(doc, site.url("/endless.xml"))


def test_a_slow_child_is_cut_by_the_walk_s_own_time(site: Site) -> None:
    _index(site, "/slow.xml")
    site.route("/slow.xml", drip(b'<?xml version="1.0"?><urlset>', b" ", 0.2, 20.0))
    started = time.monotonic()
    doc = run(site.url("/"), max_seconds=3)
    assert time.monotonic() - started < 10
    assert doc["stoppedBy"] == "max-seconds" and doc["complete"] is False
    slow = next(s for s in doc["sitemaps"] if s["url"] == site.url("/slow.xml"))
    assert slow["type"] == "unfetched"
    assert kinds_of(doc)["limit-reached"]["sitemap"] is None
    assert "at most 3 seconds" in kinds_of(doc)["limit-reached"]["message"]


def test_a_verdict_that_takes_the_whole_time_leaves_robots_txt_as_it_answered(
    site: Site,
) -> None:
    # The one sitemap robots.txt lists answers slowly: the Lambda's verdict spends every second.
    # robots.txt answered (the verdict kept it): it is shown as it answered, the sitemap it
    # lists as not read, and no usual path is made up in its place.
    site.route("/robots.txt", reply(f"Sitemap: {site.url('/s.xml')}\n", content_type="text/plain"))
    site.route("/s.xml", drip(b'<?xml version="1.0"?><urlset>', b" ", 0.2, 20.0))
    started = time.monotonic()
    doc = run(site.url("/"), max_seconds=2)
    assert time.monotonic() - started < 8
    assert doc["stoppedBy"] == "max-seconds" and doc["complete"] is False
    assert doc["robotsTxt"]["httpStatus"] == 200 and doc["robotsTxt"]["sitemapLines"] == 1
    assert [(s["url"], s["source"], s["type"]) for s in doc["sitemaps"]] == [
        (site.url("/s.xml"), "robots", "unfetched")
    ]
    assert [r.path for r in site.seen].count("/robots.txt") == 1
    # Its verdict would speak of candidates it never asked, or asked in part: there is none.
    assert doc["verdict"] == {"status": None, "message": None, "checks": []}


def test_a_verdict_cut_before_a_later_candidate_says_nothing_of_it(site: Site) -> None:
    # It said "none of the 2 candidate sitemaps answered HTTP 2xx", the second never asked.
    robots = f"Sitemap: {site.url('/slow.xml')}\nSitemap: {site.url('/ok.xml')}\n"
    site.route("/robots.txt", reply(robots, content_type="text/plain"))
    site.route("/slow.xml", drip(b'<?xml version="1.0"?><urlset>', b" ", 0.2, 20.0))
    site.route("/ok.xml", reply(urlset_of([f"<loc>{site.url('/a')}</loc>"])))
    doc = run(site.url("/"), max_seconds=2)
    assert doc["verdict"]["status"] is None and doc["stoppedBy"] == "max-seconds"
    assert "/ok.xml" not in {r.path for r in site.seen}


@pytest.fixture
def only_127_0_0_1(monkeypatch: pytest.MonkeyPatch) -> None:
    """Production's address rule, except for the test server's own 127.0.0.1."""
    original = ng.blocked_reason
    monkeypatch.setattr(
        ng, "blocked_reason", lambda a: None if str(a) == "127.0.0.1" else original(a)
    )


@pytest.mark.usefixtures("only_127_0_0_1")
@pytest.mark.parametrize("host", ["169.254.169.254", "169.254.170.2", "[::ffff:a9fe:a9fe]"])
def test_a_child_redirecting_inside_aws_is_refused(site: Site, host: str) -> None:
    _index(site, "/meta.xml")
    site.route("/meta.xml", redirect(f"http://{host}/latest/meta-data/"))
    options = deep.Options(allow_private_networks=False, resolver=local_only)
    doc = validated(deep.audit(site.url("/"), options=options))
    f = kinds_of(doc, site.url("/meta.xml"))["couldnt-fetch"]
    assert "blocked address" in f["message"]
    assert doc["sitemaps"][0]["type"] == "sitemapindex"
    # Listed, never answered: unfetched, for that reason and no limit's.
    meta = doc["sitemaps"][1]
    assert (meta["type"], meta["httpStatus"], meta["findings"]["error"]) == ("unfetched", None, 1)
    assert "limit-reached" not in kinds_of(doc) and doc["complete"] is True
    assert doc["totals"]["fetched"] == 1


@pytest.mark.usefixtures("only_127_0_0_1")
def test_children_refused_or_unanswered_are_unfetched_not_unknown(site: Site) -> None:
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there: the connection is refused
    refused, unanswered = "http://10.1.2.3/s.xml", f"http://127.0.0.1:{port}/s.xml"
    entries = "".join(f"<sitemap><loc>{u}</loc></sitemap>" for u in (refused, unanswered))
    site.route("/robots.txt", reply(f"Sitemap: {site.url('/index.xml')}\n"))
    site.route("/index.xml", reply(f'<sitemapindex xmlns="{SITEMAPS_NS}">{entries}</sitemapindex>'))
    options = deep.Options(allow_private_networks=False, resolver=local_only)
    doc = validated(deep.audit(site.url("/"), options=options))
    by_url = {s["url"]: s for s in doc["sitemaps"]}
    for url in (refused, unanswered):
        assert (by_url[url]["type"], by_url[url]["httpStatus"]) == ("unfetched", None)
        assert "couldnt-fetch" in kinds_of(doc, url)
    assert "blocked address" in kinds_of(doc, refused)["couldnt-fetch"]["message"]
    assert "limit-reached" not in kinds_of(doc) and doc["complete"] is True
    assert doc["totals"]["fetched"] == 1
    text = text_report.render(doc)
    assert "not fetched (a limit was reached)" not in text and "<unfetched> not fetched" in text


def _audit_as(site: Site, credentials: Credentials) -> dict[str, Any]:
    """The deep audit's document of the site, given credentials."""
    options = deep.Options(
        credentials=credentials, allow_private_networks=True, resolver=local_only
    )
    return validated(deep.audit(site.url("/"), options=options))


def test_credentials_go_to_the_origin_only_and_are_never_echoed(
    site: Site, other_site: Site
) -> None:
    secret = "s3cr3t-Pw"
    _index(site, "/own.xml", other_site.url("/away.xml"))
    site.routes["/index.xml"] = reply(
        f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">'
        f"<sitemap><loc>{site.url('/own.xml')}</loc></sitemap>"
        f"<sitemap><loc>{other_site.url('/away.xml')}</loc></sitemap></sitemapindex>"
    )
    echoed = f"<url><loc>http://u:{secret}@127.0.0.1:{site.port}/a</loc></url>"
    site.route("/own.xml", reply(f'<urlset xmlns="{SITEMAPS_NS}">{echoed}</urlset>'))
    other_site.route("/away.xml", reply(f'<urlset xmlns="{SITEMAPS_NS}"></urlset>'))
    doc = _audit_as(site, Credentials("u", secret))
    assert secret not in json.dumps(doc)
    assert doc["totals"]["fetched"] == 3, doc["sitemaps"]
    assert all("authorization" in s.headers for s in site.seen)
    assert other_site.seen and all("authorization" not in s.headers for s in other_site.seen)


def test_a_password_holding_at_and_slash_is_hidden_whole_where_a_site_writes_it(
    site: Site,
) -> None:
    # `http://u:p@ss/w0rd@host/` ends its authority inside the password: the userinfo was
    # stripped first ("u:p@"), and the password's tail was shown in every report.
    secret = "p@ss/w0rd-XYZ"
    echoed = f"<url><loc>http://u:{secret}@127.0.0.1:{site.port}/page</loc></url>"
    # And in a Sitemap: line, whose URL the walk records as read: host `ss`, path `/w0rd-...`.
    listed = f"http://u:{secret}@127.0.0.1:{site.port}/listed.xml"
    site.route("/robots.txt", reply(f"Sitemap: {site.url('/s.xml')}\nSitemap: {listed}\n"))
    site.route("/s.xml", reply(f'<urlset xmlns="{SITEMAPS_NS}">{echoed}</urlset>'))
    doc = _audit_as(site, Credentials("u", secret))
    shown = json.dumps(doc)
    assert doc["findings"] and "w0rd" not in shown and "XYZ" not in shown


def test_no_more_than_four_fetches_at_once_to_one_host(site: Site) -> None:
    paths = [f"/s{i}.xml" for i in range(12)]
    _index(site, *paths)
    lock = threading.Lock()
    now = [0, 0]  # running, most at once
    body = urlset_of([f"<loc>{site.url('/a')}</loc>"])

    def slow(h: BaseHTTPRequestHandler) -> None:
        with lock:
            now[0] += 1
            now[1] = max(now)
        time.sleep(0.2)
        with lock:
            now[0] -= 1
        send(h, 200, body, {"Content-Type": "application/xml"})

    for p in paths:
        site.route(p, slow)
    doc = run(site.url("/"), concurrency=16)
    assert doc["totals"]["fetched"] == 13
    assert 1 < now[1] <= walk.MAX_PER_HOST


@pytest.mark.parametrize(
    "head",
    [
        b"Transfer-Encoding: chunked\r\n",
        b"Content-Length: 9\r\nContent-Length: 12\r\n",
    ],
    ids=["negative-chunk-size", "two-content-lengths"],
)
def test_broken_framing_of_one_child_leaves_the_others_read(site: Site, head: bytes) -> None:
    _index(site, "/broken.xml", "/good.xml")
    framing = b"-10\r\n<urlset/>\r\n0\r\n\r\n" if b"chunked" in head else b"<urlset/>"
    site.route("/broken.xml", raw(b"HTTP/1.1 200 OK\r\n" + head + b"\r\n" + framing))
    site.route("/good.xml", reply(urlset_of([f"<loc>{site.url('/a')}</loc>"])))
    doc = validated(run(site.url("/")))
    assert "couldnt-fetch" in kinds_of(doc, site.url("/broken.xml"))
    good = next(s for s in doc["sitemaps"] if s["url"] == site.url("/good.xml"))
    assert good["type"] == "urlset", good
    assert doc["complete"] is True


def test_a_sitemap_head_is_read_up_to_what_browsers_accept(site: Site) -> None:
    # 90 lines of 60 KB: within http.client's bounds (100 lines of 64 KiB), which the Lambda
    # keeps, but far past the 256 KiB a browser reads of a head.
    body = urlset_of([f"<loc>{site.url('/p')}</loc>"])
    _index(site, "/small-head.xml", "/huge-head.xml")
    site.route("/small-head.xml", raw(with_head(body, 200 * 1024, "application/xml")))
    site.route("/huge-head.xml", raw(with_head(body, 90 * 60_012, "application/xml")))
    doc = run(site.url("/"))
    kinds = {s["url"]: s["type"] for s in doc["sitemaps"]}
    assert kinds[site.url("/small-head.xml")] == "urlset"
    failed = kinds_of(doc, site.url("/huge-head.xml"))["couldnt-fetch"]
    assert "head of more than 256 KiB" in json.dumps(failed), failed


def test_the_quick_check_reads_a_head_as_the_lambda_does(site: Site) -> None:
    # The quick check is the function's own answer: a 300 KB head is read, as the function
    # reads it, and the walk reads that answer as the quick check heard it.
    today = time.strftime("%Y-%m-%d", time.gmtime())
    body = urlset_of([f"<loc>{site.url('/p')}</loc><lastmod>{today}</lastmod>"])
    site.route("/robots.txt", reply(f"Sitemap: {site.url('/s.xml')}\n", content_type="text/plain"))
    site.route("/s.xml", raw(with_head(body, 300 * 1024, "application/xml")))
    doc = run(site.url("/"))
    assert doc["verdict"]["status"] == "SUCCESS", doc["verdict"]
    assert [s["type"] for s in doc["sitemaps"]] == ["urlset"]
