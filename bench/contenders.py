"""What the benchmark measures: each contender turns a sitemap file into (entries, latest lastmod).

Each `load_*` function does the imports (not timed) and returns the function that is timed: it
takes the path of a corpus (plain or gzipped) and returns an `Answer`. The run happens in a fresh
process per contender and corpus (see run.py), so one contender's memory or caches never help or
hurt another.
"""

from __future__ import annotations

import calendar
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from xml.parsers import expat

# The auditor's rules that the hand-written reference follows: imported, never copied (lastmod
# imports nothing heavy; the parser's cap on a lastmod is imported by the loaders, untimed).
from sitemap_auditor.core.lastmod import MAX_OFFSET_MINUTES, W3C_DATETIME, W3C_IN_RANGE, XML_SPACE

CHUNK = 64 * 1024
GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class Answer:
    """What a contender says about one sitemap."""

    count: int | None
    latest: datetime | None  # an aware UTC instant, or None
    note: str = ""


Run = Callable[[Path], Answer]


def file_chunks(path: Path) -> Iterator[bytes]:
    """The decoded body in 64 KiB slices: gzip (found by its magic bytes) inflated as a stream."""
    with path.open("rb") as f:
        head = f.read(CHUNK)
        if head[:2] != GZIP_MAGIC:
            chunk = head
            while chunk:
                yield chunk
                chunk = f.read(CHUNK)
            return
        d = zlib.decompressobj(47)  # 32 + 15: a gzip or zlib header, found by itself
        data = head
        while data:
            while data:
                out = d.decompress(data, CHUNK)
                data = d.unconsumed_tail
                if out:
                    yield out
            data = f.read(CHUNK)
        rest = d.flush()
        if rest:
            yield rest


def read_whole(path: Path) -> bytes:
    """The decoded body as one bytes object, as the peers take it."""
    return b"".join(file_chunks(path))


# --- (a) the auditor's parse path --------------------------------------------------------------


def load_auditor() -> Run:
    from sitemap_auditor.core.parser import ParsedSitemap, SitemapParser
    from sitemap_auditor.fetching.decoding import peel_gzip

    def body(path: Path) -> Iterator[bytes]:
        # The auditor's own bounded gzip path, as the Lambda runs it.
        return peel_gzip(raw_chunks(path))

    def run(path: Path) -> Answer:
        parser = SitemapParser()
        for chunk in body(path):
            parser.feed(chunk)
        result = parser.close()
        if not isinstance(result, ParsedSitemap):
            return Answer(None, None, f"rejected: {result.reason}")
        note = f"{result.unparsable_total} unparsable" if result.unparsable_total else ""
        return Answer(result.entry_count, result.latest_lastmod, note)

    return run


def raw_chunks(path: Path) -> Iterator[bytes]:
    """The file's bytes in 64 KiB reads, as the wire would hand them over."""
    with path.open("rb") as f:
        while chunk := f.read(CHUNK):
            yield chunk


# --- (b) the floor: expat with no callbacks at all ---------------------------------------------


def load_floor() -> Run:
    def run(path: Path) -> Answer:
        p = expat.ParserCreate()
        p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        for chunk in file_chunks(path):
            p.Parse(chunk, False)
        p.Parse(b"", True)
        return Answer(None, None, "no callbacks: reads nothing")

    return run


def load_noop() -> Run:
    """Expat calling empty Python start and end handlers: what any callback design pays."""

    def run(path: Path) -> Answer:
        p = expat.ParserCreate()
        p.buffer_text = True
        p.ordered_attributes = True

        def start(_name: str, _attrs: list[str]) -> None:
            pass

        def end(_name: str) -> None:
            pass

        p.StartElementHandler = start
        p.EndElementHandler = end
        for chunk in file_chunks(path):
            p.Parse(chunk, False)
        p.Parse(b"", True)
        return Answer(None, None, "empty start/end handlers: reads nothing")

    return run


# --- (c) the reference: the auditor's rules by hand -------------------------------------------
#
# The reference is what the auditor's parse path could be at best, written by hand as one expat
# pass: the same rules, imported from the auditor, never copied (docs/contract.md §5: its W3C
# Datetime patterns, its white space, its zone bound, and the parser's cap on a lastmod).

