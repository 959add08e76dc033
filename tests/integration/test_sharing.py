"""Audits of one site share one fetch (docs/contract.md §7), against real servers.

The sites are loopback servers that count what they are asked and can answer 304, ignore
validators, stall or fail; the shared store is DynamoDB as moto's server and as dynalite on
127.0.0.1 (every test of the table runs against both), reached by the function's own boto3
through AWS_ENDPOINT_URL_DYNAMODB; "containers" are processes.
"""

from __future__ import annotations

import base64
import functools
import json
import math
import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import replace
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from support.aws import moto_server
from support.documents import gz, urlset
from support.faults import unresolved
from support.results import LOCAL, LogCapture, codes_of, data_of, days_ago
from support.tables import dynamodb

from harness import moto_atomic
from harness.containers import Container
from harness.environments import aws_environment, container_environment
from harness.servers import LoopbackService, Site, reply, robots_with, send
from sitemap_auditor import handler
from sitemap_auditor.audit.config import Settings
from sitemap_auditor.core.errors import InvalidItemError, StoreError
from sitemap_auditor.core.issues import Kind, issue
from sitemap_auditor.fetching.fetch import REQUEST_DEADLINE_S, FetchPolicy
from sitemap_auditor.sharing import dynamostore, lease
from sitemap_auditor.sharing.driver import STANDBY_SUFFIX

FRESH = days_ago(1)
SHARED = replace(LOCAL, share_seconds=60)
# Times of a fetch (the 30 s deadline of a request, how long an audit without a budget waits) as
# the command line's tests scale them: 1/60, so that 120 s of a site that never answers is 2 s.
SCALE = 1 / 60


def without_date(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "date"}


def count(site: Site, path: str) -> int:
    return sum(1 for p in site.paths() if p == path)


def slow(route: Callable[[BaseHTTPRequestHandler], None], seconds: float) -> Any:
    """A route that answers after a pause, so that audits pile up while it is in flight."""

    def answer(h: BaseHTTPRequestHandler) -> None:
        time.sleep(seconds)
        route(h)

    return answer


def with_validators(
    body: bytes, etag: str | None = '"v1"', last_modified: str | None = None, honour: bool = True
) -> Any:
    """A route that sends validators and answers 304 to a matching conditional request."""

    def answer(h: BaseHTTPRequestHandler) -> None:
        headers = {"Content-Type": "application/xml"}
        if etag is not None:
            headers["ETag"] = etag
        if last_modified is not None:
            headers["Last-Modified"] = last_modified
        matches = (etag is not None and h.headers.get("If-None-Match") == etag) or (
            last_modified is not None and h.headers.get("If-Modified-Since") == last_modified
        )
        if honour and matches:
            h.send_response(304)
            for k, v in headers.items():
                if k != "Content-Type":
                    h.send_header(k, v)
            h.send_header("Content-Length", "0")
            h.end_headers()
            return
        send(h, 200, body, headers)

    return answer


@pytest.fixture(autouse=True)
def fresh_store() -> Iterator[None]:
    handler.SHARING.local.clear()
    yield
    handler.SHARING.local.clear()


def a_site(site: Site, delay: float = 0.0) -> None:
    site.route("/robots.txt", robots_with(f"Sitemap: {site.url('/sitemap.xml')}"))
    route = reply(urlset([FRESH, days_ago(3)]))
    site.route("/sitemap.xml", slow(route, delay) if delay else route)


def run(url: str, settings: Settings = SHARED, **event: Any) -> dict[str, Any]:
    return handler.run({"id": "share-test", "url": url, **event}, None, settings)


# --- within one process -----------------------------------------------------------------------


def test_audits_of_pages_of_one_site_fetch_it_once(site: Site) -> None:
    a_site(site)
    first = run(site.url("/a"))
    second = run(site.url("/b?x=1"))
    assert count(site, "/robots.txt") == 1 and count(site, "/sitemap.xml") == 1
    assert without_date(first) == without_date(second)
    assert codes_of(second) == ["100", "200"]


def test_a_shared_result_equals_a_fresh_audit(site: Site) -> None:
    a_site(site)
    site.route("/sitemap.xml", reply(urlset([FRESH, "2026-13-01", "nope"])))
    run(site.url("/warm"))
    shared = run(site.url("/page"), preferences={"maxAgeDays": "x"})
    fresh = run(site.url("/page"), settings=LOCAL, preferences={"maxAgeDays": "x"})
    assert count(site, "/sitemap.xml") == 2
    assert without_date(shared) == without_date(fresh)
    # Each audit applies its own window to the shared facts.
    wide = run(site.url("/page"), preferences={"maxAgeDays": 1000})
    assert data_of(wide)["maxAgeDays"] == 1000 and count(site, "/sitemap.xml") == 2


def test_simultaneous_audits_in_one_process_wait_for_one_fetch(site: Site) -> None:
    a_site(site, delay=1.0)
    results: list[dict[str, Any]] = [{}] * 25
    barrier = threading.Barrier(25)

    def one(i: int) -> None:
        barrier.wait()
        results[i] = run(site.url(f"/page/{i}"))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(25)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert count(site, "/robots.txt") == 1 and count(site, "/sitemap.xml") == 1
    fresh = without_date(run(site.url("/"), settings=LOCAL))
    assert all(without_date(r) == fresh for r in results)


def test_sharing_off_fetches_every_time(site: Site) -> None:
    a_site(site)
    for i in range(3):
        run(site.url(f"/p{i}"), settings=replace(LOCAL, share_seconds=0))
    assert count(site, "/robots.txt") == 3 and count(site, "/sitemap.xml") == 3


def test_other_sites_and_schemes_do_not_share(site: Site, other_site: Site) -> None:
    a_site(site)
    a_site(other_site)
    run(site.url("/"))
    run(other_site.url("/"))
    assert count(site, "/sitemap.xml") == 1 and count(other_site, "/sitemap.xml") == 1


