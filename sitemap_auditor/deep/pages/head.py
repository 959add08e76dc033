"""The sans-I/O reading of an HTML page's head: meta robots, canonical, modification times.

Fed the body in chunks, it stops at `</head>`, at the first tag of the body, or once it has read
READ_LIMIT bytes (what Googlebot reads of an HTML file): a directive past that is invisible to
Google, and `cut` says the limit was reached before the head ended.
"""

from __future__ import annotations

import codecs
import html
import json
import re
from dataclasses import dataclass
from html.parser import HTMLParser

from sitemap_auditor.core.text import clip

__all__ = ["READ_LIMIT", "HeadFacts", "HeadReader"]

READ_LIMIT = 2 * 1024 * 1024  # Google Search reads the first 2 MB of an HTML file
_MAX_SCRIPT_CHARS = 256 * 1024  # one JSON-LD block read for dateModified
# The standard library's parser looks for a start tag's end from its start again at every piece
# it is fed, with about 200 bytes of its regular expression's state a character: a tag of
# megabytes (`<meta a=b a=b ...` never closed) cost half a gigabyte and seconds. So the text is
# fed in pieces of _FEED_CHARS, and while a start tag is open, held back until the tag's text is
# twice as long as when the parser last looked for its end: its scans, whatever the tag holds
# (quoted `>`s), cost at most twice its length. A start tag still open past _MAX_TAG_CHARS stops
# the reading, as READ_LIMIT does; a real long one (a 60 KB `data:` icon in a <link>) is read.
_MAX_TAG_CHARS = 64 * 1024
_FEED_CHARS = 8 * 1024
# Meta robots tags: several may coexist, and the most restrictive wins, so every one that may
# say noindex is kept (those that cannot are not: the verdict's noindex, none and
# unavailable_after are all it reads), each distinct one once, up to this many.
_MAX_VALUES = 1000
_DECIDING = ("noindex", "none", "unavailable_after")
# Tags that may stand in a head; any other start tag means the body has begun.
_HEAD_TAGS = frozenset(
    {"html", "head", "meta", "link", "title", "script", "style", "base", "noscript", "template"}
)


@dataclass(frozen=True)
class HeadFacts:
    """What a page's head says about its indexing."""

    robots: tuple[str, ...]  # content of <meta name="robots"> and <meta name="googlebot">
    canonical: str | None  # the first rel=canonical href, as written
    modified: str | None  # article:modified_time, or JSON-LD dateModified
    title: str | None
    cut: bool  # READ_LIMIT was reached before the head ended
    ended: bool  # the head's end (or the body's start) was seen
    # The whole page was read and its body holds nothing: no element (a script counts: it may
    # draw the page), no text. The soft 404 hint's "empty body".
    empty: bool = False
    # The first <base href>, as written: the head's relative URLs are read against it.
    base: str | None = None


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.robots: dict[str, None] = {}
        self.canonical: str | None = None
        self.base: str | None = None
        self.modified: str | None = None
        self.ld_modified: str | None = None
        self.title: str | None = None
        self.ended = False
        self.content = False  # an element or text of the body was seen
        self.text = False  # text outside the head's elements, or a script, was seen
        self._in: str | None = None  # "title" or "ld" while inside one
        self._text: list[str] = []
        self._chars = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.ended:
            self.content = self.content or tag not in ("html", "head", "body")
            return
        if tag not in _HEAD_TAGS:
            self.ended = True
            self.content = tag not in ("html", "body")
            return
        a = {k.lower(): (v or "") for k, v in attrs}
        if tag == "meta":
            name = a.get("name", "").strip().lower()
            if name in ("robots", "googlebot") and len(self.robots) < _MAX_VALUES:
                content = a.get("content", "")[:1000]
                folded = content.lower()
                if any(word in folded for word in _DECIDING):
                    self.robots.setdefault(content)
            prop = a.get("property", "").strip().lower()
            if prop == "article:modified_time" and self.modified is None:
                self.modified = clip(a.get("content", "").strip(), 100) or None
        elif tag == "link" and self.canonical is None:
            rels = a.get("rel", "").lower().split()
            if "canonical" in rels and a.get("href", "").strip():
                self.canonical = clip(a["href"].strip(), 4096)
        elif tag == "base" and self.base is None and "href" in a:
            self.base = clip(a["href"].strip(), 4096)
        elif tag == "title":
            # Its text is text, whatever it holds (RCDATA, as browsers and Googlebot read it):
            # `<title>Shoes <b>sale</b></title>` neither ends the head nor holds a tag.
            self.set_cdata_mode("title")
            if self.title is None:
                self._start("title")
        elif tag == "script":
            if a.get("type", "").strip().lower() == "application/ld+json":
                self._start("ld")
            else:
                self.text = True  # a script may draw the page, wherever it stands

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def parse_html_declaration(self, i: int) -> int:
        # `<![` outside SVG and MathML is a bogus comment to the next `>`, as browsers read it
        # (HTML's "markup declaration open" state); the standard library reads it as an SGML
        # marked section instead, and raises AssertionError on one it cannot name (`<![ x`,
        # `<![if-lt-IE-9[`) where a browser goes on. `<![if !IE]><meta ...><![endif]>` thus
        # shows its meta, as it does to Googlebot.
        if self.rawdata.startswith("<![", i):
            return self.parse_bogus_comment(i)
        return int(super().parse_html_declaration(i))

    def _start(self, what: str) -> None:
        self._in, self._text, self._chars = what, [], 0

    def handle_data(self, data: str) -> None:
        if self._in is not None:
            if self._chars < _MAX_SCRIPT_CHARS:
                self._text.append(data)
                self._chars += len(data)
        elif self.cdata_elem is None and not data.isspace():
            # Text outside the head's elements: the page is not empty. (Browsers would end the
            # head there; its elements after such text are still read, as they were.)
            self.text = True
            self.content = self.content or self.ended

    def handle_endtag(self, tag: str) -> None:
        if self.ended:
            return
        if tag in ("head", "html"):
            self.ended = True
        elif tag == "title" and self._in == "title":
            # Read raw (RCDATA): its character references are resolved here.
            self.title = " ".join(html.unescape("".join(self._text)).split())[:300]
            self._in = None
        elif tag == "script" and self._in == "ld":
            if self.ld_modified is None and self._chars < _MAX_SCRIPT_CHARS:
                self.ld_modified = _date_modified("".join(self._text))
            self._in = None


