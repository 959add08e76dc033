"""The fetcher against real servers on 127.0.0.1: identity, auth, redirects, deadlines, caps."""

from __future__ import annotations

import socket
import time
import zlib

import pytest
from support.deep import with_head
from support.documents import gz, urlset

from harness.servers import Site, drip, endless, raw, redirect, reply, reset_after, slow_headers
from sitemap_auditor.core.credentials import Credentials
from sitemap_auditor.core.errors import FetchError
from sitemap_auditor.fetching.fetch import MAX_BODY_BYTES, USER_AGENT, Fetcher, FetchPolicy

CREDS = Credentials("editor", "s3cr3t-pässword")


def fetcher_for(site: Site, deadline_s: float = 30.0, creds: Credentials | None = None) -> Fetcher:
    return Fetcher(
        FetchPolicy(
            origin=("http", "127.0.0.1", site.port),
            credentials=creds,
            allow_private_networks=True,
            deadline_s=deadline_s,
        )
    )


def fetch(fetcher: Fetcher, url: str) -> tuple[int, bytes]:
    with fetcher.open(url) as resp:
        return resp.status, b"".join(resp.body())


def test_user_agent_and_no_auth_without_credentials(site: Site) -> None:
    site.route("/a", reply("hello"))
    assert fetch(fetcher_for(site), site.url("/a")) == (200, b"hello")
    headers = site.seen[0].headers
    assert headers["user-agent"] == USER_AGENT
    assert "authorization" not in headers


def test_basic_auth_is_utf8_and_only_for_the_site_origin(site: Site, other_site: Site) -> None:
    site.route("/a", reply("x"))
    other_site.route("/b", reply("y"))
    f = fetcher_for(site, creds=CREDS)
    fetch(f, site.url("/a"))
    fetch(f, other_site.url("/b"))  # same host, another port: another origin
    assert site.seen[0].headers["authorization"] == CREDS.header()
    assert CREDS.header() == "Basic ZWRpdG9yOnMzY3IzdC1ww6Rzc3dvcmQ="
    assert "authorization" not in other_site.seen[0].headers


def test_redirect_to_another_origin_drops_the_credentials(site: Site, other_site: Site) -> None:
    site.route("/a", redirect(other_site.url("/b")))
    other_site.route("/b", redirect(site.url("/c")))
    site.route("/c", reply("back home"))
    assert fetch(fetcher_for(site, creds=CREDS), site.url("/a")) == (200, b"back home")
    assert "authorization" in site.seen[0].headers
    assert "authorization" not in other_site.seen[0].headers
    assert site.seen[1].headers["authorization"] == CREDS.header()  # back on the origin


def test_userinfo_in_a_url_is_never_sent(other_site: Site, site: Site) -> None:
    other_site.route("/x", reply("x"))
    url = other_site.url("/x").replace("http://", "http://user:pw@")
    assert fetch(fetcher_for(site), url)[0] == 200
    assert "authorization" not in other_site.seen[0].headers


def test_ten_redirects_are_followed_an_eleventh_fails(site: Site) -> None:
    for i in range(11):
        site.route(f"/r{i}", redirect(f"/r{i + 1}", 301 if i % 2 else 307))
    site.route("/r10", reply("done"))
    assert fetch(fetcher_for(site), site.url("/r0")) == (200, b"done")
    site.route("/r10", redirect("/r11"))
    site.route("/r11", reply("too far"))
    with pytest.raises(FetchError) as e:
        fetch(fetcher_for(site), site.url("/r0"))
    assert e.value.kind == "too many redirects"


def test_redirect_loop_fails_fast(site: Site) -> None:
    site.route("/loop", redirect("/loop"))
    start = time.monotonic()
    with pytest.raises(FetchError) as e:
        fetch(fetcher_for(site), site.url("/loop"))
    assert e.value.kind == "too many redirects"
    assert len(site.seen) == 11
    assert time.monotonic() - start < 5


@pytest.mark.parametrize("target", ["ftp://127.0.0.1/x", "file:///etc/passwd", "gopher://x/"])
def test_redirect_to_another_scheme_fails(site: Site, target: str) -> None:
    site.route("/a", redirect(target))
    with pytest.raises(FetchError) as e:
        fetch(fetcher_for(site), site.url("/a"))
    assert e.value.kind == "redirect to another scheme"


