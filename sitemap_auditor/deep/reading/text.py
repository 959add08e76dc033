"""The reading of a plain-text sitemap (one URL a line), fed chunk by chunk: lines as XML counts
them (CR LF, CR and LF each end one), each cut at a bound of bytes and of characters, the cut
marked, and the lines that are not UTF-8 (which a text sitemap must be) told."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from sitemap_auditor.core.text import CUT_MARK, clip
from sitemap_auditor.deep.reading.entries import MAX_FIELD_CHARS

__all__ = ["text_lines"]

_TEXT_BREAKS = re.compile(rb"\r\n|\r|\n")


# The bytes of a text sitemap's line kept at most: enough for MAX_FIELD_CHARS + 1 characters of
# 4 bytes each, so that a line cut here is longer than `clip` keeps, and shows its mark.
_MAX_TEXT_LINE_BYTES = 4 * (MAX_FIELD_CHARS + 1)


def _line_text(raw: bytes, cut: bool, number: int, not_utf8: Callable[[int], None] | None) -> str:
    """A line's bytes as the text a report shows: its first _MAX_TEXT_LINE_BYTES (whether it
    came in one chunk or several), trimmed, at most MAX_FIELD_CHARS characters, and ending with
    the mark when it was cut (`cut`: before its bytes came here), however short it is once
    trimmed; not_utf8(number) when they are not UTF-8 (but for a character the cut split)."""
    if len(raw) > _MAX_TEXT_LINE_BYTES:
        raw, cut = raw[:_MAX_TEXT_LINE_BYTES], True
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        if not_utf8 is not None and not (cut and e.start >= len(raw) - 3):
            not_utf8(number)
        text = raw.decode("utf-8", "replace")
    text = text.strip()
    if cut and text:
        return text[: MAX_FIELD_CHARS - 1] + CUT_MARK
    return clip(text, MAX_FIELD_CHARS)


def text_lines(
    chunks: Iterable[bytes], not_utf8: Callable[[int], None] | None = None
) -> Iterator[tuple[int, str]]:
    """The non-blank lines of a text sitemap, numbered, each cut to 4,096 characters (a cut
    line ends with the mark); not_utf8(number) for each line that is not UTF-8 (a text
    sitemap must be), read with U+FFFD in place of its wrong bytes."""
    number = 0
    rest_cut = False  # the line in `rest` was cut at _MAX_TEXT_LINE_BYTES
    rest = b""
    first = True
    dropping = False  # the end of a line too long is being skipped, up to its break
    for chunk in chunks:
        if dropping:
            breaks = _TEXT_BREAKS.search(chunk)
            if breaks is None:
                continue
            chunk, dropping = chunk[breaks.start() :], False
        data = rest + chunk
        if first:
            if len(data) < 3:
                rest = data
                continue
            data, first = data.removeprefix(b"\xef\xbb\xbf"), False  # a UTF-8 byte order mark
        # CR LF, CR and LF each end a line, as XML counts them; a CR that ends the chunk is
        # held back, as the next may begin with the LF that makes one break of the two.
        held = data.endswith(b"\r")
        lines = _TEXT_BREAKS.split(data[:-1] if held else data)
        # The line `rest` held goes on as the first of these: it ends here when a break follows.
        first_cut = rest_cut
        if len(lines) > 1:
            rest_cut = False
        rest = lines.pop()
        if len(rest) > _MAX_TEXT_LINE_BYTES:
            # A line that never ends is cut; the rest of it is dropped, up to its break.
            rest, dropping, rest_cut = rest[:_MAX_TEXT_LINE_BYTES], not held, True
        if held:
            rest += b"\r"
        for i, raw in enumerate(lines):
            number += 1
            text = _line_text(raw, first_cut and i == 0, number, not_utf8)
            if text:
                yield number, text
    if rest:
        text = _line_text(rest, rest_cut, number + 1, not_utf8)
        if text:
            yield number + 1, text
