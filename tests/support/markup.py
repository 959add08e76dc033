"""The deep audit's HTML report as a browser's tokenizer reads it: its elements, attributes,
text and nesting, checked well formed (what the report tests read a page with)."""

from __future__ import annotations

from html.parser import HTMLParser

__all__ = ["ATTRIBUTES", "ELEMENTS", "Markup", "check_well_formed"]

_VOID = {"meta", "input", "br", "img", "link", "hr", "source", "wbr"}
# Every element the report writes; an injection would add another.
ELEMENTS = {
    "html", "head", "meta", "title", "style", "body", "a", "header", "p", "h1", "h2", "h3",
    "nav", "ul", "li", "main", "section", "div", "dl", "dt", "dd", "strong", "code", "details",
    "summary", "table", "caption", "thead", "tbody", "tr", "th", "td", "span", "label", "input",
    "button", "article", "figure", "figcaption", "svg", "desc", "rect", "text", "line", "path",
    "g", "footer", "script",
}  # fmt: skip
ATTRIBUTES = {
    "lang", "charset", "http-equiv", "content", "name", "href", "rel", "referrerpolicy", "class",
    "id", "hidden", "type", "data-filter", "data-cards", "autocomplete", "scope", "data-num",
    "data-v", "aria-label", "aria-labelledby", "role", "open", "viewbox", "preserveaspectratio",
    "x", "y", "x1", "x2", "y1", "y2", "width", "height", "d", "text-anchor",
}  # fmt: skip


class Markup(HTMLParser):
    """The page as a browser's tokenizer reads it: elements, attributes, text, nesting."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.deepest = 0
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.scripts: list[str] = []
        self.errors: list[str] = []
        self.feed(page)
        self.close()
        if self.stack:
            self.errors.append(f"left open: {self.stack}")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))
        if tag not in _VOID:
            self.stack.append(tag)
            self.deepest = max(self.deepest, len(self.stack))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:]}")
            return
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        if self.stack and self.stack[-1] == "script":
            self.scripts.append(data)
        else:
            self.text.append(data)

    def all(self, tag: str, **attrs: str) -> list[dict[str, str | None]]:
        return [
            a
            for t, a in self.elements
            if t == tag and all(a.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]

    def classed(self, tag: str, css: str) -> list[dict[str, str | None]]:
        return [a for t, a in self.elements if t == tag and css in (a.get("class") or "").split()]


def check_well_formed(page: str) -> Markup:
    markup = Markup(page)
    assert markup.errors == []
    assert page.startswith('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">')
    page.encode("utf-8")  # no lone surrogate can reach the file
    return markup