def _date_modified(text: str) -> str | None:
    """dateModified of the first object of a JSON-LD block that gives one (a @graph searched)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # nested deeper than the decoder goes: read as none
        return None
    stack = [data]
    seen = 0
    while stack and seen < 1000:
        item = stack.pop(0)
        seen += 1
        if isinstance(item, dict):
            value = item.get("dateModified")
            if isinstance(value, str) and value.strip():
                return value.strip()[:100]
            stack.extend(v for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend(item)
    return None


# A byte order mark decides a page's encoding over any charset, as browsers read it (the HTML
# standard's encoding sniffing), and is not part of the text.
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_BE, "utf-16-be"), (b"\xff\xfe", "utf-16-le"))


# The encodings of the web (the Encoding Standard's), by a label of each, as Python names them;
# a label of any other (EBCDIC `cp500`, `punycode`, `base64`, UTF-32) is ignored, as browsers
# ignore it. Where the Standard's decoder is another Python codec than the label's, that one
# (_AS_BROWSERS_READ): Latin-1 and ASCII are windows-1252, Shift_JIS is windows-31j (cp932),
# Big5 holds HKSCS, EUC-KR is cp949, TIS-620 is windows-874, and `utf-16` is UTF-16LE
# (Python's decoder of that name raises on a body without a byte order mark). Labels of the
# Standard that Python does not know are spelled as one it does (_LABELS).
_WEB_LABELS = (
    *("utf-8", "ibm866", "koi8-r", "koi8-u", "macintosh", "mac-cyrillic", "cp874"),
    *(f"iso-8859-{n}" for n in (2, 3, 4, 5, 6, 7, 8, 10, 13, 14, 15, 16)),
    *(f"windows-{n}" for n in range(1250, 1259)),
    *("gbk", "gb18030", "big5", "euc-jp", "iso-2022-jp", "shift_jis", "euc-kr"),
    *("utf-16be", "utf-16le"),
)
_AS_BROWSERS_READ = {
    "iso8859-1": "cp1252",
    "ascii": "cp1252",
    "iso8859-9": "cp1254",
    "iso8859-11": "cp874",
    "tis-620": "cp874",
    "gb2312": "gbk",
    "shift_jis": "cp932",
    "big5": "big5hkscs",
    "euc_kr": "cp949",
    "utf-16": "utf-16-le",
}
_LABELS = {
    "windows-874": "cp874",
    "dos-874": "cp874",
    "windows-31j": "cp932",
    "x-sjis": "cp932",
    "x-gbk": "gbk",
    "gb_2312": "gbk",
    "gb_2312-80": "gbk",
    "csgb2312": "gbk",
    "x-mac-cyrillic": "mac-cyrillic",
    "x-mac-ukrainian": "mac-cyrillic",
    "x-mac-roman": "mac-roman",
    "csmacintosh": "mac-roman",
    "mac": "mac-roman",
    "iso-8859-8-i": "iso8859-8",
    "x-euc-jp": "euc_jp",
    "cn-big5": "big5",
    "x-x-big5": "big5",
    "x-cp1250": "cp1250",
    "x-cp1251": "cp1251",
    "x-cp1252": "cp1252",
    "x-cp1253": "cp1253",
    "x-cp1254": "cp1254",
    "x-cp1255": "cp1255",
    "x-cp1256": "cp1256",
    "x-cp1257": "cp1257",
    "x-cp1258": "cp1258",
    "windows-949": "cp949",
    "ks_c_5601-1989": "cp949",
    "cseuckr": "cp949",
    "csksc56011987": "cp949",
    "koi8": "koi8-r",
    "cskoi8r": "koi8-r",
    "unicodefffe": "utf-16-be",
    "csunicode": "utf-16-le",
    "unicodefeff": "utf-16-le",
}
# The Standard's `iso8859N` and `iso_8859-N` spellings of ISO-8859-N (`iso88591`, `iso885915`).
_ISO_8859 = re.compile(r"iso[-_]?8859[-_]?(\d{1,2})")


def _web_codec(label: str) -> str | None:
    """The Python codec a browser's decoder of this label is, None for no encoding of the web."""
    label = label.lower()
    iso = _ISO_8859.fullmatch(label)
    if iso is not None:
        label = f"iso8859-{iso.group(1)}"
    try:
        name = codecs.lookup(_LABELS.get(label, label)).name
    except LookupError:
        return None
    name = _AS_BROWSERS_READ.get(name, name)
    return name if name in _WEB_CODECS else None


