"""Hostile sitemaps that would make expat hold a lot between two of its events, made as a stream.

One table for the parser's memory bounds (docs/contract.md §5): `tests/integration/test_memory.py`
feeds each body to `SitemapParser` alone under tracemalloc, and serves it to a whole audit in a
process of its own. Bodies are
generated lazily as 64 KiB chunks, so the test never holds one whole, and a parser that stops
early stops their making too. The `before` column is what the parser without these bounds took
(the resident set's rise, measured once on CPython 3.11 with expat 2.5, the body fed to the
parser alone in 64 KiB chunks), for docs/reliability.md.
"""

from __future__ import annotations

import itertools
import string
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from sitemap_auditor.core.parser import ParsedSitemap, Rejected

CHUNK = 64 * 1024
HEAD = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n'
    b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
)
MARKUP = "refused XML construct: markup longer than 1,048,576 bytes"
NAMES = "refused XML construct: more than 1,024 distinct element and attribute names"
LONG_NAME = "refused XML construct: a name longer than 256 characters"


def chunked(parts: Iterable[bytes], size: int = CHUNK) -> Iterator[bytes]:
    """Parts regrouped into chunks of exactly size bytes (the last one shorter)."""
    buffer = bytearray()
    for part in parts:
        buffer += part
        while len(buffer) >= size:
            yield bytes(buffer[:size])
            del buffer[:size]
    if buffer:
        yield bytes(buffer)


def reason_of(answer: ParsedSitemap | Rejected) -> str | None:
    """The parser's reason for refusing a body, as the table's `reason` column holds it; None
    when it read the body."""
    return answer.reason if isinstance(answer, Rejected) else None


