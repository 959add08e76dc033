"""What the deep audit's verdict heard, read again by its walk (fetching/replay.py): an answer is
replayed, once, to the same request, only when it was read whole in time; through the in-memory
transport, so that every request the site would see is counted."""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator, Sequence
from typing import IO

import pytest

from sitemap_auditor.core.credentials import Credentials
from sitemap_auditor.core.errors import FetchError, FetchErrorKind
from sitemap_auditor.core.site import resolve
from sitemap_auditor.fetching.exchange import Headers, Reply, Request
from sitemap_auditor.fetching.fetch import Fetcher, FetchPolicy
from sitemap_auditor.fetching.guard import Guard
from sitemap_auditor.fetching.memory_transport import Canned, MemoryTransport
from sitemap_auditor.fetching.replay import (
    IN_MEMORY_BYTES,
    MAX_DRAIN_BYTES,
    MAX_KEPT_FILES,
    Recordings,
)

SITE = "http://site.test"
BODY = b"<urlset>" + b"x" * 100_000 + b"</urlset>"


def public(host: str, port: int) -> Sequence[str]:
    return ["93.184.216.34"]


def policy(creds: Credentials | None = None) -> FetchPolicy:
    site = resolve(SITE + "/")
    assert site is not None
    return FetchPolicy(origin=site.origin(), credentials=creds, resolver=public)


OPEN: list[Recordings] = []


@pytest.fixture(autouse=True)
def _closed() -> Iterator[None]:
    """Every Recordings a test made is closed after it (what it kept is dropped)."""
    yield
    while OPEN:
        OPEN.pop().close()


class Pair:
    """A verdict's fetcher and a walk's, over one in-memory site, sharing one Recordings."""

    def __init__(self, table: dict[str, Canned], max_bytes: int | None = None) -> None:
        self.site = MemoryTransport(table)
        self.heard = Recordings() if max_bytes is None else Recordings(max_bytes)
        OPEN.append(self.heard)
        self.first = Fetcher(policy(), transport=self.heard.recording(self.site))
        self.again = Fetcher(policy(), transport=self.heard.replaying(self.site))

    def asked(self) -> list[str]:
        return [r.url.href for r in self.site.requests]


def read(f: Fetcher, url: str, limit: int | None = None) -> tuple[int, bytes, tuple[str, ...]]:
    with f.open(url) as a:
        chunks = a.body() if limit is None else a.body(limit=limit, truncate=True)
        body = b"".join(chunks)
        return a.status, body, a.header_lines("X-Robots-Tag")


def test_an_answer_read_whole_is_replayed_once_with_its_head_and_coding() -> None:
    tags = [("X-Robots-Tag", "noindex"), ("x-robots-tag", "otherbot: nofollow")]
    zipped = gzip.compress(BODY)
    canned = Canned(200, [*tags, ("Content-Encoding", "gzip")], [zipped[:7], zipped[7:]])
    pair = Pair({f"{SITE}/s.xml": canned})
    first = read(pair.first, f"{SITE}/s.xml")
    assert read(pair.again, f"{SITE}/s.xml") == first == (200, BODY, tuple(v for _, v in tags))
    assert pair.heard.replayed == 1
    # Once only: a third fetch goes to the site.
    assert read(pair.again, f"{SITE}/s.xml") == first
    assert pair.asked() == [f"{SITE}/s.xml"] * 2


def test_redirects_replay_without_a_body_and_the_chain_is_asked_once() -> None:
    pair = Pair(
        {
            f"{SITE}/robots.txt": Canned(301, {"Location": "/r2"}, b"moved"),
            f"{SITE}/r2": Canned(302, {"Location": f"{SITE}/final"}),
            f"{SITE}/final": Canned(200, {}, b"Sitemap: /s.xml\n"),
        }
    )
    assert read(pair.first, f"{SITE}/robots.txt") == (200, b"Sitemap: /s.xml\n", ())
    assert read(pair.again, f"{SITE}/robots.txt") == (200, b"Sitemap: /s.xml\n", ())
    assert pair.asked() == [f"{SITE}/robots.txt", f"{SITE}/r2", f"{SITE}/final"]


