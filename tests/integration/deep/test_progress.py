"""Progress moves within a file: a large sitemap read slowly is told entry counts as it is read,
not only once it is done (what a terminal's progress line shows)."""

from __future__ import annotations

import time
from collections.abc import Iterator

from support.deep import SITEMAPS_NS, local_only, serve_listed, urlset_of

from harness.servers import Site, stream
from sitemap_auditor import deep
from sitemap_auditor.deep.walk import PARSE_BATCH_BYTES, PROGRESS_EVERY_S, Progress


def test_progress_moves_within_a_file_read_slowly(site: Site) -> None:
    body = urlset_of(f"<loc>{site.url(f'/p/{i}')}</loc>" for i in range(40_000))
    step = PARSE_BATCH_BYTES + 1

    def slowly() -> Iterator[bytes]:
        for at in range(0, len(body), step):
            yield body[at : at + step]
            time.sleep(PROGRESS_EVERY_S * 1.5)  # each batch read apart from the next

    # Behind an index: the Lambda's verdict reads the index, whose answer the walk reads again
    # (fetching/replay.py); the child is asked for by the walk alone, and comes slowly.
    index = (
        f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">'
        f"<sitemap><loc>{site.url('/sitemap.xml')}</loc></sitemap></sitemapindex>"
    ).encode()
    serve_listed(site, {"/index.xml": index})
    site.route("/sitemap.xml", lambda h: stream(slowly())(h))
    told: list[Progress] = []
    options = deep.Options(
        allow_private_networks=True, resolver=local_only, on_progress=told.append
    )
    walk = deep.audit_walk(site.url("/"), options=options)
    assert walk.urls == 40_000 and site.paths().count("/sitemap.xml") == 1
    within = [p.reading for p in told if p.done == 1 and p.reading]
    # Several counts while the one file was read, never going back, none the whole.
    assert len(set(within)) >= 3, told
    assert within == sorted(within) and within[-1] < 40_000
    # Once done, its URLs are counted as read, and no longer as being read.
    assert told[-1].urls == 40_000 and told[-1].reading == 0


def test_usual_paths_guessed_and_not_there_are_no_sitemaps_done(site: Site) -> None:
    # robots.txt lists none: the three usual paths are tried; one is there. The progress line
    # counts one sitemap done, as the report does ("read 1 sitemap of 1 found").
    site.route(
        "/sitemap.xml", lambda h: stream(iter([urlset_of([f"<loc>{site.url('/a')}</loc>"])]))(h)
    )
    told: list[Progress] = []
    options = deep.Options(
        allow_private_networks=True, resolver=local_only, on_progress=told.append
    )
    walk = deep.audit_walk(site.url("/"), options=options)
    assert len(walk.records) == 3 and walk.urls == 1
    assert told and told[-1].done == 1
