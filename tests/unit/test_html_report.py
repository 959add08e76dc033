"""The deep audit's HTML report, rendered from documents built per the JSON document v1: its
structure, what it escapes, what it leaves out on a large site, and its charts' columns."""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

import pytest
from support.deep_documents import (
    HOSTILE,
    document,
    finding,
    hostile_document,
    sitemap,
    small_site,
)
from support.markup import ATTRIBUTES, ELEMENTS, Markup, check_well_formed

from sitemap_auditor.deep.reports import charts, html_assets
from sitemap_auditor.deep.reports.html_report import render


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def test_a_small_site_shows_its_verdict_tree_charts_and_every_finding() -> None:
    doc = small_site()
    page = render(doc)
    markup = check_well_formed(page)
    text = " ".join(markup.text)
    assert "Sitemap audit: https://www.example.com (SUCCESS)" in text
    assert "The sitemap is fresh." in text
    # The tree: every file once, with its facts; the index holds its three files.
    nodes = markup.classed("li", "node")
    assert len(nodes) == len(doc["sitemaps"]) == 4
    for s in doc["sitemaps"]:
        assert s["url"] in text
    # Broken first: the index's files in the order errors, errors, warnings.
    order = [page.index(f">{s['url']}<") for s in doc["sitemaps"][1:]]
    posts, pages, old = order
    assert posts < old < pages
    # Every finding: its title as a heading, its meaning, what to do and its examples.
    for f in doc["findings"]:
        assert f["title"] in text and f["fix"] in text and f["message"] in text
        for example in f["examples"]:
            assert example["value"] in text
    assert len(markup.classed("article", "finding")) == len(doc["findings"])
    # A finding links to its file in the tree, and the file to its findings.
    assert any(a.get("href") == "#s-1" for a in markup.all("a"))
    assert any((a.get("href") or "").startswith("#f-") for a in markup.all("a"))
    # Three charts and one small chart per file with dates, each with a title and a description.
    svgs = markup.all("svg", role="img")
    assert len(markup.classed("svg", "chart")) == 3
    assert len(svgs) == 3 + 3
    for svg in svgs:
        labels = (svg["aria-labelledby"] or "").split()
        assert [markup.all("title", id=labels[0]), markup.all("desc", id=labels[1])] != [[], []]
    assert "Invalid date: 3" in text and "Identical lastmods: 60" in text
    assert "dated after the audit" in text
    # Accessible tables: every header cell has a scope.
    assert markup.all("th") and all(th.get("scope") == "col" for th in markup.all("th"))


def test_the_page_loads_nothing_and_allows_only_its_own_style_and_script() -> None:
    page = render(small_site())
    markup = check_well_formed(page)
    (csp,) = markup.all("meta", http_equiv="Content-Security-Policy")
    policy = csp["content"] or ""
    assert "default-src 'none'" in policy and "base-uri 'none'" in policy
    assert "form-action 'none'" in policy and "unsafe-inline" not in policy
    assert markup.scripts == [html_assets.SCRIPT]
    assert f"script-src 'sha256-{_sha256(html_assets.SCRIPT)}'" in policy
    assert f"style-src 'sha256-{_sha256(html_assets.STYLE)}'" in policy
    # The CSP comes before anything it governs.
    assert page.index("Content-Security-Policy") < page.index("<style>")
    for tag, attrs in markup.elements:
        assert "src" not in attrs and "srcset" not in attrs, tag
        assert "style" not in attrs, tag
    assert not re.search(r"url\(|@import", html_assets.STYLE)


def test_hostile_strings_are_text_never_markup_links_or_script() -> None:
    doc = hostile_document()
    page = render(doc)
    markup = check_well_formed(page)
    for tag, attrs in markup.elements:
        assert tag in ELEMENTS, tag
        assert set(attrs) <= ATTRIBUTES, (tag, attrs)
        for value in attrs.values():
            assert value is None or "alert" not in value, (tag, attrs)
    assert markup.scripts == [html_assets.SCRIPT]
    for a in markup.all("a"):
        href = a["href"] or ""
        assert href.startswith("#") or re.match(r"https?://[^\s\"<>]+\Z", href), href
    # The only link out is the one plain http(s) URL: one with markup in it stays text.
    external = [a["href"] for a in markup.all("a") if not (a["href"] or "").startswith("#")]
    assert set(external) == {"https://ok.example/sitemap.xml?a=1&b=2"}
    assert '"><script>alert(11)' not in page and "&lt;script&gt;alert(11)" in page
    text = "".join(markup.text)
    # Shown as text, with the characters a browser would act on replaced.
    assert "<script>alert(1)</script>" in text and "]]><![CDATA[<svg onload=alert(4)>" in text
    assert "\ufffd lone \ufffd surrogates" in text
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\ud800-\udfff]", page)
    assert "]]>" not in page and "<![CDATA[" not in page
    # Every hostile value made it in somewhere (nothing was silently dropped).
    for value in HOSTILE[:4]:
        assert value in text


