"""The fetcher: one URL's GET, its redirects followed hop by hop, its final answer's body as
bounded, decoded chunks.

What it guarantees for every URL it fetches (docs/contract.md §4):
- the 37AuditsBot user agent, and Basic Auth only on the site's own origin, hop by hop;
- at most 10 redirects, http(s) only;
- one deadline for the whole fetch (name look-ups, redirects and body), kept by its Guard
  (guard.py), which also checks every address before a connection opens;
- the wire bytes and every decompressed layer capped (decoding.py), gzip found by its magic bytes.

Every URL is read once (urls.read, the WHATWG Standard's reading: docs/contract.md §8), and the
origin check, the address guard and the connection all use that reading. The fetcher speaks to
its transport only through exchange.py's interface: transport.HttpTransport by default (requests
and urllib3 stay behind it), or any other, such as memory_transport.MemoryTransport in tests.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass

from sitemap_auditor.core import errors, urls
from sitemap_auditor.core.credentials import Credentials
from sitemap_auditor.core.errors import FetchError, FetchErrorKind
from sitemap_auditor.core.request_headers import NO_EXTRA_HEADERS, ExtraHeaders
from sitemap_auditor.core.urls import UnfetchableURLError, WebURL
from sitemap_auditor.core.validators import NO_VALIDATORS, Validators
from sitemap_auditor.fetching import decoding
from sitemap_auditor.fetching.exchange import Reply, Request, Transport
from sitemap_auditor.fetching.fetch_stats import FetchStats
from sitemap_auditor.fetching.guard import Guard, Resolver, system_resolver

__all__ = [
    "MAX_BODY_BYTES",
    "MAX_REDIRECTS",
    "MAX_VALIDATOR_CHARS",
    "REQUEST_DEADLINE_S",
    "USER_AGENT",
    "Answer",
    "FetchPolicy",
    "Fetcher",
    "Hop",
    "default_transport",
    "redirect_location",
    "transient_status",
]

# The platform's crawler identity (docs/contract.md §4), to the letter.
USER_AGENT = "37AuditsBot/1.0 (+https://www.37audits.com/bot)"
# auditor-doc.md step 4: 30 s per request, which docs/contract.md §4 makes a whole-fetch deadline.
REQUEST_DEADLINE_S = 30.0
# docs/contract.md §4: 10 hops are followed, an 11th fails the request.
MAX_REDIRECTS = 10
# auditor-doc.md step 4: bodies up to 50 MB; docs/contract.md §4 fixes the number of bytes.
MAX_BODY_BYTES = errors.MAX_BODY_BYTES
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
# A validator is echoed back to the site and kept in the shared store; real ones are short
# (a quoted hash, an HTTP date), so a longer one is not kept rather than stored and resent.
MAX_VALIDATOR_CHARS = 256


@dataclass(frozen=True)
class FetchPolicy:
    """What one audit's fetches may do: where credentials go, which addresses, how long."""

    origin: urls.Origin  # the site's, as urls.read reads it: where credentials may go
    credentials: Credentials | None = None
    allow_private_networks: bool = False
    resolver: Resolver = system_resolver
    deadline_s: float = REQUEST_DEADLINE_S
    # A time.monotonic() value after which no fetch may run on (the Lambda's own time limit).
    budget_deadline: float | None = None
    # Headers the user adds (the deep audit's --user-agent, --header); none for the Lambda.
    extra_headers: ExtraHeaders = NO_EXTRA_HEADERS
    # Link-local and cloud metadata addresses refused even where allow_private_networks lets
    # loopback and private ones through (the deep audit's page check); the Lambda's allowance
    # lifts every refusal (docs/contract.md §4), so it leaves this False.
    refuse_metadata: bool = False
    # Keep one connection a host for the next fetch of that host (the deep audit's page check,
    # which asks one host for many pages); the Lambda opens one connection a hop.
    keep_alive: bool = False
    # A bound on each answer's head past http.client's (the deep audit's walk and page check:
    # interim.MAX_HEAD_BYTES); None for the Lambda, whose answers keep http.client's bounds.
    max_head_bytes: int | None = None
    # A PEM file of the authorities whose certificates are trusted, instead of the default
    # bundle (certifi's): a staging site's own authority, or the tests' HTTPS on loopback.
    ca_file: str | None = None


