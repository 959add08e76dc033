"""robots.txt rules, matched as Google's open-source parser (google/robotstxt, robots.cc) does.

The deep audit asks, for every sitemap and every listed URL, whether robots.txt disallows it for
Googlebot and for Bingbot (and for the product --user-agent names, when it is neither: see
`product_token`). The answer is Google's, rule for rule, for each of them (Bing documents the same
reading: groups by agent, longest match, Allow on a tie, `*` and `$`):

- lines as `robots.py` reads them for the Lambda (the same line ends, byte-order mark, 500 KiB read
  limit with its cut last line dropped, 16,663-byte line cap, comments, the colon Google lets
  people forget), and keys as robots.cc knows them, its accepted typos included (`disalow`,
  `useragent`, ...);
- groups: consecutive `User-agent:` lines share the rules that follow, and only a rule closes a
  group (a `Sitemap:` or unknown line does not); an agent's value counts up to its first character
  outside `[A-Za-z_-]`, compared without case; `*` (alone or followed by white space) is the
  global group, obeyed only when no group names the agent; rules before any group are ignored;
- longest match: the matching pattern with the most octets decides, and Allow wins a tie; an empty
  pattern decides nothing; `*` matches any run of characters and `$` ends a pattern only at its
  end; an Allow pattern ending in `/index.htm` or `/index.html` also allows its folder (`/`);
- percent-encoding normalised: a pattern's non-ASCII bytes are %-encoded and its `%xx` escapes
  written in capitals (robots.cc MaybeEscapePattern); paths are compared case-sensitively.

One difference is chosen, in `allowed()` only: the URL's path and query get the same
normalisation as the patterns, since a crawler fetches `/ツ` as `/%E3%83%84` (robots.cc asks its
caller to pass the URL escaped; a sitemap may list it raw). `allowed_path()` is robots.cc exact.

Matching is fast for the deep audit's millions of URLs: the rules that apply to an agent are
worked out once per agent and arranged by kind (plain prefixes, whole paths, patterns with `*`;
see `_Tier`). Each `*` becomes an atomic lazy scan, so a hostile pattern costs linear time per
rule (robots.cc's own bound), never backtracking. Plain rules cost next to nothing per URL;
patterns with `*` about 0.1 µs each, and past 32 of them only those whose longest literal piece
starts with a character pair of the path are tried (the file seen with the most, dreamstime.com's
950, costs tens of µs a URL, a tenth of Protego's time).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum

from sitemap_auditor.core.errors import FetchErrorKind
from sitemap_auditor.core.robots import (
    MAX_LINE_BYTES,
    MAX_ROBOTS_BYTES,
    _as_utf8,
    _key_and_value,
    _lines,
    utf16_encoding,
)

__all__ = [
    "COMPLETE_DISALLOW",
    "WILD_INDEX_FROM",
    "Directive",
    "Key",
    "RobotsRules",
    "Rule",
    "escape_pattern",
    "iter_directives",
    "key_of",
    "path_params_query",
    "product_token",
    "robots_unreachable",
    "valid_user_agent",
]

# RFC 9309 §2.3.1.4: a robots.txt unreachable for a server or network error (a 5xx; Google
# counts a 429 as one) is "undefined", and the crawler must assume complete disallow.
COMPLETE_DISALLOW = b"User-agent: *\nDisallow: /\n"
# The failures that are the network's: no server answered. The others are answers that lead
# nowhere (too many redirects, a redirect to another scheme, a body that cannot be decoded):
# RFC 9309 §2.3.1.2 lets a crawler take such a robots.txt as unavailable, no rules, as Google
# takes a 4xx.
_NETWORK_ERRORS = frozenset(
    {
        FetchErrorKind.TIMEOUT,
        FetchErrorKind.DNS,
        FetchErrorKind.CONNECT,
        FetchErrorKind.CONNECTION,
        FetchErrorKind.CONNECTION_RESET,
        FetchErrorKind.TLS,
    }
)


def robots_unreachable(status: int | None, error: FetchErrorKind | None = None) -> bool:
    """True when robots.txt's answer (its status, or the error that left none) leaves the site
    wholly disallowed: a 5xx, a 429, or no server's answer at all."""
    if status is not None:
        return status == 429 or status >= 500
    return error in _NETWORK_ERRORS


