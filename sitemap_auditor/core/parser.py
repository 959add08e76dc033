"""Streaming sitemap parser: fed byte chunks, it answers with the facts or why it refused them.

It knows nothing of HTTP. Memory stays flat: expat keeps at most one unfinished token, and only
the latest `<lastmod>`, the counts and a few samples are kept. What expat may hold is bounded by
what it was fed since its last event (docs/contract.md §5), measured on the bytes expat reads.
"""

from __future__ import annotations

import codecs
import functools
import itertools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from operator import itemgetter
from typing import Any, Protocol
from xml.parsers import expat

from defusedxml import EntitiesForbidden, ExternalReferenceForbidden

from sitemap_auditor.core.issues import Issue, Kind
from sitemap_auditor.core.lastmod import LatestLastmod

__all__ = [
    "EXTENSION_NAMESPACES",
    "FEED_SLICE_BYTES",
    "MAX_DEPTH",
    "MAX_ENTRY_EXTENSIONS",
    "MAX_FIELD_CHARS",
    "MAX_LASTMOD_CHARS",
    "MAX_MARKUP_BYTES",
    "MAX_NAMES",
    "MAX_NAME_CHARS",
    "MAX_SAMPLE_CHARS",
    "MAX_UNPARSABLE_SAMPLES",
    "ROOTS",
    "DocumentHead",
    "EntryCallback",
    "EntryRun",
    "Extensions",
    "News",
    "ParsedSitemap",
    "Rejected",
    "RunCallback",
    "SitemapParser",
    "is_html_page",
    "parse_bytes",
]

ROOTS = {"urlset": "url", "sitemapindex": "sitemap"}  # root local name -> entry local name
# docs/contract.md §6: at most 20 unparsable values are listed, each cut to 100 characters.
MAX_UNPARSABLE_SAMPLES = 20
MAX_SAMPLE_CHARS = 100
# No W3C Datetime is longer than this (fractions aside); longer text is unparsable anyway, and
# keeping all of it would let one huge element grow memory.
MAX_LASTMOD_CHARS = 256
_XML_SPACE = " \t\r\n"


def _unknown_root(local: str) -> str:
    return f"unknown root element <{local[:100]}>"


def is_html_page(refusal: Issue) -> bool:
    """True for a candidate refused because a web page (root element <html>) was served in its
    place: the site's own 404 page, or one of its pages."""
    return refusal.kind is Kind.UNKNOWN_ROOT and refusal.detail.lower() == _unknown_root("html")


# expat keeps a stack entry per open element: a sitemap needs four or five levels, and a cap
# keeps a million nested elements (3 MB of body) from costing hundreds of MB.
MAX_DEPTH = 256
# What expat holds between two of its events, and how the parser keeps it bounded
# (docs/contract.md §5). expat keeps the bytes of one unfinished token (a start tag with all its
# attributes, an end tag, a comment, a processing instruction, a declaration) until the token
# ends, then reports it; text and CDATA content it reports as they come, and pyexpat buffers at
# most `buffer_size` (8 KiB) of it. So what it holds is the bytes fed since the unfinished
# token's start: after a Parse call, CurrentByteIndex is that start (or -1 when nothing was
# parsed since, which leaves it where it was). Those bytes are counted as expat reads them: the
# document's own bytes (UTF-8, UTF-16 code units, ISO-8859-1), or the UTF-8 the parser made of
# an encoding expat does not know. A DOCTYPE's internal subset is counted whole, from its
# start to its end, since expat keeps the attribute lists it declares; a CDATA section too, as
# markup, as the raw-byte guard before this one counted it.
# MAX_MARKUP_BYTES: no sitemap has markup this long (the longest real token is a `<loc>`-sized
# attribute or a comment of a few hundred bytes); a candidate with more is refused. The costliest
# token of this size found, a start tag of 125,000 distinct attributes, grows an audit's
# resident set by 26 MiB before its names are counted, within the 64 MiB an audit may grow by;
# expat's buffer for an unfinished token is at most twice the bound and a slice.
MAX_MARKUP_BYTES = 1024 * 1024
# expat is fed in slices of at most this size that end on its multiples (counted in the bytes
# expat reads), and what it holds is measured at every such end and at the document's end: so
# it never holds more than MAX_MARKUP_BYTES plus one slice, and the measure, taken at the same
# places however the body's chunks arrive, gives the same answer for every chunking.
FEED_SLICE_BYTES = 64 * 1024
# Names are the one thing expat and pyexpat keep for the parser's whole life: every distinct
# element and attribute name is stored in expat's tables and in pyexpat's intern dict (measured
# before this bound: 41 MB of distinct element names took 644 MiB), and each open element's name
# stays in a buffer per nesting level. The widest real sitemap seen uses 27 distinct names of at
# most 18 characters. With these caps the names held stay under about 2 MiB: 1,024 names of 256
# characters (at most 4 bytes each, in expat's table and in Python's), and 256 levels of one.
# Names are counted where pyexpat interns them, at the same places as the markup, so one slice
# and the token it completes may add their names before they are counted (MAX_MARKUP_BYTES).
MAX_NAMES = 1024
MAX_NAME_CHARS = 256
_MARKUP_REFUSED = f"refused XML construct: markup longer than {MAX_MARKUP_BYTES:,} bytes"


@dataclass(frozen=True)
class ParsedSitemap:
    """A sitemap that parsed: its root, entry count and latest `<lastmod>`."""

    root: str
    entry_count: int
    latest_lastmod: datetime | None
    unparsable_samples: tuple[str, ...]
    unparsable_total: int
    # The latest <lastmod> as written (a date-only value counts as the end of its day): for the
    # command line's report, which shows what the file says.
    latest_lastmod_text: str | None = None


@dataclass(frozen=True)
class Rejected:
    """A body that is not an acceptable sitemap, and why."""

    kind: Kind
    reason: str


# What the deep audit reads of each entry, and only when it asks (an on_entry callback): the
# Lambda's path never pays for it. Extension elements are known by their namespace, or by their
# usual prefix when the document forgot to declare it.
EXTENSION_NAMESPACES = {
    "http://www.google.com/schemas/sitemap-image/1.1": "image",
    "http://www.google.com/schemas/sitemap-video/1.1": "video",
    "http://www.google.com/schemas/sitemap-news/0.9": "news",
    "http://www.w3.org/1999/xhtml": "xhtml",
}
_EXTENSION_PREFIXES = frozenset(EXTENSION_NAMESPACES.values())
# One entry keeps at most this many extension elements of each kind (they are all counted);
# text is kept up to this many characters a field (a URL is at most 2,048).
MAX_ENTRY_EXTENSIONS = 1000
MAX_FIELD_CHARS = 4096


@dataclass(frozen=True, slots=True)
class News:
    """One `<news:news>` of an entry: the tags it has (not blank) and its publication date."""

    tags: frozenset[str]  # of name, language (in news:publication), publication_date, title
    publication_date: str | None


