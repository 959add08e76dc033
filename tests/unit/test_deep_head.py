"""The head of a body (deep/reading/head.py): its kind is told past any leading white space,
however long, and the lines of that white space are counted whatever the chunks."""

from __future__ import annotations

import random

import pytest

from sitemap_auditor.deep.reading.head import (
    BOM,
    HEAD_BYTES,
    XML_SPACE,
    first_bytes,
    line_breaks,
    read_head,
)

DOC = b'<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>\n'


def _chunks(data: bytes, rng: random.Random) -> list[bytes]:
    out, at = [], 0
    while at < len(data):
        size = rng.choice([1, 2, 3, 1000, 65536, rng.randint(1, 70_000)])
        out.append(data[at : at + size])
        at += size
    return out


@pytest.mark.parametrize("seed", range(40))
def test_leading_white_space_is_counted_not_held_whatever_the_chunks(seed: int) -> None:
    rng = random.Random(seed)
    space = b"".join(rng.choice([b" ", b"\t", b"\r", b"\n", b"\r\n"]) for _ in range(60_000))
    bom = BOM if seed % 2 else b""
    body = bom + space + DOC
    head = read_head(iter(_chunks(body, rng)))
    assert head.read <= len(body)
    assert head.data.startswith(bom)
    kept = head.data[len(bom) :]
    gap = kept[: len(kept) - len(kept.lstrip(XML_SPACE))]
    # Every byte of white space either dropped or kept; the breaks add up as XML counts them.
    assert head.dropped + len(gap) == len(space)
    assert head.dropped_lines + line_breaks(gap) == line_breaks(space)
    assert kept.lstrip(XML_SPACE).startswith(b"<?xml")
    assert len(head.data) <= 2 * 70_000 + HEAD_BYTES  # at most a chunk's white space held
    assert first_bytes(head.data) == "xml"


def test_a_body_of_white_space_alone_is_read_to_its_end_and_holds_almost_nothing() -> None:
    head = read_head(iter([b"\r\n" * 40_000] * 10))
    assert head.read == 800_000 and not head.data.strip(XML_SPACE)
    assert len(head.data) < 2 and head.dropped_lines == 400_000 - line_breaks(head.data)


def test_an_ordinary_head_is_the_first_chunk() -> None:
    chunk = DOC + b"x" * 70_000
    head = read_head(iter([chunk, b"more"]))
    assert (head.data, head.read, head.dropped, head.dropped_lines) == (chunk, len(chunk), 0, 0)


def test_line_breaks_count_as_xml_counts_them() -> None:
    assert line_breaks(b"a\r\nb\rc\nd\n\r") == 5


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-32"])
def test_a_utf16_body_is_xml_by_its_first_character_and_a_list_of_urls_is_told_apart(
    codec: str,
) -> None:
    mark = {"utf-16-be": b"\xfe\xff"}.get(codec, b"")
    xml = mark + "\n <?xml version='1.0'?><urlset/>".encode(codec)
    urls = mark + "https://ex.com/a\nhttps://ex.com/b\n".encode(codec)
    assert first_bytes(xml) == "xml"
    assert first_bytes(urls) == ("other" if codec == "utf-32" else "utf16-text")
    assert first_bytes(mark + "just words".encode(codec)) == "other"
