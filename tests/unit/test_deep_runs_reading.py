"""The deep reading with runs (runs.py: plain entries read a run at a time) against the same
reading without them (every entry through expat's events): the same entries, lines, cuts,
counts and outcome, on chosen cases. Generated documents in any split of their bytes are
tests/property/test_runs_reading_differential.py's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from support.run_documents import reading

from sitemap_auditor.core.parser import (
    FEED_SLICE_BYTES,
    MAX_NAMES,
    Handlers,
    ParsedSitemap,
    Rejected,
    SitemapParser,
)
from sitemap_auditor.deep.reading.entries import (
    MAX_RETRY_BYTES,
    EntryReader,
)
from sitemap_auditor.deep.reading.runs import read_run


def test_an_entry_of_another_shape_ends_a_run_and_a_run_follows_it() -> None:
    def plain(n: int) -> bytes:
        return b"".join(b"<url><loc>https://e.com/%d</loc></url>\n" % i for i in range(n))

    odd = b"<url><loc>c&amp;d</loc></url>"
    body = b"<urlset>" + plain(100) + odd + plain(300) + b"</urlset>"
    got, outcome, in_runs = reading([body], runs=True)
    assert got == reading([body], runs=False)[0]
    assert [g[1] for g in got][99:102] == ["https://e.com/99", "c&d", "https://e.com/0"]
    assert isinstance(outcome, ParsedSitemap) and outcome.entry_count == 401
    # The first entry and the one with a reference are the handlers'; every other, runs'.
    assert in_runs == 399


class _Counting:
    """The expat parser, its Parse calls counted (what the reading gives it, and how)."""

    def __init__(self, p: Any) -> None:
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "calls", [])

    def Parse(self, data: bytes, final: bool = False) -> int:  # noqa: N802 (expat's name)
        self.calls.append(len(data))
        return int(self.p.Parse(data, final))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.p, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.p, name, value)


def parse_calls(body: bytes) -> tuple[list[int], object, int]:
    """How many bytes each call to expat's Parse was given, the outcome, the entries in runs."""
    counted: list[_Counting] = []
    in_runs = [0]

    class Reader(EntryReader):
        def __call__(self, p: Any) -> Handlers:
            counted.append(_Counting(p))
            return super().__call__(counted[-1])

    def run(lines: Sequence[int], _locs: Sequence[str], _lastmods: Sequence[str | None]) -> None:
        in_runs[0] += len(lines)

    reader = Reader(lambda *_: None)
    reader.on_run = run
    parser = SitemapParser(reader)
    parser.feed(body)
    return counted[0].calls, parser.close(), in_runs[0]


def test_tries_that_find_no_run_grow_apart() -> None:
    # Every entry of another shape: each try reads a small window, once for RETRY_BYTES, then
    # twice as many, up to MAX_RETRY_BYTES; the handlers read the rest in few calls.
    odd = b"".join(b"<url><loc>https://e.com/%d?a&amp;b</loc></url>\n" % i for i in range(20_000))
    body = b"<urlset>" + odd + b"</urlset>"
    calls, outcome, in_runs = parse_calls(body)
    assert in_runs == 0 and isinstance(outcome, ParsedSitemap) and outcome.entry_count == 20_000
    assert len(calls) < 4 * len(body) // MAX_RETRY_BYTES + 32


@pytest.mark.parametrize("holder", [b"<!--%s-->", b"<?pi %s?>", b"<![CDATA[%s]]>"])
def test_end_tags_in_a_long_token_do_not_split_it_again_and_again(holder: bytes) -> None:
    # expat reads an unfinished token again from its start at every call: a comment holding
    # 20,000 `</url>` must not be given to it in 20,000 pieces.
    token = holder % (b"</url>" * 20_000)
    body = b"<urlset><url><loc>a</loc></url>" + token + b"<url><loc>b</loc></url></urlset>"
    calls, outcome, _ = parse_calls(body)
    assert isinstance(outcome, ParsedSitemap) and outcome.entry_count == 2
    assert len(calls) <= 3 * (len(body) // FEED_SLICE_BYTES + 1)


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("<url><loc>a</loc></url>\n<url><loc>b</loc></url>", [7, 8]),
        (
            "<url><loc>a</loc></url>\r\n<url>\n<loc>b</loc>\n</url>\r<url><loc>c</loc></url>",
            [7, 8, 11],
        ),
        ("\n\r<url><loc>a</loc></url>", [9]),
        ("<url><loc>a</loc></url><url><loc>b</loc></url>", [7, 7]),
    ],
)
def test_a_run_counts_lines_as_xml_does(text: str, lines: list[int]) -> None:
    run = read_run(text, 7, 4097, 257)
    assert list(run.lines) == lines and run.end == len(text)


