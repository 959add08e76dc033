"""An independent reading of a sitemap's entries, written plainly, to hold the deep audit's
reading (sitemap_auditor/deep/reading/entries.py) to: the whole document given to expat at
once, a copy of the namespace bindings per element, every text kept whole and cut only at the
end. It reads the same rules as the deep reading, stated once more and simply:

- an entry is an element at the second level whose local name is the root's entry name (`url`
  in a `<urlset>`, `sitemap` in a `<sitemapindex>`); its line is its start tag's;
- its `<loc>` is a child, at the third level, named `loc` in no extension namespace: all the
  text inside it, trimmed of XML white space, cut to its first 4,097 characters past the white
  space in front (then trimmed at its end); the last one counts;
- its `<lastmod>` is a child named `lastmod`, in any namespace: its text up to the first end
  tag after its start, the white space in front removed, cut to 257 characters; the last counts;
- an extension element is known by the namespace its prefix is bound to where it stands, or
  by its usual prefix (image, video, news, xhtml) when that prefix is bound to nothing;
- `<image:image>` counts an image, without a loc when it has no `<image:loc>` child with text;
  `<video:video>` a video; `<news:news>` a news item; `<xhtml:link rel="alternate">` with an
  hreflang an alternate (its hreflang and href).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from xml.parsers import expat

EXTENSIONS = {
    "http://www.google.com/schemas/sitemap-image/1.1": "image",
    "http://www.google.com/schemas/sitemap-video/1.1": "video",
    "http://www.google.com/schemas/sitemap-news/0.9": "news",
    "http://www.w3.org/1999/xhtml": "xhtml",
}
SPACE = " \t\r\n"
FIELD = 4096
LASTMOD = 256


@dataclass
class Entry:
    line: int
    loc: str | None = None
    lastmod: str | None = None
    images: int = 0
    images_without_loc: int = 0
    videos: int = 0
    news: int = 0
    alternates: tuple[tuple[str, str], ...] = ()

    def key(self) -> tuple[Any, ...]:
        return (self.line, self.loc, self.lastmod, self.images, self.images_without_loc,
                self.videos, self.news, self.alternates)  # fmt: skip


@dataclass
class Reading:
    entries: list[Entry]
    error_line: int | None  # expat's error, when the document is not well-formed
    root: str | None


def read(document: bytes) -> Reading:
    """Every entry of the document, read at once."""
    p = expat.ParserCreate()
    p.ordered_attributes = True
    stack: list[dict[str, str]] = [{}]  # the bindings in scope, one copy per open element
    names: list[tuple[str, str]] = []  # (extension kind or "", local name) of the open elements
    entries: list[Entry] = []
    state: dict[str, Any] = {"root": None, "entry": None, "field": None, "text": [],
                             "image_loc": False, "in_image": False}  # fmt: skip

    def kind_of(name: str, bindings: dict[str, str]) -> tuple[str, str]:
        prefix, _, local = name.rpartition(":")
        if prefix in bindings:
            return EXTENSIONS.get(bindings[prefix], ""), local
        return (prefix if prefix in EXTENSIONS.values() else ""), local

    def start(name: str, attrs: list[str]) -> None:
        bindings = dict(stack[-1])
        for i in range(0, len(attrs), 2):
            if attrs[i] == "xmlns" or attrs[i].startswith("xmlns:"):
                bindings[attrs[i][6:]] = attrs[i + 1]
        stack.append(bindings)
        kind, local = kind_of(name, bindings)
        names.append((kind, local))
        level = len(names)
        entry = state["entry"]
        if level == 1:
            state["root"] = local
        elif level == 2:
            wanted = {"urlset": "url", "sitemapindex": "sitemap"}.get(state["root"])
            state["entry"] = (
                Entry(p.CurrentLineNumber) if name.rpartition(":")[2] == wanted else None
            )
        elif entry is not None and state["field"] is None:
            if level == 3:
                if local == "lastmod":
                    state["field"], state["text"], state["depth"] = "lastmod", [], level
                elif not kind and local == "loc":
                    state["field"], state["text"], state["depth"] = "loc", [], level
                elif kind == "image" and local == "image":
                    entry.images += 1
                    state["in_image"], state["image_loc"] = True, False
                elif kind == "video" and local == "video":
                    entry.videos += 1
                elif kind == "news" and local == "news":
                    entry.news += 1
                elif kind == "xhtml" and local == "link":
                    values = dict(zip(attrs[::2], attrs[1::2], strict=True))
                    rel = values.get("rel", "").strip(SPACE).lower()
                    if rel == "alternate" and "hreflang" in values:
                        href = values.get("href", "").strip(SPACE)[: FIELD + 1]
                        entry.alternates += ((values.get("hreflang", "")[:100], href),)
            elif level == 4 and state["in_image"] and kind == "image" and local == "loc":
                state["field"], state["text"], state["depth"] = "image:loc", [], level

    def text(data: str) -> None:
        if state["field"] is not None:
            state["text"].append(data)

    def end(_name: str) -> None:
        level = len(names)
        field, entry = state["field"], state["entry"]
        if field is not None and (level == state["depth"] or field == "lastmod"):
            value = "".join(state["text"])
            if field == "loc":
                entry.loc = value.lstrip(SPACE)[: FIELD + 1].rstrip(SPACE)
            elif field == "lastmod":
                entry.lastmod = value.lstrip(SPACE)[: LASTMOD + 1]
            elif value.strip(SPACE):
                state["image_loc"] = True
            state["field"] = None
        elif level == 3 and state["in_image"]:
            if not state["image_loc"]:
                entry.images_without_loc += 1
            state["in_image"] = False
        elif level == 2 and entry is not None:
            entries.append(entry)
            state["entry"] = None
        names.pop()
        stack.pop()

    p.StartElementHandler, p.EndElementHandler, p.CharacterDataHandler = start, end, text
    try:
        p.Parse(document, True)
    except expat.ExpatError as e:
        return Reading(entries, e.lineno, state["root"])
    return Reading(entries, None, state["root"])