def test_an_answer_read_in_part_is_asked_again() -> None:
    pair = Pair({f"{SITE}/robots.txt": Canned(200, {}, BODY)})
    assert read(pair.first, f"{SITE}/robots.txt", limit=1000)[1] == BODY[:1000]
    assert read(pair.again, f"{SITE}/robots.txt")[1] == BODY
    assert pair.heard.replayed == 0 and len(pair.asked()) == 2


def test_an_answer_cut_by_an_error_is_asked_again() -> None:
    reset = FetchError(FetchErrorKind.CONNECTION, "reset")
    pair = Pair({f"{SITE}/s.xml": Canned(200, {}, [b"<urlset>"], fails_after=reset)})
    with pytest.raises(FetchError):
        read(pair.first, f"{SITE}/s.xml")
    with pytest.raises(FetchError):
        read(pair.again, f"{SITE}/s.xml")
    assert pair.heard.replayed == 0 and len(pair.asked()) == 2


BIG = b"x" * (MAX_DRAIN_BYTES + 1)


@pytest.mark.parametrize(
    ("headers", "body", "kept"),
    [
        ({"Content-Length": "9"}, b"not found", True),
        ({"Content-Length": str(len(BIG))}, BIG, False),
        ({}, b"not found", False),  # no length said: it may be endless, or drip
        ({"Content-Length": "9, 9"}, b"not found", False),
        ({"Content-Length": "\u0669"}, b"not found", False),  # an Arabic-Indic nine
    ],
)
def test_an_unread_error_page_is_read_on_only_when_its_length_is_small(
    headers: dict[str, str], body: bytes, kept: bool
) -> None:
    pair = Pair({f"{SITE}/sitemap.xml": Canned(404, headers, body)})
    with pair.first.open(f"{SITE}/sitemap.xml") as a:
        assert a.status == 404  # the Lambda passes over it, unread
    assert read(pair.again, f"{SITE}/sitemap.xml")[:2] == (404, body)
    assert pair.heard.replayed == int(kept) and len(pair.asked()) == 2 - int(kept)


def test_other_headers_are_another_request() -> None:
    pair = Pair({f"{SITE}/s.xml": Canned(200, {}, BODY)})
    read(pair.first, f"{SITE}/s.xml")
    with_creds = Fetcher(policy(Credentials("u", "p")), transport=pair.heard.replaying(pair.site))
    read(with_creds, f"{SITE}/s.xml")
    assert pair.heard.replayed == 0 and len(pair.asked()) == 2
    assert "Authorization" in pair.site.requests[1].headers


def test_what_is_kept_is_bounded() -> None:
    pair = Pair({f"{SITE}/a.xml": Canned(200, {}, BODY), f"{SITE}/b.xml": Canned(200, {}, b"b")},
                max_bytes=len(BODY) - 1)  # fmt: skip
    read(pair.first, f"{SITE}/a.xml")
    read(pair.first, f"{SITE}/b.xml")
    assert read(pair.again, f"{SITE}/a.xml")[1] == BODY
    assert read(pair.again, f"{SITE}/b.xml")[1] == b"b"
    # a.xml did not fit and was asked again; b.xml did.
    assert pair.asked().count(f"{SITE}/a.xml") == 2 and pair.asked().count(f"{SITE}/b.xml") == 1


def test_what_is_not_read_again_is_dropped_at_close() -> None:
    pair = Pair({f"{SITE}/s.xml": Canned(200, {}, BODY)})
    read(pair.first, f"{SITE}/s.xml")
    pair.heard.close()
    read(pair.again, f"{SITE}/s.xml")
    assert pair.heard.replayed == 0 and len(pair.asked()) == 2


