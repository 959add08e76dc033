"""robots.txt as Googlebot reads it, through the handler, against real servers on 127.0.0.1.

docs/contract.md §4 (which lines are Sitemap: lines, UTF-16, a value made into a URL as a browser
makes it, the cap of 100) and section 6 (501 for hosts that are not hosts, the order of issues).
"""

from __future__ import annotations

import errno
import tarfile
from collections.abc import Sequence

import pytest
from support.documents import urlset
from support.results import AuditFn, codes_of, data_of, days_ago
from support.shared import CORPUS, needs_shared

from harness.servers import Route, Site, reply

FRESH = days_ago(1)
PROTEGO_TGZ = CORPUS / "peers" / "protego" / "test_data-sitemap-subset.tgz"
IDN_HOST = "www.xn--iaur-yva35b.lt"  # www.šiaurė.lt


class Names:
    """A resolver that answers 127.0.0.1 for the given names, refuses others, and records all."""

    def __init__(self, *local: str) -> None:
        self.local = set(local)
        self.asked: list[str] = []

    def __call__(self, host: str, port: int) -> Sequence[str]:
        self.asked.append(host)
        if host in self.local:
            return ["127.0.0.1"]
        raise OSError(errno.ENOENT, f"no look-up of {host} in this test")


def robots_txt(body: bytes) -> Route:
    return reply(body, content_type="text/plain")


def lenient(robots: str, key: str) -> str:
    return (
        f"{robots}: {key} is read as Sitemap: by Google's lenient parser, but other crawlers may "
        "not read it: write 'Sitemap: <url>'"
    )


# --- which lines are Sitemap: lines -------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "key"),
    [
        (b"User-agent: *\nSitemaps: /sm.xml\n", "key 'Sitemaps'"),
        (b"User-agent: *\nSite-map: /sm.xml\n", "key 'Site-map'"),
        (b"User-agent: *\r\nsitemap /sm.xml\r\n", "key 'sitemap' without a colon"),
        (b"SITEMAP: /sm.xml", None),
        (b"\xef\xbb\xbfSitemap: /sm.xml\n", None),
        (b"\xef\xbbSitemap: /sm.xml\n", None),
        (b"\xefSitemap: /sm.xml\n", None),
    ],
)
def test_a_line_google_reads_is_listed_tried_and_keeps_302_from_firing(
    audit: AuditFn, site: Site, body: bytes, key: str | None
) -> None:
    site.route("/robots.txt", robots_txt(body))
    site.route("/sm.xml", reply(urlset([FRESH])))
    result = audit(site.url("/"))
    data = data_of(result)
    assert codes_of(result) == ["100", "200"]
    assert data["robotsTxtListsSitemap"] is True
    assert data["candidateSitemaps"] == [site.url("/sm.xml")]
    assert data["selectedSitemapUrl"] == site.url("/sm.xml")
    assert data["issues"] == ([lenient(site.url("/robots.txt"), key)] if key else [])
    assert site.paths() == ["/robots.txt", "/sm.xml"]


def test_a_line_google_does_not_read_still_gives_302(audit: AuditFn, site: Site) -> None:
    site.route("/robots.txt", robots_txt(b"Site map: /sm.xml\nSitemap /sm.xml /other.xml\n"))
    site.route("/sitemap.xml", reply(urlset([FRESH])))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "302", "200"]
    assert data_of(result)["issues"] == []


# --- UTF-16 -------------------------------------------------------------------------------------


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_a_utf16_robots_txt_is_read_and_the_issues_come_in_order(
    audit: AuditFn, site: Site, codec: str
) -> None:
    lines = [
        "\ufeffUser-agent: *",
        "Sitemaps: /missing.xml",
        "Sitemap: ftp://x/y",
        "Sitemap: /sm.xml",
    ]
    text = "".join(f"{line}\r\n" for line in lines)
    site.route("/robots.txt", robots_txt(text.encode(codec)))
    site.route("/sm.xml", reply(urlset([FRESH, "yesterday"])))
    result = audit(site.url("/"), preferences={"maxAgeDays": "7"})
    data = data_of(result)
    robots = site.url("/robots.txt")
    assert codes_of(result) == ["100", "200"]
    assert data["candidateSitemaps"] == [site.url("/missing.xml"), site.url("/sm.xml")]
    name = codec.upper().replace("UTF-16-", "UTF-16")
    issues = data["issues"]
    assert len(issues) == 6
    # The note on the file comes with robots.txt's answer, met before any candidate; notes on its
    # lines come with the skipped values, in line order (docs/contract.md §6).
    assert issues[0].startswith(f"{robots}: {name} (byte-order mark ")
    assert "Google reads robots.txt as UTF-8 only" in issues[0]
    assert issues[1] == f"{site.url('/missing.xml')}: HTTP 404"
    assert issues[2] == lenient(robots, "key 'Sitemaps'")
    assert issues[3] == f"{robots}: skipped Sitemap: value 'ftp://x/y' (not an http(s) URL)"
    assert issues[4].startswith("preferences.maxAgeDays")
    assert issues[5].startswith(f"{site.url('/sm.xml')}: unparsable <lastmod> 'yesterday'")


def _protego_file(name: str) -> bytes:
    with tarfile.open(PROTEGO_TGZ) as tar:
        data = tar.extractfile(f"tests/test_data/{name}")
        assert data is not None
        return data.read()


