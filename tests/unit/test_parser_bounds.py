"""What the parser holds is bounded by what expat was fed between events (docs/contract.md §5).

Every body is fed as byte chunks; tracemalloc sees every allocation the parse makes, expat's own
included (pyexpat gives expat Python's allocator), so a traced peak is what the parse held.
The hostile bodies of support/hostile_xml.py, each parsed alone under tracemalloc and through a
whole audit measured by the resident set in a process of its own, are in
tests/integration/test_memory.py; the real files of the corpus, parsed as before these bounds,
in tests/property/test_parser_corpus.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from support.hostile_xml import HEAD, LONG_NAME, MARKUP, NAMES, chunked, reason_of
from support.tracing import traced_peak

from sitemap_auditor.core.parser import (
    FEED_SLICE_BYTES,
    MAX_MARKUP_BYTES,
    MAX_NAME_CHARS,
    MAX_NAMES,
    ParsedSitemap,
    parse_bytes,
)

# What a parse may hold at its peak (the hostile bodies' bounds, with what they were measured at,
# are tests/integration/test_memory.py's).
PEAK_BOUND = 8 * 1024 * 1024


def test_a_caller_s_chunk_of_any_size_is_fed_to_expat_in_slices() -> None:
    # One 16 MB chunk holding a 16 MB <lastmod>: the text kept stays at the cap plus a slice.
    doc = HEAD + b"<url><lastmod>" + b"2" * 16_000_000 + b"</lastmod></url></urlset>"
    answer, peak = traced_peak(lambda: parse_bytes([doc]))
    assert isinstance(answer, ParsedSitemap) and answer.unparsable_total == 1
    assert peak < PEAK_BOUND, f"traced peak {peak / 2**20:.1f} MiB"


# --- where the bounds fall: the same answer however the bytes arrive ------------------------------

SIZES = (1_000, FEED_SLICE_BYTES, 100_003)


def answer_in_every_chunking(doc: bytes, sizes: Sequence[int] = SIZES) -> str | None:
    whole = reason_of(parse_bytes([doc]))
    for size in sizes:
        assert reason_of(parse_bytes(chunked([doc], size))) == whole, f"chunks of {size}"
    return whole


def comment_doc(token_bytes: int) -> bytes:
    """A sitemap holding a comment that is token_bytes long, from '<!--' to '-->'."""
    return HEAD + b"<!--" + b"c" * (token_bytes - 7) + b"-->" + b"</urlset>"


def test_markup_of_the_bound_is_read_and_one_slice_more_is_refused() -> None:
    assert answer_in_every_chunking(comment_doc(MAX_MARKUP_BYTES)) is None
    past = MAX_MARKUP_BYTES + FEED_SLICE_BYTES + 1
    assert answer_in_every_chunking(comment_doc(past)) == MARKUP


@pytest.mark.parametrize("extra", [1, FEED_SLICE_BYTES // 3, FEED_SLICE_BYTES // 2])
def test_markup_between_the_bound_and_one_slice_more_has_one_answer(extra: int) -> None:
    # Measured where the bytes expat was fed reach a multiple of the slice, not where chunks end.
    answer_in_every_chunking(comment_doc(MAX_MARKUP_BYTES + extra))


def test_utf16_markup_is_counted_in_the_bytes_expat_reads() -> None:
    def doc(chars: int) -> bytes:
        text = "<urlset><!--" + "\u043e" * chars + "--></urlset>"
        return b"\xff\xfe" + text.encode("utf-16-le")

    assert answer_in_every_chunking(doc(MAX_MARKUP_BYTES // 2 - 16)) is None
    assert answer_in_every_chunking(doc((MAX_MARKUP_BYTES + FEED_SLICE_BYTES) // 2 + 8)) == MARKUP


def test_transcoded_markup_is_counted_in_the_utf8_expat_reads() -> None:
    # 400,000 characters: 800,000 bytes of Shift_JIS (no '<' or '>' among them), 1,200,000 of
    # UTF-8 fed to expat: refused. 300,000 characters of UTF-32 are 1,200,000 bytes of the
    # document, 300,000 of UTF-8: read.
    sjis = (
        b'<?xml version="1.0" encoding="Shift_JIS"?><urlset><!--'
        + "名".encode("shift_jis") * 400_000
        + b"--></urlset>"
    )
    assert answer_in_every_chunking(sjis) == MARKUP
    utf32 = '<?xml version="1.0"?><urlset><!--' + "x" * 300_000 + "--></urlset>"
    assert answer_in_every_chunking(utf32.encode("utf-32")) is None


def test_a_utf7_run_held_by_the_decoder_is_bounded() -> None:
    # Python's UTF-7 decoder gives nothing of a base64 run until the run ends: it holds it.
    refused = "refused XML construct: utf-7 sequence longer than 1,048,576 bytes"
    endless = b'<?xml version="1.0" encoding="UTF-7"?><urlset>+ADwB' + b"AQEB" * 300_000
    assert answer_in_every_chunking(endless, sizes=(FEED_SLICE_BYTES, 100_003)) == refused
    short = '<?xml version="1.0" encoding="UTF-7"?><urlset><!--' + "\u0101" * 3_000
    assert answer_in_every_chunking((short + "--></urlset>").encode("utf-7")) is None


def names_doc(names: int) -> bytes:
    """A urlset using names distinct names in all, its own included."""
    return b"<urlset>" + b"".join(f"<e{i}/>".encode() for i in range(names - 1)) + b"</urlset>"


def long_name_doc(chars: int) -> bytes:
    return b"<urlset><" + b"n" * chars + b"/></urlset>"


def test_names_up_to_the_bounds_are_read_and_one_more_is_refused() -> None:
    assert answer_in_every_chunking(names_doc(MAX_NAMES)) is None
    assert answer_in_every_chunking(names_doc(MAX_NAMES + 1)) == NAMES
    assert answer_in_every_chunking(long_name_doc(MAX_NAME_CHARS)) is None
    assert answer_in_every_chunking(long_name_doc(MAX_NAME_CHARS + 1)) == LONG_NAME


def test_a_doctype_s_identifiers_are_literals_not_names() -> None:
    public, system = b"-//" + b"p" * 400 + b"//EN", b"http://example.com/" + b"s" * 400
    doc = b'<!DOCTYPE urlset PUBLIC "' + public + b'" "' + system + b'"><urlset><url/></urlset>'
    assert answer_in_every_chunking(doc) is None


def test_attribute_defaults_are_refused_and_plain_declarations_read() -> None:
    declared = b"<!DOCTYPE urlset [<!ATTLIST url a CDATA #IMPLIED b CDATA #REQUIRED>]>"
    assert answer_in_every_chunking(declared + b"<urlset><url/></urlset>") is None
    for default in (b'"x"', b'#FIXED "x"'):
        doc = b"<!DOCTYPE urlset [<!ATTLIST url a CDATA " + default + b">]><urlset><url/></urlset>"
        assert reason_of(parse_bytes([doc])) == (
            "refused XML construct: attribute default declared for <url>"
        )