_W3C = W3C_DATETIME
_SPACE = XML_SPACE
_MAX_OFFSET_MINUTES = MAX_OFFSET_MINUTES
_CACHE_LIMIT = 4096


def w3c_naive_utc(text: str) -> datetime | None:
    """The UTC instant of a W3C Datetime as a naive datetime (cheaper to compare), or None.

    Date-only means that day's last second and YYYY-MM that month's (docs/contract.md §5).
    """
    m = _W3C.fullmatch(text.strip(_SPACE))
    if m is None:
        return None
    y, mo, d, hh, mi, ss, frac, zone = m.groups()
    try:
        if mo is None:
            return datetime(int(y), 12, 31, 23, 59, 59)
        if d is None:
            year, month = int(y), int(mo)
            if not 1 <= month <= 12:
                return None
            return datetime(year, month, calendar.monthrange(year, month)[1], 23, 59, 59)
        if hh is None:
            return datetime(int(y), int(mo), int(d), 23, 59, 59)
        micro = int((frac + "00000")[:6]) if frac else 0
        local = datetime(int(y), int(mo), int(d), int(hh), int(mi), int(ss or 0), micro)
        if zone is None or zone == "Z":
            return local
        hours, minutes = int(zone[1:3]), int(zone[4:6])
        offset = hours * 60 + minutes
        if minutes > 59 or offset > _MAX_OFFSET_MINUTES:
            return None
        return local - timedelta(minutes=offset if zone[0] == "+" else -offset)
    except (ValueError, OverflowError):
        return None


def cached_w3c() -> Callable[[str], datetime | None]:
    """w3c_naive_utc behind a bounded per-string cache (sitemaps repeat their lastmods)."""
    cache: dict[str, datetime | None] = {}
    missing = object()

    def parse(text: str) -> datetime | None:
        value = cache.get(text, missing)
        if value is missing:
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
            value = cache[text] = w3c_naive_utc(text)
        return value  # type: ignore[return-value]

    return parse


def _refuse(*_args: Any) -> Any:
    raise ValueError("entity declaration or external reference refused")


def reference_parse(
    chunks: Iterator[bytes], max_chars: int, lazy: bool = False
) -> tuple[str | None, int, datetime | None, int]:
    """Count depth-2 entries and keep the latest depth-3 <lastmod>, as the contract says.

    Closures instead of methods, interned element names classified once through a dict, no
    character-data handler except inside <lastmod>, and naive-UTC comparisons. Names are matched
    by local name (after any prefix) in any namespace or none, as the contract reads them, which
    spares expat's namespace processing.

    lazy: validate each lastmod with one range-checking regex and keep, per shape, the greatest
    text; only those few texts are turned into instants at the end (see shape_max).
    """
    p = expat.ParserCreate()
    p.buffer_text = True
    p.ordered_attributes = True
    p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    p.EntityDeclHandler = _refuse
    p.UnparsedEntityDeclHandler = _refuse
    p.ExternalEntityRefHandler = _refuse
    parse = cached_w3c()
    roots = {"urlset": "url", "sitemapindex": "sitemap"}
    is_lastmod: dict[str, bool] = {}
    is_entry: dict[str, bool] = {}
    entry = ""
    root: str | None = None
    depth = 0
    count = 0
    in_entry = False
    collecting = False
    text: list[str] = []
    text_len = 0
    latest: datetime | None = None
    unparsable = 0

    def data(piece: str) -> None:
        nonlocal text_len
        if text_len <= max_chars:
            text.append(piece)
            text_len += len(piece)

    def start(name: str, _attrs: list[str]) -> None:
        nonlocal depth, count, in_entry, collecting, text_len, root, entry
        depth += 1
        if depth == 3:
            if in_entry:
                flag = is_lastmod.get(name)
                if flag is None:
                    flag = is_lastmod[name] = name.rpartition(":")[2] == "lastmod"
                if flag:
                    collecting = True
                    text.clear()
                    text_len = 0
                    p.CharacterDataHandler = data
        elif depth == 2:
            flag = is_entry.get(name)
            if flag is None:
                flag = is_entry[name] = name.rpartition(":")[2] == entry
            in_entry = flag
            if flag:
                count += 1
        elif depth == 1:
            local = name.rpartition(":")[2]
            if local not in roots:
                raise ValueError(f"unknown root <{local[:100]}>")
            root, entry = local, roots[local]

    def end(_name: str) -> None:
        nonlocal depth, collecting, latest, unparsable
        if collecting and depth == 3:
            collecting = False
            p.CharacterDataHandler = None
            value = parse("".join(text)) if text_len <= max_chars else None
            if value is None:
                unparsable += 1
            elif latest is None or value > latest:
                latest = value
        depth -= 1

    offer, shapes_latest = shape_max(max_chars)

    def end_lazy(_name: str) -> None:
        nonlocal depth, collecting, unparsable
        if collecting and depth == 3:
            collecting = False
            p.CharacterDataHandler = None
            if text_len > max_chars or not offer("".join(text)):
                unparsable += 1
        depth -= 1

    p.StartElementHandler = start
    p.EndElementHandler = end_lazy if lazy else end
    for chunk in chunks:
        p.Parse(chunk, False)
    p.Parse(b"", True)
    if lazy:
        latest = shapes_latest()
    return root, count, latest, unparsable


