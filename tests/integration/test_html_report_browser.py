"""The deep audit's HTML report in a real browser: headless Chromium opens it from disk with the
network off (no host resolves, anything that still leaves goes to a recording proxy) and the test
reads the page through the DOM, the DevTools protocol's network events and its screenshots."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.browser import Browser, Page, RecordingProxy, chromium_path, launch
from support.deep_documents import (
    Document,
    document,
    finding,
    heavy_document,
    hostile_document,
    large_document,
    sitemap,
    small_site,
)
from support.png import colours

from sitemap_auditor.deep.reports import html_report

CHROMIUM = chromium_path()

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="Chromium is not installed (Debian: apt-get install chromium; .ci/run installs it)",
    ),
]

# What the page is made of, as the browser built it (after its script ran).
_STRUCTURE = """JSON.stringify({
  nodes: Array.from(document.querySelectorAll("#tree-root li.node"), li => li.id),
  broken: document.querySelectorAll("#tree-root li.node.broken").length,
  groups: document.querySelectorAll("#tree-root li.group").length,
  charts: Array.from(document.querySelectorAll("svg[role=img]"), s => ({
    title: s.querySelector(":scope > title") ? s.querySelector(":scope > title").textContent : null,
    desc: s.querySelector(":scope > desc") ? s.querySelector(":scope > desc").textContent : null,
    marks: s.querySelectorAll("rect, path").length,
    width: s.getBoundingClientRect().width})),
  findings: Array.from(document.querySelectorAll("article.finding h3"), h => h.textContent),
  headings: Array.from(document.querySelectorAll("h1, h2"), h => h.textContent),
  controls: Array.from(document.querySelectorAll(".controls"), c => c.hidden),
  sortButtons: document.querySelectorAll("table.sortable th button.sort").length,
  scripts: document.scripts.length,
  loaders: document.querySelectorAll("img, iframe, object, embed, link, video, audio, source")
    .length,
  handlers: Array.from(document.querySelectorAll("*")).filter(
    e => Array.from(e.attributes).some(a => a.name.startsWith("on"))).length,
  title: document.title,
  background: getComputedStyle(document.documentElement).backgroundColor,
  violations: window.__violations,
  alerts: window.__alerts,
  overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth
})"""


def _fail_site() -> Document:
    base = "https://fail.example"
    maps = [
        sitemap(f"{base}/sitemap.xml", type="html", findings=(1, 0, 0)),
        sitemap(f"{base}/news.xml", http_status=503, source="robots", findings=(1, 0, 0)),
        # Guessed, and read as the sitemap its redirect leads to (docs/deep.md, `redirect`).
        sitemap(f"{base}/sitemap_index.xml", type="redirect", source="fallback"),
    ]
    maps[-1]["finalUrl"] = f"{base}/sitemap.xml"
    found = [
        finding("sitemap-is-html", "error", "Sitemap is HTML", f"{base}/sitemap.xml"),
        finding("blocked", "error", "Couldn't fetch", f"{base}/news.xml"),
    ]
    return document(maps, found, site=base, status="FAIL", message="not well-formed XML")


def _compared() -> Document:
    """The small site compared with an earlier audit of it (`deep --compare`), long URLs and
    all: one finding resolved, one new, one count changed, every sitemap's URL count moved."""
    from sitemap_auditor.deep.compare import compare

    now = small_site()
    before = json.loads(json.dumps(now))
    gone = {**before["findings"][0], "kind": "compression-error", "count": 1}
    before["findings"] = [*before["findings"][1:], gone]
    before["findings"][0] = {**before["findings"][0], "count": before["findings"][0]["count"] + 9}
    for s in before["sitemaps"]:
        s["entries"] = (s["entries"] or 0) + 12_345
        s["url"] = s["url"] + "?long=" + "x" * 150 if s["parent"] else s["url"]
    now["comparison"] = compare(before, now)
    return now


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Document, Path]]:
    folder = tmp_path_factory.mktemp("reports")
    made: dict[str, tuple[Document, Path]] = {}
    empty = document([], [], status="FAIL", message="No sitemap", robots_status=404)
    for name, doc in (
        ("small", small_site()),
        ("hostile", hostile_document()),
        ("fail", _fail_site()),
        ("empty", empty),
        ("large", large_document()),
        ("heavy", heavy_document()),
        ("compared", _compared()),
    ):
        path = folder / f"{name}.html"
        path.write_text(html_report.render(doc), encoding="utf-8")
        made[name] = (doc, path)
    return made


