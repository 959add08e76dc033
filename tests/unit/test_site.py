"""Site root (docs/contract.md §3, siteBase) and the 501 rendering of the audited URL."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemap_auditor.core import urls
from sitemap_auditor.core.site import describe_url_value, resolve
from sitemap_auditor.core.urls import strip_userinfo
from sitemap_auditor.fetching import transport
from sitemap_auditor.fetching.exchange import Request


@pytest.mark.parametrize(
    ("url", "base"),
    [
        ("https://www.example.com/some/page?x=1", "https://www.example.com"),
        ("HTTPS://WWW.Example.COM/", "https://www.example.com"),
        ("http://h:80/", "http://h:80"),
        ("https://h:443", "https://h:443"),
        ("http://h:8080/x#frag", "http://h:8080"),
        ("  https://example.com/  \n", "https://example.com"),
        ("https://user:pa55@example.com/private", "https://example.com"),
        ("https://bücher.example/", "https://xn--bcher-kva.example"),
        ("http://[::1]:8000/", "http://[::1]:8000"),
        ("http://127.0.0.1/", "http://127.0.0.1"),
        ("https://example.com?q", "https://example.com"),
        ("HTTP://WWW.ŠIAURĖ.LT/x", "http://www.xn--iaur-yva35b.lt"),
        ("https://xn--bcher-kva.example/", "https://xn--bcher-kva.example"),
        ("https://example.com./", "https://example.com."),  # the DNS root's empty label
    ],
)
def test_site_base(url: str, base: str) -> None:
    site = resolve(url)
    assert site is not None
    assert site.url == base
    assert site.robots_txt_url == base + "/robots.txt"


@pytest.mark.parametrize(
    "url",
    [
        None,
        42,
        ["https://example.com/"],
        "",
        "   ",
        "example.com",
        "www.example.com/page",
        "/relative/path",
        "ftp://example.com/",
        "file:///etc/passwd",
        "javascript:alert(1)",
        "https://",
        "https:///path",
        "http://:80/",
        "https://example.com:99999/",
        "https://example.com:port/",
        "http://exa mple.com/",
        "mailto:someone@example.com",
        # docs/contract.md §6: a host with an empty label, or that no IDNA encoding accepts.
        "http://.example.com/",
        "http://a..b/",
        "http://example.com../",
        "http://./",
        "http://ex\u3002\u3002com/",  # ideographic full stops map to dots: an empty label
        "http://xn--a.com/",  # an A-label that decodes to nothing valid
        "http://" + "ü" * 64 + ".com/",  # a label too long for DNS once encoded
        "http://a\udcffb.com/",
        # docs/contract.md §8: browsers read another host (or none) than RFC 3986 does.
        "http://site.example\\@other.example/",
        "http://site.example\\\\@other.example/page",
        "http:\\\\u:p@h/",
        "http:/u:p@h/",
        "http:u:p@h/",
        # docs/contract.md §8: a bracketed host that is no IPv6 literal.
        "http://[v1.a:bbb]/",
        "http://[v1." + "a:b" * 100_000 + "]/",
        "http://[::1%25eth0]/",
        "http://[1:2:3:4:5:6:7:8:9]/",
    ],
)
def test_no_site_root(url: object) -> None:
    assert resolve(url) is None


@pytest.mark.parametrize(
    ("url", "base"),
    [
        # Spelled apart, read alike: the Standard's IPv4 forms, a default port written.
        ("http://0x7f.1/", "http://0x7f.1"),
        ("http://2130706433/", "http://2130706433"),
        ("http://h:80/", "http://h:80"),
        ("http://h:0080/", "http://h:80"),
        ("http://[::FFFF:127.0.0.1]/", "http://[::ffff:127.0.0.1]"),
        ("http://u%5C:p@h/", "http://h"),
    ],
)
def test_the_two_readings_agree_on_these(url: str, base: str) -> None:
    site = resolve(url)
    assert site is not None and site.url == base


def test_the_origin_for_credentials_is_the_one_reading_of_the_site() -> None:
    site = resolve("http://0x7f.1:80/page")
    assert site is not None
    assert site.url == "http://0x7f.1:80"
    assert site.origin() == ("http", "127.0.0.1", 80)


def test_strip_userinfo_in_every_spelling_browsers_read() -> None:
    for url in ("http:\\\\u:pw@h/", "http:/u:pw@h/", "http:u:pw@h/", "http://u:p w  x@h/"):
        assert "pw" not in strip_userinfo(url) and "p w" not in strip_userinfo(url)
    assert (
        strip_userinfo("see http://a:b@x/ and HTTPS://c:d@y:1/z")
        == "see http://x/ and HTTPS://y:1/z"
    )


def test_strip_userinfo_sees_through_tabs_and_newlines_inside_a_scheme() -> None:
    # Browsers drop them anywhere in a URL: `http\t:` is `http:`, `a\thttp` the scheme ahttp,
    # whose authority a backslash does not end.
    for url in (
        "http\t:token@evil.example/",
        "http\n:/token@evil.example/",
        "http\t:me_:s3cret@evil.example/",
        "a\thttp://me_\\:s3cret@evil.example/",
        "see h\rttps://u:s3cret@evil.example/ here",
    ):
        out = strip_userinfo(url)
        assert "s3cret" not in out and "token" not in out, (url, out)
    # Text with tabs and no hidden userinfo keeps them.
    assert strip_userinfo("a\tb@c\thttp://h/") == "a\tb@c\thttp://h/"


def test_two_slashes_inside_a_path_start_no_authority() -> None:
    # fbi.gov's robots.txt writes `Disallow: /*@@`: a listed URL's path may hold `//y@@`.
    assert strip_userinfo("http://h//y@@castle/y") == "http://h//y@@castle/y"
    assert strip_userinfo("http://h/a/b//c@d") == "http://h/a/b//c@d"
    # Two slashes that open a URL in text still do.
    assert strip_userinfo('href="//u:p@h/" and //u:p@h2/') == 'href="//h/" and //h2/'


@pytest.mark.parametrize(
    "run",
    # A run of scheme characters that no colon ends: a scheme tried from each of its letters
    # made the search quadratic (40,000 characters took 6 s; a robots.txt line may hold 500 KiB).
    ["a", "a+", "a1", "1"],
)
def test_strip_userinfo_is_linear_in_a_run_no_colon_ends(run: str) -> None:
    text = run * (2_000_000 // len(run)) + "@h"
    assert strip_userinfo(text) == text


@pytest.mark.parametrize(
    "url",
    [
        "//u:pw@h/x",  # scheme-relative: a base gives it a scheme, and it has userinfo
        "\\\\u:pw@h/x",
        "/\\u:pw@h/x",
        "/\t/u:pw@h/x",  # browsers drop tabs and newlines wherever they are
        "http:/\t/u:pw@h/x",
        "http:\n//u:pw@h/x",
        "foo://u:pw\\@h/x",  # outside the special schemes a backslash is userinfo
    ],
)
def test_strip_userinfo_without_a_scheme_or_with_tabs(url: str) -> None:
    stripped = strip_userinfo(url)
    assert "pw" not in stripped and "u:" not in stripped
    assert stripped.endswith("h/x")


def test_strip_userinfo_of_a_backslash_before_an_at_in_either_reading() -> None:
    # For http(s) the WHATWG reading ends the host at the backslash (`site`, no userinfo);
    # RFC 3986's, which the event's url keeps, reads `site\` and `admin:pw\` as userinfo. No
    # echoed URL carries userinfo in any spelling: it goes, and never half of it (`admin:` was
    # kept, read as a scheme of its own).
    assert strip_userinfo("http://site\\@other/") == "http://other/"
    assert strip_userinfo("http://admin:s3cret\\@other.example/") == "http://other.example/"
    # A backslash with no `@` after it in the authority is no userinfo in either reading.
    assert strip_userinfo("https://example.com\\path") == "https://example.com\\path"


def test_strip_userinfo() -> None:
    assert strip_userinfo("https://u:p@h/x") == "https://h/x"
    assert strip_userinfo("https://u:p@w@h:1/x?a=b@c") == "https://h:1/x?a=b@c"
    assert strip_userinfo("https://h/x?mail=a@b") == "https://h/x?mail=a@b"
    assert strip_userinfo("no scheme@all") == "no scheme@all"


def test_describe_url_value() -> None:
    assert describe_url_value(None) == "null"
    assert describe_url_value("  ftp://u:secret@h/  ") == "ftp://h/"
    assert describe_url_value(42) == "42"
    assert describe_url_value({"a": [1, True]}) == '{"a": [1, true]}'
    long = describe_url_value("x" * 10_000)
    assert len(long) <= 2048 and long.endswith("...")


def test_a_url_nested_too_deep_for_json_dumps_is_rendered_and_cut() -> None:
    value: object = "http://u:secret@h/"
    for _ in range(100_000):
        value = [value]
    shown = describe_url_value(value)
    assert shown.startswith("[[[") and len(shown) <= 2048 and shown.endswith("...")
    assert "secret" not in describe_url_value([[{"u": ["http:\\\\u:secret@h/"]}]])


def test_non_string_values_render_as_json_does() -> None:
    value = {"a": [1, 2.5, None, True, "x"], "b": {"c": []}, "d": {}}
    assert describe_url_value(value) == json.dumps(value, ensure_ascii=False)


@pytest.mark.parametrize(
    ("url", "base"),
    [
        # IDNA 2008 refuses the symbol, and IDNA 2003 maps ß to "ss": `xn--ss-esx.com` is
        # another name (☃ss.com). Browsers read UTS 46 without transitions: `xn--zca921q.com`.
        ("http://☃ß.com/", "http://xn--zca921q.com"),
        ("https://ς☃.gr/x", "https://xn--3xa256o.gr"),  # IDNA 2003: σ, xn--4xa056o
        ("http://☃.net/", "http://xn--n3h.net"),
    ],
)
def test_a_symbol_host_is_the_name_browsers_read_and_not_refused(url: str, base: str) -> None:
    site = resolve(url)
    assert site is not None and site.url == base
    assert site.origin()[1] == base.split("//")[1]


def test_an_integer_too_long_for_its_decimal_text_is_rendered_not_raised() -> None:
    # str() of an integer over 4,300 digits raises ValueError: the 501 became an ERROR.
    assert describe_url_value(10**5000) == '"an integer of about 5,001 digits"'
    shown = describe_url_value([10**4000])  # under the limit: its digits, cut as ever
    assert shown.startswith("[1000") and shown.endswith("...") and len(shown) == 2048


_LABEL = st.text(
    st.characters(
        min_codepoint=0x21,
        max_codepoint=0x2FFFF,
        exclude_categories=["Cs"],
        exclude_characters="/?#@\\:[]%",
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_LABEL, min_size=1, max_size=3))
def test_site_base_names_the_host_of_the_origin_credentials_go_to(labels: list[str]) -> None:
    # siteBase (IDNA 2008, else the browsers' UTS 46) and the origin (ada) name one host, so
    # that robots.txt at siteBase is the origin's: 40,000 random hosts found no difference.
    site = resolve(f"http://{'.'.join(labels)}.com/")
    if site is not None:
        assert site.host == site.origin()[1]


_URL_PIECES = st.sampled_from(
    [
        *"hH:/\\@[]%.0x7f1?#\t\n ",
        *("http://", "https:", "[::", "xn--", "%2e", "%00", "。", "．", "ß", "☃", "\ud800"),
        *("\x00", "0x", "::ffff:", "%5C", "%2F", "%40", "１"),
    ]
)
_URL_TEXT = st.one_of(st.text(), st.lists(_URL_PIECES, max_size=30).map("".join))


@settings(max_examples=500, deadline=None)
@given(_URL_TEXT, st.one_of(st.none(), st.just("http://site.test/a/b"), _URL_TEXT))
def test_the_one_reading_gives_a_web_url_or_refuses_and_urllib3_agrees(
    text: str, base: str | None
) -> None:
    # Anything else raised by ada would be a defect; urllib3 reading another host or port out
    # of the serialization would make transport._connect refuse a URL the reading accepts.
    try:
        url = urls.read(text, base)
    except urls.UnfetchableURLError:
        return
    assert urls.read(url.href) == url
    prepared = transport.prepared(Request(url, {}))
    pool = _ADAPTER.get_connection_with_tls_context(prepared, True, proxies={})
    assert (pool.host.strip("[]").lower(), pool.port) == (url.host, url.port)
    assert url.target.startswith("/") and "#" not in url.target


_ADAPTER = transport.GuardedAdapter()


@pytest.mark.parametrize("raw", ["/", "#", "?", "/?#", "\\"])
def test_a_password_holding_what_ends_an_authority_is_never_echoed(raw: str) -> None:
    # The WHATWG reading ends the authority at the password's own `/`, `?` or `#`: the URL is
    # refused, and its echo hides what was meant as userinfo (docs/contract.md §8).
    password = f"pa{raw}ss"
    value = f"http://user:{password}@example.com/"
    with pytest.raises(ValueError):
        urls.read(value)
    for shown in (urls.echoed_url(value), describe_url_value(value)):
        assert password not in shown and "ss@" not in shown and shown.endswith("example.com/")


@pytest.mark.parametrize(
    "value",
    ["https://example.com/@team", "https://example.com/a?who=@me#@x", "not a url @ all"],
)
def test_an_at_sign_in_a_url_the_reading_accepts_or_in_no_url_stays(value: str) -> None:
    assert urls.echoed_url(value) == value


def test_userinfo_the_reading_sees_goes_as_before() -> None:
    assert urls.echoed_url("https://u:p@example.com/x") == "https://example.com/x"
    assert urls.echoed_url("http://user:pa/ss@example.com/") == "http://***@example.com/"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        # Another scheme has an authority only after `//`: the rest is a path, kept whole.
        ("https://h.example/wiki/User:Bob@home", "https://h.example/wiki/User:Bob@home"),
        (
            "https://h.example/s?to=mailto:jane@example.com",
            "https://h.example/s?to=mailto:jane@example.com",
        ),
        ("https://h.example/s?u=a:b@c", "https://h.example/s?u=a:b@c"),
        ("foo://u:pw@h.example/x", "foo://h.example/x"),
        # Two slashes of any kind may start a URL a base gives its scheme, after a word too.
        ("Location:\\\\u:pw@h.example/", "Location:\\\\h.example/"),
        ("Sitemap:/\\u:pw@h.example/s.xml", "Sitemap:/\\h.example/s.xml"),
        # A special scheme glued to what precedes it (a scheme is tried from a run's start).
        (
            "https://h.example/?next%3Dhttps:\\\\u:pw@e.example/",
            "https://h.example/?next%3Dhttps:\\\\e.example/",
        ),
        (
            "https://h.example/?q=backup+https:/u:pw@e.example/",
            "https://h.example/?q=backup+https:/e.example/",
        ),
        ("see\nht\ttp:/u:pw@e.example/", "seehttp:/e.example/"),
        ("https://h.example/?q=a+ws:/u:pw@e.example/", "https://h.example/?q=a+ws:/e.example/"),
        # Words that end as no special scheme does stay paths.
        ("https://h.example/wiki/Profile:Bob@home", "https://h.example/wiki/Profile:Bob@home"),
        ("https://h.example/wiki/News:Bob@home", "https://h.example/wiki/News:Bob@home"),
        # file URLs hold no userinfo to the WHATWG reading, and to RFC 3986 only after //.
        ("https://h.example/wiki/File:Logo@2x.png", "https://h.example/wiki/File:Logo@2x.png"),
        ("file://u:pw@h.example/x", "file://h.example/x"),
        # The special schemes, in any spelling, and a URL inside another.
        ("http:u:pw@h.example/x", "http:h.example/x"),
        ("http://admin:8080\\@h.example/x", "http://h.example/x"),
        (
            "https://h.example/r?next=http://bob:pw@o.example/",
            "https://h.example/r?next=http://o.example/",
        ),
    ],
)
def test_strip_userinfo_finds_an_authority_only_where_a_url_has_one(text: str, shown: str) -> None:
    assert strip_userinfo(text) == shown
