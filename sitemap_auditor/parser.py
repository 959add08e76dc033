"""Streaming sitemap parser: fed byte chunks, it answers with the facts or why it refused them.

It knows nothing of HTTP. Memory stays flat: expat keeps at most one token, and only the latest
`<lastmod>`, the counts and a few samples are kept.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from xml.parsers import expat

from defusedxml import EntitiesForbidden, ExternalReferenceForbidden

from .issues import Kind
from .lastmod import LatestLastmod

__all__ = [
    "EXTENSION_NAMESPACES",
    "MAX_DEPTH",
    "MAX_ENTRY_EXTENSIONS",
    "MAX_FIELD_CHARS",
    "MAX_LASTMOD_CHARS",
    "MAX_MARKUP_BYTES",
    "MAX_SAMPLE_CHARS",
    "MAX_UNPARSABLE_SAMPLES",
    "ROOTS",
    "DocumentHead",
    "Entry",
    "EntryCallback",
    "News",
    "ParsedSitemap",
    "Rejected",
    "SitemapParser",
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
# expat keeps a stack entry per open element: a sitemap needs four or five levels, and a cap
# keeps a million nested elements (3 MB of body) from costing hundreds of MB.
MAX_DEPTH = 256
# expat holds a whole token (a name, an attribute value) until its end arrives; no sitemap has
# markup this long, and refusing it keeps a 50 MB element name from costing hundreds of MB.
MAX_MARKUP_BYTES = 1024 * 1024


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
class Entry:
    """One `<url>` or `<sitemap>` entry, as the deep audit reads it."""

    line: int  # where its start tag is
    loc: str | None  # trimmed of XML white space; None when it has no <loc>
    lastmod: str | None  # as written (cut past MAX_LASTMOD_CHARS + 1 characters)
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


EntryCallback = Callable[[Entry], None]


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


class _RefusedError(Exception):
    """Raised from inside expat callbacks to stop parsing with a reason."""

    def __init__(self, kind: Kind, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind


def _entity_decl(name: str, *_: object) -> None:
    raise EntitiesForbidden(name, None, None, None, None, None)


def _external_ref(context: str, base: str | None, sysid: str | None, pubid: str | None) -> int:
    raise ExternalReferenceForbidden(context, base, sysid, pubid)


class SitemapParser:
    """Incremental parser for one sitemap document.

    The expat callbacks are closures over local state rather than methods: they run for every
    element of a 50 MB document, and a closure's cell access costs less than attribute access.
    Names are matched by local name (after any prefix), so the root and entries may be in any
    namespace or none, without paying for expat's namespace processing.
    """

    def __init__(self, on_entry: EntryCallback | None = None) -> None:
        """on_entry, when given, is called with every entry (the deep audit); the root element
        is then told by `head`. Without it, nothing of this is read."""
        # The expat parser is made once the start of the document tells its encoding.
        p: Any = None
        self._p: Any = None
        self._head = b""
        self._decoder: codecs.IncrementalDecoder | None = None
        self._codec = ""
        self._outcome: Rejected | None = None
        self._seen_content = False
        self._in_markup = False
        self._markup_run = 0
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
                    raise _RefusedError(Kind.UNKNOWN_ROOT, f"unknown root element <{local[:100]}>")
                root, entry, entry_suffix = local, found, ":" + found

        def end(_name: str) -> None:
            nonlocal depth, collecting, unparsable
            if collecting:
                # The lastmod ends here (or, in mixed content, its first child does).
                collecting = False
                p.CharacterDataHandler = None
                value = text[0] if len(text) == 1 else "".join(text)
                if overlong or (
                    len(value) > MAX_LASTMOD_CHARS
                    and len(value.strip(_XML_SPACE)) > MAX_LASTMOD_CHARS
                ):
                    # Past the cap no value parses, and none is memoised. The sample is the
                    # value's start, which is what survives of it however its bytes arrived.
                    unparsable += 1
                    if len(samples) < MAX_UNPARSABLE_SAMPLES:
                        samples.append(value.lstrip(_XML_SPACE)[:MAX_SAMPLE_CHARS])
                elif not (known_lastmod(value) or add_lastmod(value)):
                    unparsable += 1
                    if len(samples) < MAX_UNPARSABLE_SAMPLES:
                        samples.append(value.strip(_XML_SPACE)[:MAX_SAMPLE_CHARS])
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

        handlers: tuple[Callable[[str, list[str]], None], Callable[[str], None]] = (start, end)
        if on_entry is not None:
            handlers = self._entry_handlers(on_entry, start, end, text, lambda: p)

        def build(encoding: str | None) -> Any:
            nonlocal p
            p = expat.ParserCreate(encoding)
            p.buffer_text = True
            p.ordered_attributes = True  # a list is cheaper than a dict; attributes are unused
            p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
            # defusedxml's defaults: a DOCTYPE is allowed, entity declarations and external
            # references are refused, nothing external is ever fetched.
            p.EntityDeclHandler = _entity_decl
            p.UnparsedEntityDeclHandler = _entity_decl
            p.ExternalEntityRefHandler = _external_ref
            p.StartElementHandler, p.EndElementHandler = handlers
            return p

        self._build: Callable[[str | None], Any] = build
        self._bound_text: Callable[[], None] = bound_text
        self._facts: Callable[[], ParsedSitemap | None] = facts

    def _entry_handlers(
        self,
        on_entry: EntryCallback,
        base_start: Callable[[str, list[str]], None],
        base_end: Callable[[str], None],
        lastmod_text: list[str],
        expat_parser: Callable[[], Any],
    ) -> tuple[Callable[[str, list[str]], None], Callable[[str], None]]:
        """Handlers that do what the Lambda's do, and also read each entry for on_entry."""
        spaces: dict[str, str] = {}  # prefix ("" for the default) -> namespace, as declared
        depth = 0
        entry_name = ""
        parts: list[str] = []
        kept = 0
        field = ""  # what the text being collected is for
        field_depth = 0
        # The entry being read.
        line = 0
        loc: str | None = None
        lastmod: str | None = None
        images = images_without_loc = videos_total = 0
        image_loc = False
        videos: list[frozenset[str]] = []
        video_tags: set[str] = set()
        news: list[News] = []
        news_tags: set[str] = set()
        news_date: str | None = None
        alternates: list[tuple[str, str]] = []
        container = ""  # image, video or news: the extension element open at depth 3

        def capture(data: str) -> None:
            nonlocal kept
            if kept < MAX_FIELD_CHARS:
                parts.append(data)
                kept += len(data)

        def collect(what: str) -> None:
            nonlocal field, field_depth, kept
            field, field_depth, kept = what, depth, 0
            parts.clear()
            expat_parser().CharacterDataHandler = capture

        def group(name: str) -> tuple[str, str]:
            prefix, _, local = name.rpartition(":")
            space = spaces.get(prefix)
            if space is not None:
                return EXTENSION_NAMESPACES.get(space, ""), local
            return (prefix if prefix in _EXTENSION_PREFIXES else ""), local

        def start(name: str, attrs: list[str]) -> None:
            nonlocal depth, entry_name, line, loc, lastmod, container
            nonlocal images, images_without_loc, image_loc, videos_total, news_date
            if attrs and len(spaces) < 64:
                for i in range(0, len(attrs) - 1, 2):
                    key = attrs[i]
                    if key == "xmlns" or key[:6] == "xmlns:":
                        spaces.setdefault(key[6:], attrs[i + 1])
            if depth == 0:
                prefix = name.rpartition(":")[0]
                local = name.rpartition(":")[2]
                self.head = DocumentHead(
                    local[:100], spaces.get(prefix), expat_parser().CurrentLineNumber
                )
                entry_name = ROOTS.get(local, "")
            base_start(name, attrs)
            depth += 1
            if depth == 2:
                if name.rpartition(":")[2] == entry_name:
                    line = expat_parser().CurrentLineNumber
                    loc = lastmod = None
                    images = images_without_loc = videos_total = 0
                    videos.clear()
                    news.clear()
                    alternates.clear()
                    container = ""
                else:
                    line = 0
                return
            if line == 0 or depth < 3 or field:
                return
            kind, local = group(name)
            if depth == 3:
                container = ""
                if not kind:
                    if local == "loc":
                        collect("loc")
                elif kind == "image" and local == "image":
                    container, image_loc = "image", False
                    images += 1
                elif kind == "video" and local == "video":
                    container = "video"
                    video_tags.clear()
                    videos_total += 1
                elif kind == "news" and local == "news":
                    container, news_date = "news", None
                    news_tags.clear()
                elif kind == "xhtml" and local == "link" and len(alternates) < MAX_ENTRY_EXTENSIONS:
                    values = dict(zip(attrs[::2], attrs[1::2], strict=False))
                    if values.get("rel", "").strip().lower() == "alternate":
                        alternates.append(
                            (
                                values.get("hreflang", "")[:100],
                                values.get("href", "").strip(_XML_SPACE)[:MAX_FIELD_CHARS],
                            )
                        )
            elif kind == container:
                if container == "image":
                    if local == "loc" and depth == 4:
                        collect("image:loc")
                elif container == "video":
                    if depth == 4:
                        collect("video:" + local[:40])
                elif local in ("name", "language", "publication_date", "title"):
                    collect("news:" + local)

        def end(name: str) -> None:
            nonlocal depth, field, loc, lastmod, line, image_loc, images_without_loc, news_date
            nonlocal container
            if line:
                if field and depth == field_depth:
                    value = "".join(parts).strip(_XML_SPACE)
                    expat_parser().CharacterDataHandler = None
                    if field == "loc":
                        loc = value
                    elif field == "image:loc":
                        image_loc = image_loc or bool(value)
                    elif value:
                        if field[:6] == "video:":
                            video_tags.add(field[6:])
                        else:
                            news_tags.add(field[5:])
                            if field == "news:publication_date":
                                news_date = value[:MAX_LASTMOD_CHARS]
                    field = ""
                elif depth == 3:
                    if container == "image" and not image_loc:
                        images_without_loc += 1
                    elif container == "video" and len(videos) < MAX_ENTRY_EXTENSIONS:
                        videos.append(frozenset(video_tags))
                    elif container == "news" and len(news) < MAX_ENTRY_EXTENSIONS:
                        news.append(News(frozenset(news_tags), news_date))
                    elif not container and name.rpartition(":")[2] == "lastmod":
                        lastmod = "".join(lastmod_text)[: MAX_LASTMOD_CHARS + 1]
                    container = ""
                elif depth == 2:
                    on_entry(
                        Entry(
                            line,
                            loc,
                            lastmod,
                            images,
                            images_without_loc,
                            tuple(videos),
                            videos_total,
                            tuple(news),
                            tuple(alternates),
                        )
                    )
                    line = 0
            depth -= 1
            base_end(name)

        return start, end

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
        self._watch_markup(data)
        if self._outcome is not None:
            return
        if self._p is None:
            # Wait for the XML declaration (it ends at the first '>') to choose the encoding.
            self._head += data
            if b">" not in self._head and len(self._head) < _SNIFF_BYTES:
                return
            data, self._head = self._head, b""
            self._start(data)
        self._parse(data, final=False)
        self._bound_text()

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
        if self._outcome is not None:
            return self._outcome
        facts = self._facts()
        assert facts is not None  # expat ends without error only after a root element
        return facts

    def _watch_markup(self, data: bytes) -> None:
        """Refuse a document whose markup (from a '<' to its '>') runs past MAX_MARKUP_BYTES."""
        lt, gt = data.rfind(b"<"), data.rfind(b">")
        if lt < 0 and gt < 0:
            if self._in_markup:
                self._markup_run += len(data)
        else:
            self._in_markup = lt > gt
            self._markup_run = len(data) - lt - 1 if self._in_markup else 0
        if self._markup_run > MAX_MARKUP_BYTES:
            self._outcome = Rejected(
                Kind.REFUSED_XML,
                f"refused XML construct: markup longer than {MAX_MARKUP_BYTES:,} bytes",
            )

    def _start(self, head: bytes) -> None:
        codec = _transcoding(head[:_SNIFF_BYTES])
        if codec is not None:
            # expat reads UTF-8, UTF-16, ISO-8859-1 and ASCII, and single-byte encodings; others
            # (Shift_JIS, EUC-KR, GB18030, UTF-32, ...) are decoded here and fed as UTF-8, which
            # overrides what the declaration says.
            self._decoder = codecs.getincrementaldecoder(codec)()
            self._codec = codec
        self._p = self._build("utf-8" if codec is not None else None)

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
        bad_bytes = False
        if self._decoder is not None:
            data, bad_bytes = self._decode(data, final)
            final = final and not bad_bytes
        try:
            self._p.Parse(data, final)
        except expat.ExpatError as e:
            self._outcome = Rejected(
                Kind.NOT_WELL_FORMED,
                f"not well-formed XML at line {e.lineno}, column {e.offset}: "
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
        if bad_bytes and self._outcome is None:
            self._outcome = Rejected(
                Kind.NOT_WELL_FORMED, f"not well-formed XML: bytes that are not {self._codec}"
            )


def parse_bytes(chunks: Iterable[bytes]) -> ParsedSitemap | Rejected:
    """Parse a whole document given as chunks (a convenience for tests and benchmarks)."""
    parser = SitemapParser()
    for chunk in chunks:
        parser.feed(chunk)
    return parser.close()
