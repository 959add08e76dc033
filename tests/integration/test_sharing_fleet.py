"""The lease protocol through real processes: what must hold at a hot site's scale (section 7).

Each "container" is a process of the function (harness/share_worker.py); the table is moto and
dynalite (every test runs against both), behind a loopback proxy that counts each DynamoDB call
and can answer chosen ones as DynamoDB does when it throttles an item. The sites count what they
are asked. tests/unit/test_lease.py and bench/scale.py take the same protocol to a thousand
containers in virtual time; these show it holds in real processes, on real sockets.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from support.documents import urlset
from support.dynamo import Proxy
from support.results import LOCAL, codes_of, days_ago
from support.tables import dynamodb

from harness.containers import Container
from harness.environments import container_environment
from harness.servers import Site, robots_with, send
from sitemap_auditor import handler
from sitemap_auditor.sharing import lease
from sitemap_auditor.sharing.lease import POLL_MAX_S

pytestmark = pytest.mark.slow

FRESH = days_ago(1)


def count(site: Site, path: str) -> int:
    return sum(1 for p in site.paths() if p == path)


def without_date(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "date"}


class Timed:
    """A route that answers after a pause and records when each request began and ended."""

    def __init__(self, seconds: float, body: bytes, first_status: int | None = None) -> None:
        self.seconds = seconds
        self.body = body
        self.first_status = first_status
        self.spans: list[tuple[float, float]] = []
        self._lock = threading.Lock()

    def __call__(self, h: BaseHTTPRequestHandler) -> None:
        began = time.monotonic()
        with self._lock:
            first = not self.spans and self.first_status is not None
            self.spans.append((began, began))
            at = len(self.spans) - 1
        time.sleep(self.seconds)
        if first:
            assert self.first_status is not None
            send(h, self.first_status, b"busy", {"Content-Type": "text/plain"})
        else:
            send(h, 200, self.body, {"Content-Type": "application/xml"})
        with self._lock:
            self.spans[at] = (began, time.monotonic())


@pytest.fixture
def proxied(dynamo: str) -> Iterator[Proxy]:
    proxy = Proxy(dynamo)
    yield proxy
    proxy.stop()


def fleet(env: dict[str, str], n: int, urls: list[str], **spec: Any) -> list[Container]:
    start_at = time.time() + 6  # every process imported and ready by then
    return [
        Container(env, {"urls": [f"{u}?c={c}" for u in urls], "start_at": start_at, **spec})
        for c in range(n)
    ]


def emf(containers: list[Container], metric: str) -> list[float]:
    """Every value of one metric in the containers' EMF documents."""
    return [v for c in containers for x in c.lines if "_aws" in x for v in x.get(metric, [])]


def finished(containers: list[Container]) -> list[dict[str, Any]]:
    return [x for c in containers for x in c.finished_logs()]


def results(containers: list[Container]) -> list[dict[str, Any]]:
    return [a["result"] for c in containers for a in c.answers()]


def fresh_result(site: Site) -> dict[str, Any]:
    handler.SHARING.local.clear()
    return without_date(handler.run({"url": site.url("/")}, None, LOCAL))


def test_waiters_ride_out_throttling_and_never_fetch_for_it(
    proxied: Proxy, table: str, site: Site
) -> None:
    site.route("/robots.txt", robots_with(f"Sitemap: {site.url('/sitemap.xml')}"))
    slow = Timed(3.0, urlset([FRESH]))
    site.route("/sitemap.xml", slow)
    # Two reads in three are throttled, as DynamoDB throttles a hot item: every waiter meets it.
    reads = iter(range(10**9))
    proxied.throttle = lambda op, body: op == "GetItem" and next(reads) % 3 != 0
    env = container_environment(proxied.url, table)
    containers = fleet(env, 4, [site.url(f"/p{i}") for i in range(5)], threads=5, budget_ms=60_000)
    answers = results(containers)
    assert len(answers) == 20 and count(site, "/sitemap.xml") == 1
    fresh = fresh_result(site)
    assert all(without_date(a) == fresh for a in answers)
    logs = finished(containers)
    assert proxied.throttled["GetItem"] > 0
    assert sum(x["store_throttles"] for x in logs) > 0
    # (Threads of one process share Powertools' metrics between their EMF documents, so the
    # documents show the metric without matching each log line; Lambda runs one at a time.)
    assert sum(emf(containers, "StoreThrottles")) > 0
    assert not [x for x in logs if x.get("fetch_reason") not in (None, "holder")]


