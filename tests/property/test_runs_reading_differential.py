"""The deep reading with runs (deep/reading/runs.py: plain entries read a run at a time) against
the same reading without them (every entry through expat's events), over 300 seeded generated
documents aimed at the runs (support/run_documents.py), each fed whole and in random splits:
the same entries, lines, cuts, counts and outcome. The chosen cases are
tests/unit/test_deep_runs_reading.py's."""

from __future__ import annotations

import random

from support.run_documents import document, reading, splits

from sitemap_auditor.core.parser import ParsedSitemap


def test_generated_documents_read_the_same_with_runs_and_without() -> None:
    draw = random.Random(7)
    taken = parsed = 0
    for _ in range(300):
        body = document(draw)
        plain = reading([body], runs=False)
        for chunks in splits(body, draw):
            got = reading(chunks, runs=True)
            assert got[:2] == plain[:2]
            taken += got[2]
        parsed += isinstance(plain[1], ParsedSitemap)
    assert taken > 60_000  # the runs were read, not only the handlers
    assert parsed > 150