def test_long_strings_are_cut_and_numbers_that_are_not_numbers_are_absent() -> None:
    doc = small_site()
    doc["findings"][0]["title"] = "T" * 1_000_000
    doc["findings"][0]["message"] = "M" * 1_000_000
    doc["sitemaps"][1]["url"] = "https://www.example.com/" + "u" * 1_000_000
    raw: dict[str, Any] = dict(doc)
    raw["totals"] = {"sitemaps": "12", "urls": True, "bytes": float("nan"), "findings": []}
    raw["run"] = {**doc["run"], "seconds": float("inf")}
    page = render(raw)
    check_well_formed(page)
    assert len(page) < 200_000
    assert "T" * 121 not in page and "M" * 1001 not in page and "u" * 301 not in page
    assert "nan" not in page.lower().replace("nanum", "") and "inf s" not in page


@pytest.mark.parametrize(
    "doc",
    [
        {},
        {"sitemaps": "not a list", "findings": {"not": "a list"}, "verdict": []},
        {"sitemaps": [None, 1, "x", [], {"url": 5, "parent": [], "lastmod": "x"}]},
        {"findings": [None, 1, {"kind": [], "severity": {}, "count": "9", "examples": "x"}]},
        {"sitemaps": [{"url": "a", "lastmod": {"byMonth": {"2026-01": "9", "x": 1, 3: 4}}}]},
    ],
)
def test_a_document_of_the_wrong_shape_still_renders(doc: dict[str, Any]) -> None:
    check_well_formed(render(doc))


def test_an_empty_site_says_no_sitemap_was_found() -> None:
    doc = document([], [], status="FAIL", message="No sitemap was found.", robots_status=404)
    markup = check_well_formed(render(doc))
    text = " ".join(markup.text)
    assert "No sitemap was found: neither robots.txt nor the usual places listed one." in text
    assert "No findings" in text and "HTTP 404" in text
    assert markup.classed("div", "v-err") and not markup.classed("li", "node")
    assert markup.all("ul", id="tree-root") == []


def test_a_failing_site_puts_its_broken_files_first_and_open() -> None:
    base = "https://fail.example"
    maps = [
        sitemap(f"{base}/sitemap.xml", type="html", http_status=200, findings=(1, 0, 0)),
        sitemap(f"{base}/fine.xml", entries=10, by_month={"2026-11": 10}, source="fallback"),
        sitemap(f"{base}/gone.xml", http_status=503, source="robots"),
    ]
    found = [
        finding(
            "sitemap-is-html",
            "error",
            "Sitemap is HTML",
            f"{base}/sitemap.xml",
            examples=[(1, "<!doctype html><html>")],
        ),
        finding("blocked", "error", "Couldn't fetch", f"{base}/gone.xml"),
    ]
    doc = document(maps, found, site=base, status="FAIL", message="not well-formed XML")
    page = render(doc)
    markup = check_well_formed(page)
    assert markup.classed("div", "v-err")
    broken = [a["id"] for a in markup.classed("li", "broken")]
    assert broken == ["s-0", "s-2"]  # the 503 counts as broken
    assert page.index('id="s-2"') < page.index('id="s-1"')
    assert "&lt;!doctype html&gt;&lt;html&gt;" in page


