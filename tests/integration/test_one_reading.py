"""One reading of every URL (docs/contract.md §8), through real servers on two loopback origins.

Each case is a URL that two parsers read apart: urlsplit (RFC 3986, the documented auditor's
reading of the event) or urllib3 against the WHATWG URL Standard (what browsers, crawlers and
this auditor's fetcher read). The site is 127.0.0.1, the third party 127.0.0.2, each with a
server that records every request: the tests assert who received an Authorization header.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Iterator
from typing import Any

import pytest
from support.documents import urlset
from support.results import LOCAL, LogCapture, codes_of, data_of, days_ago

from harness.servers import Site, redirect, reply, robots_with
from sitemap_auditor import handler
from sitemap_auditor.fetching.guard import Resolver

USER, PASSWORD = "auditor", "Pa55-w0rd-9Zq"
TOKEN = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
CREDS = {"basicAuth": {"username": USER, "password": PASSWORD}}
SITEMAP = urlset([days_ago(1)])


@pytest.fixture
def third_party() -> Iterator[Site]:
    """Another origin: a server on 127.0.0.2."""
    s = Site(host="127.0.0.2").start()
    yield s
    s.stop()


def audit(url: str, **event: object) -> dict[str, Any]:
    return handler.run({"id": "one-reading", "url": url, **event}, None, LOCAL)


def authorized(site: Site) -> list[str]:
    """The paths of the requests that carried the audit's credentials."""
    return [s.path for s in site.seen if s.headers.get("authorization") == f"Basic {TOKEN}"]


def test_a_redirect_read_two_ways_sends_no_credentials_to_the_third_party(
    site: Site, third_party: Site
) -> None:
    # urlsplit reads the host after "@" (the site: credentials would go along); urllib3 and
    # browsers connect to the host before "\\", the third party. Only the latter reading counts.
    location = f"http://{third_party.host}:{third_party.port}\\@{site.host}:{site.port}/x"
    site.route("/robots.txt", robots_with("Sitemap: /sitemap.xml"))
    site.route("/sitemap.xml", redirect(location))
    third_party.route(f"/@127.0.0.1:{site.port}/x", reply(SITEMAP))
    result = audit(site.url("/page"), **CREDS)
    assert codes_of(result) == ["100", "200"]
    assert data_of(result)["selectedSitemapUrl"] == site.url("/sitemap.xml")
    assert authorized(site) == ["/robots.txt", "/sitemap.xml"]
    assert [s.path for s in third_party.seen] == [f"/@127.0.0.1:{site.port}/x"]
    assert authorized(third_party) == []
    assert all("authorization" not in s.headers for s in third_party.seen)


def test_a_redirect_that_leaves_the_origin_and_comes_back_is_authorized_only_at_home(
    site: Site, third_party: Site
) -> None:
    site.route("/robots.txt", robots_with("Sitemap: /sitemap.xml"))
    site.route("/sitemap.xml", redirect(third_party.url("/hop")))
    third_party.route("/hop", redirect(site.url("/home.xml")))
    site.route("/home.xml", reply(SITEMAP))
    result = audit(site.url("/"), **CREDS)
    assert codes_of(result) == ["100", "200"]
    assert authorized(site) == ["/robots.txt", "/sitemap.xml", "/home.xml"]
    assert third_party.paths() == ["/hop"] and authorized(third_party) == []


@pytest.mark.parametrize(
    "spelling",
    [
        # Browsers read site.example here (the "\\" ends the host); urlsplit reads the host
        # after "@", which would become siteBase and receive the event's credentials.
        "http://{site}\\@{other}/",
        "http://{site}\\\\@{other}/page",
        "http://{site}%5C@{other}/",
    ],
)
def test_an_audited_url_read_two_ways_is_refused_and_nothing_is_fetched(
    site: Site, third_party: Site, spelling: str
) -> None:
    url = spelling.format(
        site=f"{site.host}:{site.port}", other=f"{third_party.host}:{third_party.port}"
    )
    result = audit(url, **CREDS)
    if "%5C" in url:
        # Percent-encoded, the backslash is userinfo for both readings: one host, no refusal;
        # and the credentials go to that host only.
        assert data_of(result)["siteBase"] == third_party.base
        assert site.seen == []
        return
    assert result["status"] == "ERROR"
    assert codes_of(result) == ["100", "501"]
    assert site.seen == [] and third_party.seen == []


