"""Nothing read from the shared table is trusted as written (docs/contract.md §7), end to end.

Each hostile item of tests/support/store_items.py is put in the table with boto3 (moto's server
and dynalite, on 127.0.0.1), then a real audit of a real site on 127.0.0.1 runs through the
handler with that table: its result is the result with sharing off (`date` aside), the item
is counted (`StoreItemsRejected`) and logged once with why, and the zlib bomb's cost is measured
in a process of its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from support.documents import urlset
from support.results import LOCAL, LogCapture, days_ago
from support.rss_audit import linux_only
from support.store_items import BOMB_INFLATED, HOSTILE, zlib_bomb
from support.tables import dynamodb

from harness.environments import container_environment
from harness.servers import Site, reply, robots_with
from sitemap_auditor import handler
from sitemap_auditor.audit import lifetime
from sitemap_auditor.audit import steps as audit
from sitemap_auditor.core import facts
from sitemap_auditor.core.site import resolve
from sitemap_auditor.sharing import dynamostore

FRESH = days_ago(1)
# Healed: the reader's refusal and the table's condition agree, so the audit that meets the item
# takes the lease and its publish replaces the item. The others hold facts stamped within the
# first half of their window: the table refuses a lease over them, and audits fetch by
# themselves until that half is over (the item's next fetch replaces it then).
HEALED = {"fetched_at as text", "lease an hour ahead", "FAIL facts from an hour ahead"}


class Context:
    """A Lambda context with 30 s left: a waiter that waited it out would have no time left."""

    aws_request_id = "store-items"

    def __init__(self) -> None:
        self.deadline = time.monotonic() + 30.0

    def get_remaining_time_in_millis(self) -> int:
        return int((self.deadline - time.monotonic()) * 1000)


@pytest.fixture(autouse=True)
def fresh_store() -> Iterator[None]:
    handler.SHARING.local.clear()
    yield
    handler.SHARING.local.clear()


def a_site(site: Site) -> None:
    site.route("/robots.txt", robots_with(f"Sitemap: {site.url('/sitemap.xml')}"))
    site.route("/sitemap.xml", reply(urlset([FRESH, days_ago(3)])))


def key_of(site: Site) -> str:
    base = resolve(site.url("/"))
    assert base is not None
    return audit.share_request(base, None, LOCAL, None, None, lifetime.PROCESS_KEY).key


def without_date(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "date"}


def emf(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    printed = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    found: dict[str, Any] = [x for x in printed if "_aws" in x][-1]
    return found


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_item_counts_as_no_item(
    name: str,
    local_aws: str,
    table: str,
    site: Site,
    logs: LogCapture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    a_site(site)
    make, why = HOSTILE[name]
    client = dynamodb(local_aws)
    client.put_item(TableName=table, Item=make(key_of(site), time.time()))
    capsys.readouterr()
    started = time.monotonic()
    shared = handler.run(
        {"id": "hostile", "url": site.url("/page")},
        Context(),
        replace(LOCAL, share_seconds=60, cache_table=table),
    )
    took = time.monotonic() - started
    metrics = emf(capsys)
    fetched = sum(1 for p in site.paths() if p == "/sitemap.xml")
    alone = handler.run({"id": "alone", "url": site.url("/page")}, None, LOCAL)
    assert without_date(shared) == without_date(alone)
    assert shared["status"] == "SUCCESS" and "ran out of time" not in json.dumps(shared)
    assert fetched == 1 and took < 10.0, took
    assert metrics["StoreItemsRejected"][0] >= 1
    rejected = [x for x in logs.lines() if x.get("message") == "store item rejected"]
    assert len(rejected) == 1 and why in rejected[0]["reason"], rejected
    assert len(rejected[0]["reason"]) <= 300
    finished = next(x for x in logs.lines() if x.get("message") == "audit finished")
    assert finished["store_items_rejected"] >= 1
    if name in HEALED:
        # The audit's own facts replaced the item, and a second audit reuses them.
        raw = client.get_item(TableName=table, Key={"pk": {"S": key_of(site)}})["Item"]
        got, note = dynamostore.read_item(raw, time.time())
        assert note is None and got.facts is not None and got.facts.selected is not None
        handler.SHARING.local.clear()
        again = handler.run(
            {"id": "again", "url": site.url("/other")},
            None,
            replace(LOCAL, share_seconds=60, cache_table=table),
        )
        assert without_date(again) == without_date(alone)
        assert sum(1 for p in site.paths() if p == "/sitemap.xml") == 2  # the alone one only


MEASURED = """
import json, sys, time
from sitemap_auditor import handler

def status(field):
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024

handler.run({"id": "warm-up", "url": sys.argv[2]}, None)
resident = status("VmRSS")
with open("/proc/self/clear_refs", "w", encoding="ascii") as clear:
    clear.write("5")
result = handler.run({"id": "measured", "url": sys.argv[1]}, None)
print(json.dumps({"result": result, "rss_growth": status("VmHWM") - resident}))
"""


@linux_only
def test_a_zlib_bomb_in_the_table_costs_no_more_than_its_stated_bound(
    local_aws: str, table: str, site: Site, other_site: Site
) -> None:
    a_site(site)
    a_site(other_site)  # the warm-up: boto3's client, the imports, the first buffers
    bomb = zlib_bomb(facts.MAX_FACTS_BYTES, BOMB_INFLATED)  # ~15 KB that inflate to 15 MiB
    make, _ = HOSTILE["zlib bomb"]
    item = make(key_of(site), time.time())
    assert item["facts"]["B"] == bomb
    dynamodb(local_aws).put_item(TableName=table, Item=item)
    tests = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, site.url("/page"), other_site.url("/")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**container_environment(local_aws, table), "PYTHONPATH": str(tests)},
        check=True,
    )
    measured = json.loads(done.stdout.splitlines()[-1])
    alone = handler.run({"id": "alone", "url": site.url("/page")}, None, LOCAL)
    assert without_date(measured["result"]) == without_date(alone)
    # Was +613 MiB. Now the stated bound (4 MiB) plus a step, the JSON never built (5.5 MiB).
    assert measured["rss_growth"] < 16 << 20, measured["rss_growth"]