class Key(Enum):
    """What a robots.txt line is, by its key (robots.cc ParsedRobotsKey::KeyType)."""

    USER_AGENT = "user-agent"
    ALLOW = "allow"
    DISALLOW = "disallow"
    SITEMAP = "sitemap"
    UNKNOWN = "unknown"


# robots.cc ParsedRobotsKey::Parse: a key is known by how it starts, without case, tried in this
# order, with the typos robots.cc accepts (kAllowFrequentTypos is on).
_KEY_PREFIXES: tuple[tuple[Key, tuple[bytes, ...]], ...] = (
    (Key.USER_AGENT, (b"user-agent", b"useragent", b"user agent")),
    (Key.ALLOW, (b"allow",)),
    (Key.DISALLOW, (b"disallow", b"dissallow", b"dissalow", b"disalow", b"diasllow", b"disallaw")),
    (Key.SITEMAP, (b"sitemap", b"site-map")),
)
_RULE_KEYS = (Key.ALLOW, Key.DISALLOW)
# absl::ascii_isspace, which follows a global `*` (robots.cc HandleUserAgent).
_C_SPACE = b" \t\n\v\f\r"
_AGENT_CHARS = re.compile(rb"[A-Za-z_-]*")
_TO_ESCAPE = re.compile(rb"%[0-9A-Fa-f]{2}|[\x80-\xff]")
_TO_ESCAPE_STR = re.compile(r"%[0-9A-Fa-f]{2}|[^\x00-\x7f]+")
_PATH_START = re.compile(r"[/?;]")  # find_first_of("/?;")
# An http(s) URL: the authority ends at the first of `/?;`, a `#` before it leaves no path.
_WEB_URL = re.compile(r"https?://[^/?;#]*(?:#|([/?;][^#]*))?", re.DOTALL)


def key_of(written: bytes) -> Key:
    """Return the kind of a line from its key as written."""
    lowered = written.lower()  # ASCII only, as absl::StartsWithIgnoreCase
    for key, prefixes in _KEY_PREFIXES:
        if lowered.startswith(prefixes):
            return key
    return Key.UNKNOWN


def _escaped(match: re.Match[bytes]) -> bytes:
    found = match.group()
    return found.upper() if found[0] == 0x25 else b"%%%02X" % found[0]  # 0x25 is "%"


def escape_pattern(value: bytes) -> bytes:
    """robots.cc MaybeEscapePattern: %-encode non-ASCII bytes, write `%xx` escapes in capitals."""
    if value.isascii() and b"%" not in value:
        return value
    return _TO_ESCAPE.sub(_escaped, value)


def _escaped_str(match: re.Match[str]) -> str:
    found = match.group()
    if found[0] == "%":
        return found.upper()
    return "".join(f"%{b:02X}" for b in found.encode("utf-8", "surrogatepass"))


def _normalised(path: str) -> str:
    # The path as a crawler sends it, written as escape_pattern writes patterns.
    if path.isascii() and "%" not in path:
        return path
    return _TO_ESCAPE_STR.sub(_escaped_str, path)


def path_params_query(url: str) -> str:
    """robots.cc GetPathParamsQuery: the path, params and query of a URL; always starts with `/`."""
    web = _WEB_URL.match(url)  # the usual case, in one step; the same answer as below
    if web is not None:
        path = web.group(1)
        return "/" if path is None else path if path[0] == "/" else "/" + path
    search_start = 2 if url.startswith("//") else 0
    early = _PATH_START.search(url, search_start)
    protocol_end = url.find("://", search_start)
    if protocol_end < 0 or (early is not None and early.start() < protocol_end):
        protocol_end = search_start
    else:
        protocol_end += 3
    found = _PATH_START.search(url, protocol_end)
    if found is None:
        return "/"
    path_start = found.start()
    hash_pos = url.find("#", search_start)
    if 0 <= hash_pos < path_start:
        return "/"
    path = url[path_start:hash_pos] if hash_pos >= 0 else url[path_start:]
    return path if path.startswith("/") else "/" + path


def _always(_url: str) -> bool:
    return True


