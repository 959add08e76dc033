"""bench/RESULTS.md is written in sections, one per benchmark script, each between its markers."""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def write_section(text: str, begin: str, end: str, results: Path = RESULTS) -> None:
    """Put the section (which starts with `begin` and ends with `end`) in place of the old one,
    or at the end of the file the first time."""
    current = results.read_text(encoding="utf-8") if results.exists() else ""
    if begin in current and end in current:
        head, rest = current.split(begin, 1)
        tail = rest.split(end, 1)[1].lstrip("\n")
        new = head + text + ("\n" + tail if tail else "")
    else:
        new = current.rstrip("\n") + "\n\n" + text
    results.write_text(new, encoding="utf-8")
