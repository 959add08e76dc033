"""The deep audit's HTML report at its scale: 50,000 sitemaps, and the heaviest strings at every
cap, still a page of a few megabytes (pure, but seconds each: beside the tests/unit layer)."""

from __future__ import annotations

import time

from support.deep_documents import Document, heavy_document, large_document
from support.markup import check_well_formed

from sitemap_auditor.deep.reports import html_report
from sitemap_auditor.deep.reports.html_report import render


def test_fifty_thousand_sitemaps_make_a_page_of_a_few_megabytes_that_says_what_it_left_out() -> (
    None
):
    doc: Document = large_document()
    assert len(doc["sitemaps"]) == 50_000 and doc["totals"]["urls"] == 10_000_000
    started = time.perf_counter()
    page = render(doc)
    seconds = time.perf_counter() - started
    size = len(page.encode())
    assert size < 3_000_000, size
    assert seconds < 30, seconds
    markup = check_well_formed(page)
    text = " ".join(markup.text)
    assert len(markup.classed("li", "node")) == html_report.MAX_FILES_LISTED
    assert "49,000 of 50,000 files are summed up under the index that lists them" in text
    assert "findings are counted but not listed with their examples" in text
    # Every broken file listed is one with an error, and the indexes say what they hold.
    broken = len([a for a in markup.classed("li", "broken") if "node" in (a["class"] or "")])
    assert broken >= html_report.MAX_BROKEN_LISTED
    assert f"{1020 - broken:,} of them have errors or warnings, past the {broken:,} listed" in text
    assert "1,020 files with errors or warnings inside" in text
    groups = markup.classed("li", "group")
    assert groups and "Not listed one by one." in text
    assert "10,000,000" in text


def test_the_heaviest_strings_at_every_cap_still_make_a_page_of_a_few_megabytes() -> None:
    doc = heavy_document()
    started = time.perf_counter()
    page = render(doc)
    seconds = time.perf_counter() - started
    size = len(page.encode())
    assert size < 5_000_000, size
    assert seconds < 30, seconds
    markup = check_well_formed(page)
    text = " ".join(markup.text)
    assert "more kinds of finding" in text and "shown by their one line" in text
    # Every in-page link still has its target.
    ids = {a["id"] for _, a in markup.elements if a.get("id")}
    for a in markup.all("a"):
        href = a["href"] or ""
        assert not href.startswith("#") or href[1:] in ids, href
