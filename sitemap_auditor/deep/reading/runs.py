"""A run of plain `<url>` entries read at once: the reading's one fast path.

Most sitemaps are runs of entries written the same plain way: `<url>`, a `<loc>`, perhaps a
`<lastmod>`, `<changefreq>` and `<priority>`, in the protocol's order, no attribute, comment,
entity or extension. For such a run, expat's events give nothing a pattern cannot: the reading
(entries.py) lets expat check the run's bytes with no handler (it still finds every error in
them, and bounds them as ever) and takes the entries from `PLAIN_ENTRY` instead, a run at a time.

The rule it shortcuts is the reading of entries.py's handlers, one event at a time. A run is
taken only where the two cannot differ:

- it starts right after an entry's `</url>` end tag, as written, with nothing after it given to
  expat yet (the reading's state is then "between entries" and expat holds nothing);
- the document is a `<urlset>`, in UTF-8, whose default namespace is no extension's (so that
  `loc` and `lastmod` are the sitemap's own, as `_Namespaces.kind_of` reads them);
- its text holds only characters XML allows, and none that expat hands on changed: no `&`
  (a reference), no carriage return (expat reads it as a line feed), no `]]>` (an error);
- its bytes are UTF-8 up to its end (a slice that ends inside a character ends the run before
  it).

Everything else (an entry of another shape, an error, a namespace) is read by the handlers, and
the next run starts after that entry's end. tests/property/test_deep_reading_differential.py
holds the two readings equal, against an independent one, over every real file of the corpora
and generated documents aimed at both; tests/property/test_runs_reading_differential.py (over
generated documents) and tests/unit/test_deep_runs_reading.py (on chosen cases) hold the reading
with runs to the reading without them.
"""

from __future__ import annotations

import itertools
import operator
import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["PLAIN_ENTRY", "Run", "read_run"]

# XML white space between elements; inside text, no carriage return (see the module's note).
# Every repetition is possessive (Python 3.11): what it takes, nothing after it could take, so
# the pattern never backtracks.
_BETWEEN = r"[ \t\r\n]*+"
_SPACE = r"[ \t\n]*+"
# A character of text that expat hands on as written: what XML allows, but "<", "&" and CR
# (tab, line feed, then from space on, less "&", "<", U+FFFE and U+FFFF; written as ranges, which
# the pattern tests twice as fast as the same set negated).
_CHAR = r"[\t\n -%'-;=-\ufffd\U00010000-\U0010ffff]"
_XML_SPACE = " \t\n"  # in a run's text (no CR)

# Groups: the white space before <url>, the entry from <url> on, its <loc> (trimmed afterwards,
# by str.strip: a pattern that trims works through every word of a text that has many), its
# <lastmod> element (empty: none) and that element's text less its leading white space, as the
# handlers keep them before their cuts; the last alternative, anything else, takes the rest of
# the text, so that the entries `findall` gives are the run the text starts with, one after the
# other.
PLAIN_ENTRY = re.compile(
    rf"({_BETWEEN})(<url>{_BETWEEN}"
    rf"<loc>({_CHAR}*+)</loc>{_BETWEEN}"
    rf"(<lastmod>{_SPACE}({_CHAR}*+)</lastmod>{_BETWEEN})?"
    rf"(?:<changefreq>{_CHAR}*+</changefreq>{_BETWEEN})?"
    rf"(?:<priority>{_CHAR}*+</priority>{_BETWEEN})?"
    r"</url>)|([\s\S]+)"
)


@dataclass(frozen=True, slots=True)
class Run:
    """The entries of one run, as the handlers would give them, and where the run ends."""

    end: int = 0  # in the text read: the run's last `</url>` ends here (0: no run)
    line: int = 0  # the line that end is on
    lines: Sequence[int] = ()
    locs: Sequence[str] = ()
    lastmods: Sequence[str | None] = ()


def _breaks(text: str) -> int:
    """Line breaks in text as XML counts them: CR LF, CR and LF, one each."""
    return text.count("\n") + text.count("\r") - text.count("\r\n")


def _lines(
    text: str, end: int, line: int, spaces: tuple[str, ...], entries: tuple[str, ...]
) -> tuple[Sequence[int], int]:
    """The line of each entry's <url> (text[:end] is the run; line: the line it starts on), and
    the line the run ends on."""
    feeds = text.count("\n", 0, end)
    crs = text.count("\r", 0, end)
    if not feeds and not crs:
        return [line] * len(spaces), line
    if crs == text.count("\r\n", 0, end):
        # No lone CR: the line feeds are the breaks. The white space before each entry is
        # mostly one of a few strings: each is counted once.
        counted = {space: space.count("\n") for space in set(spaces)}
        before = list(map(counted.__getitem__, spaces))
        if sum(before) == feeds:  # none within the entries
            lines = list(itertools.accumulate(before, initial=line))
            del lines[0]
            return lines, lines[-1]
        within = list(map(str.count, entries, itertools.repeat("\n")))
    else:
        before, within = list(map(_breaks, spaces)), list(map(_breaks, entries))
    # The line of each <url>: the breaks before it, and those within the entries before.
    upto = itertools.accumulate(map(operator.add, before, [0, *within[:-1]]), initial=line)
    lines = list(itertools.islice(upto, 1, None))
    return lines, lines[-1] + within[-1]


def read_run(text: str, line: int, max_loc: int, max_lastmod: int) -> Run:
    """The plain entries text starts with, one after the other; line: the line text starts on.

    max_loc and max_lastmod: the characters kept of a <loc> and of a <lastmod>, past which the
    handlers cut them (a <loc> then loses the white space its cut leaves at its end)."""
    found = PLAIN_ENTRY.findall(text)
    rest = found.pop()[5] if found and found[-1][5] else ""
    if not found:
        return Run(line=line)
    end = len(text) - len(rest)
    if text.find("]]>", 0, end) >= 0:
        return Run(line=line)  # an error expat reports: the handlers read up to it
    spaces, entries, loc_texts, elements, values, _ = zip(*found, strict=True)
    lines, last = _lines(text, end, line, spaces, entries)
    locs: Sequence[str] = list(map(str.strip, loc_texts, itertools.repeat(_XML_SPACE)))
    if max(map(len, locs)) > max_loc:
        locs = [v if len(v) <= max_loc else v[:max_loc].rstrip(_XML_SPACE) for v in locs]
    lastmods: Sequence[str | None] = values
    if not all(elements):
        lastmods = [v if e else None for e, v in zip(elements, values, strict=True)]
    if max(map(len, values)) > max_lastmod:
        lastmods = [v if v is None or len(v) <= max_lastmod else v[:max_lastmod] for v in lastmods]
    return Run(end, last, lines, locs, lastmods)