def test_waiters_make_no_conditional_write_and_read_eventually_consistent(
    proxied: Proxy, table: str, site: Site
) -> None:
    site.route("/robots.txt", robots_with(f"Sitemap: {site.url('/sitemap.xml')}"))
    site.route("/sitemap.xml", Timed(3.0, urlset([FRESH])))
    env = container_environment(proxied.url, table)
    # The first container takes the lease; the others arrive while it fetches (containers that
    # start at the very same instant may each try the lease once, which is no waiter's write).
    first = Container(env, {"urls": [site.url("/first")], "budget_ms": 60_000})
    deadline = time.monotonic() + 30
    while count(site, "/sitemap.xml") < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    urls = [site.url(f"/p{i}") for i in range(4)]
    containers = [
        Container(env, {"urls": urls, "threads": 4, "budget_ms": 60_000}) for _ in range(2)
    ]
    answers = results(containers) + results([first])
    assert [codes_of(a) for a in answers] == [["100", "200"]] * 9
    assert count(site, "/sitemap.xml") == 1
    # One lease taken, renewed at most once in 3 s, one publish; no waiter wrote, none refused.
    assert 1 <= proxied.calls["UpdateItem"] <= 2 and proxied.calls["PutItem"] == 1
    assert sum(proxied.refused.values()) == 0
    # Arrival reads and polls are eventually consistent when nothing raced.
    assert proxied.reads and not any(consistent for _, consistent in proxied.reads)


def test_an_unshareable_fetch_releases_every_waiter_at_once(
    moto: str, dynamo: str, table: str, site: Site
) -> None:
    from support.aws import secrets_client

    key_id = secrets_client(moto).create_secret(
        Name=f"cache-key-{time.monotonic_ns()}", SecretString="w" * 64
    )["ARN"]
    password = "echoed-back-9"
    # The site echoes the credential into its Sitemap: URL: such facts never reach the table.
    site.route("/robots.txt", robots_with(f"Sitemap: {site.url('/sitemap.xml')}?p={password}"))
    slow = Timed(2.0, urlset([FRESH]))
    site.route(f"/sitemap.xml?p={password}", slow)
    env = container_environment(dynamo, table, moto, SITEMAP_CACHE_KEY_SECRET=key_id)
    event = {"basicAuth": {"username": "u", "password": password}}
    containers = fleet(
        env, 3, [site.url(f"/p{i}") for i in range(3)], threads=3, budget_ms=60_000, event=event
    )
    answers = results(containers)
    assert [codes_of(a) for a in answers] == [["100", "200"]] * 9
    # One fetch per container (shared inside each), and the two that waited on the first
    # container's lease fetched side by side as soon as it knew its facts could not be shared:
    # robots.txt echoed the credential, so they were told before its sitemap was asked for,
    # not when its fetch ended.
    assert count(site, f"/sitemap.xml?p={password}") == 3
    first, *others = sorted(slow.spans)
    assert all(began < first[1] - 0.5 for began, _ in others)
    (a_began, a_ended), (b_began, b_ended) = others
    assert a_began < b_ended and b_began < a_ended
    logs = finished(containers)
    assert [x.get("unshareable") for x in logs].count("credential-echoed") == 1
    assert [x.get("fetch_reason") for x in logs].count("unshareable") == 2
    assert set(emf(containers, "FactsUnshareable")) == {1.0}
    items = dynamodb(dynamo).scan(TableName=table)["Items"]
    assert len(items) == 1 and "facts" not in items[0] and "unshareable_flight" in items[0]


