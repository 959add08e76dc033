"""The page check on real HTTP servers on 127.0.0.1: each reason from a page built as real sites
build them, the limits as the server counts them, Retry-After, Crawl-delay, resume after a kill."""

from __future__ import annotations

import csv
import itertools
import json
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from support.cli import SCRIPT, env
from support.deep import urlset_of, with_head

from harness.servers import (
    Site,
    free_port,
    late,
    raw,
    redirect,
    reply,
    send,
    slow_headers,
    stream,
)
from sitemap_auditor.cli import deep as deep_cli
from sitemap_auditor.deep.pages.check import PageOptions, check_pages
from sitemap_auditor.deep.pages.store import PagesFile
from sitemap_auditor.deep.pages.summary import Summary
from sitemap_auditor.fetching.fetch import FetchPolicy

WP_HEAD = """<!DOCTYPE html>
<html lang="en-US">
<head>
<meta charset="UTF-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<meta name='robots' content='{robots}' />
<title>{title} &#8211; Beige Brown</title>
<link rel="canonical" href="{canonical}" />
<meta property="og:type" content="article" />
<meta property="article:modified_time" content="2026-11-02T09:14:11+00:00" />
<link rel='stylesheet' id='wp-block-library-css' href='/wp-includes/css/style.min.css' />
</head>
<body class="page-template-default page">
<div id="page" class="site">{body}</div>
</body>
</html>
"""

SHOPIFY_VARIANT = """<!doctype html>
<html class="no-js" lang="en">
  <head>
    <meta charset="utf-8">
    <meta http-equiv="X-UA-Compatible" content="IE=edge">
    <link rel="canonical" href="https://beigebrown.example/products/linen-shirt">
    <title>Linen shirt - Blue / M &ndash; Beige Brown</title>
    <script>var Shopify = Shopify || {};</script>
  </head>
  <body id="linen-shirt" class="template-product"></body>
</html>
"""


def wp(
    path: str,
    site: Site,
    robots: str = "index, follow, max-image-preview:large",
    title: str = "Linen",
    canonical: str | None = None,
    body: str = "",
) -> bytes:
    html = WP_HEAD.format(
        robots=robots, title=title, canonical=canonical or site.url(path), body=body
    )
    return html.encode()


def html(page: bytes, headers: dict[str, str] | None = None) -> Any:
    return reply(page, content_type="text/html; charset=UTF-8", headers=headers)


@pytest.fixture
def site() -> Iterator[Site]:
    s = Site().start()
    yield s
    s.stop()


def checked(site: Site, paths: list[str], tmp_path: Path, **options: Any) -> tuple[Summary, str]:
    """The page check of the site's paths (options: PageOptions'): its totals and its file."""
    out = str(tmp_path / "pages.jsonl")
    listed = [(site.url(p), site.url("/sitemap.xml"), None) for p in paths]
    policy = FetchPolicy(
        origin=("http", "127.0.0.1", site.port), allow_private_networks=True, deadline_s=2.0
    )
    summary = check_pages(
        lambda: iter(listed), site.url("/robots.txt"), policy, PageOptions(pages_out=out, **options)
    )
    return summary, out


def check(
    site: Site, paths: list[str], tmp_path: Path, **options: Any
) -> dict[str, dict[str, Any]]:
    summary, out = checked(site, paths, tmp_path, **options)
    rows = {r["url"].removeprefix(site.base): r for r in PagesFile.rows(out)}
    assert summary.checked == len(rows)
    return rows