def _agent_name(value: bytes) -> bytes:
    # robots.cc ExtractUserAgent: the value up to its first character outside [A-Za-z_-].
    match = _AGENT_CHARS.match(value)
    return match.group() if match else b""


def valid_user_agent(agent: str) -> bool:
    """robots.cc IsValidUserAgentToObey: a non-empty name of `[A-Za-z_-]` characters only."""
    written = agent.encode("utf-8", "surrogatepass")
    return bool(written) and _agent_name(written) == written


# A product in a User-Agent header (RFC 9110 §10.1.5): a name and its version, the name not part
# of a longer word; and the browsers' own products, which name no crawler.
_PRODUCT = re.compile(r"(?<![A-Za-z0-9_.+-])([A-Za-z_-]+)/")
_BROWSER_PRODUCTS = frozenset(
    {"mozilla", "applewebkit", "khtml", "gecko", "chrome", "chromium", "safari", "version",
     "mobile", "firefox", "edg", "edge", "opr", "trident", "like"}
)  # fmt: skip


def product_token(user_agent: str) -> str | None:
    """The name a crawler sending this User-Agent obeys in robots.txt (`MyBot` for `MyBot`,
    `MyBot/1.0` or `Mozilla/5.0 (compatible; MyBot/1.0; +https://…)`), or None when it names no
    valid one (robots.cc IsValidUserAgentToObey: letters, `_` and `-` only)."""
    text = user_agent.strip()
    if valid_user_agent(text):
        return text
    for match in _PRODUCT.finditer(text):
        name = match.group(1)
        if name.lower() not in _BROWSER_PRODUCTS and valid_user_agent(name):
            return name
    return None


@dataclass(frozen=True, slots=True)
class Directive:
    """One line robots.cc reads as a key and a value; rule values already %-normalised."""

    number: int  # 1-based, counted as robots.cc counts (`\r\n` is one line end)
    key: Key
    value: bytes


def iter_directives(body: bytes, truncated: bool = False) -> Iterator[Directive]:
    """Yield the directives of a robots.txt body, in order, as robots.cc's parser emits them.

    Only the first 500 KiB count; a body cut there (or passed already cut, `truncated`) loses its
    last, cut, line, as the Lambda reads it. A UTF-16 body is read as bytes, as Google reads it
    (it then finds no rule): unlike the Lambda's `Sitemap:` reading, nothing here is decoded.
    """
    if len(body) > MAX_ROBOTS_BYTES:
        body, truncated = body[:MAX_ROBOTS_BYTES], True
    text = body if utf16_encoding(body) is not None else _as_utf8(body)
    for number, raw in enumerate(_lines(text, truncated), start=1):
        parsed = _key_and_value(raw[:MAX_LINE_BYTES].split(b"\0", 1)[0])
        if parsed is None:
            continue
        written, value, _colon = parsed
        key = key_of(written)
        yield Directive(number, key, escape_pattern(value) if key in _RULE_KEYS else value)


@dataclass(frozen=True, slots=True)
class Rule:
    """An Allow or Disallow line that applies to an agent."""

    number: int  # the line of robots.txt
    allow: bool
    pattern: str  # as normalised; for an index.html Allow, the folder pattern it stands for

    @property
    def priority(self) -> int:
        return len(self.pattern)


def _regex(pattern: str, end: str = r"\Z") -> str:
    # robots.cc RobotsMatchStrategy::Matches: anchored at the start, `$` special only at the end.
    # The leftmost place of each piece after a `*` is as good as any later one, so each `*`
    # commits to it (an atomic group): linear in the path, whatever the pattern. end is what
    # a final `$` is written as.
    anchored = pattern.endswith("$")
    pieces = (pattern[:-1] if anchored else pattern).split("*")
    last = pieces.pop() if anchored and len(pieces) > 1 else None
    out = [re.escape(pieces[0])]
    out.extend(f"(?>.*?{re.escape(piece)})" for piece in pieces[1:] if piece)
    if last is not None:
        out.append(f".*{re.escape(last)}")
    if anchored:
        out.append(end)
    return "".join(out)


