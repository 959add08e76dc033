"""Body decoding on byte chunks: content codings, sniffed gzip layers, bounds and the deadline."""

from __future__ import annotations

import gzip
import zlib

import pytest

from sitemap_auditor.core.errors import FetchError, FetchErrorKind
from sitemap_auditor.fetching import decoding

DOC = b"<urlset>" + b"<url><loc>https://ex.com/</loc></url>" * 500 + b"</urlset>"


def split(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def kind_of(chunks: list[bytes], encoding: str | None = None) -> FetchErrorKind:
    with pytest.raises(FetchError) as caught:
        b"".join(decoding.decode(chunks, encoding))
    return caught.value.kind


@pytest.mark.parametrize("size", [1, 2, 3, 100, 65536])
def test_gzip_is_found_by_its_magic_whatever_the_chunking(size: int) -> None:
    assert b"".join(decoding.decode(split(gzip.compress(DOC), size), None)) == DOC


def test_a_plain_body_passes_unchanged() -> None:
    assert b"".join(decoding.decode(split(DOC, 7), None)) == DOC
    assert b"".join(decoding.decode([], None)) == b""


def test_a_declared_coding_and_a_sniffed_layer_are_both_undone() -> None:
    twice = gzip.compress(gzip.compress(DOC))
    assert b"".join(decoding.decode([twice], "gzip")) == DOC
    assert b"".join(decoding.decode([zlib.compress(DOC)], "deflate")) == DOC
    assert b"".join(decoding.decode([gzip.compress(DOC)], "identity, x-gzip")) == DOC


@pytest.mark.parametrize("size", [1, 2, 3, 100, 65536])
def test_deflate_is_read_with_its_zlib_header_or_raw_as_browsers_read_it(size: int) -> None:
    raw = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    bare = raw.compress(DOC) + raw.flush()
    for body in (bare, zlib.compress(DOC), gzip.compress(DOC)):
        assert b"".join(decoding.decode(split(body, size), "deflate")) == DOC
    # Only that coding: a raw stream sent as gzip, or as nothing, is no gzip.
    assert kind_of(split(bare, size), "gzip") is FetchErrorKind.BAD_COMPRESSED_DATA
    assert b"".join(decoding.decode(split(bare, size), None)) == bare  # not sniffed: as it is
    # Cut short, it says so; bytes after a raw stream's end are not read as data.
    assert kind_of(split(bare[:-10], size), "deflate") is (FetchErrorKind.TRUNCATED_COMPRESSED_DATA)
    assert b"".join(decoding.decode(split(bare + b"junk", size), "deflate")) == DOC


def test_more_sniffed_layers_than_anyone_publishes_are_refused() -> None:
    body = DOC
    for _ in range(decoding.MAX_SNIFFED_GZIP_LAYERS + 1):
        body = gzip.compress(body)
    assert kind_of([body]) is FetchErrorKind.BAD_COMPRESSED_DATA


def test_codings_past_two_or_unknown_ones_are_refused() -> None:
    assert kind_of([DOC], "gzip, gzip, gzip") is FetchErrorKind.UNSUPPORTED_ENCODING
    assert kind_of([DOC], "br") is FetchErrorKind.UNSUPPORTED_ENCODING
    assert kind_of([DOC], "gzip, zstd") is FetchErrorKind.UNSUPPORTED_ENCODING


@pytest.mark.parametrize("size", [1, 2, 65536])
@pytest.mark.parametrize("header", ["br", "zstd", "compress", "deflate, br"])
def test_a_gzip_body_sent_under_a_coding_not_decoded_is_read_by_its_magic(
    size: int, header: str
) -> None:
    # CONTRACT §4: gzip is recognised by its magic bytes whatever the headers say. A coding the
    # auditor does not decode, applied last, would leave no gzip header at the body's start.
    assert b"".join(decoding.decode(split(gzip.compress(DOC), size), header)) == DOC
    # A body that is not gzip under such a coding still fails, as before.
    assert kind_of(split(DOC, size), header) is FetchErrorKind.UNSUPPORTED_ENCODING
    # Under a gzip the server did apply, what is left is read by its magic as well.
    if "," not in header:  # two codings at most
        twice = gzip.compress(gzip.compress(DOC))
        assert b"".join(decoding.decode(split(twice, size), header + ", gzip")) == DOC


def test_a_content_encoding_that_names_no_coding_is_no_coding() -> None:
    # Servers' misconfigurations: the body is read as it is, as browsers and requests read it.
    for value in ("none", "None", "utf-8", "binary", "identity", "8bit, none", ""):
        assert b"".join(decoding.decode([DOC], value)) == DOC, value
    packed = gzip.compress(DOC)
    assert b"".join(decoding.decode([packed], "utf-8")) == DOC  # the magic bytes still count


def test_damaged_and_cut_streams_say_which() -> None:
    packed = gzip.compress(DOC)
    assert kind_of([packed[:-20]]) is FetchErrorKind.TRUNCATED_COMPRESSED_DATA
    assert kind_of([packed[:12] + b"\xff" * 40 + packed[52:]]) is (
        FetchErrorKind.BAD_COMPRESSED_DATA
    )


def test_trailing_bytes_after_a_member_are_ignored_as_gzip_does() -> None:
    assert b"".join(decoding.inflate([gzip.compress(DOC) + b"\0\0junk"])) == DOC


def test_the_deadline_is_checked_between_slices_and_stops_the_work() -> None:
    calls = 0

    def check() -> None:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise FetchError(FetchErrorKind.TIMEOUT, "test deadline")

    bomb = gzip.compress(b" " * (decoding.CHUNK_BYTES * 10))
    out = []
    with pytest.raises(FetchError) as caught:
        for chunk in decoding.decode([bomb], None, check):
            out.append(chunk)
    assert caught.value.kind is FetchErrorKind.TIMEOUT
    assert len(out) == 2 and all(len(c) <= decoding.CHUNK_BYTES for c in out)


def test_content_codings_are_read_in_the_order_applied() -> None:
    assert decoding.content_codings(" GZIP ,identity, deflate") == ["gzip", "deflate"]
    assert decoding.content_codings(None) == []
