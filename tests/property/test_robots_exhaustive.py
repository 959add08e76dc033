"""robots.txt patterns matched as robots.cc matches them, tried on every small case: every pattern
and path of a few characters of `a/*$` against a statement-by-statement model of robots.cc's
RobotsMatchStrategy::Matches, and every pair of an Allow and a Disallow, with patterns holding
`*` stored both ways (one expression, and the index of sitemap_auditor/deep/robots_rules.py).
The table of robots_test.cc and the quick cases are tests/unit/test_robots_rules.py's."""

from __future__ import annotations

import itertools

import pytest
from support.exhaustive import strings

from sitemap_auditor.deep import robots_rules
from sitemap_auditor.deep.robots_rules import RobotsRules


def _robots_cc_matches(path: str, pattern: str) -> bool:
    # robots.cc RobotsMatchStrategy::Matches, statement by statement: the oracle for the regex.
    pos = [0]
    for i, char in enumerate(pattern):
        if char == "$" and i + 1 == len(pattern):
            return pos[-1] == len(path)
        if char == "*":
            pos = list(range(pos[0], len(path) + 1))
        else:
            pos = [p + 1 for p in pos if p < len(path) and path[p] == char]
            if not pos:
                return False
    return True


def test_patterns_match_as_robots_cc_matches_every_small_case(wild_kind: str) -> None:
    # Every pattern up to 5 characters of `a/*$` against every path up to 5 of `a/$`: the
    # compiled matcher (atomic scans, ordered alternatives) agrees with robots.cc's algorithm.
    paths = list(strings("a/$", 5))
    for pattern in strings("a/*$", 5):
        if not pattern:
            continue
        rules = RobotsRules.parse(f"user-agent: *\ndisallow: {pattern}\n".encode())
        for path in paths:
            expected = not _robots_cc_matches(path, pattern)
            assert rules.allowed_path(path, "x") is expected, (pattern, path)


@pytest.fixture(params=["one expression", "indexed"])
def wild_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Patterns with `*` both ways: few (one expression) and many (indexed, forced here)."""
    if request.param == "indexed":
        monkeypatch.setattr(robots_rules, "WILD_INDEX_FROM", 0)
    return str(request.param)


def test_two_rules_decide_as_robots_cc_decides_every_small_case(wild_kind: str) -> None:
    # An Allow and a Disallow of up to 3 characters each, every path up to 4 of `a/`: the longest
    # matching pattern decides and Allow wins a tie, whichever way each rule is stored.
    patterns = [p for p in strings("a/*$", 3) if p]
    paths = list(strings("a/", 4))
    for allow, disallow in itertools.product(patterns, repeat=2):
        rules = RobotsRules.parse(f"user-agent: *\nallow: {allow}\ndisallow: {disallow}\n".encode())
        for path in paths:
            allowed = len(allow) if _robots_cc_matches(path, allow) else -1
            disallowed = len(disallow) if _robots_cc_matches(path, disallow) else -1
            assert rules.allowed_path(path, "x") is (disallowed <= allowed), (allow, disallow, path)