def _better(rule: Rule, than: Rule | None) -> bool:
    # robots.cc: the longest pattern decides; on a tie Allow wins; else the first line stays.
    if than is None:
        return True
    return (rule.priority, rule.allow, -rule.number) > (than.priority, than.allow, -than.number)


# Past this many patterns with `*`, a path is tried only against those whose longest literal
# piece starts with a character pair (for a one-character piece, a character) of the path.
WILD_INDEX_FROM = 32
# The checker tells with one expression that no rule matches a path when there are this few.
_QUICK_REJECT_MAX_RULES = 256


@dataclass(frozen=True, slots=True)
class _Wild:
    """Patterns with `*`, by priority, Allow first on a tie: the first that matches decides."""

    rules: tuple[Rule, ...]
    # Few: one expression, one alternative a rule; each ends in an empty group, so that only a
    # match sets a mark (a group around each alternative makes every try ten times slower).
    regex: re.Pattern[str] | None
    # Many: one expression a rule, and which rules each character pair or character may start.
    each: tuple[re.Pattern[str], ...]
    index: dict[str, tuple[int, ...]]  # "" for a rule with no literal piece: always tried

    @classmethod
    def of(cls, rules: list[Rule]) -> _Wild | None:
        if not rules:
            return None
        ordered = tuple(sorted(rules, key=lambda r: (-r.priority, not r.allow, r.number)))
        if len(ordered) < WILD_INDEX_FROM:
            joined = "|".join(f"{_regex(rule.pattern)}()" for rule in ordered)
            return cls(ordered, re.compile(joined, re.DOTALL), (), {})
        index: dict[str, list[int]] = {}
        for position, rule in enumerate(ordered):
            body = rule.pattern[:-1] if rule.pattern.endswith("$") else rule.pattern
            pieces = [piece for piece in body.split("*") if piece]
            key = max(pieces, key=len)[:2] if pieces else ""
            index.setdefault(key, []).append(position)
        each = tuple(re.compile(_regex(rule.pattern), re.DOTALL) for rule in ordered)
        return cls(ordered, None, each, {k: tuple(v) for k, v in index.items()})

    def first(self, path: str) -> Rule | None:
        if self.regex is not None:
            match = self.regex.match(path)
            if match is None or match.lastindex is None:
                return None
            return self.rules[match.lastindex - 1]
        index = self.index
        tried = set(index.get("", ()))
        for gram in set(map(operator.add, path, path[1:])).union(path):
            found = index.get(gram)
            if found is not None:
                tried.update(found)
        for position in sorted(tried):
            if self.each[position].match(path):
                return self.rules[position]
        return None


@dataclass(frozen=True, slots=True)
class _Tier:
    """The rules of one kind of group (the agent's own, or `*`), arranged to find the decider.

    Most patterns are plain prefixes: the longest one that starts the path is found by probing
    the path's prefixes of the lengths they have, longest first. A pattern ending in `$` alone
    is a whole path, found by one look-up. The rest (with `*`) are one regular expression whose
    alternatives go by priority, Allow first on a tie, so its first match is its decider
    (`_Wild`).
    """

    prefixes: dict[str, Rule]
    lengths: tuple[int, ...]  # of the prefixes, longest first
    slack: int  # the most a prefix rule's priority exceeds its prefix (its trailing stars)
    whole: dict[str, Rule]
    wild: _Wild | None

    @classmethod
    def of(cls, rules: list[Rule]) -> _Tier | None:
        if not rules:
            return None
        prefixes: dict[str, Rule] = {}
        whole: dict[str, Rule] = {}
        wild: list[Rule] = []
        for rule in rules:
            written = rule.pattern
            # Trailing stars match anything: `/a*` is the prefix `/a` (its priority still 3).
            stripped = written.rstrip("*")
            if "*" not in written and written.endswith("$"):
                table, key = whole, written[:-1]
            elif "*" not in stripped and not written.endswith("$"):
                table, key = prefixes, stripped  # `/a$*` too: `$` is a character there
            else:
                wild.append(rule)
                continue
            if _better(rule, table.get(key)):
                table[key] = rule
        return cls(
            prefixes,
            tuple(sorted({len(p) for p in prefixes}, reverse=True)),
            max((r.priority - len(p) for p, r in prefixes.items()), default=0),
            whole,
            _Wild.of(wild),
        )

    def rules(self) -> Iterator[Rule]:
        """Every rule of the tier."""
        yield from self.prefixes.values()
        yield from self.whole.values()
        if self.wild is not None:
            yield from self.wild.rules

    def deciding(self, path: str) -> Rule | None:
        best: Rule | None = None
        size = len(path)
        prefixes = self.prefixes
        for length in self.lengths:
            if best is not None and length + self.slack < best.priority:
                break  # no shorter prefix can beat it
            if length <= size:
                rule = prefixes.get(path[:length])
                if rule is not None and _better(rule, best):
                    best = rule
        rule = self.whole.get(path)
        if rule is not None and _better(rule, best):
            best = rule
        wild = self.wild
        if wild is not None and (best is None or _better(wild.rules[0], best)):
            rule = wild.first(path)
            if rule is not None and _better(rule, best):
                best = rule
        return best


