"""The fetcher and the probe through the in-memory transport: redirects, credentials by origin,
the one reading of every URL, body bounds and errors, in milliseconds and without a socket.

The integration tests keep the real loopback servers (tests/integration/test_fetch.py and
faults/): these cover the same logic at the speed of a function call, many cases each."""

from __future__ import annotations

import gzip
from collections.abc import Sequence

import pytest

from sitemap_auditor.audit import probe, steps
from sitemap_auditor.core.credentials import Credentials
from sitemap_auditor.core.errors import MAX_BODY_BYTES, FetchError, FetchErrorKind
from sitemap_auditor.core.facts import SiteFacts, encode
from sitemap_auditor.core.parser import ParsedSitemap, SitemapParser
from sitemap_auditor.core.site import resolve
from sitemap_auditor.core.validators import NO_VALIDATORS
from sitemap_auditor.fetching.exchange import Request
from sitemap_auditor.fetching.fetch import MAX_REDIRECTS, USER_AGENT, Fetcher, FetchPolicy
from sitemap_auditor.fetching.memory_transport import Canned, MemoryTransport, Route

SITE = "http://site.test:8080"
OTHER = "http://other.test:8080"
CREDS = Credentials("user", "pässword")
URLSET = (
    b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
    b"<url><loc>http://site.test:8080/a</loc><lastmod>2026-11-30</lastmod></url></urlset>"
)


def public(host: str, port: int) -> Sequence[str]:
    """Every test host resolves to a public address; no look-up leaves the process."""
    return {"site.test": ["93.184.216.34"], "other.test": ["93.184.216.35"]}.get(host, [])


def fetcher(route: Route | dict[str, Canned], creds: Credentials | None = CREDS) -> Fetcher:
    site = resolve(SITE + "/")
    assert site is not None
    policy = FetchPolicy(origin=site.origin(), credentials=creds, resolver=public)
    return Fetcher(policy, transport=MemoryTransport(route))


def transport_of(f: Fetcher) -> MemoryTransport:
    t = f._transport
    assert isinstance(t, MemoryTransport)
    return t


def fetch(f: Fetcher, url: str) -> tuple[int, bytes, str]:
    with f.open(url) as answer:
        return answer.status, b"".join(answer.body()), answer.url


def redirect(location: str, status: int = 302) -> Canned:
    return Canned(status, {"Location": location})


# --- requests and headers ------------------------------------------------------------------------


def test_a_get_carries_the_bots_headers_and_the_sites_credentials() -> None:
    f = fetcher({SITE + "/robots.txt": Canned(200, {}, b"User-agent: *\n")})
    assert fetch(f, SITE + "/robots.txt") == (200, b"User-agent: *\n", SITE + "/robots.txt")
    (sent,) = transport_of(f).requests
    assert sent.headers["User-Agent"] == USER_AGENT
    assert sent.headers["Authorization"] == CREDS.header()
    assert sent.headers["Connection"] == "close"


def test_a_url_is_requested_in_its_one_reading() -> None:
    f = fetcher(lambda request: Canned(200, {}, b"ok"))
    fetch(f, "HTTP://SITE.test:8080/a\\b/../c?x#frag")
    (sent,) = transport_of(f).requests
    assert sent.url.href == "http://site.test:8080/a/c?x#frag"
    assert (sent.url.host, sent.url.port) == ("site.test", 8080)


# --- credentials follow the origin of the one reading, hop by hop ---------------------------------


def test_credentials_never_follow_a_redirect_to_another_origin() -> None:
    f = fetcher(
        {
            SITE + "/s.xml": redirect(OTHER + "/s.xml"),
            OTHER + "/s.xml": redirect(SITE + "/back.xml"),
            SITE + "/back.xml": Canned(200, {}, URLSET),
        }
    )
    assert fetch(f, SITE + "/s.xml")[0] == 200
    t = transport_of(f)
    assert [r.url.href for r in t.requests] == [
        SITE + "/s.xml",
        OTHER + "/s.xml",
        SITE + "/back.xml",
    ]
    # docs/contract.md §8: the chain left the origin and came back: credentials again only there.
    assert t.authorized() == [SITE + "/s.xml", SITE + "/back.xml"]