@pytest.mark.parametrize(
    "spelling",
    ["http:\\\\{u}:{p}@{h}/", "http:/{u}:{p}@{h}/", "http:{u}:{p}@{h}/", "http://{u}:{p}@{h}\\x/"],
)
def test_userinfo_in_any_spelling_is_never_echoed_nor_logged(
    site: Site, logs: LogCapture, spelling: str
) -> None:
    url = spelling.format(u="me", p="S3cret-Pw-77", h=f"{site.host}:{site.port}")
    result = audit(url)
    text = str(result) + logs.text()
    assert "S3cret-Pw-77" not in text
    assert "me:" not in text


@pytest.mark.parametrize("password", ["S3cret-Pw-77", "Pässwort-77"])
def test_a_password_echoed_as_a_host_is_in_no_result_nor_log_line(
    site: Site, logs: LogCapture, password: str
) -> None:
    # The reading lists the echoed Sitemap: URL with its host lower-cased and IDNA-encoded,
    # and the audit names that host when it cannot be fetched: neither form may show.
    site.route(
        "/robots.txt",
        robots_with(f"Sitemap: http://{password.upper()}.invalid/s.xml\nSitemap: /sitemap.xml"),
    )
    site.route("/sitemap.xml", reply(SITEMAP))
    result = audit(site.url("/"), basicAuth={"username": USER, "password": password})
    assert codes_of(result) == ["100", "200"]
    assert len(data_of(result)["candidateSitemaps"]) == 2
    text = str(result) + logs.text()
    assert ".invalid/s.xml" in text
    assert password.lower() not in text and "xn--" not in text


@pytest.mark.parametrize("written", ["Hunter%20Two", "Hunter Two"])
def test_a_password_no_dns_can_carry_as_a_host_is_in_no_result_in_any_case(
    site: Site, logs: LogCapture, written: str
) -> None:
    # The issue names the host the reading lower-cases ('hunter two'): no case of it shows.
    site.route("/robots.txt", robots_with(f"Sitemap: http://{written}/\nSitemap: /sitemap.xml"))
    site.route("/sitemap.xml", reply(SITEMAP))
    result = audit(site.url("/"), basicAuth={"username": USER, "password": "Hunter Two"})
    assert codes_of(result) == ["100", "200"]
    text = (str(result) + logs.text()).lower()
    assert "skipped sitemap" in text
    assert "hunter two" not in text and "hunter%20two" not in text


def test_a_sitemap_value_with_an_empty_host_is_read_as_browsers_read_it(
    site: Site, third_party: Site
) -> None:
    # `http:///127.0.0.2:P/s.xml` is, for browsers, http://127.0.0.2:P/s.xml: not the value
    # as written (no host), nor a mix of two readings. It is another origin: no credentials.
    site.route(
        "/robots.txt", robots_with(f"Sitemap: http:///{third_party.host}:{third_party.port}/s.xml")
    )
    third_party.route("/s.xml", reply(SITEMAP))
    result = audit(site.url("/"), **CREDS)
    data = data_of(result)
    assert data["candidateSitemaps"] == [third_party.url("/s.xml")]
    assert data["selectedSitemapUrl"] == third_party.url("/s.xml")
    assert third_party.paths() == ["/s.xml"] and authorized(third_party) == []