@needs_shared
@pytest.mark.parametrize(
    ("name", "listed"),
    [
        ("store.usps.com", "https://store.usps.com/store/siteindex.xml"),
        ("www.myvue.com", "https://www.myvue.com/sitemap.xml"),
    ],
)
def test_real_utf16_robots_files_list_their_sitemap(
    audit: AuditFn, site: Site, name: str, listed: str
) -> None:
    site.route("/robots.txt", robots_txt(_protego_file(name)))
    names = Names()  # the listed sitemap is on the real site: nothing leaves this machine
    result = audit(site.url("/"), resolver=names)
    data = data_of(result)
    assert codes_of(result) == ["100", "400"]  # read: no 302 that says it lists no sitemap
    assert data["robotsTxtListsSitemap"] is True
    assert data["candidateSitemaps"] == [listed]
    assert data["issues"][0].startswith(f"{site.url('/robots.txt')}: UTF-16LE (byte-order mark")
    assert data["issues"][1].startswith(f"{listed}: ")
    assert names.asked == [listed.split("/")[2]]


# --- a value becomes a URL as a browser makes it ------------------------------------------------


def test_an_idn_sitemap_host_is_asked_for_in_its_idna_form(audit: AuditFn, site: Site) -> None:
    line = f"Sitemap: http://www.šiaurė.lt:{site.port}/šiaurė.xml\n"
    site.route("/robots.txt", robots_txt(line.encode()))
    site.route("/%C5%A1iaur%C4%97.xml", reply(urlset([FRESH])))
    names = Names(IDN_HOST)
    result = audit(site.url("/"), resolver=names)
    data = data_of(result)
    url = f"http://{IDN_HOST}:{site.port}/%C5%A1iaur%C4%97.xml"
    assert codes_of(result) == ["100", "200"]
    assert data["candidateSitemaps"] == [url]
    assert data["selectedSitemapUrl"] == url
    assert names.asked == [IDN_HOST]
    assert site.seen[-1].headers["host"] == f"{IDN_HOST}:{site.port}"


def test_a_byte_that_is_not_utf8_is_sent_as_itself(audit: AuditFn, site: Site) -> None:
    site.route("/robots.txt", robots_txt(b"Sitemap: /s\xff.xml\n"))
    site.route("/s%FF.xml", reply(urlset([FRESH])))
    result = audit(site.url("/"))
    assert codes_of(result) == ["100", "200"]
    assert data_of(result)["selectedSitemapUrl"] == site.url("/s%FF.xml")
    assert site.paths() == ["/robots.txt", "/s%FF.xml"]


def test_a_value_whose_host_is_no_host_is_skipped_never_an_error(
    audit: AuditFn, site: Site
) -> None:
    values = [b"http://.example.com/s.xml", b"http://a..b/s.xml", b"http://ex\xff/", b"/sm.xml"]
    body = b"".join(b"Sitemap: %s\n" % value for value in values)
    site.route("/robots.txt", robots_txt(body))
    site.route("/sm.xml", reply(urlset([FRESH])))
    names = Names()
    result = audit(site.url("/"), resolver=names)
    data = data_of(result)
    robots = site.url("/robots.txt")
    assert result["status"] == "SUCCESS"
    assert data["candidateSitemaps"] == [site.url("/sm.xml")]
    assert data["issues"] == [
        f"{robots}: skipped Sitemap: value 'http://.example.com/s.xml' "
        "(host '.example.com' has an empty label or no IDNA form)",
        f"{robots}: skipped Sitemap: value 'http://a..b/s.xml' "
        "(host 'a..b' has an empty label or no IDNA form)",
        f"{robots}: skipped Sitemap: value 'http://ex\ufffd/' "
        "(host 'ex\ufffd' has an empty label or no IDNA form)",
    ]
    assert names.asked == []


# --- the cap of 100 -----------------------------------------------------------------------------


def test_only_the_first_100_distinct_values_are_tried_and_the_rest_counted(
    audit: AuditFn, site: Site
) -> None:
    lines = []
    for i in range(125):
        lines += [
            f"Sitemap: /s{i}.xml",
            f"Sitemap: {site.url(f'/s{i}.xml')}",
            f"Sitemap: /s{i}.xml",
        ]
    site.route("/robots.txt", robots_txt("\n".join(lines).encode()))
    result = audit(site.url("/"))
    data = data_of(result)
    assert codes_of(result) == ["100", "400"]
    assert data["candidateSitemaps"] == [site.url(f"/s{i}.xml") for i in range(100)]
    assert site.paths() == ["/robots.txt"] + [f"/s{i}.xml" for i in range(100)]
    assert data["issues"][-1] == (
        f"{site.url('/robots.txt')}: 25 more distinct Sitemap: URLs beyond the first 100 "
        "left out, never tried"
    )


@needs_shared
def test_klm_robots_txt_125_distinct_values_25_left_out(audit: AuditFn, site: Site) -> None:
    site.route("/robots.txt", robots_txt(_protego_file("www.klm.com")))
    names = Names()  # every candidate is on the real site: refused here, tried no further
    result = audit(site.url("/"), resolver=names)
    data = data_of(result)
    assert len(data["candidateSitemaps"]) == 100
    assert data["candidateSitemaps"][0] == "https://www.klm.com/sitemap.xml"
    assert data["issues"][-1] == (
        f"{site.url('/robots.txt')}: 25 more distinct Sitemap: URLs beyond the first 100 "
        "left out, never tried"
    )
    assert len(names.asked) == 100


# --- 501 for hosts that are not hosts -----------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://.example.com/",
        "http://a..b/",
        "https://example.com../page",
        "http://xn--a.com/",
        "http://" + "ü" * 64 + ".com/",
        "http://ex\u3002\u3002com/",
    ],
)
def test_a_host_that_is_no_host_is_501_and_nothing_is_fetched(audit: AuditFn, url: str) -> None:
    names = Names()
    result = audit(url, resolver=names)
    data = data_of(result)
    assert result["status"] == "ERROR"
    assert codes_of(result) == ["100", "501"]
    assert data["siteBase"] is None and data["issues"] == []
    assert names.asked == []
