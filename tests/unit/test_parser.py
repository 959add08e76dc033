"""The streaming parser: roots, entries, lastmods, protections; chunking changes nothing."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest
from support.documents import sitemapindex, urlset

from sitemap_auditor.core.issues import Kind
from sitemap_auditor.core.parser import (
    EntryRun,
    ParsedSitemap,
    Rejected,
    SitemapParser,
    parse_bytes,
)

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
CHUNK_SIZES = (1, 7, 64 * 1024)


def chunked(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def parse(data: bytes, sizes: Sequence[int] = CHUNK_SIZES) -> ParsedSitemap | Rejected:
    """Parse data whole and in every chunk size; the answers must agree."""
    answers = {size: parse_bytes(chunked(data, size)) for size in sizes}
    whole = parse_bytes([data])
    for size, answer in answers.items():
        assert answer == whole, f"chunks of {size} bytes changed the answer"
    return whole


def parsed(data: bytes, sizes: Sequence[int] = CHUNK_SIZES) -> ParsedSitemap:
    result = parse(data, sizes)
    assert isinstance(result, ParsedSitemap), result
    return result


def rejected(data: bytes) -> str:
    result = parse(data)
    assert isinstance(result, Rejected), result
    return result.reason


def test_urlset_counts_entries_and_keeps_the_latest_lastmod() -> None:
    p = parsed(urlset(["2026-01-01", "2026-10-16T09:30:00+02:00", None, "2025-12-31T23:59:59Z"]))
    assert p.root == "urlset"
    assert p.entry_count == 4
    assert p.latest_lastmod == datetime(2026, 10, 16, 7, 30, tzinfo=UTC)
    assert p.unparsable_total == 0


def test_sitemapindex() -> None:
    p = parsed(sitemapindex(["2026-03", "2026-02-01"]))
    assert (p.root, p.entry_count) == ("sitemapindex", 2)
    assert p.latest_lastmod == datetime(2026, 3, 31, 23, 59, 59, tzinfo=UTC)


@pytest.mark.parametrize(
    "root",
    [
        "<urlset>",
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
        '<s:urlset xmlns:s="urn:anything">',
        '<urlset xmlns="http://www.google.com/schemas/sitemap/0.84">',
    ],
)
def test_root_in_any_namespace_or_none(root: str) -> None:
    close = "</s:urlset>" if root.startswith("<s:") else "</urlset>"
    prefix = "s:" if root.startswith("<s:") else ""
    doc = f"{root}<{prefix}url><{prefix}lastmod>2026-01-01</{prefix}lastmod></{prefix}url>{close}"
    p = parsed(doc.encode())
    assert p.entry_count == 1 and p.latest_lastmod is not None


def test_extension_elements_are_neither_entries_nor_lastmods() -> None:
    doc = b"""<?xml version="1.0"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc>https://ex.com/</loc>
    <news:news><news:publication_date>2030-01-01</news:publication_date>
      <lastmod>2030-01-01</lastmod></news:news>
    <image:image><image:loc>https://ex.com/i.png</image:loc></image:image>
    <lastmod>2026-01-01</lastmod>
  </url>
  <sitemap><lastmod>2031-01-01</lastmod></sitemap>
  <lastmod>2032-01-01</lastmod>
</urlset>"""
    p = parsed(doc)
    assert p.entry_count == 1
    assert p.latest_lastmod == datetime(2026, 1, 1, 23, 59, 59, tzinfo=UTC)


def test_unknown_root_is_named() -> None:
    assert rejected(b'<?xml version="1.0"?><rss version="2.0"><channel/></rss>') == (
        "unknown root element <rss>"
    )
    assert rejected(b"<html><body>Not found</body></html>") == "unknown root element <html>"


@pytest.mark.parametrize("body", [b"", b"   \r\n\t  "])
def test_empty_body(body: bytes) -> None:
    assert rejected(body) == "empty body"


def test_not_well_formed_under_a_correct_root_is_refused_with_line_and_column() -> None:
    doc = b"<urlset>\n<url><lastmod>2026-01-01</lastmod></url>\n<url></urlset>"
    reason = rejected(doc)
    assert reason.startswith("not well-formed XML at line 3, column")


def test_truncated_document_is_refused_at_close() -> None:
    doc = urlset(["2026-01-01"] * 50)
    reason = rejected(doc[: len(doc) // 2])
    assert reason.startswith("not well-formed XML")


def test_garbage_and_binary() -> None:
    assert rejected(b"\x00\x01\x02\xff\xfe garbage").startswith("not well-formed XML")
    assert rejected(b"Sitemap as text\nhttps://ex.com/\n").startswith("not well-formed XML")


def test_entity_declarations_are_refused() -> None:
    bomb = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;">]>
<urlset><url><lastmod>&lol2;</lastmod></url></urlset>"""
    assert rejected(bomb) == "refused XML construct: entity declaration 'lol'"