def test_after_the_window_the_site_is_revalidated_with_a_304(
    site: Site, logs: LogCapture, capsys: pytest.CaptureFixture[str]
) -> None:
    body = urlset([FRESH])
    site.route(
        "/robots.txt",
        with_validators(
            f"Sitemap: {site.url('/sitemap.xml')}\n".encode(), etag=None, last_modified="x-date"
        ),
    )
    site.route("/sitemap.xml", with_validators(body, etag='"abc"'))
    quick = replace(LOCAL, share_seconds=1)
    first = run(site.url("/a"), settings=quick)
    time.sleep(1.2)
    second = run(site.url("/b"), settings=quick)
    assert without_date(first) == without_date(second)
    conditional = [s for s in site.seen if s.path == "/sitemap.xml"][-1]
    assert conditional.headers.get("if-none-match") == '"abc"'
    robots_again = [s for s in site.seen if s.path == "/robots.txt"][-1]
    assert robots_again.headers.get("if-modified-since") == "x-date"
    finished = [x for x in logs.lines() if x.get("message") == "audit finished"]
    assert finished[-1]["facts_source"] == "fetched"
    assert finished[-1]["revalidated"] == 2
    assert finished[-1]["bytes_saved"] >= len(body)
    printed = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    emf = [x for x in printed if "_aws" in x][-1]
    assert emf["FactsRevalidated"] == [2.0]


def test_a_site_that_ignores_validators_is_fetched_in_full(site: Site) -> None:
    site.route("/robots.txt", robots_with(f"Sitemap: {site.url('/sitemap.xml')}"))
    site.route("/sitemap.xml", with_validators(urlset([FRESH]), honour=False))
    quick = replace(LOCAL, share_seconds=1)
    first = run(site.url("/a"), settings=quick)
    time.sleep(1.2)
    site.route("/sitemap.xml", with_validators(urlset([days_ago(30)]), honour=False))
    second = run(site.url("/b"), settings=quick)
    assert codes_of(first) == ["100", "200"] and codes_of(second) == ["100", "300"]


def test_a_304_without_validators_sent_is_no_sitemap(site: Site) -> None:
    site.route("/robots.txt", robots_with(f"Sitemap: {site.url('/sitemap.xml')}"))
    site.route("/sitemap.xml", reply(b"", status=304))
    result = run(site.url("/"))
    assert codes_of(result) == ["100", "400"]
    assert f"{site.url('/sitemap.xml')}: HTTP 304" in data_of(result)["issues"]


def basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def test_two_credential_sets_never_share(site: Site) -> None:
    a_site(site)
    alice: dict[str, Any] = {"basicAuth": {"username": "alice", "password": "wonderland-1"}}
    bob: dict[str, Any] = {"basicAuth": {"username": "bob", "password": "builder-22"}}
    run(site.url("/1"), **alice)
    run(site.url("/2"), **bob)
    run(site.url("/3"))
    assert count(site, "/sitemap.xml") == 3
    run(site.url("/4"), **alice)
    run(site.url("/5"), **bob)
    assert count(site, "/sitemap.xml") == 3
    auths = [s.headers.get("authorization") for s in site.seen if s.path == "/sitemap.xml"]
    assert auths == [basic("alice", "wonderland-1"), basic("bob", "builder-22"), None]


def test_facts_cut_by_the_time_budget_are_not_shared(site: Site) -> None:
    class Context:
        aws_request_id = "r"

        def __init__(self) -> None:
            self.end = time.monotonic() + 4.5

        def get_remaining_time_in_millis(self) -> int:
            return int((self.end - time.monotonic()) * 1000)

    a_site(site, delay=3.0)
    cut = handler.run({"url": site.url("/")}, Context(), SHARED)
    assert codes_of(cut) == ["100", "400"]
    a_site(site)
    whole = run(site.url("/"))
    assert codes_of(whole) == ["100", "200"]
    assert count(site, "/sitemap.xml") == 2


