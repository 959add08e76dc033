"""robots.txt reading: Sitemap: lines (CONTRACT section 4)."""

from __future__ import annotations

from pathlib import Path

from sitemap_auditor.robots import MAX_CANDIDATES, sitemap_urls

ROBOTS = "https://ex.com/robots.txt"
CORPUS = Path(__file__).parent / "corpus"


def urls(body: bytes | str, final: str = ROBOTS, truncated: bool = False) -> tuple[str, ...]:
    data = body.encode() if isinstance(body, str) else body
    return sitemap_urls(data, final, ROBOTS, truncated).urls


def test_directive_name_is_case_insensitive_and_space_is_ignored() -> None:
    body = (
        "User-agent: *\nSitemap: https://ex.com/a.xml\n"
        "SITEMAP:https://ex.com/b.xml\n  sitemap  :   https://ex.com/c.xml   \n"
        "siteMap: https://ex.com/d.xml # a comment\n"
    )
    assert urls(body) == tuple(f"https://ex.com/{n}.xml" for n in "abcd")


def test_line_ends_and_bom() -> None:
    body = b"\xef\xbb\xbfSitemap: https://ex.com/a.xml\r\nSitemap: https://ex.com/b.xml\rSitemap: https://ex.com/c.xml"
    assert urls(body) == ("https://ex.com/a.xml", "https://ex.com/b.xml", "https://ex.com/c.xml")


def test_relative_urls_resolve_against_the_final_url() -> None:
    body = "Sitemap: /sitemap.xml\nSitemap: maps/s.xml\n"
    assert urls(body, final="https://www.ex.com/sub/robots.txt") == (
        "https://www.ex.com/sitemap.xml",
        "https://www.ex.com/sub/maps/s.xml",
    )


def test_duplicates_keep_the_first_occurrence() -> None:
    body = "Sitemap: https://ex.com/b.xml\nSitemap: https://ex.com/a.xml\nSitemap: https://ex.com/b.xml\n"
    assert urls(body) == ("https://ex.com/b.xml", "https://ex.com/a.xml")


def test_unusable_values_are_skipped_with_an_issue_about_robots() -> None:
    body = "Sitemap: ftp://ex.com/s.xml\nSitemap:\nSitemap: javascript:x\nSitemap: https://ex.com/ok.xml\n"
    found = sitemap_urls(body.encode(), ROBOTS, ROBOTS)
    assert found.urls == ("https://ex.com/ok.xml",)
    assert len(found.issues) == 3
    assert all(i.startswith(ROBOTS) for i in found.issues)
    assert "ftp://ex.com/s.xml" in found.issues[0]


def test_other_directives_are_not_sitemaps() -> None:
    body = "Disallow: /sitemap.xml\nAllow: /\n# Sitemap: https://ex.com/commented.xml\nSitemaps: https://ex.com/x\n"
    assert urls(body) == ()


def test_truncated_body_drops_its_cut_last_line() -> None:
    body = "Sitemap: https://ex.com/a.xml\nSitemap: https://ex.com/cut-sitem"
    assert urls(body, truncated=True) == ("https://ex.com/a.xml",)
    assert urls(body) == ("https://ex.com/a.xml", "https://ex.com/cut-sitem")


def test_bad_bytes_and_odd_urls_are_encoded_not_fatal() -> None:
    body = b"Sitemap: https://ex.com/caf\xc3\xa9 map.xml\nSitemap: https://ex.com/\xff\xfe.xml\n"
    found = urls(body)
    assert found[0] == "https://ex.com/caf%C3%A9%20map.xml"
    assert found[1].startswith("https://ex.com/%EF%BF%BD")


def test_candidates_are_capped_and_the_rest_counted() -> None:
    body = "".join(f"Sitemap: https://ex.com/s{i}.xml\n" for i in range(MAX_CANDIDATES + 50))
    found = sitemap_urls(body.encode(), ROBOTS, ROBOTS)
    assert len(found.urls) == MAX_CANDIDATES
    assert found.issues[-1].startswith(ROBOTS) and "50 more" in found.issues[-1]


def test_skipped_values_are_listed_up_to_a_cap() -> None:
    body = "".join(f"Sitemap: ftp://ex.com/{i}\n" for i in range(100))
    found = sitemap_urls(body.encode(), ROBOTS, ROBOTS)
    assert len(found.issues) == 21
    assert "100 Sitemap: values skipped" in found.issues[-1]


def test_real_robots_files() -> None:
    assert urls((CORPUS / "robots-next-sitemap-0xadada.txt").read_bytes()) == (
        "https://0xadada.pub/sitemap.xml",
    )
    two = urls((CORPUS / "robots-crlf-utf8-two-sitemaps-adakhome.txt").read_bytes())
    assert two == (
        "https://sitemap.adakhome.be/sitemap.xml",
        "https://sitemap.adakhome.be/video-sitemap.xml",
    )
    many = urls(
        (CORPUS / "robots-many-groups-host-no-final-newline-aeroenterprises.txt").read_bytes()
    )
    assert many == ("https://aeroenterprises.shop/sitemap.xml",)