@pytest.mark.parametrize(
    ("written", "path"),
    [
        ("/café".encode(), "/caf%C3%A9"),  # UTF-8, as servers send it
        (b"/caf\xe9-\xff", "/caf%E9-%FF"),  # no UTF-8: each byte as itself, as for Sitemap:
        (b"/\xc3\xa9\xff", "/%C3%A9%FF"),  # a mix
    ],
)
def test_a_location_is_read_as_the_bytes_the_server_sent(
    site: Site, written: bytes, path: str
) -> None:
    head = b"HTTP/1.1 302 Found\r\nLocation: " + written + b"\r\nContent-Length: 0\r\n\r\n"
    site.route("/r", raw(head))
    site.route(path, reply("here"))
    with fetcher_for(site).open(site.url("/r")) as resp:
        assert (resp.status, resp.url) == (200, site.url(path))
    assert site.paths() == ["/r", path]


def test_a_redirect_without_location_is_a_final_answer(site: Site) -> None:
    site.route("/a", reply("", status=302))
    assert fetch(fetcher_for(site), site.url("/a"))[0] == 302


def test_slow_drip_is_cut_at_the_whole_fetch_deadline(site: Site) -> None:
    site.route("/drip", drip(b"<urlset>", b" ", interval=0.2, total_seconds=20))
    start = time.monotonic()
    with pytest.raises(FetchError) as e:
        fetch(fetcher_for(site, deadline_s=1.5), site.url("/drip"))
    elapsed = time.monotonic() - start
    assert e.value.kind == "timeout"
    assert 1.4 < elapsed < 4


def test_slow_headers_are_cut_at_the_deadline(site: Site) -> None:
    site.route("/slow", slow_headers(interval=0.2, total_seconds=20))
    start = time.monotonic()
    with pytest.raises(FetchError) as e:
        fetch(fetcher_for(site, deadline_s=1.5), site.url("/slow"))
    assert e.value.kind == "timeout"
    assert time.monotonic() - start < 4


def test_deadline_covers_the_redirect_chain(site: Site) -> None:
    def slow_redirect(h):  # type: ignore[no-untyped-def]
        time.sleep(0.4)
        redirect("/next")(h)

    site.route("/a", slow_redirect)
    site.route("/next", slow_redirect)
    with pytest.raises(FetchError) as e:
        fetch(fetcher_for(site, deadline_s=1.0), site.url("/a"))
    assert e.value.kind == "timeout"


def test_body_over_50_mb_is_not_read_further(site: Site) -> None:
    site.route("/big", endless(b"<!-- " + b"x" * 65_000 + b" -->", limit_bytes=60 * 1024 * 1024))
    with pytest.raises(FetchError) as e:
        fetch(fetcher_for(site), site.url("/big"))
    assert e.value.kind == "too-large"


def test_exactly_50_mb_is_accepted(site: Site) -> None:
    body = b" " * (MAX_BODY_BYTES - 9) + b"<urlset/>"
    site.route("/exact", reply(body))
    with fetcher_for(site).open(site.url("/exact")) as resp:
        assert sum(len(c) for c in resp.body()) == MAX_BODY_BYTES


@pytest.fixture(scope="module")
def gzip_bomb() -> bytes:
    """1 GiB of zeros, gzipped to about 1 MB."""
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"\0" * (1 << 20)
    parts = [c.compress(block) for _ in range(1024)]
    parts.append(c.flush())
    return b"".join(parts)


def test_gzip_bomb_costs_no_more_than_the_cap(site: Site, gzip_bomb: bytes) -> None:
    site.route("/bomb.xml.gz", reply(gzip_bomb, content_type="application/x-gzip"))
    site.route("/bomb-ce.xml", reply(gzip_bomb, headers={"Content-Encoding": "gzip"}))
    for path in ("/bomb.xml.gz", "/bomb-ce.xml"):
        start = time.monotonic()
        with pytest.raises(FetchError) as e:
            fetch(fetcher_for(site), site.url(path))
        assert e.value.kind == "too-large"
        assert "decompressed" in e.value.describe()
        assert time.monotonic() - start < 10