# The auditor's pattern of W3C Datetimes whose fields are all in range (save days 29-31 of short
# months and instants a zone pushes out of datetime's range, left to the full parser). Group 1 is
# the zone. Within one shape (length and zone), such texts sort as their instants do.
_VALID = W3C_IN_RANGE


_SHORT_MONTHS = frozenset(("04", "06", "09", "11"))


def shape_max(max_chars: int) -> tuple[Callable[[str], bool], Callable[[], datetime | None]]:
    """The latest of many W3C Datetime texts, one regex match per distinct text: (offer, latest).

    Texts of one shape (same length, same zone) compare as strings exactly as their instants
    compare, so only the greatest text of each shape has to become an instant, at the end. The
    few texts the regex cannot vouch for (29-31 of a short month, years 0001 and 9999 where a
    zone may leave datetime's range) go through the full parser at once. A bounded memo of the
    texts already offered makes a repeated lastmod (many sitemaps stamp every entry with the
    same time) cost one dict lookup: offering it again cannot change the latest.
    """
    best: dict[object, str] = {}
    get = best.get
    exact: list[datetime] = []
    match = _VALID.fullmatch
    seen: dict[str, bool] = {}

    def offer(raw: str) -> bool:
        ok = seen.get(raw)
        if ok is None:
            ok = check(raw)
            if len(raw) <= max_chars:  # a huge text is never kept
                if len(seen) >= _CACHE_LIMIT:
                    seen.clear()
                seen[raw] = ok
        return ok

    def check(raw: str) -> bool:
        m = match(raw)
        if m is None:
            text = raw.strip(_SPACE)
            if text == raw:
                return False
            m = match(text)
            if m is None:
                return False
            raw = text
        day = raw[8:10]
        if (
            (day > "28" and (raw[5:7] == "02" or (day == "31" and raw[5:7] in _SHORT_MONTHS)))
            or raw < "0002"
            or raw >= "9999"
        ):
            value = w3c_naive_utc(raw)
            if value is None:
                return False
            exact.append(value)
            if len(exact) > 1:
                exact[:] = [max(exact)]
            return True
        key = (len(raw), m[1])
        if raw > get(key, ""):
            best[key] = raw
        return True

    def latest() -> datetime | None:
        found = [v for v in map(w3c_naive_utc, best.values()) if v is not None] + exact
        return max(found) if found else None

    return offer, latest


def load_reference() -> Run:
    from sitemap_auditor.core.parser import MAX_LASTMOD_CHARS

    def run(path: Path) -> Answer:
        _root, count, latest, unparsable = reference_parse(file_chunks(path), MAX_LASTMOD_CHARS)
        note = f"{unparsable} unparsable" if unparsable else ""
        return Answer(count, latest.replace(tzinfo=UTC) if latest else None, note)

    return run


def load_lazy() -> Run:
    from sitemap_auditor.core.parser import MAX_LASTMOD_CHARS

    def run(path: Path) -> Answer:
        chunks = file_chunks(path)
        _root, count, latest, unparsable = reference_parse(chunks, MAX_LASTMOD_CHARS, lazy=True)
        note = f"{unparsable} unparsable" if unparsable else ""
        return Answer(count, latest.replace(tzinfo=UTC) if latest else None, note)

    return run


