"""A small PNG reader (8-bit RGB or RGBA, not interlaced: what Chromium's screenshots are), so a
test can look at a screenshot's pixels without an imaging library."""

from __future__ import annotations

import struct
import zlib
from collections import Counter

__all__ = ["colours"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def _rows(data: bytes) -> tuple[int, int, int, list[bytes]]:
    if not data.startswith(_SIGNATURE):
        raise ValueError("not a PNG")
    pos, idat, header = 8, bytearray(), b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}")
    step = 3 if colour == 2 else 4
    raw = zlib.decompress(bytes(idat))
    stride = width * step
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        if kind == 1:
            for i in range(step, stride):
                line[i] = (line[i] + line[i - step]) & 0xFF
        elif kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, previous, strict=True))
        elif kind == 3:
            for i in range(stride):
                left = line[i - step] if i >= step else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                left = line[i - step] if i >= step else 0
                upper_left = previous[i - step] if i >= step else 0
                line[i] = (line[i] + _paeth(left, previous[i], upper_left)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, step, rows


def colours(data: bytes) -> Counter[bytes]:
    """How many pixels of each colour (RGB bytes) the PNG has."""
    width, _, step, rows = _rows(data)
    counts: Counter[bytes] = Counter()
    for row in rows:
        counts.update(row[i : i + 3] for i in range(0, width * step, step))
    return counts