def test_each_reason_from_pages_built_like_real_ones(site: Site, tmp_path: Path) -> None:
    closed = free_port("127.0.0.1")
    site.route("/robots.txt", reply("User-agent: *\nDisallow: /cart\n", content_type="text/plain"))
    site.route("/linen", html(wp("/linen", site)))
    site.route("/hidden", html(wp("/hidden", site, robots="noindex, follow")))
    site.route("/variant", html(SHOPIFY_VARIANT.encode()))
    site.route("/gone", reply(b"gone", 410, "text/html"))
    site.route("/login", reply(b"", 401, "text/html"))
    site.route("/private", reply(b"", 403, "text/html"))
    site.route("/teapot", reply(b"", 418, "text/html"))
    site.route("/broken", reply(b"", 500, "text/html"))
    site.route("/moved", redirect("/linen", 301))
    site.route("/loop", redirect("/loop2"))
    site.route("/loop2", redirect("/loop"))
    site.route("/away", redirect(f"http://127.0.0.1:{closed}/x", 302))
    site.route(
        "/white-paper.pdf",
        reply(
            b"%PDF-1.7",
            content_type="application/pdf",
            headers={
                "X-Robots-Tag": "googlebot: noindex",
                "Link": f'<{site.url("/white-paper")}>; rel="canonical"',
            },
        ),
    )
    site.route(
        "/brochure.pdf",
        reply(
            b"%PDF-1.7",
            content_type="application/pdf",
            headers={"X-Robots-Tag": "otherbot: noindex"},
        ),
    )
    site.route(
        "/doc.pdf",
        reply(
            b"%PDF-1.7",
            content_type="application/pdf",
            headers={"Link": f'<{site.url("/doc")}>; rel="canonical"'},
        ),
    )
    site.route("/missing", html(wp("/missing", site, title="Page not found")))
    site.route("/cart", html(wp("/cart", site)))
    site.route("/never", slow_headers(0.5, 10))
    paths = [
        "/linen",
        "/hidden",
        "/variant",
        "/gone",
        "/login",
        "/private",
        "/teapot",
        "/broken",
        "/moved",
        "/loop",
        "/away",
        "/white-paper.pdf",
        "/brochure.pdf",
        "/doc.pdf",
        "/missing",
        "/cart",
        "/never",
        "/nowhere",
    ]
    rows = check(site, paths, tmp_path, concurrency=4)
    reasons = {p: rows[p]["reason"] for p in paths}
    assert reasons == {
        "/linen": None,
        "/hidden": "page-noindex",
        "/variant": "page-canonicalised",
        "/gone": "page-not-found",
        "/login": "page-unauthorized",
        "/private": "page-forbidden",
        "/teapot": "page-other-4xx",
        "/broken": "page-server-error",
        "/moved": "page-redirect",
        "/loop": "page-redirect-error",
        "/away": "page-unreachable",  # a target that refuses: its hop is listed
        "/white-paper.pdf": "page-noindex",
        "/brochure.pdf": None,
        "/doc.pdf": "page-canonicalised",
        "/missing": "page-soft-404",
        "/cart": "blocked-by-robots",
        "/never": "page-unreachable",
        "/nowhere": "page-not-found",
    }
    assert rows["/hidden"]["noindex"] == "meta" and rows["/white-paper.pdf"]["noindex"] == "header"
    assert rows["/variant"]["canonical"] == "https://beigebrown.example/products/linen-shirt"
    assert rows["/moved"]["redirects"] == [{"status": 301, "location": site.url("/linen")}]
    assert rows["/moved"]["finalUrl"] == site.url("/linen")
    # A loop is told as one once a URL comes again, not after the eleventh hop.
    assert [r["location"] for r in rows["/loop"]["redirects"]] == [
        site.url("/loop2"),
        site.url("/loop"),
    ]
    assert "redirect loop" in rows["/loop"]["error"]
    assert site.paths().count("/loop") == 1
    assert rows["/away"]["redirects"][0]["status"] == 302
    assert "/cart" not in site.paths()  # disallowed: never requested
    assert rows["/linen"]["pageModified"] == "2026-11-02T09:14:11+00:00"
    # Each 500 is asked more than once only if it says to slow down: 500 is not 503.
    assert site.paths().count("/broken") == 1


