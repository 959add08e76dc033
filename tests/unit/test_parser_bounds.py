"""What the parser holds is bounded by what expat was fed between events (docs/contract.md §5).

Every body is fed as byte chunks; tracemalloc sees every allocation the parse makes, expat's own
included (pyexpat gives expat Python's allocator), so a traced peak is what the parse held.
The same bodies through whole audits, measured by the resident set in a process of their own,
are in tests/integration/test_memory.py.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from support.hostile_xml import HEAD, HOSTILE, LONG_NAME, MARKUP, NAMES, Hostile, chunked
from support.shared import CORPUS, needs_shared
from support.tracing import traced_peak

from sitemap_auditor.core.issues import Kind
from sitemap_auditor.core.parser import (
    FEED_SLICE_BYTES,
    MAX_MARKUP_BYTES,
    MAX_NAME_CHARS,
    MAX_NAMES,
    ParsedSitemap,
    Rejected,
    SitemapParser,
    parse_bytes,
)

# Measured: every hostile body but one peaks at 1-4 MiB traced; the widest start tag under the
# markup bound (125,000 distinct attributes) at about 25 MiB, all of it expat's and pyexpat's
# work on that one token before the names are counted.
PEAK_BOUND = 8 * 1024 * 1024
WIDEST_TAG_BOUND = 40 * 1024 * 1024
# A refused body is known within one slice past the bound (the head and one chunk aside).
READ_BOUND = MAX_MARKUP_BYTES + 3 * FEED_SLICE_BYTES
ANSWERS = Path(__file__).resolve().parent / "realworld_answers.json"


def fed_until_known(chunks: Iterable[bytes]) -> tuple[ParsedSitemap | Rejected, int]:
    """Feed chunks until the parser knows its answer, as the probe does; the answer, bytes fed."""
    parser = SitemapParser()
    fed = 0
    for chunk in chunks:
        parser.feed(chunk)
        fed += len(chunk)
        if parser.finished:
            break
    return parser.close(), fed


def reason_of(answer: ParsedSitemap | Rejected) -> str | None:
    return answer.reason if isinstance(answer, Rejected) else None


@pytest.mark.parametrize("case", HOSTILE, ids=[h.name for h in HOSTILE])
def test_a_hostile_body_is_answered_in_bounded_memory(case: Hostile) -> None:
    (answer, fed), peak = traced_peak(lambda: fed_until_known(case.chunks()))
    assert reason_of(answer) == case.reason
    if case.reason is not None:
        assert isinstance(answer, Rejected) and answer.kind is Kind.REFUSED_XML
        assert fed <= READ_BOUND, f"refused only after {fed:,} bytes"
    bound = WIDEST_TAG_BOUND if "125,000" in case.name else PEAK_BOUND
    assert peak < bound, f"{case.name}: traced peak {peak / 2**20:.1f} MiB"


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


# --- real sitemaps parse as they did before these bounds ------------------------------------------


def _body(path: Path) -> bytes:
    data = path.read_bytes()
    if data.startswith(b"\x1f\x8b"):
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error):
            return data  # a file posing as gzip: the parser's answer to its bytes
    return data


def _answer(answer: ParsedSitemap | Rejected) -> dict[str, Any]:
    if isinstance(answer, Rejected):
        return {"refused": answer.kind.value, "reason": answer.reason}
    return {
        "root": answer.root,
        "entries": answer.entry_count,
        "latest": answer.latest_lastmod.isoformat() if answer.latest_lastmod else None,
        "latest_text": answer.latest_lastmod_text,
        "unparsable": answer.unparsable_total,
        "samples": list(answer.unparsable_samples),
    }


def _pinned() -> dict[str, dict[str, Any]]:
    pinned: dict[str, dict[str, Any]] = json.loads(ANSWERS.read_text(encoding="utf-8"))
    return pinned


def _corpus_chunks(path: Path) -> Iterator[bytes]:
    return chunked([_body(path)])


@needs_shared
def test_real_sitemaps_parse_exactly_as_before_the_bounds() -> None:
    # realworld_answers.json: every file's answer from the parser before these bounds (the
    # raw-byte markup guard), 414 files: 276 parsed, 126 not well-formed, 9 other roots (4 of them
    # plain-text lists of URLs, since read as the documented auditor reads them), 3 empty.
    pinned = _pinned()
    files = sorted(
        str(p.relative_to(CORPUS))
        for folder in ("realworld", "realworld2", "realworld3")
        for p in (CORPUS / folder).rglob("*")
        if p.is_file()
    )
    assert files == sorted(pinned)
    changed = [
        name
        for name in files
        if _answer(parse_bytes(_corpus_chunks(CORPUS / name))) != pinned[name]
    ]
    assert not changed, f"answers changed: {changed[:10]}"