def test_external_entities_are_refused() -> None:
    xxe = b"""<?xml version="1.0"?>
<!DOCTYPE urlset [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<urlset><url><lastmod>&xxe;</lastmod></url></urlset>"""
    assert rejected(xxe).startswith("refused XML construct: entity declaration 'xxe'")
    param = b"""<?xml version="1.0"?>
<!DOCTYPE urlset [<!ENTITY % p SYSTEM "http://169.254.169.254/latest/"> %p;]>
<urlset/>"""
    assert rejected(param).startswith("refused XML construct")


def test_a_plain_doctype_is_allowed_and_an_external_dtd_never_fetched() -> None:
    doc = b"""<?xml version="1.0"?>
<!DOCTYPE urlset SYSTEM "http://127.0.0.1:9/never-fetched.dtd">
<urlset><url><lastmod>2026-01-01</lastmod></url></urlset>"""
    assert parsed(doc).entry_count == 1
    assert parsed(b"<!DOCTYPE urlset><urlset/>").entry_count == 0


def test_unparsable_lastmods_are_counted_and_sampled_under_caps() -> None:
    values = [f"bad-{i}-" + "x" * 200 for i in range(50_000)] + ["2026-05-05"]
    p = parse_bytes([urlset(values)])
    assert isinstance(p, ParsedSitemap)
    assert p.unparsable_total == 50_000
    assert len(p.unparsable_samples) == 20
    assert all(len(s) <= 100 for s in p.unparsable_samples)
    assert p.latest_lastmod == datetime(2026, 5, 5, 23, 59, 59, tzinfo=UTC)


def test_whitespace_around_lastmod_is_trimmed_and_empty_is_unparsable() -> None:
    p = parsed(urlset(["\n   2026-01-01\n  ", "", "  "]))
    assert p.latest_lastmod == datetime(2026, 1, 1, 23, 59, 59, tzinfo=UTC)
    assert p.unparsable_total == 2
    assert p.unparsable_samples == ("", "")


def test_huge_lastmod_text_stays_bounded() -> None:
    # Not in one-byte chunks: five million feeds would only time the loop.
    p = parsed(urlset(["2" * 5_000_000]), sizes=[c for c in CHUNK_SIZES if c >= 1000])
    assert p.unparsable_total == 1
    assert len(p.unparsable_samples[0]) == 100


def test_utf16_and_bom() -> None:
    text = urlset(["2026-01-01"]).decode().replace('encoding="UTF-8"', 'encoding="UTF-16"')
    assert parsed(text.encode("utf-16")).entry_count == 1
    assert parsed(b"\xef\xbb\xbf" + urlset(["2026-01-01"])).entry_count == 1


def test_latin1_declared_encoding() -> None:
    doc = '<?xml version="1.0" encoding="ISO-8859-1"?><urlset><url><loc>https://ex.com/é</loc>'
    doc += "<lastmod>2026-01-01</lastmod></url></urlset>"
    assert parsed(doc.encode("latin-1")).entry_count == 1


def test_feeding_after_the_answer_is_known_changes_nothing() -> None:
    parser = SitemapParser()
    parser.feed(b"<rss>")
    assert parser.finished
    parser.feed(b"<urlset>" * 1000)
    assert parser.close() == Rejected(Kind.UNKNOWN_ROOT, "unknown root element <rss>")