def test_a_busy_site_is_refreshed_ahead_of_its_window(dynamo: str, table: str, site: Site) -> None:
    site.route("/robots.txt", robots_with(f"Sitemap: {site.url('/sitemap.xml')}"))
    site.route("/sitemap.xml", Timed(0.3, urlset([FRESH])))
    env = container_environment(dynamo, table, SITEMAP_SHARE_SECONDS="4")
    # 12 audits a second for 10 s over 3 containers, each one audit at a time.
    urls = [site.url(f"/p{i}") for i in range(40)]
    containers = fleet(env, 3, urls, threads=1, spacing_s=0.25, budget_ms=60_000)
    answers = results(containers)
    assert [codes_of(a) for a in answers] == [["100", "200"]] * 120
    logs = finished(containers)
    assert any(x["refreshed_ahead"] for x in logs)
    assert len(emf(containers, "FactsRefreshedAhead")) == sum(x["refreshed_ahead"] for x in logs)
    reasons = [x.get("fetch_reason") for x in logs if x["facts_source"] == "fetched"]
    assert set(reasons) <= {"holder", "refresh"}, reasons
    # Never in the first half of a window: at most one fetch per two seconds, and the site
    # asked far less than once per audit.
    fetched = count(site, "/sitemap.xml")
    assert 2 <= fetched <= 1 + 12 // 2 + 1


def test_a_transient_answer_goes_to_its_waiters_only(dynamo: str, table: str, site: Site) -> None:
    site.route("/robots.txt", robots_with(f"Sitemap: {site.url('/sitemap.xml')}"))
    site.route("/sitemap.xml", Timed(1.0, urlset([FRESH]), first_status=503))
    env = container_environment(dynamo, table)
    burst = fleet(env, 2, [site.url(f"/p{i}") for i in range(3)], threads=3, budget_ms=60_000)
    # The audits that waited for the fetch that met the 503 get its answer, as they would have.
    assert [codes_of(a) for a in results(burst)] == [["100", "400"]] * 6
    assert count(site, "/sitemap.xml") == 1
    # A later audit, well within the window, does not reuse it: it asks again, once.
    later = Container(env, {"urls": [site.url("/later")], "budget_ms": 60_000}).answers()
    assert codes_of(later[0]["result"]) == ["100", "200"]
    assert count(site, "/sitemap.xml") == 2
    again = Container(env, {"urls": [site.url("/again")], "budget_ms": 60_000}).answers()
    assert without_date(again[0]["result"]) == without_date(later[0]["result"])
    assert count(site, "/sitemap.xml") == 2


def test_a_waiter_waits_for_a_slow_fetch_as_long_as_its_budget(
    dynamo: str, table: str, site: Site
) -> None:
    site.route("/robots.txt", robots_with(f"Sitemap: {site.url('/sitemap.xml')}"))
    site.route("/sitemap.xml", Timed(6.0, urlset([FRESH])))
    env = container_environment(dynamo, table)
    holder = Container(env, {"urls": [site.url("/holder")], "budget_ms": 60_000})
    deadline = time.monotonic() + 30
    while count(site, "/sitemap.xml") < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    # 10 s of budget each (13 s less the 3 s kept for the response): far less than the 35 s the
    # old protocol kept back to fetch by itself, more than what is left of the holder's fetch.
    waiters = [
        Container(env, {"urls": [site.url(f"/w{i}/{j}") for j in range(3)], "threads": 3,
                        "budget_ms": 13_000})
        for i in range(2)
    ]  # fmt: skip
    answers = [a for w in waiters for a in w.answers()] + holder.answers()
    assert [codes_of(a["result"]) for a in answers] == [["100", "200"]] * 7
    assert count(site, "/sitemap.xml") == 1
    assert {x["facts_source"] for w in waiters for x in w.finished_logs()} == {"waited"}
    # How long each waited is in its log line (the one that led for its container waited on the
    # table; the others on it).
    assert all(x["waited_ms"] > 0 for w in waiters for x in w.finished_logs())