@dataclass(frozen=True, slots=True)
class Extensions:
    """What an entry holds besides `<loc>` and `<lastmod>`, as the deep audit reads it."""

    images: int = 0
    images_without_loc: int = 0
    videos: tuple[frozenset[str], ...] = ()  # each video's child tags that are not blank
    videos_total: int = 0
    news: tuple[News, ...] = ()
    # (hreflang, href) of each <xhtml:link rel="alternate">
    alternates: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class DocumentHead:
    """The root element as written: its local name, namespace and line."""

    root: str
    namespace: str | None  # the namespace its prefix (or the default) is bound to there
    line: int


class EntryCallback(Protocol):
    """What the parser calls with each `<url>` or `<sitemap>` entry (the deep audit's reading).

    line is where the entry's start tag is; loc is trimmed of XML white space (None when the
    entry has no `<loc>`); lastmod is as written but for the white space in front of it, cut
    past MAX_LASTMOD_CHARS + 1 characters;
    extensions is None for an entry with no extension element (most of them), so that the
    common entry costs one call and no object.
    """

    def __call__(
        self, line: int, loc: str | None, lastmod: str | None, extensions: Extensions | None, /
    ) -> None: ...


# Runs of plain entries (docs/deep.md, "How the deep audit reads fast"). Most sitemaps are
# long runs of entries of one shape: `<url>`, a `<loc>`, perhaps a `<lastmod>`, `<changefreq>`
# and `<priority>` in that order, unprefixed, without attributes, comments, CDATA, character
# references or carriage returns in values. The run's values are read at once by the
# expressions below, which match only well-formed text that expat reads as exactly those
# elements; expat reads the lines around the run, with no Python handler set, and the whole
# lines of whole entries between them are left out (_skippable). Anything else is read by the
# handlers.
_WS = r"[ \t\r\n]*"
# Text that expat reads as itself: no markup, no reference, no `>` (so no `]]>`), no character
# XML forbids, no carriage return (expat would turn `\r\n` into `\n`).
_PLAIN = r"[^<&>\r\x00-\x08\x0b\x0c\x0e-\x1f]"
# A <lastmod> is read trimmed in front (EntryCallback): its value starts with none of these.
_VALUE_START = r"[^<&>\s\x00-\x08\x0b\x0c\x0e-\x1f]"
# A <loc> is read trimmed: its white space only around a value with none inside; the five
# predefined references are let through and replaced afterwards.
_LOC_CHAR = r"[^<&>\x00-\x20]"
_LOC = f"{_LOC_CHAR}+(?:&(?:amp|lt|gt|quot|apos);{_LOC_CHAR}*)*"
# The quick expressions' <loc>: no white space or control anywhere in it, as the strict one's
# (a <loc> with white space inside is read by the handlers, and its URL found invalid).
_RUN_LOC = r"[^<\x00-\x20]+"


def _run_entry(entry: str, extra: tuple[str, ...]) -> re.Pattern[str]:
    # An entry and the white space after it; groups: the <loc>, the <lastmod> (None when there
    # is none: an empty one is not in a run). Split by it, a run leaves nothing between.
    fields = "".join(f"(?:<{name}>{_PLAIN}*</{name}>{_WS})?" for name in extra)
    return re.compile(
        f"<{entry}>{_WS}<loc>{_WS}({_LOC}){_WS}</loc>{_WS}"
        f"(?:<lastmod>{_WS}({_VALUE_START}{_PLAIN}*)</lastmod>{_WS})?{fields}</{entry}>{_WS}"
    )


def _quick_entry(entry: str, extra: tuple[str, ...]) -> re.Pattern[str]:
    # The same entries, for a run's text that holds no `&`, CR, `]]>` or character XML forbids
    # (looked for beforehand): a value is then anything up to the next `<` (a <loc>, anything
    # but white space), which the expression reads about twice as fast. A <lastmod>'s start is
    # looked at afterwards (one with white space before it is read the other way).
    ws = r"[ \t\n]*"
    fields = "".join(f"(?:<{name}>[^<]*</{name}>{ws})?" for name in extra)
    return re.compile(
        f"<{entry}>{ws}<loc>({_RUN_LOC})</loc>{ws}(?:<lastmod>([^<]+)</lastmod>{ws})?{fields}"
        f"</{entry}>{ws}"
    )


_RUN_FIELDS = {"url": ("changefreq", "priority"), "sitemap": ()}  # besides loc and lastmod


def _layout_of(entry: str, extra: tuple[str, ...]) -> re.Pattern[str]:
    # The quick expression's entry, its white space caught: the layout of an entry (which
    # fields it has, the white space around them), from which _layout makes its expression.
    ws = "([ \t\n]*)"
    fields = "".join(f"(?:<{name}>[^<]*</{name}>{ws})?" for name in extra)
    return re.compile(
        f"<{entry}>{ws}<loc>[^<]+</loc>{ws}(?:<lastmod>[^<]+</lastmod>{ws})?{fields}</{entry}>"
    )


_UNTRIMMED = "[^< \t\n][^<]*"


@functools.lru_cache(maxsize=64)
def _layout(entry: str, spaces: tuple[str | None, ...]) -> re.Pattern[str]:
    """The quick expression for entries of one layout only (_layout_of's groups): it reads a
    file whose entries are all laid out alike half as fast again. Its groups are the <loc> and
    the <lastmod>, or the <loc> alone for a layout without <lastmod>."""
    before_loc, after_loc, after_lastmod, *after_extra = map(
        lambda space: None if space is None else re.escape(space), spaces
    )
    # Values that need no trimming (the handlers' <loc> is trimmed, their <lastmod> in front):
    # what is read as written is then what they read.
    lastmod = "" if after_lastmod is None else f"<lastmod>({_UNTRIMMED})</lastmod>{after_lastmod}"
    fields = "".join(
        f"<{name}>[^<]*</{name}>{space}"
        for name, space in zip(_RUN_FIELDS[entry], after_extra, strict=True)
        if space is not None
    )
    return re.compile(
        f"<{entry}>{before_loc}<loc>({_RUN_LOC})</loc>{after_loc}{lastmod}{fields}"
        f"</{entry}>[ \t\n]*"
    )


def _split_run(pattern: re.Pattern[str], text: str) -> tuple[bool, list[str], list[str | None]]:
    """Split text by an entry expression: whether its entries tile it, their locs, lastmods."""
    parts: list[str | None] = pattern.split(text)
    if pattern.groups == 1:
        locs = parts[1::2]
        return not any(parts[::2]), locs, [None] * len(locs)  # type: ignore[return-value]
    return not any(parts[::3]), parts[1::3], parts[2::3]  # type: ignore[return-value]


