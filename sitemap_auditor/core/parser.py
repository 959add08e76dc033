"""Streaming sitemap parser: fed byte chunks, it answers with the facts or why it refused them.

It knows nothing of HTTP. `SitemapParser` is the bounded driver: bytes in chunks, the encoding,
expat, and every bound on what a document can make it hold; what is read of the elements is a
reader's (`Reader`): the Lambda's (`lambda_reader`) by default, the deep audit's its own
(sitemap_auditor/deep/reading/), through the same driver and the same bounds. Memory stays
flat: expat keeps at most one unfinished token, and only
the latest `<lastmod>`, the counts and a few samples are kept. What expat may hold is bounded by
what it was fed since its last event (docs/contract.md §5), measured on the bytes expat reads.
"""

from __future__ import annotations

import codecs
import itertools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple
from xml.parsers import expat

from defusedxml import EntitiesForbidden, ExternalReferenceForbidden

from sitemap_auditor.core.issues import Issue, Kind
from sitemap_auditor.core.lastmod import LatestLastmod

__all__ = [
    "FEED_SLICE_BYTES",
    "MAX_DEPTH",
    "MAX_LASTMOD_CHARS",
    "MAX_MARKUP_BYTES",
    "MAX_NAMES",
    "MAX_NAME_CHARS",
    "MAX_SAMPLE_CHARS",
    "MAX_UNPARSABLE_SAMPLES",
    "PLAIN_TEXT_ROOT",
    "ROOTS",
    "Handlers",
    "ParsedSitemap",
    "Reader",
    "RefusedError",
    "Rejected",
    "SitemapParser",
    "is_html_page",
    "lambda_reader",
    "parse_bytes",
    "unknown_root",
]

ROOTS = {"urlset": "url", "sitemapindex": "sitemap"}  # root local name -> entry local name
# docs/contract.md §6: at most 20 unparsable values are listed, each cut to 100 characters.
MAX_UNPARSABLE_SAMPLES = 20
MAX_SAMPLE_CHARS = 100
# No W3C Datetime is longer than this (fractions aside); longer text is unparsable anyway, and
# keeping all of it would let one huge element grow memory.
MAX_LASTMOD_CHARS = 256
_XML_SPACE = " \t\r\n"


# The reason for a plain-text list of URLs: it has no root element, and is no sitemap here.
PLAIN_TEXT_ROOT = "unknown root element (none: a plain-text list of URLs)"


def unknown_root(local: str) -> str:
    return f"unknown root element <{local[:100]}>"


def is_html_page(refusal: Issue) -> bool:
    """True for a candidate refused because a web page (root element <html>) was served in its
    place: the site's own 404 page, or one of its pages."""
    return refusal.kind is Kind.UNKNOWN_ROOT and refusal.detail.lower() == unknown_root("html")


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


_SNIFF_BYTES = 1024
_DECLARED = re.compile(rb"<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z][A-Za-z0-9._-]{0,39})[\"']")
# What expat reads itself (codec names as Python's codecs.lookup spells them).
_EXPAT_NATIVE = frozenset({"utf-8", "utf-16", "utf-16-le", "utf-16-be", "iso8859-1", "ascii"})
# Python's codecs that are no character encoding (they rewrite text: `\u0032` read as `2`, a
# host's punycode): a document declaring one is refused, as one naming an encoding nobody
# knows (left to pyexpat, which builds a byte map with the codec, whether it reads depends on
# Python's version and warning filters).
_NOT_CHARSETS = frozenset({"unicode-escape", "raw-unicode-escape", "idna", "punycode", "undefined"})


def _transcoding(head: bytes) -> str | None:
    """The codec to decode a document with before expat, or None when expat reads it itself;
    raises LookupError for a declared codec that is no character encoding."""
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
    if info.name in _NOT_CHARSETS:
        raise LookupError(f"{info.name}: a codec of Python's, no character encoding")
    if info.name in _EXPAT_NATIVE or not getattr(info, "_is_text_encoding", True):
        return None
    return info.name


class RefusedError(Exception):
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
        raise RefusedError(
            Kind.REFUSED_XML,
            f"refused XML construct: attribute default declared for <{element[:100]}>",
        )


def _none_counted() -> int:
    return 0