def test_an_audit_that_waited_puts_its_wait_in_share_wait_time(
    dynamo: str, table: str, site: Site
) -> None:
    site.route("/robots.txt", robots_with(f"Sitemap: {site.url('/sitemap.xml')}"))
    site.route("/sitemap.xml", Timed(3.0, urlset([FRESH])))
    env = container_environment(dynamo, table)
    # One audit per container, so that each EMF document is one audit's.
    holder = Container(env, {"urls": [site.url("/holder")], "budget_ms": 60_000})
    deadline = time.monotonic() + 30
    while count(site, "/sitemap.xml") < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    waiter = Container(env, {"urls": [site.url("/waiter")], "budget_ms": 60_000})
    answers = holder.answers() + waiter.answers()
    assert [codes_of(a["result"]) for a in answers] == [["100", "200"]] * 2
    assert count(site, "/sitemap.xml") == 1
    (held,) = holder.finished_logs()
    (waited,) = waiter.finished_logs()
    assert (held["facts_source"], held["waited_ms"]) == ("fetched", 0)
    # It waited for the holder's 3 s fetch, not its own 60 s budget: at most that fetch, one
    # poll (which lags the holder's publication by up to POLL_MAX_S) and the table's answers.
    assert waited["facts_source"] == "waited"
    assert 0 < waited["waited_ms"] < 3_000 + 1_000 * POLL_MAX_S + 1_000
    # The holder waited for nobody: no value at all (not a 0 that would pull the percentiles
    # down). The waiter: one value, its wait in milliseconds, as its log line says it.
    assert emf([holder], "ShareWaitTime") == []
    (value,) = emf([waiter], "ShareWaitTime")
    assert round(value) == waited["waited_ms"]
    (document,) = [x for x in waiter.lines if "ShareWaitTime" in x]
    (directive,) = document["_aws"]["CloudWatchMetrics"]
    assert {"Name": "ShareWaitTime", "Unit": "Milliseconds"} in directive["Metrics"]
    # The one dimension of every metric of the function (the other sharing metrics' too).
    assert directive["Dimensions"] == [["service"]]
    assert {"Name": "FactsWaited", "Unit": "Count"} in directive["Metrics"]


def test_an_unshareable_mark_sends_audits_after_the_window_to_fetch_at_once(
    moto: str, proxied: Proxy, table: str, site: Site
) -> None:
    from support.aws import secrets_client

    key_id = secrets_client(moto).create_secret(
        Name=f"cache-key-{time.monotonic_ns()}", SecretString="w" * 64
    )["ARN"]
    password = "echoed-back-7"
    site.route("/robots.txt", robots_with(f"Sitemap: {site.url('/sitemap.xml')}?p={password}"))
    site.route(f"/sitemap.xml?p={password}", Timed(0.2, urlset([FRESH])))
    env = container_environment(
        proxied.url, table, moto, SITEMAP_CACHE_KEY_SECRET=key_id, SITEMAP_SHARE_SECONDS="1"
    )
    event = {"basicAuth": {"username": "u", "password": password}}
    first = Container(env, {"urls": [site.url("/first")], "budget_ms": 60_000, "event": event})
    assert [codes_of(a["result"]) for a in first.answers()] == [["100", "200"]]
    writes = proxied.calls["UpdateItem"] + proxied.calls["PutItem"]
    time.sleep(1.5)  # past the share window
    later = Container(env, {"urls": [site.url("/later")], "budget_ms": 60_000, "event": event})
    assert [codes_of(a["result"]) for a in later.answers()] == [["100", "200"]]
    # The mark outlived the window: the later audit read the item once and fetched at once,
    # without a lease (no write) and without waiting.
    assert proxied.calls["UpdateItem"] + proxied.calls["PutItem"] == writes
    (log,) = later.finished_logs()
    assert log["fetch_reason"] == "unshareable" and log["waited_ms"] == 0


