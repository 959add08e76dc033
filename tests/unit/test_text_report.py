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