def test_a_file_never_read_is_not_marked_ok_alone_or_in_a_group() -> None:
    # Left by a limit of the walk: the audit never opened it, so it passed nothing.
    base = "https://big.example"
    root = f"{base}/sitemap.xml"
    maps = [sitemap(root, type="sitemapindex", entries=1100)]
    maps += [
        sitemap(
            f"{base}/part-{i:04d}.xml", parent=root, depth=1, entries=10, by_month={"2026-11": 10}
        )
        for i in range(900)
    ]
    maps += [
        sitemap(
            f"{base}/left-{i:04d}.xml", parent=root, depth=1, type="unfetched", http_status=None
        )
        for i in range(200)
    ]
    page = render(document(maps, [], site=base))
    markup = check_well_formed(page)
    nodes = {a["id"]: a for a in markup.classed("li", "node")}
    assert nodes, "files listed one by one"
    unread = [i for i, m in enumerate(maps) if m["type"] == "unfetched" and f"s-{i}" in nodes]
    assert unread
    for i in unread:
        line = page[page.index(f'id="s-{i}"') :].split("</summary>", 1)[0]
        assert "Not read" in line and "p-ok" not in line
    group = page[page.index('<li class="group') :].split("</li>", 1)[0]
    assert "p-ok" not in group and "Not read" in group and "none of them was read" in group


def test_parent_loops_and_endless_chains_list_every_file_once_and_nest_little() -> None:
    base = "https://loop.example"
    maps = [
        sitemap(f"{base}/a.xml", parent=f"{base}/b.xml", type="sitemapindex"),
        sitemap(f"{base}/b.xml", parent=f"{base}/a.xml", type="sitemapindex"),
        sitemap(f"{base}/self.xml", parent=f"{base}/self.xml", type="sitemapindex"),
    ]
    chain = [sitemap(f"{base}/0.xml", type="sitemapindex")]
    for i in range(1, 900):
        chain.append(sitemap(f"{base}/{i}.xml", parent=f"{base}/{i - 1}.xml", depth=i))
    markup = check_well_formed(render(document(maps + chain, [])))
    ids = [a["id"] for a in markup.classed("li", "node")]
    assert len(ids) == len(set(ids)) == len(maps) + len(chain)
    assert markup.deepest < 60


def test_lastmod_columns_run_to_the_audit_and_gather_what_lies_outside() -> None:
    gap = charts.lastmod_buckets({"2026-03": 5, "2026-01": 2}, "2026-12")
    assert gap[0].label == "2026-01" and gap[-1].label == "2026-12"
    assert [b.count for b in gap] == [2, 0, 5] + [0] * 9
    future = charts.lastmod_buckets({"2026-11": 1, "2099-01": 2, "9999-12": 3}, "2026-12")
    assert future[-1] == charts.Bucket("after the audit", 5, future=True, overflow=True)
    assert len(future) == 3
    years = charts.lastmod_buckets({"2010-05": 1, "2026-02": 4}, "2026-12")
    assert years[0].label == "2010" and years[-1] == charts.Bucket("2026", 4)
    wide = charts.lastmod_buckets({"0001-01": 7, "2026-02": 4}, "2026-12")
    assert wide[0] == charts.Bucket("before 1991", 7, overflow=True)
    assert len(wide) == 1 + charts.MAX_YEARS
    ignored = charts.lastmod_buckets({"2026-13": 1, "x": 2, "2026-01": -3, "2026-02": True}, None)
    assert ignored == []
    assert charts.lastmod_buckets({"2026-04": 3}, None) == [charts.Bucket("2026-04", 3)]


def test_a_column_of_one_entry_says_entry() -> None:
    svg = charts.column_chart(
        "c", "Dates", [charts.Bucket("2026-11", 1), charts.Bucket("2026-12", 2)]
    )
    assert "<title>2026-11: 1 entry</title>" in svg and "<title>2026-12: 2 entries</title>" in svg
    alone = charts.column_chart("d", "Dates", [charts.Bucket("2026-12", 1)])
    assert "1 entry from 2026-12 to 2026-12" in alone


def test_chart_text_is_escaped_where_the_svg_is_written() -> None:
    hostile = "</title><script>alert(1)</script>"
    svg = charts.horizontal_bars("x", hostile, hostile, [charts.Bar(hostile, 3)])
    svg += charts.column_chart("y", hostile, [charts.Bucket(hostile, 2, overflow=True)])
    assert "<script>" not in svg and "&lt;/title&gt;&lt;script&gt;" in svg
    assert Markup(svg).errors == []