@pytest.mark.parametrize(
    ("dies_after_s", "outcome"),
    [(0.8, "hedged"), (lease.STANDBY_MIN_S + 2.5, "standby")],
    ids=["before-the-standby", "after-the-standby"],
)
def test_waiters_of_a_dead_holder_of_a_quick_site_fetch_before_its_lease_lapses(
    dynamo: str, table: str, site: Site, dies_after_s: float, outcome: str
) -> None:
    release = threading.Event()
    body = urlset([FRESH])

    def stalled(h: BaseHTTPRequestHandler) -> None:
        # The second request (the holder's, after the window) hangs until its process is dead.
        if count(site, "/sitemap.xml") == 2:
            release.wait(60)
            return
        send(h, 200, body, {"Content-Type": "application/xml"})

    site.route("/robots.txt", robots_with(f"Sitemap: {site.url('/sitemap.xml')}"))
    site.route("/sitemap.xml", stalled)
    env = container_environment(dynamo, table, SITEMAP_SHARE_SECONDS="1")
    # A first audit records how long the site takes (well under a second).
    warm = Container(env, {"urls": [site.url("/warm")], "budget_ms": 60_000})
    assert [codes_of(a["result"]) for a in warm.answers()] == [["100", "200"]]
    time.sleep(1.5)  # past the share window
    # Every process imported and waiting before the holder starts; the waiters start 0.3 s
    # after it, on its lease; it dies `dies_after_s` into its fetch.
    start = time.time() + 8
    holder = Container(
        env, {"urls": [site.url("/holder")], "budget_ms": 100_000, "start_at": start}
    )
    waiters = [
        Container(
            env, {"urls": [site.url(f"/w{i}/{j}") for j in range(3)], "threads": 3,
                  "budget_ms": 60_000, "start_at": start + 0.3}
        )
        for i in range(2)
    ]  # fmt: skip
    for c in (holder, *waiters):
        assert c.ready.wait(30) and c.ready_at is not None and c.ready_at < start, "start later"
    deadline = time.monotonic() + 30
    while count(site, "/sitemap.xml") < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert count(site, "/sitemap.xml") == 2
    time.sleep(max(0.0, start + dies_after_s - time.time()))
    holder.kill()
    killed = time.monotonic()
    release.set()
    answers = [a for w in waiters for a in w.answers()]
    assert [codes_of(a["result"]) for a in answers] == [["100", "200"]] * 6
    logs = [x for w in waiters for x in w.finished_logs()]
    reasons = [x.get("fetch_reason") for x in logs]
    if outcome == "hedged":
        # Dead before its first renewal: once it was late (that renewal missed, and a grace) and
        # they had waited three fetch times, each container's lead fetched by itself, before the
        # lease lapsed (10 s) and a takeover, and before any standby was due (5 s).
        assert sorted(r for r in reasons if r) == ["hedged", "hedged"], reasons
        assert time.monotonic() - killed < 10.0
        assert count(site, "/sitemap.xml") == 2 + 2
    else:
        # Alive past the standby's 5 s: an early waiter fetched beside it in the standby slot,
        # and every waiter took those facts; the death cost nothing more.
        assert [r for r in reasons if r] == ["standby"], reasons
        assert count(site, "/sitemap.xml") == 2 + 1
        # Done, the standby ended its slot rather than leave it to lapse.
        items = dynamodb(dynamo).scan(TableName=table)["Items"]
        (slot,) = [i for i in items if i["pk"]["S"].endswith("|standby")]
        assert "lease_owner" not in slot and "unshareable_at" in slot


