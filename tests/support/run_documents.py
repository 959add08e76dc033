"""Sitemaps aimed at the deep reading's runs (sitemap_auditor/deep/reading/runs.py): mostly
plain entries, written every way generators write them, and now and then one a run must not
take (a reference, CDATA, a comment, an extension, an attribute, an error), near the 64 KiB
slices and the cuts of long text, in the encodings a run must and must not read; the splits of a
document's bytes that the readings are fed in; and the deep reading of a document's chunks, with
runs or without."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from sitemap_auditor.core.parser import FEED_SLICE_BYTES, SitemapParser
from sitemap_auditor.deep.reading.entries import EntryReader, Extensions

SITEMAPS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE = "http://www.google.com/schemas/sitemap-image/1.1"

__all__ = ["document", "reading", "splits"]

_BREAKS = ["", "\n", "\r\n", "\r", "\n\t", "\n  ", " ", "\t\t", "\n\r"]
# In text: what a run must leave to the handlers, or may take (the last three).
_ODD = [
    "&amp;",  # a reference: expat's text, not the bytes
    "<![CDATA[x]]>",
    "<!-- c -->",
    "<?pi x?>",
    "\r",  # read as a line feed
    "&#x41;",
    "\x7f\x85\u2028",  # characters XML allows
    "é日😀",
    "\xa0",  # no XML white space: kept at a text's edge
]
# Errors of expat's, one in some documents.
_ERRORS = ["\x01", "]]>", "\uffff", "\ufffe", "<a>", "&bad;", "\x00"]


def _loc(draw: random.Random, odd: float) -> str:
    base = f"https://example.com/p/{draw.randrange(10**6)}"
    roll = draw.random()
    if roll < 0.02:  # around the cut of a long <loc> (4,097 characters kept)
        base += "a" * draw.choice([4070, 4075, 4076, 4077, 4078, 5000])
        base += draw.choice(["", " x", "  "])
    elif roll < 0.05:
        base = draw.choice(["", " ", "\n", "\t"]) + base + draw.choice(["", " ", "\n\t", " y "])
    elif roll < 0.07:
        base = draw.choice(["", "   ", "\n"])
    if draw.random() < odd:
        at = draw.randrange(len(base) + 1)
        base = base[:at] + draw.choice(_ODD) + base[at:]
    return base


def _lastmod(draw: random.Random, odd: float) -> str | None:
    roll = draw.random()
    if roll < 0.2:
        return None
    value = draw.choice(
        ["2026-11-30", "2026-11-30T10:00:00+01:00", "2025-01-02T03:04:05.678Z", "", " 2024-01-01 ",
         "\n2024-02-02T00:00:00Z\n", "x" * draw.choice([255, 256, 257, 258, 300]), "2026-13-40"]
    )  # fmt: skip
    if draw.random() < odd / 2:
        value += draw.choice(_ODD)
    return value


def _entry(draw: random.Random, odd: float) -> str:
    b = draw.choice(_BREAKS) if draw.random() < 0.3 else ""
    open_tag = "<url>"
    if draw.random() < odd / 2:
        open_tag = draw.choice(["<url >", '<url a="1">', f'<url xmlns="{IMAGE}">', "<ns:url>"])
    loc = f"<loc>{_loc(draw, odd)}</loc>" if draw.random() > odd / 3 else "<loc/>"
    parts = [open_tag, b, loc, b]
    lastmod = _lastmod(draw, odd)
    if lastmod is not None:
        parts += [f"<lastmod>{lastmod}</lastmod>", b]
    if draw.random() < 0.3:
        parts += ["<changefreq>daily</changefreq>", b]
    if draw.random() < 0.3:
        parts += ["<priority>0.8</priority>", b]
    if draw.random() < odd / 2:
        other = ["<image:image><image:loc>i</image:loc></image:image>", "<!-- c -->",
                 "<priority>1</priority>", "<loc>again</loc>"]  # fmt: skip
        parts.insert(2, draw.choice(other))
    close = "</url>" if open_tag != "<ns:url>" else "</ns:url>"
    if draw.random() < odd / 3:
        close = "</url >"
    return "".join(parts) + close


def document(draw: random.Random) -> bytes:
    """One sitemap, seeded: its bytes."""
    encoding = draw.choice(["utf-8"] * 6 + ["none", "iso-8859-1", "utf-16", "UTF8", "ascii"])
    head = "" if encoding == "none" else f'<?xml version="1.0" encoding="{encoding}"?>'
    head += draw.choice(["\n", "\r\n", ""])
    root = draw.choice(
        [f'<urlset xmlns="{SITEMAPS}">'] * 6
        + [f'<urlset xmlns="{SITEMAPS}" xmlns:image="{IMAGE}" xmlns:ns="{SITEMAPS}">',
           f'<urlset xmlns="{IMAGE}">', f'<s:urlset xmlns:s="{SITEMAPS}">', "<urlset>",
           f'<sitemapindex xmlns="{SITEMAPS}">']
    )  # fmt: skip
    out = [head, root]
    size = len(head) + len(root)
    target = draw.choice([3_000, 70_000, 2 * FEED_SLICE_BYTES + 500])
    join = draw.choice(["\n", "\r\n", "", "\n\t", "\r"])
    odd = draw.choice([0.0, 0.001, 0.01])  # how often an entry is of another shape
    while size < target:
        e = _entry(draw, odd) + join
        out.append(e)
        size += len(e.encode())
    ending = draw.random()
    if ending < 0.85:
        out.append("</urlset>\n" if "<urlset" in root else "</sitemapindex>")
    elif ending < 0.95:
        out.append("<url><loc>https://example.com/cut")
    text = "".join(out)
    if draw.random() < 0.2:
        at = draw.randrange(len(text))
        text = text[:at] + draw.choice(_ERRORS) + text[at:]
    if encoding in ("iso-8859-1", "ascii"):
        return text.encode("latin-1", "replace")
    if encoding == "utf-16":
        return text.encode("utf-16")
    body = text.encode("utf-8", "surrogatepass")
    if draw.random() < 0.03:  # a byte that is no UTF-8
        at = draw.randrange(len(body))
        body = body[:at] + b"\xff" + body[at:]
    return body


def splits(document: bytes, draw: random.Random) -> list[list[bytes]]:
    """The document whole, in random chunks, and cut around each slice boundary."""
    cuts = sorted(draw.sample(range(1, max(2, len(document))), min(12, len(document) - 1)))
    around = [b + d for b in range(FEED_SLICE_BYTES, len(document), FEED_SLICE_BYTES)
              for d in (-3, -1, 0, 1, 2)]  # fmt: skip
    out = [[document]]
    for points in (cuts, sorted(p for p in around if 0 < p < len(document))):
        edges = [0, *points, len(document)]
        out.append([document[a:b] for a, b in itertools.pairwise(edges) if b > a])
    return out


def reading(chunks: list[bytes], runs: bool) -> tuple[list[tuple[object, ...]], object, int]:
    """The entries, the outcome, and how many entries came in runs."""
    got: list[tuple[object, ...]] = []
    in_runs = [0]

    def entry(line: int, loc: str | None, lastmod: str | None, ext: Extensions | None) -> None:
        got.append((line, loc, lastmod, ext))

    def run(lines: Sequence[int], locs: Sequence[str], lastmods: Sequence[str | None]) -> None:
        in_runs[0] += len(lines)
        got.extend((a, b, c, None) for a, b, c in zip(lines, locs, lastmods, strict=True))

    reader = EntryReader(entry, runs=runs)
    reader.on_run = run
    parser = SitemapParser(reader)
    for chunk in chunks:
        parser.feed(chunk)
    outcome = parser.close()
    return got, outcome, in_runs[0]