def test_gzip_found_by_magic_bytes_whatever_the_headers(site: Site) -> None:
    doc = urlset(["2026-01-01"])
    site.route("/plain-type.xml", reply(gz(doc), content_type="text/html"))
    site.route("/double.xml.gz", reply(gz(doc), headers={"Content-Encoding": "gzip"}))
    site.route("/double-ce.xml", reply(gz(gz(doc)), headers={"Content-Encoding": "gzip"}))
    site.route("/deflate.xml", reply(zlib.compress(doc), headers={"Content-Encoding": "deflate"}))
    # Raw deflate under that coding, as many servers send it (and browsers read it).
    raw = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    bare = raw.compress(doc) + raw.flush()
    site.route("/raw-deflate.xml", reply(bare, headers={"Content-Encoding": "deflate"}))
    # Under a coding the auditor does not decode, the magic bytes still decide (CONTRACT §4).
    site.route("/br-label.xml", reply(gz(doc), headers={"Content-Encoding": "br"}))
    site.route("/br-gzip.xml", reply(gz(gz(doc)), headers={"Content-Encoding": "br, gzip"}))
    f = fetcher_for(site)
    paths = ("/plain-type.xml", "/double.xml.gz", "/double-ce.xml", "/deflate.xml")
    for path in (*paths, "/raw-deflate.xml", "/br-label.xml", "/br-gzip.xml"):
        assert fetch(f, site.url(path)) == (200, doc), path


