"""blocked-by-robots for Googlebot and Bingbot (and the --user-agent product): real robots.txt
files of the shared corpus with Bingbot groups, served on 127.0.0.1, one where it must fire and
one where it must stay silent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support.deep import SHARED_CORPUS, SITEMAPS_NS, kinds_of, local_only, urlset_of
from support.deep_schema import validated

from harness.servers import Site, reply
from sitemap_auditor import deep
from sitemap_auditor.core.request_headers import ExtraHeaders
from sitemap_auditor.deep import document as documents
from sitemap_auditor.deep.finding_rows import FindingRows
from sitemap_auditor.deep.reports import finding_urls, html_report, text_report

NCBI = "realworld3/robots-archive-20-sitemaps-ncbi.txt"  # bingbot's own group, Googlebot's own
PVQ = "realworld3/robots-servicestack-pvq.txt"  # Googlebot and Bingbot allowed, `*` disallowed


def _serve(site: Site, robots: bytes, paths: list[str]) -> None:
    # The real file, with a Sitemap: line for the local sitemap after it (its rules unchanged).
    body = robots.rstrip(b"\r\n") + f"\n\nSitemap: {site.url('/s.xml')}\n".encode()
    site.route("/robots.txt", reply(body, content_type="text/plain"))
    site.route("/s.xml", reply(urlset_of(f"<loc>{site.url(p)}</loc>" for p in paths)))


def _audit(site: Site, tmp: Path, user_agent: str | None = None) -> tuple[dict[str, Any], str]:
    headers = ExtraHeaders.of([("User-Agent", user_agent)] if user_agent else [])
    with FindingRows() as rows:
        options = deep.Options(
            allow_private_networks=True, resolver=local_only, headers=headers, finding_rows=rows
        )
        walk = deep.audit_walk(site.url("/"), options=options)
        doc = validated(documents.build(walk))
        target = finding_urls.write(doc, rows, tmp, walk.secrets)
    return doc, target.read_text(encoding="utf-8-sig")


def _agents(doc: dict[str, Any]) -> dict[str, tuple[str, bool]]:
    return {a["agent"]: (a["group"], a["disallows"]) for a in doc["robotsTxt"]["agents"]}


def test_a_bingbot_group_blocks_for_bingbot_only_where_googlebots_allows(
    site: Site, tmp_path: Path
) -> None:
    _serve(site, (SHARED_CORPUS / NCBI).read_bytes(), ["/entrez/a", "/cgi-bin/b", "/pmc/c"])
    doc, rows = _audit(site, tmp_path)
    f = kinds_of(doc)["blocked-by-robots"]
    assert (f["count"], f["urls"]) == (2, 2)
    assert f["share"] == round(2 / 3, 4)
    assert [e["value"] for e in f["examples"]] == [site.url("/entrez/a"), site.url("/cgi-bin/b")]
    assert f["message"] == (
        "2 listed URLs are disallowed by robots.txt (for Googlebot or Bingbot)."
    )
    s = site.url("/s.xml")
    assert f"warning,blocked-by-robots,search-console,{s},3,{site.url('/entrez/a')},Bingbot" in rows
    assert (
        f"warning,blocked-by-robots,search-console,{s},4,{site.url('/cgi-bin/b')},"
        "Googlebot and Bingbot"
    ) in rows
    assert "/pmc/c" not in rows
    assert _agents(doc) == {"Googlebot": ("own", True), "Bingbot": ("own", True)}
    # The share next to the finding, in the text report and the HTML one.
    assert "(blocked-by-robots)  x2  in " in text_report.render(doc)
    assert "[2 URLs, 66.67 % of the site's]" in text_report.render(doc)
    assert "2 URLs, 66.67 % of the site&#x27;s" in html_report.render(doc)


def test_a_bingbot_group_that_disallows_a_folder_under_an_open_global_one(
    site: Site, tmp_path: Path
) -> None:
    robots = b"User-agent: bingbot\nDisallow: /private/\n\nUser-agent: *\nAllow: /\n"
    _serve(site, robots, ["/private/a", "/public/b", "/private/c"])
    doc, rows = _audit(site, tmp_path)
    f = kinds_of(doc)["blocked-by-robots"]
    assert f["count"] == 2 and f["message"].endswith("(for Bingbot).")
    assert [e["value"] for e in f["examples"]] == [site.url("/private/a"), site.url("/private/c")]
    assert rows.count(",Bingbot") == 2 and "Googlebot" not in rows
    assert _agents(doc) == {"Googlebot": ("global", False), "Bingbot": ("own", True)}


def test_a_robots_txt_that_allows_both_crawlers_is_silent_but_for_a_named_agent(
    site: Site, tmp_path: Path
) -> None:
    # pvq.app lets Googlebot and Bingbot in and shuts every other agent out (`*`: Disallow: /).
    _serve(site, (SHARED_CORPUS / PVQ).read_bytes(), ["/a", "/questions/1"])
    doc, rows = _audit(site, tmp_path)
    assert "blocked-by-robots" not in kinds_of(doc)
    assert "blocked-by-robots" not in rows
    assert _agents(doc) == {"Googlebot": ("own", False), "Bingbot": ("own", False)}
    # The product --user-agent names obeys `*`: disallowed everything, the sitemap included.
    doc, rows = _audit(site, tmp_path, "Mozilla/5.0 (compatible; AgencyAudit/1.0)")
    f = kinds_of(doc)["blocked-by-robots"]
    assert (f["count"], f["urls"]) == (2, 2)  # the two listed URLs
    assert f["message"].endswith("(for AgencyAudit).")
    # The sitemap's own URL is no listed URL: a finding of its own, about the file.
    own = kinds_of(doc)["sitemap-blocked-by-robots"]
    assert (own["severity"], own["impact"], own["urls"]) == ("error", "file-unread", 2)
    assert own["examples"] == [{"line": None, "value": site.url("/s.xml")}]
    assert own["message"].endswith("(for AgencyAudit), so search engines cannot fetch it.")
    assert _agents(doc)["AgencyAudit"] == ("global", True)


def test_robots_txt_is_matched_against_each_url_as_it_is_fetched(site: Site) -> None:
    # The <loc> as written was matched: `/public/../private/x` is fetched as /private/x, which
    # `Disallow: /private` blocks, and was not reported; nor was an index's child so spelled.
    u = site.url
    robots = f"User-agent: *\nDisallow: /private\nSitemap: {u('/index.xml')}\n"
    site.route("/robots.txt", reply(robots, content_type="text/plain"))
    index = (
        f'<sitemapindex xmlns="{SITEMAPS_NS}"><sitemap><loc>{u("/s.xml")}</loc></sitemap>'
        f"<sitemap><loc>{u('/public/../private/sm.xml')}</loc></sitemap></sitemapindex>"
    )
    site.route("/index.xml", reply(index))
    paths = ["/private/direct", "/public/../private/secret", "/public/%2e%2e/private/other", "/ok"]
    site.route("/s.xml", reply(urlset_of(f"<loc>{u(p)}</loc>" for p in paths)))
    site.route("/private/sm.xml", reply(urlset_of([f"<loc>{u('/b')}</loc>"])))
    options = deep.Options(allow_private_networks=True, resolver=local_only)
    doc = validated(documents.build(deep.audit_walk(u("/"), options=options)))
    assert kinds_of(doc, u("/s.xml"))["blocked-by-robots"]["count"] == 3
    child = u("/public/../private/sm.xml")
    assert "sitemap-blocked-by-robots" in kinds_of(doc, child)


def test_robots_txt_decides_for_the_site_in_any_spelling_of_its_host(site: Site) -> None:
    # Audited as http://127.1:PORT/ (the one reading's 127.0.0.1), no robots finding was made:
    # the site's host was compared as written.
    robots = f"User-agent: *\nDisallow: /\nSitemap: {site.url('/s.xml')}\n"
    site.route("/robots.txt", reply(robots, content_type="text/plain"))
    site.route("/s.xml", reply(urlset_of([f"<loc>{site.url('/a')}</loc>"])))
    options = deep.Options(allow_private_networks=True, resolver=local_only)
    for spelled in (f"http://127.1:{site.port}/", f"http://2130706433:{site.port}/"):
        doc = validated(documents.build(deep.audit_walk(spelled, options=options)))
        found = kinds_of(doc)
        assert "blocked-by-robots" in found and "sitemap-blocked-by-robots" in found, spelled
