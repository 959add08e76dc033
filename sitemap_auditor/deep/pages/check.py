"""The page check's I/O loop: each distinct listed URL requested once, through the project's one
guarded fetcher (its address guard, credentials only to the site's own origin, deadline, each
redirect hop heard), paced politely, judged by verdict.py, written to the pages file as it goes.

Fed an iterator of (url, sitemap, lastmod), in walk order, read twice (once to count, once to
check); only 64-bit digests of the URLs seen are held, in one table for both readings.
"""

from __future__ import annotations

import math
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from sitemap_auditor.core.errors import FetchError, FetchErrorKind
from sitemap_auditor.core.text import clip
from sitemap_auditor.core.urls import Origin, UnfetchableURLError, WebURL, strip_userinfo
from sitemap_auditor.core.urls import read as read_url
from sitemap_auditor.core.validators import NO_VALIDATORS
from sitemap_auditor.deep import redaction
from sitemap_auditor.deep.checks import RobotsAgents
from sitemap_auditor.deep.pages import DEFAULT_MAX_PAGES, verdict
from sitemap_auditor.deep.pages.head import READ_LIMIT, HeadFacts, HeadReader
from sitemap_auditor.deep.pages.pacing import Pacer, crawl_delay, retry_after_seconds
from sitemap_auditor.deep.pages.store import DigestSet, PagesFile, url_key
from sitemap_auditor.deep.pages.summary import Summary
from sitemap_auditor.deep.redaction import redact
from sitemap_auditor.deep.robots_rules import (
    COMPLETE_DISALLOW,
    RobotsRules,
    product_token,
    robots_unreachable,
)
from sitemap_auditor.deep.scope import MAX_URL_CHARS
from sitemap_auditor.fetching.fetch import (
    USER_AGENT,
    Answer,
    Fetcher,
    FetchPolicy,
    Hop,
)
from sitemap_auditor.fetching.interim import MAX_HEAD_BYTES

__all__ = [
    "DEFAULT_MAX_PAGES",
    "Listed",
    "PageOptions",
    "check_pages",
    "chosen_pages",
    "page_agents",
]

MAX_RETRIES = 2  # a 429 or 503 is retried this many times before it is a finding
MAX_RETRY_WAIT_S = 120.0  # a longer Retry-After is not waited out (the answer stands): paused
_POLL_S = 0.2  # how often a wait on the workers looks at the deadline
MAX_ROBOTS_ORIGINS = 32  # origins besides the site's whose robots.txt a check reads
MAX_DEFECT_CHARS = 300  # what a row says of an unforeseen failure: its type and message, cut
_HTML = ("text/html", "application/xhtml+xml")

# One listed URL: (url, sitemap, lastmod).
Listed = tuple[str, str, str | None]


@dataclass(frozen=True)
class PageOptions:
    """How the page check runs."""

    max_pages: int = DEFAULT_MAX_PAGES  # 0: no limit
    concurrency: int = 4
    rate: float | None = None  # requests per second, at most
    max_seconds: float = 3600.0
    pages_out: str | None = None
    resume: bool = False
    user_agent: str = USER_AGENT  # an extra User-Agent header in the policy replaces it
    on_progress: Callable[[int, int, float], None] | None = None  # done, to do, seconds
    # Told once, of the first page whose check failed by a defect of this tool: its URL and
    # the row's `error` (the check goes on; each such page's row says so).
    on_defect: Callable[[str, str], None] | None = None
    now: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))

    def __post_init__(self) -> None:
        if self.max_pages < 0 or not 1 <= self.concurrency <= 64:
            raise ValueError("max_pages >= 0, concurrency 1 to 64")
        # NaN and infinity are no numbers here: each would pass a `<= 0` test
        if not 0 < self.max_seconds < math.inf:
            raise ValueError("max_seconds must be a number > 0")
        if self.rate is not None and not 0 < self.rate < math.inf:
            raise ValueError("rate must be a number > 0")