def _tagged(*lines: str) -> Any:
    """A PDF answered with one X-Robots-Tag header line per value, in that order."""

    def route(h: Any) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/pdf")
        for line in lines:
            h.send_header("X-Robots-Tag", line)
        h.send_header("Content-Length", "8")
        h.end_headers()
        h.wfile.write(b"%PDF-1.7")

    return route


def test_x_robots_tag_lines_are_read_one_by_one(site: Site, tmp_path: Path) -> None:
    # Google reads each X-Robots-Tag line on its own: another bot's prefix on one line says
    # nothing of the next. Joined into one value (as the HTTP library joins them), the
    # prefix would run on into the next line's directives.
    site.route("/a.pdf", _tagged("otherbot: noindex", "noindex"))
    site.route("/b.pdf", _tagged("noindex", "otherbot: noindex"))
    site.route("/c.pdf", _tagged("googlebot: nofollow", "otherbot: noindex"))
    site.route("/d.pdf", _tagged("otherbot: noindex", "googlebot: nofollow"))
    rows = check(site, ["/a.pdf", "/b.pdf", "/c.pdf", "/d.pdf"], tmp_path)
    got = {p: (r["reason"], r["noindex"]) for p, r in rows.items()}
    assert got == {
        "/a.pdf": ("page-noindex", "header"),
        "/b.pdf": ("page-noindex", "header"),
        "/c.pdf": (None, None),
        "/d.pdf": (None, None),
    }


def _locations(*targets: str) -> Any:
    def route(h: BaseHTTPRequestHandler) -> None:
        h.send_response(301)
        for target in targets:
            h.send_header("Location", target)
        h.send_header("Content-Length", "0")
        h.end_headers()

    return route


def test_redirects_search_engines_refuse_are_redirect_errors(site: Site, tmp_path: Path) -> None:
    site.route("/ok", html(wp("/ok", site)))
    site.route("/long", redirect("/" + "x" * 3000, 301))
    site.route("/" + "x" * 3000, html(wp("/ok", site)))
    site.route("/two", _locations("/ok", "/gone"))
    site.route("/again", _locations("/ok", "/ok"))
    rows = check(site, ["/long", "/two", "/again"], tmp_path)
    assert rows["/long"]["reason"] == "page-redirect-error"
    assert "over 2,048 characters" in rows["/long"]["error"]
    assert rows["/two"]["reason"] == "page-redirect-error"
    assert rows["/again"]["reason"] == "page-redirect"
    asked = [s.path for s in site.seen]
    assert not any(p.startswith("/xxx") or p.startswith("/ok,") for p in asked)


@pytest.mark.parametrize(
    ("last", "hops"),
    [("/ok", 10), ("/cart/x", 11), ("http://[::1", 11), ("/ok2", 11)],
    ids=["ten", "eleventh-to-a-disallowed-url", "eleventh-unusable", "eleventh"],
)
def test_the_eleventh_redirect_is_too_many_whatever_it_leads_to(
    site: Site, tmp_path: Path, last: str, hops: int
) -> None:
    # Each hop is a fetch of its own: the 11th was judged by robots.txt or read as a URL
    # first, and gave blocked-by-robots or an invalid URL instead.
    site.route("/robots.txt", reply("User-agent: *\nDisallow: /cart\n", content_type="text/plain"))
    site.route("/ok", html(wp("/ok", site)))
    site.route("/ok2", html(wp("/ok2", site)))
    chain = [f"/h{i}" for i in range(hops)]
    for here, there in zip(chain, [*chain[1:], last], strict=True):
        site.route(here, _locations(there))
    row = check(site, [chain[0]], tmp_path)[chain[0]]
    assert len(row["redirects"]) == hops
    if hops == 10:
        assert row["reason"] == "page-redirect" and row["finalUrl"] == site.url("/ok")
    else:
        assert row["reason"] == "page-redirect-error" and "too many redirects" in row["error"]
    assert "/cart/x" not in site.paths()