EXPECTED_CORPUS = {
    "other-rss-served-as-sitemap-snippets.xml": "unknown root element <rss>",
    "sitemapindex-hugo-multilingual-111qqz.xml": ("sitemapindex", 2, "2025-01-01T03:37:00"),
    "sitemapindex-shopify-no-lastmod-beigebrown.xml": ("sitemapindex", 12, None),
    "sitemapindex-wp-yoast-staatic-adcert.xml": ("sitemapindex", 4, "2025-11-28T10:11:06"),
    "urlset-docusaurus-polygon-edge-docs.xml": ("urlset", 23, None),
    "urlset-handwritten-leading-space-crlf-adakhome.xml": "not well-formed XML at line 1",
    "urlset-hugo-xhtml-hreflang-1709-111qqz.xml": ("urlset", 1709, "2025-01-01T03:37:00"),
    "urlset-jekyll-sitemap-b10g.xml": ("urlset", 5, "2017-12-18T15:16:16"),
    "urlset-mkdocs-date-only-0install.xml": ("urlset", 83, "2026-07-24T23:59:59"),
    "urlset-next-sitemap-0xadada.xml": ("urlset", 56, "2022-01-29T19:11:10.120000"),
    "urlset-shopify-products-image-hreflang-beigebrown.xml": ("urlset", 601, "2025-09-14T12:04:16"),
    "urlset-unparsable-offset-computly.xml": ("urlset", 1, None),
    "urlset-video-bare-ampersand-1511-thefurnaceoutlet.xml": "not well-formed XML at line 4319",
    "urlset-video-no-lastmod-adakhome.xml": ("urlset", 5, None),
    "urlset-wp-rankmath-news-no-lastmod-motormahal.xml": ("urlset", 22, None),
    "urlset-wp-yoast-image-10beasts.xml": ("urlset", 14, "2017-04-17T13:32:22"),
    "urlset-wp-yoast-image-leading-newline-10beasts.xml": "not well-formed XML at line 2",
}


@pytest.mark.parametrize("name", sorted(EXPECTED_CORPUS))
def test_real_world_sitemaps(name: str) -> None:
    expected = EXPECTED_CORPUS[name]
    result = parse((CORPUS / name).read_bytes())
    if isinstance(expected, str):
        assert isinstance(result, Rejected)
        assert result.reason.startswith(expected)
    else:
        assert isinstance(result, ParsedSitemap)
        latest = (
            result.latest_lastmod.replace(tzinfo=None).isoformat()
            if result.latest_lastmod
            else None
        )
        assert (result.root, result.entry_count, latest) == expected


@pytest.mark.parametrize(
    ("content", "parsable"),
    [
        ("2026-01-01" + " " * 300, True),  # white space does not count against the cap
        (" " * 300 + "2026-01-01" + "\n" * 300, True),
        ("2026-01-01" + " " * 300 + "x", False),  # text past the cap, however it is cut
        ("2026-01-01" + "0" * 300, False),
    ],
)
def test_lastmod_cap_counts_the_trimmed_value(content: str, parsable: bool) -> None:
    p = parsed(urlset([content]))
    assert (p.latest_lastmod is not None) is parsable
    assert p.unparsable_total == (0 if parsable else 1)


@pytest.mark.parametrize(
    "encoding", ["Shift_JIS", "EUC-JP", "GB18030", "Big5", "EUC-KR", "windows-1252", "UTF-32"]
)
def test_encodings_expat_cannot_read_are_decoded_first(encoding: str) -> None:
    doc = (
        f'<?xml version="1.0" encoding="{encoding}"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<url><loc>https://example.jp/製品/ページ</loc><lastmod>2026-05-05</lastmod></url>"
        "<url><loc>https://example.jp/会社</loc><lastmod>2026-05-06T10:00:00+09:00</lastmod></url>"
        "</urlset>"
    )
    data = doc.encode(encoding, errors="xmlcharrefreplace")
    if encoding == "UTF-32":
        data = doc.encode("utf-32")  # with its byte order mark
    p = parsed(data)
    assert p.entry_count == 2
    assert p.latest_lastmod == datetime(2026, 5, 6, 1, 0, tzinfo=UTC)


def test_bytes_that_do_not_decode_are_refused() -> None:
    doc = b'<?xml version="1.0" encoding="Shift_JIS"?><urlset><url>\x81\x00</url></urlset>'
    assert rejected(doc) == "not well-formed XML: bytes that are not shift_jis"


@pytest.mark.parametrize("encoding", ["x-unknown-9", "rot13", "base64"])
def test_encodings_nobody_can_read_are_refused(encoding: str) -> None:
    doc = urlset(["2026-01-01"]).replace(b'encoding="UTF-8"', f'encoding="{encoding}"'.encode())
    assert isinstance(parse(doc), Rejected)


_NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


