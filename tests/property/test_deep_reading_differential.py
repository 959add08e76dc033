"""The deep audit's reading against an independent one (support/plain_reading.py): every real
file of the corpora, 1,500 generated documents aimed at the parser's 64 KiB slices and 400 aimed
at its runs of plain entries (deep/reading/runs.py), each fed whole and in seeded random chunks.
Entries, lines, cuts and errors must be the same."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from support import plain_reading, run_documents
from support.run_documents import splits
from support.shared import CORPUS, inflated, needs_shared

from sitemap_auditor.core.issues import Kind
from sitemap_auditor.core.parser import FEED_SLICE_BYTES, ParsedSitemap, Rejected, SitemapParser
from sitemap_auditor.deep.reading.entries import EntryReader, Extensions

LOCAL = Path(__file__).resolve().parents[1] / "corpus"
IMAGE = "http://www.google.com/schemas/sitemap-image/1.1"
VIDEO = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS = "http://www.google.com/schemas/sitemap-news/0.9"
XHTML = "http://www.w3.org/1999/xhtml"
SITEMAPS = "http://www.sitemaps.org/schemas/sitemap/0.9"
_LINE = re.compile(r"at line (\d+),")


def deep_reading(chunks: list[bytes]) -> tuple[list[tuple[object, ...]], int | None, str]:
    """The deep reading's entries (as plain_reading keys them), its error line, its outcome."""
    got: list[tuple[object, ...]] = []

    def entry(line: int, loc: str | None, lastmod: str | None, ext: Extensions | None) -> None:
        e = ext or Extensions()
        got.append((line, loc, lastmod, e.images, e.images_without_loc, e.videos_total,
                    len(e.news), e.alternates))  # fmt: skip

    parser = SitemapParser(EntryReader(entry))
    for chunk in chunks:
        parser.feed(chunk)
    outcome = parser.close()
    if isinstance(outcome, ParsedSitemap):
        return got, None, "parsed"
    line = _LINE.search(outcome.reason)
    return got, int(line[1]) if line else None, outcome.kind.value


def compared(document: bytes, chunks: list[bytes]) -> bool:
    """Hold the deep reading of chunks to the plain reading of document; False when the two
    cannot be compared (a bound or an encoding only the driver has)."""
    got, error_line, outcome = deep_reading(chunks)
    if outcome not in ("parsed", Kind.NOT_WELL_FORMED.value):
        return False  # refused by a bound, an encoding, an entity: the plain reading has none
    plain = plain_reading.read(document)
    if plain.error_line is None and outcome != "parsed":
        return False  # bytes the driver decodes itself (it refuses what its codec refuses)
    assert got == [e.key() for e in plain.entries]
    assert error_line == plain.error_line
    return True


@needs_shared
def test_every_real_file_reads_as_the_plain_reading_reads_it() -> None:
    files = sorted(p for p in [*CORPUS.rglob("*"), *LOCAL.rglob("*")] if p.is_file())
    draw = random.Random(33)
    compared_files = 0
    for path in files:
        body = inflated(path.read_bytes())
        if b"<" not in body[:4096]:
            continue
        results = [compared(body, chunks) for chunks in splits(body, draw)]
        compared_files += all(results)
    assert compared_files > 300  # the corpus is read, not skipped


def _text(draw: random.Random, size: int) -> str:
    alphabet = "abcXYZ09-._~/%é€日&"
    out = "".join(draw.choice(alphabet) for _ in range(size))
    return out.replace("&", "&amp;")


def _space(draw: random.Random) -> str:
    return draw.choice(["", " ", "\n", "\r\n", "\r", "\t", "\n\r", "  \r\n  "])