def test_a_sitemap_value_with_userinfo_is_listed_and_fetched_without_it(
    site: Site, third_party: Site
) -> None:
    site.route(
        "/robots.txt",
        robots_with(f"Sitemap: http://x:y@{third_party.host}:{third_party.port}/s.xml"),
    )
    third_party.route("/s.xml", reply(SITEMAP))
    result = audit(site.url("/"), **CREDS)
    assert data_of(result)["candidateSitemaps"] == [third_party.url("/s.xml")]
    assert all("authorization" not in s.headers for s in third_party.seen)


def test_an_audited_url_that_no_colon_ends_is_refused_in_linear_time(logs: LogCapture) -> None:
    # The event's url is logged and echoed without userinfo: a megabyte of letters and an "@"
    # took hours to strip.
    started = time.monotonic()
    result = audit("a" * 1_000_000 + "@")
    assert time.monotonic() - started < 5
    assert codes_of(result) == ["100", "501"]
    assert logs.lines()[0]["url"] == "a" * 2048


@pytest.mark.parametrize(
    "target",
    [
        # urllib3 re-encoded the target it was handed: `%zz` and, with it, every escape
        # (`%41` became `%2541`, another resource), lower-case hex upper-cased, and `|[]`
        # escaped, which browsers send as they are.
        "/s%zz%41.xml",
        "/s%2f.xml",
        "/s|x[1].xml?q|r%zz",
        "/s.xml?a=%e9",
    ],
)
def test_the_request_target_is_the_one_readings_to_the_byte(site: Site, target: str) -> None:
    site.route("/robots.txt", robots_with(f"Sitemap: {target}"))
    site.route(target, reply(SITEMAP))
    result = audit(site.url("/"))
    assert data_of(result)["selectedSitemapUrl"] == site.url(target)
    assert site.paths() == ["/robots.txt", target]


def test_the_host_header_is_the_one_readings(site: Site) -> None:
    # A fully qualified name's trailing dot is part of the host browsers send; urllib3 cut it.
    resolver: Resolver = lambda host, port: ["127.0.0.1"]  # noqa: E731
    site.route("/robots.txt", robots_with("Sitemap: /s.xml"))
    site.route("/s.xml", reply(SITEMAP))
    result = handler.run(
        {"id": "host", "url": f"http://Site.Test.:{site.port}/"}, None, LOCAL, resolver
    )
    assert codes_of(result) == ["100", "200"]
    assert {s.headers["host"] for s in site.seen} == {f"site.test.:{site.port}"}


