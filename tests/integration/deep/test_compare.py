"""deep --compare OLD.json: an unchanged site compares as unchanged; a site that changed between
two runs shows its new, resolved and changed findings and its sitemaps' URL counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.deep import SITEMAPS_NS, urlset_of
from support.deep_schema import validated

from harness.servers import Site, reply, send
from sitemap_auditor.cli import deep as deep_cli

XHTML_NS = ' xmlns:xhtml="http://www.w3.org/1999/xhtml"'


def _serve(site: Site, main: bytes, extra: bytes | None) -> None:
    children = ["/main.xml"] + (["/extra.xml"] if extra is not None else [])
    index = (
        f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">'
        + "".join(f"<sitemap><loc>{site.url(c)}</loc></sitemap>" for c in children)
        + "</sitemapindex>"
    ).encode()
    site.routes.clear()
    site.route(
        "/robots.txt", reply(f"Sitemap: {site.url('/index.xml')}\n", content_type="text/plain")
    )
    site.route("/index.xml", reply(index))
    site.route("/main.xml", reply(main))
    if extra is not None:
        site.route("/extra.xml", reply(extra))


def _audit(site: Site, capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    deep_cli.main(["--allow-private-networks", "--json", *args, site.url("/")])
    document: dict[str, object] = validated(json.loads(capsys.readouterr().out))
    return document


def test_compare_shows_new_resolved_and_changed_findings(
    site: Site, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    loc = site.url
    before = urlset_of(
        [f"<loc>{loc(f'/p{i}')}</loc><lastmod>2026-13-01</lastmod>" for i in range(3)]
        + [f"<loc>{loc('/p0')}</loc>"]
    )
    _serve(site, before, urlset_of([f"<loc>{loc('/x')}</loc><lastmod>2099-01-01</lastmod>"]))
    old = tmp_path / "old.json"
    old.write_text(json.dumps(_audit(site, capsys)), encoding="utf-8")

    # A month later: one invalid date fixed (count 3 -> 2), the repeat gone (resolved), the
    # extra sitemap gone (its future date resolved), two URLs added.
    after = urlset_of(
        [f"<loc>{loc(f'/p{i}')}</loc><lastmod>2026-13-01</lastmod>" for i in range(2)]
        + [f"<loc>{loc(f'/p{i}')}</loc><lastmod>2026-11-01</lastmod>" for i in range(2, 5)]
    )
    _serve(site, after, None)
    doc = _audit(site, capsys, "--compare", str(old))
    c = doc["comparison"]
    assert isinstance(c, dict)
    assert c["counts"] == {
        "new": 0,
        "resolved": 2,
        "notChecked": 0,
        "changed": 1,
        "sitemapsChanged": 3,
    }
    assert {(f["kind"], f["sitemap"]) for f in c["resolvedFindings"]} == {
        ("duplicate-url", loc("/main.xml")),
        ("future-lastmod", loc("/extra.xml")),
    }
    (changed,) = c["changedFindings"]
    assert (changed["kind"], changed["countBefore"], changed["countAfter"]) == (
        "invalid-date",
        3,
        2,
    )
    assert {s["url"]: (s["entriesBefore"], s["entriesAfter"]) for s in c["sitemaps"]} == {
        loc("/index.xml"): (2, 1),
        loc("/main.xml"): (4, 5),
        loc("/extra.xml"): (1, None),
    }
    assert (c["urlsBefore"], c["urlsAfter"]) == (5, 5)

    # The same in the readable report.
    deep_cli.main(["--allow-private-networks", "--compare", str(old), site.url("/")])
    text = capsys.readouterr().out
    assert "2 resolved findings, 1 changed count, 3 sitemaps with other URL counts" in text
    assert f"changed   error invalid-date in {loc('/main.xml')}: x3 then x2" in text
    # And in the HTML report, a section of its own.
    from sitemap_auditor.deep.reports import html_report

    changes = html_report.render(doc).split('<section id="changes"', 1)[1].split("</section>")[0]
    assert "What changed" in changes and "2 resolved" in changes
    assert '<code class="nw">invalid-date</code>' in changes and "×3 then ×2" in changes
    assert loc("/extra.xml") in changes


def test_an_unchanged_site_compares_as_unchanged(
    site: Site, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    body = urlset_of([f"<loc>{site.url('/a')}</loc>", f"<loc>{site.url('/a')}</loc>"])
    _serve(site, body, None)
    old = tmp_path / "old.json"
    old.write_text(json.dumps(_audit(site, capsys)), encoding="utf-8")
    c = _audit(site, capsys, "--compare", str(old))["comparison"]
    assert isinstance(c, dict)
    assert c["counts"] == {
        "new": 0,
        "resolved": 0,
        "notChecked": 0,
        "changed": 0,
        "sitemapsChanged": 0,
    }


def test_findings_of_sitemaps_a_cut_run_did_not_read_are_not_resolved(
    site: Site, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The site is unchanged; the second audit stops after two sitemaps (the index and
    # main.xml), before extra.xml. Its future date is still there: not checked, not resolved.
    loc = site.url
    main = urlset_of([f"<loc>{loc('/a')}</loc>", f"<loc>{loc('/a')}</loc>"])
    _serve(site, main, urlset_of([f"<loc>{loc('/x')}</loc><lastmod>2099-01-01</lastmod>"]))
    old = tmp_path / "old.json"
    old.write_text(json.dumps(_audit(site, capsys)), encoding="utf-8")
    doc = _audit(site, capsys, "--concurrency", "1", "--max-sitemaps", "2", "--compare", str(old))
    assert doc["complete"] is False
    c = doc["comparison"]
    assert isinstance(c, dict)
    assert c["resolvedFindings"] == []
    assert (c["counts"]["resolved"], c["counts"]["notChecked"]) == (0, 1)
    # The site's own findings need every sitemap read: the limit's own notice is new, and
    # none of the earlier audit's is resolved by a run that read two of three.
    deep_cli.main(
        ["--allow-private-networks", "--max-sitemaps", "2", "--compare", str(old), loc("/")]
    )
    text = capsys.readouterr().out
    assert "0 resolved findings" in text
    assert "1 earlier finding not checked again" in text
    from sitemap_auditor.deep.reports import html_report

    changes = html_report.render(doc).split('<section id="changes"', 1)[1].split("</section>")[0]
    assert "1 earlier finding was not checked again" in changes


def test_a_finding_that_compares_files_is_not_resolved_by_a_run_that_read_one(
    site: Site, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # main.xml's /a names /b as its German page; extra.xml lists /b with no link back: the
    # missing return link is main.xml's finding, but it takes extra.xml to find. A run that read
    # main.xml alone cannot tell it resolved.
    loc = site.url

    def link(code: str, href: str) -> str:
        return f'<xhtml:link rel="alternate" hreflang="{code}" href="{href}"/>'

    main = urlset_of(
        [f"<loc>{loc('/a')}</loc>{link('en', loc('/a'))}{link('de', loc('/b'))}"], XHTML_NS
    )
    extra = urlset_of([f"<loc>{loc('/b')}</loc>{link('de', loc('/b'))}"], XHTML_NS)
    _serve(site, main, extra)
    old = tmp_path / "old.json"
    before = _audit(site, capsys)
    findings = before["findings"]
    assert isinstance(findings, list)
    assert ("hreflang-invalid", loc("/main.xml")) in {(f["kind"], f["sitemap"]) for f in findings}
    old.write_text(json.dumps(before), encoding="utf-8")
    doc = _audit(site, capsys, "--concurrency", "1", "--max-sitemaps", "2", "--compare", str(old))
    c = doc["comparison"]
    assert isinstance(c, dict)
    sitemaps = doc["sitemaps"]
    assert isinstance(sitemaps, list)
    assert [s["type"] for s in sitemaps] == ["sitemapindex", "urlset", "unfetched"]
    assert c["resolvedFindings"] == [] and c["counts"]["notChecked"] == 1


def test_duplicates_not_looked_for_past_the_tables_bound_are_not_resolved(
    site: Site, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The walk reads every file (complete), but with a duplicate table of one URL it looks for
    # repeats among the first only: the repeat across the two files is still there.
    loc = site.url
    main = urlset_of([f"<loc>{loc('/a')}</loc>", f"<loc>{loc('/b')}</loc>"])
    _serve(site, main, urlset_of([f"<loc>{loc('/b')}</loc>"]))
    old = tmp_path / "old.json"
    before = _audit(site, capsys, "--concurrency", "1")
    kinds = {f["kind"] for f in before["findings"]}  # type: ignore[attr-defined]
    assert "duplicate-url" in kinds
    old.write_text(json.dumps(before), encoding="utf-8")
    doc = _audit(
        site, capsys, "--concurrency", "1", "--max-dedupe-urls", "1", "--compare", str(old)
    )
    assert doc["complete"] is True
    c = doc["comparison"]
    assert isinstance(c, dict)
    assert c["resolvedFindings"] == [] and c["counts"]["notChecked"] == 1


def test_pages_that_broke_between_two_checks_are_a_change(
    site: Site, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The page check's findings count in the exit status as the walk's do: two pages going
    # from 200 to 404 were no change at all.
    page = b"<!DOCTYPE html><html><head><title>P</title></head><body>P</body></html>"
    body = urlset_of([f"<loc>{site.url(f'/p{i}')}</loc>" for i in range(6)])
    _serve(site, body, None)
    for i in range(6):
        site.route(f"/p{i}", reply(page, content_type="text/html"))
    site.route("/p5", reply(b"gone", 404, "text/html"))
    old = tmp_path / "old.json"
    old.write_text(json.dumps(_audit(site, capsys, "--pages")), encoding="utf-8")
    for i in (1, 2):
        site.route(f"/p{i}", reply(b"gone", 404, "text/html"))
    c = _audit(site, capsys, "--pages", "--compare", str(old))["comparison"]
    assert isinstance(c, dict)
    assert [
        (f["kind"], f["sitemap"], f["countBefore"], f["countAfter"]) for f in c["changedFindings"]
    ] == [("page-not-found", None, 1, 3)]
    # A run that checked no page, a sample of them, or the pages of some sitemaps only (the
    # walk cut by a limit) found fewer: nothing was resolved.
    site.route("/other.xml", reply(urlset_of([f"<loc>{site.url('/p0')}</loc>"])))
    site.route(
        "/robots.txt",
        reply(
            f"Sitemap: {site.url('/other.xml')}\nSitemap: {site.url('/index.xml')}\n",
            content_type="text/plain",
        ),
    )
    for partial in ((), ("--pages", "--max-pages", "2"), ("--pages", "--max-sitemaps", "1")):
        c = _audit(site, capsys, *partial, "--compare", str(old))["comparison"]
        assert isinstance(c, dict)
        assert c["resolvedFindings"] == [] and c["changedFindings"] == [], partial


def test_another_sites_document_is_compared_with_a_warning(
    site: Site, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Every finding of one site was "resolved" and every one of the other "new", silently.
    _serve(site, urlset_of([f"<loc>{site.url('/a')}</loc>"]), None)
    before = _audit(site, capsys)
    old = tmp_path / "old.json"
    old.write_text(json.dumps({**before, "siteBase": "https://other.example"}), encoding="utf-8")
    deep_cli.main(["--allow-private-networks", "--json", "--compare", str(old), site.url("/")])
    err = capsys.readouterr().err
    assert f"is a document of https://other.example, not of {site.url('')}" in err
    old.write_text(json.dumps(before), encoding="utf-8")
    deep_cli.main(["--allow-private-networks", "--json", "--compare", str(old), site.url("/")])
    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize("content", ["not json", '{"format": "other"}', "[1, 2]"])
def test_a_file_that_is_no_document_is_a_usage_error(tmp_path: Path, content: str) -> None:
    old = tmp_path / "old.json"
    old.write_text(content, encoding="utf-8")
    with pytest.raises(SystemExit) as stopped:
        deep_cli.main(["--allow-private-networks", "--compare", str(old), "http://127.0.0.1:9/"])
    assert stopped.value.code == 64


def test_a_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as stopped:
        deep_cli.main(
            ["--allow-private-networks", "--compare", str(tmp_path / "nope.json"), "http://x/"]
        )
    assert stopped.value.code == 64


def test_a_lone_surrogate_in_the_older_document_is_shown_as_a_replacement(
    site: Site, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # An edited document may escape a surrogate that no UTF-8 output can carry.
    _serve(site, urlset_of([f"<loc>{site.url('/a')}</loc>"]), None)
    before = _audit(site, capsys)
    sitemaps = before["sitemaps"]
    assert isinstance(sitemaps, list)
    sitemaps[0]["url"] = site.url("/gone-\ud800.xml")
    old = tmp_path / "old.json"
    old.write_text(json.dumps(before), encoding="ascii")  # the surrogate as \ud800
    c = _audit(site, capsys, "--compare", str(old))["comparison"]
    assert isinstance(c, dict)
    assert site.url("/gone-\ufffd.xml") in {s["url"] for s in c["sitemaps"]}
    assert deep_cli.main(["--allow-private-networks", "--compare", str(old), site.url("/")]) == 0
    assert "gone-\ufffd.xml" in capsys.readouterr().out


# robots.txt lists the new file as the redirect spells it, or with an empty query: the same
# resource, which the walk reads for the old URL either way.
@pytest.mark.parametrize("listed", ["/new.xml", "/new.xml?"])
def test_a_sitemap_now_read_where_it_redirects_keeps_its_entries(
    site: Site, capsys: pytest.CaptureFixture[str], tmp_path: Path, listed: str
) -> None:
    body = urlset_of([f"<loc>{site.url('/a')}</loc>", f"<loc>{site.url('/b')}</loc>"])
    site.route(
        "/robots.txt", reply(f"Sitemap: {site.url('/old.xml')}\n", content_type="text/plain")
    )
    site.route("/old.xml", reply(body))
    old = tmp_path / "old.json"
    old.write_text(json.dumps(_audit(site, capsys)), encoding="utf-8")
    # The file moved: the old URL redirects to the new one, and robots.txt lists both.
    lines = f"Sitemap: {site.url('/old.xml')}\nSitemap: {site.url(listed)}\n"
    site.route("/robots.txt", reply(lines, content_type="text/plain"))
    site.route("/old.xml", lambda h: send(h, 301, b"", {"Location": site.url("/new.xml")}))
    site.route("/new.xml", reply(body))
    site.route("/new.xml?", reply(body))
    c = _audit(site, capsys, "--compare", str(old))["comparison"]
    assert isinstance(c, dict)
    changed = {s["url"]: (s["entriesBefore"], s["entriesAfter"]) for s in c["sitemaps"]}
    assert changed == {site.url(listed): (None, 2)}


def test_findings_of_a_sitemap_now_read_as_another_are_not_resolved(
    site: Site, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The earlier audit read /sitemap.xml itself; now it redirects to /sitemap_index.xml, which
    # holds the same index, and its invalid <loc>, whose finding is the index's now.
    index = (
        f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">'
        "<sitemap><loc>notaurl</loc></sitemap></sitemapindex>"
    ).encode()
    site.route("/robots.txt", reply("User-agent: *\n", content_type="text/plain"))
    site.route("/sitemap.xml", reply(index))
    site.route("/sitemap_index.xml", reply(index))
    old = tmp_path / "old.json"
    before = _audit(site, capsys)
    assert any(f["sitemap"] == site.url("/sitemap.xml") for f in before["findings"])  # type: ignore[attr-defined]
    old.write_text(json.dumps(before), encoding="utf-8")
    site.route(
        "/sitemap.xml", lambda h: send(h, 301, b"", {"Location": site.url("/sitemap_index.xml")})
    )
    c = _audit(site, capsys, "--compare", str(old))["comparison"]
    assert isinstance(c, dict)
    assert not [f for f in c["resolvedFindings"] if f["sitemap"] == site.url("/sitemap.xml")]
    assert c["counts"]["notChecked"] >= 1


def test_a_finding_of_a_redirected_sitemaps_url_is_checked_again(
    site: Site, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # robots.txt disallowed /sitemap.xml, then allows it; /sitemap.xml now redirects: what
    # robots.txt says of its URL is still looked at, and the finding is resolved.
    index = (
        f'<?xml version="1.0"?><sitemapindex xmlns="{SITEMAPS_NS}">'
        f"<sitemap><loc>{site.url('/post.xml')}</loc></sitemap></sitemapindex>"
    ).encode()
    site.route("/post.xml", reply(urlset_of([f"<loc>{site.url('/p')}</loc>"])))
    site.route(
        "/robots.txt", reply("User-agent: *\nDisallow: /sitemap.xml\n", content_type="text/plain")
    )
    site.route("/sitemap.xml", reply(index))
    site.route("/sitemap_index.xml", reply(index))
    old = tmp_path / "old.json"
    old.write_text(json.dumps(_audit(site, capsys)), encoding="utf-8")
    site.route("/robots.txt", reply("User-agent: *\nAllow: /\n", content_type="text/plain"))
    site.route(
        "/sitemap.xml", lambda h: send(h, 301, b"", {"Location": site.url("/sitemap_index.xml")})
    )
    c = _audit(site, capsys, "--compare", str(old))["comparison"]
    assert isinstance(c, dict)
    resolved = {(f["kind"], f["sitemap"]) for f in c["resolvedFindings"]}
    assert ("sitemap-blocked-by-robots", site.url("/sitemap.xml")) in resolved
