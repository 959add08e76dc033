"""The deep audit's checks: pure functions on parsed values, and the tallies they add to.

Nothing here fetches or reads the clock: the moment is given. A `Tally` gathers one sitemap's
findings (a count, the first line, a few examples per kind); `SitemapChecks` runs every entry
check of one sitemap into its tally; `SiteChecks` holds what spans files (duplicates, return
links) in compact, bounded structures.
"""

from __future__ import annotations

import bisect
import functools
import heapq
import itertools
import re
import zlib
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, cast

from sitemap_auditor.core.lastmod import common_keys, format_instant, key_to_instant
from sitemap_auditor.core.parser import MAX_LASTMOD_CHARS
from sitemap_auditor.core.text import CUT_MARK, clip
from sitemap_auditor.core.urls import strip_userinfo
from sitemap_auditor.deep import iso_codes
from sitemap_auditor.deep.kinds import IMPACT_ORDER, KINDS, SEVERITY_ORDER, Kind
from sitemap_auditor.deep.lastmods import (
    MAX_DISTINCT_DAYS,
    MAX_MONTHS,
    TIME_SLACK_US,
    LastmodStats,
    classify_lastmod,
    instant_key,
)
from sitemap_auditor.deep.reading.entries import MAX_FIELD_CHARS, Extensions
from sitemap_auditor.deep.scope import (
    ELSEWHERE,
    MAX_URL_CHARS,
    NOT_IN_URLS,
    SitemapScope,
    classify_reading,
    read_loc,
)
from sitemap_auditor.deep.seen import (
    DEDUPE_BYTES_PER_URL,
    DEDUPE_FIRST_SLOTS,
    DEFAULT_MAX_DEDUPE_URLS,
    Duplicates,
)

__all__ = [
    "DEDUPE_BYTES_PER_URL",
    "DEDUPE_FIRST_SLOTS",
    "DEFAULT_MAX_DEDUPE_URLS",
    "MAX_DISTINCT_DAYS",
    "MAX_EXAMPLES",
    "MAX_EXAMPLE_CHARS",
    "MAX_MONTHS",
    "QUOTE_CHARS",
    "ROBOTS_AGENTS",
    "SITEMAP_NAMESPACE",
    "SITEMAP_ROOTS",
    "AgentRules",
    "Example",
    "Finding",
    "LastmodStats",
    "RobotsAgents",
    "RowSink",
    "Rules",
    "SiteChecks",
    "SitemapChecks",
    "Tally",
    "classify_lastmod",
    "hreflang_problem",
    "hreflang_valid",
    "instant_key",
    "merge_findings",
    "named_agents",
    "news_missing",
    "quote_line",
    "sniff_html",
    "video_missing",
]

MAX_EXAMPLES = 5
MAX_EXAMPLE_CHARS = 200
# The Sitemaps protocol: a file of 50,000 entries at most (a URL's bound: scope.MAX_URL_CHARS).
MAX_ENTRIES = 50_000
MAX_NEWS = 1000
NEWS_MAX_AGE_US = 2 * 86_400 * 1_000_000
# identical-lastmods: one <lastmod> value on at least 90 % of 20 or more dated entries of a
# sitemap of URLs (an index's values are its children's file times: equal ones are right).
IDENTICAL_MIN_ENTRIES = 20
IDENTICAL_MIN_SHARE = 0.9
# Entries without extensions gathered before `SitemapChecks.flush` checks them as one run, at
# most: what a run holds is bounded by this as well as by the slice fed.
_RUN_ENTRIES = 4096
# Return links of hreflang alternates are checked for at most this many links (32 bytes each),
# among at most this many pages with alternates (a set of their hashes: about 60 bytes each).
# Past either, the walk says so (a limit-reached notice): a missing link back goes unseen.
MAX_TRACKED_ALTERNATES = 1_000_000
# Alternate links whose words are kept for the examples of hreflang-invalid (no return link).
LINK_EXAMPLES = 4096
_MAX_U32 = (1 << 32) - 1
_XML_SPACE = " \t\r\n"
# A well-formed BCP 47 tag (RFC 5646 §2.1): a language of 2 or 3 letters (the longer ones are
# reserved, and "english" is no code) with up to 3 extended subtags, then a script, a region,
# variants, extensions and a private use part, each optional; a private use tag alone
# (x-default is one); or one of the grandfathered tags that grammar does not take.
_BCP47 = re.compile(
    r"(?i:[a-z]{2,3}(?:-[a-z]{3}){0,3}(?:-[a-z]{4})?(?:-(?:[a-z]{2}|[0-9]{3}))?"
    r"(?:-(?:[a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*(?:-[0-9a-wyz](?:-[a-z0-9]{2,8})+)*"
    r"(?:-x(?:-[a-z0-9]{1,8})+)?"
    r"|x(?:-[a-z0-9]{1,8})+"
    r"|en-GB-oed|i-(?:ami|bnn|default|enochian|hak|klingon|lux|mingo|navajo|pwn|tao|tay|tsu)"
    r"|sgn-(?:BE-FR|BE-NL|CH-DE))"
)
# What firewalls and CDNs answer a crawler with instead of the file.
_CHALLENGE = re.compile(
    rb"(?i)just a moment|cf-chl|challenge-platform|captcha|attention required|access denied|"
    rb"request unsuccessful|incapsula|perimeterx|datadome|akamai"
)
_HTML_START = re.compile(
    rb"(?i)\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html[\s>]|head[\s>])", re.S
)

