"""The deep audit's heuristics on real files: each one fires on the file that shows it and stays
silent on the real files where it used to raise a false alarm."""

from __future__ import annotations

import re

from support.deep import (
    SITEMAPS_NS,
    corpus_file,
    kinds_of,
    local_only,
    run,
    serve_listed,
    urlset_of,
)

from harness.servers import Site
from sitemap_auditor import deep

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


def _news_and_main(site: Site) -> tuple[bytes, bytes]:
    # The real news sitemap, moved to this site, and a main sitemap listing the same articles
    # (the normal publisher setup), plus a repeat within the main sitemap itself.
    news = corpus_file(NEWS).replace(b"https://ozarks.cgnnews.net", site.base.encode())
    locs = list(dict.fromkeys(re.findall(rb"<loc>([^<]*)</loc>", news)))
    assert len(locs) > 100
    entries = [f"<loc>{u.decode()}</loc>" for u in locs] + [f"<loc>{locs[0].decode()}</loc>"]
    return news, urlset_of(entries)


def test_a_news_sitemap_repeating_the_main_one_is_a_notice_not_a_duplicate(site: Site) -> None:
    news, main = _news_and_main(site)
    index = (
        f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">'
        f"<sitemap><loc>{site.url('/post-sitemap.xml')}</loc></sitemap>"
        f"<sitemap><loc>{site.url('/news-sitemap.xml')}</loc></sitemap></sitemapindex>"
    ).encode()
    serve_listed(
        site, {"/sitemap_index.xml": index, "/post-sitemap.xml": main, "/news-sitemap.xml": news}
    )
    doc = run(site.url("/"), concurrency=1)
    in_news = kinds_of(doc, site.url("/news-sitemap.xml"))
    listed = re.findall(rb"<loc>([^<]*)</loc>", news)
    distinct = len(set(listed))
    assert (len(listed), distinct) == (117, 115)  # the real file lists two articles twice
    also = in_news["also-in-news-sitemap"]
    assert also["severity"] == "notice" and also["source"] == "tool"
    assert also["count"] == distinct
    # Its own two repeats are duplicates within the file, whatever the main sitemap lists.
    assert in_news["duplicate-url"]["count"] == 2
    assert "within this file" in in_news["duplicate-url"]["message"]
    assert "expected" in also["message"]
    # A repeat within one file stays a warning, and says so.
    dup = kinds_of(doc, site.url("/post-sitemap.xml"))["duplicate-url"]
    assert dup["count"] == 1 and dup["severity"] == "warning"
    assert "within this file" in dup["message"]


def test_a_walk_keeps_no_count_of_each_value_once_a_file_is_checked(site: Site) -> None:
    # The count of each distinct <lastmod> serves identical-lastmods only, judged when the file
    # is done: a walk of many files, each with a value per entry, must not keep up to 10,000 of
    # them for every file (a 10,000,000-URL site grew by 200 MiB so).
    stamps = [f"2025-03-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00+01:00" for i in range(60)]
    distinct = urlset_of(
        f"<loc>{site.url(f'/d{i}')}</loc><lastmod>{m}</lastmod>" for i, m in enumerate(stamps)
    )
    index = (
        f'<sitemapindex xmlns="{SITEMAPS_NS}"><sitemap><loc>{site.url("/d.xml")}</loc></sitemap>'
        f"<sitemap><loc>{site.url('/m.xml')}</loc></sitemap></sitemapindex>"
    ).encode()
    serve_listed(site, {"/i.xml": index, "/d.xml": distinct, "/m.xml": corpus_file(MKDOCS)})
    options = deep.Options(allow_private_networks=True, resolver=local_only)
    walked = deep.audit_walk(site.url("/"), options=options)
    files = {r.url.rsplit("/", 1)[1]: r for r in walked.records}
    for name in ("d.xml", "m.xml"):
        stats = files[name].lastmod
        assert stats is not None and stats.count > 0 and stats.values == {}
    assert files["d.xml"].lastmod is not None and files["d.xml"].lastmod.count == 60
    doc = run(site.url("/"))
    assert "identical-lastmods" in kinds_of(doc, site.url("/m.xml"))
    assert "identical-lastmods" not in kinds_of(doc, site.url("/d.xml"))