# --- (d) the tools a user would pick instead ---------------------------------------------------


def _as_utc(value: datetime) -> datetime:
    # A naive datetime carries no zone: it is read as UTC here, the kindest reading.
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def load_usp() -> Run:
    import logging

    from usp.objects.sitemap import IndexXMLSitemap
    from usp.tree import sitemap_from_str

    logging.disable(logging.CRITICAL)  # usp logs every sub-sitemap it does not fetch

    def run(path: Path) -> Answer:
        # usp decodes the whole body (utf-8-sig) and parses it in one expat call.
        tree = sitemap_from_str(read_whole(path).decode("utf-8-sig", errors="replace"))
        if isinstance(tree, IndexXMLSitemap):
            subs = tree.sub_sitemaps
            return Answer(len(subs), None, "keeps no <lastmod> of index entries")
        count = 0
        latest: datetime | None = None
        naive = 0
        for page in tree.all_pages():
            count += 1
            lm = page.last_modified
            if not isinstance(lm, datetime):  # None, or "" left as it was
                continue
            if lm.tzinfo is None:
                naive += 1
            value = _as_utc(lm)
            if latest is None or value > latest:
                latest = value
        return Answer(count, latest, f"{naive} naive datetimes" if naive else "")

    return run


def load_advertools() -> Run:
    import logging

    import pandas as pd
    from advertools import sitemap_to_df

    logging.disable(logging.CRITICAL)

    def run(path: Path) -> Answer:
        # A file:// URL: advertools reads it with urlopen and gunzips a name ending in xml.gz.
        df = sitemap_to_df(path.resolve().as_uri(), recursive=False)
        count = len(df)
        if "lastmod" not in df:
            return Answer(count, None, "no lastmod column")
        col = df["lastmod"]
        if not pd.api.types.is_datetime64_any_dtype(col):
            return Answer(count, None, "lastmod left as text (pd.to_datetime failed)")
        top = col.max()
        latest = None if pd.isna(top) else top.to_pydatetime()
        return Answer(count, _as_utc(latest) if latest else None, "")

    return run


def load_scrapy() -> Run:
    from scrapy.utils.sitemap import Sitemap

    def run(path: Path) -> Answer:
        sitemap = Sitemap(read_whole(path))  # Scrapy hands it response.body, the whole body
        parse = cached_w3c()
        count = 0
        unparsable = 0
        latest: datetime | None = None
        for entry in sitemap:
            count += 1
            text = entry.get("lastmod")
            if text is None:
                continue
            value = parse(text)
            if value is None:
                unparsable += 1
            elif latest is None or value > latest:
                latest = value
        note = f"{unparsable} unparsable" if unparsable else ""
        return Answer(count, latest.replace(tzinfo=UTC) if latest else None, note)

    return run


@dataclass(frozen=True)
class Contender:
    key: str
    label: str
    load: Callable[[], Run]
    kind: str  # "auditor", "floor", "info", "reference" or "peer"
    module: str | None = None  # for peers: the module whose absence skips them
    package: str | None = None


CONTENDERS = (
    Contender("auditor", "auditor (SitemapParser)", load_auditor, "auditor"),
    Contender("floor", "expat, no callbacks (floor)", load_floor, "floor"),
    Contender("noop", "expat, empty start/end handlers", load_noop, "info"),
    Contender("reference", "the auditor's rules by hand (expat)", load_reference, "reference"),
    Contender("lazy", "the auditor's rules by hand, text compared", load_lazy, "info"),
    Contender(
        "usp",
        "ultimate-sitemap-parser",
        load_usp,
        "peer",
        "usp",
        "ultimate-sitemap-parser",
    ),
    Contender(
        "advertools",
        "advertools sitemap_to_df",
        load_advertools,
        "peer",
        "advertools",
        "advertools",
    ),
    Contender(
        "scrapy",
        "Scrapy Sitemap + the auditor's W3C rules",
        load_scrapy,
        "peer",
        "scrapy",
        "scrapy",
    ),
)
BY_KEY = {c.key: c for c in CONTENDERS}