SITEMAP_NAMESPACE = "http://www.sitemaps.org/schemas/sitemap/0.9"
SITEMAP_ROOTS = frozenset({"urlset", "sitemapindex"})


@dataclass(frozen=True)
class Example:
    """Where a finding was seen and what was written there."""

    line: int | None
    value: str


@dataclass(frozen=True)
class Finding:
    """One kind found in one sitemap (or about the site: sitemap None)."""

    kind: Kind
    sitemap: str | None
    line: int | None
    count: int
    examples: tuple[Example, ...]
    detail: str
    # Entries with at least one occurrence, for the kinds counted by parts of entries (images,
    # videos: `Reach.ENTRIES` in the kinds table); 0 for the others.
    entries: int = 0

    @property
    def message(self) -> str:
        """The sentence a site owner reads."""
        return KINDS[self.kind].message_for(self.count, self.detail)


@dataclass
class _Seen:
    count: int = 0
    line: int | None = None
    examples: list[Example] = field(default_factory=list)
    details: dict[str, None] = field(default_factory=dict)
    entries: int = 0


# sink(kind, line, value, detail): every occurrence a tally counts, as it counts it (the rows of
# finding_urls.csv: deep/finding_rows.py). Values as written: the writer redacts them.
RowSink = Callable[[Kind, int | None, str, str], None]


_KIND_ORDER = {kind: i for i, kind in enumerate(KINDS)}


def _example_key(e: Example) -> tuple[int, str]:
    # An example without a line (about the file) first, then by line, then by value.
    return (-1 if e.line is None else e.line, e.value)


def _in_table_order(item: tuple[Kind, object]) -> int:
    return _KIND_ORDER[item[0]]


# The words between agents' names in named_agents' sentences (names are product tokens: letters,
# `_` and `-`), and the order they are named in.
_BETWEEN_NAMES = re.compile(r", | and | or ")
_FIRST_NAMED = {"Googlebot": 0, "Bingbot": 1}


def joined_details(kind: Kind, details: Iterable[str]) -> str:
    """A finding's details in one: sorted and joined by commas; for a kind whose details name
    agents, one of them when all agree, else every agent named once, with "or" (each URL is
    disallowed for one or more of them)."""
    distinct = sorted({d for d in details if d})
    if not KINDS[kind].agents_detail or len(distinct) <= 1:
        return ", ".join(distinct)
    names = dict.fromkeys(n for d in distinct for n in _BETWEEN_NAMES.split(d))
    ordered = sorted(names, key=lambda n: (_FIRST_NAMED.get(n, 2), n))
    return ", ".join(ordered[:-1]) + " or " + ordered[-1]


class Tally:
    """Findings of one subject, kind by kind: a count, the first line, a few examples; and each
    occurrence to sink, when given. What it keeps does not depend on the order the occurrences
    were counted in (a repeat may be counted when another file is read): the first line, the
    examples of the lowest lines, the details in the order of their words."""

    def __init__(
        self, sink: RowSink | None = None, clean: Callable[[str], str] = strip_userinfo
    ) -> None:
        self._kinds: dict[Kind, _Seen] = {}
        self.sink = sink
        # What an example holding an "@" is shown as: no echoed URL carries userinfo. A walk
        # given credentials hides them first, whole: a password holding "@" and "/" would be
        # split by the stripping, and its tail no longer found (deep/redaction.py, `cleaner`).
        self.clean = clean

    def add(
        self,
        kind: Kind,
        line: int | None,
        value: str = "",
        detail: str = "",
        example: bool = True,
    ) -> None:
        """Count one occurrence. The examples kept are the first five by line, then value (not
        the first five counted: a repeat may be counted once a later file is read); example:
        False for an occurrence that is no example (its words were not kept)."""
        seen = self._kinds.get(kind)
        if seen is None:
            seen = self._kinds[kind] = _Seen(line=line)
        elif line is not None and (seen.line is None or line < seen.line):
            seen.line = line
        seen.count += 1
        if self.sink is not None:
            # A value at the reading's bound was cut there (a <loc> is read to its first
            # MAX_FIELD_CHARS + 1 characters): marked, as every cut is, for the redaction.
            self.sink(kind, line, clip(value, MAX_FIELD_CHARS), detail)
        if example and (value or line is not None):
            examples = seen.examples
            full = len(examples) >= MAX_EXAMPLES
            if full and _example_key(Example(line, "")) > _example_key(examples[-1]):
                pass  # the common case: lines come in order, after the five kept
            else:
                if "@" in value:
                    value = self.clean(value)  # no echoed URL carries userinfo
                # Cut with a mark, so that a cut URL is never taken for the whole one.
                shown = Example(line, clip(value, MAX_EXAMPLE_CHARS))
                if not full or _example_key(shown) < _example_key(examples[-1]):
                    bisect.insort(examples, shown, key=_example_key)
                    del examples[MAX_EXAMPLES:]
        if detail and len(seen.details) < 8:
            seen.details.setdefault(clip(detail, MAX_EXAMPLE_CHARS))

    def set_count(self, kind: Kind, count: int, line: int | None = None, detail: str = "") -> None:
        """Record a kind counted elsewhere (a file's total of entries, say): one occurrence for
        the sink, the file as a whole."""
        seen = self._kinds.get(kind)
        if seen is None:
            seen = self._kinds[kind] = _Seen(line=line)
            if self.sink is not None:
                self.sink(kind, line, "", detail)
        seen.count = count
        if detail:
            seen.details.setdefault(clip(detail, MAX_EXAMPLE_CHARS))

    def entry(self, kind: Kind) -> None:
        """Count one more entry with an occurrence of kind (after its occurrences are added)."""
        seen = self._kinds.get(kind)
        if seen is not None:
            seen.entries += 1

    def __contains__(self, kind: Kind) -> bool:
        return kind in self._kinds

    def findings(self, sitemap: str | None) -> list[Finding]:
        """What was counted, as findings about sitemap."""
        # In the kinds' table's order, not the order they were first counted in: a repeat is
        # counted when the duplicate table answers, which may come later (seen.Duplicates).
        return [
            Finding(
                kind,
                sitemap,
                s.line,
                s.count,
                tuple(s.examples),
                joined_details(kind, s.details),
                s.entries,
            )
            for kind, s in sorted(self._kinds.items(), key=_in_table_order)
        ]