@functools.cache
def _run_patterns(entry: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The strict and the quick expression of an entry (compiled when a run is first looked
    for: the Lambda's parser never needs them)."""
    return _run_entry(entry, _RUN_FIELDS[entry]), _quick_entry(entry, _RUN_FIELDS[entry])


@functools.cache
def _layout_patterns(entry: str) -> re.Pattern[str]:
    return _layout_of(entry, _RUN_FIELDS[entry])


# The bytes that are not characters XML forbids (so that deleting them leaves those that are).
_NOT_FORBIDDEN = bytes(sorted(set(range(256)) - set(range(32)) | {9, 10, 13}))
_first_char, _last_char = itemgetter(0), itemgetter(-1)


def _trimmed(locs: list[str], lastmods: list[str | None]) -> bool:
    """True when no <loc> has white space at either end and no <lastmod> before it."""
    isspace = str.isspace
    return not (
        any(map(isspace, map(_first_char, locs)))
        or any(map(isspace, map(_last_char, locs)))
        or any(map(isspace, map(_first_char, filter(None, lastmods))))
    )


# The element names a run holds, which pyexpat would have interned, and where an entry ends.
_RUN_NAMES = {entry: (entry, "loc", "lastmod", *extra) for entry, extra in _RUN_FIELDS.items()}
_RUN_CLOSE = {entry: f"</{entry}>" for entry in _RUN_FIELDS}
_RUN_TAGS = {entry: tag.encode() for entry, tag in _RUN_CLOSE.items()}


@functools.cache
def _run_start(entry: str) -> Callable[[bytes], re.Match[bytes] | None]:
    """Whether a slice starts with an entry's start tag, after white space (compiled when first
    asked, as the run expressions are: the Lambda's parser never needs it)."""
    return re.compile(f"[ \t\r\n]*<{entry}>".encode()).match


_REFERENCES = (("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&apos;", "'"), ("&amp;", "&"))
# A run is looked for in slices of at least this many bytes after the entry in progress, and
# between entries of other shapes, from this many entries on.
_MIN_RUN_BYTES = 2048
_MIN_RUN_ENTRIES = 8
_MAX_LAYOUT_MISSES = 4
# A layout's white space is written into its expression, and 64 expressions are kept: a layout
# with more between two tags is no layout (the quick expression reads it), so that a document of
# megabytes of white space makes no expression of them.
_MAX_LAYOUT_SPACE = 64
_MAX_TAKEN_LASTMODS = 4096


def _stretches(
    pattern: re.Pattern[str], text: str, lead: int
) -> list[tuple[int, int, list[str], list[str | None]]]:
    """The runs of plain entries in text that are not all plain: where each begins and ends,
    its locs and lastmods; the text between them is for the handlers."""
    out: list[tuple[int, int, list[str], list[str | None]]] = []
    locs: list[str] = []
    lastmods: list[str | None] = []
    begin = at = lead
    for m in pattern.finditer(text, lead):
        if m.start() != at:
            if len(locs) >= _MIN_RUN_ENTRIES:
                out.append((begin, at, locs, lastmods))
            locs, lastmods, begin = [], [], m.start()
        locs.append(m[1])
        lastmods.append(m[2])
        at = m.end()
    if len(locs) >= _MIN_RUN_ENTRIES:
        out.append((begin, at, locs, lastmods))
    return out


def _skippable(text: str, begin: int, finish: int, close: str) -> tuple[int, int] | None:
    """Where, in a run text[begin:finish], the whole lines of whole entries expat need not read
    lie: from the line after the first entry's end to the line after the last one's (or the one
    before it), or None when the run has no two such line ends.

    The run's expression has read the entries as well-formed, with nothing expat keeps (no
    attribute, no namespace, no reference but the five predefined ones): the document is as
    well-formed without them, and expat, given the lines before and after, stands where it
    would have stood, but for the bytes and lines left out (kept by the parser). Both ends are
    at a line's start, so expat's columns stay right; a run with a carriage return, which
    expat counts as a line end, is read whole.
    """
    first = text.find(close, begin, finish) + len(close)
    a = text.rfind("\n", first, _next_tag(text, first, finish)) + 1
    if not a:
        return None
    last = text.rfind(close, first, finish) + len(close)
    b = text.rfind("\n", last, finish) + 1
    if not b and last > first:
        previous = text.rfind(close, first, last - len(close))
        if previous >= 0:
            previous += len(close)
            b = text.rfind("\n", previous, _next_tag(text, previous, finish)) + 1
    if b <= a or text.find("\r", a, b) >= 0:
        return None
    return a, b


def _next_tag(text: str, at: int, finish: int) -> int:
    found = text.find("<", at, finish)
    return finish if found < 0 else found


def _unparsable(
    value: str,
    overlong: bool,
    known: Callable[[str], bool | None],
    add: Callable[[str], bool],
    samples: list[str],
) -> bool:
    """Take one <lastmod> into the latest (known and add: a LatestLastmod's); True when it does
    not parse, its sample kept among the first MAX_UNPARSABLE_SAMPLES."""
    if overlong or (
        len(value) > MAX_LASTMOD_CHARS and len(value.strip(_XML_SPACE)) > MAX_LASTMOD_CHARS
    ):
        # Past the cap no value parses, and none is memoised. The sample is the value's start,
        # which is what survives of it however its bytes arrived.
        sample = value.lstrip(_XML_SPACE)
    elif known(value) or add(value):
        return False
    else:
        sample = value.strip(_XML_SPACE)
    if len(samples) < MAX_UNPARSABLE_SAMPLES:
        samples.append(sample[:MAX_SAMPLE_CHARS])
    return True


@dataclass(frozen=True, slots=True)
class EntryRun:
    """Entries read at once: each a `<loc>` and perhaps a `<lastmod>`, and nothing else the
    deep audit reads (no extension element, no empty or missing `<loc>`).

    locs and lastmods are as EntryCallback's (a run holds no empty `<lastmod>`); the lines are
    worked out only when asked for.
    """

    entry: str  # the entries' element: url or sitemap
    locs: list[str]
    lastmods: list[str | None]
    text: str  # the run as expat read it
    first_line: int  # the line the run's text starts on

    def lines(self) -> list[int]:
        """The line of each entry's start tag, as expat counts lines (CR LF, CR or LF)."""
        text = self.text
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        # Every start tag of the entries' name in a run is an entry's: no value holds a `<`.
        tag = f"<{self.entry}>"
        out: list[int] = []
        line, at = self.first_line, 0
        start = text.find(tag)
        while start >= 0:
            line += text.count("\n", at, start)
            at = start
            out.append(line)
            start = text.find(tag, start + len(tag))
        return out


class RunCallback(Protocol):
    """What the parser calls with each EntryRun, when the reader takes runs."""

    def __call__(self, run: EntryRun, /) -> None: ...


_Handlers = tuple[
    Callable[[str, list[str]], None],
    Callable[[str], None],
    Callable[[], None],
    Callable[[], "ParsedSitemap | None"],
    Callable[[bytes, int], None],
]


# The XML declaration, with its encoding, is looked for in this many first bytes.
_SNIFF_BYTES = 1024
_DECLARED = re.compile(rb"<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z][A-Za-z0-9._-]{0,39})[\"']")
# What expat reads itself (codec names as Python's codecs.lookup spells them).
_EXPAT_NATIVE = frozenset({"utf-8", "utf-16", "utf-16-le", "utf-16-be", "iso8859-1", "ascii"})


def _transcoding(head: bytes) -> str | None:
    """The codec to decode a document with before expat, or None when expat reads it itself."""
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "utf-32"  # byte order marks expat does not know
    if head.startswith((b"\xef\xbb\xbf", b"\xfe\xff", b"\xff\xfe")):
        return None
    m = _DECLARED.match(head)
    if m is None:
        return None
    try:
        info = codecs.lookup(m[1].decode("ascii"))
    except LookupError:
        return None  # expat says it does not know it, and the candidate is refused
    if info.name in _EXPAT_NATIVE or not getattr(info, "_is_text_encoding", True):
        return None
    return info.name


def _read_as_utf8(head: bytes) -> bool:
    """True when expat reads a document that starts so as UTF-8 (its default, or declared)."""
    if head.startswith((b"\xfe\xff", b"\xff\xfe")) or b"\x00" in head[:4]:
        return False
    head = head.removeprefix(b"\xef\xbb\xbf")
    m = _DECLARED.match(head)
    if m is None:
        return not (head.startswith(b"<?xml") and b"encoding" in head.partition(b">")[0])
    return m[1].lower() in (b"utf-8", b"utf8")


class _RefusedError(Exception):
    """Raised from inside expat callbacks to stop parsing with a reason."""

    def __init__(self, kind: Kind, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind


def _entity_decl(name: str, *_: object) -> None:
    raise EntitiesForbidden(name, None, None, None, None, None)


def _external_ref(context: str, base: str | None, sysid: str | None, pubid: str | None) -> int:
    raise ExternalReferenceForbidden(context, base, sysid, pubid)


def _attlist_decl(element: str, _name: str, _type: str, default: str | None, _: int) -> None:
    # A declared default is added to every start tag of its element: a DOCTYPE of 100 of them
    # made a document of empty <url/> tags parse 13 times slower, and no sitemap declares one.
    if default is not None:
        raise _RefusedError(
            Kind.REFUSED_XML,
            f"refused XML construct: attribute default declared for <{element[:100]}>",
        )


class SitemapParser:
    """Incremental parser for one sitemap document.

    The expat callbacks are closures over local state rather than methods: they run for every
    element of a 50 MB document, and a closure's cell access costs less than attribute access.
    Names are matched by local name (after any prefix), so the root and entries may be in any
    namespace or none, without paying for expat's namespace processing.
    """

    def __init__(
        self,
        on_entry: EntryCallback | None = None,
        on_head: Callable[[DocumentHead], EntryCallback | None] | None = None,
        on_run: RunCallback | None = None,
    ) -> None:
        """on_entry, when given, is called with every entry (the deep audit); the root element
        is then told by `head`, and on_head, when given, is called with it as soon as it is
        read, before any entry: what it returns, when not None, is called with the entries in
        on_entry's place. on_run, when given with on_entry, is called with each run of plain
        entries (EntryRun) instead of on_entry with each of them. Without on_entry, nothing of
        this is read."""
        # The expat parser is made once the start of the document tells its encoding.
        p: Any = None
        self._p: Any = None
        self._head = b""
        self._decoder: codecs.IncrementalDecoder | None = None
        self._codec = ""
        self._outcome: Rejected | None = None
        self._seen_content = False
        # What bounds what expat holds (see MAX_MARKUP_BYTES): bytes fed to expat and, when the
        # parser decodes first, to the decoder; where expat's unfinished token, or the DOCTYPE or
        # CDATA section it is in, began; the names pyexpat interned, and how many were checked.
        self._fed = self._raw_fed = self._token_at = self._undecoded = 0
        self._region_at: int | None = None
        # Bytes and lines of runs of plain entries that expat was not given (deep reading only;
        # see _skippable): what expat counts, plus these, is where it is in the document.
        self._skipped_bytes = self._skipped_lines = 0
        self._waiting = self._raw_waiting = b""  # kept back while a long token is unfinished
        self._names: dict[str, str] = {}
        self._names_checked = 0
        names = self._names
        self.head: DocumentHead | None = None

        depth = 0
        root: str | None = None
        entry = entry_suffix = ""
        in_entry = collecting = overlong = False
        count = 0
        latest = LatestLastmod()
        add_lastmod = latest.add
        known_lastmod = latest.known  # a dict lookup, without a Python call, for repeated values
        text: list[str] = []
        samples: list[str] = []
        unparsable = 0

        def start(name: str, _attrs: list[str]) -> None:
            nonlocal depth, in_entry, count, collecting, root, entry, entry_suffix, overlong
            depth += 1
            if depth == 3:
                if in_entry and (name == "lastmod" or name[-8:] == ":lastmod"):
                    collecting = True
                    overlong = False
                    text.clear()
                    p.CharacterDataHandler = text.append
            elif depth == 2:
                in_entry = name == entry or name[-len(entry_suffix) :] == entry_suffix
                if in_entry:
                    count += 1
            elif depth > MAX_DEPTH:
                raise _RefusedError(Kind.TOO_DEEP, f"elements nested deeper than {MAX_DEPTH}")
            elif depth == 1:
                local = name.rpartition(":")[2]
                found = ROOTS.get(local)
                if found is None:
                    raise _RefusedError(Kind.UNKNOWN_ROOT, _unknown_root(local))
                root, entry, entry_suffix = local, found, ":" + found

        def end(_name: str) -> None:
            nonlocal depth, collecting, unparsable
            if collecting:
                # The lastmod ends here (or, in mixed content, its first child does).
                collecting = False
                p.CharacterDataHandler = None
                value = text[0] if len(text) == 1 else "".join(text)
                # A value taken before is answered by the memo's look-up alone.
                if (
                    overlong or len(value) > MAX_LASTMOD_CHARS or not known_lastmod(value)
                ) and _unparsable(value, overlong, known_lastmod, add_lastmod, samples):
                    unparsable += 1
            depth -= 1

        def bound_text() -> None:
            # Called between chunks: one chunk adds at most its own size, so a huge <lastmod>
            # never holds more than the cap plus one chunk.
            nonlocal overlong
            if collecting and text:
                # White space around the value does not count against the cap: it is trimmed.
                joined = "".join(text).lstrip(_XML_SPACE)
                if len(joined) > MAX_LASTMOD_CHARS:
                    if joined[MAX_LASTMOD_CHARS:].strip(_XML_SPACE):
                        overlong = True  # text goes on past the cap: unparsable, however cut
                    joined = joined[: MAX_LASTMOD_CHARS + 1]
                text[:] = [joined]

        def facts() -> ParsedSitemap | None:
            if root is None:
                return None
            return ParsedSitemap(
                root, count, latest.latest(), tuple(samples), unparsable, latest.latest_text()
            )

        self._bound_text: Callable[[], None] = bound_text
        self._facts: Callable[[], ParsedSitemap | None] = facts
        # How a slice is given to expat: by the deep audit's reader, which reads runs of plain
        # entries at once, when the document is read as UTF-8 (see _start).
        self._feed_slice: Callable[[bytes, int], None] | None = None
        self._runs_slice: Callable[[bytes, int], None] | None = None

        def build(encoding: str | None) -> Any:
            nonlocal p
            p = expat.ParserCreate(encoding, intern=names)
            on_start: Callable[[str, list[str]], None] = start
            on_end: Callable[[str], None] = end
            if on_entry is not None:
                # The deep audit's handlers, which do the Lambda's job too (made here, once the
                # expat parser they set text handlers on exists).
                on_start, on_end, bound, read_facts, runs = self._entry_handlers(
                    on_entry, on_head, on_run, p
                )
                self._bound_text, self._facts, self._runs_slice = bound, read_facts, runs
            p.buffer_text = True
            p.ordered_attributes = True  # a list is cheaper than a dict; attributes are unused
            p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
            # defusedxml's defaults: a DOCTYPE is allowed, entity declarations and external
            # references are refused, nothing external is ever fetched.
            p.EntityDeclHandler = _entity_decl
            p.UnparsedEntityDeclHandler = _entity_decl
            p.ExternalEntityRefHandler = _external_ref
            p.StartElementHandler, p.EndElementHandler = on_start, on_end
            return p

        self._build: Callable[[str | None], Any] = build

    def _entry_handlers(
        self,
        on_entry: EntryCallback,
        on_head: Callable[[DocumentHead], EntryCallback | None] | None,
        on_run: RunCallback | None,
        p: Any,
    ) -> _Handlers:
        """Handlers that do what the Lambda's do, and also read each entry for on_entry.

        One pair of handlers does both jobs: a second Python call per element would cost more
        than all the reading. The Lambda's part (the root, the entry count, the latest
        `<lastmod>` and the unparsable samples) follows the Lambda's handlers rule for rule:
        a `<lastmod>` at an entry's second level in any namespace, ended by the first end tag
        after it (in mixed content, its first child's). Text is collected straight into a list
        by expat (no Python call per text event) and cut between slices (`bound_text`).
        """
        spaces: dict[str, str] = {}  # prefix ("" for the default) -> namespace, as declared
        # name -> (its extension kind, or "", and its local name), for the bindings so far.
        kinds: dict[str, tuple[str, str]] = {}
        depth = 0
        root: str | None = None
        entry_name = ""
        count = 0
        latest = LatestLastmod()
        add_lastmod = latest.add
        known_lastmod = latest.known
        samples: list[str] = []
        unparsable = 0
        parts: list[str] = []  # the text of the field being read
        collect = parts.append
        field = ""  # what that text is for: loc, lastmod, image:loc, video:..., news:...
        field_depth = 0
        overlong = False  # a <lastmod> whose text goes on past MAX_LASTMOD_CHARS
        # The entry being read (line 0: none); extensions only once it has one.
        line = 0
        loc: str | None = None
        lastmod: str | None = None
        extended = False
        images = images_without_loc = videos_total = 0
        image_loc = False
        videos: list[frozenset[str]] = []
        video_tags: set[str] = set()
        news: list[News] = []
        news_tags: set[str] = set()
        news_date: str | None = None
        alternates: list[tuple[str, str]] = []
        container = ""  # image, video or news: the extension element open at depth 3

        def kind_of(name: str) -> tuple[str, str]:
            prefix, _, local = name.rpartition(":")
            space = spaces.get(prefix)
            if space is not None:
                found = (EXTENSION_NAMESPACES.get(space, ""), local)
            else:
                found = ((prefix if prefix in _EXTENSION_PREFIXES else ""), local)
            kinds[name] = found  # at most MAX_NAMES distinct names reach here
            return found

        def read(what: str) -> None:
            nonlocal field, field_depth
            field, field_depth = what, depth
            parts.clear()
            p.CharacterDataHandler = collect

        def start(name: str, attrs: list[str]) -> None:
            nonlocal depth, root, entry_name, count, line, loc, lastmod, extended, container
            nonlocal images, images_without_loc, image_loc, videos_total, news_date, overlong
            nonlocal on_entry
            if attrs and len(spaces) < 64:
                for i in range(0, len(attrs) - 1, 2):
                    key = attrs[i]
                    if (key == "xmlns" or key[:6] == "xmlns:") and key[6:] not in spaces:
                        spaces[key[6:]] = attrs[i + 1]
                        kinds.clear()
            depth += 1
            if depth == 3:
                if not line or field:
                    return
                kind, local = kinds.get(name) or kind_of(name)
                container = ""
                if local == "lastmod":
                    read("lastmod")
                    overlong = False
                elif not kind:
                    if local == "loc":
                        read("loc")
                    return
                elif kind == "image" and local == "image":
                    container, image_loc, extended = "image", False, True
                    images += 1
                elif kind == "video" and local == "video":
                    container, extended = "video", True
                    video_tags.clear()
                    videos_total += 1
                elif kind == "news" and local == "news":
                    container, news_date, extended = "news", None, True
                    news_tags.clear()
                elif kind == "xhtml" and local == "link" and len(alternates) < MAX_ENTRY_EXTENSIONS:
                    extended = True
                    values = dict(zip(attrs[::2], attrs[1::2], strict=False))
                    if values.get("rel", "").strip().lower() == "alternate":
                        alternates.append(
                            (
                                values.get("hreflang", "")[:100],
                                values.get("href", "").strip(_XML_SPACE)[:MAX_FIELD_CHARS],
                            )
                        )
            elif depth == 2:
                if name == entry_name or name.rpartition(":")[2] == entry_name:
                    count += 1
                    line = p.CurrentLineNumber + self._skipped_lines
                    loc = lastmod = None
                    if extended:
                        extended = False
                        images = images_without_loc = videos_total = 0
                        videos.clear()
                        news.clear()
                        alternates.clear()
                    container = ""
                else:
                    line = 0
            elif depth == 1:
                prefix, _, local = name.rpartition(":")
                head = self.head = DocumentHead(
                    local[:100], spaces.get(prefix), p.CurrentLineNumber + self._skipped_lines
                )
                found = ROOTS.get(local)
                if found is None:
                    raise _RefusedError(Kind.UNKNOWN_ROOT, _unknown_root(local))
                root, entry_name = local, found
                if on_head is not None:
                    on_entry = on_head(head) or on_entry
            elif depth > MAX_DEPTH:
                raise _RefusedError(Kind.TOO_DEEP, f"elements nested deeper than {MAX_DEPTH}")
            elif container and line and not field:
                kind, local = kinds.get(name) or kind_of(name)
                if kind != container:
                    return
                if container == "image":
                    if local == "loc" and depth == 4:
                        read("image:loc")
                elif container == "video":
                    if depth == 4:
                        read("video:" + local[:40])
                elif local in ("name", "language", "publication_date", "title"):
                    read("news:" + local)

        def lambda_lastmod(value: str, overlong: bool) -> None:
            # What the Lambda's handlers do with a <lastmod> (SitemapParser.__init__'s end).
            nonlocal unparsable
            if _unparsable(value, overlong, known_lastmod, add_lastmod, samples):
                unparsable += 1

        def end(name: str) -> None:
            nonlocal depth, field, loc, lastmod, line, image_loc, images_without_loc, news_date
            nonlocal container
            if field and (depth == field_depth or field == "lastmod"):
                p.CharacterDataHandler = None
                value = parts[0] if len(parts) == 1 else "".join(parts)
                if field == "loc":
                    loc = value.strip(_XML_SPACE)
                elif field == "lastmod":
                    # Trimmed in front as bound_text trims it, wherever the slices fall.
                    lastmod = value.lstrip(_XML_SPACE)[: MAX_LASTMOD_CHARS + 1]
                    lambda_lastmod(value, overlong)
                else:
                    value = value.strip(_XML_SPACE)
                    if field == "image:loc":
                        image_loc = image_loc or bool(value)
                    elif value:
                        if field[:6] == "video:":
                            video_tags.add(field[6:])
                        else:
                            news_tags.add(field[5:])
                            if field == "news:publication_date":
                                news_date = value[:MAX_LASTMOD_CHARS]
                field = ""
            elif depth == 2:
                if line:
                    on_entry(
                        line,
                        loc,
                        lastmod,
                        Extensions(
                            images,
                            images_without_loc,
                            tuple(videos),
                            videos_total,
                            tuple(news),
                            tuple(alternates),
                        )
                        if extended
                        else None,
                    )
                    line = 0
            elif depth == 3 and container:
                if container == "image":
                    if not image_loc:
                        images_without_loc += 1
                elif container == "video":
                    if len(videos) < MAX_ENTRY_EXTENSIONS:
                        videos.append(frozenset(video_tags))
                elif len(news) < MAX_ENTRY_EXTENSIONS:
                    news.append(News(frozenset(news_tags), news_date))
                container = ""
            depth -= 1

        def bound_text() -> None:
            # Called between slices: the text being read grows by at most a slice before it is
            # cut here, to what is kept of it (see the Lambda's bound_text).
            nonlocal overlong
            if field and parts:
                joined = "".join(parts).lstrip(_XML_SPACE)
                cap = MAX_LASTMOD_CHARS if field == "lastmod" else MAX_FIELD_CHARS
                if len(joined) > cap:
                    if field == "lastmod" and joined[cap:].strip(_XML_SPACE):
                        overlong = True
                    joined = joined[: cap + 1]
                parts[:] = [joined]

        def facts() -> ParsedSitemap | None:
            if root is None:
                return None
            return ParsedSitemap(
                root, count, latest.latest(), tuple(samples), unparsable, latest.latest_text()
            )

        names = self._names

        def between() -> bool:
            # Inside the root, between two entries, and unprefixed names are no extension's.
            return (
                depth == 1
                and not line
                and not field
                and entry_name in _RUN_FIELDS
                and self._region_at is None
                and not EXTENSION_NAMESPACES.get(spaces.get("", ""), "")
            )

        misses = [0, 0]  # slices in a row without a run; slices left before looking again
        # The expression of the layout the last slice's entries had (_layout), and how many
        # slices in a row had entries of more than one layout (past _MAX_LAYOUT_MISSES, the
        # document's layouts are mixed: the quick expression reads them, with no first try).
        layout: list[re.Pattern[str] | None] = [None]
        # <lastmod> values the Lambda's part has taken (a value offered again changes nothing):
        # a run of these alone needs nothing more.
        taken: set[str | None] = {None}
        layout_misses = [0]

        def feed_slice(chunk: bytes, fed: int) -> None:
            """Give expat one slice: the entry in progress through the handlers, then each run
            of plain entries without them, and what lies between runs through them again."""
            parse = p.Parse
            at = 0
            if not between() or not _run_start(entry_name)(chunk):
                # Up to the end of the entry in progress (the first, before the root is read;
                # the one whose start tag the last slice cut, or whatever else comes first).
                at = -1
                for name in (entry_name,) if entry_name else _RUN_TAGS:
                    found = chunk.find(_RUN_TAGS[name])
                    if found >= 0 and (at < 0 or found < at):
                        at = found + len(name) + 3
                if at < 0 or len(chunk) - at < _MIN_RUN_BYTES:
                    parse(chunk, False)
                    return
                parse(chunk[:at], False)
                if not between():
                    parse(chunk[at:], False)
                    return
            stop = chunk.rfind(_RUN_TAGS[entry_name], at) + len(entry_name) + 3
            if stop - at < _MIN_RUN_BYTES or misses[1]:
                misses[1] = max(0, misses[1] - 1)
                parse(chunk[at:], False)
                return
            try:
                text = chunk[at:stop].decode("utf-8")
            except UnicodeDecodeError:
                parse(chunk[at:], False)
                return
            one_byte = text.isascii()
            if not one_byte and ("\ufffe" in text or "\uffff" in text):
                parse(chunk[at:], False)  # characters XML forbids: expat says so
                return
            pattern, quick_pattern = _run_patterns(entry_name)
            lead = len(text) - len(text.lstrip(_XML_SPACE))
            quick = (
                "&" not in text
                and "\r" not in text
                and ("]" not in text or "]]>" not in text)
                and not chunk[at:stop].translate(None, _NOT_FORBIDDEN)
            )
            body = text[lead:] if lead else text
            tiled = False
            if quick and layout_misses[0] < _MAX_LAYOUT_MISSES:
                if layout[0] is not None:
                    tiled, locs, lastmods = _split_run(layout[0], body)
                if not tiled:
                    first = _layout_patterns(entry_name).match(body)
                    tried, layout[0] = layout[0], None
                    if (
                        first is not None
                        and max(map(len, filter(None, first.groups())), default=0)
                        <= _MAX_LAYOUT_SPACE
                    ):
                        laid = _layout(entry_name, first.groups())
                        if laid is not tried:
                            tiled, locs, lastmods = _split_run(laid, body)
                            if tiled:
                                layout[0] = laid
                    layout_misses[0] = 0 if tiled else layout_misses[0] + 1
            laid_out = tiled  # so read trimmed already
            # What names the run's elements can have: a layout's fields are written in its
            # expression (far shorter to search than the run's text); else the text says.
            names_in = layout[0].pattern if laid_out and layout[0] is not None else None
            if not tiled:
                tiled, locs, lastmods = _split_run(quick_pattern if quick else pattern, body)
            if tiled and (laid_out or not quick or _trimmed(locs, lastmods)):
                stretches = [(0, len(text), locs, lastmods)]  # the usual case
            else:
                stretches = _stretches(pattern, text, lead)
            if stretches:
                misses[0] = 0
            else:
                # A document of other shapes (every entry with an image, say): look less often.
                misses[0] = misses[1] = min(2 * misses[0] + 1, 16)
            done = at  # what expat was given of the chunk
            for begin, finish, locs, lastmods in stretches:
                upto = at + (begin if one_byte else len(text[:begin].encode()))
                if upto > done:
                    parse(chunk[done:upto], False)
                    done = upto
                # Inside the root, between entries, and expat holds nothing unfinished (a
                # comment, a processing instruction, a tag): else what looks like entries is not.
                if not between() or p.CurrentByteIndex + self._skipped_bytes != fed + done:
                    break
                upto = at + (finish if one_byte else len(text[:finish].encode()))
                first_line = p.CurrentLineNumber + self._skipped_lines
                skip = _skippable(text, begin, finish, _RUN_CLOSE[entry_name])
                p.StartElementHandler = p.EndElementHandler = None
                try:
                    if skip is None:
                        parse(chunk[done:upto], False)
                    else:
                        # Whole lines of whole entries, which the expression has read as
                        # well-formed: expat is given the lines around them, not them.
                        a, b = skip
                        if not one_byte:
                            a, b = len(text[:a].encode()), len(text[:b].encode())
                        parse(chunk[done : at + a], False)
                        self._skipped_bytes += b - a
                        self._skipped_lines += text.count("\n", skip[0], skip[1])
                        if at + b < upto:
                            parse(chunk[at + b : upto], False)
                finally:
                    p.StartElementHandler, p.EndElementHandler = start, end
                done = upto
                run_text = text[begin:finish]
                take_run(
                    EntryRun(entry_name, locs, lastmods, run_text, first_line),
                    run_text if names_in is None else names_in,
                )
            if done < len(chunk):
                parse(chunk[done:], False)

        def take_run(run: EntryRun, tags_in: str) -> None:
            nonlocal count
            # What the handlers would have done with these entries: the names pyexpat would
            # have interned, the Lambda's count and latest <lastmod>, then the reader's part.
            for name in _RUN_NAMES[run.entry]:
                # tags_in (the run's text, or the layout's expression that read all of it)
                # holds no `<` but its tags' (and `<name` is a quicker search than `<name>`:
                # `>` is everywhere).
                if name not in names and f"<{name}" in tags_in:
                    names[name] = name
            count += len(run.locs)
            lastmods = run.lastmods
            if not taken.issuperset(lastmods):
                distinct: dict[str, None] = dict.fromkeys(lastmods)  # type: ignore[arg-type]
                distinct.pop(None, None)  # type: ignore[call-overload]
                if not all(map(known_lastmod, distinct)) or (
                    distinct and max(map(len, distinct)) > MAX_LASTMOD_CHARS
                ):
                    for i, value in enumerate(lastmods):
                        if value is not None:
                            if len(value) > MAX_LASTMOD_CHARS:
                                lastmods[i] = value[: MAX_LASTMOD_CHARS + 1]  # as EntryCallback's
                            lambda_lastmod(value, False)
                if len(taken) > _MAX_TAKEN_LASTMODS:
                    taken.clear()
                    taken.add(None)
                taken.update(
                    v for v in distinct if len(v) <= MAX_LASTMOD_CHARS and known_lastmod(v)
                )
            if "&" in run.text:
                locs = run.locs
                for i, loc in enumerate(locs):
                    if "&" in loc:
                        for ref, char in _REFERENCES:
                            loc = loc.replace(ref, char)
                        locs[i] = loc
            if on_run is not None:
                on_run(run)
                return
            for line_of, loc, lastmod in zip(run.lines(), run.locs, lastmods, strict=True):
                on_entry(line_of, loc, lastmod, None)

        return start, end, bound_text, facts, feed_slice

    @property
    def finished(self) -> bool:
        """True once the answer is known and further bytes cannot change it."""
        return self._outcome is not None

    def feed(self, data: bytes) -> None:
        """Parse the next chunk of the document."""
        if self._outcome is not None or not data:
            return
        if not self._seen_content and data.strip():
            self._seen_content = True
        if self._p is None:
            # Wait for the XML declaration (it ends at the first '>') to choose the encoding.
            self._head += data
            if b">" not in self._head and len(self._head) < _SNIFF_BYTES:
                return
            data, self._head = self._head, b""
            self._start(data)
        self._parse(data, final=False)

    def close(self) -> ParsedSitemap | Rejected:
        """Finish the document and return what it was."""
        if self._outcome is None:
            if not self._seen_content:
                self._outcome = Rejected(Kind.EMPTY_BODY, "empty body")
            else:
                data = b""
                if self._p is None:
                    data, self._head = self._head, b""
                    self._start(data)
                # A truncated document only fails here, after its entries were already seen.
                self._parse(data, final=True)
                if self._outcome is None:
                    self._check_names()
        if self._outcome is not None:
            return self._outcome
        facts = self._facts()
        assert facts is not None  # expat ends without error only after a root element
        return facts

    def _start(self, head: bytes) -> None:
        codec = _transcoding(head[:_SNIFF_BYTES])
        if codec is not None:
            # expat reads UTF-8, UTF-16, ISO-8859-1 and ASCII, and single-byte encodings; others
            # (Shift_JIS, EUC-KR, GB18030, UTF-32, ...) are decoded here and fed as UTF-8, which
            # overrides what the declaration says.
            self._decoder = codecs.getincrementaldecoder(codec)()
            self._codec = codec
        self._p = p = self._build("utf-8" if codec is not None else None)
        if codec is not None or _read_as_utf8(head[:_SNIFF_BYTES]):
            self._feed_slice = self._runs_slice
        # expat 2.6+ defers parsing an unfinished token again until its input has doubled; off,
        # it parses all it can at every slice, so what it holds is only the token it is in, and
        # where the measure falls does not depend on how earlier chunks arrived.
        if hasattr(p, "SetReparseDeferralEnabled"):
            p.SetReparseDeferralEnabled(False)
        # A DOCTYPE or a CDATA section is measured from its start to its end.
        p.StartDoctypeDeclHandler = self._doctype_opened
        p.StartCdataSectionHandler = self._region_opened
        p.EndDoctypeDeclHandler = p.EndCdataSectionHandler = self._region_closed
        p.AttlistDeclHandler = _attlist_decl

    def _doctype_opened(
        self, _name: str, system_id: str | None, public_id: str | None, _: int
    ) -> None:
        self._region_at = self._p.CurrentByteIndex + self._skipped_bytes
        # pyexpat interns the DOCTYPE's identifiers (None when absent) with the names; they are
        # literals, no names. Nothing else is interned before the DOCTYPE.
        self._names.pop(system_id, None)  # type: ignore[arg-type]
        self._names.pop(public_id, None)  # type: ignore[arg-type]

    def _region_opened(self) -> None:
        self._region_at = self._p.CurrentByteIndex + self._skipped_bytes

    def _region_closed(self) -> None:
        self._region_at = None

    def _decode(self, data: bytes, final: bool) -> tuple[bytes, bool]:
        """Decode a chunk to UTF-8; on bad bytes, what came before them, and True."""
        assert self._decoder is not None
        state = self._decoder.getstate()
        try:
            return self._decoder.decode(data, final).encode("utf-8"), False
        except UnicodeDecodeError as e:
            # What precedes the bad bytes still goes to expat, so that an error it finds there
            # comes first, as it would had the bytes arrived in smaller chunks.
            pending = state[0] if isinstance(state[0], bytes) else b""
            try:
                self._decoder.setstate((b"", state[1]))
                good = self._decoder.decode((pending + data)[: e.start], False)
                return good.encode("utf-8"), True
            except (UnicodeError, TypeError, ValueError):
                return b"", True

    def _parse(self, data: bytes, final: bool) -> None:
        try:
            if self._decoder is None:
                self._feed_expat(data, final)
            else:
                self._feed_decoder(data, final)
        except expat.ExpatError as e:
            self._outcome = Rejected(
                Kind.NOT_WELL_FORMED,
                f"not well-formed XML at line {e.lineno + self._skipped_lines}, column {e.offset}: "
                f"{expat.ErrorString(e.code)}",
            )
        except _RefusedError as e:
            self._outcome = Rejected(e.kind, str(e))
        except EntitiesForbidden as e:
            self._outcome = Rejected(
                Kind.REFUSED_XML,
                f"refused XML construct: entity declaration {str(e.name)[:100]!r}",
            )
        except ExternalReferenceForbidden as e:
            self._outcome = Rejected(
                Kind.REFUSED_XML,
                f"refused XML construct: external reference {str(e.sysid)[:100]!r}",
            )
        except (ValueError, LookupError) as e:  # after defusedxml's, which are ValueErrors
            # An encoding neither expat nor Python knows; UnicodeError, a ValueError, comes from
            # a codec that is not for text.
            self._outcome = Rejected(
                Kind.UNSUPPORTED_ENCODING, f"unsupported character encoding ({str(e)[:100]})"
            )

    def _feed_decoder(self, data: bytes, final: bool) -> None:
        """Decode data to UTF-8 for expat, in slices; refuse bytes that wait too long to decode.

        A decoder holds the bytes it cannot decode yet (Python's UTF-7 decoder a whole base64
        run, decoded again at every call): those are held too, and measured like expat's token,
        at the multiples of FEED_SLICE_BYTES of the document's own bytes.
        """
        if self._raw_waiting:
            data, self._raw_waiting = self._raw_waiting + data, b""
        assert self._decoder is not None
        size = len(data)
        start = 0
        while True:
            room = FEED_SLICE_BYTES - self._raw_fed % FEED_SLICE_BYTES
            if size - start < room and not final and self._undecoded > FEED_SLICE_BYTES:
                self._raw_waiting = data[start:]  # see _feed_expat
                return
            stop = min(size, start + room)
            last = stop == size
            text, bad_bytes = self._decode(data[start:stop], final and last)
            self._feed_expat(text, final and last and not bad_bytes)
            if self._outcome is not None:
                return
            if bad_bytes:
                self._outcome = Rejected(
                    Kind.NOT_WELL_FORMED, f"not well-formed XML: bytes that are not {self._codec}"
                )
                return
            self._raw_fed += stop - start
            waiting = self._decoder.getstate()[0]
            self._undecoded = len(waiting) if isinstance(waiting, bytes) else 0
            if self._raw_fed % FEED_SLICE_BYTES == 0 and self._undecoded > MAX_MARKUP_BYTES:
                self._outcome = Rejected(
                    Kind.REFUSED_XML,
                    f"refused XML construct: {self._codec} sequence longer than "
                    f"{MAX_MARKUP_BYTES:,} bytes",
                )
                return
            if last:
                return
            start = stop

    def _feed_expat(self, data: bytes, final: bool) -> None:
        """Give expat data in slices that end on multiples of FEED_SLICE_BYTES; measure at each."""
        p = self._p
        if self._waiting:
            data, self._waiting = self._waiting + data, b""
        size = len(data)
        start = 0
        while start < size:
            room = FEED_SLICE_BYTES - self._fed % FEED_SLICE_BYTES
            if size - start >= room:
                stop = start + room
            elif not final and self._fed - self._token_at > FEED_SLICE_BYTES:
                # expat holds a long unfinished token and would scan it again for every chunk,
                # however small (its own deferral is off): keep the bytes until the slice is whole.
                self._waiting = data[start:]
                return
            else:
                stop = size
            chunk = data if stop - start == size else data[start:stop]
            if self._feed_slice is not None:
                self._feed_slice(chunk, self._fed)
            else:
                p.Parse(chunk, False)
            self._fed += stop - start
            start = stop
            at = p.CurrentByteIndex
            if at >= 0:
                self._token_at = at + self._skipped_bytes
            self._bound_text()
            if self._fed % FEED_SLICE_BYTES == 0:
                self._check_held()
                if self._outcome is not None:
                    return
        if final:
            p.Parse(b"", True)

    def _check_held(self) -> None:
        """Refuse the document once expat holds more than the bounds allow."""
        since = self._token_at if self._region_at is None else self._region_at
        if self._fed - since > MAX_MARKUP_BYTES:
            self._outcome = Rejected(Kind.REFUSED_XML, _MARKUP_REFUSED)
            return
        self._check_names()

    def _check_names(self) -> None:
        """Refuse a document with too many distinct names, or one too long (see MAX_NAMES)."""
        names = self._names
        new = len(names) - self._names_checked
        if not new:
            return
        if len(names) > MAX_NAMES:
            self._outcome = Rejected(
                Kind.REFUSED_XML,
                f"refused XML construct: more than {MAX_NAMES:,} distinct element and "
                "attribute names",
            )
            return
        # pyexpat's intern dict keeps its names in the order it met them: the new ones last.
        if any(len(name) > MAX_NAME_CHARS for name in itertools.islice(reversed(names), new)):
            self._outcome = Rejected(
                Kind.REFUSED_XML,
                f"refused XML construct: a name longer than {MAX_NAME_CHARS:,} characters",
            )
            return
        self._names_checked = len(names)


def parse_bytes(chunks: Iterable[bytes]) -> ParsedSitemap | Rejected:
    """Parse a whole document given as chunks (a convenience for tests and benchmarks)."""
    parser = SitemapParser()
    for chunk in chunks:
        parser.feed(chunk)
    return parser.close()
