"""A body's bytes as the site meant them: content codings undone, gzip found by its magic bytes.

Pure: it is fed byte chunks and knows nothing of sockets or HTTP. What it guarantees
(docs/contract.md §4): no layer ever gives more than MAX_BODY_BYTES, memory does not grow with the
body (work is done in CHUNK_BYTES slices), and a caller's deadline is checked between slices, so a
bomb cannot hold a fetch past it.
"""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Callable, Iterable, Iterator

from sitemap_auditor.core.errors import MAX_BODY_BYTES, FetchError, FetchErrorKind

__all__ = [
    "CHUNK_BYTES",
    "GZIP_MAGIC",
    "MAX_CONTENT_CODINGS",
    "MAX_SNIFFED_GZIP_LAYERS",
    "DeadlineCheck",
    "content_codings",
    "decode",
    "inflate",
    "no_deadline",
    "peel_gzip",
]

# Reads and decompression work in slices of this size, so memory does not grow with the body.
CHUNK_BYTES = 64 * 1024
# A sitemap.xml.gz sent with Content-Encoding: gzip has two layers; more than three sniffed
# layers is no sitemap anyone publishes, only a way to burn CPU.
MAX_SNIFFED_GZIP_LAYERS = 3
GZIP_MAGIC = b"\x1f\x8b"
# Servers stack at most one or two codings; each is one more decompression layer.
MAX_CONTENT_CODINGS = 2
_TRANSPORT_ENCODINGS = frozenset({"gzip", "x-gzip", "deflate"})
# The rest of IANA's HTTP Content Coding Registry: real codings, refused. A value that names no
# coding at all (`none`, `utf-8`, `binary`: servers' misconfigurations) says nothing of the
# body, which is read as it is, as browsers and requests read it.
_UNDECODED_CODINGS = frozenset(
    {"br", "zstd", "compress", "x-compress", "exi", "pack200-gzip", "aes128gcm", "dcb", "dcz"}
)

# Called between slices of work; raises FetchError once the fetch's time is up.
DeadlineCheck = Callable[[], None]


def no_deadline() -> None:
    """A deadline check that never fires, for callers without a deadline."""


def _wrapped(head: bytes) -> bool:
    """True when a compressed body's first two bytes are a gzip or a zlib header (RFC 1950:
    method 8, a window of at most 32 KiB, and a check that makes them a multiple of 31)."""
    if head[:2] == GZIP_MAGIC:
        return True
    cmf, flg = head[0], head[1]
    return cmf & 0x0F == 8 and cmf >> 4 <= 7 and (cmf << 8 | flg) % 31 == 0


def inflate(
    chunks: Iterable[bytes], check: DeadlineCheck = no_deadline, raw_allowed: bool = False
) -> Iterator[bytes]:
    """Decompress one gzip or zlib layer, bounded: no more than MAX_BODY_BYTES come out.
    `raw_allowed` (Content-Encoding: deflate): a body that starts with neither header is raw
    deflate, as many servers send that coding and browsers read it."""
    d = None  # chosen by the first two bytes
    raw = False
    produced = 0
    started = False
    pending = b""  # a lone byte after a member's end, until the next chunk tells what it starts
    it = iter(chunks)  # one pass: draining after a member's end goes on from here
    try:
        for chunk in it:
            data = pending + chunk if pending else chunk
            pending = b""
            if d is None:
                if len(data) < 2:
                    pending = data
                    continue
                raw = raw_allowed and not _wrapped(data)
                # 32: a gzip or a zlib header, found by itself; negative: no header at all.
                d = zlib.decompressobj(-zlib.MAX_WBITS if raw else 32 + zlib.MAX_WBITS)
            while data:
                if d.eof and raw:
                    for _ in it:  # what follows a raw stream's end is not read as data
                        pass
                    return
                if d.eof:
                    # A member ended: another gzip member may follow (in this chunk or the
                    # next); anything else is trailing bytes, ignored as gzip(1) does.
                    if len(data) < len(GZIP_MAGIC):
                        pending = data
                        break
                    if data[:2] != GZIP_MAGIC:
                        # Read the rest anyway, so that an outer layer's own end (and its
                        # integrity check) is reached whatever the chunking.
                        for _ in it:
                            pass
                        return
                    d = zlib.decompressobj(32 + zlib.MAX_WBITS)
                started = True
                out = d.decompress(data, CHUNK_BYTES)
                data = d.unused_data if d.eof else d.unconsumed_tail
                if out:
                    produced += len(out)
                    if produced > MAX_BODY_BYTES:
                        raise FetchError(FetchErrorKind.TOO_LARGE, " once decompressed")
                    check()
                    yield out
        if d is None and pending:  # a body of one byte: no header can be read from it
            d = zlib.decompressobj(32 + zlib.MAX_WBITS)
            started = True
            d.decompress(pending)
    except zlib.error:
        raise FetchError(FetchErrorKind.BAD_COMPRESSED_DATA) from None
    if started and d is not None and not d.eof:
        raise FetchError(FetchErrorKind.TRUNCATED_COMPRESSED_DATA)


def peel_gzip(
    chunks: Iterable[bytes],
    check: DeadlineCheck = no_deadline,
    layers: int = MAX_SNIFFED_GZIP_LAYERS,
) -> Iterator[bytes]:
    """Undo every gzip layer found by its magic bytes, whatever the headers said."""
    head, stream = _head(chunks)
    if head[:2] != GZIP_MAGIC:
        yield from stream
    elif layers <= 0:
        raise FetchError(FetchErrorKind.BAD_COMPRESSED_DATA, "too many gzip layers")
    else:
        yield from peel_gzip(inflate(stream, check), check, layers - 1)


def _head(chunks: Iterable[bytes]) -> tuple[bytes, Iterable[bytes]]:
    """The first bytes of chunks (enough for the gzip magic, unless the body is shorter), and
    the same chunks, those bytes still first."""
    it = iter(chunks)
    head = b""
    for chunk in it:
        head += chunk
        if len(head) >= len(GZIP_MAGIC):
            break
    return head, (itertools.chain((head,), it) if head else it)


def content_codings(header: str | None) -> list[str]:
    """The codings a Content-Encoding value names, in the order they were applied (`identity`
    and names of no coding left out)."""
    codings = (c.strip().lower() for c in (header or "").split(","))
    return [c for c in codings if c in _TRANSPORT_ENCODINGS or c in _UNDECODED_CODINGS]


def decode(
    chunks: Iterable[bytes], content_encoding: str | None, check: DeadlineCheck = no_deadline
) -> Iterator[bytes]:
    """The body under its content codings and any sniffed gzip layers; raises FetchError."""
    codings = content_codings(content_encoding)
    if len(codings) > MAX_CONTENT_CODINGS:
        raise FetchError(FetchErrorKind.UNSUPPORTED_ENCODING, f"{len(codings)} codings")
    stream: Iterable[bytes] = chunks
    for coding in reversed(codings):
        if coding not in _TRANSPORT_ENCODINGS:
            # A coding not decoded here, yet what is left of the body starts as gzip, which
            # that coding would have hidden: the header lies, and the magic bytes decide
            # (CONTRACT §4).
            head, stream = _head(stream)
            if head[:2] == GZIP_MAGIC:
                break
            raise FetchError(FetchErrorKind.UNSUPPORTED_ENCODING, coding[:40])
        stream = inflate(stream, check, raw_allowed=coding == "deflate")
    yield from peel_gzip(stream, check, MAX_SNIFFED_GZIP_LAYERS)