def test_early_hints_are_read_past_on_kept_connections(site: Site, tmp_path: Path) -> None:
    page = wp("/hinted", site)
    head = b"HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
    final = f"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {len(page)}\r\n"
    site.route("/hinted", raw(head + final.encode() + b"Connection: close\r\n\r\n" + page))
    rows = check(site, ["/hinted"], tmp_path)
    assert (rows["/hinted"]["status"], rows["/hinted"]["indexable"]) == (200, True)


def test_a_gigabyte_page_is_read_only_to_its_head(site: Site, tmp_path: Path) -> None:
    sent = [0]
    head = wp("/big", site, robots="noindex").split(b"<body")[0]
    site.route(
        "/big",
        stream(
            itertools.chain([head], _counted(b"<p>x</p>" * 8192, 1 << 30, sent)),
            content_type="text/html",
        ),
    )
    rows = check(site, ["/big"], tmp_path)
    assert rows["/big"]["reason"] == "page-noindex"
    assert sent[0] < 64 << 20  # far from the gigabyte the server would have sent


def _counted(chunk: bytes, limit: int, sent: list[int]) -> Iterator[bytes]:
    while sent[0] < limit:
        sent[0] += len(chunk)
        yield chunk


def _timed(site: Site, path: str, log: list[float], gauge: list[int], pause: float = 0.0) -> None:
    lock = threading.Lock()
    body = wp(path, site)

    def route(h: Any) -> None:
        with lock:
            log.append(time.monotonic())
            gauge[0] += 1
            gauge[1] = max(gauge[1], gauge[0])
        time.sleep(pause)
        with lock:
            gauge[0] -= 1
        send(h, 200, body, {"Content-Type": "text/html"})

    site.route(path, route)


def test_concurrency_as_the_server_counts_it(site: Site, tmp_path: Path) -> None:
    log: list[float] = []
    gauge = [0, 0]
    paths = [f"/p{i}" for i in range(24)]
    for p in paths:
        _timed(site, p, log, gauge, pause=0.15)
    rows = check(site, paths, tmp_path, concurrency=3)
    assert all(r["indexable"] for r in rows.values()) and len(rows) == 24
    assert 2 <= gauge[1] <= 3


def test_the_rate_cap_and_crawl_delay_space_requests(site: Site, tmp_path: Path) -> None:
    log: list[float] = []
    gauge = [0, 0]
    paths = [f"/r{i}" for i in range(6)]
    for p in paths:
        _timed(site, p, log, gauge)
    check(site, paths, tmp_path, concurrency=4, rate=10.0)
    assert log[-1] - log[0] >= 5 * 0.1 * 0.9
    log.clear()
    site.route("/robots.txt", reply("User-agent: *\nCrawl-delay: 0.4\n", content_type="text/plain"))
    check(site, paths[:4], tmp_path, concurrency=4)
    assert log[-1] - log[0] >= 3 * 0.4 * 0.9


@pytest.mark.parametrize(
    ("robots", "rate", "checked"),
    [("", 0.5, 2), ("User-agent: *\nCrawl-delay: 60\n", None, 1)],
    ids=["rate", "crawl-delay"],
)
def test_a_paced_check_stops_at_its_deadline(
    site: Site, tmp_path: Path, robots: str, rate: float | None, checked: int
) -> None:
    # Turns 2 s apart (or 60 s): only those before the deadline are taken; the rest are not
    # checked, nor counted as failures, and the run does not wait for the queue to drain.
    log: list[float] = []
    paths = [f"/q{i}" for i in range(40)]
    for p in paths:
        _timed(site, p, log, [0, 0])
    site.route("/robots.txt", reply(robots, content_type="text/plain"))
    out = str(tmp_path / "pages.jsonl")
    listed = [(site.url(p), site.url("/sitemap.xml"), None) for p in paths]
    policy = FetchPolicy(
        origin=("http", "127.0.0.1", site.port), allow_private_networks=True, deadline_s=2.0
    )
    started = time.monotonic()
    summary = check_pages(
        lambda: iter(listed),
        site.url("/robots.txt"),
        policy,
        PageOptions(pages_out=out, concurrency=4, rate=rate, max_seconds=3.0),
    )
    assert time.monotonic() - started < 3.0 + 1.5
    assert summary.stopped_by == "max-seconds" and summary.checked == checked == len(log)
    assert all(r["indexable"] and r["error"] is None for r in PagesFile.rows(out))