@pytest.mark.parametrize(
    ("location", "host"),
    [
        # urlsplit reads the host after "@" (the site: credentials attached), browsers and this
        # auditor read the host before "\\": the other origin, which gets no credentials.
        ("http://other.test:8080\\@site.test:8080/x", "other.test"),
        ("http://other.test:8080\\\\@site.test:8080/x", "other.test"),
        ("//other.test:8080\\@site.test:8080/x", "other.test"),
        # Userinfo in the Location is never sent, and never decides the host.
        ("http://site.test:8080@other.test:8080/x", "other.test"),
        ("http://u:p@other.test:8080/x", "other.test"),
    ],
)
def test_a_redirect_is_read_once_and_credentials_follow_that_reading(
    location: str, host: str
) -> None:
    def route(request: Request) -> Canned:
        if request.url.href.endswith("/start"):
            return redirect(location)
        return Canned(200, {}, b"there")

    f = fetcher(route)
    fetch(f, SITE + "/start")
    t = transport_of(f)
    assert [r.url.host for r in t.requests] == ["site.test", host]
    assert t.authorized() == [SITE + "/start"]
    # No userinfo in what is requested: an "@" is left only in a path.
    assert all("@" not in r.url.href.split("/")[2] for r in t.requests)


def test_https_and_another_port_are_other_origins() -> None:
    f = fetcher(lambda request: Canned(200, {}, b""))
    for url in ("https://site.test:8080/", "http://site.test/", "http://site.test:8081/"):
        fetch(f, url)
    assert transport_of(f).authorized() == []
    fetch(f, "http://site.test:8080/x")
    assert transport_of(f).authorized() == ["http://site.test:8080/x"]


def test_a_url_own_userinfo_is_never_sent() -> None:
    f = fetcher(lambda request: Canned(200, {}, b""), creds=None)
    fetch(f, "http://me:secret@site.test:8080/s.xml")
    (sent,) = transport_of(f).requests
    assert sent.url.href == SITE + "/s.xml"
    assert "Authorization" not in sent.headers


# --- redirects -----------------------------------------------------------------------------------


def test_ten_redirects_are_followed_and_an_eleventh_fails() -> None:
    def chain(length: int) -> Route:
        def route(request: Request) -> Canned:
            n = int(request.url.href.rsplit("/", 1)[1])
            return redirect(f"/{n + 1}") if n < length else Canned(200, {}, b"end")

        return route

    assert fetch(fetcher(chain(MAX_REDIRECTS)), SITE + "/0")[1] == b"end"
    with pytest.raises(FetchError) as caught:
        fetch(fetcher(chain(MAX_REDIRECTS + 1)), SITE + "/0")
    assert caught.value.kind is FetchErrorKind.TOO_MANY_REDIRECTS


@pytest.mark.parametrize(
    ("location", "kind"),
    [
        ("ftp://site.test/s.xml", FetchErrorKind.OTHER_SCHEME),
        ("javascript:alert(1)", FetchErrorKind.OTHER_SCHEME),
        ("http://a..b/s.xml", FetchErrorKind.INVALID_URL),
        ("http://[v1.a:b]/s.xml", FetchErrorKind.INVALID_URL),
        ("http://site.test:99999/", FetchErrorKind.INVALID_URL),
    ],
)
def test_a_redirect_nowhere_usable_fails_the_fetch(location: str, kind: FetchErrorKind) -> None:
    f = fetcher({SITE + "/s.xml": redirect(location)})
    with pytest.raises(FetchError) as caught:
        fetch(f, SITE + "/s.xml")
    assert caught.value.kind is kind


def test_a_redirect_to_an_internal_address_is_refused_before_any_answer() -> None:
    f = fetcher({SITE + "/s.xml": redirect("http://169.254.169.254/latest/meta-data/")})
    with pytest.raises(FetchError) as caught:
        fetch(f, SITE + "/s.xml")
    assert caught.value.kind is FetchErrorKind.BLOCKED
    assert [r.url.host for r in transport_of(f).requests] == ["site.test"]


def test_a_name_that_resolves_inside_the_network_is_refused() -> None:
    def inside(host: str, port: int) -> Sequence[str]:
        return ["93.184.216.34", "10.0.0.7"]

    policy = FetchPolicy(origin=("http", "site.test", 8080), resolver=inside)
    f = Fetcher(policy, transport=MemoryTransport(lambda request: Canned(200)))
    with pytest.raises(FetchError) as caught:
        fetch(f, SITE + "/")
    assert caught.value.kind is FetchErrorKind.BLOCKED
    assert transport_of(f).requests == []


# --- the body: decoded, bounded ------------------------------------------------------------------