@pytest.fixture(scope="module")
def browser() -> Iterator[tuple[Browser, RecordingProxy]]:
    assert CHROMIUM is not None
    with launch(CHROMIUM) as started:
        yield started


def _open(
    browser: tuple[Browser, RecordingProxy], path: Path, width: int = 1280, dark: bool = False
) -> tuple[Page, float, dict[str, Any]]:
    page = browser[0].page()
    page.view(width, 900, dark)
    seconds = page.load(path)
    return page, seconds, json.loads(page.evaluate(_STRUCTURE))


def _asked_for_nothing(page: Page, proxy: RecordingProxy, path: Path, dom: dict[str, Any]) -> None:
    assert set(page.requests) == {path.resolve().as_uri()}
    assert proxy.requests == []
    assert dom["violations"] == [] and dom["alerts"] == []
    assert dom["scripts"] == 1 and dom["loaders"] == 0 and dom["handlers"] == 0


def _not_blank(png: bytes) -> bytes:
    """The screenshot's most common colour, after checking that it is far from the only one."""
    counts = colours(png)
    total = sum(counts.values())
    common, most = counts.most_common(1)[0]
    assert len(counts) > 50, len(counts)
    assert most / total < 0.97, most / total
    return common


@pytest.mark.parametrize(
    ("width", "dark"), [(1280, False), (1280, True), (420, False), (420, True)]
)
def test_the_small_site_report_shows_its_tree_charts_and_findings_and_asks_for_nothing(
    browser: tuple[Browser, RecordingProxy],
    reports: dict[str, tuple[Document, Path]],
    width: int,
    dark: bool,
) -> None:
    doc, path = reports["small"]
    page, _, dom = _open(browser, path, width, dark)
    _asked_for_nothing(page, browser[1], path, dom)
    assert dom["title"] == "Sitemap audit: https://www.example.com (SUCCESS)"
    assert dom["headings"][1:] == ["At a glance", "Charts", "Findings", "Sitemaps"]
    assert dom["nodes"] == [f"s-{i}" for i in (0, 1, 3, 2)]  # broken first
    assert dom["broken"] == 3  # with an error or a warning
    titles = [c["title"] for c in dom["charts"]]
    assert titles[:3] == [
        "Lastmod dates of all URL entries",
        "Findings by kind",
        "Entries per file",
    ]
    assert all(c["desc"] and c["marks"] > 0 and c["width"] > 100 for c in dom["charts"])
    for f in doc["findings"]:
        assert any(f["title"] in heading for heading in dom["findings"])
    # The script ran: the controls it enables are shown and the table headers sort.
    assert dom["controls"] == [False, False] and dom["sortButtons"] == 6
    assert dom["overflow"] <= 0  # nothing wider than the window, even at 420 px
    common = _not_blank(page.screenshot(scale=0.5))
    dark_background = sum(common) < 3 * 80
    assert dark_background is dark, (common, dom["background"])