def chosen_pages(
    listed: Callable[[], Iterable[Listed]],
    done: DigestSet,
    max_pages: int,
    shown: Callable[[str], str] = lambda url: url,
) -> tuple[Iterator[Listed], int, bool]:
    """The URLs to check, how many, and whether they are a sample: an even stride through the
    walk's order (so every sitemap gives its share) when there are more than max_pages. done
    holds the URLs of an earlier run's rows, as its rows show them (`shown`: redacted).

    One table of digests serves both readings of the walk's URLs: the count fills it with each
    URL not done, the check takes each from it the first time it meets it (a repeat finds it
    taken), so the second reading holds nothing more than the first.

    A URL longer than a URL may be (MAX_URL_CHARS, the walk's invalid-url) is not asked for: the
    reading may have cut it, and what it would ask for is not what the sitemap lists."""
    table = DigestSet()
    total = sum(
        1
        for url, _, _ in listed()
        if len(url) <= MAX_URL_CHARS and url_key(shown(url)) not in done and table.add(url_key(url))
    )

    def distinct() -> Iterator[Listed]:
        for item in listed():
            if len(item[0]) <= MAX_URL_CHARS and table.take(url_key(item[0])):
                yield item

    if not max_pages or total <= max_pages:
        return distinct(), total, False
    step = total / max_pages

    def sample() -> Iterator[Listed]:
        taken = 0
        for i, item in enumerate(distinct()):
            if taken < max_pages and i >= int(taken * step):
                taken += 1
                yield item

    return sample(), max_pages, True


class _DisallowedError(Exception):
    """A redirect leads to a URL that its origin's robots.txt disallows: it is not asked for."""

    def __init__(self, target: WebURL, agents: list[str]) -> None:
        super().__init__(target.href)
        self.target = target
        self.agents = agents


class _NextHopError(Exception):
    """A redirect leads to target: it is asked for in a request of its own, in its turn."""

    def __init__(self, target: WebURL, vetted_at: float) -> None:
        super().__init__(target.href)
        self.target = target
        self.vetted_at = vetted_at  # when its vetting began: the hop's request had ended


class _OutOfTurnError(Exception):
    """A redirect's next hop cannot have its turn before the deadline (or the run stopped): the
    page is left unchecked."""


class _RobotsBook:
    """robots.txt by origin: rules of one origin say nothing of another's. The site's is read
    before the check; another origin's (a listed page there, a redirect there) the first time
    one of its URLs comes, once, while other workers wait for it. Past MAX_ROBOTS_ORIGINS
    origins, a further origin's pages are checked without its robots.txt."""

    def __init__(
        self,
        policy: FetchPolicy,
        agent: str,
        site: tuple[Origin, RobotsAgents] | None,
    ) -> None:
        self._policy, self._agent = policy, agent
        self._rules: dict[Origin, RobotsAgents | None] = dict([site]) if site else {}
        self._reading: dict[Origin, threading.Lock] = {}
        self._lock = threading.Lock()

    def blocked_for(self, target: WebURL) -> list[str]:
        """The page agents target's robots.txt disallows it to ([] when none does)."""
        return _disallowed(self._of(target), target)

    def known_blocked_for(self, url: str) -> list[str] | None:
        """blocked_for, for a URL whose origin's robots.txt is already read; None otherwise
        (no URL, or an origin not read yet): nothing is asked of any site."""
        try:
            target = read_url(url)
        except UnfetchableURLError:
            return None
        with self._lock:
            if target.origin not in self._rules:
                return None
            rules = self._rules[target.origin]
        return _disallowed(rules, target)

    def _of(self, target: WebURL) -> RobotsAgents | None:
        origin = target.origin
        with self._lock:
            if origin in self._rules:
                return self._rules[origin]
            if origin not in self._reading and len(self._reading) >= MAX_ROBOTS_ORIGINS:
                return None  # one more origin than the book holds: not read
            reading = self._reading.setdefault(origin, threading.Lock())
        with reading:
            with self._lock:
                if origin in self._rules:
                    return self._rules[origin]
            url = f"{target.scheme}://{target.authority}/robots.txt"
            rules, _ = _robots(self._policy, url, self._agent)
            with self._lock:
                self._rules[origin] = rules
            return rules


def _disallowed(rules: RobotsAgents | None, target: WebURL) -> list[str]:
    if rules is None or rules.allows is None or rules.allows(target.href):
        return []
    return rules.blocked_for(target.href)