def test_proxies_from_the_environment_never_apply(
    site: Site, third_party: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A proxy would be a third origin seeing every request, credentials included.
    for name in (
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        monkeypatch.setenv(name, third_party.base)
    monkeypatch.setenv("NO_PROXY", "")
    site.route("/robots.txt", robots_with("Sitemap: /s.xml"))
    site.route("/s.xml", reply(SITEMAP))
    result = audit(site.url("/"), **CREDS)
    assert codes_of(result) == ["100", "200"]
    assert authorized(site) == ["/robots.txt", "/s.xml"]
    assert third_party.seen == []


@pytest.mark.parametrize(
    ("spelling", "home"),
    [
        # Spellings of the site (127.0.0.1): the same origin by the one reading, credentials go.
        ("http://0x7f.1:{sp}/x", True),
        ("http://127.1:{sp}/x", True),
        ("http://2130706433:{sp}/x", True),
        ("http://0177.0.0.01:{sp}/x", True),
        ("http://127.0.0.1.:{sp}/x", True),
        ("HTTP://127.0.0.1:0{sp}/x", True),
        ("http://12\t7.0.0.1:{sp}/\nx", True),
        ("http://{op}%2F@127.0.0.1:{sp}/x", True),  # the other origin is userinfo here
        ("http:x", True),  # same scheme, no slashes: a path on the site
        # Spellings of the third party (127.0.0.2): another origin, no credentials.
        ("http://0x7f.2:{op}/x", False),
        ("http://127.2:{op}/x", False),
        ("http://2130706434:{op}/x", False),
        ("//127.0.0.2:{op}/x", False),
        ("\\\\127.0.0.2:{op}\\x", False),
        ("/\\127.0.0.2:{op}/x", False),
        ("http:\\\\127.0.0.2:{op}/x", False),
        ("http://127.0.0.1:{sp}@127.0.0.2:{op}/x", False),
        ("http://127.0.0.2:{op}\\@127.0.0.1:{sp}/x", False),
        ("http://127.0.0.2:{op}#@127.0.0.1:{sp}/x", False),
        ("http://127.0.0.2:{op}?@127.0.0.1:{sp}/x", False),
        ("http://127%2E0.0.2:{op}/x", False),
        ("http://１２７.０.０.２:{op}/x", False),  # fullwidth digits, as IDNA maps them
        ("http://127。0。0。2:{op}/x", False),  # ideographic full stops
    ],
)
def test_every_spelling_of_a_redirect_is_one_origin_for_credentials_and_connection(
    site: Site, third_party: Site, spelling: str, home: bool
) -> None:
    location = spelling.format(sp=site.port, op=third_party.port)
    site.route("/robots.txt", robots_with("Sitemap: /s.xml"))
    # As servers send it: UTF-8 bytes, which http.server writes as Latin-1.
    site.route("/s.xml", redirect(location.encode().decode("latin-1")))
    for server in (site, third_party):
        for path in ("/x", "/x%20", f"/127.0.0.2:{third_party.port}/x", "/%0Ax", "/"):
            server.route(path, reply(SITEMAP))
    audit(site.url("/"), **CREDS)
    # Exactly one hop more, at the origin the one reading names; the Authorization with it
    # only when that is the site's.
    hops = (site.seen[2:], third_party.seen)
    served, untouched = hops if home else hops[::-1]
    assert len(served) == 1 and untouched == []
    assert ("authorization" in served[0].headers) is home


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_a_password_the_site_lists_in_a_sitemap_url_is_in_no_result_nor_log_line(
    site: Site, logs: LogCapture
) -> None:
    # The Standard encodes a query as neither quote() nor quote_plus() does, and the fetch
    # log line names the URL fetched.
    password = "p@ss w{rd}&1\\x"
    listed = f"/s.xml?pw={password}"
    site.route("/robots.txt", robots_with(f"Sitemap: {listed}", "Sitemap: " + "z" * 90 + password))
    site.route("/s.xml?pw=p@ss%20w{rd}&1\\x", reply(SITEMAP))
    result = audit(site.url("/"), basicAuth={"username": USER, "password": password})
    assert codes_of(result) == ["100", "200"]
    echoed = "\n".join(_strings(result) + [s for line in logs.lines() for s in _strings(line)])
    assert "/s.xml?pw=***" in echoed
    for n in range(3, len(password) + 1):
        assert password[:n] not in echoed
    assert "p@ss%20w{rd}" not in echoed and "w{rd}&1" not in echoed


def test_a_location_is_trimmed_as_a_header_not_as_python_white_space(
    site: Site, third_party: Site
) -> None:
    # `Location: <NBSP>http://other/...` is, as browsers read it, a path of this site (the
    # WHATWG reading trims C0 controls and space only); str.strip() dropped the NBSP and the
    # fetcher followed to the other host, whose answer the audit then used.
    from harness.servers import send

    target = f"http://127.0.0.2:{third_party.port}/sitemap.xml"
    location = ("\u00a0" + target).encode().decode("latin-1")  # as http.client hands it over
    site.route("/robots.txt", robots_with(f"Sitemap: {site.url('/moved.xml')}"))
    site.route("/moved.xml", lambda h: send(h, 301, b"", {"Location": location}))
    third_party.route("/sitemap.xml", reply(urlset([days_ago(1)])))
    result = audit(site.url("/"))
    assert third_party.seen == []
    assert codes_of(result)[:2] == ["100", "400"]
