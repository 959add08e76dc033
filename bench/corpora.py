"""Deterministic sitemap corpora for the benchmark, written as a stream (never held whole).

Every corpus comes from a seeded `random.Random`, so two runs write byte-identical files.
The lastmod values are chosen so that readings of the W3C Datetime forms that differ from the
auditor's contract (date-only and year-month values mean the last second of that day or month,
UTC) give a different latest instant:

- timed values (`...T...Z`, `+02:00`-style offsets, fractions) fall on or before 2024-06-29
  local time, so none reaches 2024-06-30T08:00:00Z once converted to UTC;
- a few date-only `2024-06-30` values and year-month `2024-06` values carry the latest instant,
  2024-06-30T23:59:59Z, which a reader that takes a date as midnight gets wrong.
"""

from __future__ import annotations

import gzip
import random
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

HEAD_URLSET = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
    ' xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'
    ' xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
)
TAIL_URLSET = "</urlset>\n"
HEAD_INDEX = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
)
TAIL_INDEX = "</sitemapindex>\n"

FIRST_DAY = date(2023, 1, 1)
LAST_TIMED_DAY = date(2024, 6, 29)  # timed values end here (local time)
LATEST_DAY = date(2024, 6, 30)  # only date-only and year-month values reach this day
SPAN_DAYS = (LAST_TIMED_DAY - FIRST_DAY).days
OFFSETS = ("+02:00", "-05:00", "+05:30", "+01:00", "-08:00", "+09:00")
SECTIONS = ("products", "blog", "category", "help", "news", "stores")

# Values that docs/contract.md §5 refuses. Several of them are accepted by lenient parsers
# (`datetime.fromisoformat`, dateutil, pandas) as dates later than every valid value.
UNPARSABLE = (
    "2024-07-15 10:00:00",  # space instead of T
    "2024/07/20",
    "July 21, 2024",
    "20240722",  # ISO 8601 basic format, not W3C
    "2024-07-23T10:00:00+15:00",  # offset beyond +14:00
    "2024-7-4",  # one-digit month and day
    "2024-13-01",
    "2024-02-30",
    "2024-06-01T25:00:00Z",
    "soon",
    "",
    "2024-06-01T10:00:00 +02:00",
)


@dataclass(frozen=True)
class Corpus:
    """One benchmark input file and how it was made."""

    name: str
    filename: str
    description: str
    entries: int
    gzipped: bool = False
    big: bool = False  # skipped by --quick

    def path(self, out: Path) -> Path:
        return out / self.filename


def _day(rng: random.Random) -> date:
    return FIRST_DAY + timedelta(days=rng.randrange(SPAN_DAYS + 1))


def _clock(rng: random.Random) -> str:
    return f"{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}"


def mixed_lastmod(rng: random.Random, i: int) -> str:
    """A W3C Datetime value of one of the forms sitemaps use, spread over 18 months."""
    if i % 997 == 0:
        return LATEST_DAY.isoformat()  # the latest instant: 2024-06-30T23:59:59Z
    if i % 1999 == 0:
        return "2024-06"  # the same instant, as a month
    r = rng.random()
    d = _day(rng).isoformat()
    if r < 0.30:
        return d
    if r < 0.55:
        return f"{d}T{_clock(rng)}Z"
    if r < 0.75:
        return f"{d}T{_clock(rng)}{rng.choice(OFFSETS)}"
    if r < 0.88:
        digits = rng.choice((1, 3, 6))
        fraction = f"{rng.randrange(10**digits):0{digits}d}"
        zone = rng.choice(("Z", *OFFSETS))
        return f"{d}T{_clock(rng)}.{fraction}{zone}"
    if r < 0.95:
        return d[:7]  # year-month
    return f"{d}T{rng.randrange(24):02d}:{rng.randrange(60):02d}Z"  # no seconds


def urlset_entries(
    count: int, seed: int, lastmod: Callable[[random.Random, int], str], extensions: bool
) -> Iterator[str]:
    rng = random.Random(seed)
    for i in range(count):
        section = SECTIONS[i % len(SECTIONS)]
        loc = f"https://example.com/{section}/{i}"
        parts = [f"<url><loc>{loc}</loc><lastmod>{lastmod(rng, i)}</lastmod>"]
        if i % 20 == 3:
            parts.append("<changefreq>weekly</changefreq><priority>0.6</priority>")
        if extensions and i % 25 == 7:
            parts.append(
                f"<image:image><image:loc>https://cdn.example.com/img/{i}.jpg</image:loc>"
                "</image:image>"
            )
        if extensions and i % 50 == 11:
            for lang in ("de", "fr"):
                parts.append(
                    f'<xhtml:link rel="alternate" hreflang="{lang}"'
                    f' href="https://example.com/{lang}/{section}/{i}"/>'
                )
        parts.append("</url>\n")
        yield "".join(parts)


