"""The duplicate table in its helper process: the same repeats, in the same order, as the table
in the walk's own process; a helper that dies or cannot start is a notice, never a hang."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from support.deep import SITEMAPS_NS, local_only, serve_listed, urlset_of
from support.deep_schema import validated

from harness.servers import Site
from sitemap_auditor import deep
from sitemap_auditor.deep import seen
from sitemap_auditor.deep.seen import Duplicates

Told = tuple[int | None, str, int]


def _feed(d: Duplicates, urls_per_file: list[list[str]], first: int = 0) -> list[tuple[int, Told]]:
    """Each file's URLs (numbered from first), alternately one by one and in runs of 7; what
    was reported, by file."""
    told: list[tuple[int, Told]] = []
    for number, urls in enumerate(urls_per_file, first):

        def report(line: int | None, url: str, again: int, number: int = number) -> None:
            told.append((number, (line, url, again)))

        at = 0
        while at < len(urls):
            if (at // 7) % 2:
                for i, url in enumerate(urls[at : at + 7], at):
                    d.add(url, number, i + 1, report)
            else:
                run = urls[at : at + 7]
                d.add_run(run, number, _lines_from(at + 1, len(run)), report)
            at += 7
    d.settle()
    return told


def _lines_from(first: int, count: int) -> Callable[[], Sequence[int | None]]:
    return lambda: range(first, first + count)


def _site_urls(files: int, per_file: int) -> list[list[str]]:
    # Repeats within a file (every 5th URL again) and across files (the same 40 in each).
    out = []
    for f in range(files):
        urls = [f"https://example.com/f{f}/p{i}" for i in range(per_file)]
        urls += [f"https://example.com/f{f}/p{i}" for i in range(0, per_file, 5)]
        urls += [f"https://example.com/shared/{i}" for i in range(40)]
        out.append(urls)
    return out


@pytest.mark.parametrize("max_urls", [seen.DEFAULT_MAX_DEDUPE_URLS, 1000])
def test_the_helper_reports_what_the_table_here_reports(max_urls: int) -> None:
    urls = _site_urls(6, 400)
    here = Duplicates(max_urls, helper_from=None)
    away = Duplicates(max_urls, helper_from=0)
    try:
        expected = _feed(here, urls)
        got = _feed(away, urls)
        assert away.helper_used and not here.helper_used
        assert got == expected
        assert len(expected) > 300  # not a vacuous comparison
        here.close()
        away.close()
        assert (away.size, away.full) == (here.size, here.full)
        assert away.full is (max_urls == 1000)
        assert away.bytes == here.bytes
        assert away.helper_peak_kib is not None and away.helper_peak_kib != 0
    finally:
        here.close()
        away.close()


def test_the_table_is_handed_over_midway_with_what_it_held() -> None:
    urls = _site_urls(40, 400)
    here = Duplicates(helper_from=None)
    later = Duplicates(helper_from=2000)
    try:
        expected = _feed(here, urls)
        # The helper is started at 1,000 URLs; once it is ready, the next URL asked of past
        # 2,000 hands it the table: in the first half if it is ready by then, else at the
        # start of the second.
        got = _feed(later, urls[:20])
        helper = later._helper
        assert helper is not None and helper.wait_ready()
        got += _feed(later, urls[20:], first=20)
        assert later.helper_used
        assert got == expected
        later.close()
        here.close()
        assert later.size == here.size
    finally:
        here.close()
        later.close()


def test_a_helper_that_dies_is_a_notice_not_a_hang() -> None:
    d = Duplicates(helper_from=0)
    try:
        told = _feed(d, _site_urls(2, 100))
        assert told  # the helper answered
        helper = d._helper
        assert helper is not None
        helper.process.kill()
        helper.process.wait()
        _feed(d, _site_urls(3, 100), first=2)  # returns: nothing waits for the dead helper
        d.close()
        assert d.full
        assert 0 < d.max_urls <= 2 * 160  # only what was answered for before it died
    finally:
        d.close()


def test_without_an_interpreter_to_start_the_table_stays_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "executable", "")
    d = Duplicates(helper_from=0)
    expected = _feed(Duplicates(helper_from=None), _site_urls(3, 50))
    assert _feed(d, _site_urls(3, 50)) == expected
    assert not d.helper_used
    d.close()
    assert not d.full


def _audit(url: str, helper_from: int | None) -> dict[str, Any]:
    # One fetch at a time: with several, which file lists a shared URL first is a race.
    options = deep.Options(
        limits=deep.Limits(concurrency=1),
        allow_private_networks=True,
        resolver=local_only,
        dedupe_helper_from=helper_from,
    )
    doc = validated(deep.audit(url, options=options))
    doc.pop("run")  # what varies from run to run, and nothing else
    return doc


def test_a_deep_audit_with_the_helper_says_what_one_without_it_says(site: Site) -> None:
    # An index of three files: repeats within each (plain runs and entries with images) and
    # across them.
    def entries(name: str) -> list[str]:
        plain = [f"<loc>{site.url(f'/{name}/p{i}')}</loc>" for i in range(300)]
        shared = [
            f"<loc>{site.url(f'/shared/{i}')}</loc><lastmod>2024-05-01</lastmod>" for i in range(50)
        ]
        image = "<image:image><image:loc>https://cdn.example/x.png</image:loc></image:image>"
        with_images = [f"<loc>{site.url(f'/{name}/i{i}')}</loc>{image}" for i in range(20)]
        return plain + shared + plain[::7] + with_images + with_images[::3]

    image_ns = ' xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'
    children = "".join(f"<sitemap><loc>{site.url(f'/{n}.xml')}</loc></sitemap>" for n in "abc")
    serve_listed(
        site,
        {
            "/index.xml": f'<sitemapindex xmlns="{SITEMAPS_NS}">{children}</sitemapindex>'.encode(),
            **{f"/{n}.xml": urlset_of(entries(n), image_ns) for n in "abc"},
        },
    )
    without = _audit(site.url("/"), None)
    with_helper = _audit(site.url("/"), 0)
    assert with_helper == without
    repeats = [f for f in without["findings"] if f["kind"] == "duplicate-url"]
    assert len(repeats) == 3 and sum(f["count"] for f in repeats) == 3 * 50 + 2 * 50


def test_the_helper_is_given_no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SITEMAP_AUDITOR_TEST_SECRET", "s3cr3t")
    d = Duplicates(helper_from=0)
    try:
        helper = d._helper
        assert helper is not None and helper.wait_ready()
        environ = Path(f"/proc/{helper.process.pid}/environ").read_bytes()
        assert b"s3cr3t" not in environ and environ == b""
    finally:
        d.close()


def test_what_waits_for_the_helper_is_bounded_in_characters_too() -> None:
    # Runs of a few URLs, each keeping a large text alive (a hostile file's padded slices): the
    # URLs are few, but what is held waiting for answers stays under the characters' bound.
    d = Duplicates(helper_from=0)
    big = 1 << 20
    try:
        for i in range(60):
            urls = [f"https://example.com/{i}/{k}" for k in range(3)]
            d.add_run(urls, 0, _lines_from(1, 3), lambda *told: None, held=big)
            held = d._in_flight_chars + d._out_chars
            assert held <= seen.MAX_IN_FLIGHT_CHARS + seen._MESSAGE_CHARS + big
        assert d._sends >= 60 * big // seen._MESSAGE_CHARS - 1  # sent by characters, not URLs
        d.settle()
        assert d._in_flight_chars == 0
    finally:
        d.close()
