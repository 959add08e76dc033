"""The `issue_kinds` log field: what each issue says, without its subject or quoted values."""

from __future__ import annotations

import pytest

from sitemap_auditor.issues import kind


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("http://a/robots.txt: HTTP 404", "HTTP 404"),
        (
            "http://a/s.xml: fetch error (timeout: no complete answer within 30 s)",
            "fetch error: timeout",
        ),
        ("http://a/s.xml: fetch error (dns: a.example: gaierror)", "fetch error: dns"),
        ("http://a/s.xml: blocked address 10.0.0.1 (private) for host x", "blocked address"),
        ("http://a/s.xml: unparsable <lastmod> '2026-13-01'", "unparsable <lastmod>"),
        (
            "http://a/s.xml: not well-formed XML at line 3, column 4: syntax error",
            "not well-formed XML",
        ),
        ("http://a/s.xml: unknown root element <rss>", "unknown root element"),
        ("http://a/s.xml: refused XML construct: entity declaration 'x'", "refused XML construct"),
        ("http://a/s.xml: body larger than 52,428,800 bytes", "body larger than"),
        ("http://a/s.xml: empty body", "empty body"),
        ('preferences.maxAgeDays: ignored "x": not an integer', "ignored"),
        ("no subject at all", "no subject at all"),
    ],
)
def test_kinds(text: str, expected: str) -> None:
    assert kind(text) == expected