def merge_findings(findings: list[Finding]) -> list[Finding]:
    """One finding per kind and sitemap, in the order of their impact."""
    merged: dict[tuple[Kind, str | None], Finding] = {}
    for f in findings:
        key = (f.kind, f.sitemap)
        old = merged.get(key)
        if old is None:
            merged[key] = f
            continue
        details = joined_details(f.kind, (old.detail, f.detail))
        lines = [n for n in (old.line, f.line) if n is not None]
        merged[key] = Finding(
            f.kind,
            f.sitemap,
            min(lines) if lines else None,
            old.count + f.count,
            tuple(sorted(old.examples + f.examples, key=_example_key)[:MAX_EXAMPLES]),
            details,
            old.entries + f.entries,
        )
    # Impact first (a file search engines cannot read, then URLs lost), then severity, then
    # count; the kind's place in the table and the sitemap's URL settle ties, so that the order
    # never depends on which fetch finished first.
    impact = {x: i for i, x in enumerate(IMPACT_ORDER)}
    rank = {s: i for i, s in enumerate(SEVERITY_ORDER)}
    table = {k: i for i, k in enumerate(KINDS)}

    def order(f: Finding) -> tuple[int, int, int, int, str]:
        info = KINDS[f.kind]
        return (impact[info.impact], rank[info.severity], -f.count, table[f.kind], f.sitemap or "")

    return sorted(merged.values(), key=order)


# What an invalid-XML example quotes of the line it names, at most.
QUOTE_CHARS = 160