@pytest.mark.parametrize(
    "body",
    [
        # A <lastmod> in mixed content ends at its first child's end, as the Lambda reads it.
        f"<urlset {_NS}><url><loc>a</loc><lastmod>2020<b>x</b>-01-01</lastmod></url></urlset>",
        # In any namespace, at an entry's second level only.
        f'<urlset {_NS} xmlns:i="http://www.google.com/schemas/sitemap-image/1.1"><url>'
        "<i:lastmod>2021-05-05</i:lastmod><i:image><lastmod>2030-01-01</lastmod></i:image>"
        "</url></urlset>",
        # Not an entry: its children are not read.
        f"<urlset {_NS}><foo><lastmod>2030-01-01</lastmod></foo><url><loc>b</loc></url></urlset>",
        # Unparsable and overlong values, counted and sampled.
        f"<urlset {_NS}><url><lastmod>soon</lastmod></url><url><lastmod>"
        + "9" * 300
        + "</lastmod></url><url><lastmod>  2022-02-02  </lastmod></url></urlset>",
        f"<sitemapindex {_NS}><sitemap><loc>c</loc><lastmod>2023-03-03</lastmod></sitemap>"
        "</sitemapindex>",
    ],
)
@pytest.mark.parametrize("size", [1 << 20, 5, 1])
def test_the_deep_audit_s_handlers_read_the_lambda_s_facts(body: str, size: int) -> None:
    # With an entry callback the parser's handlers do the Lambda's part themselves.
    data = body.encode()

    def parse(parser: SitemapParser) -> object:
        for at in range(0, len(data), size):
            parser.feed(data[at : at + size])
        return parser.close()

    assert parse(SitemapParser(on_entry=lambda *_: None)) == parse(SitemapParser())


_PAGES = "".join(f"<url><loc>https://example.com/p{i}</loc></url>\n" for i in range(100))


@pytest.mark.parametrize(
    ("opening", "closing"),
    [("<!-- ", " -->"), ("<![CDATA[", "]]>"), ("<?note ", "?>"), ("<foo>", "</foo>")],
)
def test_entries_inside_a_comment_cdata_or_element_are_not_read_as_a_run(
    opening: str, closing: str
) -> None:
    # A slice that starts inside a comment, a CDATA section, a processing instruction or an
    # element that is no entry holds text that looks like entries: expat holds, or is in, the
    # construct, and the parser must not read it as a run of entries.
    head = f'<?xml version="1.0"?>\n<urlset {_NS}>\n<url><loc>https://example.com/a</loc></url>\n'
    chunks = [(head + opening).encode(), _PAGES.encode(), (closing + "\n</urlset>\n").encode()]
    seen: list[str | None] = []
    runs: list[int] = []
    parser = SitemapParser(
        on_entry=lambda _line, loc, *_: seen.append(loc),
        on_run=lambda run: runs.append(len(run.locs)),
    )
    for chunk in chunks:
        parser.feed(chunk)
    result = parser.close()
    assert isinstance(result, ParsedSitemap) and result.entry_count == 1
    assert (seen, runs) == (["https://example.com/a"], [])


def test_a_run_gives_lines_as_expat_counts_them() -> None:
    # LF, CR LF and a lone CR each end a line; entries several to a line, or over several.
    body = (
        f'<?xml version="1.0"?>\n<urlset {_NS}>\n'
        + "".join(
            f"<url><loc>https://example.com/{i}</loc></url>{sep}"
            for i, sep in zip(range(400), ["\n", "\r\n", "\r", "", "\n\n"] * 80, strict=True)
        )
        + "<url>\r\n<loc>\r\n https://example.com/last\r\n</loc>\r\n</url>\r\n</urlset>\r\n"
    ).encode()

    def lines(chunks: list[bytes]) -> list[tuple[int, str | None]]:
        out: list[tuple[int, str | None]] = []
        parser = SitemapParser(on_entry=lambda line, loc, *_: out.append((line, loc)))
        for chunk in chunks:
            parser.feed(chunk)
        parser.close()
        return out

    by_handlers = lines(chunked(body, 300))
    assert by_handlers == lines([body])
    before = body[: body.index(b"<url>\r\n")].replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    assert by_handlers[-1] == (before.count(b"\n") + 1, "https://example.com/last")
    assert len(by_handlers) == 401


