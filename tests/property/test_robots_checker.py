"""The deep audit's robots.txt checker, which first asks one expression whether any rule matches
at all, answers as `RobotsRules.allowed` does, whatever the rules and the URL."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemap_auditor.deep.robots_rules import RobotsRules

# Patterns and paths from a few characters that matter to the matcher: `*`, `$`, `%`-escapes
# (normalised on both sides), a non-ASCII letter, and the separators of a path and a query.
_PATTERN = st.text(alphabet="/ab*$%2Fé?=", min_size=0, max_size=8).map(lambda p: "/" + p)
_PATH = st.text(alphabet="/ab%2Fé?=.", min_size=0, max_size=12)
_RULE = st.tuples(st.sampled_from(["Allow", "Disallow"]), _PATTERN)


def _robots(groups: list[tuple[str, list[tuple[str, str]]]]) -> bytes:
    lines = []
    for agent, rules in groups:
        lines.append(f"User-agent: {agent}")
        lines += [f"{key}: {pattern}" for key, pattern in rules]
    return "\n".join(lines).encode()


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["*", "Googlebot", "Bingbot"]), st.lists(_RULE, max_size=6)),
        min_size=1,
        max_size=3,
    ),
    st.data(),
)
def test_the_checker_answers_as_allowed(
    groups: list[tuple[str, list[tuple[str, str]]]], data: st.DataObject
) -> None:
    rules = RobotsRules.parse(_robots(groups))
    allowed = rules.checker("Googlebot")
    # Paths of their own, and paths that a rule's pattern spells (its `*` and `$` taken out),
    # with or without more after them: where the rules decide.
    spelled = [p.replace("*", "").rstrip("$") for _, rs in groups for _, p in rs]
    near = st.tuples(st.sampled_from(spelled or ["/"]), st.sampled_from(["", "a", "/", "?a"]))
    paths = data.draw(
        st.lists(st.one_of(_PATH, near.map("".join)), min_size=1, max_size=8), label="paths"
    )
    for path in paths:
        url = "https://www.example.com" + (path if path.startswith("/") else "/" + path)
        assert allowed(url) is rules.allowed(url, "Googlebot"), (url, groups)


@pytest.mark.parametrize("count", [300, 40])
def test_a_robots_txt_of_many_rules_is_checked_without_the_one_expression(count: int) -> None:
    # Past a few hundred rules, or a few dozen with `*`, the checker goes to the rules
    # directly: the same answers.
    body = "User-agent: *\n" + "".join(
        f"Disallow: /p{i}/\nAllow: /p{i}/ok*$\n" for i in range(count)
    )
    rules = RobotsRules.parse(body.encode())
    allowed = rules.checker("Googlebot")
    for url in ("/p7/x", "/p7/ok", "/p7/okay", "/q/", "/p299/", "/p3000/"):
        full = "https://www.example.com" + url
        assert allowed(full) is rules.allowed(full), url


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["*", "Googlebot", "Bingbot"]),
            st.lists(
                st.tuples(st.sampled_from(["Allow", "Disallow"]), _PATTERN | st.just("")),
                max_size=4,
            ),
        ),
        min_size=1,
        max_size=3,
    ),
    st.lists(_PATH, min_size=1, max_size=8),
)
def test_allows_all_is_true_only_where_allowed_answers_true_for_every_url(
    groups: list[tuple[str, list[tuple[str, str]]]], paths: list[str]
) -> None:
    # The shortcut that spares the per-URL match: when it says all are allowed, each is.
    rules = RobotsRules.parse(_robots(groups))
    urls = ["https://www.example.com/" + p.lstrip("/") for p in paths]
    if rules.allows_all("Googlebot"):
        assert all(rules.allowed(u, "Googlebot") for u in urls)


def test_allows_all_is_false_where_one_rule_disallows() -> None:
    assert RobotsRules.parse(b"User-agent: *\nAllow: /\nDisallow:\n").allows_all()
    assert not RobotsRules.parse(b"User-agent: *\nAllow: /\nDisallow: /private/\n").allows_all()
    assert RobotsRules.parse(b"User-agent: bingbot\nDisallow: /\n").allows_all()  # not ours