class Silent:
    """A server on 127.0.0.1 that accepts every connection and never answers a byte."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.accepted = 0
        self._held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}{path}"

    def _accept(self) -> None:
        with suppress(OSError):
            while True:
                conn, _ = self.sock.accept()
                self.accepted += 1
                self._held.append(conn)

    def stop(self) -> None:
        with suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)  # wakes the accept() that waits
        self.sock.close()
        self._thread.join(5)
        for conn in self._held:
            conn.close()


@pytest.fixture
def silent() -> Iterator[Silent]:
    server = Silent()
    yield server
    server.stop()


@pytest.fixture
def command_line(monkeypatch: pytest.MonkeyPatch) -> Callable[..., float]:
    """The command line in this process (its pool of audit threads, the handler's process
    store), with every time of a fetch scaled down by the same factor: the test takes seconds."""
    import logging

    from sitemap_auditor.audit import observability
    from sitemap_auditor.cli import main as cli
    from sitemap_auditor.sharing import driver as sharing

    monkeypatch.delenv("SITEMAP_CACHE_TABLE", raising=False)
    monkeypatch.delenv("SITEMAP_SHARE_SECONDS", raising=False)  # the default window: 60 s
    monkeypatch.setattr(
        handler,
        "FetchPolicy",
        functools.partial(FetchPolicy, deadline_s=REQUEST_DEADLINE_S * SCALE),
    )
    for name in ("DEFAULT_MAX_WAIT_S", "LOCAL_MAX_WAIT_S"):
        monkeypatch.setattr(sharing, name, getattr(sharing, name) * SCALE)

    def run(*args: str) -> float:
        stream = observability.logger.registered_handler
        assert isinstance(stream, logging.StreamHandler)
        level, previous = observability.logger.log_level, stream.stream
        metrics_were_on = observability.emit_metrics(True)
        started = time.monotonic()
        try:
            assert cli.main(["--json", "--allow-private-networks", *args]) in (0, 1, 2)
            return time.monotonic() - started
        finally:
            # The command line quietens the process's logs and metrics for itself: put them back.
            observability.emit_metrics(metrics_were_on)
            observability.logger.setLevel(level)
            stream.setStream(previous)

    return run


def test_two_pages_of_a_site_that_never_answers_take_no_longer_than_without_sharing(
    silent: Silent, command_line: Callable[..., float], capsys: pytest.CaptureFixture[str]
) -> None:
    pages = [silent.url("/a"), silent.url("/b")]
    # robots.txt and the three usual paths, each to its deadline: 120 s, here 2 s.
    fetch_s = 4 * REQUEST_DEADLINE_S * SCALE
    off = command_line("--no-share", "--jobs", "2", *pages)
    assert silent.accepted == 8
    handler.SHARING.local.clear()
    on = command_line("--jobs", "2", *pages)
    # One fetch for both pages: the second audit waited for the first's, to its end, and took
    # its answers (the timeouts are answers about the site, given to the audits that waited).
    assert silent.accepted == 8 + 4
    # Sharing on took as long as off (before: 4 s against 2 s, so 240 s against 120 s).
    assert fetch_s * 0.9 < off < fetch_s * 1.5
    assert on < fetch_s * 1.5 and on < off + fetch_s / 2
    printed = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    results = [without_date(x["result"]) for x in printed]
    assert len(results) == 4 and all(r == results[0] for r in results)
    assert codes_of(printed[0]["result"]) == ["100", "400"]


# --- across processes, through DynamoDB -------------------------------------------------------


@pytest.mark.slow
def test_100_audits_from_4_containers_fetch_the_site_once(
    dynamo: str, table: str, site: Site
) -> None:
    a_site(site, delay=1.5)
    env = container_environment(dynamo, table)
    start_at = time.time() + 6
    containers = [
        Container(
            env,
            {
                "urls": [site.url(f"/c{c}/page-{i}") for i in range(25)],
                "threads": 25,
                "start_at": start_at,
                "budget_ms": 60_000,
            },
        )
        for c in range(4)
    ]
    answers = [a for c in containers for a in c.answers()]
    assert len(answers) == 100
    assert count(site, "/robots.txt") == 1 and count(site, "/sitemap.xml") == 1
    fresh = without_date(run(site.url("/"), settings=LOCAL))
    for a in answers:
        assert without_date(a["result"]) == fresh


@pytest.mark.slow
def test_the_lease_holder_killed_mid_fetch_is_taken_over(
    dynamo: str, table: str, site: Site
) -> None:
    release = threading.Event()
    body = urlset([FRESH])

    def stalled(h: BaseHTTPRequestHandler) -> None:
        # The first request hangs until its process is dead; the next ones are answered.
        if count(site, "/sitemap.xml") == 1:
            release.wait(60)
            return
        send(h, 200, body, {"Content-Type": "application/xml"})

    site.route("/robots.txt", robots_with(f"Sitemap: {site.url('/sitemap.xml')}"))
    site.route("/sitemap.xml", stalled)
    env = container_environment(dynamo, table)
    holder = Container(env, {"urls": [site.url("/holder")], "budget_ms": 100_000})
    deadline = time.monotonic() + 30
    while count(site, "/sitemap.xml") < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert count(site, "/sitemap.xml") == 1
    budget_ms = 60_000
    waiters = [
        Container(
            env,
            {
                "urls": [site.url(f"/w{i}/{j}") for j in range(5)],
                "threads": 5,
                "budget_ms": budget_ms,
            },
        )
        for i in range(2)
    ]
    for w in waiters:
        assert w.ready.wait(30)
    time.sleep(1.0)  # the waiters are polling the holder's lease now
    holder.kill()
    release.set()
    answers = [a for w in waiters for a in w.answers()]
    assert len(answers) == 10
    for a in answers:
        assert codes_of(a["result"]) == ["100", "200"]
        assert a["seconds"] < budget_ms / 1000
    # The stalled request, then one take-over fetch for all ten.
    assert count(site, "/sitemap.xml") == 2


@pytest.mark.slow
def test_an_unreachable_table_costs_no_result(moto: str, site: Site) -> None:
    a_site(site)
    # A port where nothing listens: every store call fails fast, like a stopped moto.
    env = container_environment("http://127.0.0.1:9", "no-such-table")
    worker = Container(env, {"urls": [site.url(f"/p{i}") for i in range(4)], "threads": 1})
    answers = worker.answers()
    fresh = without_date(run(site.url("/"), settings=LOCAL))
    assert [without_date(a["result"]) for a in answers] == [fresh] * 4
    errors = [x for x in worker.logs() if x.get("message") == "store error"]
    assert errors and all(x["run_id"].startswith("run-") for x in errors)
    # The process still shares within itself.
    assert count(site, "/sitemap.xml") == 2  # one for the workers, one for the fresh audit


@pytest.mark.slow
def test_a_table_that_stops_answering_mid_run_costs_no_result(site: Site) -> None:
    a_site(site)
    with moto_server() as endpoint:
        env = container_environment(endpoint, moto_atomic.new_facts_table(dynamodb(endpoint)))
        first = Container(env, {"urls": [site.url("/1")]}).answers()
    # moto is stopped now: a new container finds the table unreachable.
    again = Container(env, {"urls": [site.url("/2")]}).answers()
    assert codes_of(first[0]["result"]) == codes_of(again[0]["result"]) == ["100", "200"]
    assert without_date(first[0]["result"]) == without_date(again[0]["result"])


@pytest.mark.slow
def test_a_second_container_after_the_window_revalidates(
    dynamo: str, table: str, site: Site
) -> None:
    body = urlset([FRESH])
    site.route("/robots.txt", robots_with(f"Sitemap: {site.url('/sitemap.xml')}"))
    site.route("/sitemap.xml", with_validators(gz(body), etag='W/"gz-1"'))
    env = container_environment(dynamo, table, SITEMAP_SHARE_SECONDS="1")
    first = Container(env, {"urls": [site.url("/a")]}).answers()
    time.sleep(1.2)
    second = Container(env, {"urls": [site.url("/b")]}).answers()
    assert without_date(first[0]["result"]) == without_date(second[0]["result"])
    last = [s for s in site.seen if s.path == "/sitemap.xml"][-1]
    assert last.headers.get("if-none-match") == 'W/"gz-1"'


@pytest.mark.slow
def test_no_credential_reaches_the_table(moto: str, dynamo: str, table: str, site: Site) -> None:
    from support.aws import secrets_client

    key_id = secrets_client(moto).create_secret(
        Name=f"cache-key-{time.monotonic_ns()}", SecretString="k" * 64
    )["ARN"]
    password = "s3cr3t-pässword/+="
    # The site echoes the password into a Sitemap: URL for one user and not for the other.
    site.route(
        "/robots.txt",
        robots_with(f"Sitemap: {site.url('/sitemap.xml')}"),
    )
    site.route("/sitemap.xml", reply(urlset([FRESH])))
    env = container_environment(dynamo, table, moto, SITEMAP_CACHE_KEY_SECRET=key_id)
    events = [
        {"basicAuth": {"username": "alice", "password": password}},
        {"basicAuth": {"username": "bob", "password": "another-password"}},
    ]
    for event in events:
        for _ in range(2):
            Container(env, {"urls": [site.url("/x")], "event": event}).answers()
    # Each credential set fetched once, across containers, and never shared with the other.
    assert count(site, "/sitemap.xml") == 2
    items = dynamodb(dynamo).scan(TableName=table)["Items"]
    assert len(items) == 2
    dumped = json.dumps(items, default=str)
    raw = b"".join(
        # The facts attribute: their length (4 bytes), then zlib.
        __import__("zlib").decompress(i["facts"]["B"][4:])
        for i in items
        if "facts" in i
    ).decode("utf-8", "replace")
    from urllib.parse import quote, quote_plus

    for secret in ("another-password", password, quote(password, safe=""), quote_plus(password)):
        for text in (dumped, raw):
            assert secret not in text
    for header in (basic("alice", password), basic("bob", "another-password")):
        assert header[6:] not in dumped and header[6:] not in raw


def test_facts_that_echo_a_credential_stay_in_the_process(
    local_aws: str, moto: str, table: str, site: Site
) -> None:
    from support.aws import secrets_client

    key_id = secrets_client(moto).create_secret(
        Name=f"cache-key-{time.monotonic_ns()}", SecretString="q" * 64
    )["ARN"]
    password = "echo-me-please"
    site.route("/robots.txt", robots_with(f"Sitemap: {site.url('/sitemap.xml')}?p={password}"))
    site.route(f"/sitemap.xml?p={password}", reply(urlset([FRESH])))
    settings = replace(SHARED, cache_table=table, cache_key_secret=key_id)
    event = {"basicAuth": {"username": "u", "password": password}}
    first = run(site.url("/1"), settings=settings, **event)
    second = run(site.url("/2"), settings=settings, **event)
    assert without_date(first) == without_date(second)
    assert password not in json.dumps(first)
    assert count(site, f"/sitemap.xml?p={password}") == 1
    items = dynamodb(local_aws).scan(TableName=table)["Items"]
    assert all("facts" not in i for i in items)
    assert password not in json.dumps(items, default=str)


@pytest.mark.parametrize("echo", ["cut-prefix", "unpadded-token"])
def test_facts_that_echo_a_credential_in_part_or_another_spelling_stay_in_the_process(
    local_aws: str, moto: str, table: str, site: Site, echo: str
) -> None:
    from support.aws import secrets_client

    key_id = secrets_client(moto).create_secret(
        Name=f"cache-key-{time.monotonic_ns()}", SecretString="q" * 64
    )["ARN"]
    password = "Zq7mKx2PvW9tRb4nLc8x"  # "u:" + it: 22 bytes, a Base64 token with "=="
    token = base64.b64encode(f"u:{password}".encode()).decode()
    assert token.endswith("==")
    if echo == "cut-prefix":
        # An unparsable <lastmod> is kept cut to 100 characters: all of the password but
        # its last character is what the cut leaves (one guess from the whole).
        lastmod = "y" * (100 - len(password) + 1) + password + "-tail"
        site.route("/sitemap.xml", reply(urlset([lastmod, FRESH])))
        kept = password[:-1]
    else:
        listed = f"{site.url('/sitemap.xml')}?t={token.rstrip('=')}"
        site.route("/robots.txt", robots_with(f"Sitemap: {listed}"))
        site.route(f"/sitemap.xml?t={token.rstrip('=')}", reply(urlset([FRESH])))
        kept = token.rstrip("=")
    settings = replace(SHARED, cache_table=table, cache_key_secret=key_id)
    event = {"basicAuth": {"username": "u", "password": password}}
    first = run(site.url("/1"), settings=settings, **event)
    assert kept not in json.dumps(first)
    items = dynamodb(local_aws).scan(TableName=table)["Items"]
    assert all("facts" not in i for i in items)
    for item in items:
        assert kept not in json.dumps(item, default=str)


def test_without_a_key_secret_credentialed_facts_stay_in_the_process(
    local_aws: str, table: str, site: Site
) -> None:
    a_site(site)
    settings = replace(SHARED, cache_table=table)
    run(site.url("/1"), settings=settings, basicAuth={"username": "u", "password": "pw-123"})
    run(site.url("/2"), settings=settings)
    assert count(site, "/sitemap.xml") == 2
    items = dynamodb(local_aws).scan(TableName=table)["Items"]
    assert len(items) == 1  # the anonymous audit's facts only


def test_boto3_stays_off_the_path_without_a_table() -> None:
    code = (
        "import sys, sitemap_auditor.handler as h\n"
        "h.run({'url': 'http://127.0.0.1:9/'}, None, h.SETTINGS)\n"
        "print('boto3' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("SITEMAP_")}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False"


class FakeAws(LoopbackService):
    """A loopback endpoint that answers every DynamoDB call badly: stalls, or throttles."""

    def __init__(self, mode: str) -> None:
        self.calls = 0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                fake.calls += 1
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if mode == "stall":
                    time.sleep(5)
                    return
                body = json.dumps(
                    {
                        "__type": "com.amazonaws.dynamodb.v20120810#ThrottlingException",
                        "message": "Rate of requests exceeds the allowed throughput.",
                    }
                ).encode()
                send(self, 400, body, {"Content-Type": "application/x-amz-json-1.0"})

            def log_message(self, fmt: str, *args: object) -> None:
                pass

        self._serve(Handler)


@pytest.mark.parametrize("mode", ["stall", "throttle"])
def test_a_slow_or_throttling_store_costs_seconds_not_a_result(
    mode: str, site: Site, logs: LogCapture, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _faked_aws(mode, monkeypatch) as fake:
        a_site(site)
        started = time.monotonic()
        result = run(site.url("/"), settings=replace(SHARED, cache_table="facts"))
        elapsed = time.monotonic() - started
        assert without_date(result) == without_date(run(site.url("/"), settings=LOCAL))
        assert fake.calls >= 1
        if mode == "stall":
            # One read, 2 attempts in all (botocore's total_max_attempts), then the audit fetches.
            assert fake.calls == 2
        # Bounded: 1 s connect, 2 s read, 2 attempts, for the one call that failed.
        assert elapsed < 10
        errors = [x for x in logs.lines() if x.get("message") == "store error"]
        assert errors and errors[0]["store_op"] == "get_item"
        finished = [x for x in logs.lines() if x.get("message") == "audit finished"]
        assert finished[0]["store_errors"] >= 1 and finished[0]["facts_source"] == "fetched"


def _all_refused(urls: tuple[str, ...]) -> tuple[Any, ...]:
    """Each candidate tried and refused, as complete facts without a sitemap hold them."""
    from sitemap_auditor.core import facts

    return tuple(
        facts.CandidateOutcome(u, None, issue(u, Kind.HTTP_STATUS, "HTTP 404")) for u in urls
    )


@contextmanager
def _faked_aws(mode: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAws]:
    """The DynamoDB endpoint answering as mode says, for the length of the block."""
    fake = FakeAws(mode)
    try:
        for k, v in {**aws_environment(fake.url), "AWS_ENDPOINT_URL_DYNAMODB": fake.url}.items():
            monkeypatch.setenv(k, v)
        dynamostore.reset()
        yield fake
    finally:
        dynamostore.reset()
        fake.stop()


class _Context:
    """A Lambda context with remaining_s left at its creation."""

    def __init__(self, remaining_s: float) -> None:
        self._end = time.monotonic() + remaining_s

    def get_remaining_time_in_millis(self) -> int:
        return int((self._end - time.monotonic()) * 1000)


@pytest.mark.parametrize("remaining_s", [3.4, 5.0])
def test_a_store_that_stops_answering_never_holds_the_answer_past_the_deadline(
    remaining_s: float, site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A stalled read takes 2 attempts of 1 s connect and 2 s read by its timeouts: more than
    # the audit has. No store call outlasts the moment the answer is due (contract section 7).
    with _faked_aws("stall", monkeypatch):
        a_site(site)
        started = time.monotonic()
        settings = replace(SHARED, cache_table="facts")
        result = handler.run({"id": "t", "url": site.url("/")}, _Context(remaining_s), settings)
        assert time.monotonic() - started < remaining_s
        assert result["status"] in ("SUCCESS", "FAIL")  # an answer, not the runtime's timeout


@pytest.mark.slow
def test_a_slow_name_lookup_of_the_store_never_holds_the_answer_past_the_deadline(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    # botocore's timeouts bound a call's connection and reads, not the endpoint's name lookup,
    # which urllib3 makes with no timeout: a resolver that hangs costs a call no more than its
    # timeouts would (6 s), and the audit still fetches in time (contract section 7).
    with _faked_aws("stall", monkeypatch), unresolved("store.invalid", monkeypatch):
        monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", "http://store.invalid:9")
        dynamostore.reset()
        a_site(site)
        remaining_s = 20.0
        started = time.monotonic()
        settings = replace(SHARED, cache_table="facts")
        result = handler.run({"id": "t", "url": site.url("/")}, _Context(remaining_s), settings)
        took = time.monotonic() - started
    assert took < remaining_s and codes_of(result) == ["100", "200"]


def test_with_a_table_boto3_is_ready_before_the_first_audit(moto: str) -> None:
    code = "import sys, sitemap_auditor.handler as h\nprint('boto3' in sys.modules)\n"
    env = container_environment(moto, "any-table")
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "True"


def ask(
    until: float,
    now: float,
    due: float,
    over: tuple[str, float] | None = None,
    marked_since: float = math.inf,
) -> lease.TakeLease:
    """A lease write as the protocol asks for it: `over`, a late holder's lease (owner, end) as
    read; `marked_since`, the lasting marks heeded (math.inf: none)."""
    late, late_until = over if over is not None else (None, None)
    return lease.TakeLease(until, now, due, marked_since, late, late_until)


@pytest.mark.usefixtures("local_aws")
def test_no_lease_is_taken_over_facts_fresh_in_the_window(table: str) -> None:
    from sitemap_auditor.core import facts

    store = dynamostore.DynamoStore(table)
    now = time.time()
    published = facts.SiteFacts(facts.RobotsProbe(404, False, (), (), ()), (), (), fetched_at=now)
    packed = store.pack(facts.encode(published))
    assert packed is not None
    store.put("k", packed, lease.Stamp(now, 0.5), now + 60)
    # Facts published at `now`: an audit whose window reaches back before them must use them.
    assert not store.take_lease("k", "late-reader", ask(now + 10, now, now - 60))
    # Once they are older than the window, the site may be asked again.
    assert store.take_lease("k", "next", ask(now + 10, now, now + 1))
    got = store.get("k", consistent=True)
    assert got is not None and got.item.lease_owner == "next" and got.facts == published
    assert got.item.stamp == lease.Stamp(now, 0.5)


@pytest.mark.usefixtures("local_aws")
def test_a_lease_or_a_mark_over_facts_past_their_retention_does_not_expire_with_them(
    table: str,
) -> None:
    # The lease kept the item's expires_at, in the past for facts past their retention: the
    # table's sweep could delete the item, and its live lease, while the holder fetched.
    from sitemap_auditor.core import facts

    store = dynamostore.DynamoStore(table)
    now = time.time()
    old = now - 8 * 86_400
    published = facts.SiteFacts(facts.RobotsProbe(404, False, (), (), ()), (), (), fetched_at=old)
    packed = store.pack(facts.encode(published))
    assert packed is not None
    store.put("old", packed, lease.Stamp(old, 0.5), old + 7 * 86_400)

    def expires() -> float:
        raw = dynamostore.client().get_item(
            TableName=table, Key={"pk": {"S": "old"}}, ConsistentRead=True
        )["Item"]
        return float(raw["expires_at"]["N"])

    assert expires() < now
    assert store.take_lease("old", "holder", ask(now + 10, now, now - 30))
    assert expires() > now + 86_400
    store.put("old", packed, lease.Stamp(old, 0.5), old + 7 * 86_400)
    assert store.take_lease("old", "holder2", ask(now + 10, now, now - 30))
    store.mark_unshareable("old", "holder2", now, True)
    assert expires() > now + 86_400


@pytest.mark.usefixtures("local_aws")
def test_a_lease_write_tried_again_by_its_owner_is_still_its_own(table: str) -> None:
    store = dynamostore.DynamoStore(table)
    now = time.time()
    # The first write was applied but its answer lost: the same audit's write again succeeds.
    assert store.take_lease("again", "token-a", ask(now + 10, now, now - 30))
    assert store.take_lease("again", "token-a", ask(now + 10.5, now + 0.5, now - 29.5))
    # Another audit's token meets the live lease.
    assert not store.take_lease("again", "token-b", ask(now + 11, now + 1, now - 29))
    got = store.get("again", consistent=True)
    assert got is not None and got.item.lease_owner == "token-a"
    assert got.item.lease_until == now + 10.5


@pytest.mark.usefixtures("local_aws")
def test_a_late_holder_lease_is_taken_over_only_as_it_was_read(table: str) -> None:
    store = dynamostore.DynamoStore(table)
    now = time.time()
    assert store.take_lease("late", "holder", ask(now + 10, now, now - 30))
    got = store.get("late", consistent=True)
    # The table tells when the lease was taken (for operators) and counts its renewals: by the
    # count, on their own clocks, waiters judge the holder.
    assert got is not None and got.item.lease_at == now and got.item.lease_renewals == 0
    # A lease renewed since it was read stands.
    store.renew_lease("late", "holder", now + 12)
    renewed = store.get("late", consistent=True)
    assert renewed is not None and renewed.item.lease_renewals == 1
    assert not store.take_lease(
        "late", "waiter", ask(now + 13, now + 3, now - 27, over=("holder", now + 10))
    )
    # As read, unchanged: replaced although still live, and the new lease's own time taken.
    assert store.take_lease(
        "late", "waiter", ask(now + 13, now + 3, now - 27, over=("holder", now + 12))
    )
    got = store.get("late", consistent=True)
    assert got is not None and got.item.lease_owner == "waiter"
    assert got.item.lease_at == now + 3 and got.item.lease_until == now + 13
    assert got.item.lease_renewals == 0  # its own count, from the start
    # Another waiter that read the old lease is refused: one takeover, not two.
    assert not store.take_lease(
        "late", "other", ask(now + 13, now + 3, now - 27, over=("holder", now + 12))
    )
    # The holder's own renewals no longer touch it, and a mark takes the time along.
    store.renew_lease("late", "holder", now + 20)
    store.mark_unshareable("late", "waiter", now + 4, False)
    raw = dynamostore.client().get_item(
        TableName=table, Key={"pk": {"S": "late"}}, ConsistentRead=True
    )["Item"]
    assert "lease_owner" not in raw and "lease_at" not in raw and "unshareable_at" in raw
    assert "lease_renewals" not in raw


@pytest.mark.usefixtures("local_aws")
def test_a_waiters_mark_over_dead_holders_ends_that_lease_and_names_why(table: str) -> None:
    store = dynamostore.DynamoStore(table)
    now = time.time()
    assert store.take_lease("dead", "second", ask(now + 10, now, now - 30))
    # Over another lease than the one read dead, the mark is not written.
    store.mark_unshareable("dead", "first", now + 1, False, "holders-dead")
    got = store.get("dead", consistent=True)
    assert got is not None and got.item.lease_owner == "second"
    assert got.item.unshareable_flight is None
    store.mark_unshareable("dead", "second", now + 1, False, "holders-dead")
    got = store.get("dead", consistent=True)
    assert got is not None and got.item.lease_owner is None
    assert got.item.unshareable_flight == "holders-dead" and got.item.unshareable_at == now + 1
    assert not got.item.unshareable_lasting and lease.dead_mark_held(got.item, now + 2)


@pytest.mark.usefixtures("local_aws")
def test_a_recent_lasting_mark_refuses_the_lease_a_stale_reader_asks_for(table: str) -> None:
    store = dynamostore.DynamoStore(table)
    now = time.time()
    held = now - lease.UNSHAREABLE_HOLD_S
    assert store.take_lease("echo", "holder", ask(now + 10, now, now - 30, marked_since=held))
    store.mark_unshareable("echo", "holder", now + 0.5, True)
    # An audit that read the item before the mark: its write meets the mark and is refused.
    assert not store.take_lease(
        "echo", "stale", ask(now + 11, now + 1, now - 29, marked_since=held + 1)
    )
    # Refused, it holds no lease: its mark would not be written.
    store.mark_unshareable("echo", "stale", now + 2, True)
    # A mark that is not lasting (a budget cut) refuses nothing.
    assert store.take_lease("cut", "holder", ask(now + 10, now, now - 30, marked_since=held))
    store.mark_unshareable("cut", "holder", now + 0.5, False)
    assert store.take_lease("cut", "next", ask(now + 11, now + 1, now - 29, marked_since=held + 1))
    # Nor does a lasting one made before the hold began.
    assert store.take_lease("echo", "later", ask(now + 12, now + 2, now - 28, marked_since=now + 1))
    got = store.get("echo", consistent=True)
    assert got is not None and got.item.lease_owner == "later"
    assert got.item.unshareable_at == now + 0.5 and got.item.unshareable_lasting
    # A mark from further ahead than the clock allowance has no known time: its flight's
    # waiters see it, no other audit heeds it, and the lease is written over it.
    dynamostore.client().put_item(
        TableName=table,
        Item={
            "pk": {"S": "ahead"},
            "unshareable_flight": {"S": "x"},
            "unshareable_at": {"N": repr(now + 3600)},
            "unshareable_lasting": {"BOOL": True},
        },
    )
    ahead = store.get("ahead", consistent=True)
    assert ahead is not None and ahead.item.unshareable_flight == "x"
    assert ahead.item.unshareable_at is None
    assert store.take_lease("ahead", "next", ask(now + 10, now, now - 30, marked_since=held))


def test_large_facts_are_kept_out_of_the_item_that_leases_touch(local_aws: str, table: str) -> None:
    from sitemap_auditor.core import facts

    store = dynamostore.DynamoStore(table)
    now = time.time()
    rng = random.Random(5)
    # At most the 100 candidates a robots.txt gives (docs/contract.md §4), long enough not to fit.
    urls = tuple(
        f"https://www.example.com/{rng.getrandbits(256):064x}/{rng.getrandbits(128):032x}.xml"
        for i in range(100)
    )
    robots = facts.RobotsProbe(200, True, urls, (), ())
    large = facts.SiteFacts(robots, urls, _all_refused(urls), fetched_at=now)
    packed = store.pack(facts.encode(large))
    assert packed is not None and len(packed) > dynamostore.INLINE_FACTS_BYTES
    store.put("big", packed, lease.Stamp(now, 2.0, False, "flight-1"), now + 60)
    raw = dynamodb(local_aws).get_item(
        TableName=table, Key={"pk": {"S": "big"}}, ConsistentRead=True
    )["Item"]
    # The site's item holds the stamp and a reference only: under 1 KB, one unit a write.
    assert "facts" not in raw and raw["facts_ref"] == {"S": "flight-1"}
    assert sum(len(k) + len(str(v)) for k, v in raw.items()) < 1024
    got = store.get("big", consistent=False)
    assert (
        got is not None
        and got.facts is None
        and got.item.stamp == lease.Stamp(now, 2.0, False, "flight-1")
    )
    assert got.facts_now() == large
    # A lease on it, and its renewal, leave the facts where they are.
    assert store.take_lease("big", "next", ask(now + 10, now + 61, now + 31))
    store.renew_lease("big", "next", now + 13)
    again = store.get("big", consistent=True)
    assert again is not None and again.item.lease_owner == "next" and again.facts_now() == large
    # Small facts stay in the item, and replace large ones.
    # (Stamped within the clock skew a reader allows: lease.CLOCK_SKEW_S.)
    small = facts.SiteFacts(facts.RobotsProbe(404, False, (), (), ()), (), (), fetched_at=now + 2)
    packed_small = store.pack(facts.encode(small))
    assert packed_small is not None and len(packed_small) <= dynamostore.INLINE_FACTS_BYTES
    store.put("big", packed_small, lease.Stamp(now + 2, 0.5, False, "flight-2"), now + 120)
    last = store.get("big", consistent=True)
    assert last is not None and last.facts == small and last.load is None


def test_facts_too_large_to_share_are_kept_for_their_waiters_with_a_lasting_mark(
    local_aws: str, table: str
) -> None:
    from sitemap_auditor.core import facts

    store = dynamostore.DynamoStore(table)
    now = time.time()
    rng = random.Random(6)
    # 100 candidates of random names (no compression to speak of), each refused with its issue:
    # well past MAX_ITEM_BYTES compressed, within MAX_AWAITED_BYTES.
    names = "abcdefghijklmnopqrstuvwxyz0123456789"
    urls = tuple(
        f"https://www.example.com/{''.join(rng.choices(names, k=600))}/{i}.xml" for i in range(100)
    )
    outcomes = tuple(
        facts.CandidateOutcome(u, None, issue(u, Kind.HTTP_STATUS, "HTTP 404")) for u in urls
    )
    robots = facts.RobotsProbe(200, True, urls, (), ())
    large = facts.SiteFacts(robots, urls, outcomes, fetched_at=now, fetch_seconds=90.0)
    data = facts.encode(large)
    assert store.pack(data) is None
    packed = store.pack(data, for_waiters=True)
    assert packed is not None and len(packed) > dynamostore.MAX_ITEM_BYTES
    stamp = lease.Stamp(now, 90.0, False, "flight-9", awaited_only=True)
    store.put("awaited", packed, stamp, now + 60)
    got = store.get("awaited", consistent=True)
    assert got is not None and got.item.stamp == stamp
    # Newcomers read the lasting mark, under the flight's name, and fetch by themselves.
    item = got.item
    assert (item.unshareable_flight, item.unshareable_lasting) == ("flight-9", True)
    assert lease.lasting_mark_held(item, now + 1, lease.UNSHAREABLE_HOLD_S)
    # The waiters read the facts from their own item.
    assert got.facts is None and got.facts_now() == large
    raw = dynamodb(local_aws).get_item(
        TableName=table, Key={"pk": {"S": "awaited"}}, ConsistentRead=True
    )["Item"]
    assert raw["awaited_only"] == {"BOOL": True} and "facts" not in raw
    # Facts that large written into the site's item itself are not what this module writes.
    forged = {**raw, "facts": {"B": packed}}
    del forged["facts_ref"], forged["awaited_only"]
    with pytest.raises(InvalidItemError):
        dynamostore.read_item(forged, now)


def test_two_publishes_close_together_each_keep_their_own_facts_item(
    local_aws: str, table: str
) -> None:
    # A holder and its standby publish large facts at once: the holder's facts item, then the
    # standby's whole publish, then the holder's site item. The site's item then refers to the
    # holder's facts, which must still be there (one facts item a flight), not the standby's.
    from sitemap_auditor.core import facts

    store = dynamostore.DynamoStore(table)
    now = time.time()
    rng = random.Random(7)

    def large(at: float) -> facts.SiteFacts:
        urls = tuple(
            f"https://www.example.com/{rng.getrandbits(512):0128x}/{i}.xml" for i in range(60)
        )
        robots = facts.RobotsProbe(200, True, urls, (), ())
        return facts.SiteFacts(robots, urls, _all_refused(urls), fetched_at=at)

    holder, standby = large(now), large(now + 0.5)
    packed_h = store.pack(facts.encode(holder))
    packed_s = store.pack(facts.encode(standby))
    assert packed_h is not None and packed_s is not None
    assert min(len(packed_h), len(packed_s)) > dynamostore.INLINE_FACTS_BYTES
    stamp_h = lease.Stamp(now, 2.0, False, "holder-flight")
    site_h = dynamostore.published_item("twice", packed_h, stamp_h, now + 60)
    db = dynamodb(local_aws)
    db.put_item(
        TableName=table,
        Item=dynamostore.facts_item("twice", packed_h, "holder-flight", site_h),
    )
    store.put("twice", packed_s, lease.Stamp(now + 0.5, 2.5, False, "standby-flight"), now + 60)
    db.put_item(TableName=table, Item=site_h)
    got = store.get("twice", consistent=True)
    assert got is not None and got.item.stamp == stamp_h
    assert got.facts_now() == holder


def test_an_unreadable_cache_key_keeps_credentialed_facts_in_the_process(
    local_aws: str, table: str, site: Site, logs: LogCapture
) -> None:
    a_site(site)
    settings = replace(SHARED, cache_table=table, cache_key_secret="no-such-secret")
    event = {"basicAuth": {"username": "u", "password": "pw-123456"}}
    first = run(site.url("/1"), settings=settings, **event)
    second = run(site.url("/2"), settings=settings, **event)
    assert codes_of(first) == codes_of(second) == ["100", "200"]
    assert count(site, "/sitemap.xml") == 1  # shared within the process all the same
    errors = [x for x in logs.lines() if x.get("message") == "store error"]
    assert errors and errors[0]["store_op"] == "cache key"
    assert "no-such-secret" in errors[0]["error"]
    assert dynamodb(local_aws).scan(TableName=table)["Items"] == []


RACER = """
import json, math, sys, time
from sitemap_auditor.sharing.dynamostore import DynamoStore
from sitemap_auditor.sharing.lease import TakeLease
table, me, start_at, keys = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
store = DynamoStore(table)
time.sleep(max(0.0, start_at - time.time()))
won = []
for i in range(keys):
    now = time.time()
    if store.take_lease(f"race-{i}", me, TakeLease(now + 30, now, now - 60, math.inf)):
        won.append(i)