@pytest.mark.parametrize(
    "odd",
    [
        "<loc>https://example.com/x\x01y</loc>",  # a character XML forbids: refused there
        "<loc>https://example.com/x</loc><lastmod>2024-01-01\x0b</lastmod>",
        "<loc>https://example.com/x\ry</loc><lastmod>2024-01-01\r\n</lastmod>",  # CR read as LF
        "<loc>https://example.com/x&amp;y=&lt;z&gt;</loc>",
        "<loc>https://example.com/x]]>y</loc>",  # not allowed in text: refused there
        "<loc> https://example.com/x\t</loc><lastmod>\n2024-01-01</lastmod>",
    ],
)
def test_a_run_with_one_odd_entry_reads_as_the_handlers_do(odd: str) -> None:
    # Among 300 plain entries, one whose text a run's quicker expression would misread.
    entries = [f"<url><loc>https://example.com/p{i}</loc></url>\n" for i in range(300)]
    entries[150] = f"<url>{odd}</url>\n"
    body = (f'<?xml version="1.0"?>\n<urlset {_NS}>\n' + "".join(entries) + "</urlset>\n").encode()

    def read(chunks: list[bytes]) -> tuple[list[tuple[object, ...]], object, int]:
        seen: list[tuple[object, ...]] = []
        runs: list[int] = []

        def run(r: EntryRun) -> None:
            runs.append(len(r.locs))
            seen.extend(zip(r.lines(), r.locs, r.lastmods, strict=True))

        parser = SitemapParser(on_entry=lambda *e: seen.append(e[:3]), on_run=run)
        for chunk in chunks:
            parser.feed(chunk)
        return seen, parser.close(), sum(runs)

    by_handlers = read(chunked(body, 500))
    assert by_handlers[2] == 0
    whole = read([body])
    assert whole[:2] == by_handlers[:2] and whole[2] >= 140


_Read = list[tuple[int, str | None, str | None]]


def _deep_read(body: bytes, size: int) -> tuple[ParsedSitemap | Rejected, _Read, int]:
    """What the deep reader gives for body fed in chunks of size: outcome, (line, loc, lastmod)
    of every entry, and how many entries came in runs."""
    seen: _Read = []
    in_runs = [0]

    def run(r: EntryRun) -> None:
        in_runs[0] += len(r.locs)
        seen.extend(zip(r.lines(), r.locs, r.lastmods, strict=True))

    parser = SitemapParser(on_entry=lambda *e: seen.append(e[:3]), on_run=run)
    for chunk in chunked(body, size):
        parser.feed(chunk)
    return parser.close(), seen, in_runs[0]


def _handlers_read(body: bytes) -> tuple[ParsedSitemap | Rejected, _Read]:
    # The same, every entry through the handlers (a slice of 1 byte never holds a run).
    outcome, seen, in_runs = _deep_read(body, 1)
    assert in_runs == 0
    return outcome, seen


@pytest.mark.parametrize(
    "entry",
    [
        "<url><loc>https://example.com/p{i}</loc><lastmod>2024-01-02</lastmod></url>\n",
        "  <url>\n    <loc>https://example.com/p{i}</loc>\n  </url>\n",
        "<url><loc>https://example.com/p{i}</loc></url>\n\n",
        "<url><loc>https://example.com/ü{i}</loc></url>\n",  # bytes are not characters
        "<url><loc>https://example.com/p{i}</loc></url>",  # one line: nothing is left out
        "<url><loc>https://example.com/p{i} </loc></url>\n",  # values read trimmed
        "<url><loc>\thttps://example.com/p{i}</loc><lastmod> 2024-01-02</lastmod></url>\n",
        "<url><loc>https://example.com/p{i}</loc><lastmod> 2024-01-02</lastmod></url>\n",
        "<url><loc>https://example.com/p{i}</loc></url>\r",  # expat counts a lone CR as LF
        "<url><loc>https://example.com/p{i}</loc></url>\r\n",
        "<url><loc>https://example.com/p{i}</loc></url>\n\r",
    ],
)
@pytest.mark.parametrize(
    "tail",
    [
        "</urlset>\n",
        "<url><loc>x</loc></url><url><loc>y</lox></url>\n</urlset>\n",  # an error after them
        "<url><loc>x</loc></url>  <oops></urlset>\n",
        "<url>\n<loc>late</loc>\n<image:image xmlns:image='http://www.google.com/schemas/"
        "sitemap-image/1.1'><image:loc>i</image:loc></image:image></url>\n</urlset>\n",
        "",  # cut short
    ],
)
def test_lines_expat_is_not_given_are_counted_where_it_reports(entry: str, tail: str) -> None:
    # Whole lines of plain entries go past expat: every line, column and refusal after them is
    # still the document's own; and entries all laid out alike read as the handlers read them.
    body = (
        f'<?xml version="1.0"?>\n<urlset {_NS}>\n'
        + "".join(entry.format(i=i) for i in range(3000))
        + tail
    ).encode()
    expected = _handlers_read(body)
    for size in (len(body), 64 * 1024, 10_000):
        outcome, seen, in_runs = _deep_read(body, size)
        assert (outcome, seen) == expected, size
        assert in_runs > 2000


