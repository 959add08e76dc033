"""robots.txt reading: Sitemap: lines (docs/contract.md §4)."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest
from support.shared import CORPUS as SHARED_CORPUS
from support.shared import needs_shared

from sitemap_auditor.core.issues import cut_value
from sitemap_auditor.core.robots import (
    MAX_CANDIDATES,
    MAX_LINE_BYTES,
    MAX_SKIPPED_LISTED,
    MAX_URL_CHARS,
    sitemap_lines,
    sitemap_urls,
)
from sitemap_auditor.core.site import resolve
from sitemap_auditor.core.urls import TOO_LONG_FOR_DNS

ROBOTS = "https://ex.com/robots.txt"
CORPUS = Path(__file__).resolve().parents[1] / "corpus"


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
    body = (
        "Disallow: /sitemap.xml\nAllow: /\n# Sitemap: https://ex.com/commented.xml\n"
        "Site map: https://ex.com/x\nSitemap /a /b\nXSitemap: /c\nsitemap\n"
    )
    assert urls(body) == ()


def test_truncated_body_drops_its_cut_last_line() -> None:
    body = "Sitemap: https://ex.com/a.xml\nSitemap: https://ex.com/cut-sitem"
    assert urls(body, truncated=True) == ("https://ex.com/a.xml",)
    assert urls(body) == ("https://ex.com/a.xml", "https://ex.com/cut-sitem")


def test_bad_bytes_and_odd_urls_are_encoded_not_fatal() -> None:
    body = b"Sitemap: https://ex.com/caf\xc3\xa9 map.xml\nSitemap: https://ex.com/\xff\xfe.xml\n"
    found = urls(body)
    assert found[0] == "https://ex.com/caf%C3%A9%20map.xml"
    # docs/contract.md §4: a byte that is not UTF-8 is percent-encoded as itself.
    assert found[1] == "https://ex.com/%FF%FE.xml"


def test_candidates_are_capped_and_the_rest_counted() -> None:
    body = "".join(f"Sitemap: https://ex.com/s{i}.xml\n" for i in range(MAX_CANDIDATES + 50))
    found = sitemap_urls(body.encode(), ROBOTS, ROBOTS)
    assert len(found.urls) == MAX_CANDIDATES
    assert found.issues[-1].startswith(ROBOTS) and "50 more distinct" in found.issues[-1]


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


# --- which lines are Sitemap: lines: what Google's parser reads (docs/contract.md §4) -------------


@pytest.mark.parametrize(
    ("line", "quoted"),
    [
        ("Sitemaps: /a.xml", "key 'Sitemaps'"),
        ("Site-map: /a.xml", "key 'Site-map'"),
        ("site-maps : /a.xml", "key 'site-maps'"),
        ("SITEMAP-INDEX:/a.xml", "key 'SITEMAP-INDEX'"),
        ("sitemap /a.xml", "key 'sitemap' without a colon"),
        ("Sitemap\t \t/a.xml # the main one", "key 'Sitemap' without a colon"),
        ("  Sitemaps\t:\t/a.xml  ", "key 'Sitemaps'"),
    ],
)
def test_a_line_read_only_through_googles_leniency_counts_and_says_so(
    line: str, quoted: str
) -> None:
    found = sitemap_urls(f"User-agent: *\n{line}\n".encode(), ROBOTS, ROBOTS)
    assert found.urls == ("https://ex.com/a.xml",)
    assert len(found.issues) == 1
    assert found.issues[0].startswith(f"{ROBOTS}: {quoted} is read as Sitemap:")
    assert "write 'Sitemap: <url>'" in found.issues[0]


@pytest.mark.parametrize("line", ["SITEMAP: /a.xml", "sitemap : /a.xml", "SiteMap:/a.xml"])
def test_the_key_sitemap_in_any_case_with_a_colon_needs_no_issue(line: str) -> None:
    found = sitemap_urls(line.encode(), ROBOTS, ROBOTS)
    assert found.urls == ("https://ex.com/a.xml",)
    assert found.issues == ()


def test_a_lenient_key_is_one_issue_with_its_count_in_the_order_lines_come() -> None:
    body = "Sitemaps: /a\nSitemap: ftp://x/y\nSITEMAPS: /b\nSitemaps: /c\nsitemap /d\n"
    found = sitemap_urls(body.encode(), ROBOTS, ROBOTS)
    assert found.urls == tuple(f"https://ex.com/{n}" for n in "abcd")
    assert [i.split(": ", 1)[1][:22] for i in found.issues] == [
        "key 'Sitemaps' (2 line",
        "skipped Sitemap: value",
        "key 'SITEMAPS' is read",
        "key 'sitemap' without ",
    ]


def test_lenient_keys_are_listed_up_to_a_cap_then_counted() -> None:
    body = "".join(f"Sitemap{i}: /s{i}.xml\n" for i in range(MAX_SKIPPED_LISTED + 5))
    found = sitemap_urls(body.encode(), ROBOTS, ROBOTS)
    assert len(found.urls) == MAX_SKIPPED_LISTED + 5
    assert len(found.issues) == MAX_SKIPPED_LISTED + 1
    assert found.issues[-1] == (
        f"{ROBOTS}: {MAX_SKIPPED_LISTED + 5} lines in all, with {MAX_SKIPPED_LISTED + 5} "
        "different keys, are read as Sitemap: by Google's lenient parser only"
    )


@pytest.mark.parametrize("bom", [b"\xef\xbb\xbf", b"\xef\xbb", b"\xef"])
def test_a_full_or_partial_utf8_bom_is_skipped(bom: bytes) -> None:
    found = sitemap_urls(bom + b"Sitemap: /a.xml\nSitemap: /b.xml\n", ROBOTS, ROBOTS)
    assert found.urls == ("https://ex.com/a.xml", "https://ex.com/b.xml")
    assert found.issues == ()


def test_a_broken_bom_spoils_the_first_line_only_and_only_at_the_start() -> None:
    # robots_test.cc ID_UTF8ByteOrderMarkIsSkipped: Google sees "\x11\xbfSitemap: ..." first.
    assert urls(b"\xef\x11\xbfSitemap: /a.xml\nSitemap: /b.xml\n") == ("https://ex.com/b.xml",)
    assert urls(b"Sitemap: /a.xml\n\xef\xbb\xbfSitemap: /b.xml\n") == ("https://ex.com/a.xml",)


def test_a_line_ends_at_a_nul_and_after_googles_line_length() -> None:
    assert urls(b"Sitemap: /a.xml\0/junk\n") == ("https://ex.com/a.xml",)
    # Google keeps the first 16,663 bytes of a line: the third word falls beyond them.
    assert urls(b"sitemap /a.xml" + b" " * MAX_LINE_BYTES + b"/junk\n") == ("https://ex.com/a.xml",)
    assert urls(b"sitemap /a.xml /junk\n") == ()


def test_line_numbers_are_counted_as_google_counts_them() -> None:
    body = b"Sitemap: /1\r\nSitemap: /2\rSitemap: /3\n\rSitemap: /5\r\n\r\nSitemap: /7"
    assert [(line.number, line.value) for line in sitemap_lines(body)] == [
        (1, b"/1"),
        (2, b"/2"),
        (3, b"/3"),
        (5, b"/5"),
        (7, b"/7"),
    ]


# --- UTF-16 -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("codec", "name"), [("utf-16-le", "UTF-16LE"), ("utf-16-be", "UTF-16BE")])
def test_a_utf16_robots_txt_is_read_with_a_note(codec: str, name: str) -> None:
    text = "\ufeffUser-agent: *\r\nSitemap: /a.xml\r\nSitemap: https://ex.com/ü.xml\r\n"
    found = sitemap_urls(text.encode(codec), ROBOTS, ROBOTS)
    assert found.urls == ("https://ex.com/a.xml", "https://ex.com/%C3%BC.xml")
    assert found.issues == ()
    assert len(found.notes) == 1
    assert found.notes[0].startswith(f"{ROBOTS}: {name} ")
    assert "Google reads robots.txt as UTF-8 only" in found.notes[0]


def test_a_utf16_body_with_a_lone_surrogate_and_an_odd_last_byte_still_reads() -> None:
    body = "\ufeffSitemap: /a.xml\n".encode("utf-16-le") + b"\x00\xd8\n\x00S"
    found = sitemap_urls(body, ROBOTS, ROBOTS)
    assert found.urls == ("https://ex.com/a.xml",)
    assert all(i.encode("utf-8") for i in found.issues + found.notes)


def test_without_a_utf16_bom_there_is_no_note() -> None:
    assert sitemap_urls(b"Sitemap: /a.xml", ROBOTS, ROBOTS).notes == ()


# --- a value becomes a URL as a browser makes it ------------------------------------------------


def test_an_idn_host_is_in_its_idna_form_exactly_as_for_site_base() -> None:
    found = urls("Sitemap: http://www.šiaurė.lt/šiaurė.xml\nSitemap: HTTP://WWW.ŠIAURĖ.LT:8080/a\n")
    assert found == (
        "http://www.xn--iaur-yva35b.lt/%C5%A1iaur%C4%97.xml",
        "http://www.xn--iaur-yva35b.lt:8080/a",
    )
    site = resolve("http://www.šiaurė.lt/")
    assert site is not None and found[0].startswith(site.url + "/")


def test_a_byte_that_is_not_utf8_is_percent_encoded_as_itself() -> None:
    found = urls(b"Sitemap: /s\xff.xml?q=\xe9\n")
    assert found == ("https://ex.com/s%FF.xml?q=%E9",)


def test_an_empty_path_is_a_slash_and_an_empty_query_is_kept() -> None:
    assert urls("Sitemap: https://Ex.COM\nSitemap: /q?\n") == (
        "https://ex.com/",
        "https://ex.com/q?",
    )


@pytest.mark.parametrize(
    ("value", "host"),
    [
        ("http://.example.com/s.xml", ".example.com"),
        ("http://a..b/s.xml", "a..b"),
        ("http://xn--a.com/s.xml", "xn--a.com"),
        # The Standard's reading maps the ideographic full stops to dots: an empty label.
        ("http://ex\u3002\u3002com/s.xml", "ex..com"),
    ],
)
def test_a_value_whose_host_is_no_host_is_skipped_with_an_issue(value: str, host: str) -> None:
    found = sitemap_urls(f"Sitemap: {value}\nSitemap: /ok.xml\n".encode(), ROBOTS, ROBOTS)
    assert found.urls == ("https://ex.com/ok.xml",)
    assert found.issues == (
        f"{ROBOTS}: skipped Sitemap: value {cut_value(value)!r} "
        f"(host {cut_value(host)!r} has an empty label or no IDNA form)",
    )


def test_a_label_too_long_once_encoded_is_skipped_as_too_long_for_dns() -> None:
    value = "http://" + "ü" * 64 + ".com/s.xml"
    found = sitemap_urls(f"Sitemap: {value}\n".encode(), ROBOTS, ROBOTS)
    assert found.urls == ()
    assert found.issues == (
        f"{ROBOTS}: skipped Sitemap: value {cut_value(value)!r} "
        f"(host {cut_value('ü' * 64 + '.com')!r} {TOO_LONG_FOR_DNS})",
    )


def test_a_host_that_is_not_utf8_is_skipped_and_shown_as_replacement_characters() -> None:
    found = sitemap_urls(b"Sitemap: http://ex\xff.com/s\xfe.xml\n", ROBOTS, ROBOTS)
    assert found.urls == ()
    assert found.issues == (
        f"{ROBOTS}: skipped Sitemap: value 'http://ex\ufffd.com/s\ufffd.xml' "
        "(host 'ex\ufffd.com' has an empty label or no IDNA form)",
    )
    assert found.issues[0].encode("utf-8")  # no lone surrogate reaches an issue


def test_a_value_whose_url_is_too_long_once_encoded_is_skipped() -> None:
    value = "/" + "é" * 400  # 401 characters, 2,401 once percent-encoded
    found = sitemap_urls(f"Sitemap: {value}\n".encode(), ROBOTS, ROBOTS)
    assert found.urls == ()
    assert found.issues[0].endswith(f"(longer than {MAX_URL_CHARS} characters as a URL)")


def test_the_cap_counts_distinct_values_left_out() -> None:
    values = [f"/s{i}.xml" for i in range(125)]
    body = "".join(f"Sitemap: {v}\nSitemap: {v}\nSitemap: https://ex.com{v}\n" for v in values)
    found = sitemap_urls(body.encode(), ROBOTS, ROBOTS)
    assert found.urls == tuple(f"https://ex.com{v}" for v in values[:MAX_CANDIDATES])
    assert found.issues == (
        f"{ROBOTS}: 25 more distinct Sitemap: URLs beyond the first {MAX_CANDIDATES} left out, "
        "never tried",
    )


# --- the corpus: real robots.txt files ----------------------------------------------------------

PROTEGO_TGZ = SHARED_CORPUS / "peers" / "protego" / "test_data-sitemap-subset.tgz"


def _corpus_file(name: str) -> bytes:
    with tarfile.open(PROTEGO_TGZ) as tar:
        data = tar.extractfile(f"tests/test_data/{name}")
        assert data is not None
        return data.read()


@needs_shared
def test_klm_lists_125_distinct_values_and_25_are_left_out() -> None:
    robots = "https://www.klm.com/robots.txt"
    body = _corpus_file("www.klm.com")
    assert len(sitemap_lines(body)) == 127
    found = sitemap_urls(body, robots, robots)
    assert len(found.urls) == MAX_CANDIDATES
    assert found.urls[0] == "https://www.klm.com/sitemap.xml"
    assert found.issues == (
        f"{robots}: 25 more distinct Sitemap: URLs beyond the first 100 left out, never tried",
    )


@needs_shared
@pytest.mark.parametrize(
    ("name", "listed"),
    [
        ("store.usps.com", ("https://store.usps.com/store/siteindex.xml",)),
        ("www.myvue.com", ("https://www.myvue.com/sitemap.xml",)),
    ],
)
def test_real_utf16_robots_files_are_read(name: str, listed: tuple[str, ...]) -> None:
    robots = f"https://{name}/robots.txt"
    found = sitemap_urls(_corpus_file(name), robots, robots)
    assert found.urls == listed
    assert found.issues == ()
    assert found.notes[0].startswith(f"{robots}: UTF-16LE (byte-order mark FF FE); read here")


@needs_shared
def test_a_real_sitemap_line_without_its_colon() -> None:
    # www.au.dk writes `sitemap http://www.au.dk/sitemap.xml`: Google's key is `sitemap http`
    # (the first colon ends it) and its value the scheme-relative `//www.au.dk/sitemap.xml`.
    robots = "https://www.au.dk/robots.txt"
    found = sitemap_urls(_corpus_file("www.au.dk"), robots, robots)
    assert found.urls == ("https://www.au.dk/sitemap.xml", "https://www.au.dk/sitemap_en.xml")
    assert found.issues == (
        f"{robots}: key 'sitemap http' (2 lines) is read as Sitemap: by Google's lenient parser, "
        "but other crawlers may not read it: write 'Sitemap: <url>'",
    )


@needs_shared
def test_the_largest_real_lists_are_capped() -> None:
    body = (SHARED_CORPUS / "realworld2" / "robots-archive-cambridge-org.txt").read_bytes()
    robots = "https://www.cambridge.org/robots.txt"
    assert sitemap_urls(body, robots, robots).issues[-1] == (
        f"{robots}: 937 more distinct Sitemap: URLs beyond the first 100 left out, never tried"
    )
    many = sitemap_lines(_corpus_file("www.coldwellbanker.com"))
    assert len(many) == 1293


def test_a_sitemap_host_with_a_symbol_and_a_deviation_character_is_the_browsers_name() -> None:
    # ada encodes `☃ß.com` as `xn--zca921q.com`, an A-label that neither IDNA 2008 (the symbol)
    # nor IDNA 2003 (ß is "ss" there) decodes back: it was skipped, a host browsers visit.
    found = sitemap_urls(
        "Sitemap: http://☃ß.com/s.xml\n".encode(), "https://e.test/robots.txt", "r"
    )
    assert found.urls == ("http://xn--zca921q.com/s.xml",)
    assert found.issues == ()