def test_retry_after_is_waited_out_then_the_page_is_judged(site: Site, tmp_path: Path) -> None:
    times: list[float] = []
    page = wp("/busy", site)

    def route(h: Any) -> None:
        times.append(time.monotonic())
        if len(times) == 1:
            send(h, 429, b"slow down", {"Retry-After": "1", "Content-Type": "text/plain"})
        else:
            send(h, 200, page, {"Content-Type": "text/html"})

    site.route("/busy", route)
    site.route("/down", reply(b"", 503, "text/html", headers={"Retry-After": "0"}))
    rows = check(site, ["/busy", "/down"], tmp_path)
    assert rows["/busy"]["indexable"] and len(times) == 2 and times[1] - times[0] >= 0.9
    assert rows["/down"]["reason"] == "page-server-error"
    assert site.paths().count("/down") == 3  # retried twice, then a finding


def test_no_request_is_sent_while_a_retry_after_pause_lasts(site: Site, tmp_path: Path) -> None:
    # With --rate, workers had taken turns ahead: those due within the pause were used anyway.
    log: list[tuple[float, str]] = []

    def route(path: str) -> Any:
        page = wp(path, site)

        def answer(h: Any) -> None:
            log.append((time.monotonic(), path))
            if path == "/p0" and sum(p == "/p0" for _, p in log) == 1:
                send(h, 429, b"slow down", {"Retry-After": "1", "Content-Type": "text/plain"})
            else:
                send(h, 200, page, {"Content-Type": "text/html"})

        return answer

    paths = [f"/p{i}" for i in range(6)]
    for p in paths:
        site.route(p, route(p))
    rows = check(site, paths, tmp_path, concurrency=4, rate=8.0)
    assert all(r["indexable"] for r in rows.values())
    paused_at = next(t for t, p in log if p == "/p0")
    within = [p for t, p in log if paused_at < t < paused_at + 1.0]
    assert within == []


def test_a_pause_too_long_to_wait_out_still_pauses_the_site(site: Site, tmp_path: Path) -> None:
    # A Retry-After over 120 s, which the page's answer then stands on, lifted the pause: the
    # other pages all went at once, less politely than for a shorter wait.
    site.route("/p0", reply(b"", 429, "text/plain", headers={"Retry-After": "99999"}))
    paths = ["/p0", *(f"/p{i}" for i in range(1, 20))]
    for p in paths[1:]:
        site.route(p, html(wp(p, site)))
    summary, out = checked(site, paths, tmp_path, concurrency=1, max_seconds=2.0)
    assert [p for p in site.paths() if p != "/robots.txt"] == ["/p0"]
    rows = list(PagesFile.rows(out))
    assert [(r["url"], r["reason"]) for r in rows] == [(site.url("/p0"), "page-rate-limited")]
    assert summary.stopped_by == "max-seconds"


def test_a_third_429_still_pauses_the_site(site: Site, tmp_path: Path) -> None:
    # The third 429 stands as the answer; the wait it asked for is kept all the same.
    log: list[tuple[float, str]] = []

    def answer(path: str, status: int) -> Any:
        page = wp(path, site)

        def route(h: Any) -> None:
            log.append((time.monotonic(), path))
            if status == 429:
                send(h, 429, b"slow down", {"Retry-After": "1", "Content-Type": "text/plain"})
            else:
                send(h, 200, page, {"Content-Type": "text/html"})

        return route

    site.route("/busy", answer("/busy", 429))
    site.route("/next", answer("/next", 200))
    rows = check(site, ["/busy", "/next"], tmp_path, concurrency=1)
    assert rows["/busy"]["reason"] == "page-rate-limited" and rows["/next"]["indexable"]
    assert [p for _, p in log] == ["/busy"] * 3 + ["/next"]
    assert log[3][0] - log[2][0] >= 0.9