print(json.dumps(won))
"""


@pytest.mark.slow
def test_of_containers_racing_for_a_lease_exactly_one_wins(dynamo: str, table: str) -> None:
    env = container_environment(dynamo, table)
    start_at = time.time() + 5
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, table, f"racer-{n}", str(start_at), "40"],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(4)
    ]
    won = [json.loads(p.communicate(timeout=120)[0]) for p in racers]
    assert sorted(i for w in won for i in w) == list(range(40))


def raw_item(key: str, item: lease.Item) -> dict[str, Any]:
    """A site's item in the table's attributes, as the store writes them (facts by reference)."""
    raw: dict[str, Any] = {"pk": {"S": key}}
    if item.lease_owner is not None and item.lease_until is not None:
        raw["lease_owner"] = {"S": item.lease_owner}
        raw["lease_until"] = {"N": repr(item.lease_until)}
    if item.stamp is not None:
        raw["fetched_at"] = {"N": repr(item.stamp.fetched_at)}
        raw["fetch_s"] = {"N": "1.0"}
        raw["transient"] = {"BOOL": item.stamp.transient}
        raw["facts_ref"] = {"S": "flight"}
    if item.unshareable_at is not None:
        raw["unshareable_flight"] = {"S": "marked"}
        raw["unshareable_at"] = {"N": repr(item.unshareable_at)}
        raw["unshareable_lasting"] = {"BOOL": item.unshareable_lasting}
    return raw


@pytest.mark.usefixtures("local_aws")
def test_the_table_condition_takes_a_lease_exactly_when_may_take_says(table: str) -> None:
    # The one lease-write rule is lease.may_take; the DynamoDB condition expression must agree
    # with it on every item, boundaries included (equal times, the skew's edge, a late holder's
    # lease as read, transient facts, lasting marks).
    store = dynamostore.DynamoStore(table)
    client = dynamostore.client()
    now, skew = 1_764_800_000.25, lease.CLOCK_SKEW_S
    until, due, marked_since = now + lease.LEASE_S, now - 30.0, now - 100.0
    rng = random.Random(36)
    lease_ends = [None, now - 1, now, now + 5, until, until + skew, until + skew + 1]
    fetched = [None, due - 1, due, now, now + skew, now + skew + 1]
    marks = [None, marked_since - 1, marked_since, now, now + skew + 1]
    seen: set[bool] = set()
    for case in range(160):
        end = rng.choice(lease_ends)
        at = rng.choice(fetched)
        mark = rng.choice(marks)
        item = lease.Item(
            stamp=None if at is None else lease.Stamp(at, 1.0, rng.random() < 0.3),
            lease_owner=None if end is None else rng.choice(["me", "other"]),
            lease_until=end,
            unshareable_at=mark,
            unshareable_lasting=mark is not None and rng.random() < 0.7,
        )
        over = rng.choice([None, ("other", now + 5), ("other", until)])
        since = rng.choice([None, marked_since])
        request = lease.TakeLease(
            until=until,
            now=now,
            due=due,
            marked_since=math.inf if since is None else since,
            over_owner=over[0] if over else None,
            over_until=over[1] if over else None,
        )
        key = f"case-{case}"
        client.put_item(TableName=table, Item=raw_item(key, item))
        expected = lease.may_take(item, "me", request)
        assert store.take_lease(key, "me", request) == expected, item
        seen.add(expected)
    assert seen == {True, False}


def test_a_lease_write_without_an_answer_costs_its_short_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A write tried again is safe (the owner's own lease), and DynamoDB answers writes within
    # tens of ms: a lost answer costs LEASE_WRITE_READ_TIMEOUT_S per attempt, not READ_TIMEOUT_S.
    with _faked_aws("stall", monkeypatch) as fake:
        store = dynamostore.DynamoStore("facts")
        now = time.time()
        # The take, and a renewal (whose lost answer must be known within the waiters' grace).
        for write in (
            lambda: store.take_lease("k", "me", ask(now + lease.LEASE_S, now, now - 30)),
            lambda: store.renew_lease("k", "me", now + lease.LEASE_S),
        ):
            calls, started = fake.calls, time.monotonic()
            with pytest.raises(StoreError):
                write()
            elapsed = time.monotonic() - started
            assert fake.calls - calls == dynamostore.MAX_ATTEMPTS
            # Each attempt waited the lease writes' read timeout, not the reads' (which would
            # cost MAX_ATTEMPTS * READ_TIMEOUT_S, 4 s, at the least): that client is the one
            # used, and the time is short of the other's (no finer timing: a loaded machine).
            assert elapsed < dynamostore.MAX_ATTEMPTS * dynamostore.READ_TIMEOUT_S
        lease_client = dynamostore.client(lease_writes=True)
        assert lease_client.meta.config.read_timeout == dynamostore.LEASE_WRITE_READ_TIMEOUT_S


@pytest.mark.usefixtures("local_aws")
def test_the_standby_slot_is_a_lease_in_an_item_of_its_own(table: str) -> None:
    store = dynamostore.DynamoStore(table)
    now = time.time()
    slot = "site" + STANDBY_SUFFIX
    assert store.take_lease("site", "holder", ask(now + 10, now, now - 30))
    standby = replace(ask(now + 11, now + 1, now - 29), standby=True)
    # The holder's lease does not stand in the slot's way; a second standby is refused.
    assert store.take_lease(slot, "standby", standby)
    assert not store.take_lease(slot, "other", standby)
    store.renew_lease(slot, "standby", now + 14)
    got, site = store.get(slot, consistent=True), store.get("site", consistent=True)
    assert got is not None and got.item.lease_owner == "standby"
    assert got.item.lease_renewals == 1 and got.facts is None
    assert site is not None and site.item.lease_owner == "holder"
