"""robots.txt rules matched as Google's parser matches them (sitemap_auditor/deep/robots_rules.py).

The tables below are google/robotstxt's own test suite, robots_test.cc (Copyright 2019 Google LLC,
licensed under the Apache License, Version 2.0), ported expectation for expectation: each row names
the TEST it comes from, and a row's `allowed` is robots.cc's answer (EXPECT_TRUE / EXPECT_FALSE).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from support.exhaustive import strings

from sitemap_auditor.core.robots import MAX_ROBOTS_BYTES
from sitemap_auditor.deep.robots_rules import (
    Directive,
    Key,
    RobotsRules,
    escape_pattern,
    iter_directives,
    key_of,
    path_params_query,
    valid_user_agent,
)


@dataclass(frozen=True)
class Case:
    test: str  # the TEST of robots_test.cc
    robots: str
    agent: str
    url: str
    allowed: bool  # robots.cc's answer
    deviation: str = ""  # why allowed() answers otherwise on purpose (allowed_path() does not)


def cases(test: str, robots: str, *rows: tuple[str, str, bool], deviation: str = "") -> list[Case]:
    return [Case(test, robots, agent, url, allowed, deviation) for agent, url, allowed in rows]


RAW_URL = (
    "robots.cc asks its caller for an escaped URL; allowed() escapes it as a crawler fetches it, "
    "so the raw /ツ is /%E3%83%84 and the Allow matches"
)

FOOBOT_DISALLOW_ALL = "user-agent: FooBot\ndisallow: /\n"
GROUPS = (
    "allow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /\nallow: /x/\nuser-agent: BarBot\n"
    "disallow: /\nallow: /y/\n\n\nallow: /w/\nuser-agent: BazBot\n\nuser-agent: FooBot\n"
    "allow: /z/\ndisallow: /\n"
)
CASE_UPPER = "USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n"
CASE_LOWER = "user-agent: FooBot\nallow: /x/\ndisallow: /\n"
CASE_CAMEL = "uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n"
AGENT_UPPER = "User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n"
AGENT_LOWER = "User-Agent: foo bar\nAllow: /x/\nDisallow: /\n"
AGENT_CAMEL = "User-Agent: FoO bAr\nAllow: /x/\nDisallow: /\n"
X_ALLOWED = "http://foo.bar/x/y"
A_DISALLOWED = "http://foo.bar/a/b"
PAGE = "http://foo.bar/x/page.html"

MAX_LINE_LEN = 2083 * 8  # robots.cc kMaxLineLen


def _long_line(prefix: str, fill: str) -> str:
    # robots_test.cc GoogleOnly_LineTooLong: "/x/" padded up to the cut, less the key and EOL.
    line = "/x/"
    while len(line) < MAX_LINE_LEN - len("/x/") - len(prefix) + 1:
        line += fill
    return line


LONG_DISALLOW = _long_line("disallow: ", "a")
LONG_A, LONG_B = _long_line("allow: ", "a"), _long_line("allow: ", "b")


def _documentation(allow: str, rows: list[tuple[str, bool]]) -> list[Case]:
    robots = f"user-agent: FooBot\ndisallow: /\nallow: {allow}\n"
    test = "GoogleOnly_DocumentationChecks"
    return cases(test, robots, *(("FooBot", f"http://foo.bar{p}", ok) for p, ok in rows))


FISH_ROWS = [
    ("/bar", False),
    ("/fish", True),
    ("/fish.html", True),
    ("/fish/salmon.html", True),
    ("/fishheads", True),
    ("/fishheads/yummy.html", True),
    ("/fish.html?id=anything", True),
    ("/catfish", False),
    ("/?id=fish", False),
]

CASES: list[Case] = [
    *cases(
        "GoogleOnly_SystemTest",
        "",
        ("FooBot", "", True),
    ),
    *cases(
        "GoogleOnly_SystemTest",
        FOOBOT_DISALLOW_ALL,
        ("", "", True),
        ("FooBot", "", False),
    ),
    *cases("GoogleOnly_SystemTest", "", ("", "", True)),
    *cases("ID_LineSyntax_Line", FOOBOT_DISALLOW_ALL, ("FooBot", X_ALLOWED, False)),
    *cases("ID_LineSyntax_Line", "foo: FooBot\nbar: /\n", ("FooBot", X_ALLOWED, True)),
    *cases("ID_LineSyntax_Line", "user-agent FooBot\ndisallow /\n", ("FooBot", X_ALLOWED, False)),
    *cases(
        "ID_LineSyntax_Groups",
        GROUPS,
        ("FooBot", "http://foo.bar/x/b", True),
        ("FooBot", "http://foo.bar/z/d", True),
        ("FooBot", "http://foo.bar/y/c", False),
        ("BarBot", "http://foo.bar/y/c", True),
        ("BarBot", "http://foo.bar/w/a", True),
        ("BarBot", "http://foo.bar/z/d", False),
        ("BazBot", "http://foo.bar/z/d", True),
        ("FooBot", "http://foo.bar/foo/bar/", False),
        ("BarBot", "http://foo.bar/foo/bar/", False),
        ("BazBot", "http://foo.bar/foo/bar/", False),
    ),
    *cases(
        "ID_LineSyntax_Groups_OtherRules",
        "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n",
        ("FooBot", "http://foo.bar/", False),
        ("BarBot", "http://foo.bar/", False),
    ),
    *cases(
        "ID_LineSyntax_Groups_OtherRules",
        "User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n",
        ("FooBot", "http://foo.bar/", False),
        ("BarBot", "http://foo.bar/", False),
    ),
    *(
        case
        for robots in (CASE_UPPER, CASE_LOWER, CASE_CAMEL)
        for case in cases(
            "ID_REPLineNamesCaseInsensitive",
            robots,
            ("FooBot", X_ALLOWED, True),
            ("FooBot", A_DISALLOWED, False),
        )
    ),
    *(
        case
        for robots in (AGENT_UPPER, AGENT_LOWER, AGENT_CAMEL)
        for case in cases(
            "ID_UserAgentValueCaseInsensitive",
            robots,
            ("Foo", X_ALLOWED, True),
            ("Foo", A_DISALLOWED, False),
            ("foo", X_ALLOWED, True),
            ("foo", A_DISALLOWED, False),
        )
    ),
    *cases(
        "GoogleOnly_AcceptUserAgentUpToFirstSpace",
        "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n",
        ("Foo", X_ALLOWED, True),
        ("Foo Bar", X_ALLOWED, False),
    ),
    *cases("ID_GlobalGroups_Secondary", "", ("FooBot", X_ALLOWED, True)),
    *cases(
        "ID_GlobalGroups_Secondary",
        "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n",
        ("FooBot", X_ALLOWED, False),
        ("BarBot", X_ALLOWED, True),
    ),
    *cases(
        "ID_GlobalGroups_Secondary",
        "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\n"
        "user-agent: BazBot\ndisallow: /\n",
        ("QuxBot", X_ALLOWED, True),
    ),
    *cases(
        "ID_AllowDisallow_Value_CaseSensitive",
        "user-agent: FooBot\ndisallow: /x/\n",
        ("FooBot", X_ALLOWED, False),
    ),
    *cases(
        "ID_AllowDisallow_Value_CaseSensitive",
        "user-agent: FooBot\ndisallow: /X/\n",
        ("FooBot", X_ALLOWED, True),
    ),
    *cases(
        "ID_LongestMatch",
        "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n",
        ("FooBot", PAGE, False),
    ),
    *cases(
        "ID_LongestMatch",
        "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n",
        ("FooBot", PAGE, True),
        ("FooBot", "http://foo.bar/x/", False),
    ),
    *cases("ID_LongestMatch", "user-agent: FooBot\ndisallow: \nallow: \n", ("FooBot", PAGE, True)),
    *cases(
        "ID_LongestMatch", "user-agent: FooBot\ndisallow: /\nallow: /\n", ("FooBot", PAGE, True)
    ),
    *cases(
        "ID_LongestMatch",
        "user-agent: FooBot\ndisallow: /x\nallow: /x/\n",
        ("FooBot", "http://foo.bar/x", False),
        ("FooBot", "http://foo.bar/x/", True),
    ),
    *cases(
        "ID_LongestMatch",
        "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n",
        ("FooBot", PAGE, True),
    ),
    *cases(
        "ID_LongestMatch",
        "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n",
        ("FooBot", "http://foo.bar/page.html", False),
        ("FooBot", "http://foo.bar/page", True),
    ),
    *cases(
        "ID_LongestMatch",
        "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n",
        ("FooBot", PAGE, True),
        ("FooBot", "http://foo.bar/x/y.html", False),
    ),
    *cases(
        "ID_LongestMatch",
        "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n",
        ("FooBot", "http://foo.bar/x/page", True),
        ("FooBot", "http://foo.bar/y/page", False),
    ),
    *cases(
        "ID_Encoding",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n",
        ("FooBot", "http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par", True),
    ),
    *cases(
        "ID_Encoding",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n",
        ("FooBot", "http://foo.bar/foo/bar/%E3%83%84", True),
    ),
    *cases(
        "ID_Encoding",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n",
        ("FooBot", "http://foo.bar/foo/bar/ツ", False),
        deviation=RAW_URL,
    ),
    *cases(
        "ID_Encoding",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n",
        ("FooBot", "http://foo.bar/foo/bar/%E3%83%84", True),
    ),
    *cases(
        "ID_Encoding",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n",
        ("FooBot", "http://foo.bar/foo/bar/ツ", False),
        deviation=RAW_URL,
    ),
    *cases(
        "ID_Encoding",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n",
        ("FooBot", "http://foo.bar/foo/bar/baz", False),
        ("FooBot", "http://foo.bar/foo/bar/%62%61%7A", True),
    ),
    *cases(
        "ID_SpecialCharacters",
        "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n",
        ("FooBot", "http://foo.bar/foo/bar/quz", False),
        ("FooBot", "http://foo.bar/foo/quz", True),
        ("FooBot", "http://foo.bar/foo//quz", True),
        ("FooBot", "http://foo.bar/foo/bax/quz", True),
    ),
    *cases(
        "ID_SpecialCharacters",
        "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n",
        ("FooBot", "http://foo.bar/foo/bar", False),
        ("FooBot", "http://foo.bar/foo/bar/qux", True),
        ("FooBot", "http://foo.bar/foo/bar/", True),
        ("FooBot", "http://foo.bar/foo/bar/baz", True),
    ),
    *cases(
        "ID_SpecialCharacters",
        "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n",
        ("FooBot", "http://foo.bar/foo/bar", True),
        ("FooBot", "http://foo.bar/foo/quz", False),
    ),
    *cases(
        "GoogleOnly_IndexHTMLisDirectory",
        "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n",
        ("foobot", "http://foo.com/allowed-slash/", True),
        ("foobot", "http://foo.com/allowed-slash/index.htm", False),
        ("foobot", "http://foo.com/allowed-slash/index.html", True),
        ("foobot", "http://foo.com/anyother-url", False),
    ),
    *cases(
        "GoogleOnly_LineTooLong",
        f"user-agent: FooBot\ndisallow: {LONG_DISALLOW}/qux\n",
        ("FooBot", "http://foo.bar/fux", True),
        ("FooBot", f"http://foo.bar{LONG_DISALLOW}/fux", False),
    ),
    *cases(
        "GoogleOnly_LineTooLong",
        f"user-agent: FooBot\ndisallow: /\nallow: {LONG_A}/qux\nallow: {LONG_B}/qux\n",
        ("FooBot", "http://foo.bar/", False),
        ("FooBot", f"http://foo.bar{LONG_A}/qux", True),
        ("FooBot", f"http://foo.bar{LONG_B}/fux", True),
    ),
    *_documentation("/fish", [*FISH_ROWS, ("/Fish.asp", False)]),
    *_documentation("/fish*", [*FISH_ROWS, ("/Fish.bar", False)]),
    *_documentation(
        "/fish/",
        [
            ("/bar", False),
            ("/fish/", True),
            ("/fish/salmon", True),
            ("/fish/?salmon", True),
            ("/fish/salmon.html", True),
            ("/fish/?id=anything", True),
            ("/fish", False),
            ("/fish.html", False),
            ("/Fish/Salmon.html", False),
        ],
    ),
    *_documentation(
        "/*.php",
        [
            ("/bar", False),
            ("/filename.php", True),
            ("/folder/filename.php", True),
            ("/folder/filename.php?parameters", True),
            ("//folder/any.php.file.html", True),
            ("/filename.php/", True),
            ("/index?f=filename.php/", True),
            ("/php/", False),
            ("/index?php", False),
            ("/windows.PHP", False),
        ],
    ),
    *_documentation(
        "/*.php$",
        [
            ("/bar", False),
            ("/filename.php", True),
            ("/folder/filename.php", True),
            ("/filename.php?parameters", False),
            ("/filename.php/", False),
            ("/filename.php5", False),
            ("/php/", False),
            ("/filename?php", False),
            ("/aaaphpaaa", False),
            ("//windows.PHP", False),
        ],
    ),
    *_documentation(
        "/fish*.php",
        [
            ("/bar", False),
            ("/fish.php", True),
            ("/fishheads/catfish.php?parameters", True),
            ("/Fish.PHP", False),
        ],
    ),
    *cases(
        "GoogleOnly_DocumentationChecks",
        "user-agent: FooBot\nallow: /p\ndisallow: /\n",
        ("FooBot", "http://example.com/page", True),
    ),
    *cases(
        "GoogleOnly_DocumentationChecks",
        "user-agent: FooBot\nallow: /folder\ndisallow: /folder\n",
        ("FooBot", "http://example.com/folder/page", True),
    ),
    *cases(
        "GoogleOnly_DocumentationChecks",
        "user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n",
        ("FooBot", "http://example.com/page.htm", False),
    ),
    *cases(
        "GoogleOnly_DocumentationChecks",
        "user-agent: FooBot\nallow: /$\ndisallow: /\n",
        ("FooBot", "http://example.com/", True),
        ("FooBot", "http://example.com/page.html", False),
    ),
]


def _case_id(case: Case) -> str:
    return f"{case.test}:{case.agent or '-'}:{case.url[:60] or '-'}"


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_robots_cc_answers_for_an_escaped_path(case: Case) -> None:
    rules = RobotsRules.parse(case.robots.encode())
    assert rules.allowed_path(path_params_query(case.url), case.agent) is case.allowed


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_allowed_answers_as_robots_cc_but_for_the_chosen_escaping(case: Case) -> None:
    expected = case.allowed is not bool(case.deviation)
    assert RobotsRules.parse(case.robots.encode()).allowed(case.url, case.agent) is expected


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_the_checker_answers_as_allowed(case: Case) -> None:
    rules = RobotsRules.parse(case.robots.encode())
    assert rules.checker(case.agent)(case.url) is rules.allowed(case.url, case.agent)


def test_every_test_of_robots_test_cc_is_in_the_table() -> None:
    tests = {case.test for case in CASES}
    matcher_tests = {
        "GoogleOnly_SystemTest",
        "ID_LineSyntax_Line",
        "ID_LineSyntax_Groups",
        "ID_LineSyntax_Groups_OtherRules",
        "ID_REPLineNamesCaseInsensitive",
        "ID_UserAgentValueCaseInsensitive",
        "GoogleOnly_AcceptUserAgentUpToFirstSpace",
        "ID_GlobalGroups_Secondary",
        "ID_AllowDisallow_Value_CaseSensitive",
        "ID_LongestMatch",
        "ID_Encoding",
        "ID_SpecialCharacters",
        "GoogleOnly_IndexHTMLisDirectory",
        "GoogleOnly_LineTooLong",
        "GoogleOnly_DocumentationChecks",
    }
    assert tests == matcher_tests
    # The other TESTs (ID_VerifyValidUserAgentsToObey, the RobotsStatsReporter ones,
    # TestGetPathParamsQuery, TestMaybeEscapePattern) are the tables below.
    assert len(CASES) == 145  # every IsUserAgentAllowed expectation of robots_test.cc


# robots_test.cc ID_VerifyValidUserAgentsToObey (and GoogleOnly_AcceptUserAgentUpToFirstSpace).
VALID_AGENTS = [
    ("Foobot", True),
    ("Foobot-Bar", True),
    ("Foo_Bar", True),
    ("", False),
    ("ツ", False),
    ("Foobot*", False),
    (" Foobot ", False),
    ("Foobot/2.1", False),
    ("Foobot Bar", False),
]


@pytest.mark.parametrize(("agent", "valid"), VALID_AGENTS)
def test_valid_user_agent_to_obey(agent: str, valid: bool) -> None:
    assert valid_user_agent(agent) is valid


# robots_test.cc TestGetPathParamsQuery.
PATHS = [
    ("", "/"),
    ("http://www.example.com", "/"),
    ("http://www.example.com/", "/"),
    ("http://www.example.com/a", "/a"),
    ("http://www.example.com/a/", "/a/"),
    ("http://www.example.com/a/b?c=http://d.e/", "/a/b?c=http://d.e/"),
    ("http://www.example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f"),
    ("example.com", "/"),
    ("example.com/", "/"),
    ("example.com/a", "/a"),
    ("example.com/a/", "/a/"),
    ("example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f"),
    ("a", "/"),
    ("a/", "/"),
    ("/a", "/a"),
    ("a/b", "/b"),
    ("example.com?a", "/?a"),
    ("example.com/a;b#c", "/a;b"),
    ("//a/b/c", "/b/c"),
]


@pytest.mark.parametrize(("url", "path"), PATHS)
def test_path_params_query(url: str, path: str) -> None:
    assert path_params_query(url) == path


def _robots_cc_path(url: str) -> str:
    # robots.cc GetPathParamsQuery, statement by statement: the oracle for the quick http(s) path.
    def first_of(start: int) -> int:
        found = [i for i in (url.find(c, start) for c in "/?;") if i >= 0]
        return min(found) if found else -1

    search_start = 2 if url[:2] == "//" else 0
    early_path = first_of(search_start)
    protocol_end = url.find("://", search_start)
    if early_path >= 0 and (protocol_end < 0 or early_path < protocol_end):
        protocol_end = -1
    protocol_end = search_start if protocol_end < 0 else protocol_end + 3
    path_start = first_of(protocol_end)
    if path_start < 0:
        return "/"
    hash_pos = url.find("#", search_start)
    if 0 <= hash_pos < path_start:
        return "/"
    path = url[path_start : hash_pos if hash_pos >= 0 else len(url)]
    return path if path[:1] == "/" else "/" + path


def test_path_params_query_as_robots_cc_for_every_small_url() -> None:
    for scheme in ("http://", "https://", "HTTP://", "ftp://", "//", ""):
        for rest in strings("a/?;#:", 5):
            url = scheme + rest
            assert path_params_query(url) == _robots_cc_path(url), url


# robots_test.cc TestMaybeEscapePattern.
ESCAPES = [
    ("http://www.example.com", "http://www.example.com"),
    ("/a/b/c", "/a/b/c"),
    ("á", "%C3%A1"),
    ("%aa", "%AA"),
]


@pytest.mark.parametrize(("value", "escaped"), ESCAPES)
def test_escape_pattern(value: str, escaped: str) -> None:
    assert escape_pattern(value.encode()) == escaped.encode()


def _report(body: bytes) -> tuple[int, int, int, bytes]:
    """robots_test.cc RobotsStatsReporter: valid and unknown directives, last line, sitemaps."""
    valid = unknown = last = 0
    sitemap = b""
    for directive in iter_directives(body):
        assert directive.number >= last
        last = directive.number
        if directive.key is Key.UNKNOWN:
            unknown += 1
        else:
            valid += 1
        if directive.key is Key.SITEMAP:
            sitemap += directive.value
    return valid, unknown, last, sitemap


# robots_test.cc ID_LinesNumbersAreCountedCorrectly: 4 directives, the last on line 6.
LINE_ENDS = [
    b"User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n",
    b"User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n",
    b"User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r",
    b"User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /",
    b"User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /",
]


@pytest.mark.parametrize("body", LINE_ENDS, ids=["unix", "dos", "mac", "no-final", "mixed"])
def test_line_numbers_are_counted_as_robots_cc_counts(body: bytes) -> None:
    valid, _, last, _ = _report(body)
    assert (valid, last) == (4, 6)


# robots_test.cc ID_UTF8ByteOrderMarkIsSkipped: (valid, unknown) directives.
BOMS = [
    (b"\xef\xbb\xbfUser-Agent: foo\nAllow: /AnyValue\n", (2, 0)),
    (b"\xef\xbbUser-Agent: foo\nAllow: /AnyValue\n", (2, 0)),
    (b"\xefUser-Agent: foo\nAllow: /AnyValue\n", (2, 0)),
    (b"\xef\x11\xbfUser-Agent: foo\nAllow: /AnyValue\n", (1, 1)),
    (b"User-Agent: foo\n\xef\xbb\xbfAllow: /AnyValue\n", (1, 1)),
]


@pytest.mark.parametrize(("body", "counts"), BOMS, ids=["full", "two", "one", "broken", "middle"])
def test_utf8_byte_order_mark_is_skipped(body: bytes, counts: tuple[int, int]) -> None:
    valid, unknown, _, _ = _report(body)
    assert (valid, unknown) == counts


# robots_test.cc ID_NonStandardLineExample_Sitemap: a Sitemap: line anywhere in the file.
GROUPS_NO_SITEMAP = b"User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\n"


@pytest.mark.parametrize(
    "body",
    [
        GROUPS_NO_SITEMAP + b"Sitemap: http://foo.bar/sitemap.xml\n",
        b"Sitemap: http://foo.bar/sitemap.xml\n" + GROUPS_NO_SITEMAP,
    ],
    ids=["last", "first"],
)
def test_sitemap_lines_anywhere(body: bytes) -> None:
    assert _report(body)[3] == b"http://foo.bar/sitemap.xml"


# --- beyond robots_test.cc: what robots.cc does that its tests do not show ---------------------


@pytest.mark.parametrize(
    ("written", "key"),
    [
        (b"User-Agent", Key.USER_AGENT),
        (b"useragent", Key.USER_AGENT),
        (b"user agent", Key.USER_AGENT),
        (b"user-agents", Key.USER_AGENT),
        (b"Allow", Key.ALLOW),
        (b"allowed", Key.ALLOW),
        (b"DISALLOW", Key.DISALLOW),
        *((typo, Key.DISALLOW) for typo in (b"dissallow", b"dissalow", b"disalow", b"diasllow")),
        (b"disallaw", Key.DISALLOW),
        (b"sitemap", Key.SITEMAP),
        (b"Site-Map", Key.SITEMAP),
        (b"crawl-delay", Key.UNKNOWN),
        (b"user", Key.UNKNOWN),
    ],
)
def test_keys_and_their_typos(written: bytes, key: Key) -> None:
    assert key_of(written) is key


def test_typo_keys_make_rules() -> None:
    rules = RobotsRules.parse(b"useragent: Googlebot\ndisalow: /private\n")
    assert not rules.allowed("https://ex.com/private/a")
    assert rules.allowed("https://ex.com/public")


def test_googlebot_falls_back_to_the_global_group_only_when_none_names_it() -> None:
    body = b"User-agent: *\nDisallow: /\n\nUser-agent: Googlebot-Image\nAllow: /\n"
    rules = RobotsRules.parse(body)
    assert not rules.allowed("https://ex.com/page")  # Googlebot-Image is not Googlebot
    assert rules.allowed("https://ex.com/page", "Googlebot-Image")
    named = RobotsRules.parse(body + b"User-agent: googlebot\nDisallow: /private\n")
    assert named.allowed("https://ex.com/page")
    assert not named.allowed("https://ex.com/private")


def test_global_star_with_trailing_words_and_a_star_prefix() -> None:
    assert not RobotsRules.parse(b"User-agent: * # all\nDisallow: /\n").allowed("https://e.x/a")
    assert not RobotsRules.parse(b"User-agent: * bots\nDisallow: /\n").allowed("https://e.x/a")
    # `*bot` is neither the global group nor a name: its rules apply to nobody.
    assert RobotsRules.parse(b"User-agent: *bot\nDisallow: /\n").allowed("https://e.x/a")


def test_an_agent_in_both_a_global_and_its_own_line_of_one_group_takes_the_rules_as_its_own() -> (
    None
):
    # robots.cc HandleDisallow: with both seen, a rule goes to the specific group only.
    body = b"User-agent: *\nUser-agent: Googlebot\nDisallow: /a\nUser-agent: *\nDisallow: /b\n"
    rules = RobotsRules.parse(body)
    assert not rules.allowed("https://ex.com/a")
    assert rules.allowed("https://ex.com/b")  # the global group is not obeyed by a named agent
    assert not rules.allowed("https://ex.com/b", "Otherbot")


def test_agent_names_are_compared_in_ascii_only() -> None:
    # U+212A KELVIN SIGN lowers to "k" in Unicode, not in absl::EqualsIgnoreCase.
    rules = RobotsRules.parse(b"User-agent: k\nDisallow: /\n")
    assert not rules.allowed("https://ex.com/a", "K")
    assert rules.allowed("https://ex.com/a", "\u212a")


def test_deciding_rule_names_the_line() -> None:
    rules = RobotsRules.parse(b"User-agent: *\nAllow: /a/b\nDisallow: /a\n")
    blocked = rules.deciding_rule("https://ex.com/a/c")
    assert blocked is not None and (blocked.number, blocked.allow) == (3, False)
    allowed = rules.deciding_rule("https://ex.com/a/b")
    assert allowed is not None and (allowed.number, allowed.pattern) == (2, "/a/b")
    assert rules.deciding_rule("https://ex.com/z") is None


def test_url_escapes_are_normalised_like_the_patterns() -> None:
    rules = RobotsRules.parse("User-agent: *\nDisallow: /caf%c3%a9\nDisallow: /ß\n".encode())
    assert not rules.allowed("https://ex.com/café")
    assert not rules.allowed("https://ex.com/caf%C3%A9")
    assert not rules.allowed("https://ex.com/caf%c3%a9")
    assert not rules.allowed("https://ex.com/%C3%9F")
    assert rules.allowed("https://ex.com/cafe")
    # Only the query and path count: the fragment and the host do not.
    assert not rules.allowed("https://ex.com/café#x")
    assert rules.allowed("https://café.example/x#/café")


def test_only_the_first_500_kib_count_and_a_cut_line_is_dropped() -> None:
    filler = b"# " + b"x" * 98 + b"\n"
    head = b"User-agent: *\nDisallow: /early\n"
    body = head + filler * ((MAX_ROBOTS_BYTES - len(head)) // len(filler))
    cut = body + b"Disallow: /cut-here-and-beyond\n"
    rules = RobotsRules.parse(cut + b"Disallow: /late\n")
    assert not rules.allowed("https://ex.com/early")
    assert rules.allowed("https://ex.com/late")
    # The line the limit cuts would read as "Disallow: /c" and block far more than it says.
    assert rules.allowed("https://ex.com/c")
    # A body the reader cut already says so, and loses its last line the same way.
    assert RobotsRules.parse(head + b"Disallow: /c", truncated=True).allowed("https://ex.com/c")


def test_utf16_is_read_as_google_reads_it_and_so_blocks_nothing() -> None:
    body = "User-agent: *\nDisallow: /\n".encode("utf-16")
    assert RobotsRules.parse(body).allowed("https://ex.com/a")


def test_a_nul_ends_a_line_and_long_lines_are_cut() -> None:
    rules = RobotsRules.parse(b"User-agent: *\nDisallow: /a\0/b\n")
    assert not rules.allowed("https://ex.com/a/c")


def test_many_star_patterns_are_tried_by_their_literal_pieces_and_still_by_priority() -> None:
    # Past the index threshold: one that matches everything, one-character pieces, a tie.
    lines = [f"Disallow: /*noise{i}*x" for i in range(40)]
    lines += ["Allow: /*?*", "Disallow: /*q", "Allow: /*a$", "Disallow: /*a$", "Disallow: *"]
    rules = RobotsRules.parse(("User-agent: *\n" + "\n".join(lines) + "\n").encode())
    assert not rules.allowed("https://ex.com/noise7/x")
    assert not rules.allowed("https://ex.com/zzz")  # `*` alone: every path
    assert rules.allowed("https://ex.com/b?c")  # `/*?*` (4) beats `*` (1)
    assert rules.allowed("https://ex.com/ba")  # the tie of `/*a$`: Allow wins
    assert not rules.allowed("https://ex.com/bq")
    decider = rules.deciding_rule("https://ex.com/noise39/x")
    assert decider is not None and decider.pattern == "/*noise39*x"


def test_a_hostile_pattern_costs_linear_time() -> None:
    # Backtracking over thirty stars on a 16 KB path would not end in this century.
    pattern = "/" + "*a" * 30 + "b"
    rules = RobotsRules.parse(f"User-agent: *\nDisallow: {pattern}\n".encode())
    assert rules.allowed("https://ex.com/" + "a" * 16_000)
    assert not rules.allowed("https://ex.com/" + "a" * 16_000 + "b")


def test_directive_values_are_bytes_as_written_for_agents_and_sitemaps() -> None:
    found = list(iter_directives("User-agent: Bót\nSitemap: /ß\nDisallow: /ß\n".encode()))
    assert found == [
        Directive(1, Key.USER_AGENT, "Bót".encode()),
        Directive(2, Key.SITEMAP, "/ß".encode()),
        Directive(3, Key.DISALLOW, b"/%C3%9F"),
    ]


# --- why not a library: the candidates on the same table (run where they are installed) --------

# The cases each answers otherwise than robots.cc, as (TEST, agent, URL) with how many rows of
# that TEST fail so (the same question asked of several files); the raw-URL cases aside.
LIBRARY_FAILURES: dict[tuple[str, str], Counter[tuple[str, str, str]]] = {
    ("protego", "0.7.0"): Counter(
        {
            ("ID_LineSyntax_Groups_OtherRules", "FooBot", "http://foo.bar/"): 1,
            ("ID_UserAgentValueCaseInsensitive", "Foo", A_DISALLOWED): 3,
            ("ID_UserAgentValueCaseInsensitive", "foo", A_DISALLOWED): 3,
            ("GoogleOnly_AcceptUserAgentUpToFirstSpace", "Foo", X_ALLOWED): 1,
            ("GoogleOnly_AcceptUserAgentUpToFirstSpace", "Foo Bar", X_ALLOWED): 1,
            ("ID_Encoding", "FooBot", "http://foo.bar/foo/bar/baz"): 1,
            ("GoogleOnly_LineTooLong", "FooBot", f"http://foo.bar{LONG_DISALLOW}/fux"): 1,
            ("GoogleOnly_LineTooLong", "FooBot", f"http://foo.bar{LONG_B}/fux"): 1,
        }
    ),
    ("robotspy", "0.13.0"): Counter(
        {
            ("ID_Encoding", "FooBot", "http://foo.bar/foo/bar/baz"): 1,
            ("GoogleOnly_IndexHTMLisDirectory", "foobot", "http://foo.com/allowed-slash/"): 1,
            ("GoogleOnly_LineTooLong", "FooBot", f"http://foo.bar{LONG_DISALLOW}/fux"): 1,
            ("GoogleOnly_LineTooLong", "FooBot", f"http://foo.bar{LONG_B}/fux"): 1,
        }
    ),
}


def _library(name: str) -> tuple[str, Callable[[Case], bool]]:
    import importlib.metadata

    version = importlib.metadata.version(name)
    if name == "protego":
        protego = pytest.importorskip("protego")

        def ask(case: Case) -> bool:
            return bool(protego.Protego.parse(case.robots).can_fetch(case.url, case.agent))

    else:
        robots = pytest.importorskip("robots")

        def ask(case: Case) -> bool:
            parser = robots.RobotsParser.from_string(case.robots)
            return bool(parser.can_fetch(case.agent, case.url))

    return version, ask


@pytest.mark.parametrize("name", ["protego", "robotspy"])
def test_the_libraries_fail_the_cases_the_readme_names(name: str) -> None:
    import importlib.metadata

    try:
        version, ask = _library(name)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"{name} is not installed (not a dependency: pip install {name})")
    expected = LIBRARY_FAILURES.get((name, version))
    if expected is None:
        pytest.skip(f"{name} {version}: the table is of another version")
    failed = Counter(
        (case.test, case.agent, case.url)
        for case in CASES
        if not case.deviation and ask(case) is not case.allowed
    )
    assert failed == expected
    assert sum(failed.values()) == {"protego": 12, "robotspy": 4}[name]  # as the README says
    # Where robots.cc wants the raw URL unescaped, both escape it as allowed() does.
    assert all(ask(case) is not case.allowed for case in CASES if case.deviation)
