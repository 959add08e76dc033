"""Issues as values: their text is the data map's string, their kind a stable identifier.

The `issue_kinds` log field and the operators' queries group by kind, so each issue gets its kind
where it is made, never from its wording; docs/operations.md lists every kind.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sitemap_auditor.core import facts
from sitemap_auditor.core.errors import FetchError, FetchErrorKind, InvalidItemError
from sitemap_auditor.core.issues import MAX_ISSUE_CHARS, Issue, Kind, issue
from sitemap_auditor.core.parser import Rejected, parse_bytes
from sitemap_auditor.core.robots import sitemap_urls

OPERATIONS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"
ROBOTS = "https://ex.com/robots.txt"


def test_an_issue_renders_as_subject_colon_detail_cut_to_500() -> None:
    short = issue("https://a/s.xml", Kind.EMPTY_BODY, "empty body")
    assert short.text == str(short) == "https://a/s.xml: empty body"
    long = issue("https://a/s.xml", Kind.UNPARSABLE_LASTMOD, "x" * 1000)
    assert len(long.text) == MAX_ISSUE_CHARS and long.text.endswith("...")
    # A long URL is cut, not the why: a failed candidate still says what failed.
    url = "https://a/" + "p" * 1930
    failed = issue(url, Kind.HTTP_STATUS, "HTTP 404")
    assert len(failed.text) == MAX_ISSUE_CHARS and failed.text.endswith("...: HTTP 404")
    assert failed.text.startswith("https://a/ppp") and failed.subject == url
    both = issue(url, Kind.UNPARSABLE_LASTMOD, "x" * 1000)
    assert len(both.text) == MAX_ISSUE_CHARS and both.text.startswith(url[:97] + "...: xx")


@pytest.mark.parametrize("kind", list(Kind))
def test_every_kind_is_lower_case_words_joined_by_dashes(kind: Kind) -> None:
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", kind.value)


@pytest.mark.parametrize("kind", list(Kind))
def test_operations_lists_every_kind(kind: Kind) -> None:
    assert f"`{kind.value}`" in OPERATIONS.read_text(encoding="utf-8")


def test_each_fetch_error_kind_has_its_own_issue_kind_and_keeps_its_label() -> None:
    kinds = [k.issue_kind for k in FetchErrorKind]
    assert len(set(kinds)) == len(kinds)
    # The labels are what issues and the fetch_error log field have always said.
    assert FetchErrorKind.CONNECTION_RESET.label == "connection reset"
    assert FetchErrorKind.OTHER_SCHEME.label == "redirect to another scheme"


@pytest.mark.parametrize(
    ("error", "kind", "text"),
    [
        (
            FetchError(FetchErrorKind.TIMEOUT, "no complete answer within 30 s"),
            Kind.FETCH_TIMEOUT,
            "u: fetch error (timeout: no complete answer within 30 s)",
        ),
        (
            FetchError(FetchErrorKind.BLOCKED, "10.0.0.1 (private) for host x"),
            Kind.BLOCKED_ADDRESS,
            "u: blocked address 10.0.0.1 (private) for host x",
        ),
        (
            FetchError(FetchErrorKind.TOO_LARGE, " once decompressed"),
            Kind.BODY_TOO_LARGE,
            "u: body larger than 52,428,800 bytes once decompressed",
        ),
        (
            FetchError(FetchErrorKind.INVALID_URL),
            Kind.FETCH_INVALID_URL,
            "u: fetch error (invalid URL)",
        ),
    ],
)
def test_a_fetch_error_gives_its_issue(error: FetchError, kind: Kind, text: str) -> None:
    got = error.issue("u")
    assert got.kind is kind and got.text == text


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        (b"", Kind.EMPTY_BODY),
        (b"<rss/>", Kind.UNKNOWN_ROOT),
        (b"<urlset><url>", Kind.NOT_WELL_FORMED),
        (b'<!DOCTYPE x [<!ENTITY a "b">]><urlset/>', Kind.REFUSED_XML),
        (b"<urlset>" + b"<a>" * 300 + b"</a>" * 300 + b"</urlset>", Kind.TOO_DEEP),
        (b'<?xml version="1.0" encoding="x-nothing"?><urlset/>', Kind.UNSUPPORTED_ENCODING),
    ],
)
def test_a_rejected_body_has_its_kind(body: bytes, kind: Kind) -> None:
    got = parse_bytes([body])
    assert isinstance(got, Rejected) and got.kind is kind


def test_robots_issues_have_their_kinds() -> None:
    body = b"Sitemaps: /a.xml\nsitemap /b.xml\nSitemap: ftp://x/c.xml\nSitemap: http://a..b/d.xml\n"
    found = sitemap_urls(body, ROBOTS, ROBOTS)
    assert [i.kind for i in found.issues] == [
        Kind.LENIENT_KEY,
        Kind.LENIENT_KEY,
        Kind.SKIPPED_SITEMAP,
        Kind.SKIPPED_SITEMAP,
    ]
    utf16 = sitemap_urls("Sitemap: /x.xml\n".encode("utf-16"), ROBOTS, ROBOTS)
    assert [i.kind for i in utf16.notes] == [Kind.UTF16_ROBOTS]
    many = b"".join(b"Sitemap: /s%d.xml\n" % i for i in range(130))
    assert sitemap_urls(many, ROBOTS, ROBOTS).issues[-1].kind is Kind.CANDIDATES_LEFT_OUT


def test_issues_travel_in_facts_with_their_kinds() -> None:
    robots = facts.RobotsProbe(
        503, False, (), (issue(ROBOTS, Kind.HTTP_STATUS, "HTTP 503"),), (), transient=True
    )
    skipped = issue(ROBOTS, Kind.SKIPPED_SITEMAP, "skipped Sitemap: value 'x' (not an http(s) URL)")
    value = facts.SiteFacts(
        facts.RobotsProbe(200, True, (), (), (skipped,)),
        ("https://ex.com/sitemap.xml",),
        (
            facts.CandidateOutcome(
                "https://ex.com/sitemap.xml",
                None,
                issue("https://ex.com/sitemap.xml", Kind.FETCH_DNS, "fetch error (dns: x)"),
                transient=True,
            ),
        ),
        fetched_at=1.0,
    )
    for one in (value, facts.SiteFacts(robots, (), (), fetched_at=2.0)):
        back = facts.decode(facts.encode(one))
        assert back == one
        assert back is not None and all(isinstance(i, Issue) for i in back.robots.issues)
    # An issue of an unknown kind (a newer version's) is facts of another format: none.
    raw = facts.encode(value).replace(b'"fetch-dns"', b'"no-such-kind"')
    with pytest.raises(InvalidItemError, match="not an issue kind"):
        facts.decode(raw)