_WEB_CODECS = frozenset(
    _AS_BROWSERS_READ.get(codecs.lookup(label).name, codecs.lookup(label).name)
    for label in _WEB_LABELS
)


def _charset(content_type: str | None) -> str:
    for part in (content_type or "").split(";")[1:]:
        key, _, value = part.strip().partition("=")
        if key.strip().lower() == "charset":
            return _web_codec(value.strip().strip("\"'")) or "utf-8"
    return "utf-8"


class HeadReader:
    """Feed a page's body chunk by chunk until `done`; then `facts()`."""

    def __init__(self, content_type: str | None = None) -> None:
        self._charset = _charset(content_type)
        self._decoder: codecs.IncrementalDecoder | None = None  # once the first bytes are in
        self._first = b""  # the first bytes, held until they show whether a mark starts them
        self._parser = _Parser()
        self._held: list[str] = []  # text held back while a start tag is open (feed)
        self._held_chars = 0
        self._tag_cut = False
        self._tried = 0  # how long the open start tag was when the parser last looked at it
        self.read = 0
        self.cut = False

    def _decode(self, chunk: bytes, final: bool) -> str:
        if self._decoder is None:
            self._first += chunk
            if len(self._first) < 3 and not final:
                return ""
            chunk, self._first, name = self._first, b"", self._charset
            for mark, named in _BOMS:
                if chunk.startswith(mark):
                    chunk, name = chunk[len(mark) :], named
                    break
            self._decoder = codecs.getincrementaldecoder(name)(errors="replace")
        return self._decoder.decode(chunk, final=final)

    @property
    def done(self) -> bool:
        """True once nothing more is to be read: the head ended and the body has shown some
        content, or the read limit is reached."""
        return self._parser.content or self.cut

    def feed(self, chunk: bytes) -> None:
        """Read one more chunk of the body (ignored once done)."""
        if self.done:
            return
        room = READ_LIMIT - self.read
        if len(chunk) >= room:
            chunk, self.cut = chunk[:room], True
        self.read += len(chunk)
        p = self._parser
        text = self._decode(chunk, final=self.cut)
        held = self._held
        for at in range(0, len(text), _FEED_CHARS):
            piece = text[at : at + _FEED_CHARS]
            waiting = len(p.rawdata) + self._held_chars + len(piece)
            if self._tag_open() and waiting < 2 * self._tried and waiting <= _MAX_TAG_CHARS:
                held.append(piece)  # the open tag is scanned again once twice as long
                self._held_chars += len(piece)
                continue
            p.feed("".join(held) + piece if held else piece)
            held.clear()
            self._held_chars = 0
            if self._tag_open():
                self._tried = len(p.rawdata)
                if self._tried > _MAX_TAG_CHARS:
                    # A start tag that does not end: read no further, nor scan it again.
                    self.cut = self._tag_cut = True
                    break
            if p.content:
                break

    def _tag_open(self) -> bool:
        """Whether the text the parser holds back is a start tag it has not seen the end of."""
        pending = self._parser.rawdata
        return self._parser.cdata_elem is None and pending[:1] == "<" and pending[1:2].isalpha()

    def facts(self) -> HeadFacts:
        """What the head said, once fed (the parser's pending text flushed)."""
        p = self._parser
        if not p.content and not self._tag_cut:
            p.feed("".join(self._held) + self._decode(b"", final=True))
            self._held.clear()
            p.close()  # text held back for a possible entity is text too
        return HeadFacts(
            robots=tuple(p.robots),
            canonical=p.canonical,
            modified=p.modified or p.ld_modified,
            title=p.title,
            cut=self.cut and not p.ended,
            ended=p.ended,
            empty=not (p.content or p.text or self.cut),
            base=p.base,
        )