class _Interrupting:
    """A 404 whose small body is interrupted (Ctrl-C) while the recording reads it on."""

    status = 404
    headers = Headers({"Content-Length": "9"})

    def header_lines(self, name: str) -> tuple[str, ...]:
        return self.headers.lines(name)

    def chunks(self, size: int, eager: bool = False) -> Iterator[bytes]:
        raise KeyboardInterrupt
        yield b""  # a generator

    def close(self) -> None:
        pass


class _InterruptingSite:
    def send(self, request: Request, guard: Guard) -> Reply:
        return _Interrupting()

    def close(self) -> None:
        pass


def test_an_interruption_while_reading_on_keeps_nothing_and_leaks_no_file() -> None:
    heard = Recordings()
    OPEN.append(heard)
    f = Fetcher(policy(), transport=heard.recording(_InterruptingSite()))
    with pytest.raises(KeyboardInterrupt), f.open(f"{SITE}/sitemap.xml") as a:
        assert a.status == 404  # passed over unread: the recording reads it on, interrupted
    site = MemoryTransport({f"{SITE}/sitemap.xml": Canned(404, {}, b"")})
    read(Fetcher(policy(), transport=heard.replaying(site)), f"{SITE}/sitemap.xml")
    assert heard.replayed == 0 and len(site.requests) == 1


def test_a_small_body_its_reader_left_is_read_on_and_kept() -> None:
    # The Lambda's parser stops at the first bytes of a soft 404 (HTML at /sitemap.xml): the
    # rest, small and declared, is read on, and the walk is answered from it.
    page = b"<html>" + b"x" * 500 + b"</html>"
    pair = Pair({f"{SITE}/sitemap.xml": Canned(200, {"Content-Length": str(len(page))}, page)})
    assert read(pair.first, f"{SITE}/sitemap.xml", limit=10)[1] == page[:10]
    assert read(pair.again, f"{SITE}/sitemap.xml")[1] == page
    assert pair.heard.replayed == 1 and len(pair.asked()) == 1


class _Full:
    """A spool that fails as a full disk does, past `room` bytes."""

    def __init__(self, room: int) -> None:
        self.room = room

    def __call__(self) -> IO[bytes]:
        outer = self

        class Spool(io.BytesIO):
            def write(self, data: bytes) -> int:  # type: ignore[override]
                if self.tell() + len(data) > outer.room:
                    raise OSError(28, "No space left on device")
                return super().write(data)

        return Spool()


def test_a_temporary_file_that_fails_keeps_nothing_and_the_audit_goes_on() -> None:
    site = MemoryTransport({f"{SITE}/s.xml": Canned(200, {}, BODY)})
    heard = Recordings(spool=_Full(1000))
    OPEN.append(heard)
    first = Fetcher(policy(), transport=heard.recording(site))
    assert read(first, f"{SITE}/s.xml")[1] == BODY  # the verdict reads it whole all the same
    again = Fetcher(policy(), transport=heard.replaying(site))
    assert read(again, f"{SITE}/s.xml")[1] == BODY
    assert heard.replayed == 0 and len(site.requests) == 2


def test_room_taken_by_an_answer_not_kept_is_given_back() -> None:
    big = b"<urlset>" + b"y" * 300_000
    pair = Pair(
        {f"{SITE}/huge.xml": Canned(200, {}, big), f"{SITE}/s.xml": Canned(200, {}, BODY)},
        max_bytes=len(BODY) + 1000,
    )
    read(pair.first, f"{SITE}/huge.xml", limit=len(BODY))  # read in part (refused): not kept
    read(pair.first, f"{SITE}/s.xml")
    assert read(pair.again, f"{SITE}/s.xml")[1] == BODY
    assert pair.heard.replayed == 1


def test_at_most_a_few_bodies_are_kept_in_files() -> None:
    table = {
        f"{SITE}/s{i}.xml": Canned(200, {}, b"<x>" + b"z" * IN_MEMORY_BYTES) for i in range(12)
    }
    pair = Pair(table, max_bytes=100 * IN_MEMORY_BYTES)
    for url in table:
        read(pair.first, url)
    for url in table:
        read(pair.again, url)
    assert pair.heard.replayed == MAX_KEPT_FILES