@dataclass(frozen=True, slots=True)
class _AgentRules:
    specific: _Tier | None  # None: no rule
    named: bool  # a group names the agent: the global group is then never obeyed
    global_: _Tier | None
    any_global: bool = False  # a `*` group is written, with rules or without


def _rules(pattern: bytes, number: int, allow: bool) -> Iterator[Rule]:
    text = pattern.decode("ascii")  # escape_pattern left only ASCII
    if not text:
        return  # an empty pattern matches with priority 0, which decides nothing
    yield Rule(number, allow, text)
    slash = text.rfind("/")
    if allow and slash >= 0 and text.startswith("/index.htm", slash):
        # robots.cc HandleAllow: an Allow of .../index.htm(l) that does not match is retried as
        # `.../$`; it is shorter, so adding it outright gives the same longest match.
        yield Rule(number, allow, text[: slash + 1] + "$")


class RobotsRules:
    """The Allow and Disallow rules of one robots.txt body, to ask about URLs."""

    __slots__ = ("_by_agent", "_events")

    def __init__(self, directives: Iterator[Directive]) -> None:
        # Only what matching needs: user-agent values, and rules.
        self._events: tuple[Directive, ...] = tuple(
            d for d in directives if d.key in (Key.USER_AGENT, Key.ALLOW, Key.DISALLOW)
        )
        self._by_agent: dict[str, _AgentRules] = {}  # a few agents at most

    @classmethod
    def parse(cls, body: bytes, *, truncated: bool = False) -> RobotsRules:
        """Read a robots.txt body (its first 500 KiB; `truncated`: it was cut before)."""
        return cls(iter_directives(body, truncated))

    def allowed(self, url: str, agent: str = "Googlebot") -> bool:
        """True when the agent may fetch the URL (absolute; only its path and query count)."""
        rule = self.deciding_rule(url, agent)
        return rule is None or rule.allow

    def _tiers(self, agent: str) -> tuple[_Tier, ...]:
        # The agent's own group's rules, then the global group's when no group names it.
        rules = self._for(agent)
        global_ = None if rules.named else rules.global_
        return tuple(t for t in (rules.specific, global_) if t is not None)

    def _any_rule(self, agent: str, end: str) -> str | None:
        # Most URLs match no rule at all: one expression of every rule's pattern tells, in one
        # call, that none decides (then the URL is allowed). Only for a robots.txt of a few
        # rules, and of few with `*`: each of those may scan the path, which _Wild's index
        # spares the many (a hostile robots.txt of hundreds would cost every URL as much).
        tiers = self._tiers(agent)
        patterns = [rule.pattern for tier in tiers for rule in tier.rules()]
        starred = sum(1 for tier in tiers if tier.wild is not None for _ in tier.wild.rules)
        if not patterns or len(patterns) > _QUICK_REJECT_MAX_RULES or starred >= WILD_INDEX_FROM:
            return None
        return "|".join(_regex(p, end) for p in patterns)

    def no_rule_matches(
        self, agent: str = "Googlebot", prefix: str = ""
    ) -> Callable[[str], bool] | None:
        """A test of many paths at once, written one a line, each after prefix (each as
        path_params_query gives it, ASCII without `%`; prefix is an origin, say, that every
        line starts with): True when no rule of the agent's matches any of them, so that all
        are allowed. None when the rules are too many for one expression; for a robots.txt
        with no rule for the agent, always True."""
        if not self._tiers(agent):
            return _always
        any_rule = self._any_rule(agent, "$")
        if any_rule is None:
            return None
        # Each rule's expression is anchored at a line's start: after a line break (one is put
        # before the first line) and the prefix, which the expression engine finds far faster
        # than a `^` (and than taking the prefix off every line).
        search = re.compile(f"\n{re.escape(prefix)}(?:{any_rule})", re.MULTILINE).search
        return lambda lines: search("\n" + lines) is None

    def group_of(self, agent: str) -> str:
        """Which group the agent obeys: "own" (a group names it), "global" (the `*` group), or
        "none" (no group applies: every URL is allowed to it)."""
        rules = self._for(agent)
        return "own" if rules.named else "global" if rules.any_global else "none"

    def allows_all(self, agent: str = "Googlebot") -> bool:
        """True when no URL can be disallowed for the agent: its rules (the ones `allowed`
        obeys) are Allow rules only, or none (`Allow: /`, an empty `Disallow:`). A shortcut of
        `allowed`, which then answers True for every URL; tests/property holds them equal."""
        return all(rule.allow for tier in self._tiers(agent) for rule in tier.rules())

    def checker(self, agent: str = "Googlebot") -> Callable[[str], bool]:
        """`allowed(url, agent)` as one function of the URL, for the deep audit's millions: the
        agent's rules are looked up once, and a robots.txt with no rule for it answers at once."""
        tiers = self._tiers(agent)
        if not tiers:
            return _always
        any_rule = self._any_rule(agent, r"\Z")
        matches_a_rule = None if any_rule is None else re.compile(any_rule, re.DOTALL).match

        def allowed(url: str) -> bool:
            path = _normalised(path_params_query(url))
            if matches_a_rule is not None and matches_a_rule(path) is None:
                return True
            for tier in tiers:
                rule = tier.deciding(path)
                if rule is not None:
                    return rule.allow
            return True

        return allowed

    def deciding_rule(self, url: str, agent: str = "Googlebot") -> Rule | None:
        """The rule that decides for the URL, None when none does (the URL is then allowed)."""
        return self._deciding(_normalised(path_params_query(url)), agent)

    def allowed_path(self, path: str, agent: str = "Googlebot") -> bool:
        """robots.cc exact: the path (with params and query) as given, not normalised."""
        rule = self._deciding(path, agent)
        return rule is None or rule.allow

    def _deciding(self, path: str, agent: str) -> Rule | None:
        rules = self._by_agent.get(agent) or self._for(agent)
        if rules.specific is not None:
            rule = rules.specific.deciding(path)
            if rule is not None:
                return rule
        if rules.named or rules.global_ is None:
            return None
        return rules.global_.deciding(path)

    def _for(self, agent: str) -> _AgentRules:
        found = self._by_agent.get(agent)
        if found is None:
            found = self._by_agent[agent] = self._collect(agent)
        return found

    def _collect(self, agent: str) -> _AgentRules:
        # robots.cc RobotsMatcher's Handle* callbacks, replayed without a path: which rules are
        # the agent's, which are the global group's, and whether any group names the agent.
        name = agent.encode("utf-8", "surrogatepass").lower()  # absl::EqualsIgnoreCase: ASCII
        specific: list[Rule] = []
        global_: list[Rule] = []
        seen_global = seen_specific = seen_separator = named = any_global = False
        for event in self._events:
            if event.key is Key.USER_AGENT:
                if seen_separator:
                    seen_specific = seen_global = seen_separator = False
                value = event.value
                if value[:1] == b"*" and (len(value) == 1 or value[1] in _C_SPACE):
                    seen_global = any_global = True
                elif _agent_name(value).lower() == name:
                    named = seen_specific = True
                continue
            if not (seen_global or seen_specific):
                continue  # a rule outside any group that applies
            seen_separator = True
            target = specific if seen_specific else global_
            target.extend(_rules(event.value, event.number, event.key is Key.ALLOW))
        return _AgentRules(_Tier.of(specific), named, _Tier.of(global_), any_global)
