"""A slow DNS answer is bounded by the fetch's deadline too (docs/contract.md §4).

A hostile authoritative name server can answer slowly, and getaddrinfo cannot be interrupted: the
look-up runs in a worker thread that the fetch stops waiting for at its deadline. These tests use
a resolver that stalls (as such a name server makes the system resolver do) for the names
`stall.test`, and answers 127.0.0.1, where the test servers are, for every other name.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from support.documents import urlset
from support.results import LOCAL, codes_of, data_of, days_ago

from harness.servers import Site, redirect, reply
from sitemap_auditor import handler
from sitemap_auditor.core.errors import FetchError
from sitemap_auditor.fetching import guard
from sitemap_auditor.fetching.fetch import Fetcher, FetchPolicy

DEADLINE_S = 1.0
# Generous: the point is seconds, not the resolver's tens of seconds or forever.
SLACK_S = 3.0
TIMEOUT_ISSUE = f"fetch error (timeout: no complete answer within {DEADLINE_S:.3g} s)"


class StallingResolver:
    """Stalls on stall.test until released (a minute at most); every other name is loopback."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.asked: list[str] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.asked.append(host)
        if host.endswith("stall.test"):
            self.release.wait(60)
        return ["127.0.0.1"]


def lookup_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "resolve" and t.is_alive()]


@pytest.fixture
def stalling() -> Iterator[StallingResolver]:
    resolver = StallingResolver()
    yield resolver
    # Let every stuck look-up end, so that no test inherits this one's pending slots.
    resolver.release.set()
    for thread in lookup_threads():
        thread.join(10)


def fetcher(resolver: Any, **policy: Any) -> Fetcher:
    options: dict[str, Any] = {"deadline_s": DEADLINE_S, **policy}
    return Fetcher(
        FetchPolicy(
            origin=("http", "site.test", 80),
            allow_private_networks=True,
            resolver=resolver,
            **options,
        )
    )


def fetch_error(f: Fetcher, url: str) -> tuple[FetchError, float]:
    started = time.monotonic()
    with pytest.raises(FetchError) as caught, f.open(url):
        pass
    return caught.value, time.monotonic() - started


def test_a_stalled_look_up_times_out_at_the_fetch_deadline(
    stalling: StallingResolver, site: Site
) -> None:
    error, seconds = fetch_error(fetcher(stalling), f"http://stall.test:{site.port}/sitemap.xml")
    assert error.kind == "timeout"
    assert error.describe() == TIMEOUT_ISSUE
    assert DEADLINE_S * 0.9 < seconds < DEADLINE_S + SLACK_S
    assert site.seen == []
    # The worker is a daemon thread: a stuck look-up never keeps the process from ending.
    assert lookup_threads() and all(t.daemon for t in lookup_threads())


def test_a_stalled_look_up_stops_at_the_audit_budget(
    stalling: StallingResolver, site: Site
) -> None:
    f = fetcher(stalling, deadline_s=30.0, budget_deadline=time.monotonic() + DEADLINE_S)
    error, seconds = fetch_error(f, f"http://stall.test:{site.port}/sitemap.xml")
    assert error.kind == "timeout"
    assert seconds < DEADLINE_S + SLACK_S


def test_a_stalled_look_up_on_a_redirect_hop_times_out(
    stalling: StallingResolver, site: Site
) -> None:
    site.route("/sitemap.xml", redirect(f"http://stall.test:{site.port}/moved.xml"))
    error, seconds = fetch_error(fetcher(stalling), f"http://site.test:{site.port}/sitemap.xml")
    assert error.kind == "timeout"
    assert seconds < DEADLINE_S + SLACK_S
    assert site.paths() == ["/sitemap.xml"]


def test_resolver_errors_are_still_dns_errors_and_answers_still_checked(site: Site) -> None:
    def refusing(host: str, port: int) -> list[str]:
        raise OSError("no such name")

    def private(host: str, port: int) -> list[str]:
        return ["10.0.0.1"]

    error, _ = fetch_error(fetcher(refusing), f"http://a.test:{site.port}/")
    assert error.kind == "dns"
    production = Fetcher(FetchPolicy(origin=("http", "a.test", 80), resolver=private))
    error, _ = fetch_error(production, f"http://a.test:{site.port}/")
    assert error.kind == "blocked"