class _Checker:
    def __init__(
        self,
        policy: FetchPolicy,
        options: PageOptions,
        pacer: Pacer,
        robots: _RobotsBook,
    ) -> None:
        self.policy = policy
        self.options = options
        self.pacer = pacer
        # A page, or a redirect's target, that its origin's robots.txt disallows is not asked
        # for, as the crawler would not ask for it.
        self.robots = robots
        self.local = threading.local()
        self.fetchers: list[Fetcher] = []
        self.lock = threading.Lock()
        self.secrets = _secrets(policy)
        self.defect_told = False

    def fetcher(self) -> Fetcher:
        f: Fetcher | None = getattr(self.local, "fetcher", None)
        if f is None:
            f = Fetcher(self.policy, user_agent=self.options.user_agent)
            self.local.fetcher = f
            with self.lock:
                self.fetchers.append(f)
        return f

    def wait(self, stop: threading.Event, deadline: float) -> bool:
        """Wait for this request's turn (the rate, Crawl-delay, Retry-After), a redirect's hop
        included; False, at once, when the turn comes at or past the deadline, or once the run
        stops. A turn that a pause the site asked for has since covered is taken again."""
        while True:
            delay = self.pacer.reserve()
            if delay > 0:
                if time.monotonic() + delay >= deadline:
                    return False
                stop.wait(delay)
            if stop.is_set():
                return False
            if not self.pacer.paused():
                return True

    def check(self, item: Listed, stop: threading.Event, deadline: float) -> dict[str, Any] | None:
        """The page's row; None when the run ends before the page could be checked (its turn
        comes past the deadline, or the deadline cut its request): no row, not a failure."""
        url, sitemap, lastmod = item
        listed: WebURL | None = None  # the listed URL's one reading, for every decision
        try:
            listed = read_url(url)
            agents = self.robots.blocked_for(listed)
        except UnfetchableURLError:
            agents = []  # no URL to ask for: the fetch says so
        if agents:
            return _blocked_row(item, agents)
        started = time.monotonic()
        row: dict[str, Any] | None = None
        self.local.turn = (stop, deadline)  # a redirect's hop waits for its turn too (_vet)
        for attempt in range(MAX_RETRIES + 1):
            # A retry whose turn comes past the deadline leaves the page unchecked, as a first
            # request's does: the wait the site asked for was not waited out.
            if not self.wait(stop, deadline):
                return None
            try:
                row, retry_in = self._once(url, listed)
            except _OutOfTurnError:
                return None
            if row["error"] is not None and time.monotonic() >= deadline:
                return None
            if retry_in is not None:
                # The site asked for a pause: every request to it waits, whether this page is
                # asked again or not. A longer wait than MAX_RETRY_WAIT_S is not waited out for
                # the page, whose answer then stands, but the pause lasts that long all the same.
                self.pacer.pause(min(retry_in, MAX_RETRY_WAIT_S))
            if (
                retry_in is None
                or retry_in > MAX_RETRY_WAIT_S
                or attempt == MAX_RETRIES
                or stop.is_set()
            ):
                break
        assert row is not None  # the loop runs at least once, and returns without a row
        modified = row.pop("_modified")
        row.update(
            sitemap=sitemap,
            lastmod=lastmod,
            pageModified=None if modified is None else modified.isoformat(),
            lastmodMismatch=verdict.lastmod_disagrees(lastmod, modified),
            ms=round((time.monotonic() - started) * 1000),
        )
        return {"url": url, **row}

    def _once(self, url: str, listed: WebURL | None) -> tuple[dict[str, Any], float | None]:
        """One request of url (listed: its reading; redirects followed): its row, and seconds
        to wait before a retry when the site asked to slow down (429, 503)."""
        hops: list[Hop] = []
        now = self.options.now()
        retry_in: float | None = None
        try:
            with self._followed(url, hops) as answer:
                status, final, headers = answer.status, answer.url, answer.headers
                content_type = clip(answer.content_type or "", 200) or None
                head: HeadFacts | None = None
                body_bytes = 0
                if 200 <= status <= 299 and (content_type or "").lower().startswith(_HTML):
                    reader = HeadReader(content_type)
                    for chunk in answer.body(limit=READ_LIMIT, truncate=True):
                        body_bytes += len(chunk)
                        reader.feed(chunk)
                        if reader.done:
                            break
                    head = reader.facts()
                if status in (429, 503):
                    wait = retry_after_seconds(headers.get("Retry-After"), now)
                    retry_in = 1.0 if wait is None else wait
                found = verdict.judge(
                    # The listed URL's reading: after a hop, the fetch's is of the hop's target.
                    requested=listed if hops and listed is not None else answer.requested,
                    final=answer.final,
                    status=status,
                    redirected=bool(hops),
                    headers=headers,
                    robots_tags=answer.header_lines("X-Robots-Tag"),
                    head=head,
                    body_bytes=body_bytes,
                    now=now,
                )
                modified = verdict.page_modified(headers, head) if found.indexable else None
        except _DisallowedError as d:
            # The target's reason, as for any redirect to a page that is not indexable.
            blocked = _blocked_row((url, "", None), d.agents)
            blocked.update(
                redirects=self._hops(hops),
                finalUrl=d.target.href,
                _modified=None,  # check() sets the listing's own fields (sitemap, lastmod...)
            )
            return blocked, None
        except FetchError as e:
            found = verdict.failed(e.kind, bool(hops))
            status, final, content_type, modified, head = 0, None, None, None, None
            error: str | None = str(e)  # its kind, then what it was: "blocked: 169.254..."
        else:
            error = None
        row: dict[str, Any] = {
            "status": status or None,
            "redirects": self._hops(hops),
            "finalUrl": final,
            "indexable": found.indexable,
            "reason": found.reason,
            "blockedFor": None,
            "noindex": found.noindex,
            "canonical": found.canonical,
            "contentType": content_type,
            "error": error,
            "headCut": bool(head is not None and head.cut),
            "_modified": modified,
        }
        return row, retry_in

    @contextmanager
    def _followed(self, url: str, hops: list[Hop]) -> Iterator[Answer]:
        """The final answer of url, redirects followed (each one heard by hops): each hop is a
        request to the site, and waits for its turn (the rate, Crawl-delay, Retry-After) as the
        first request does; _OutOfTurnError when that turn comes at or past the run's
        deadline. The page's requests share one deadline (the policy's), as one fetch's
        redirects do: the waits for their turns are not counted against it."""
        current = url
        spent = 0.0
        while True:
            started = time.monotonic()
            try:
                with self.fetcher().open(
                    current,
                    on_hop=hops.append,
                    before_hop=self._vet,
                    redirects=len(hops),
                    spent=spent,
                ) as a:
                    yield a
                    return
            except _NextHopError as hop:
                # The request's time, not the vetting's (another origin's robots.txt read):
                # the hop's answer had come when _vet began.
                spent += hop.vetted_at - started
                if any(h.url == hop.target.href for h in hops):
                    # Asked again, it would answer as before: a loop, whatever the hops left.
                    raise FetchError(
                        FetchErrorKind.TOO_MANY_REDIRECTS,
                        "a redirect loop, back to a URL asked before",
                    ) from None
                if not self.wait(*self.local.turn):
                    raise _OutOfTurnError from None
                current = hop.target.href

    def _vet(self, target: WebURL) -> None:
        """Before a redirect's target is asked for (the fetcher counted it against
        MAX_REDIRECTS first): a redirect error for a target longer than a URL may be (Search
        Console's "a URL over the maximum length"); _DisallowedError when robots.txt disallows
        it to the page agents; else _NextHopError, to ask for it in its turn (`_followed`)."""
        vetted_at = time.monotonic()
        if len(target.href) > MAX_URL_CHARS:
            raise FetchError(
                FetchErrorKind.INVALID_URL, f"a redirect to a URL over {MAX_URL_CHARS:,} characters"
            )
        agents = self.robots.blocked_for(target)
        if agents:
            raise _DisallowedError(target, agents)
        raise _NextHopError(target, vetted_at)

    def _hops(self, hops: list[Hop]) -> list[dict[str, Any]]:
        """Each hop's status and where it led: the fetch's own reading of its Location, which
        holds no userinfo, or, when it is no URL the fetch follows, its text without userinfo,
        the audit's credentials hidden and cut (docs/contract.md §8)."""
        return [{"status": h.status, "location": self._led_to(h)} for h in hops]

    def _led_to(self, hop: Hop) -> str:
        if hop.target is not None:
            return hop.target.href
        return clip(redact(strip_userinfo(hop.location), self.secrets), MAX_URL_CHARS)

    def defect(self, item: Listed, exc: Exception) -> dict[str, Any]:
        """The row of a page whose check failed by a defect of this tool (no answer of the
        site's explains it): not judged (`indexable` and `reason` null), `error` saying
        `internal:`, the exception's type and message on one line, cut, with no userinfo and
        no credential of the audit's. The first such page is told to options.on_defect."""
        url, sitemap, lastmod = item
        said = " ".join(f"{type(exc).__name__}: {exc}".split())
        said = redact(strip_userinfo(said), self.secrets)
        if len(said) > MAX_DEFECT_CHARS:
            said = redact(said[: MAX_DEFECT_CHARS - 3] + "...", self.secrets)
        error = f"internal: {said}"
        with self.lock:
            tell, self.defect_told = not self.defect_told, True
        if tell and self.options.on_defect is not None:
            self.options.on_defect(redact(strip_userinfo(url), self.secrets), error)
        return {
            "url": url,
            "sitemap": sitemap,
            "status": None,
            "redirects": [],
            "finalUrl": None,
            "indexable": None,
            "reason": None,
            "blockedFor": None,
            "noindex": None,
            "canonical": None,
            "contentType": None,
            "error": error,
            "headCut": False,
            "lastmod": lastmod,
            "pageModified": None,
            "lastmodMismatch": False,
            "ms": 0,
        }

    def close(self) -> None:
        for f in self.fetchers:
            f.close()


