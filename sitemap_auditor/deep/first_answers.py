"""What the walk hears before it reads a sitemap: the Lambda's verdict on the audited URL (its own
steps, with its own rules) and robots.txt, read once (fetching/replay.py keeps what the verdict
heard for the walk)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sitemap_auditor.audit import config, request, response
from sitemap_auditor.audit import steps as lambda_audit
from sitemap_auditor.core import robots
from sitemap_auditor.core import site as sites
from sitemap_auditor.core.errors import FetchError, FetchErrorKind
from sitemap_auditor.core.request_headers import ExtraHeaders
from sitemap_auditor.core.text import clip
from sitemap_auditor.deep.checks import ROBOTS_AGENTS
from sitemap_auditor.deep.options import MAX_SITEMAPS_CEILING, Options
from sitemap_auditor.deep.robots_rules import robots_unreachable
from sitemap_auditor.fetching.exchange import Reply, Request
from sitemap_auditor.fetching.fetch import Fetcher, FetchPolicy, default_transport
from sitemap_auditor.fetching.guard import Guard
from sitemap_auditor.fetching.replay import Recordings

__all__ = [
    "MAX_SKIPPED",
    "RobotsAnswer",
    "Skipped",
    "robots_agents",
    "robots_txt",
    "robots_txt_kept",
    "verdict",
]

# robots.txt's status (None: no answer), its body (when 200), every usable `Sitemap:` URL,
# repeats included (the walk reads each sitemap once, and counts the repeats), the Sitemap:
# lines read, whether it left the site wholly disallowed (robots_rules.robots_unreachable),
# and the lines whose value is no usable URL (Skipped).
RobotsAnswer = tuple[int | None, bytes | None, list[str], int, bool, list["Skipped"]]
# A Sitemap: line whose value is no usable URL: its line, its value as shown, and why.
Skipped = tuple[int, str, str]
# At most this many skipped lines are kept (a robots.txt of a million broken lines is counted
# as it is read, not held).
MAX_SKIPPED = 1000


def verdict(
    site: sites.SiteBase, url: str, options: Options, policy: FetchPolicy, heard: Recordings
) -> dict[str, Any]:
    """What the Lambda auditor says of this URL: its own steps, with its own rules, under the
    walk's own fetch policy but for the bound on a head, which the function does not keep (its
    answer is the function's, byte for byte); what it hears is kept in `heard` for the walk,
    which reads those answers as they were heard. None ({}) when --max-seconds cut one of its
    fetches: its answer would speak of candidates it never asked, or asked only in part."""
    policy = replace(policy, max_head_bytes=None)
    fetcher = Fetcher(policy, transport=heard.recording(default_transport(policy)))
    try:
        facts = lambda_audit.fetch_facts(site, fetcher, None)
    finally:
        fetcher.close()
    if fetcher.ran_out_of_budget:
        return {}
    settings = config.Settings(
        max_age_days=options.max_age_days, allow_private_networks=options.allow_private_networks
    )
    event: dict[str, Any] = {"url": url}
    outcome = lambda_audit.apply_rules(site, request.parse(event), facts, settings, options.now())
    return response.render(outcome)


def robots_txt(fetcher: Fetcher, robots_url: str) -> RobotsAnswer:
    """robots.txt as the walk reads it (RobotsAnswer)."""
    try:
        with fetcher.open(robots_url) as answer:
            if answer.status != 200:
                return answer.status, None, [], 0, robots_unreachable(answer.status), []
            body = b"".join(answer.body(limit=robots.MAX_ROBOTS_BYTES, truncate=True))
            final = answer.url
            status = answer.status
    except FetchError as e:
        return None, None, [], 0, robots_unreachable(None, e.kind), []
    urls: list[str] = []
    skipped: list[Skipped] = []
    lines = 0
    for line in robots.iter_sitemap_lines(body):
        lines += 1
        made, why = robots.sitemap_url(line.value, final)
        if made is not None:
            if len(urls) < MAX_SITEMAPS_CEILING:
                urls.append(made)
        elif len(skipped) < MAX_SKIPPED:
            skipped.append((line.number, clip(robots.shown(line.value), 200), why or ""))
    return status, body, urls, lines, False, skipped


def robots_txt_kept(policy: FetchPolicy, heard: Recordings, robots_url: str) -> RobotsAnswer:
    """robots.txt as the verdict heard it, once no time is left: nothing is asked of the site
    (no answer, when the verdict kept none)."""
    fetcher = Fetcher(
        replace(policy, budget_deadline=None), transport=heard.replaying(_NO_TIME_LEFT)
    )
    try:
        return robots_txt(fetcher, robots_url)
    finally:
        fetcher.close()


class _NoTimeLeft:
    """The transport past --max-seconds: what the verdict kept is replayed, nothing is asked."""

    def send(self, request: Request, guard: Guard) -> Reply:
        raise FetchError(FetchErrorKind.TIMEOUT, "no time left to ask the site")

    def close(self) -> None:
        pass


_NO_TIME_LEFT = _NoTimeLeft()


def robots_agents(headers: ExtraHeaders) -> tuple[str, ...]:
    """The crawlers robots.txt is read for: Googlebot, Bingbot, and the product the User-Agent
    header names (--user-agent) when it is neither (robots_rules.product_token)."""
    from sitemap_auditor.deep.robots_rules import product_token

    agent = next((v for n, v in headers.items if n.lower() == "user-agent"), None)
    token = product_token(agent) if agent is not None else None
    known = {a.lower() for a in ROBOTS_AGENTS}
    extra = (token,) if token is not None and token.lower() not in known else ()
    return ROBOTS_AGENTS + extra