def test_sorting_filtering_and_printing_work_in_the_page(
    browser: tuple[Browser, RecordingProxy], reports: dict[str, tuple[Document, Path]]
) -> None:
    _, path = reports["small"]
    page, _, _ = _open(browser, path)
    rows = (
        "Array.from(document.querySelectorAll('#findings-table tbody tr'),"
        " r => r.cells[4].textContent)"
    )
    assert page.evaluate(rows) == ["3", "1", "60", "2", "4"]
    page.evaluate("document.querySelectorAll('#findings-table th button')[4].click()")
    assert page.evaluate(rows) == ["1", "2", "3", "4", "60"]
    visible = (
        "Array.from(document.querySelectorAll('#tree-root li.node'))"
        ".filter(li => !li.hidden).length"
    )
    page.evaluate(
        "(() => { const q = document.getElementById('tree-q'); q.value = 'old.xml';"
        " q.dispatchEvent(new Event('input')); })()"
    )
    assert page.evaluate(visible) == 2  # the file and the index above it
    page.evaluate(
        "(() => { const q = document.getElementById('tree-q'); q.value = '';"
        " q.dispatchEvent(new Event('input')); document.getElementById('tree-bad').click(); })()"
    )
    assert page.evaluate(visible) == 4  # the index holds all three
    # Printing opens every file and hides the controls.
    page.evaluate("dispatchEvent(new Event('beforeprint'))")
    assert page.evaluate("document.querySelectorAll('details:not([open])').length") == 0
    page.evaluate("dispatchEvent(new Event('afterprint'))")
    assert page.evaluate("document.querySelectorAll('details:not([open])').length") > 0
    dark = [{"name": "prefers-color-scheme", "value": "dark"}]
    page.call("Emulation.setEmulatedMedia", {"media": "print", "features": dark})
    assert page.evaluate("getComputedStyle(document.querySelector('.controls')).display") == "none"
    # Printed on white even from a dark screen.
    background = "getComputedStyle(document.documentElement).backgroundColor"
    assert page.evaluate(background) == "rgb(255, 255, 255)"
    page.call("Emulation.setEmulatedMedia", {"media": "screen", "features": dark})
    assert page.evaluate(background) != "rgb(255, 255, 255)"
    # A link to a finding opens the file it is in.
    page.call("Emulation.setEmulatedMedia", {"media": ""})
    page.evaluate("location.hash = '#s-1'")
    assert page.evaluate("document.querySelector('#s-1 > details').open") is True


@pytest.mark.parametrize("width", [1280, 420])
def test_a_hostile_report_runs_nothing_of_the_site_and_asks_for_nothing(
    browser: tuple[Browser, RecordingProxy], reports: dict[str, tuple[Document, Path]], width: int
) -> None:
    _, path = reports["hostile"]
    page, _, dom = _open(browser, path, width)
    _asked_for_nothing(page, browser[1], path, dom)
    text = page.evaluate("document.body.innerText")
    assert "<script>alert(1)</script>" in text
    assert dom["overflow"] <= 0
    _not_blank(page.screenshot(scale=0.5))


@pytest.mark.parametrize("width", [1280, 420])
def test_the_heaviest_report_opens_fast_and_stays_within_the_window(
    browser: tuple[Browser, RecordingProxy], reports: dict[str, tuple[Document, Path]], width: int
) -> None:
    _, path = reports["heavy"]
    page, seconds, dom = _open(browser, path, width)
    _asked_for_nothing(page, browser[1], path, dom)
    assert seconds < 2, seconds
    assert dom["overflow"] <= 0  # unbroken strings wrap instead of widening the page


@pytest.mark.parametrize("name", ["fail", "empty"])
def test_failing_and_empty_sites_render_their_verdict(
    browser: tuple[Browser, RecordingProxy], reports: dict[str, tuple[Document, Path]], name: str
) -> None:
    doc, path = reports[name]
    page, _, dom = _open(browser, path)
    _asked_for_nothing(page, browser[1], path, dom)
    assert page.evaluate("document.querySelector('.verdict').className") == "verdict v-err"
    assert len(dom["nodes"]) == len(doc["sitemaps"])
    assert len(dom["findings"]) == len(doc["findings"])
    _not_blank(page.screenshot(scale=0.5))
    if name == "fail":  # a redirect's pill, at a phone's width too
        assert "Redirects to a listed sitemap" in page.evaluate("document.body.innerText")
        _, _, narrow = _open(browser, path, 420)
        assert narrow["overflow"] <= 0


def test_the_report_of_fifty_thousand_sitemaps_opens_in_under_two_seconds(
    browser: tuple[Browser, RecordingProxy], reports: dict[str, tuple[Document, Path]]
) -> None:
    _, path = reports["large"]
    size = path.stat().st_size
    page, seconds, dom = _open(browser, path)
    painted = page.evaluate(
        "Math.max(performance.getEntriesByType('navigation')[0].loadEventEnd,"
        " ...performance.getEntriesByType('paint').map(p => p.startTime)) / 1000"
    )
    print(f"\n50,000-sitemap report: {size:,} bytes, load {seconds:.2f} s, painted {painted:.2f} s")
    assert size < 3_000_000
    assert seconds < 2 and painted < 2, (seconds, painted)
    _asked_for_nothing(page, browser[1], path, dom)
    assert len(dom["nodes"]) == html_report.MAX_FILES_LISTED and dom["groups"] > 0
    assert len(dom["charts"]) >= 3
    _not_blank(page.screenshot(scale=0.5))