@dataclass(frozen=True)
class Hop:
    """One redirect on the way to a final answer: the URL asked, its status, where it led.

    location is the Location as the fetch reads it (UTF-8 bytes decoded, trimmed); target its
    one reading against url, userinfo removed: what is asked for next, or None when it is no
    URL the fetch follows. Whoever shows a hop shows target (docs/contract.md §8: never a
    second reading of a URL, never its userinfo)."""

    url: str
    status: int
    location: str
    target: WebURL | None = None


def redirect_location(status: int, headers: Mapping[str, str]) -> str | None:
    """Where an answer redirects the fetch, which follows it without reading its body; None for
    a final answer."""
    return headers.get("Location") if status in _REDIRECTS else None


def transient_status(status: int) -> bool:
    """True for an HTTP status that says the site could not answer now: 429 and 5xx."""
    return status == 429 or 500 <= status <= 599


def _validator(value: str | None) -> str | None:
    if value is None or not value.strip() or len(value) > MAX_VALIDATOR_CHARS:
        return None
    return value.strip()


class Answer:
    """The final answer of a fetch, after redirects; its body is read as decoded chunks."""

    def __init__(self, requested: WebURL, final: WebURL, raw: Reply, guard: Guard) -> None:
        self.url = final.href
        # The fetch's own readings of the URL asked and of the one that answered: whoever
        # decides about them uses these, never a reading of its own (docs/contract.md §8).
        self.requested = requested
        self.final = final
        self.status: int = raw.status
        self.content_type: str | None = raw.headers.get("Content-Type")
        self.validators = Validators(
            _validator(raw.headers.get("ETag")), _validator(raw.headers.get("Last-Modified"))
        )
        self.headers: Mapping[str, str] = raw.headers
        self.truncated = False
        # The first byte past the limit of a truncated read: whether the cut fell at a line end.
        self.past_limit = b""
        self.wire_bytes = 0  # bytes of the body received so far
        self._raw = raw
        self._guard = guard

    def header_lines(self, name: str) -> tuple[str, ...]:
        """The value of each line of header name, on its own, in the order received."""
        return self._raw.header_lines(name)

    def _wire(self, eager: bool) -> Iterator[bytes]:
        guard = self._guard
        for chunk in self._raw.chunks(decoding.CHUNK_BYTES, eager):
            self.wire_bytes += len(chunk)
            if self.wire_bytes > MAX_BODY_BYTES:
                raise FetchError(FetchErrorKind.TOO_LARGE)
            guard.check()
            yield chunk
        # A watchdog shutdown can look like a clean end of a body sent without a length.
        guard.check()

    def body(
        self, limit: int = MAX_BODY_BYTES, truncate: bool = False, eager: bool | None = None
    ) -> Iterator[bytes]:
        """Yield the decoded body in chunks; past limit, stop (truncate) or raise FetchError.
        eager (by default, a truncated read) takes the body as it arrives, so that it never
        waits for bytes past its limit (robots.txt's 500 KiB); else it comes in blocks of one
        size whatever the network's timing, so that a reading stopped early stops at the same
        byte every time (the deep audit's record of it says how many it read)."""
        total = 0
        content_encoding = self._raw.headers.get("Content-Encoding")
        wire = self._wire(eager=truncate if eager is None else eager)
        for chunk in decoding.decode(wire, content_encoding, self._guard.check):
            total += len(chunk)
            if total > limit:
                if not truncate:
                    raise FetchError(FetchErrorKind.TOO_LARGE)
                self.truncated = True
                keep = len(chunk) - (total - limit)
                self.past_limit = chunk[keep : keep + 1]
                yield chunk[:keep]
                return
            yield chunk


