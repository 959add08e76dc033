"""urls.resource_key: the spellings of one resource that the deep audit reads once."""

from __future__ import annotations

import pytest

from sitemap_auditor.core.urls import read, resource_key

SAME = [
    "https://www.example.com/a-b.xml",
    "HTTPS://WWW.Example.COM/a-b.xml",
    "https://www.example.com:443/a-b.xml",
    "https://www.example.com/a-b.xml?",
    "https://www.example.com/a-b.xml#top",
    "https://www.example.com/a%2Db.xml",
    "https://www.example.com/%61-b.xml",
    "https://www.example.com/x/../a-b.xml",
]


@pytest.mark.parametrize("spelling", SAME)
def test_every_spelling_of_one_resource_has_one_key(spelling: str) -> None:
    assert resource_key(read(spelling)) == "https://www.example.com/a-b.xml"


@pytest.mark.parametrize(
    "other",
    [
        "http://www.example.com/a-b.xml",  # another scheme
        "https://example.com/a-b.xml",  # another host
        "https://www.example.com:8443/a-b.xml",  # another port
        "https://www.example.com/a-b.xml?x",  # a query
        "https://www.example.com/A-b.xml",  # paths are case-sensitive
        "https://www.example.com/a%2fb.xml",  # an escaped slash is not a slash
    ],
)
def test_another_resource_has_another_key(other: str) -> None:
    assert resource_key(read(other)) != "https://www.example.com/a-b.xml"


def test_reserved_escapes_compare_in_upper_case() -> None:
    assert resource_key(read("https://e.com/a%2fb")) == resource_key(read("https://e.com/a%2Fb"))
    assert resource_key(read("https://e.com/a%2fb")) == "https://e.com/a%2Fb"