def page_agents(user_agent: str) -> tuple[str, ...]:
    """The agents whose robots.txt rules decide which pages are not requested: Googlebot, whose
    indexing the check reports, and the product the User-Agent sent names (robots_rules
    .product_token: `AgencyAudit` for `Mozilla/5.0 (compatible; AgencyAudit/1.0)`), when it
    names another, since it is that agent that makes the requests."""
    token = product_token(user_agent)
    if token is None or token.lower() == "googlebot":
        return ("Googlebot",)
    return ("Googlebot", token)


def _sent_agent(fetcher: Fetcher, url: str) -> str:
    """The User-Agent the fetcher sends to url: its own, or the one the policy's headers give."""
    sent = fetcher.headers_for(url, NO_VALIDATORS)
    return next((v for k, v in sent.items() if k.lower() == "user-agent"), fetcher.user_agent)


def _robots(policy: FetchPolicy, robots_url: str, agent: str) -> tuple[RobotsAgents, float | None]:
    """Which of the page agents robots.txt disallows a URL to (none when there is no
    robots.txt, or no answer; every one when it answers a 5xx or a 429), and the
    Crawl-delay it gives the requesting agent's group (or `*`)."""
    fetcher = Fetcher(policy, user_agent=agent)
    sent = _sent_agent(fetcher, robots_url)
    agents = page_agents(sent)
    try:
        with fetcher.open(robots_url) as answer:
            if robots_unreachable(answer.status):
                body = COMPLETE_DISALLOW  # no usable answer: the whole origin is disallowed
            elif answer.status != 200:
                return RobotsAgents(None, agents), None
            else:
                body = b"".join(answer.body(limit=512 * 1024, truncate=True))
    except FetchError:
        # No answer at all: the page's own request will meet what robots.txt's met (a refused
        # connection, an address the guard refuses) and say so, more precisely than "blocked".
        return RobotsAgents(None, agents), None
    finally:
        fetcher.close()
    # The group of the product the User-Agent names (Googlebot's too), else of its first word.
    delay = crawl_delay(body, product_token(sent) or sent)
    return RobotsAgents(RobotsRules.parse(body), agents), delay