def test_a_run_cuts_text_as_the_handlers_do() -> None:
    loc = "https://e.com/" + "a" * 4082 + "  b"  # its cut ends in white space, then dropped
    run = read_run(f"<url><loc>  {loc} </loc><lastmod> {'9' * 300}</lastmod></url>", 1, 4097, 257)
    assert list(run.locs) == [loc[:4097].rstrip()]
    assert list(run.lastmods) == ["9" * 257]


@pytest.mark.parametrize("odd", ["]]>", "\x01", "\uffff", "&amp;", "\r", "<b/>"])
def test_a_run_stops_where_the_handlers_must_read(odd: str) -> None:
    text = f"<url><loc>a</loc></url><url><loc>b{odd}</loc></url>"
    run = read_run(text, 1, 4097, 257)
    # "]]>" is an error of expat's: the whole run is left to the handlers, who stop at it.
    assert run.end == (0 if odd == "]]>" else len("<url><loc>a</loc></url>"))


def test_names_in_runs_count_against_the_bound_as_the_handlers_count_them() -> None:
    # urlset, url, loc, changefreq (only in runs) and 1,021 more: one past MAX_NAMES.
    others = MAX_NAMES - 3
    plain = b"".join(
        b"<url><loc>p%d</loc><changefreq>daily</changefreq></url>" % i for i in range(50)
    )
    odd = b"<url><loc>x</loc>" + b"".join(b"<x%d/>" % i for i in range(others)) + b"</url>"
    body = b"<urlset><url><loc>a</loc></url>" + plain + odd + b"</urlset>"
    with_runs, without = reading([body], runs=True), reading([body], runs=False)
    assert with_runs[2] > 0  # the changefreq elements were in runs
    assert with_runs[:2] == without[:2]
    assert isinstance(without[1], Rejected) and "distinct element" in without[1].reason


def test_a_run_takes_every_character_expat_hands_on_as_written_and_no_other() -> None:
    # XML's characters (tab, line feed, CR, U+0020 to U+D7FF, U+E000 to U+FFFD, past U+FFFF)
    # but "<", "&" (markup) and CR (read as a line feed): in a run's text; any other, not.
    def xml_char(c: int) -> bool:
        return c in (0x9, 0xA) or 0x20 <= c <= 0xD7FF or 0xE000 <= c <= 0xFFFD or c > 0xFFFF

    points = [*range(0xD800), *range(0xE000, 0x10000), *range(0x10000, 0x110000, 97)]
    for c in points:
        text = f"<url><loc>a{chr(c)}b</loc></url>"
        taken = read_run(text, 1, 4097, 257).end == len(text)
        assert taken == (xml_char(c) and chr(c) not in "<&"), hex(c)


def test_long_entries_are_left_to_the_handlers() -> None:
    # Past LONG_ENTRY_BYTES an entry on average, expat's own scan is faster than the pattern:
    # after a run of such entries, the handlers read MAX_RETRY_BYTES before the next try.
    def long(n: int) -> bytes:
        return b"".join(
            b"<url><loc>https://e.com/%s/%d</loc></url>\n" % (b"x" * 1000, i) for i in range(n)
        )

    body = b"<urlset>" + long(1000) + b"</urlset>"
    _, outcome, in_runs = parse_calls(body)
    assert isinstance(outcome, ParsedSitemap) and outcome.entry_count == 1000
    assert 0 < in_runs < 1000 // 2  # a window now and then, the handlers the rest
    assert reading([body], runs=True)[:2] == reading([body], runs=False)[:2]


def test_runs_stopped_by_entries_of_another_shape_are_tried_less_and_less() -> None:
    # Plain and other entries in turn: each run stops at the next entry, which no try could
    # take; after such a stop the handlers read on as after a failed try, further each time.
    pair = (
        b"<url><loc>https://e.com/%d</loc></url>\n<url><loc>https://e.com/?a&amp;%d</loc></url>\n"
    )
    body = b"<urlset>" + b"".join(pair % (i, i) for i in range(10_000)) + b"</urlset>"
    calls, outcome, _ = parse_calls(body)
    assert isinstance(outcome, ParsedSitemap) and outcome.entry_count == 20_000
    assert len(calls) < 4 * len(body) // MAX_RETRY_BYTES + 64
    assert reading([body], runs=True)[:2] == reading([body], runs=False)[:2]