class Fetcher:
    """Fetches URLs for one audit under one FetchPolicy."""

    def __init__(
        self,
        policy: FetchPolicy,
        on_fetch: Callable[[FetchStats], None] | None = None,
        transport: Transport | None = None,
        user_agent: str = USER_AGENT,
    ) -> None:
        self.policy = policy
        # The deep audit's page check may name itself otherwise; the Lambda never does.
        self.user_agent = user_agent
        self._on_fetch = on_fetch
        # Set when a fetch was cut by the audit's own time budget rather than by the site: the
        # audit's facts are then incomplete (docs/contract.md §7).
        self.ran_out_of_budget = False
        self._transport = transport if transport is not None else default_transport(policy)

    def close(self) -> None:
        """Release the connections."""
        self._transport.close()

    def remaining_budget(self) -> float | None:
        """Seconds left before the audit's own time limit, or None when it has none."""
        if self.policy.budget_deadline is None:
            return None
        return self.policy.budget_deadline - time.monotonic()

    def headers_for(self, url: str | WebURL, validators: Validators) -> dict[str, str]:
        """The headers a GET of url carries: Basic Auth, and any credential header the user
        added (Authorization, Cookie), only on the site's own origin."""
        headers = {
            "User-Agent": self.user_agent,
            "Accept": "*/*",
            "Accept-Encoding": "gzip, deflate",
        }
        if not self.policy.keep_alive:
            # One connection per hop: the server need not keep it open for another request.
            headers["Connection"] = "close"
        creds = self.policy.credentials
        extra = self.policy.extra_headers
        same_origin = False
        if creds is not None or extra.items:
            same_origin = _origin(url) == self.policy.origin
        if creds is not None and same_origin:
            headers["Authorization"] = creds.header()
        if extra.items:
            for name, value in extra.for_origin(same_origin).items():
                for known in [k for k in headers if k.lower() == name.lower()]:
                    del headers[known]  # the user's User-Agent or Accept replaces the default
                headers[name] = value
        headers.update(validators.headers())
        return headers

    def _guard(self, start: float, spent: float = 0.0) -> Guard:
        deadline = start + self.policy.deadline_s - spent
        budget_bound = False
        if self.policy.budget_deadline is not None and self.policy.budget_deadline < deadline:
            deadline = self.policy.budget_deadline
            budget_bound = True
        return Guard(
            deadline,
            deadline - start + spent,
            resolver=self.policy.resolver,
            allow_private_networks=self.policy.allow_private_networks,
            budget_bound=budget_bound,
            refuse_metadata=self.policy.refuse_metadata,
        )

    def _follow(
        self,
        url: WebURL,
        validators: Validators,
        guard: Guard,
        on_hop: Callable[[Hop], None] | None = None,
        before_hop: Callable[[WebURL], None] | None = None,
        redirects: int = 0,
    ) -> tuple[WebURL, Reply]:
        """The final URL and the head of its answer, after redirects; every other answer closed.
        on_hop hears of each redirect as it is met, before its target is read or refused;
        before_hop of the URL it leads to (its one reading) before that is asked for, and may
        raise to stop there."""
        current = url
        while True:
            request = Request(current, self.headers_for(current, validators))
            raw = self._transport.send(request, guard)
            try:
                if guard.expired:
                    # The watchdog cut the headers short: no final answer came.
                    raise guard.timeout()
                location = redirect_location(raw.status, raw.headers)
                if location is None:
                    return current, raw
                # A Location sent on several lines: joined, they would name a URL the site
                # never wrote. The same one repeated is that one; different ones are refused,
                # as browsers refuse them.
                lines = {line.strip(_OWS) for line in raw.header_lines("Location")}
                if len(lines) == 1:
                    location = lines.pop()
                location = urls.escape_undecodable(_as_sent(location))
                refused: FetchError | None = None
                target: WebURL | None = None
                if len(lines) <= 1:
                    try:
                        target = _next_url(current, location)
                    except FetchError as e:
                        refused = e
                if on_hop is not None:
                    on_hop(Hop(current.href, raw.status, location, target))
                if len(lines) > 1:
                    raise FetchError(
                        FetchErrorKind.INVALID_URL, "a redirect with several different Locations"
                    )
                if redirects >= MAX_REDIRECTS:
                    raise FetchError(
                        FetchErrorKind.TOO_MANY_REDIRECTS, f"more than {MAX_REDIRECTS}"
                    )
                if target is None:
                    raise refused or FetchError(FetchErrorKind.INVALID_URL)
                current = target
                if before_hop is not None:
                    before_hop(current)
            except BaseException:
                raw.close()
                raise
            raw.close()
            redirects += 1

    @contextmanager
    def open(
        self,
        url: str,
        validators: Validators = NO_VALIDATORS,
        on_hop: Callable[[Hop], None] | None = None,
        before_hop: Callable[[WebURL], None] | None = None,
        redirects: int = 0,
        spent: float = 0.0,
    ) -> Iterator[Answer]:
        """Fetch url, following redirects, and yield its final Answer; raises FetchError.

        With validators, the request is conditional: the final answer may then be a 304.
        on_hop, when given, hears of each redirect followed (or refused) on the way; before_hop
        of the URL each leads to, before it is asked for (what it raises stops the fetch).
        redirects: how many were followed already to reach url (a caller that asks for each
        hop in a fetch of its own), counted against MAX_REDIRECTS; spent: the seconds such a
        caller's earlier requests took, counted against the one deadline of the whole fetch.
        """
        start = time.monotonic()
        guard = self._guard(start, spent)
        answer: Answer | None = None
        status: int | None = None
        error: str | None = None
        try:
            with guard.watched():
                requested = _read(url)
                final_url, raw = self._follow(
                    requested, validators, guard, on_hop, before_hop, redirects
                )
                try:
                    status = raw.status
                    answer = Answer(requested, final_url, raw, guard)
                    yield answer
                finally:
                    raw.close()
        except FetchError as e:
            error = e.kind.label
            if guard.budget_bound and guard.expired:
                self.ran_out_of_budget = True
            raise
        finally:
            if self._on_fetch is not None:
                wire_bytes = answer.wire_bytes if answer is not None else 0
                self._on_fetch(FetchStats(url, status, wire_bytes, time.monotonic() - start, error))