class Handlers(NamedTuple):
    """What a reader gives the parser: expat's element handlers, what cuts the text it holds
    between slices, the facts once the document is read (None before its root), how many
    <lastmod> values did not parse so far (a count, cheaper than the facts), and what gives
    expat each slice (None: expat's Parse; a reader that gives it the same bytes, in order,
    its own way, as the deep audit's runs do)."""

    start: Callable[[str, list[str]], None]
    end: Callable[[str], None]
    bound_text: Callable[[], None]
    facts: Callable[[], ParsedSitemap | None]
    unparsable: Callable[[], int] = _none_counted
    parse: Callable[[bytes], None] | None = None


# A reader: given the expat parser (to set text handlers on and read positions from), its
# handlers. The Lambda's is lambda_reader; the deep audit has its own (deep/reading/).
Reader = Callable[[Any], Handlers]


def lambda_reader(p: Any) -> Handlers:
    """The Lambda's reading: the root, the entry count, the latest `<lastmod>` and the samples
    of those that do not parse.

    The handlers are closures over local state rather than methods: they run for every element
    of a 50 MB document, and a closure's cell access costs less than attribute access. Names
    are matched by local name (after any prefix), so the root and entries may be in any
    namespace or none, without paying for expat's namespace processing. A `<lastmod>` is one at
    an entry's second level, in any namespace, ended by the first end tag after it (in mixed
    content, its first child's).
    """
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
            raise RefusedError(Kind.TOO_DEEP, f"elements nested deeper than {MAX_DEPTH}")
        elif depth == 1:
            local = name.rpartition(":")[2]
            found = ROOTS.get(local)
            if found is None:
                raise RefusedError(Kind.UNKNOWN_ROOT, unknown_root(local))
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
        # Called between slices: one slice adds at most its own size, so a huge <lastmod>
        # never holds more than the cap plus one slice.
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

    return Handlers(start, end, bound_text, facts, lambda: unparsable)


