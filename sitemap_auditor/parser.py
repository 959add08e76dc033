"""Streaming sitemap parser: fed byte chunks, it answers with the facts or why it refused them.

It knows nothing of HTTP. Memory stays flat: expat keeps at most one token, and only the latest
`<lastmod>`, the counts and a few samples are kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from xml.parsers import expat

from defusedxml import DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden

from .lastmod import parse_lastmod

ROOTS = {"urlset": "url", "sitemapindex": "sitemap"}  # root local name -> entry local name
# CONTRACT section 6: at most 20 unparsable values are listed, each cut to 100 characters.
MAX_UNPARSABLE_SAMPLES = 20
MAX_SAMPLE_CHARS = 100
# No W3C Datetime is longer than this (fractions aside); longer text is unparsable anyway, and
# keeping all of it would let one huge element grow memory.
MAX_LASTMOD_CHARS = 256
# Sitemaps repeat a handful of lastmod strings thousands of times; parse each once.
_CACHE_LIMIT = 4096
_NS_SEP = "}"


@dataclass(frozen=True)
class ParsedSitemap:
    """A sitemap that parsed: its root, entry count and latest `<lastmod>`."""

    root: str
    entry_count: int
    latest_lastmod: datetime | None
    unparsable_samples: tuple[str, ...]
    unparsable_total: int


@dataclass(frozen=True)
class Rejected:
    """A body that is not an acceptable sitemap, and why."""

    reason: str


class _RefusedError(Exception):
    """Raised from inside expat callbacks to stop parsing with a reason."""


class SitemapParser:
    """Incremental parser for one sitemap document."""

    def __init__(self) -> None:
        self._p = expat.ParserCreate(namespace_separator=_NS_SEP)
        self._p.buffer_text = True
        self._p.ordered_attributes = (
            True  # a list is cheaper than a dict, and attributes are unused
        )
        self._p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        # defusedxml's defaults: a DOCTYPE is allowed, entity declarations and external references
        # are refused, nothing external is ever fetched.
        self._p.EntityDeclHandler = self._entity_decl
        self._p.UnparsedEntityDeclHandler = self._unparsed_entity_decl
        self._p.ExternalEntityRefHandler = self._external_ref
        self._p.StartElementHandler = self._start
        self._p.EndElementHandler = self._end
        self._outcome: Rejected | None = None
        self._seen_content = False
        self._depth = 0
        self._root: str | None = None
        self._entry = ""
        self._entry_suffix = ""
        self._in_entry = False
        self._count = 0
        self._latest: datetime | None = None
        self._text: list[str] = []
        self._text_len = 0
        self._collecting = False
        self._cache: dict[str, datetime | None] = {}
        self._samples: list[str] = []
        self._unparsable = 0

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
        self._parse(data, final=False)

    def close(self) -> ParsedSitemap | Rejected:
        """Finish the document and return what it was."""
        if self._outcome is None:
            if not self._seen_content:
                self._outcome = Rejected("empty body")
            else:
                # A truncated document only fails here, after its entries were already seen.
                self._parse(b"", final=True)
        if self._outcome is not None:
            return self._outcome
        assert self._root is not None  # expat ends with no error only after a root element
        return ParsedSitemap(
            root=self._root,
            entry_count=self._count,
            latest_lastmod=self._latest,
            unparsable_samples=tuple(self._samples),
            unparsable_total=self._unparsable,
        )

    def _parse(self, data: bytes, final: bool) -> None:
        try:
            self._p.Parse(data, final)
        except expat.ExpatError as e:
            self._outcome = Rejected(
                f"not well-formed XML at line {e.lineno}, column {e.offset}: "
                f"{expat.ErrorString(e.code)}"
            )
        except _RefusedError as e:
            self._outcome = Rejected(str(e))
        except (EntitiesForbidden, ExternalReferenceForbidden, DTDForbidden) as e:
            self._outcome = Rejected(f"refused XML construct: {_describe_forbidden(e)}")

    # expat callbacks: kept lean, they run for every element of a 50 MB document.

    def _start(self, name: str, _attrs: list[str]) -> None:
        self._depth += 1
        depth = self._depth
        if depth == 3:
            if self._in_entry and (name == "lastmod" or name.endswith("}lastmod")):
                self._collecting = True
                self._text = []
                self._text_len = 0
                self._p.CharacterDataHandler = self._data
        elif depth == 2:
            self._in_entry = name == self._entry or name.endswith(self._entry_suffix)
            if self._in_entry:
                self._count += 1
        elif depth == 1:
            local = name.rpartition(_NS_SEP)[2]
            entry = ROOTS.get(local)
            if entry is None:
                raise _RefusedError(f"unknown root element <{local[:100]}>")
            self._root = local
            self._entry = entry
            self._entry_suffix = _NS_SEP + entry

    def _end(self, _name: str) -> None:
        if self._collecting and self._depth == 3:
            self._collecting = False
            self._p.CharacterDataHandler = None
            self._lastmod("".join(self._text))
        self._depth -= 1

    def _data(self, text: str) -> None:
        if self._text_len <= MAX_LASTMOD_CHARS:
            self._text.append(text)
            self._text_len += len(text)

    def _lastmod(self, text: str) -> None:
        cache = self._cache
        if text in cache:
            value = cache[text]
        else:
            value = parse_lastmod(text) if self._text_len <= MAX_LASTMOD_CHARS else None
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
            cache[text] = value
        if value is None:
            self._unparsable += 1
            if len(self._samples) < MAX_UNPARSABLE_SAMPLES:
                self._samples.append(text.strip(" \t\r\n")[:MAX_SAMPLE_CHARS])
        elif self._latest is None or value > self._latest:
            self._latest = value

    def _entity_decl(
        self,
        name: str,
        is_parameter_entity: bool,
        value: str | None,
        base: str | None,
        sysid: str | None,
        pubid: str | None,
        notation_name: str | None,
    ) -> None:
        raise EntitiesForbidden(name, value, base, sysid, pubid, notation_name)

    def _unparsed_entity_decl(
        self,
        name: str,
        base: str | None,
        sysid: str | None,
        pubid: str | None,
        notation_name: str | None,
    ) -> None:
        raise EntitiesForbidden(name, None, base, sysid, pubid, notation_name)

    def _external_ref(
        self, context: str, base: str | None, sysid: str | None, pubid: str | None
    ) -> int:
        raise ExternalReferenceForbidden(context, base, sysid, pubid)


def _describe_forbidden(e: Exception) -> str:
    if isinstance(e, EntitiesForbidden):
        return f"entity declaration {str(e.name)[:100]!r}"
    if isinstance(e, ExternalReferenceForbidden):
        return f"external reference {str(e.sysid)[:100]!r}"
    return "document type declaration"


def parse_bytes(chunks: list[bytes]) -> ParsedSitemap | Rejected:
    """Parse a whole document given as chunks (a convenience for tests and benchmarks)."""
    parser = SitemapParser()
    for chunk in chunks:
        parser.feed(chunk)
    return parser.close()