def test_each_redirect_hop_waits_for_its_turn(site: Site, tmp_path: Path) -> None:
    # Only a page's first request was paced: the hops of a redirect chain went at once.
    log: list[float] = []
    site.route("/robots.txt", reply("User-agent: *\nCrawl-delay: 0.3\n", content_type="text/plain"))
    site.route("/r", redirect(site.url("/a")))
    site.route("/a", redirect(site.url("/b")))
    _timed(site, "/b", log, [0, 0])

    def hop(path: str) -> None:
        inner = site.routes[path]

        def answer(h: Any) -> None:
            log.append(time.monotonic())
            inner(h)

        site.route(path, answer)

    hop("/r")
    hop("/a")
    rows = check(site, ["/r"], tmp_path)
    assert rows["/r"]["reason"] == "page-redirect" and len(rows["/r"]["redirects"]) == 2
    assert len(log) == 3 and all(b - a >= 0.3 * 0.9 for a, b in itertools.pairwise(log))


def test_the_hops_of_a_redirect_share_the_page_deadline(site: Site, tmp_path: Path) -> None:
    # Each hop had a deadline of its own: a chain of slow redirects held a page for ten of them.
    # Here five hops of 0.6 s each pass the page's 2 s (checked's policy), each within it alone.
    def slow_redirect(location: str) -> Any:
        inner = redirect(location)

        def answer(h: Any) -> None:
            time.sleep(0.6)
            inner(h)

        return answer

    for n in range(5):
        site.route(f"/r{n}", slow_redirect(f"/r{n + 1}"))
    site.route("/r5", html(wp("/r5", site)))
    row = check(site, ["/r0"], tmp_path)["/r0"]
    assert row["reason"] == "page-unreachable" and "within 2 s" in row["error"]
    assert 3 <= len(row["redirects"]) <= 4


def test_reading_the_targets_robots_txt_is_not_the_pages_time(
    site: Site, other_site: Site, tmp_path: Path
) -> None:
    # The 1.6 s another origin's robots.txt took, read before its hop, was counted against the
    # page's 2 s, and the page, which answers in 0.6 s, was a timeout.
    site.route("/moved", redirect(other_site.url("/target"), 301))
    other_site.route("/robots.txt", late("User-agent: *\nAllow: /\n", 1.6))

    def slow_page(h: Any) -> None:
        time.sleep(0.6)
        html(wp("/target", other_site))(h)

    other_site.route("/target", slow_page)
    row = check(site, ["/moved"], tmp_path)["/moved"]
    assert "/robots.txt" in other_site.paths() and row["error"] is None, row["error"]
    assert row["reason"] == "page-redirect"


def test_a_retry_whose_turn_comes_past_the_deadline_leaves_the_page_unchecked(
    site: Site, tmp_path: Path
) -> None:
    # The 429 was kept as the page's lasting answer, "even after the waits it asked for", and
    # the run said it was complete, though no wait happened.
    site.route("/p", reply(b"", 429, "text/plain", headers={"Retry-After": "100"}))
    summary, out = checked(site, ["/p"], tmp_path, max_seconds=2.0)
    assert summary.stopped_by == "max-seconds" and summary.checked == 0
    assert list(PagesFile.rows(out)) == []