def repeated(unit: bytes, total: int) -> Iterator[bytes]:
    """unit, in runs of about 64 KiB, until about total bytes were given."""
    run = unit * max(1, CHUNK // len(unit))
    for _ in range(max(1, total // len(run))):
        yield run


def distinct_names() -> Iterator[str]:
    """a, b, ..., Z, aa, ab, ...: the shortest distinct XML names."""
    for width in itertools.count(1):
        for letters in itertools.product(string.ascii_letters, repeat=width):
            yield "".join(letters)


def _attributes(count: int, value: str) -> Iterator[bytes]:
    for name in itertools.islice(distinct_names(), count):
        yield f' {name}="{value}"'.encode()


@dataclass(frozen=True)
class Hostile:
    """One hostile body: how to make it, and what the parser answers."""

    name: str
    parts: Callable[[], Iterable[bytes]]
    # The refusal's reason, or None when the document is read (its text is not held).
    reason: str | None
    before: str

    def chunks(self, size: int = CHUNK) -> Iterator[bytes]:
        return chunked(self.parts(), size)


def _attribute_tag() -> Iterable[bytes]:
    # ~38 MB: one start tag whose attribute values hold '>' (which fooled a raw-byte count).
    return itertools.chain([HEAD, b"<url"], _attributes(3_000_000, ">"), [b"/></urlset>"])


def _attribute_value() -> Iterable[bytes]:
    return itertools.chain([HEAD, b'<url a="'], repeated(b"x>", 40_000_000), [b'"/></urlset>'])


def _utf16_name() -> Iterable[bytes]:
    # U+043E is 3E 04 in UTF-16LE: every code unit of the name holds a '>' byte.
    head = '<?xml version="1.0" encoding="UTF-16"?><urlset><'.encode("utf-16-le")
    return itertools.chain(
        [b"\xff\xfe" + head],
        repeated("\u043e".encode("utf-16-le"), 40_000_000),
        ["/></urlset>".encode("utf-16-le")],
    )


def _utf7_name() -> Iterable[bytes]:
    # One base64 run: '<' then U+0101 again and again, as UTF-16 in base64, no byte '<' at all.
    head = b'<?xml version="1.0" encoding="UTF-7"?><urlset>+ADwB'
    return itertools.chain([head], repeated(b"AQEB", 48_000_000), [b"-/></urlset>"])


def _shift_jis_name() -> Iterable[bytes]:
    # Two bytes a character in Shift_JIS, three in the UTF-8 expat is fed.
    head = b'<?xml version="1.0" encoding="Shift_JIS"?><urlset><'
    return itertools.chain([head], repeated("名".encode("shift_jis"), 48_000_000), [b"/></urlset>"])


def _comment() -> Iterable[bytes]:
    return itertools.chain([HEAD, b"<!--"], repeated(b"c>", 48_000_000), [b"--></urlset>"])


def _processing_instruction() -> Iterable[bytes]:
    return itertools.chain([HEAD, b"<?pi "], repeated(b"p>", 48_000_000), [b"?></urlset>"])


def _cdata() -> Iterable[bytes]:
    return itertools.chain(
        [HEAD, b"<url><loc><![CDATA["], repeated(b"d>", 48_000_000), [b"]]></loc></url></urlset>"]
    )


def _doctype_declarations() -> Iterable[bytes]:
    # expat keeps every attribute it is told of; distinct ones, 1,500,000 of them.
    def declarations() -> Iterator[bytes]:
        for i in range(1_500_000):
            yield f"<!ATTLIST e{i} a{i} CDATA #IMPLIED>".encode()

    return itertools.chain(
        [b'<?xml version="1.0"?><!DOCTYPE urlset ['], declarations(), [b"]><urlset/>"]
    )


def _doctype_subset() -> Iterable[bytes]:
    # The same declaration again and again: a DOCTYPE counted whole, from '[' to ']>'.
    return itertools.chain(
        [b'<?xml version="1.0"?><!DOCTYPE urlset ['],
        repeated(b"<!ELEMENT url ANY>", 48_000_000),
        [b"]><urlset/>"],
    )


def _text_outside() -> Iterable[bytes]:
    # Text expat reports as it comes and the parser does not keep: read, not refused.
    return itertools.chain(
        [HEAD, b"<url><loc>"], repeated(b"t]>", 48_000_000), [b"</loc></url></urlset>"]
    )


def _element_names() -> Iterable[bytes]:
    def elements() -> Iterator[bytes]:
        for i in range(4_000_000):
            yield f"<e{i}/>".encode()

    return itertools.chain([HEAD], elements(), [b"</urlset>"])


def _attribute_names() -> Iterable[bytes]:
    def tags() -> Iterator[bytes]:
        names = distinct_names()
        for _ in range(3_000):
            yield (
                b"<url"
                + b"".join(f' {n}=""'.encode() for n in itertools.islice(names, 1_000))
                + b"/>"
            )

    return itertools.chain([HEAD], tags(), [b"</urlset>"])


def _long_names_nested() -> Iterable[bytes]:
    # Each open element's name stays in expat's buffer for its level: 250 levels of 190 KB.
    return itertools.chain(
        [HEAD], (f"<{'n' * 190_000}{i:03d}>".encode() for i in range(250)), [b"</urlset>"]
    )


def _widest_tag() -> Iterable[bytes]:
    # Under the markup bound (~900 KB): 125,000 distinct attribute names in one start tag, the
    # most expat and pyexpat build from one token before the names are counted.
    return itertools.chain([HEAD, b"<url"], _attributes(125_000, ""), [b"/></urlset>"])


HOSTILE = (
    Hostile("a start tag of 3,000,000 attributes", _attribute_tag, MARKUP, "+716 MiB"),
    Hostile("a 40 MB attribute value", _attribute_value, MARKUP, "+130 MiB"),
    Hostile("a UTF-16 name of '>' bytes", _utf16_name, MARKUP, "+207 MiB"),
    Hostile(
        "a UTF-7 name of 48 MB",
        _utf7_name,
        "refused XML construct: utf-7 sequence longer than 1,048,576 bytes",
        "+215 MiB, 117 s",
    ),
    Hostile(
        "a Shift_JIS name of 48 MB", _shift_jis_name, MARKUP, "refused (no '<' or '>' byte in it)"
    ),
    Hostile("a 48 MB comment", _comment, MARKUP, "+64 MiB"),
    Hostile("a 48 MB processing instruction", _processing_instruction, MARKUP, "+64 MiB"),
    Hostile("a 48 MB CDATA section", _cdata, MARKUP, "read, +0.3 MiB"),
    Hostile("a DOCTYPE of 1,500,000 attribute lists", _doctype_declarations, NAMES, "+417 MiB"),
    Hostile("a 48 MB DOCTYPE internal subset", _doctype_subset, MARKUP, "read, +0.4 MiB"),
    Hostile("a 48 MB text run outside kept elements", _text_outside, None, "read, +0.4 MiB"),
    Hostile("4,000,000 distinct element names", _element_names, NAMES, "+645 MiB"),
    Hostile("3,000 tags of 1,000 distinct attributes", _attribute_names, NAMES, "+514 MiB"),
    Hostile("250 nested names of 190 KB", _long_names_nested, LONG_NAME, "+201 MiB"),
    Hostile("one start tag of 125,000 distinct attributes", _widest_tag, NAMES, "+26 MiB"),
)
