"""The page check's transport (kept_transport, http.client on kept connections) against the
walk's and the Lambda's (transport, requests and urllib3, a connection a hop): the same bytes on
the wire, real and malformed, give the same answer through both, over HTTP and HTTPS: status,
headers (joined and line by line), the decoded body, or the same kind of fetch error. The kept
transport is asked each answer twice, so the second comes over a kept connection where one was
kept."""

from __future__ import annotations

import gzip
from collections.abc import Iterator

import pytest

from harness.servers import Site, raw, reply, slow_headers
from harness.tls import Certificates, make_certificates
from sitemap_auditor.core.errors import FetchError
from sitemap_auditor.fetching.fetch import Fetcher, FetchPolicy

BODY = b"<urlset><url><loc>https://example.com/</loc></url></urlset>"
ZIPPED = gzip.compress(BODY)


def _head(*lines: str, status: str = "HTTP/1.1 200 OK") -> bytes:
    return ("\r\n".join((status, *lines)) + "\r\n\r\n").encode("latin-1")


def _chunked(*parts: bytes) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n"


# name -> the whole answer on the wire (then the server closes), or a route.
ANSWERS: dict[str, bytes] = {
    "length": _head(f"Content-Length: {len(BODY)}") + BODY,
    "chunked": _head("Transfer-Encoding: chunked") + _chunked(BODY[:10], BODY[10:30], BODY[30:]),
    "chunk size no number": _head("Transfer-Encoding: chunked") + b"zz\r\nabc\r\n0\r\n\r\n",
    "chunk cut": _head("Transfer-Encoding: chunked") + b"40\r\n" + BODY[:20],
    "chunk size negative": _head("Transfer-Encoding: chunked") + b"-10\r\nabc\r\n0\r\n\r\n",
    "shorter than its length": _head("Content-Length: 500") + BODY,
    "no length, closed": _head("Content-Type: text/html") + BODY,
    "gzip": _head("Content-Encoding: gzip", f"Content-Length: {len(ZIPPED)}") + ZIPPED,
    "gzip chunked": _head("Content-Encoding: gzip", "Transfer-Encoding: chunked")
    + _chunked(ZIPPED[:7], ZIPPED[7:]),
    "repeated headers": _head(
        "X-Robots-Tag: noindex",
        "X-Robots-Tag: googlebot: nofollow",
        "Link: <https://example.com/a>; rel=canonical",
        "Set-Cookie: a=1",
        "Set-Cookie: b=2",
        f"Content-Length: {len(BODY)}",
    )
    + BODY,
    "latin-1 header": _head("X-Note: caf\u00e9", "Content-Length: 2") + b"ok",
    "folded header": _head("X-Long: one", " two", "X-Tab: a", "\t  b", "Content-Length: 2") + b"ok",
    "header with no colon": _head("Not a header", "Content-Length: 2") + b"ok",
    "too many headers": _head(*(f"X-{i}: v" for i in range(101)), "Content-Length: 2") + b"ok",
    "header line too long": _head("X-Big: " + "a" * 70_000, "Content-Length: 2") + b"ok",
    "status line no number": b"HTTP/1.1 abc OK\r\n\r\n",
    "not HTTP": b"hello there\r\n\r\n",
    "nothing": b"",
    "HTTP/1.0": _head("Content-Length: 2", status="HTTP/1.0 200 OK") + b"ok",
    "204": _head(status="HTTP/1.1 204 No Content"),
    "304": _head('ETag: "x"', status="HTTP/1.1 304 Not Modified"),
    "100 then 200": _head(status="HTTP/1.1 100 Continue") + _head("Content-Length: 2") + b"ok",
    "404 with a page": _head("Content-Length: 9", status="HTTP/1.1 404 Not Found") + b"not found",
    "invalid length": _head("Content-Length: abc") + BODY,
    "two lengths": _head("Content-Length: 5", "Content-Length: 7") + b"hello, w",
    "chunked and a length": _head("Transfer-Encoding: chunked", "Content-Length: 3")
    + _chunked(BODY),
    "big": _head(f"Content-Length: {300_000}") + b"x" * 300_000,
}


def _outcome(fetcher: Fetcher, url: str) -> tuple[object, ...]:
    try:
        with fetcher.open(url) as answer:
            # The Date header aside: two answers a second apart differ in it, nothing else.
            headers = {k.lower(): v for k, v in answer.headers.items() if k.lower() != "date"}
            lines = answer.header_lines("X-Robots-Tag")
            return (answer.status, headers, lines, b"".join(answer.body()), answer.url)
    except FetchError as e:
        return ("error", e.kind)


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    return make_certificates(tmp_path_factory.mktemp("tls"))


@pytest.fixture(params=["http", "https"], scope="module")
def site(request: pytest.FixtureRequest, certificates: Certificates) -> Iterator[Site]:
    s = Site(tls=certificates if request.param == "https" else None).start()
    for name, answer in ANSWERS.items():
        s.route("/" + name.replace(" ", "-"), raw(answer))
    s.route("/slow", slow_headers(interval=0.05, total_seconds=5))
    s.route("/moved", raw(_head("Location: /length", "Content-Length: 0", status="HTTP/1.1 301 X")))
    s.route("/kept", reply(BODY))
    yield s
    s.stop()


def _fetchers(site: Site, certificates: Certificates) -> tuple[Fetcher, Fetcher]:
    def one(keep_alive: bool) -> Fetcher:
        return Fetcher(
            FetchPolicy(
                origin=(site.base.split(":")[0], "127.0.0.1", site.port),
                allow_private_networks=True,
                deadline_s=1.5,
                keep_alive=keep_alive,
                ca_file=certificates.ca_file,
            )
        )

    return one(False), one(True)


@pytest.mark.parametrize("name", [*ANSWERS, "slow", "moved", "kept"])
def test_both_transports_give_the_same_answer(
    site: Site, certificates: Certificates, name: str
) -> None:
    url = site.url("/" + name.replace(" ", "-"))
    plain, kept = _fetchers(site, certificates)
    try:
        expected = _outcome(plain, url)
        assert _outcome(kept, url) == expected
        assert _outcome(kept, url) == expected  # again: on the kept connection, if it was kept
    finally:  # a kept connection left open would be collected, and warned of, in another test
        plain.close()
        kept.close()