def quote_line(data: bytes, line: int, column: int | None = None) -> str:
    """Line `line` (1: data's first) of data, decoded, as an example quotes it: at most
    QUOTE_CHARS characters, around `column` (expat's, from 0) when the line is longer, the cuts
    marked with "…"; "" when data does not hold that line."""
    if line < 1 or not data:
        return ""
    lines = data.splitlines()
    if line > len(lines):
        return ""
    text = lines[line - 1].decode("utf-8", "replace")
    if len(text) <= QUOTE_CHARS:
        return text.strip()
    at = min(max(0, (column or 0) - QUOTE_CHARS // 2), len(text) - QUOTE_CHARS)
    return (
        (CUT_MARK if at else "")
        + text[at : at + QUOTE_CHARS]
        + (CUT_MARK if at + QUOTE_CHARS < len(text) else "")
    )


def sniff_html(head: bytes, content_type: str | None) -> bool:
    """True when a body's first bytes (or its content type with a tag first) are an HTML page."""
    body = head.removeprefix(b"\xef\xbb\xbf")
    if _HTML_START.match(body):
        return True
    mime = (content_type or "").split(";")[0].strip().lower()
    return (
        mime in ("text/html", "application/xhtml+xml")
        and body.lstrip()[:1] == b"<"
        and (not body.lstrip().startswith((b"<?xml", b"<urlset", b"<sitemapindex")))
    )


def challenge_page(head: bytes) -> bool:
    """True when a body's start reads as a firewall's or CDN's page for bots."""
    return _CHALLENGE.search(head) is not None


def hreflang_valid(code: str) -> bool:
    """True for a code hreflang takes (en, en-GB, zh-Hant-TW, es-419, x-default)."""
    return hreflang_problem(code) is None


@functools.lru_cache(maxsize=1024)  # a site's links use a handful of codes, again and again
def hreflang_problem(code: str) -> str | None:
    """What is wrong with an hreflang code (None: nothing): not BCP 47 at all, or a two-letter
    language that is no ISO 639-1 code (`jp`), or a region that is no ISO 3166-1 one (`en-UK`),
    as Google asks for them. Three-letter languages and numeric regions are left to BCP 47."""
    code = code.strip()
    if _BCP47.fullmatch(code) is None:
        return "not BCP 47"
    subtags = code.split("-")
    first = subtags[0].lower()
    if first in ("x", "i") or code.lower() == "en-gb-oed" or first == "sgn":
        return None  # private use, and the registry's grandfathered tags
    if len(first) == 2 and first not in iso_codes.LANGUAGES:
        return _not_a_code(first, "an ISO 639-1 language")
    for subtag in subtags[1:]:
        if len(subtag) == 1:
            break  # an extension or private use: its subtags are no region
        if len(subtag) == 2:
            region = subtag.upper()
            if region not in iso_codes.REGIONS:
                return _not_a_code(region, "an ISO 3166-1 country")
            break
    return None


def _not_a_code(given: str, what: str) -> str:
    meant = iso_codes.SUGGESTED.get(given)
    return f"{given} is not {what} code" + (f" (use {meant})" if meant else "")


_VIDEO_NEEDS = ("thumbnail_loc", "title", "description")


def video_missing(tags: frozenset[str]) -> tuple[str, ...]:
    """The required tags a <video:video> lacks."""
    missing = [f"video:{t}" for t in _VIDEO_NEEDS if t not in tags]
    if "content_loc" not in tags and "player_loc" not in tags:
        missing.append("video:content_loc or video:player_loc")
    return tuple(missing)


_NEWS_NEEDS = ("name", "language", "publication_date", "title")


def news_missing(tags: frozenset[str]) -> tuple[str, ...]:
    """The required tags a <news:news> lacks."""
    return tuple(f"news:{t}" for t in _NEWS_NEEDS if t not in tags)


class Rules(Protocol):
    """What the deep audit asks of robots.txt's rules (robots_rules.RobotsRules)."""

    def allowed(self, url: str, agent: str = "Googlebot") -> bool: ...


# The crawlers whose robots.txt rules every listed URL is matched against, in this order (the
# command line adds the product of --user-agent when it is neither).
ROBOTS_AGENTS = ("Googlebot", "Bingbot")


@dataclass(frozen=True)
class AgentRules:
    """Which group of robots.txt an agent obeys, and whether it can disallow any URL."""

    agent: str
    group: str  # "own" (a group names it), "global" (the `*` group), "none" (no rule at all)
    disallows: bool  # False: every URL is allowed to it, and none is matched


def named_agents(names: list[str]) -> str:
    """Googlebot; Googlebot and Bingbot; Googlebot, Bingbot and AuditBot."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _agent_rules(rules: Rules | None, agent: str) -> tuple[AgentRules, Callable[[str], bool]]:
    """What the rules are for agent, and its test of a URL (allowed: True)."""
    if rules is None:
        return AgentRules(agent, "none", False), _allowed_always
    group_of = getattr(rules, "group_of", None)
    group = group_of(agent) if group_of is not None else "own"
    allows_all = getattr(rules, "allows_all", None)
    if allows_all is not None and allows_all(agent):
        return AgentRules(agent, group, False), _allowed_always
    checker = getattr(rules, "checker", None)
    if checker is not None:
        return AgentRules(agent, group, True), checker(agent)
    return AgentRules(agent, group, True), functools.partial(_ask, rules, agent=agent)


def _ask(rules: Rules, url: str, agent: str) -> bool:
    return rules.allowed(url, agent)


def _allowed_always(_url: str) -> bool:
    return True


class RobotsAgents:
    """robots.txt asked for several agents at once: whether a URL is allowed to every one, and
    to which it is not. Agents that obey one group (Googlebot and Bingbot both under `*`, say)
    are matched once."""

    def __init__(self, rules: Rules | None, agents: tuple[str, ...]) -> None:
        self.agents: tuple[AgentRules, ...] = ()
        # The agents that can be disallowed something, by the group they obey.
        groups: dict[str, tuple[list[str], Callable[[str], bool]]] = {}
        for agent in dict.fromkeys(agents):
            facts, test = _agent_rules(rules, agent)
            self.agents += (facts,)
            if facts.disallows:
                key = "*" if facts.group == "global" else agent.lower()
                groups.setdefault(key, ([], test))[0].append(agent)
        self._groups = [(names, test) for names, test in groups.values()]
        self._rules = rules
        # None where no URL can be disallowed to any agent: robots.txt is not asked per URL.
        self.allows: Callable[[str], bool] | None = None
        if len(self._groups) == 1:
            self.allows = self._groups[0][1]
        elif self._groups:
            tests = tuple(test for _, test in self._groups)
            self.allows = lambda url: all(test(url) for test in tests)

    def none_blocked(self, origin: str) -> Callable[[str], bool] | None:
        """`allows` of many URLs at once, written one a line, each `origin` (scheme, host and
        port) then a path as path_params_query gives it (ASCII, no `%` nor `#`): True when no
        rule of any agent's matches one of them, so that all are allowed (False: ask `allows`
        of each). None when some agent's rules cannot be tested so
        (`RobotsRules.no_rule_matches`); always True when no URL can be disallowed."""
        tests = []
        for names, _ in self._groups:
            no_rule_matches = getattr(self._rules, "no_rule_matches", None)
            test = None if no_rule_matches is None else no_rule_matches(names[0], origin)
            if test is None:
                return None
            tests.append(test)
        return lambda lines: all(test(lines) for test in tests)

    def blocked_for(self, url: str) -> list[str]:
        """The agents robots.txt disallows url to, in the order given, for a URL `allows`
        refused (one group: its agents, without matching it again)."""
        groups = self._groups
        if len(groups) == 1:
            return list(groups[0][0])
        names = {name for group, test in groups if not test(url) for name in group}
        return [a.agent for a in self.agents if a.agent in names]


_MASK = (1 << 64) - 1


class SiteChecks:
    """What spans the sitemaps of a site: duplicates, hreflang return links, robots.txt."""

    def __init__(
        self,
        rules: Rules | None,
        robots_host: str,
        max_dedupe_urls: int = DEFAULT_MAX_DEDUPE_URLS,
        seen: Duplicates | None = None,
        agents: tuple[str, ...] = ROBOTS_AGENTS,
    ) -> None:
        self.rules = rules
        self.robots_host = robots_host
        self.robots = RobotsAgents(rules, agents)
        self.agents = self.robots.agents
        # None where no URL can be disallowed to any agent: robots.txt is not asked per URL.
        self.allows = self.robots.allows
        self._lastmod_memos: dict[int, dict[str, tuple[Kind | None, int | None]]] = {}
        self.seen = seen if seen is not None else Duplicates(max_dedupe_urls)
        self.site = Tally()  # findings about no one file
        # Alternate links (a -> b) as hashes: the link, its reverse, and b itself; where each
        # is (its sitemap, as an index of _link_sitemaps, and its line).
        self._links = array("Q")
        self._reverse = array("Q")
        self._targets = array("Q")
        self._link_files = array("I")
        self._link_lines = array("I")
        self._link_sitemaps: dict[str, int] = {}
        # The words of a sample of the links, for examples: the LINK_EXAMPLES whose texts have
        # the lowest CRC-32 (not the first read, which varies with the fetch order), as a heap
        # of (-crc, text, the link's hash): every listing of one link shares its words.
        self._link_texts: list[tuple[int, str, int]] = []
        self._with_alternates: set[int] = set()
        self.alternates_dropped = False

    def blocked_for(self, url: str) -> str:
        """The agents robots.txt disallows url to, in words ("" when none), for a URL `allows`
        refused (RobotsAgents.blocked_for)."""
        names = self.robots.blocked_for(url)
        return named_agents(names) if names else ""

    def lastmod_memo(self, now_key: int) -> dict[str, tuple[Kind | None, int | None]]:
        """The one memo of classify_lastmod's answers at now_key, which the site's files share
        (at most 4,096 values: SitemapChecks._classified)."""
        memo = self._lastmod_memos.get(now_key)
        if memo is None:
            if len(self._lastmod_memos) >= 4:
                self._lastmod_memos.clear()
            memo = self._lastmod_memos[now_key] = {}
        return memo

    def alternate(self, sitemap: str, line: int, loc: str, href: str) -> None:
        """Remember a link from loc to its alternate href, to look for the way back at the end."""
        pages = self._with_alternates
        if len(pages) < MAX_TRACKED_ALTERNATES:
            pages.add(hash(loc) & _MASK)
        elif hash(loc) & _MASK not in pages:
            self.alternates_dropped = True  # a page past the bound: no link to it is judged
        if loc == href:
            return
        if len(self._links) >= MAX_TRACKED_ALTERNATES:
            self.alternates_dropped = True
            return
        link = hash((loc, href)) & _MASK
        self._links.append(link)
        self._reverse.append(hash((href, loc)) & _MASK)
        self._targets.append(hash(href) & _MASK)
        files = self._link_sitemaps
        self._link_files.append(files.setdefault(sitemap, len(files)))
        self._link_lines.append(min(max(line, 0), _MAX_U32))
        text = f"{loc} -> {href}"
        crc = zlib.crc32(text.encode("utf-8", "surrogatepass"))
        texts = self._link_texts
        if len(texts) < LINK_EXAMPLES:
            heapq.heappush(texts, (-crc, text, link))
        elif (-crc, text) > texts[0][:2]:
            heapq.heapreplace(texts, (-crc, text, link))

    def missing_return_links(self) -> Iterator[tuple[str, int, str]]:
        """Each link a -> b where b was read with alternates that do not include a: its
        sitemap, its line, and its words when the sample kept them (else "")."""
        links = set(self._links)
        texts = {link: text for _, text, link in self._link_texts}
        sitemaps = list(self._link_sitemaps)
        with_alternates = self._with_alternates
        for i, (target, reverse) in enumerate(zip(self._targets, self._reverse, strict=True)):
            if target in with_alternates and reverse not in links:
                text = texts.get(self._links[i], "")
                yield sitemaps[self._link_files[i]], self._link_lines[i], text


class SitemapChecks:
    """Every entry check of one sitemap, into its tally."""

    def __init__(
        self,
        url: str,
        number: int,
        scope: SitemapScope,
        is_index: bool,
        now_key: int,
        site: SiteChecks,
    ) -> None:
        self.url = url
        self.number = number
        self.scope = scope
        self.is_index = is_index
        self.now_key = now_key
        self.site = site
        self.tally = Tally()
        self._stats = LastmodStats()
        self.entries = 0
        self.without_lastmod = 0
        self.images = self.videos = self.news = self.alternates = 0
        # xhtml:link alternates counted but not kept (past MAX_ENTRY_EXTENSIONS in one entry).
        self.alternates_dropped = 0
        self.news_entries = 0
        # A news sitemap: its first entry has <news:news>. Decided there, before any of its
        # URLs is looked up, so that which listing of a URL two files share is the repeat, and
        # of what kind, never depends on how far either file was read (the fetch order).
        self.is_news = False
        self.children: list[tuple[str, int]] = []  # an index's valid sitemap URLs, with lines
        # The root's children that are the other root's entries (EntryReader.misplaced).
        self.misplaced = 0
        # classify_lastmod's answers: the site's, as its files share a generator's dates.
        self._lastmod_memo = site.lastmod_memo(now_key)
        # Per URL, the common case is decided by these alone (see location).
        self._prefix = scope.prefix
        self._allows = site.allows if scope.host == site.robots_host else None
        self._seen = site.seen.add
        self._report = self.repeat
        site.seen.register(number, self)
        # Entries gathered for `flush` (`batched`): their lines, <loc>s and <lastmod>s.
        self._lines: list[int] = []
        self._locs: list[str | None] = []
        self._lastmods: list[str | None] = []
        # The robots.txt test of a run of this scope's URLs, one a line (`_allowed_run`).
        origin = self._prefix[: len(self._prefix) - len(scope.folder)]
        self._origin = origin
        self._none_blocked = (
            None
            if self._allows is None or scope.scheme not in ("http", "https")
            else site.robots.none_blocked(origin)
        )

    @property
    def stats(self) -> LastmodStats:
        """The file's <lastmod> statistics, every value read so far counted."""
        return self._stats

    def _classified(self, raw: str) -> tuple[Kind | None, int | None]:
        """classify_lastmod's answer, remembered for the site's most recent 4,096 values."""
        known = self._lastmod_memo.get(raw)
        if known is None:
            known = classify_lastmod(raw, self.now_key)
            if len(self._lastmod_memo) >= 4096:
                self._lastmod_memo.clear()
            self._lastmod_memo[raw] = known
        return known

    def entry(
        self, line: int, loc: str | None, lastmod: str | None, ext: Extensions | None, /
    ) -> None:
        """Check one entry (the parser's EntryCallback)."""
        self.entries += 1
        if self.entries == 1:
            self.is_news = ext is not None and bool(ext.news)
        if not loc:
            self.tally.add(
                Kind.MISSING_TAG, line, "<loc> missing" if loc is None else "<loc> empty"
            )
        else:
            self.location(loc, line)
        if lastmod is None:
            self.without_lastmod += 1
        else:
            self.lastmod(lastmod, line)
        if ext is not None:
            self._extensions(ext, line, loc or "")

    def batched(self) -> Callable[[int, str | None, str | None, Extensions | None], None]:
        """An entry callback equal to `entry`, for a urlset, that gathers entries without
        extensions and checks them a run at a time at each `flush` (which the reader's owner
        calls after each slice it feeds, and at the end): the same findings, counts and
        repeats, in the same order, as `entry` of each."""
        lines, locs, lastmods = self._lines, self._locs, self._lastmods
        keep_line, keep_loc, keep_lastmod = lines.append, locs.append, lastmods.append

        def gather(line: int, loc: str | None, lastmod: str | None, ext: Extensions | None) -> None:
            if ext is not None:
                self.flush()
                self.entry(line, loc, lastmod, ext)
                return
            keep_line(line)
            keep_loc(loc)
            keep_lastmod(lastmod)
            if len(lines) >= _RUN_ENTRIES:
                self.flush()

        return gather

    def gathered(
        self, lines: Sequence[int], locs: Sequence[str], lastmods: Sequence[str | None]
    ) -> None:
        """`batched`'s callback of each entry of a run that has no extension element, at once
        (the reading's RunCallback)."""
        self._lines.extend(lines)
        self._locs.extend(locs)
        self._lastmods.extend(lastmods)
        if len(self._lines) >= _RUN_ENTRIES:
            self.flush()

    def flush(self) -> None:
        """Check the entries `batched` gathered."""
        lines, locs, lastmods = self._lines, self._locs, self._lastmods
        if not lines:
            return
        try:
            if not self._run(lines, locs, lastmods):
                for line, loc, lastmod in zip(lines, locs, lastmods, strict=True):
                    self.entry(line, loc, lastmod, None)
        finally:
            lines.clear()
            locs.clear()
            lastmods.clear()

    def _run(self, lines: list[int], locs: list[str | None], lastmods: list[str | None]) -> bool:
        """`entry` of each, at once, for the common case: every <loc> one that `location`
        finds nothing in (the sitemap's own scope, no dot segment, nothing URLs cannot hold;
        allowed by robots.txt), every <lastmod> absent or of the shapes generators write
        (`common_keys`: a time and a zone, or a date alone) and not past the next hour (a
        date's key is its last second: a date within the day before is left to `entry`, which
        gives dates a day's slack). False, having done nothing: ask `entry` of each.
        The rules are `location`'s and `lastmod`'s; tests/property/test_deep_runs.py holds
        the two ways equal."""
        if self.is_index or not all(locs):
            return False
        run = cast(list[str], locs)
        prefix = self._prefix
        joined = "".join(run)  # no check below can match across two: each starts with prefix
        if (
            not all(map(str.startswith, run, itertools.repeat(prefix)))
            or max(map(len, run)) > MAX_URL_CHARS
            or "/." in joined
            or "/%2" in joined
            or NOT_IN_URLS.search(joined) is not None
            or (self._allows is not None and not self._allowed_run(run, joined))
        ):
            return False
        present = lastmods if None not in lastmods else [m for m in lastmods if m is not None]
        keys = common_keys(cast(list[str], present)) if present else []
        if keys is None or (keys and max(keys) > self.now_key + TIME_SLACK_US):
            return False
        self.entries += len(lines)
        self.without_lastmod += len(lastmods) - len(present)
        self.site.seen.add_all(run, self.number, lines, self._report)
        self._stats.add_keys(keys)
        return True

    def _allowed_run(self, run: list[str], joined: str) -> bool:
        """True when robots.txt allows every URL of the run to every agent, known at once."""
        test = self._none_blocked
        if test is None or not joined.isascii() or "%" in joined or "#" in joined:
            return False
        origin = self._origin
        return all(map(str.startswith, run, itertools.repeat(origin))) and test("\n".join(run))

    def _extensions(self, e: Extensions, line: int, loc: str) -> None:
        tally = self.tally
        if e.images:
            self.images += e.images
            for _ in range(e.images_without_loc):
                tally.add(Kind.IMAGE_MISSING_LOC, line, loc)
            if e.images_without_loc:
                tally.entry(Kind.IMAGE_MISSING_LOC)
        if e.videos_total:
            self.videos += e.videos_total
            wrong = False
            for tags in e.videos:
                missing = video_missing(tags)
                if missing:
                    tally.add(Kind.VIDEO_MISSING_TAG, line, loc, ", ".join(missing))
                    wrong = True
            if wrong:
                tally.entry(Kind.VIDEO_MISSING_TAG)
        if e.news:
            self.news += len(e.news)
            self.news_entries += 1
            lacks = aged = False
            for n in e.news:
                m, o = self._news(n.tags, n.publication_date, line, loc)
                lacks, aged = lacks or m, aged or o
            if lacks:
                tally.entry(Kind.NEWS_MISSING_TAG)
            if aged:
                tally.entry(Kind.NEWS_TOO_OLD)
        if e.alternates:
            self._alternates(e, line, loc)

    def location(self, loc: str, line: int | None) -> None:
        """Check one listed URL (of an entry, or a line of a text sitemap)."""
        # classify_loc's own first tests, in the order that decides the common case (the
        # sitemap's own scheme, host and port, in its folder, and no dot segment: `/.` and
        # `/%2` are what each spelling of one starts with) at the least cost.
        if (
            loc.startswith(self._prefix)
            and len(loc) <= MAX_URL_CHARS
            and "/." not in loc
            and "/%2" not in loc
            and NOT_IN_URLS.search(loc) is None
        ):
            problem, web = None, None
        else:
            # Read once, by the one reading, whatever else is decided about it.
            problem, web = read_loc(loc, self.scope)
            if (
                problem in ELSEWHERE
                and web is not None
                and any(classify_reading(web, a) is None for a in self.scope.also)
            ):
                # Where else the sitemap's URLs may be (SitemapScope.of): allowed, and left to
                # robots.txt only when on its host (the scope's).
                self._listed(loc, line)
                return
            if problem is not None:
                self.tally.add(problem, line, loc)
                if problem is Kind.INVALID_URL:
                    return
        self._listed(loc, line)
        allows = self._allows
        # An index's entries are sitemaps: one robots.txt disallows is the walk's
        # sitemap-blocked-by-robots, about the file itself, not a listed URL's finding.
        if allows is not None and problem is None and not self.is_index:
            # Matched as it is fetched: a URL the common case above did not take (a dot
            # segment, `/a/../private/x` or `/%2e%2e/`, another spelling of the host) by its
            # one reading.
            target = loc if web is None else web.href
            if not allows(target):
                self.tally.add(Kind.BLOCKED_BY_ROBOTS, line, loc, self.site.blocked_for(target))
                self.tally.entry(Kind.BLOCKED_BY_ROBOTS)

    def _listed(self, loc: str, line: int | None) -> None:
        if self.is_index:
            # Another host's sitemap is still read (its owner may have verified both sites);
            # the fetcher sends the credentials to the site's own origin only. A child listed
            # again, in any spelling, is the walk's one duplicate-sitemap finding, not a URL's.
            self.children.append((loc, line or 0))
        else:
            self._seen(loc, self.number, line, self._report)

    def repeat(self, line: int | None, loc: str, again: int) -> None:
        """Count a repeat the duplicate table found: loc listed again on line (again: 1 when
        this file lists it twice, 2 when another file keeps it; seen.Duplicates's rule)."""
        if again != 1 and self.is_news:
            # A news sitemap repeats recent articles of the regular ones, as publishers must.
            self.tally.add(Kind.ALSO_IN_NEWS, line, loc)
            return
        where = "within this file" if again == 1 else "also in another file"
        self.tally.add(Kind.DUPLICATE_URL, line, loc, where)

    def lastmod(self, raw: str, line: int | None) -> None:
        """Check one <lastmod> value and count it."""
        problem, key = self._classified(raw)
        if problem is not None:
            # A value past MAX_LASTMOD_CHARS was cut by the reading: shown with the mark; an
            # empty one as the element, so that the example shows something.
            shown = clip(raw.strip(_XML_SPACE), MAX_LASTMOD_CHARS) or "<lastmod></lastmod>"
            self.tally.add(problem, line, shown)
            if key is None:
                self._stats.invalid += 1
        if key is not None:
            self._stats.add(key)

    def _news(
        self, tags: frozenset[str], date: str | None, line: int, loc: str
    ) -> tuple[bool, bool]:
        """Check one <news:news>: whether it lacks a tag, and whether it is too old."""
        missing = news_missing(tags)
        if missing:
            self.tally.add(Kind.NEWS_MISSING_TAG, line, loc, ", ".join(missing))
        if date is not None:
            problem, key = classify_lastmod(date, self.now_key)
            if key is None or problem is Kind.DATE_WITHOUT_TIMEZONE:
                # The example names the element: the finding's words are of <lastmod> values.
                shown = f"<news:publication_date>{date}</news:publication_date>"
                self.tally.add(problem or Kind.INVALID_DATE, line, shown)
            if key is not None and key < self.now_key - NEWS_MAX_AGE_US:
                self.tally.add(Kind.NEWS_TOO_OLD, line, f"{date} {loc}")
                return bool(missing), True
        return bool(missing), False

    def _alternates(self, e: Extensions, line: int, loc: str) -> None:
        self.alternates += len(e.alternates) + e.alternates_dropped
        self.alternates_dropped += e.alternates_dropped
        tally, site = self.tally, self.site
        self_link = False
        for code, href in e.alternates:
            problem = hreflang_problem(code)
            if problem is not None:
                tally.add(Kind.HREFLANG_INVALID, line, f"hreflang={code!r}", problem)
            if not href:
                tally.add(Kind.HREFLANG_INVALID, line, f"hreflang={code!r}", "no href")
            elif href == loc:
                self_link = True
            elif loc and href:
                site.alternate(self.url, line, loc, href)
        if loc:
            site.alternate(self.url, line, loc, loc)
        if not self_link:
            tally.add(Kind.HREFLANG_INVALID, line, loc, "no link to the page itself")

    def _misplaced(self) -> str:
        """What an empty file holds in place of its entries: the other root's (`<url>` in a
        sitemapindex, `<sitemap>` in a urlset), or "" when none."""
        n = self.misplaced
        if not n:
            return ""
        root, wrong, right, home = (
            ("sitemapindex", "url", "sitemap", "urlset")
            if self.is_index
            else ("urlset", "sitemap", "url", "sitemapindex")
        )
        entries = f"1 <{wrong}> entry" if n == 1 else f"{n:,} <{wrong}> entries"
        return (
            f"it holds {entries}, which a <{root}> does not take (it lists <{right}> entries; "
            f"<{wrong}> entries belong in a <{home}>)"
        )

    def finish_cut(self) -> None:
        """What is already certain of a file whose reading was cut (a timeout, say): more
        entries than a sitemap may hold, read before the cut."""
        n = self.entries
        if n > MAX_ENTRIES:
            kind = Kind.TOO_MANY_SITEMAPS if self.is_index else Kind.TOO_MANY_URLS
            self.tally.set_count(kind, n)

    def finish(self) -> None:
        """The checks of the file as a whole, once its last entry is read."""
        tally, n = self.tally, self.entries
        self.finish_cut()
        if n == 0:
            tally.set_count(Kind.EMPTY_SITEMAP, 1, detail=self._misplaced())
        dated = self.stats.count
        if dated > 0 and self.without_lastmod:
            tally.set_count(Kind.PARTIAL_LASTMOD, self.without_lastmod)
        if dated >= IDENTICAL_MIN_ENTRIES and not self.is_index and not self.news_entries:
            values = self.stats.values
            shared = max(values, key=values.__getitem__, default=None)
            most = 0 if shared is None else values[shared]
            if shared is not None and most >= IDENTICAL_MIN_SHARE * dated:
                # The value they share, which the site owner looks for: a date alone (read
                # as its day's last second) as the date, any other as its instant in UTC.
                when = key_to_instant(shared)
                instant = format_instant(when)
                if when.microsecond:  # as written, to its fraction (.300, not .3 or none)
                    fraction = f"{when.microsecond:06d}".rstrip("0")
                    instant = f"{instant[:-1]}.{fraction.ljust(3, '0')}Z"
                day = instant.removesuffix("T23:59:59Z")
                detail = day if day != instant else f"{instant} in UTC"
                tally.set_count(Kind.IDENTICAL_LASTMODS, most, detail=detail)
        if self.news_entries > MAX_NEWS:
            tally.set_count(Kind.NEWS_TOO_MANY, self.news_entries)