def _secrets(policy: FetchPolicy) -> tuple[str, ...]:
    """What no row may show: the credentials and the credential headers' values, longest first,
    as redaction needs (a header before the token inside it)."""
    creds = policy.credentials
    found = (creds.secrets() if creds is not None else ()) + policy.extra_headers.secrets()
    return tuple(sorted(dict.fromkeys(found), key=len, reverse=True))


def check_pages(
    listed: Callable[[], Iterable[Listed]],
    robots_url: str,
    policy: FetchPolicy,
    options: PageOptions,
) -> Summary:
    """Check every distinct URL listed (up to max_pages); rows to options.pages_out; totals back.

    listed gives the walk's URLs afresh each time it is called (it may be called twice);
    robots_url is the site's robots.txt as the walk read its site (SiteBase.robots_txt_url)."""
    summary = Summary()
    done = DigestSet()
    if options.resume and options.pages_out:
        for row in PagesFile.rows(options.pages_out):
            done.add(url_key(row["url"]))
            summary.add(row, resumed=True)
    start = time.monotonic()
    # The caller's policy whole (its extra headers included), bounded by the page check's time;
    # a listed page, or a redirect, never reaches a metadata or link-local address, not even
    # where private networks are allowed (a local site's pages may still be audited); each
    # worker keeps its connection to a host for its next page there.
    policy = replace(
        policy,
        budget_deadline=start + options.max_seconds,
        refuse_metadata=True,
        keep_alive=True,
        max_head_bytes=MAX_HEAD_BYTES,  # a head as long as browsers read, no longer
    )
    robots, delay = _robots(policy, robots_url, options.user_agent)
    summary.crawl_delay = delay
    secrets = _secrets(policy)
    items, total, sampled = chosen_pages(
        listed, done, options.max_pages, redaction.cleaner(secrets)
    )
    summary.to_check, summary.sampled = total, sampled
    out = PagesFile(options.pages_out, options.resume) if options.pages_out else None
    try:
        site: tuple[Origin, RobotsAgents] | None = (read_url(robots_url).origin, robots)
    except UnfetchableURLError:
        site = None
    pacer = Pacer(options.rate, delay, time.monotonic)
    book = _RobotsBook(policy, options.user_agent, site)
    checker = _Checker(policy, options, pacer, book)
    try:
        summary.stopped_by = _run(items, checker, summary, out, start)
    finally:
        checker.close()
        if out is not None:
            out.close()
    summary.seconds = round(time.monotonic() - start, 3)
    return summary