def _unparsable_lastmod(rng: random.Random, i: int) -> str:
    if i % 20 == 10:  # 5% of the entries
        return UNPARSABLE[(i // 20) % len(UNPARSABLE)]
    return mixed_lastmod(rng, i)


def _same_lastmod(_rng: random.Random, _i: int) -> str:
    return "2024-06-30T21:15:00+02:00"  # one generator run stamped every entry


def _index_entries(count: int, seed: int) -> Iterator[str]:
    rng = random.Random(seed)
    for i in range(count):
        lastmod = mixed_lastmod(rng, i + 1)  # i + 1: entry 0 is not forced to the latest day
        if i == 500:
            lastmod = LATEST_DAY.isoformat()
        yield (
            f"<sitemap><loc>https://www.example.com/sitemaps/part-{i}.xml.gz</loc>"
            f"<lastmod>{lastmod}</lastmod></sitemap>\n"
        )


def _tiny() -> Iterator[str]:
    for i in range(5):
        yield (
            f"<url><loc>https://www.example.com/page-{i}</loc>"
            f"<lastmod>2024-06-{20 + i}T12:00:00Z</lastmod></url>\n"
        )


def _write(path: Path, head: str, body: Iterator[str], tail: str) -> None:
    with path.open("w", encoding="utf-8", newline="\n", buffering=1 << 20) as f:
        f.write(head)
        batch: list[str] = []
        for piece in body:
            batch.append(piece)
            if len(batch) >= 2048:
                f.write("".join(batch))
                batch.clear()
        f.write("".join(batch))
        f.write(tail)


def _gzip(src: Path, dst: Path) -> None:
    # mtime=0 and no file name in the header: the same bytes on every run.
    with (
        src.open("rb") as fin,
        dst.open("wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0) as gz,
    ):
        shutil.copyfileobj(fin, gz, 1 << 20)


BIG_ENTRIES = 500_000

CORPORA = (
    Corpus("urlset-50k", "urlset-50k.xml", "50,000 URLs, mixed lastmod forms", 50_000),
    Corpus("urlset-50k.gz", "urlset-50k.xml.gz", "the same, gzipped", 50_000, gzipped=True),
    Corpus(
        "urlset-50mb",
        "urlset-50mb.xml",
        "500,000 URLs (~50 MB), mixed lastmods, image and xhtml:link extensions",
        BIG_ENTRIES,
        big=True,
    ),
    Corpus(
        "urlset-50mb.gz",
        "urlset-50mb.xml.gz",
        "the same, gzipped",
        BIG_ENTRIES,
        gzipped=True,
        big=True,
    ),
    Corpus("sitemapindex-1k", "sitemapindex-1k.xml", "sitemap index of 1,000 sitemaps", 1_000),
    Corpus(
        "same-lastmod",
        "urlset-same-lastmod.xml",
        "50,000 URLs, all with the same lastmod (a generator's timestamp)",
        50_000,
    ),
    Corpus(
        "unparsable-5pct",
        "urlset-unparsable-5pct.xml",
        "50,000 URLs, 5% of lastmods unparsable (several of them lenient-parser bait)",
        50_000,
    ),
)
TINY = Corpus("tiny-1kb", "tiny-1kb.xml", "5 URLs (under 1 KB)", 5)


def generate(out: Path, quick: bool) -> list[Corpus]:
    """Write every corpus into `out` (the big ones unless quick) and return those written."""
    out.mkdir(parents=True, exist_ok=True)
    _write(
        out / "urlset-50k.xml",
        HEAD_URLSET,
        urlset_entries(50_000, 1, mixed_lastmod, False),
        TAIL_URLSET,
    )
    _gzip(out / "urlset-50k.xml", out / "urlset-50k.xml.gz")
    if not quick:
        _write(
            out / "urlset-50mb.xml",
            HEAD_URLSET,
            urlset_entries(BIG_ENTRIES, 2, mixed_lastmod, True),
            TAIL_URLSET,
        )
        _gzip(out / "urlset-50mb.xml", out / "urlset-50mb.xml.gz")
    _write(out / "sitemapindex-1k.xml", HEAD_INDEX, _index_entries(1_000, 3), TAIL_INDEX)
    _write(
        out / "urlset-same-lastmod.xml",
        HEAD_URLSET,
        urlset_entries(50_000, 5, _same_lastmod, False),
        TAIL_URLSET,
    )
    _write(
        out / "urlset-unparsable-5pct.xml",
        HEAD_URLSET,
        urlset_entries(50_000, 4, _unparsable_lastmod, False),
        TAIL_URLSET,
    )
    _write(out / TINY.filename, HEAD_URLSET, _tiny(), TAIL_URLSET)
    return [c for c in CORPORA if quick is False or not c.big]