@pytest.mark.parametrize(
    ("agent", "delay"),
    [
        ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", 0.5),
        ("Mozilla/5.0 (compatible; AgencyAudit/1.0)", 0.25),
        ("Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0", 0.75),
    ],
)
def test_crawl_delay_is_the_group_of_the_product_the_user_agent_names(
    site: Site, tmp_path: Path, agent: str, delay: float
) -> None:
    # A Googlebot product was read as the User-Agent's first word (`mozilla`): no delay.
    site.route(
        "/robots.txt",
        reply(
            "User-agent: Googlebot\nCrawl-delay: 0.5\n\n"
            "User-agent: AgencyAudit\nCrawl-delay: 0.25\n\n"
            "User-agent: *\nCrawl-delay: 0.75\n",
            content_type="text/plain",
        ),
    )
    site.route("/p", html(wp("/p", site)))
    summary, _ = checked(site, ["/p"], tmp_path, user_agent=agent)
    assert summary.crawl_delay == delay


def test_resume_after_a_kill_checks_only_what_is_left(site: Site, tmp_path: Path) -> None:
    log: list[float] = []
    gauge = [0, 0]
    paths = [f"/k{i}" for i in range(30)]
    for p in paths:
        _timed(site, p, log, gauge, pause=0.1)
    site.route(
        "/robots.txt", reply(f"Sitemap: {site.url('/sitemap.xml')}\n", content_type="text/plain")
    )
    site.route("/sitemap.xml", reply(urlset_of(f"<loc>{site.url(p)}</loc>" for p in paths)))
    out = tmp_path / "pages.jsonl"
    assert SCRIPT is not None
    argv = [
        SCRIPT,
        "deep",
        site.base + "/",
        "--pages",
        "--pages-out",
        str(out),
        "--allow-private-networks",
        "--concurrency",
        "1",
        "--json",
    ]
    first = subprocess.Popen(argv, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while (not out.exists() or out.read_text().count("\n") < 5) and time.monotonic() < deadline:
        time.sleep(0.05)
    first.send_signal(signal.SIGKILL)
    first.wait()
    before = [r["url"] for r in PagesFile.rows(str(out))]
    assert 5 <= len(before) < 30
    done = subprocess.run([*argv, "--resume"], env=env(), capture_output=True, timeout=60)
    doc = json.loads(done.stdout)
    urls = [r["url"] for r in PagesFile.rows(str(out))]
    assert sorted(urls) == sorted(site.url(p) for p in paths)  # each once
    assert doc["pages"]["checked"] == 30 and doc["pages"]["indexable"] == 30
    page_requests = sum(1 for p in site.paths() if p.startswith("/k"))
    assert page_requests <= 30 + 1  # at most the one in flight at the kill asked twice


def test_the_command_writes_pages_csv_and_the_documents_pages_key(
    site: Site, tmp_path: Path
) -> None:
    site.route(
        "/robots.txt", reply(f"Sitemap: {site.url('/sitemap.xml')}\n", content_type="text/plain")
    )
    site.route("/linen", html(wp("/linen", site)))
    site.route("/moved", redirect("/linen", 308))
    listed = [f"<loc>{site.url(p)}</loc>" for p in ("/linen", "/moved", "/gone", "/linen")]
    site.route("/sitemap.xml", reply(urlset_of(listed)))
    assert SCRIPT is not None
    argv = [
        SCRIPT,
        "deep",
        site.base + "/",
        "--pages",
        "--csv",
        str(tmp_path),
        "--allow-private-networks",
        "--json",
    ]
    done = subprocess.run(argv, env=env(), capture_output=True, timeout=60)
    pages = json.loads(done.stdout)["pages"]
    assert (pages["checked"], pages["indexable"]) == (3, 1)  # the repeated URL checked once
    assert pages["byReason"] == {"page-not-found": 1, "page-redirect": 1}
    assert [f["title"] for f in pages["findings"]] == ["Not found (404)", "Page with redirect"]
    with (tmp_path / "pages.csv").open(encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    assert sorted((r["url"], r["reason"]) for r in rows) == sorted(
        [
            (site.url("/linen"), ""),
            (site.url("/moved"), "page-redirect"),
            (site.url("/gone"), "page-not-found"),
        ]
    )
    by_url = {r["url"]: r for r in rows}
    assert by_url[site.url("/moved")]["redirects"] == f"308 {site.url('/linen')}"
    assert by_url[site.url("/linen")]["indexable"] == "true"


def test_the_audit_s_headers_reach_every_page_request(site: Site, tmp_path: Path) -> None:
    # --header and --user-agent are the whole audit's: the page check's policy keeps them.
    from sitemap_auditor.core.request_headers import ExtraHeaders

    site.route("/robots.txt", reply("User-agent: *\nAllow: /\n", content_type="text/plain"))
    site.route("/a", reply("<html><head><title>A</title></head></html>", content_type="text/html"))
    policy = FetchPolicy(
        origin=("http", "127.0.0.1", site.port),
        allow_private_networks=True,
        deadline_s=2.0,
        extra_headers=ExtraHeaders.of([("X-Audit", "yes")]),
    )
    listed = [(site.url("/a"), site.url("/sitemap.xml"), None)]
    out = str(tmp_path / "pages.jsonl")
    check_pages(lambda: iter(listed), site.url("/robots.txt"), policy, PageOptions(pages_out=out))
    asked = {s.path: s.headers.get("x-audit") for s in site.seen}
    assert asked == {"/robots.txt": "yes", "/a": "yes"}


@pytest.mark.parametrize(
    ("pages", "status", "worst"),
    [
        ({"/linen": None}, 0, None),
        ({"/dated": "2026-01-01"}, 0, "lastmod-mismatch"),  # a notice
        ({"/linen": None, "/moved": None}, 1, "page-redirect"),  # a warning
        ({"/linen": None, "/moved": None, "/gone": None}, 2, "page-not-found"),  # an error
    ],
    ids=["indexable", "notice", "warning", "error"],
)
def test_page_findings_count_in_the_exit_status(
    site: Site,
    capsys: pytest.CaptureFixture[str],
    pages: dict[str, str | None],
    status: int,
    worst: str | None,
) -> None:
    # The sitemap itself is clean (no finding of the walk's): whatever the status says, the
    # pages said it.
    site.route(
        "/robots.txt", reply(f"Sitemap: {site.url('/sitemap.xml')}\n", content_type="text/plain")
    )
    entries = [
        f"<loc>{site.url(p)}</loc>" + (f"<lastmod>{lm}</lastmod>" if lm else "")
        for p, lm in pages.items()
    ]
    site.route("/sitemap.xml", reply(urlset_of(entries)))
    site.route("/linen", html(wp("/linen", site)))
    site.route("/dated", html(wp("/dated", site)))  # modified 2026-11-02, listed as of January
    site.route("/moved", redirect("/linen", 301))
    argv = ["--allow-private-networks", "--pages", "--json", site.base + "/"]
    got = deep_cli.main(argv)
    doc = json.loads(capsys.readouterr().out)
    assert doc["findings"] == []
    kinds = [f["kind"] for f in doc["pages"]["findings"]]
    assert (kinds[0] if kinds else None) == worst
    assert got == status


def test_a_page_head_is_read_up_to_what_browsers_accept(site: Site, tmp_path: Path) -> None:
    # Chromium refuses an answer whose head is over 256 KiB; http.client alone would read 100
    # lines of 64 KiB (6 MiB, about 50 MB of memory once parsed) for each page at once.
    page = wp("/p", site)
    site.route("/under", raw(with_head(page, 250 * 1024, "text/html", "X-Robots-Tag: noindex\r\n")))
    site.route("/over", raw(with_head(page, 90 * 60_012, "text/html", "X-Robots-Tag: noindex\r\n")))
    rows = check(site, ["/under", "/over"], tmp_path)
    assert rows["/under"]["reason"] == "page-noindex"
    assert rows["/over"]["status"] is None
    assert "head of more than 256 KiB" in rows["/over"]["error"], rows["/over"]
