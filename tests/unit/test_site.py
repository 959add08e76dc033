"""Site root (docs/contract.md §3, siteBase) and the 501 rendering of the audited URL."""

from __future__ import annotations

import pytest

from sitemap_auditor.site import describe_url_value, resolve, strip_userinfo


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
    ],
)
def test_no_site_root(url: object) -> None:
    assert resolve(url) is None


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