def default_transport(policy: FetchPolicy) -> Transport:
    """The transport a Fetcher of policy uses unless given one: kept connections where the
    policy keeps them (http.client), else one connection a hop (requests and urllib3, behind
    their boundary); imported here, so that importing the fetcher pulls in neither."""
    if policy.keep_alive:
        from sitemap_auditor.fetching.kept_transport import KeptTransport

        return KeptTransport(ca_file=policy.ca_file, head_limit=policy.max_head_bytes)
    from sitemap_auditor.fetching.transport import HttpTransport

    return HttpTransport(ca_file=policy.ca_file, head_limit=policy.max_head_bytes)


def _read(url: str) -> WebURL:
    """The one reading of a URL to fetch; raises FetchError when it is none."""
    try:
        return urls.read(url)
    except UnfetchableURLError as e:
        raise FetchError(FetchErrorKind.INVALID_URL) from e


def _origin(url: str | WebURL) -> urls.Origin | None:
    if isinstance(url, WebURL):
        return url.origin
    try:
        return urls.read(url).origin
    except UnfetchableURLError:
        return None


# What a header's value is trimmed of: space and tab (RFC 9110's OWS), and line ends. Not
# Python's white space: a Location's leading NBSP (0xA0, decoded as Latin-1) is the URL's, as
# browsers read it (the WHATWG reading trims C0 controls and space only).
_OWS = " \t\r\n"


def _as_sent(location: str) -> str:
    """A Location's text as the site wrote it: servers send UTF-8, which http.client decoded
    as Latin-1, so it is read as the bytes it was (a byte that is not UTF-8 kept as a lone
    surrogate, which escape_undecodable then percent-encodes as itself, as for `Sitemap:`)."""
    with suppress(UnicodeEncodeError):  # text already (a transport that decodes its headers)
        location = location.encode("latin-1").decode("utf-8", "surrogateescape")
    return location.strip(_OWS)


def _next_url(current: WebURL, location: str) -> WebURL:
    """Where a redirect's Location (as _as_sent and escape_undecodable give it) leads from
    current, read as browsers read it (resolved against the URL that answered with it); raises
    FetchError when nowhere usable."""
    try:
        return urls.read(location, current.href)
    except UnfetchableURLError as e:
        if e.scheme is not None:
            raise FetchError(FetchErrorKind.OTHER_SCHEME, e.scheme[:20]) from None
        raise FetchError(FetchErrorKind.INVALID_URL) from None