def test_gzip_is_found_by_its_magic_bytes_whatever_the_headers_say() -> None:
    body = gzip.compress(URLSET)
    f = fetcher({SITE + "/s.xml.gz": Canned(200, {"Content-Type": "text/plain"}, body)})
    assert fetch(f, SITE + "/s.xml.gz")[1] == URLSET


def test_a_body_past_50_mb_on_the_wire_is_not_read_further() -> None:
    mib = b"x" * (1 << 20)
    chunks = [mib] * (MAX_BODY_BYTES // len(mib) + 2)  # one object, listed many times
    f = fetcher({SITE + "/s.xml": Canned(200, {}, chunks)})
    with f.open(SITE + "/s.xml") as answer, pytest.raises(FetchError) as caught:
        for _ in answer.body():
            pass
    assert caught.value.kind is FetchErrorKind.TOO_LARGE
    assert answer.wire_bytes <= MAX_BODY_BYTES + len(mib)


def test_a_gzip_bomb_costs_no_more_than_the_cap() -> None:
    bomb = gzip.compress(b"\0" * (MAX_BODY_BYTES + 1024), compresslevel=9)
    f = fetcher({SITE + "/s.xml": Canned(200, {}, bomb)})
    total = 0
    with f.open(SITE + "/s.xml") as answer, pytest.raises(FetchError) as caught:
        for chunk in answer.body():
            total += len(chunk)
    assert caught.value.kind is FetchErrorKind.TOO_LARGE
    assert total <= MAX_BODY_BYTES


def test_a_body_cut_mid_way_is_a_fetch_error_of_its_kind() -> None:
    cut = FetchError(FetchErrorKind.CONNECTION_RESET)
    f = fetcher({SITE + "/s.xml": Canned(200, {}, [URLSET[:50]], fails_after=cut)})
    with pytest.raises(FetchError) as caught:
        fetch(f, SITE + "/s.xml")
    assert caught.value.kind is FetchErrorKind.CONNECTION_RESET


def test_a_truncated_read_stops_at_its_limit() -> None:
    f = fetcher({SITE + "/robots.txt": Canned(200, {}, b"a" * 1000)})
    with f.open(SITE + "/robots.txt") as answer:
        assert b"".join(answer.body(limit=100, truncate=True)) == b"a" * 100
        assert answer.truncated


def test_every_reply_is_closed_redirects_included() -> None:
    replies: list[object] = []
    inner = MemoryTransport({SITE + "/a": redirect("/b"), SITE + "/b": Canned(200, {}, b"x")})

    class Recording:
        def send(self, request: Request, guard: object) -> object:
            reply = inner.send(request, guard)  # type: ignore[arg-type]
            replies.append(reply)
            return reply

        def close(self) -> None:
            inner.close()

    policy = FetchPolicy(origin=("http", "site.test", 8080), resolver=public)
    f = Fetcher(policy, transport=Recording())  # type: ignore[arg-type]
    fetch(f, SITE + "/a")
    assert [getattr(r, "closed", None) for r in replies] == [True, True]


# --- the probe through the same transport ---------------------------------------------------------


def test_robots_sitemap_lines_are_read_against_the_final_url() -> None:
    f = fetcher(
        {
            SITE + "/robots.txt": redirect(OTHER + "/robots.txt"),
            OTHER + "/robots.txt": Canned(200, {}, b"Sitemap: /s.xml\nSitemap: https:///x.xml\n"),
        }
    )
    found = probe.robots_txt(f, SITE + "/robots.txt")
    assert found.status == 200
    # Relative to the final URL; `https:///x.xml` as browsers read it, not a mix of readings.
    assert found.sitemaps == (OTHER + "/s.xml", "https://x.xml/")


def test_candidates_are_tried_in_turn_until_one_parses() -> None:
    f = fetcher(
        {
            SITE + "/a.xml": Canned(404),
            SITE + "/b.xml": Canned(200, {}, b"<html></html>"),
            SITE + "/c.xml": Canned(200, {"ETag": '"v1"'}, URLSET),
        }
    )
    outcome = probe.first_sitemap(f, [SITE + "/a.xml", SITE + "/b.xml", SITE + "/c.xml"])
    selected = outcome[-1]
    assert selected.url == SITE + "/c.xml"
    assert selected.selected is not None
    assert selected.validators.etag == '"v1"'
    assert [o.url for o in outcome] == [SITE + "/a.xml", SITE + "/b.xml", SITE + "/c.xml"]
    assert all(o.issue is not None for o in outcome[:2])
    assert outcome[0].validators == NO_VALIDATORS


def test_the_fetch_shows_its_facts_as_they_grow_after_robots_and_each_candidate_left() -> None:
    # Sharing sizes the facts as they grow: robots.txt's answer, then the outcomes so far after
    # each candidate that leaves more to try, and as each sitemap's answer begins (its headers'
    # part of the facts; the last one's whole outcome is the fetch's own facts).
    f = fetcher(
        {
            SITE + "/robots.txt": Canned(
                200, {}, b"Sitemap: /a.xml\nSitemap: /b.xml\nSitemap: /c.xml\n"
            ),
            SITE + "/a.xml": Canned(404),
            SITE + "/b.xml": Canned(200, {}, b"<html></html>"),
            SITE + "/c.xml": Canned(200, {}, URLSET),
        }
    )
    shown: list[SiteFacts] = []
    site = resolve(SITE + "/")
    assert site is not None
    got = steps.fetch_facts(site, f, None, shown.append)
    assert [len(p.outcomes) for p in shown] == [0, 1, 2, 2, 3]
    assert all(not p.complete and p.candidates == got.candidates for p in shown)
    # /b.xml's answer began (200, no root read yet), then proved no sitemap.
    begun = shown[2].outcomes[-1].selected
    assert begun is not None and begun.http_status == 200 and begun.parsed.root == ""
    assert shown[3].outcomes == got.outcomes[:2] and len(got.outcomes) == 3
    last = shown[4].outcomes[-1]
    assert last.url == SITE + "/c.xml" and last.selected is not None
    assert last.selected.parsed.entry_count == 0
    assert got.selected is not None and got.complete


def test_a_sitemap_read_while_sharing_watches_builds_its_facts_only_to_show_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Sharing is shown a sitemap's outcome every PARTIAL_EVERY_BYTES and as new samples come; the
    # facts (the latest date among up to 1,023 shapes) are built only then, not for every chunk
    # a server sends (8 KB chunks of a 50 MB file would cost seconds).
    entry = b"<url><loc>http://site.test:8080/a</loc><lastmod>2026-11-30</lastmod></url>"
    bad = b"<url><loc>http://site.test:8080/b</loc><lastmod>no date</lastmod></url>"
    body = b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' + bad
    body += entry * 10_000 + b"</urlset>"
    chunks = [body[i : i + 1024] for i in range(0, len(body), 1024)]
    f = fetcher(
        {
            SITE + "/robots.txt": Canned(200, {}, b"Sitemap: /s.xml\n"),
            SITE + "/s.xml": Canned(200, {}, chunks),
        }
    )
    built: list[int] = []
    so_far = SitemapParser.so_far

    def counted(self: SitemapParser) -> ParsedSitemap | None:
        built.append(1)
        return so_far(self)

    monkeypatch.setattr(SitemapParser, "so_far", counted)
    site = resolve(SITE + "/")
    assert site is not None
    shown: list[SiteFacts] = []
    got = steps.fetch_facts(site, f, None, shown.append)
    assert got.selected is not None and got.selected.parsed.unparsable_total == 1
    # Once for the first sample, then every PARTIAL_EVERY_BYTES: not once per 1 KB chunk.
    assert len(built) == 1 + len(body) // probe.PARTIAL_EVERY_BYTES < len(chunks) // 100


def test_a_304_shows_what_it_brings_back_before_the_fetch_ends() -> None:
    # The earlier outcome a 304 reuses (samples, Content-Type, validators) is in the facts shown,
    # not added unseen at the end (facts.UNSHOWN_BYTES bounds what the end adds).
    robots = Canned(200, {}, b"Sitemap: /s.xml\n")
    first = fetcher(
        {SITE + "/robots.txt": robots, SITE + "/s.xml": Canned(200, {"ETag": '"v1"'}, URLSET)}
    )
    site = resolve(SITE + "/")
    assert site is not None
    earlier = steps.fetch_facts(site, first, None)
    again = fetcher({SITE + "/robots.txt": robots, SITE + "/s.xml": Canned(304)})
    shown: list[SiteFacts] = []
    got = steps.fetch_facts(site, again, earlier, shown.append)
    assert got.outcomes == earlier.outcomes and got.revalidated == 1
    assert shown[-1].outcomes == earlier.outcomes


def test_a_long_sitemap_shows_its_outcome_so_far_as_its_body_is_read() -> None:
    # Sharing sizes the facts within a sitemap too: what it has given so far (here, its bounded
    # samples of unparsable <lastmod> values, met first), every PARTIAL_EVERY_BYTES of its body.
    bad = b"".join(
        b"<url><loc>http://site.test:8080/x%d</loc><lastmod>%s</lastmod></url>"
        % (i, b"not a date " * 9 + b"%d" % i)
        for i in range(30)
    )
    good = b"<url><loc>http://site.test:8080/a</loc><lastmod>2026-11-30</lastmod></url>" * 20_000
    body = b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' + bad + good
    body += b"</urlset>"
    f = fetcher(
        {
            SITE + "/robots.txt": Canned(200, {}, b"Sitemap: /big.xml\n"),
            SITE + "/big.xml": Canned(200, {}, body),
        }
    )
    shown: list[SiteFacts] = []
    site = resolve(SITE + "/")
    assert site is not None
    got = steps.fetch_facts(site, f, None, shown.append)
    partials = [p for p in shown if p.outcomes][1:]  # after the one as its answer began
    # Its first chunk, which gave all its samples, then every PARTIAL_EVERY_BYTES.
    assert len(partials) == 1 + len(body) // probe.PARTIAL_EVERY_BYTES
    first = partials[0].outcomes[-1].selected
    assert first is not None and first.url == SITE + "/big.xml"
    assert len(first.parsed.unparsable_samples) == 20  # all it will ever hold, known early
    assert first.parsed.entry_count < 1000  # shown as its first chunk was read
    final = got.outcomes[-1].selected
    assert final is not None and first.parsed.entry_count < final.parsed.entry_count == 20_030
    # The facts only grow: each partial is encoded no larger than the next, nor the final facts.
    sizes = [len(encode(p)) for p in shown] + [len(encode(got))]
    assert sizes == sorted(sizes)


# --- each hop heard (the page check lists a redirect chain) --------------------------------------


def test_each_hop_is_heard_in_order_with_its_status_and_location() -> None:
    f = fetcher(
        {
            f"{SITE}/a": redirect("/b", 301),
            f"{SITE}/b": redirect(f"{OTHER}/c", 308),
            f"{OTHER}/c": Canned(200, {"X-Robots-Tag": "noindex"}, b"ok"),
        }
    )
    hops: list[tuple[str, int, str]] = []
    with f.open(f"{SITE}/a", on_hop=lambda h: hops.append((h.url, h.status, h.location))) as a:
        assert (a.status, a.url, a.headers["x-robots-tag"]) == (200, f"{OTHER}/c", "noindex")
    assert hops == [(f"{SITE}/a", 301, "/b"), (f"{SITE}/b", 308, f"{OTHER}/c")]


def test_a_header_sent_on_several_lines_reads_joined_and_line_by_line() -> None:
    tags = [("X-Robots-Tag", "otherbot: noindex"), ("x-robots-tag", "noindex")]
    f = fetcher({f"{SITE}/a": Canned(200, [("Content-Type", "text/html"), *tags], b"ok")})
    with f.open(f"{SITE}/a") as a:
        assert a.headers["X-Robots-Tag"] == "otherbot: noindex, noindex"  # as requests reads it
        assert a.header_lines("x-robots-tag") == ("otherbot: noindex", "noindex")
        assert a.header_lines("Link") == ()
        assert a.content_type == "text/html"


def test_a_redirect_with_two_different_locations_is_no_redirect_to_follow() -> None:
    # Joined as requests joins them, "/ok, /gone" names a URL the site never wrote.
    two = [("Location", "/ok"), ("Location", "/gone")]
    f = fetcher(
        {
            f"{SITE}/a": Canned(301, two),
            f"{SITE}/b": Canned(301, [("Location", "/ok"), ("location", " /ok")]),
            f"{SITE}/ok": Canned(200, {}, b"ok"),
        }
    )
    with pytest.raises(FetchError) as e, f.open(f"{SITE}/a"):
        pass
    assert e.value.kind is FetchErrorKind.INVALID_URL and "several different" in str(e.value)
    with f.open(f"{SITE}/b") as a:  # the same Location twice is one
        assert (a.status, a.url) == (200, f"{SITE}/ok")


def test_hops_heard_before_too_many_redirects_fails() -> None:
    f = fetcher(lambda r: redirect(r.url.href + "x"))
    hops: list[int] = []
    with pytest.raises(FetchError) as e, f.open(f"{SITE}/a", on_hop=lambda h: hops.append(1)):
        pass
    assert e.value.kind is FetchErrorKind.TOO_MANY_REDIRECTS
    assert len(hops) == MAX_REDIRECTS + 1