def test_facts_that_may_pass_the_limit_at_the_end_release_the_waiters_as_soon_as_shown(
    dynamo: str, table: str, site: Site
) -> None:
    from sitemap_auditor.audit import steps
    from sitemap_auditor.core import facts as site_facts
    from sitemap_auditor.core.site import resolve
    from sitemap_auditor.fetching.fetch import Fetcher, FetchPolicy
    from sitemap_auditor.sharing import dynamostore

    rng = random.Random(8)
    letters = "abcdefghijklmnopqrstuvwxyz0123456789"
    # The sitemap's 20 unparsable <lastmod> samples (2 KB that compress little) are what the
    # facts gain after robots.txt's answer (shown as the sitemap's first chunk is read).
    bad = ["".join(rng.choices(letters, k=100)) for _ in range(20)]
    body = urlset([*bad, FRESH])
    slow = threading.Event()

    def sitemap(h: BaseHTTPRequestHandler) -> None:
        if slow.is_set():
            time.sleep(lease.AWAITED_MIN_FETCH_S + 1)  # a slow site: its waiters take the facts
        send(h, 200, body, {"Content-Type": "application/xml"})

    site.route("/sitemap.xml", sitemap)
    store = dynamostore.DynamoStore(table)
    here = resolve(site.url("/"))
    assert here is not None

    def sizes(n: int) -> tuple[int, int]:
        """How large robots.txt's answer alone and the whole fetch's facts pack, with n more
        `Sitemap:` lines (long, of random names: they compress little) after the sitemap's."""
        names = ["".join(random.Random(i).choices(letters, k=500)) for i in range(n)]
        lines = [
            f"Sitemap: {site.url('/sitemap.xml')}",
            *(f"Sitemap: {site.url('/' + x)}" for x in names),
        ]
        site.route("/robots.txt", robots_with(*lines))
        shown: list[site_facts.SiteFacts] = []
        fetcher = Fetcher(FetchPolicy(origin=here.origin(), allow_private_networks=True))
        final = steps.fetch_facts(here, fetcher, None, shown.append)
        packed = [store.pack(site_facts.encode(f), for_waiters=True) for f in (*shown, final)]
        assert all(p is not None for p in packed)
        return len(packed[0] or b""), len(packed[-1] or b"")

    # Calibrated here, on this build's encoding: the fewest lines for which the facts are too
    # large for an item in the end. What robots.txt gave fits one, but not with room for what
    # the rest of the fetch may add (facts.UNSHOWN_BYTES): the waiters are told as robots.txt
    # answers, not at the end of the holder's slow fetch.
    n = next(n for n in range(30, 60) if sizes(n)[1] > dynamostore.MAX_ITEM_BYTES)
    robots_alone = sizes(n)[0]  # robots.txt routed for n
    assert robots_alone <= dynamostore.MAX_ITEM_BYTES < robots_alone + site_facts.UNSHOWN_BYTES
    before = count(site, "/sitemap.xml")
    slow.set()
    env = container_environment(dynamo, table)
    start = time.time() + 8
    holder = Container(env, {"urls": [site.url("/h")], "budget_ms": 100_000, "start_at": start})
    waiters = [
        Container(
            env, {"urls": [site.url(f"/w{i}/{j}") for j in range(2)], "threads": 2,
                  "budget_ms": 100_000, "start_at": start + 1.0}
        )
        for i in range(2)
    ]  # fmt: skip
    answers = [a for c in (holder, *waiters) for a in c.answers()]
    assert [codes_of(a["result"]) for a in answers] == [["100", "200"]] * 5
    # Marked as robots.txt answered, with a mark that does not last (the next fetch's facts may
    # fit); too large in the end, the facts were not written.
    items = {i["pk"]["S"]: i for i in dynamodb(dynamo).scan(TableName=table)["Items"]}
    site_item = next(v for k, v in items.items() if "|facts" not in k and "|standby" not in k)
    assert site_item["unshareable_lasting"] == {"BOOL": False} and "facts" not in site_item
    assert not any(k.endswith("|facts") for k in items)
    held = holder.finished_logs()[0]
    assert held["unshareable"] == "too-large"
    # No audit waited for the holder's slow sitemap: each later container's lead read the mark
    # (or was told while it waited) and fetched by itself, its other audit taking those facts
    # in its process.
    logs = [x for w in waiters for x in w.finished_logs()]
    leads = [x for x in logs if x["facts_source"] == "fetched"]
    assert len(leads) == 2 and all(x["waited_ms"] < 3_000 for x in leads), leads
    assert count(site, "/sitemap.xml") - before == 3  # the holder's, and each lead's