class SitemapParser:
    """Incremental parser for one sitemap document: bytes in, bounded, through expat.

    What it reads of the document is its reader's (the Lambda's by default); what it bounds is
    the same whoever reads: the encoding, expat's held markup, the names, the depth.
    """

    def __init__(self, reader: Reader = lambda_reader) -> None:
        # The expat parser is made once the start of the document tells its encoding.
        self._p: Any = None
        self._reader = reader
        self._head = b""
        self._decoder: codecs.IncrementalDecoder | None = None
        self._codec = ""
        self._outcome: Rejected | None = None
        self._seen_content = False
        self._url_list = False  # the document starts as a URL, not as markup
        # What bounds what expat holds (see MAX_MARKUP_BYTES): bytes fed to expat and, when the
        # parser decodes first, to the decoder; where expat's unfinished token, or the DOCTYPE or
        # CDATA section it is in, began; the names pyexpat interned, and how many were checked.
        self._fed = self._raw_fed = self._token_at = self._undecoded = 0
        self._region_at: int | None = None
        self._waiting = self._raw_waiting = b""  # kept back while a long token is unfinished
        self._names: dict[str, str] = {}
        self._names_checked = 0
        self._bound_text: Callable[[], None] = _nothing
        self._facts: Callable[[], ParsedSitemap | None] = lambda: None
        self._unparsable: Callable[[], int] = _none_counted
        self._parse_slice: Callable[[bytes], None] | None = None

    def _build(self, encoding: str | None) -> Any:
        p = expat.ParserCreate(encoding, intern=self._names)
        handlers = self._reader(p)
        self._bound_text, self._facts = handlers.bound_text, handlers.facts
        self._unparsable = handlers.unparsable
        self._parse_slice = handlers.parse
        p.buffer_text = True
        p.ordered_attributes = True  # a list is cheaper than a dict
        p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        # defusedxml's defaults: a DOCTYPE is allowed, entity declarations and external
        # references are refused, nothing external is ever fetched.
        p.EntityDeclHandler = _entity_decl
        p.UnparsedEntityDeclHandler = _entity_decl
        p.ExternalEntityRefHandler = _external_ref
        p.StartElementHandler, p.EndElementHandler = handlers.start, handlers.end
        return p

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
            if self._outcome is not None:
                return
        self._parse(data, final=False)

    def so_far(self) -> ParsedSitemap | None:
        """What the document gave up to the bytes fed (None before its root, or once refused):
        its facts only grow, but for the document's own refusal, which drops them."""
        return None if self._outcome is not None else self._facts()

    def unparsable_so_far(self) -> int:
        """How many <lastmod> values did not parse in the bytes fed: a count, without building
        the facts (so_far), so that it can be asked after every chunk."""
        return self._unparsable()

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
                if self._outcome is None:
                    self._parse(data, final=True)
                if self._outcome is None:
                    self._check_names()
        if self._outcome is not None:
            return self._outcome
        facts = self._facts()
        assert facts is not None  # expat ends without error only after a root element
        return facts

    def _start(self, head: bytes) -> None:
        # A plain-text list of URLs (one a line) is no XML: the documented auditor reports it
        # as an unknown root element, as it does RSS and Atom (docs/contract.md §6).
        first = head.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n")[:8].lower()
        self._url_list = first.startswith((b"http://", b"https://"))
        try:
            codec = _transcoding(head[:_SNIFF_BYTES])
        except LookupError as e:
            self._outcome = Rejected(
                Kind.UNSUPPORTED_ENCODING, f"unsupported character encoding ({str(e)[:100]})"
            )
            codec = None
        if codec is not None:
            # expat reads UTF-8, UTF-16, ISO-8859-1 and ASCII, and single-byte encodings; others
            # (Shift_JIS, EUC-KR, GB18030, UTF-32, ...) are decoded here and fed as UTF-8, which
            # overrides what the declaration says.
            self._decoder = codecs.getincrementaldecoder(codec)()
            self._codec = codec
        self._p = p = self._build("utf-8" if codec is not None else None)
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
        self._region_at = self._p.CurrentByteIndex
        # pyexpat interns the DOCTYPE's identifiers (None when absent) with the names; they are
        # literals, no names. Nothing else is interned before the DOCTYPE.
        self._names.pop(system_id, None)  # type: ignore[arg-type]
        self._names.pop(public_id, None)  # type: ignore[arg-type]

    def _region_opened(self) -> None:
        self._region_at = self._p.CurrentByteIndex

    def _region_closed(self) -> None:
        self._region_at = None

    def _decode(self, data: bytes, final: bool) -> tuple[bytes, bool]:
        """Decode a chunk to UTF-8; on bad bytes, what came before them, and True."""
        assert self._decoder is not None
        state = self._decoder.getstate()
        try:
            text = self._decoder.decode(data, final)
        except UnicodeDecodeError as e:
            # What precedes the bad bytes still goes to expat, so that an error it finds there
            # comes first, as it would had the bytes arrived in smaller chunks.
            pending = state[0] if isinstance(state[0], bytes) else b""
            try:
                self._decoder.setstate((b"", state[1]))
                good = self._decoder.decode((pending + data)[: e.start], False)
            except (UnicodeError, TypeError, ValueError):
                return b"", True
            return _utf8_until_surrogate(good)[0], True
        return _utf8_until_surrogate(text)

    def _parse(self, data: bytes, final: bool) -> None:
        try:
            if self._decoder is None:
                self._feed_expat(data, final)
            else:
                self._feed_decoder(data, final)
        except expat.ExpatError as e:
            if self._url_list and self._facts() is None:  # before any root element
                self._outcome = Rejected(Kind.UNKNOWN_ROOT, PLAIN_TEXT_ROOT)
                return
            self._outcome = Rejected(
                Kind.NOT_WELL_FORMED,
                f"not well-formed XML at line {e.lineno}, column {e.offset}: "
                f"{expat.ErrorString(e.code)}",
            )
        except RefusedError as e:
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
            if self._parse_slice is None:
                p.Parse(chunk, False)
            else:
                self._parse_slice(chunk)
            self._fed += stop - start
            start = stop
            at = p.CurrentByteIndex
            if at >= 0:
                self._token_at = at
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


def _utf8_until_surrogate(text: str) -> tuple[bytes, bool]:
    """text as UTF-8, and False; or, where a codec made a lone surrogate (UTF-7 can), which is
    no character, what precedes it and True: bytes that are not the codec's, as a decoding
    error is, wherever the chunks were cut."""
    try:
        return text.encode("utf-8"), False
    except UnicodeEncodeError as e:
        return text[: e.start].encode("utf-8"), True


def _nothing() -> None:
    pass


def parse_bytes(
    chunks: Iterable[bytes], reader: Reader = lambda_reader
) -> ParsedSitemap | Rejected:
    """Parse a whole document given as chunks (a convenience for tests and benchmarks)."""
    parser = SitemapParser(reader)
    for chunk in chunks:
        parser.feed(chunk)
    return parser.close()
