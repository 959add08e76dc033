"""The deep audit's heuristics on real files: each one fires on the file that shows it and stays
silent on the real files where it used to raise a false alarm."""

from __future__ import annotations

import re

from support.deep import corpus_file, kinds_of, run, serve_listed

from harness.servers import Site

INDEX = "sitemapindex-642-crlf-sindioses.xml"
NEWS = "urlset-news-117-ozarks.xml"
MKDOCS = "urlset-mkdocs-date-only-0install.xml"


def test_identical_lastmods_fires_on_one_value_for_every_entry(site: Site) -> None:
    # MkDocs writes the build's date on all 83 entries.
    serve_listed(site, {"/s.xml": corpus_file(MKDOCS)})
    found = kinds_of(run(site.url("/")))
    assert found["identical-lastmods"]["count"] == 83
    assert found["identical-lastmods"]["source"] == "tool"


def test_an_index_rebuilt_together_has_no_identical_lastmods(site: Site) -> None:
    # A real index of 642 children, every child rebuilt at one moment: the index's <lastmod>
    # is each child file's time, so equal values are right.
    body = re.sub(
        rb"<lastmod>[^<]*</lastmod>",
        b"<lastmod>2025-11-16T22:42:00Z</lastmod>",
        corpus_file(INDEX),
    )
    assert body.count(b"2025-11-16T22:42:00Z") >= 600
    serve_listed(site, {"/sitemap_index.xml": body})
    doc = run(site.url("/"), max_sitemaps=2)
    assert "identical-lastmods" not in kinds_of(doc)


def test_distinct_timestamps_within_two_days_are_not_identical(site: Site) -> None:
    # A "last two days" sitemap: 117 entries, 73 distinct timestamps over two days. Without its
    # <news:news> blocks it is read as a regular sitemap, which the rule must still leave alone.
    body = re.sub(rb"(?s)<news:news>.*?</news:news>", b"", corpus_file(NEWS))
    assert b"<news:news>" not in body
    serve_listed(site, {"/recent.xml": body})
    doc = run(site.url("/"))
    assert doc["sitemaps"][0]["entries"] == 117
    assert doc["sitemaps"][0]["lastmod"]["distinctDays"] <= 2
    assert "identical-lastmods" not in kinds_of(doc)