def _blocked_row(item: Listed, agents: list[str]) -> dict[str, Any]:
    url, sitemap, lastmod = item
    return {
        "url": url,
        "sitemap": sitemap,
        "status": None,
        "redirects": [],
        "finalUrl": None,
        "indexable": False,
        "reason": "blocked-by-robots",
        "blockedFor": agents,
        "noindex": None,
        "canonical": None,
        "contentType": None,
        "error": None,
        "headCut": False,
        "lastmod": lastmod,
        "pageModified": None,
        "lastmodMismatch": False,
        "ms": 0,
    }


def _run(
    items: Iterator[Listed],
    checker: _Checker,
    summary: Summary,
    out: PagesFile | None,
    start: float,
) -> str | None:
    """Feed the workers; return why the run stopped early (None when every URL was checked)."""
    options = checker.options
    work: queue.Queue[Listed | None] = queue.Queue(maxsize=options.concurrency * 4)
    stop = threading.Event()
    ran_out = threading.Event()  # the deadline stops the run: no page is checked after it
    lock = threading.Lock()

    def record(row: dict[str, Any]) -> None:
        # Each page was asked for as listed; what is kept of it shows no credential (a site
        # may list, or redirect to, a URL that carries one, as a password or as userinfo).
        row = redaction.redacted(row, checker.secrets)
        if out is not None and not out.write(row):
            return  # the run is over, its file closed: the row is not the run's
        with lock:
            summary.add(row)
            done = summary.checked_now
        if options.on_progress is not None:
            options.on_progress(done, summary.to_check, time.monotonic() - start)

    deadline = start + options.max_seconds

    def worker() -> None:
        while True:
            try:
                item = work.get(timeout=_POLL_S)
            except queue.Empty:
                if stop.is_set():
                    return
                continue
            if item is None:
                return
            if stop.is_set() or ran_out.is_set():
                continue
            try:
                row = checker.check(item, stop, deadline)
            except Exception as e:  # noqa: BLE001 -- a defect on one page: its row says so
                row = checker.defect(item, e)  # and the other pages are checked
            if row is None:  # the deadline comes first: no later turn can be taken either
                ran_out.set()
                continue
            try:
                record(row)
            except Exception:  # the pages file cannot be written: nothing more can be kept
                stop.set()
                raise

    threads = [
        threading.Thread(target=worker, daemon=True, name=f"page-{i}")
        for i in range(options.concurrency)
    ]
    for t in threads:
        t.start()
    stopped: str | None = None

    def put(item: Listed | None) -> bool:
        # Every wait of the run is bounded by its deadline: a full queue (paced workers) too.
        while True:
            try:
                work.put(item, timeout=_POLL_S)
                return True
            except queue.Full:
                if stop.is_set() or time.monotonic() >= deadline:
                    return False

    try:
        for item in items:
            if time.monotonic() >= deadline:
                ran_out.set()
            if ran_out.is_set() or stop.is_set():
                break
            # A page of an origin whose robots.txt is read, disallowed: its row needs no
            # request, and is written as the walk reaches it (a worker reads another's).
            if agents := checker.robots.known_blocked_for(item[0]):
                record(_blocked_row(item, agents))
                continue
            if not put(item):
                if not stop.is_set():
                    ran_out.set()
                break
        if time.monotonic() >= deadline:
            stop.set()  # paced workers stop waiting, requests in flight end (the policy's)
        for _ in threads:
            if not put(None):
                break
        for t in threads:
            while t.is_alive():
                t.join(_POLL_S)
                if not stop.is_set() and time.monotonic() >= deadline:
                    ran_out.set()
                    stop.set()  # requests in flight end at the deadline (the policy's)
        if ran_out.is_set():
            stopped = "max-seconds"
        elif stop.is_set():
            stopped = "error"  # the pages file could not be written
    except KeyboardInterrupt:
        stop.set()
        stopped = "interrupted"
    return stopped