def test_pending_look_ups_are_bounded(stalling: StallingResolver, site: Site) -> None:
    """A warm container cannot pile up stuck threads: past the bound, a fetch waits for a slot
    within its own deadline and times out, starting no thread."""
    site.route("/sitemap.xml", reply(urlset([days_ago(1)])))
    stuck = guard.MAX_PENDING_LOOKUPS
    errors: list[str] = []

    def stall_once() -> None:
        try:
            # Long enough for each of them to reach its look-up on a loaded machine: the bound,
            # not the deadline, is what is tested here.
            with fetcher(stalling, deadline_s=2.0).open(f"http://stall.test:{site.port}/"):
                pass
        except FetchError as e:
            errors.append(e.kind)

    workers = [threading.Thread(target=stall_once) for _ in range(stuck)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(10)
    assert errors == ["timeout"] * stuck
    assert len(lookup_threads()) == stuck
    asked = len(stalling.asked)
    # Every slot is held: even a name the resolver would answer at once is not looked up.
    error, seconds = fetch_error(
        fetcher(stalling, deadline_s=0.3), f"http://site.test:{site.port}/sitemap.xml"
    )
    assert error.kind == "timeout" and seconds < 0.3 + SLACK_S
    assert len(stalling.asked) == asked
    assert len(lookup_threads()) == stuck
    # Once the name server answers, the slots come back.
    stalling.release.set()
    for thread in lookup_threads():
        thread.join(10)
    with fetcher(stalling).open(f"http://site.test:{site.port}/sitemap.xml") as response:
        assert response.status == 200


# --- through the handler ------------------------------------------------------------------------


def test_through_the_handler_a_stalled_candidate_costs_its_deadline_and_the_next_is_read(
    stalling: StallingResolver, site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The handler's own policy with a short deadline, so that the test takes seconds, not 30.
    monkeypatch.setattr(
        handler, "FetchPolicy", functools.partial(FetchPolicy, deadline_s=DEADLINE_S)
    )
    stalled = f"http://stall.test:{site.port}/sitemap.xml"
    served = f"http://site.test:{site.port}/sitemap.xml"
    site.route(
        "/robots.txt", reply(f"Sitemap: {stalled}\nSitemap: {served}\n", content_type="text/plain")
    )
    site.route("/sitemap.xml", reply(urlset([days_ago(1)])))
    started = time.monotonic()
    result = handler.run(
        {"id": "dns-stall", "url": f"http://site.test:{site.port}/"}, None, LOCAL, stalling
    )
    seconds = time.monotonic() - started
    assert result["status"] == "SUCCESS"
    assert codes_of(result) == ["100", "200"]
    data = data_of(result)
    assert data["selectedSitemapUrl"] == served
    assert data["issues"] == [f"{stalled}: {TIMEOUT_ISSUE}"]
    assert DEADLINE_S * 0.9 < seconds < DEADLINE_S + SLACK_S


class Context:
    """The Lambda context's remaining time, as the runtime gives it."""

    def __init__(self, millis: int) -> None:
        self.millis = millis
        self.aws_request_id = "dns-budget"

    def get_remaining_time_in_millis(self) -> int:
        return self.millis


def test_through_the_handler_a_stalled_site_name_ends_within_the_lambda_budget(
    stalling: StallingResolver,
) -> None:
    # The budget ends DEADLINE_S after the start (the handler keeps its response margin back).
    millis = int((DEADLINE_S + handler.RESPONSE_MARGIN_S) * 1000)
    started = time.monotonic()
    result = handler.run(
        {"id": "dns-budget", "url": "http://www.stall.test/"}, Context(millis), LOCAL, stalling
    )
    seconds = time.monotonic() - started
    assert seconds < DEADLINE_S + SLACK_S
    assert result["checks"] is not None  # an outcome of the audit, not a defect
    data = data_of(result)
    assert data["robotsTxtHttpStatus"] is None
    assert data["issues"][0].startswith("http://www.stall.test/robots.txt: fetch error (timeout")