def test_a_cdata_section_after_lines_expat_was_not_given_is_measured_from_its_start() -> None:
    # What expat holds is measured in the document's bytes: a CDATA section 200 KB long, after
    # 1.5 MB of entries expat did not read, is well within MAX_MARKUP_BYTES.
    entries = "".join(f"<url><loc>https://example.com/p{i}</loc></url>\n" for i in range(40_000))
    odd = "<url><loc><![CDATA[https://example.com/" + "x" * 200_000 + "]]></loc></url>\n"
    body = f'<?xml version="1.0"?>\n<urlset {_NS}>\n{entries}{odd}</urlset>\n'.encode()
    outcome, seen, in_runs = _deep_read(body, 64 * 1024)
    assert isinstance(outcome, ParsedSitemap) and outcome.entry_count == 40_001, outcome
    assert in_runs > 30_000 and len(seen) == 40_001
    assert outcome == parse_bytes(chunked(body, 64 * 1024))


def test_white_space_past_a_layout_s_bound_makes_no_expression() -> None:
    # A layout's white space is written into an expression (64 of them are kept): entries with
    # more than _MAX_LAYOUT_SPACE of it between two tags are read by the quick expression.
    from sitemap_auditor.core import parser as module

    entries = "".join(
        f"<url>{' ' * (65 + i % 50)}<loc>https://example.com/p{i}</loc></url>\n"
        for i in range(3000)
    )
    body = f'<?xml version="1.0"?>\n<urlset {_NS}>\n{entries}</urlset>\n'.encode()
    module._layout.cache_clear()
    outcome, seen, in_runs = _deep_read(body, 64 * 1024)
    assert module._layout.cache_info().currsize == 0
    assert (outcome, seen) == _handlers_read(body) and in_runs > 2000


def test_the_lambda_s_parser_compiles_none_of_the_deep_reading_s_expressions() -> None:
    # They are compiled when a deep reader first looks for a run: the Lambda's cold start and
    # reading never pay for them.
    from sitemap_auditor.core import parser as module

    lazy = (module._run_patterns, module._run_start, module._layout_patterns, module._layout)
    for compiled in lazy:
        compiled.cache_clear()
    entries = "".join(f"<url><loc>https://example.com/p{i}</loc></url>\n" for i in range(3000))
    body = f'<?xml version="1.0"?>\n<urlset {_NS}>\n{entries}</urlset>\n'.encode()
    assert parsed(body, (64 * 1024,)).entry_count == 3000
    assert [compiled.cache_info().currsize for compiled in lazy] == [0, 0, 0, 0]
    assert _deep_read(body, 64 * 1024)[2] > 2000
    assert all(compiled.cache_info().currsize for compiled in lazy)


@pytest.mark.parametrize(
    "entry",
    [
        "<url><loc>https://example.com/p{i}</loc><lastmod>2024-01-02</lastmod></url>\n",
        "<url><loc>https://example.com/p{i}</loc><changefreq>daily</changefreq></url>\n",
        "<url><loc>https://example.com/p{i}</loc><priority>0.5</priority></url>\n",
        "<url><loc>https://example.com/p{i}</loc></url>\n",
        "<url><loc>https://example.com/p{i}</loc>{odd}</url>\n",  # one entry in the middle
    ],
)
def test_runs_intern_the_names_the_handlers_would(entry: str) -> None:
    # A run's names are looked for in the expression of its layout, or in its text: either way
    # the names pyexpat would have interned (what MAX_NAMES counts) are the handlers' own, a
    # name only skipped lines hold included.
    odd = "<changefreq>daily</changefreq><priority>0.5</priority>"
    body = (
        '<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        + "".join(entry.format(i=i, odd=odd if i == 1500 else "") for i in range(3000))
        + "</urlset>\n"
    ).encode()

    def names(size: int) -> set[str]:
        parser = SitemapParser(on_entry=lambda *e: None, on_run=lambda r: None)
        for chunk in chunked(body, size):
            parser.feed(chunk)
        assert isinstance(parser.close(), ParsedSitemap)
        return set(parser._names)

    assert names(256 * 1024) == names(64 * 1024) == names(1)