def _entry(draw: random.Random, slice_left: int) -> str:
    declared = draw.choice(["", f' xmlns:image="{IMAGE}"', f' xmlns="{IMAGE}"'])
    parts = [f"<url{declared}>"]
    long = draw.random() < 0.1
    size = draw.choice([FEED_SLICE_BYTES // 2, 4090, 4097, 5000, slice_left]) if long else 30
    loc = "https://example.com/" + _text(draw, max(1, size))
    if draw.random() < 0.05:
        loc = f"<![CDATA[{loc.replace('&amp;', '&')}]]>"
    parts.append(f"{_space(draw)}<loc>{_space(draw)}{loc}{_space(draw)}</loc>")
    if draw.random() < 0.7:
        value = draw.choice(["2026-11-30", "2026-11-30T10:00:00+01:00", "  2024-01-01Z ",
                             "x" * draw.choice([10, 300]), "2020<b>x</b>-01-01"])  # fmt: skip
        parts.append(f"{_space(draw)}<lastmod>{value}</lastmod>")
    if draw.random() < 0.2:
        with_loc = draw.random() < 0.5
        image_loc = "<image:loc>https://e.com/i.png</image:loc>" if with_loc else ""
        parts.append(f"<image:image>{image_loc}</image:image>")
    if draw.random() < 0.1:
        parts.append(f'<xhtml:link xmlns:xhtml="{XHTML}" rel="alternate" hreflang="de" '
                     'href=" https://example.com/de "/>')  # fmt: skip
    if draw.random() < 0.05:
        parts.append(f'<v:video xmlns:v="{VIDEO}"><v:title>t</v:title></v:video>')
    if draw.random() < 0.05:
        parts.append("<!-- a comment <url> -->")
    parts.append(_space(draw) + "</url>")
    return "".join(parts) + _space(draw)


def _document(draw: random.Random) -> bytes:
    head = draw.choice(
        ['<?xml version="1.0" encoding="UTF-8"?>\n', "", "<?xml version='1.0'?>\r\n"]
    )
    out = [head, f'<urlset xmlns="{SITEMAPS}" xmlns:news="{NEWS}">', _space(draw)]
    size = sum(map(len, out))
    target = draw.choice([2_000, 70_000, 140_000])
    while size < target:
        e = _entry(draw, FEED_SLICE_BYTES - size % FEED_SLICE_BYTES)
        out.append(e)
        size += len(e.encode())
    ending = draw.random()
    if ending < 0.8:
        out.append("</urlset>\n")
    elif ending < 0.9:
        out.append("<url><loc>https://example.com/cut")  # cut short
    else:
        out.append("</urlset><stray/>")  # junk after the root
    return "".join(out).encode()


@pytest.mark.slow
def test_generated_documents_read_as_the_plain_reading_reads_them() -> None:
    draw = random.Random(1500)
    done = 0
    for _ in range(1500):
        document = _document(draw)
        chunkings = splits(document, draw)
        done += all(compared(document, chunks) for chunks in chunkings)
    assert done >= 1400


@pytest.mark.slow
def test_documents_aimed_at_the_runs_read_as_the_plain_reading_reads_them() -> None:
    # Plain entries written every way generators write them, now and then one of another shape
    # or an error, in encodings a run may and may not read (support/run_documents.py).
    draw = random.Random(404)
    done = 0
    for _ in range(400):
        body = run_documents.document(draw)
        done += all(compared(body, chunks) for chunks in splits(body, draw))
    assert done >= 200


def test_a_url_that_declares_another_default_namespace_hides_its_own_loc_only() -> None:
    document = (
        f'<urlset xmlns="{SITEMAPS}"><url xmlns="{IMAGE}"><loc>https://e.com/a</loc></url>'
        "<url><loc>https://e.com/b</loc></url></urlset>"
    ).encode()
    got, _, _ = deep_reading([document])
    assert [g[1] for g in got] == [None, "https://e.com/b"]
    assert compared(document, [document])


@pytest.mark.parametrize("ending", [b"\r\n", b"\r", b"\n", b"\n\r"])
def test_lines_count_each_break_as_xml_does(ending: bytes) -> None:
    document = ending.join(
        [
            b'<?xml version="1.0"?>',
            b"<urlset>",
            b"<url><loc>a</loc></url>",
            b"<url><loc>b</loc></url>",
            b"</urlset>",
        ]
    )
    got, _, _ = deep_reading([document[:30], document[30:]])
    step = 2 if ending == b"\n\r" else 1
    assert [g[0] for g in got] == [1 + 2 * step, 1 + 3 * step]
    assert compared(document, [document])


def test_a_long_loc_is_cut_the_same_wherever_the_slices_fall() -> None:
    loc = "https://e.com/" + "a" * 10_000
    for pad in range(0, 8):
        document = (
            "<urlset>" + " " * (FEED_SLICE_BYTES - 5000 + pad) + f"<url><loc>{loc}</loc></url>"
            "</urlset>"
        ).encode()
        got, _, _ = deep_reading([document])
        assert got[0][1] == loc[:4097]
        assert compared(document, [document])


def test_a_declared_utf8_with_a_non_ascii_byte_is_refused_as_the_lambda_refuses_it() -> None:
    document = '<?xml version="1.0" encoding="utf8"?><urlset><url><loc>é</loc></url></urlset>'
    body = document.encode()
    lambda_outcome = SitemapParser()
    lambda_outcome.feed(body)
    lambda_answer = lambda_outcome.close()
    for chunks in ([body], [body[:40], body[40:]]):
        _, _, outcome = deep_reading(chunks)
        assert isinstance(lambda_answer, Rejected) == (outcome != "parsed")


def test_alternates_past_the_bound_are_counted_as_dropped() -> None:
    links = "".join(
        f'<xhtml:link rel="alternate" hreflang="x{i}" href="https://e.com/{i}"/>'
        for i in range(1005)
    )
    document = (
        f'<urlset xmlns:xhtml="{XHTML}"><url><loc>https://e.com/a</loc>{links}</url></urlset>'
    ).encode()
    kept: list[Extensions] = []
    parser = SitemapParser(EntryReader(lambda *entry: kept.append(entry[3] or Extensions())))
    parser.feed(document)
    assert isinstance(parser.close(), ParsedSitemap)
    assert len(kept[0].alternates) == 1000 and kept[0].alternates_dropped == 5