def test_truncated_and_corrupt_gzip(site: Site) -> None:
    data = gz(urlset(["2026-01-01"] * 100))
    site.route("/trunc.gz", reply(data[: len(data) // 2]))
    site.route("/corrupt.gz", reply(data[:10] + b"\xff" * 50 + data[60:]))
    f = fetcher_for(site)
    with pytest.raises(FetchError) as e:
        fetch(f, site.url("/trunc.gz"))
    assert e.value.kind == "truncated compressed data"
    with pytest.raises(FetchError) as e:
        fetch(f, site.url("/corrupt.gz"))
    assert e.value.kind == "bad compressed data"


def test_unsupported_content_encoding(site: Site) -> None:
    site.route("/br", reply(b"\x0b\x02\x80hello\x03", headers={"Content-Encoding": "br"}))
    with pytest.raises(FetchError) as e:
        fetch(fetcher_for(site), site.url("/br"))
    assert e.value.kind == "unsupported Content-Encoding"


def test_connection_reset_mid_body(site: Site) -> None:
    site.route("/reset", reset_after(b"<urlset><url>", content_length=100_000))
    with pytest.raises(FetchError) as e:
        fetch(fetcher_for(site), site.url("/reset"))
    assert e.value.kind in ("connection reset", "incomplete body")


def test_content_length_longer_than_the_body(site: Site) -> None:
    site.route(
        "/lies",
        raw(b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\nConnection: close\r\n\r\n<urlset/>"),
    )
    with pytest.raises(FetchError) as e:
        fetch(fetcher_for(site), site.url("/lies"))
    assert e.value.kind == "incomplete body"


def test_content_length_shorter_than_the_body_reads_only_what_it_says(site: Site) -> None:
    site.route(
        "/short",
        raw(b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\n<urlset/>"),
    )
    assert fetch(fetcher_for(site), site.url("/short")) == (200, b"<url")


def test_broken_chunked_encoding(site: Site) -> None:
    site.route(
        "/chunked",
        raw(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n<urls\r\nZZ\r\nnope"),
    )
    with pytest.raises(FetchError) as e:
        fetch(fetcher_for(site), site.url("/chunked"))
    assert e.value.kind in ("broken body", "protocol", "incomplete body")


def test_not_http_at_all(site: Site) -> None:
    site.route("/garbage", raw(b"\x00\x01\x02 this is no HTTP\r\n\r\n"))
    with pytest.raises(FetchError):
        fetch(fetcher_for(site), site.url("/garbage"))


def test_connection_refused(site: Site) -> None:
    port = site.port
    site.stop()
    f = Fetcher(FetchPolicy(origin=("http", "127.0.0.1", port), allow_private_networks=True))
    with pytest.raises(FetchError) as e:
        fetch(f, f"http://127.0.0.1:{port}/")
    assert e.value.kind == "connect"


def test_truncating_read_for_robots(site: Site) -> None:
    site.route("/robots.txt", reply(b"a" * 10_000, content_type="text/plain"))
    with fetcher_for(site).open(site.url("/robots.txt")) as resp:
        body = b"".join(resp.body(limit=1000, truncate=True))
        assert len(body) == 1000 and resp.truncated


def test_credentials_never_show_in_their_repr() -> None:
    assert "s3cr3t" not in repr(CREDS)
    assert "s3cr3t" not in repr(FetchPolicy(origin=("http", "h", 80), credentials=CREDS))


def test_multi_member_gzip_whatever_the_chunking() -> None:
    from sitemap_auditor.fetching.decoding import inflate

    doc = urlset(["2026-01-01"] * 2000)
    half = len(doc) // 2
    data = gz(doc[:half]) + gz(doc[half:]) + b"\0\0trailing"
    for size in (1, 7, 100, len(gz(doc[:half])), 65536):
        chunks = [data[i : i + size] for i in range(0, len(data), size)]
        assert b"".join(inflate(chunks)) == doc, size
    assert b"".join(inflate([])) == b""


# --- what a site owner reads: words, never an exception's name ---------------------------------


def test_connection_refused_says_so_in_words(site: Site) -> None:
    port = site.port
    site.stop()
    f = Fetcher(FetchPolicy(origin=("http", "127.0.0.1", port), allow_private_networks=True))
    with pytest.raises(FetchError) as e:
        fetch(f, f"http://127.0.0.1:{port}/")
    assert e.value.describe() == "fetch error (connect: the connection was refused)"


@pytest.mark.parametrize(
    ("raised", "detail"),
    [
        (
            socket.gaierror(socket.EAI_NONAME, "Name or service not known"),
            "the name www.example.com could not be resolved",
        ),
        (
            socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution"),
            "the name www.example.com could not be resolved now (the name server did not answer)",
        ),
        (UnicodeError("label too long"), "the name www.example.com is not a valid host name"),
    ],
)
def test_a_failed_name_look_up_says_so_in_words(raised: BaseException, detail: str) -> None:
    def resolver(host: str, port: int) -> list[str]:
        raise raised

    f = Fetcher(FetchPolicy(origin=("http", "www.example.com", 80), resolver=resolver))
    with pytest.raises(FetchError) as e:
        fetch(f, "http://www.example.com/")
    assert e.value.describe() == f"fetch error (dns: {detail})"
    assert e.value.kind.label == "dns"


def test_a_failed_tls_handshake_says_so_in_words(site: Site) -> None:
    """https:// to a server that speaks plain HTTP: the handshake fails, and the issue says so."""
    f = Fetcher(FetchPolicy(origin=("https", "127.0.0.1", site.port), allow_private_networks=True))
    with pytest.raises(FetchError) as e:
        fetch(f, f"https://127.0.0.1:{site.port}/")
    text = e.value.describe()
    assert text.startswith("fetch error (tls: the TLS handshake failed"), text
    assert "Error" not in text


@pytest.mark.parametrize("interim", [100, 102, 103])
def test_interim_answers_are_read_past_to_the_final_one(site: Site, interim: int) -> None:
    # 103 Early Hints and 102 Processing come before the answer (RFC 9110 §15.2); http.client
    # alone would take them for it.
    hints = f"HTTP/1.1 {interim} Early\r\nLink: </a.css>; rel=preload\r\n\r\n".encode()
    body = b"<urlset/>"
    final = b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\nConnection: close\r\n\r\n" + body
    site.route("/hinted", raw(hints + hints + final))
    assert fetch(fetcher_for(site), site.url("/hinted")) == (200, body)


def test_the_lambdas_fetches_keep_http_clients_bounds_on_a_head_alone(site: Site) -> None:
    # 90 header lines of 60 KB: within http.client's bounds (docs/contract.md §4). Only the
    # deep audit's policy (max_head_bytes) reads no more of a head than browsers do.
    site.route("/a", raw(with_head(b"ok", 90 * 60_012, "text/plain")))
    assert fetch(fetcher_for(site), site.url("/a")) == (200, b"ok")
    bounded = Fetcher(
        FetchPolicy(
            origin=("http", "127.0.0.1", site.port),
            allow_private_networks=True,
            max_head_bytes=256 * 1024,
        )
    )
    with pytest.raises(FetchError, match="head of more than 256 KiB"):
        fetch(bounded, site.url("/a"))
