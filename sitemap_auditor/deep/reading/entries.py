"""The deep audit's reading of a sitemap: every `<url>` or `<sitemap>` entry, with its line, its
`<loc>`, its `<lastmod>` and its image, video, news and `xhtml:link` elements.

One plain reading, through the Lambda's bounded driver (`core.parser.SitemapParser` with this
module's reader): the same bytes, encodings, bounds and refusals as the Lambda, and expat's own
events, one handler call each. Namespaces are read as XML scopes them: a declaration holds for
its element and what it contains, and the one it shadowed comes back at the element's end. What
is read does not depend on how the bytes were split: text is cut to what is kept of it, always
the same characters, wherever the slices fall.

One fast path, behind the differential tests: a run of plain entries (runs.py) is checked by
expat with no handler and read by a pattern, where the two readings cannot differ.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sitemap_auditor.core.issues import Kind
from sitemap_auditor.core.parser import (
    MAX_DEPTH,
    MAX_LASTMOD_CHARS,
    ROOTS,
    Handlers,
    ParsedSitemap,
    RefusedError,
    unknown_root,
)
from sitemap_auditor.core.text import clip
from sitemap_auditor.deep.reading.runs import Run, read_run

__all__ = [
    "EXTENSION_NAMESPACES",
    "MAX_BINDINGS",
    "MAX_ENTRY_EXTENSIONS",
    "MAX_FIELD_CHARS",
    "DocumentHead",
    "EntryCallback",
    "EntryReader",
    "Extensions",
    "News",
]

# Extension elements are known by their namespace, or by their usual prefix when the document
# forgot to declare it.
EXTENSION_NAMESPACES = {
    "http://www.google.com/schemas/sitemap-image/1.1": "image",
    "http://www.google.com/schemas/sitemap-video/1.1": "video",
    "http://www.google.com/schemas/sitemap-news/0.9": "news",
    "http://www.w3.org/1999/xhtml": "xhtml",
}
_EXTENSION_PREFIXES = frozenset(EXTENSION_NAMESPACES.values())
# One entry keeps at most this many extension elements of each kind (they are all counted);
# text is kept up to this many characters a field (a URL is at most 2,048): a longer one is
# its first MAX_FIELD_CHARS + 1 characters, so that it still reads as too long.
MAX_ENTRY_EXTENSIONS = 1000
MAX_FIELD_CHARS = 4096
# Namespace declarations in scope at once, at most (a sitemap has a handful): past it, a
# declaration is not taken, and its prefix reads as undeclared. It bounds what a document of
# 256 nested elements, each declaring thousands of prefixes, makes the reader hold.
MAX_BINDINGS = 256
_XML_SPACE = " \t\r\n"
_UNBOUND = None


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
    # (hreflang, href) of each <xhtml:link rel="alternate">, the first MAX_ENTRY_EXTENSIONS
    alternates: tuple[tuple[str, str], ...] = ()
    alternates_dropped: int = 0  # those past MAX_ENTRY_EXTENSIONS: counted, not kept


@dataclass(frozen=True, slots=True)
class DocumentHead:
    """The root element as written: its local name, namespace and line, and the encoding the
    XML declaration names (None: no declaration, or none named)."""

    root: str
    namespace: str | None  # the namespace its prefix (or the default) is bound to there
    line: int
    encoding: str | None = None


class EntryCallback(Protocol):
    """What the reading calls with each `<url>` or `<sitemap>` entry.

    line is where the entry's start tag is; loc is trimmed of XML white space (None when the
    entry has no `<loc>`); lastmod is as written but for the white space in front of it, cut
    past MAX_LASTMOD_CHARS + 1 characters; extensions is None for an entry with no extension
    element (most of them), so that the common entry costs one call and no object.
    """

    def __call__(
        self, line: int, loc: str | None, lastmod: str | None, extensions: Extensions | None, /
    ) -> None: ...


class RunCallback(Protocol):
    """What takes a run of plain entries (runs.py) at once, when the reader's owner gives one:
    it must do what its EntryCallback does of each, with no extensions."""

    def __call__(
        self, lines: Sequence[int], locs: Sequence[str], lastmods: Sequence[str | None], /
    ) -> None: ...


class EntryReader:
    """A reader for core.parser.SitemapParser (a `Reader`) that calls on_entry with every
    entry. on_head, when given, is called with the root element as soon as it is read, before
    any entry: what it returns, when not None, is called with the entries in on_entry's place;
    on_run, when on_head sets it, is called with each run of plain entries in its place.
    `head` is the root element, once read. runs: False reads every entry through expat's
    events (as a test's plain reading does)."""

    def __init__(
        self,
        on_entry: EntryCallback,
        on_head: Callable[[DocumentHead], EntryCallback | None] | None = None,
        runs: bool = True,
    ) -> None:
        self.on_entry = on_entry
        self.on_head = on_head
        self.head: DocumentHead | None = None
        self.runs = runs  # plain entries read a run at a time (runs.py); False: one by one
        self.on_run: RunCallback | None = None
        # The root's children that are the other root's entries (`<url>` in a sitemapindex,
        # `<sitemap>` in a urlset): no entries, but what a file of the wrong root holds.
        self.misplaced = 0

    def __call__(self, p: Any) -> Handlers:
        return _handlers(p, self)


class _Namespaces:
    """The namespace bindings in scope, as XML scopes them, and what kind of extension element
    a name is under them."""

    def __init__(self) -> None:
        self.spaces: dict[str, str] = {}  # prefix ("" for the default) -> namespace
        # The bindings each declaring element shadowed: (its depth, {prefix: old namespace}).
        self.scopes: list[tuple[int, dict[str, str | None]]] = []
        # name -> (its extension kind, or "", and its local name), under the bindings now.
        self.kinds: dict[str, tuple[str, str]] = {}

    def declare(self, attrs: list[str], depth: int) -> None:
        """Take the element's xmlns attributes, in scope until its end."""
        spaces = self.spaces
        shadowed: dict[str, str | None] = {}
        for i in range(0, len(attrs) - 1, 2):
            key = attrs[i]
            if key == "xmlns" or key[:6] == "xmlns:":
                prefix = key[6:]
                if prefix not in shadowed:
                    if prefix not in spaces and len(spaces) >= MAX_BINDINGS:
                        continue
                    shadowed[prefix] = spaces.get(prefix, _UNBOUND)
                spaces[prefix] = attrs[i + 1]
        if shadowed:
            self.scopes.append((depth, shadowed))
            self.kinds.clear()

    def undeclare(self) -> None:
        """The innermost declaring element ends: what it shadowed comes back."""
        _, shadowed = self.scopes.pop()
        for prefix, old in shadowed.items():
            if old is None:
                del self.spaces[prefix]
            else:
                self.spaces[prefix] = old
        self.kinds.clear()

    def kind_of(self, name: str) -> tuple[str, str]:
        prefix, _, local = name.rpartition(":")
        space = self.spaces.get(prefix)
        if space is not None:
            found = (EXTENSION_NAMESPACES.get(space, ""), local)
        else:
            found = ((prefix if prefix in _EXTENSION_PREFIXES else ""), local)
        self.kinds[name] = found  # at most MAX_NAMES distinct names reach here
        return found


class _Extended:
    """An entry's extension elements, as they are read (few entries have any)."""

    def __init__(self) -> None:
        self.active = False
        self.images = self.images_without_loc = self.videos_total = self.dropped = 0
        self.image_loc = False
        self.videos: list[frozenset[str]] = []
        self.video_tags: set[str] = set()
        self.news: list[News] = []
        self.news_tags: set[str] = set()
        self.news_date: str | None = None
        self.alternates: list[tuple[str, str]] = []

    def reset(self) -> None:
        """A new entry begins."""
        if self.active:
            self.active = False
            self.images = self.images_without_loc = self.videos_total = self.dropped = 0
            self.videos.clear()
            self.news.clear()
            self.alternates.clear()

    def opened(self, kind: str, local: str, attrs: list[str]) -> str:
        """An extension element at an entry's second level: the container it opens, or ""."""
        if kind == "image" and local == "image":
            self.active, self.image_loc = True, False
            self.images += 1
            return "image"
        if kind == "video" and local == "video":
            self.active = True
            self.video_tags.clear()
            self.videos_total += 1
            return "video"
        if kind == "news" and local == "news":
            self.active, self.news_date = True, None
            self.news_tags.clear()
            return "news"
        if kind == "xhtml" and local == "link":
            values = dict(zip(attrs[::2], attrs[1::2], strict=False))
            # A link without hreflang is no language alternate: Google's markup for a page's
            # separate mobile URL (rel="alternate" media="...") has none.
            if (
                values.get("rel", "").strip(_XML_SPACE).lower() == "alternate"
                and "hreflang" in values
            ):
                self.active = True
                if len(self.alternates) < MAX_ENTRY_EXTENSIONS:
                    href = values.get("href", "").strip(_XML_SPACE)[: MAX_FIELD_CHARS + 1]
                    self.alternates.append((values.get("hreflang", "")[:100], href))
                else:
                    self.dropped += 1
        return ""

    def field(self, field: str, value: str) -> None:
        """The text of a field inside a container, trimmed and cut."""
        if field == "image:loc":
            self.image_loc = self.image_loc or bool(value)
        elif value:
            if field[:6] == "video:":
                self.video_tags.add(field[6:])
            else:
                self.news_tags.add(field[5:])
                if field == "news:publication_date":
                    # Kept past MAX_LASTMOD_CHARS as a <lastmod> is, marked where it was cut.
                    self.news_date = clip(value, MAX_LASTMOD_CHARS + 1)

    def closed(self, container: str) -> None:
        if container == "image":
            if not self.image_loc:
                self.images_without_loc += 1
        elif container == "video":
            if len(self.videos) < MAX_ENTRY_EXTENSIONS:
                self.videos.append(frozenset(self.video_tags))
        elif len(self.news) < MAX_ENTRY_EXTENSIONS:
            self.news.append(News(frozenset(self.news_tags), self.news_date))

    def taken(self) -> Extensions | None:
        if not self.active:
            return None
        return Extensions(
            self.images,
            self.images_without_loc,
            tuple(self.videos),
            self.videos_total,
            tuple(self.news),
            tuple(self.alternates),
            self.dropped,
        )


_END_TAG = b"</url>"
# The names a run's elements have, and how each is written there: pyexpat interns a name when it
# hands it to a handler, and the driver bounds the names interned (MAX_NAMES), so a run adds
# those it holds, as the handlers would have.
_RUN_NAMES = tuple(
    (name, f"<{name}>") for name in ("url", "loc", "lastmod", "changefreq", "priority")
)
# A run is read from at most RUN_WINDOW_BYTES at once (the next one goes on where it stopped):
# what a try decodes and the pattern scans. After a try finds no run, or a run stops at an entry
# of another shape, the handlers read the next entry before the next try, then twice as many
# bytes as the last time (from RETRY_BYTES up to MAX_RETRY_BYTES) while that goes on, and the
# next try reads RETRY_WINDOW_BYTES only: a file of entries of another shape pays one small try
# for so many bytes. A run that takes half its window or more starts over, its next window
# twice as large (up to RUN_WINDOW_BYTES).
RUN_WINDOW_BYTES = 16 * 1024
RETRY_WINDOW_BYTES = 2 * 1024
RETRY_BYTES = 1024
MAX_RETRY_BYTES = 64 * 1024
# Entries longer than this on average are read faster by the handlers (expat scans long text
# faster than the pattern, and the handlers' cost is per element): after such a run, the
# handlers read MAX_RETRY_BYTES before the next try.
LONG_ENTRY_BYTES = 320


class _Runs:
    """Where the reading stands for runs.py: whether this document's entries may be read a run
    at a time, and whether the bytes given to expat end right after an entry's `</url>`."""

    def __init__(self, p: Any, on: bool) -> None:
        self.p = p
        self.on = on
        self.plain = False  # set at the root (at_root)
        self.rooted = False  # the root was read
        self.encoding: str | None = None  # as the XML declaration names it
        self.parsed = 0  # the bytes given to expat
        self.ended_at = -1  # where the last entry's end tag ends, were it `</url>`
        self.ended_line = 0  # the line it is on
        self.backoff = 0  # what the handlers read after a failed try (RETRY_BYTES)
        self.resume_at = 0  # no try before this many bytes were given to expat
        self.window = RUN_WINDOW_BYTES  # what the next try reads at most
        p.XmlDeclHandler = self._declared  # once, at the declaration: the head tells it

    def _declared(self, _version: str, encoding: str | None, _standalone: int) -> None:
        self.encoding = encoding

    def at_root(self, root: str, default_namespace: str | None) -> None:
        """A urlset, in UTF-8 (declared so, or not declared), whose unprefixed names are no
        extension's: its plain entries may be read as runs."""
        encoding = self.encoding
        self.rooted = True
        self.plain = (
            self.on
            and root == "urlset"
            and (encoding is None or encoding.lower() == "utf-8")
            and default_namespace not in EXTENSION_NAMESPACES
        )

    def ended(self) -> None:
        """An entry's end tag was read (called from expat's end handler)."""
        p = self.p
        self.ended_at = p.CurrentByteIndex + len(_END_TAG)
        self.ended_line = p.CurrentLineNumber

    def parse(self, chunk: bytes, between: Callable[[], bool], take: Callable[[Run], None]) -> None:
        """Give expat chunk: runs of plain entries with no handler (take reads them), the rest
        to the handlers, each piece of it up to an `</url>` so that a run may follow."""
        p = self.p
        if not self.on or (self.rooted and not self.plain):
            p.Parse(chunk, False)
            self.parsed += len(chunk)
            return
        # Before the root, as after it in a document whose runs are read: the root may be in
        # this chunk, and entries after it.
        at, size = 0, len(chunk)
        whole = False
        while at < size:
            retry = at + max(0, self.resume_at - self.parsed)
            if retry == at and self.plain and self.ended_at == self.parsed and between():
                taken, stopped = self._run(chunk, at, take)
                at += taken
                if taken and not stopped:
                    continue
                # No run, or one that stopped at an entry of another shape (which a try there
                # would fail at): the handlers read on, as far as the backoff says.
                retry = at + self.backoff
                self.backoff = min(max(2 * self.backoff, RETRY_BYTES), MAX_RETRY_BYTES)
                self.window = RETRY_WINDOW_BYTES
                if at >= size:
                    break
            cut = -1 if whole else chunk.find(_END_TAG, retry)
            stop = size if cut < 0 else cut + len(_END_TAG)
            p.Parse(chunk[at:stop], False)
            self.parsed += stop - at
            at = stop
            # A `</url>` that ended no entry (in a comment, a DOCTYPE, CDATA, or no entry of
            # a run's document): the rest of the chunk goes at once, as expat reads a token
            # it holds unfinished again from its start at every call.
            whole = self.ended_at != self.parsed

    def _run(self, chunk: bytes, at: int, take: Callable[[Run], None]) -> tuple[int, bool]:
        """Read the run chunk[at:] starts with, if any: the bytes it took, and whether it
        stopped at a whole entry of another shape (or an error) within its window, rather than
        at the window's end (a try right after it would fail)."""
        piece = chunk[at : at + self.window]
        try:
            text = piece.decode("utf-8")
        except UnicodeDecodeError as e:  # a character cut by the slice's end, or no UTF-8
            text = piece[: e.start].decode("utf-8")
        run = read_run(text, self.ended_line, MAX_FIELD_CHARS + 1, MAX_LASTMOD_CHARS + 1)
        if not run.end:
            return 0, False
        size = run.end if text.isascii() else len(text[: run.end].encode("utf-8"))
        p = self.p
        start, end = p.StartElementHandler, p.EndElementHandler
        p.StartElementHandler = p.EndElementHandler = None
        try:
            p.Parse(piece[:size], False)
        finally:
            p.StartElementHandler, p.EndElementHandler = start, end
        self.parsed += size
        self.ended_at, self.ended_line = self.parsed, run.line
        if size > LONG_ENTRY_BYTES * len(run.lines):
            self.backoff = MAX_RETRY_BYTES
            self.resume_at = self.parsed + MAX_RETRY_BYTES
        elif 2 * size >= len(piece):
            # A run that fills its window: the next window is twice as large.
            self.backoff = 0
            self.window = min(2 * self.window, RUN_WINDOW_BYTES)
        names = p.intern
        for name, tag in _RUN_NAMES:
            if name not in names and text.find(tag, 0, run.end) >= 0:
                names[name] = name
        take(run)
        return size, text.find("</url>", run.end) >= 0


def _handlers(p: Any, reader: EntryReader) -> Handlers:
    on_entry = reader.on_entry
    on_head = reader.on_head
    runs = _Runs(p, reader.runs)
    names = _Namespaces()
    kinds, scopes = names.kinds, names.scopes
    kind_of = names.kind_of
    extended = _Extended()
    depth = 0
    entry_name = other_entry = ""
    count = 0
    root: str | None = None
    parts: list[str] = []  # the text of the field being read
    collect = parts.append
    field = ""  # what that text is for: loc, lastmod, image:loc, video:..., news:...
    field_depth = 0
    # The entry being read (line 0: none).
    line = 0
    loc: str | None = None
    lastmod: str | None = None
    container = ""  # image, video or news: the extension element open at depth 3

    def read(what: str) -> None:
        nonlocal field, field_depth
        field, field_depth = what, depth
        parts.clear()
        p.CharacterDataHandler = collect

    def start(name: str, attrs: list[str]) -> None:
        nonlocal depth, root, entry_name, other_entry, count, line, loc, lastmod, container
        nonlocal on_entry
        nonlocal field, field_depth
        depth += 1
        if attrs:
            names.declare(attrs, depth)
        if depth == 3:
            if not line or field:
                return
            kind, local = kinds.get(name) or kind_of(name)
            container = ""
            if local == "lastmod" or (local == "loc" and not kind):
                # `read(local)`, inline: this runs for nearly every element of a sitemap.
                field, field_depth = local, depth
                parts.clear()
                p.CharacterDataHandler = collect
            elif kind:
                container = extended.opened(kind, local, attrs)
        elif depth == 2:
            if name == entry_name or name.rpartition(":")[2] == entry_name:
                count += 1
                line = p.CurrentLineNumber
                loc = lastmod = None
                if extended.active:
                    extended.reset()
                container = ""
            else:
                line = 0
                if name.rpartition(":")[2] == other_entry:
                    reader.misplaced += 1
        elif depth == 1:
            prefix, _, local = name.rpartition(":")
            namespace, line = names.spaces.get(prefix), p.CurrentLineNumber
            head = DocumentHead(local[:100], namespace, line, runs.encoding)
            reader.head = head
            found = ROOTS.get(local)
            if found is None:
                raise RefusedError(Kind.UNKNOWN_ROOT, unknown_root(local))
            root, entry_name = local, found
            other_entry = "sitemap" if found == "url" else "url"
            runs.at_root(local, names.spaces.get(""))
            if on_head is not None:
                on_entry = on_head(head) or on_entry
        elif depth > MAX_DEPTH:
            raise RefusedError(Kind.TOO_DEEP, f"elements nested deeper than {MAX_DEPTH}")
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

    def end(_name: str) -> None:
        nonlocal depth, field, loc, lastmod, line, container
        if field and (depth == field_depth or field == "lastmod"):
            # The field ends here (a <lastmod> in mixed content: at its first child's end).
            p.CharacterDataHandler = None
            value = parts[0] if len(parts) == 1 else "".join(parts)
            if field == "lastmod":
                lastmod = value.lstrip(_XML_SPACE)[: MAX_LASTMOD_CHARS + 1]
            else:
                value = value.lstrip(_XML_SPACE)[: MAX_FIELD_CHARS + 1].rstrip(_XML_SPACE)
                if field == "loc":
                    loc = value
                else:
                    extended.field(field, value)
            field = ""
        elif depth == 2:
            if line:
                on_entry(line, loc, lastmod, extended.taken() if extended.active else None)
                line = 0
                if runs.plain:
                    runs.ended()
        elif depth == 3 and container:
            extended.closed(container)
            container = ""
        if scopes and scopes[-1][0] == depth:
            names.undeclare()
        depth -= 1

    def bound_text() -> None:
        # Called between slices: the text being read grows by at most a slice before it is
        # cut here, to its first characters past the white space in front: what `end` keeps
        # of it, so that where the slices fall changes nothing.
        if field and parts:
            joined = "".join(parts).lstrip(_XML_SPACE)
            cap = MAX_LASTMOD_CHARS if field == "lastmod" else MAX_FIELD_CHARS
            parts[:] = [joined[: cap + 1]]

    def facts() -> ParsedSitemap | None:
        # The deep audit asks only what the document is and how many entries it has: the
        # Lambda's <lastmod> facts are the Lambda's reading's.
        return None if root is None else ParsedSitemap(root, count, None, (), 0)

    def between() -> bool:
        return depth == 1 and not line and not field

    def take(run: Run) -> None:
        # A run of plain entries (runs.py): what `end` gives of each, in turn.
        nonlocal count
        if extended.active:
            extended.reset()
        count += len(run.lines)
        on_run = reader.on_run
        if on_run is not None:
            on_run(run.lines, run.locs, run.lastmods)
            return
        for at, url, modified in zip(run.lines, run.locs, run.lastmods, strict=True):
            on_entry(at, url, modified, None)

    def parse(chunk: bytes) -> None:
        runs.parse(chunk, between, take)

    return Handlers(start, end, bound_text, facts, parse=parse)
