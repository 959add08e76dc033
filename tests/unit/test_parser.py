"""The streaming parser: roots, entries, lastmods, protections; chunking changes nothing."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest
from support.documents import sitemapindex, urlset

from sitemap_auditor.core.issues import Kind
from sitemap_auditor.core.parser import (
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


@pytest.mark.parametrize(
    "encoding", ["unicode_escape", "raw_unicode_escape", "idna", "punycode", "undefined"]
)
def test_a_codec_that_is_no_character_encoding_is_refused(encoding: str) -> None:
    # Decoded by Python's codec, `\u0032026-10-16` was read as the date 2026-10-16: XML has no
    # such escape, and no processor knows these names as encodings.
    doc = urlset(["\\u0032026-10-16", "2026-10-15"]).replace(
        b'encoding="UTF-8"', f'encoding="{encoding}"'.encode()
    )
    assert rejected(doc).startswith("unsupported character encoding (")
    assert "no character encoding" in rejected(doc)


_NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def test_a_lone_surrogate_a_codec_makes_is_the_same_refusal_however_the_bytes_are_cut() -> None:
    # UTF-7 can encode a lone surrogate, which is no character: refused as bytes that are not
    # UTF-7, whole or a byte at a time (it was an unsupported encoding when whole).
    body = b'<?xml version="1.0" encoding="UTF-7"?><urlset><url><loc>+2KI-</loc></url></urlset>'
    whole = parse_bytes([body])
    assert isinstance(whole, Rejected) and whole.kind is Kind.NOT_WELL_FORMED
    assert parse_bytes([body[i : i + 1] for i in range(len(body))]) == whole


def test_what_precedes_bytes_that_do_not_decode_is_read_even_with_a_lone_surrogate() -> None:
    # The root comes before a lone surrogate and a byte UTF-7 refuses: read whole or cut, the
    # answer is the root's (here an unknown one), not the bytes'.
    body = b'<?xml version="1.0" encoding="UTF-7"?><urnset>+2KI-\xff</urnset>'
    whole = parse_bytes([body])
    assert isinstance(whole, Rejected) and whole.kind is Kind.UNKNOWN_ROOT
    for size in (1, 5, 13):
        assert parse_bytes([body[i : i + size] for i in range(0, len(body), size)]) == whole