def _scheme(css: str) -> dict[str, str]:
    return dict(re.findall(r"--([a-z]+):(#[0-9a-f]{6})", css))


def _luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_text_colours_meet_wcag_aa_contrast_on_their_backgrounds(scheme: str) -> None:
    light_css, dark_css = html_assets.STYLE.split("@media (prefers-color-scheme:dark)", 1)
    colours = _scheme(light_css)
    if scheme == "dark":
        colours |= _scheme(dark_css.split("}}", 1)[0])
    assert len(colours) >= 14
    pairs = [("fg", "bg"), ("muted", "bg"), ("muted", "soft"), ("link", "bg"), ("fg", "soft")]
    pairs += [(c, "bg") for c in ("err", "warn", "note", "ok")]
    pairs += [(c, f"{c}bg") for c in ("err", "warn", "note", "ok")]
    for text, background in pairs:
        high, low = sorted(
            (_luminance(colours[text]), _luminance(colours[background])), reverse=True
        )
        ratio = (high + 0.05) / (low + 0.05)
        assert ratio >= 4.5, (scheme, text, background, round(ratio, 2))


def test_limits_written_as_floats_are_shown_as_the_whole_numbers_they_are() -> None:
    doc = small_site()
    limits: dict[str, Any] = dict(doc["limits"])
    limits |= {"maxSeconds": 600.0, "maxDepth": 2.5, "concurrency": "4"}
    raw: dict[str, Any] = {**doc, "limits": limits}
    text = " ".join(Markup(render(raw)).text)
    assert (
        "1,000 sitemaps, 2.5 levels of indexes, 1.1 GB read, 600 seconds, "
        "5,000,000 URLs looked through for duplicates."
    ) in text


def test_long_bar_labels_are_cut_at_the_end_that_matters() -> None:
    url = "/sitemaps/" + "x" * 40 + "-products-7.xml"
    cut = Markup(charts.horizontal_bars("u", "t", "d", [charts.Bar(url, 3, keep_end=True)]))
    title = Markup(charts.horizontal_bars("v", "t", "d", [charts.Bar("Y" * 40, 3)]))
    shown = charts.fit_label(url, 208, keep_end=True)
    assert shown.startswith("…") and url.endswith(shown[1:]) and len(shown) >= 16
    assert shown in cut.text
    capitals = charts.fit_label("Y" * 40, 208)
    assert capitals.endswith("…") and set(capitals[:-1]) == {"Y"} and len(capitals) >= 12
    assert capitals in title.text
    assert any(url in t for t in cut.text)  # whole in the bar's title
    # Wide letters leave fewer; a short label is whole.
    assert len(charts.fit_label("Q" * 40, 208)) < len(charts.fit_label("x" * 40, 208))
    assert charts.fit_label("/sitemap.xml", 208) == "/sitemap.xml"


def test_a_limit_is_marked_only_when_the_bars_come_near_it() -> None:
    # Files of 300 and 12 entries against the 50,000 limit: the scale is theirs, the largest bar
    # spans the plot and no limit line is drawn; a file of 48,000 shows the limit.
    far = charts.horizontal_bars(
        "far", "t", "d", [charts.Bar("a", 300), charts.Bar("b", 12)], 50_000, "50,000 limit"
    )
    assert "c-limit" not in far and "50,000 limit" not in far
    widths = [float(w) for w in re.findall(r'<rect class="c-bar" [^>]*width="([0-9.]+)"', far)]
    assert widths[0] > 250 and widths[1] > 5  # not slivers against 50,000
    near = charts.horizontal_bars(
        "near", "t", "d", [charts.Bar("a", 48_000)], 50_000, "50,000 limit"
    )
    assert "c-limit" in near and "50,000 limit" in near
    assert 50_000 * charts.LIMIT_SHOWN_FROM == 20_000


def test_a_sites_text_is_shown_on_a_terminal_without_its_controls() -> None:
    from sitemap_auditor.core.text import shown_text

    shown = shown_text("a\x1b[2Jb\x07c\x9bd\u202ee\ud800f")
    assert shown == "a\ufffd[2Jb\ufffdc\ufffdd\ufffde\ufffdf"
    assert shown_text("one\ntwo\r\nthree\tfour") == "one two  three four"
    assert shown_text("https://example.com/é") == "https://example.com/é"