def test_without_javascript_everything_but_the_controls_is_there(
    browser: tuple[Browser, RecordingProxy], reports: dict[str, tuple[Document, Path]]
) -> None:
    doc, path = reports["small"]
    page = browser[0].page()
    page.call("Emulation.setScriptExecutionDisabled", {"value": True})
    page.view(1280)
    page.load(path)
    page.call("Emulation.setScriptExecutionDisabled", {"value": False})
    # The page's own script did not run (the DevTools evaluation below is not the page's).
    assert page.evaluate("document.querySelectorAll('th button.sort').length") == 0
    assert page.evaluate("Array.from(document.querySelectorAll('.controls'), c => c.hidden)") == [
        True,
        True,
    ]
    nodes = page.evaluate("document.querySelectorAll('#tree-root li.node').length")
    assert nodes == len(doc["sitemaps"])
    text = page.evaluate("document.body.innerText")
    for f in doc["findings"]:
        assert f["title"] in text
    assert page.evaluate("document.querySelectorAll('svg[role=img] > title').length") == 6
    _not_blank(page.screenshot(scale=0.5))


@pytest.mark.parametrize("width", [1280, 420])
def test_the_comparison_is_shown_and_stays_within_the_window(
    browser: tuple[Browser, RecordingProxy],
    reports: dict[str, tuple[Document, Path]],
    width: int,
) -> None:
    doc, path = reports["compared"]
    page, _, dom = _open(browser, path, width)
    _asked_for_nothing(page, browser[1], path, dom)
    assert "What changed" in dom["headings"]
    counts = doc["comparison"]["counts"]
    assert counts["new"] and counts["resolved"] and counts["sitemapsChanged"]
    assert dom["overflow"] <= 0  # long URLs wrap, tables scroll within their box


# Each chart's texts as drawn: their boxes (to find two that overlap) and their rendered height.
_CHART_TEXTS = """JSON.stringify(Array.from(document.querySelectorAll("svg[role=img]"), s => ({
  title: s.querySelector(":scope > title") ? s.querySelector(":scope > title").textContent : "",
  texts: Array.from(s.querySelectorAll("text"), t => {
    const r = t.getBoundingClientRect();
    return {text: t.textContent, x: r.left, y: r.top, w: r.width, h: r.height};
  }).filter(t => t.w > 0 && t.h > 0)
})))"""


def _overlaps(texts: list[dict[str, Any]]) -> list[tuple[str, str]]:
    found = []
    for i, a in enumerate(texts):
        for b in texts[i + 1 :]:
            wide = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"])
            tall = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
            if wide > 1 and tall > 1:
                found.append((a["text"], b["text"]))
    return found


def _many_years() -> Document:
    """Files of very different sizes, dates over twelve years: the charts' hard case."""
    base = "https://www.example.com"
    maps = [
        sitemap(
            f"{base}/sitemap-{i}.xml",
            entries=n,
            by_month={f"{2014 + y}-{m:02d}": n // 144 + 1 for y in range(12) for m in range(1, 13)},
        )
        for i, n in enumerate((48_000, 2_000, 300, 12, 7, 1))
    ]
    return document(maps, [], site=base)


@pytest.mark.parametrize("width", [1280, 420])
@pytest.mark.parametrize("name", ["small", "years"])
def test_every_chart_is_legible_at_phone_and_desktop_widths(
    browser: tuple[Browser, RecordingProxy],
    reports: dict[str, tuple[Document, Path]],
    tmp_path: Path,
    name: str,
    width: int,
) -> None:
    if name == "years":
        path = tmp_path / "years.html"
        path.write_text(html_report.render(_many_years()), encoding="utf-8")
    else:
        path = reports[name][1]
    page, _, dom = _open(browser, path, width)
    assert dom["overflow"] <= 0
    drawn = json.loads(page.evaluate(_CHART_TEXTS))
    assert drawn
    for chart in drawn:
        assert _overlaps(chart["texts"]) == [], chart["title"]
        small = [t["text"] for t in chart["texts"] if t["h"] < 11]
        assert small == [], (chart["title"], small)
