"""The deep audit's readable report on a terminal: a finding's sentences wrapped to its width at
spaces, indented as their first line, every word kept; a line each for a file or a pipe."""

from __future__ import annotations

import re

import pytest
from support.deep_documents import small_site

from sitemap_auditor.deep.reports import text_report

# The lines a finding's sentences make: its message, examples and fix (6 spaces or more).
_SENTENCE = re.compile(r"^ {6}")


@pytest.mark.parametrize("width", [40, 60, 80])
def test_a_findings_sentences_are_wrapped_to_the_terminal_and_keep_every_word(width: int) -> None:
    doc = small_site()
    whole = text_report.render(doc)
    wrapped = text_report.render(doc, width=width)
    long = [line for line in whole.splitlines() if _SENTENCE.match(line) and len(line) > width]
    assert long or width == 80
    for line in wrapped.splitlines():
        if _SENTENCE.match(line) and len(line) > width:
            assert " " not in line.strip(), line  # a word longer than the line: a URL, whole
    assert wrapped.split() == whole.split()


def test_a_pipe_gets_a_line_each() -> None:
    doc = small_site()
    assert text_report.render(doc, width=None) == text_report.render(doc)
    messages = [f["message"] for f in doc["findings"]]
    lines = text_report.render(doc).splitlines()
    assert all(f"      {m}" in lines for m in messages)


def test_wide_characters_take_two_columns() -> None:
    # A Japanese example counted a column a character ran 30 columns past the terminal.
    doc = small_site()
    finding = doc["findings"][0]
    finding["message"] = " ".join(["サイトマップの日付"] * 12)  # 9 wide characters a word
    wrapped = text_report.render(doc, width=60)
    lines = [x for x in wrapped.splitlines() if "サイトマップ" in x]
    assert len(lines) >= 4
    for line in lines:
        columns = sum(2 if ord(c) > 0x2E80 else 1 for c in line)
        assert columns <= 60, line


def test_the_pages_part_is_wrapped_too() -> None:
    message = "A listed page answers 404 Not Found: search engines drop it " * 3
    pages = {
        "checked": 10,
        "indexable": 8,
        "internalErrors": 0,
        "sampled": False,
        "stoppedBy": None,
        "findings": [
            {
                "kind": "page-not-found",
                "severity": "error",
                "message": message.strip(),
                "share": 0.2,
                "urls": 2,
                "examples": [],
            }
        ],
    }
    whole = text_report.pages_text(pages)
    wrapped = text_report.pages_text(pages, width=70)
    assert max(len(x) for x in whole.splitlines()) > 70
    assert max(len(x) for x in wrapped.splitlines()) <= 70
    assert wrapped.split() == whole.split()
