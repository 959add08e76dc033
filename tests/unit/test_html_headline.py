"""The HTML report's headline is the deep audit's own outcome; the Lambda's freshness verdict is
one fact among the others."""

from __future__ import annotations

import re
from typing import Any

from support.deep_documents import document, finding, sitemap

from sitemap_auditor.deep.reports.html_report import render

BASE = "https://www.example.com"


def _headline(page: str) -> tuple[str, str]:
    found = re.search(r'<div class="verdict v-(\w+)">.*?<p class="vstatus">(.*?)</p>', page)
    assert found, page[:2000]
    return found.group(1), found.group(2)


def test_a_clean_index_with_a_stale_verdict_is_headed_by_no_errors() -> None:
    # WordPress core's normal index: nothing wrong in the files, but its dates are old, so the
    # Lambda's verdict is WARNING. The headline says what the deep audit found.
    maps = [sitemap(f"{BASE}/wp-sitemap.xml", type="sitemapindex", entries=3)]
    stale = "The latest <lastmod> is 1,710 days old."
    page = render(document(maps, [], status="WARNING", message=stale))
    assert _headline(page) == ("ok", "No errors or warnings")
    facts = page.split('<dl class="facts">', 1)[1].split("</dl>", 1)[0]
    assert "<dt>Freshness</dt>" in facts and ">Warning<" in facts
    assert "1,710 days old" in facts


def test_errors_head_the_page_with_the_worst_finding() -> None:
    url = f"{BASE}/sitemap.xml"
    found = [
        finding("invalid-date", "error", "Invalid date", url, count=4),
        finding("sitemap-is-html", "error", "Sitemap is HTML", url, impact="file-unread"),
        finding("future-lastmod", "warning", "Future date", url, count=2),
    ]
    maps = [sitemap(url, entries=10, findings=(2, 1, 0))]
    page = render(document(maps, found, status="SUCCESS", message="The sitemap is fresh."))
    assert _headline(page) == ("err", "2 errors and 1 warning")
    worst = page.split('class="worst">Worst finding: ', 1)[1][:200]
    assert "Sitemap is HTML" in worst  # by impact, not by count
    assert page.index("The sitemap is fresh.") > page.index('class="vstatus"')


def test_no_sitemap_heads_the_page_as_such() -> None:
    page = render(document([], [], status="FAIL", message="No sitemap", robots_status=404))
    assert _headline(page) == ("err", "No sitemap found")


def test_listed_pages_that_fail_head_the_page_as_the_exit_status_counts_them() -> None:
    url = f"{BASE}/sitemap.xml"
    doc: dict[str, Any] = {**document([sitemap(url, entries=2)], [])}
    doc["pages"] = {
        "checked": 2,
        "indexable": 0,
        "internalErrors": 0,
        "findings": [
            {
                "kind": "page-redirect",
                "severity": "warning",
                "title": "Page with redirect",
                "count": 1,
                "examples": [],
            },
            {
                "kind": "page-not-found",
                "severity": "error",
                "title": "Not found (404)",
                "count": 1,
                "examples": [],
            },
        ],
    }
    page = render(doc)
    assert _headline(page) == (
        "err",
        "1 listed page with errors and 1 listed page with warnings",
    )
    assert 'Worst finding: <a href="#pages">Not found (404)</a> (1 listed page)' in page
    # Three parts or more read as a list: "1 error and 2 warnings and 1 listed page ..." did not.
    found = [finding("invalid-date", "error", "Invalid date", url, count=4)]
    three = {
        **document([sitemap(url, entries=2, findings=(1, 0, 0))], found),
        "pages": doc["pages"],
    }
    assert _headline(render(three))[1] == (
        "1 error, 1 listed page with errors and 1 listed page with warnings"
    )
    assert "found in every sitemap and the pages checked" in page
    # A finding of no page (an odd document) says nothing; clean pages leave a clean headline.
    doc["pages"]["findings"] = [
        {"kind": "page-not-found", "severity": "error", "title": "Not found (404)", "count": c}
        for c in (0, None, "7", True, -3)
    ]
    assert _headline(render(doc)) == ("ok", "No errors or warnings")
    doc["pages"]["findings"] = []
    assert _headline(render(doc)) == ("ok", "No errors or warnings")


def test_the_text_reports_comparison_reads_its_counts_as_people_do() -> None:
    # "1 entries", and "URLs listed: 4555 then 51" where every other count has its commas.
    from sitemap_auditor.deep.reports import text_report

    url = f"{BASE}/sitemap.xml"
    doc: dict[str, Any] = {**document([sitemap(url, entries=1)], [])}
    doc["comparison"] = {
        "previous": {"auditedUrl": BASE + "/", "startedAt": "2026-11-01T00:00:00Z", "version": 1},
        "urlsBefore": 4555,
        "urlsAfter": 1,
        "counts": {"new": 0, "resolved": 0, "changed": 0, "sitemapsChanged": 1},
        "newFindings": [],
        "resolvedFindings": [],
        "changedFindings": [],
        "sitemaps": [{"url": url, "entriesBefore": 4555, "entriesAfter": 1}],
    }
    text = text_report.render(doc, False)
    assert "URLs listed: 4,555 then 1" in text and "4,555 entries then 1 entry" in text


def test_a_walk_stopped_early_never_heads_the_page_as_clean_or_as_sitemapless() -> None:
    from sitemap_auditor.deep.reports import text_report

    # Stopped by the time limit before robots.txt answered: nothing read, nothing checked. That
    # is no "No sitemap found" (the site may well have one), and no clean bill.
    nothing = document([], [], robots_status=None, stopped_by="max-seconds")
    page = render(nothing)
    assert _headline(page) == ("note", "Stopped before any sitemap was found")
    assert "Nothing was checked: the time limit was reached." in page
    assert "none found before the audit stopped" in text_report.render(nothing, False)
    # Interrupted after reading some of them, all clean: not the green "No errors or warnings".
    url = f"{BASE}/sitemap.xml"
    more = sitemap(f"{BASE}/more.xml", type="unfetched", http_status=None)
    maps = [sitemap(url, entries=3), more]
    some = document(maps, [], stopped_by="interrupted")
    page = render(some)
    assert _headline(page) == ("note", "No errors or warnings in what was read")
    assert "Not every sitemap was read (the audit was interrupted)" in page
    text = text_report.render(some, False)
    assert "none: every sitemap read passes every check (not every sitemap was read)" in text
    # The depth limit stops no walk but leaves files unread: said so, not "stopped early".
    deep = {**document(maps, []), "complete": False}
    assert "Not every sitemap was read (a limit left some unread)" in render(deep)
    # A complete walk keeps its words.
    assert _headline(render(document([], [], robots_status=404))) == ("err", "No sitemap found")
