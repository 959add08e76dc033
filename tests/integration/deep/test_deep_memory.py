"""The deep audit's structures that must not grow with what a site lists, measured with
tracemalloc at scale (pure, but seconds each: beside the tests/unit layer, which holds their
logic): the table of URLs seen (deep/seen.py) at 16 MiB until 786,432 URLs, then grown by half;
the spool of finding_urls.csv's rows (deep/finding_rows.py) at a run's worth of 30,000 rows."""

from __future__ import annotations

import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from support.deep import SITEMAPS_NS, kinds_of, run

from harness.servers import Site, reply
from sitemap_auditor.deep import checks, finding_rows, walk
from sitemap_auditor.deep.finding_rows import FindingRows
from sitemap_auditor.deep.kinds import Kind
from sitemap_auditor.deep.reports import finding_urls
from sitemap_auditor.deep.seen import SLOT_BYTES, SeenUrls

SITEMAP = "https://e.x/a.xml"


def test_seen_urls_start_at_16_mib_or_what_their_bound_needs() -> None:
    # Measured, not only stated: an array's item size is the platform's (`L` is 8 bytes here).
    tracemalloc.start()
    try:
        small = SeenUrls(max_urls=150)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert small.bytes <= held <= small.bytes + 4096  # the closures and cells besides
    assert SeenUrls().bytes == SLOT_BYTES * checks.DEDUPE_FIRST_SLOTS == 16 * 1024 * 1024
    assert SeenUrls(max_urls=150).bytes == SLOT_BYTES * 1024
    # 786,432 URLs fit in the first table: it grows only past them.
    seen = SeenUrls()
    first = seen.bytes
    urls = [
        hash(f"https://example.com/p{i}") for i in range(checks.DEDUPE_FIRST_SLOTS * 3 // 4 + 1)
    ]
    assert all(seen.add(u, 0) == -1 for u in urls[:-1]) and seen.bytes == first
    assert seen.add(urls[-1], 0) == -1 and seen.bytes == first * 3 // 2
    assert seen.first(seen.add(urls[5], 1))[:2] == (0, 0) and seen.size == len(urls)
    # Every one found again after the growth.
    assert all(seen.first(seen.add(u, 2))[0] == 0 for u in urls)


def test_memory_does_not_grow_with_the_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(finding_rows, "RUN_ROWS", 1024)
    n = 30_000
    document = {
        "sitemaps": [{"url": SITEMAP}],
        "findings": [{"kind": "invalid-url", "sitemap": SITEMAP}],
    }
    url = "https://www.example.com/products/item-{}?colour=blue&size=large"
    tracemalloc.start()
    try:
        with FindingRows() as rows:
            add = rows.sink(0, SITEMAP)
            for i in range(n):
                add(Kind.INVALID_URL, n - i, url.format(i), "")  # in reverse: all sorted
            target = finding_urls.write(document, rows, tmp_path)
        _, spooled = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        held = [(0, n - i, Kind.INVALID_URL, url.format(i), "") for i in range(n)]
        _, holding = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(held) == n
    with target.open(encoding="utf-8-sig") as f:
        lines = f.read().splitlines()
    assert len(lines) == n + 1 and lines[1].endswith(f",1,{url.format(n - 1)},")
    # The spool's peak is a run's worth of rows; holding them would be several times that.
    assert spooled < 2 * 1024 * 1024 and holding > 3 * spooled, (spooled, holding)


def _indexes_of_sitemaps(site: Site, indexes: int, children: int) -> None:
    """robots.txt names an index of `indexes` indexes, each listing `children` sitemaps of its
    own, none of them served."""

    def index_of(locs: list[str]) -> bytes:
        entries = "".join(f"<sitemap><loc>{loc}</loc></sitemap>" for loc in locs)
        return f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">{entries}'.encode() + (
            b"</sitemapindex>"
        )

    root = [site.url(f"/i{i}.xml") for i in range(indexes)]
    site.route(
        "/robots.txt", reply(f"Sitemap: {site.url('/root.xml')}\n", content_type="text/plain")
    )
    site.route("/root.xml", reply(index_of(root)))
    for i in range(indexes):
        locs = [site.url(f"/i{i}/s{k}.xml") for k in range(children)]
        site.route(f"/i{i}.xml", reply(index_of(locs)))


def _peak_of_walk(indexes: int, children: int) -> tuple[int, dict[str, Any]]:
    site = Site().start()
    try:
        _indexes_of_sitemaps(site, indexes, children)
        tracemalloc.start()
        try:
            document = run(site.url("/"), max_sitemaps=indexes + 1)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    finally:
        site.stop()
    return peak, document


def test_sitemaps_listed_past_the_records_kept_are_counted_not_held() -> None:
    # Indexes that list tens of thousands of sitemaps each, past --max-sitemaps: each URL is
    # looked up (a repeat of a recorded one is still a duplicate) but no longer kept, so the
    # walk's memory does not grow with the indexes read.
    small, _ = _peak_of_walk(10, 2000)
    large, document = _peak_of_walk(50, 2000)
    # 80,000 more keys: 12 MB if held; the peaks otherwise differ by a megabyte or two.
    assert large - small < 5 * 1024 * 1024, (small, large)
    assert len(document["sitemaps"]) == 51 + walk.MAX_UNFETCHED_RECORDS
    limit = kinds_of(document)["limit-reached"]
    assert f"{50 * 2000:,} sitemaps not read" in limit["message"], limit["message"]
