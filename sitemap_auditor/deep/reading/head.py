"""The first bytes of a sitemap, enough to tell what it is (XML, a list of URLs, HTML, nothing)
and whether white space comes before its `<?xml`: however much white space that is, none of it
is held past a chunk, and the line breaks in it are counted as XML counts them."""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = [
    "BOM",
    "HEAD_BYTES",
    "XML_SPACE",
    "Head",
    "first_bytes",
    "line_breaks",
    "not_utf8",
    "read_head",
]

HEAD_BYTES = 1024  # what follows the leading white space before the kind of a body is told
XML_SPACE = b" \t\r\n"
BOM = b"\xef\xbb\xbf"
# Encodings that are UTF-8 (as codecs.lookup names them), and the byte order marks of others.
_UTF8_NAMES = frozenset({"utf-8", "ascii"})
_UTF32_BOMS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


@dataclass(frozen=True)
class Head:
    """A body's first bytes: `data` is what was read, but for leading white space dropped (a
    run of it as long as a chunk or more is counted, not held)."""

    data: bytes
    read: int  # bytes of the body read for it, those dropped included
    dropped: int  # bytes of leading white space dropped (after a byte order mark, kept)
    dropped_lines: int  # the line breaks in them


def line_breaks(data: bytes) -> int:
    """The line breaks in data as XML counts them: CR LF one, a lone CR or LF one each (a CR LF
    that two slices split is counted twice: read_head keeps a last CR for that)."""
    breaks = data.count(b"\n")
    if b"\r" in data:  # most files hold no CR: one scan for it instead of two counts
        breaks += data.count(b"\r") - data.count(b"\r\n")
    return breaks


def read_head(chunks: Iterator[bytes]) -> Head:
    """Read chunks until HEAD_BYTES past the leading white space (or the end of the body)."""
    data, read, dropped, lines = b"", 0, 0, 0
    for chunk in chunks:
        data += chunk
        read += len(chunk)
        bom = BOM if data.startswith(BOM) else b""
        rest = data[len(bom) :]
        content = rest.lstrip(XML_SPACE)
        if len(content) >= HEAD_BYTES:
            break
        if not content and len(rest) > HEAD_BYTES:
            # White space alone so far: count it and keep none of it, but a last CR, which an
            # LF in the next chunk would make one break with.
            keep = 1 if rest.endswith(b"\r") else 0
            gone = rest[: len(rest) - keep]
            dropped += len(gone)
            lines += line_breaks(gone)
            data = bom + rest[len(gone) :]
    return Head(data, read, dropped, lines)


def first_bytes(head: bytes) -> str:
    """What a body starts as: xml (a tag), text (a URL), utf16-text (a URL in UTF-16, which no
    search engine reads: a text sitemap is UTF-8) or other."""
    body = head.removeprefix(BOM)
    if body[:2] in (b"\xff\xfe", b"\xfe\xff"):
        # UTF-16 (or UTF-32, whose marks start alike), which the XML parser reads.
        codec = "utf-16-le" if body[:2] == b"\xff\xfe" else "utf-16-be"
        text = body[2:130].decode(codec, "replace").lstrip(XML_SPACE.decode() + "\x00")
        if text.startswith("<"):
            return "xml"
        return "utf16-text" if text[:8].lower().startswith(("http://", "https:/")) else "other"
    first = body.lstrip(XML_SPACE)[:8].lower()
    if first.startswith(b"<"):
        return "xml"
    if first.startswith((b"http://", b"https:/")):
        return "text"
    return "other"


def not_utf8(first: bytes, declared: str | None) -> str | None:
    """The encoding of a document that is not UTF-8 (nor ASCII, which is UTF-8), or None: its
    byte order mark's, else the one its XML declaration names (`declared`, as expat read it)."""
    if first.startswith(_UTF32_BOMS):
        return "UTF-32"
    if first.startswith(_UTF16_BOMS):
        return "UTF-16"
    if declared is None:
        return None
    try:
        name = codecs.lookup(declared).name
    except LookupError:
        name = declared
    return None if name in _UTF8_NAMES else declared[:40]
