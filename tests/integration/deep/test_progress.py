"""Progress moves within a file: a large sitemap read slowly is told entry counts as it is read,
not only once it is done (what a terminal's progress line shows)."""

from __future__ import annotations

import time
from collections.abc import Iterator

from support.deep import local_only, serve_listed, urlset_of

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

    serve_listed(site, {"/sitemap.xml": b""})
    site.route("/sitemap.xml", lambda h: stream(slowly())(h))  # each request from the start
    told: list[Progress] = []
    options = deep.Options(
        allow_private_networks=True, resolver=local_only, on_progress=told.append
    )
    walk = deep.audit_walk(site.url("/"), options=options)
    assert walk.urls == 40_000
    within = [p.reading for p in told if p.done == 0 and p.reading]
    # Several counts while the one file was read, never going back, none the whole.
    assert len(set(within)) >= 3, told
    assert within == sorted(within) and within[-1] < 40_000
    # Once done, its URLs are counted as read, and no longer as being read.
    assert told[-1].urls == 40_000 and told[-1].reading == 0
