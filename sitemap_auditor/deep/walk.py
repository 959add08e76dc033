"""The walk: from a site root and its robots.txt, every sitemap, breadth first, each fetched once.

Every fetch goes through the Lambda's fetcher (`fetch.Fetcher` under a `FetchPolicy`: the address
guard, the 50 MB cap and bomb limits, the per-request deadline, credentials only to the site's
origin) and every XML body through its parser, which hands each entry to the checks. Nothing
holds a body or the list of URLs: memory grows only with the number of sitemaps (one record
each) and with the compact duplicate table.
"""

from __future__ import annotations

import heapq
import re
import threading
import time
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from sitemap_auditor.core import candidates, urls
from sitemap_auditor.core import site as sites
from sitemap_auditor.core.errors import FetchError, FetchErrorKind
from sitemap_auditor.core.interrupts import Interrupt
from sitemap_auditor.core.issues import Kind as IssueKind
from sitemap_auditor.core.parser import ParsedSitemap, Rejected, SitemapParser
from sitemap_auditor.core.text import clip
from sitemap_auditor.core.urls import strip_userinfo
from sitemap_auditor.deep import checks, first_answers, redaction
from sitemap_auditor.deep.checks import (
    SITEMAP_NAMESPACE,
    Rules,
    SiteChecks,
    SitemapChecks,
    Tally,
)
from sitemap_auditor.deep.finding_rows import SITE
from sitemap_auditor.deep.kinds import Kind
from sitemap_auditor.deep.options import (
    MAX_DEDUPE_URLS_CEILING,
    MAX_SITEMAPS_CEILING,
    Limits,
    Options,
    Progress,
    UrlRecord,
)
from sitemap_auditor.deep.polite import MAX_PER_HOST, host_of, next_polite
from sitemap_auditor.deep.reading.entries import (
    DocumentHead,
    EntryCallback,
    EntryReader,
    Extensions,
)
from sitemap_auditor.deep.reading.head import (
    BOM,
    XML_SPACE,
    first_bytes,
    line_breaks,
    not_utf8,
    read_head,
)
from sitemap_auditor.deep.reading.text import text_lines
from sitemap_auditor.deep.records import Claim, SitemapRecord, Walk, is_probe, walk_order
from sitemap_auditor.deep.redirects import ReadElsewhere
from sitemap_auditor.deep.scope import SitemapScope
from sitemap_auditor.deep.seen import Duplicates
from sitemap_auditor.fetching.fetch import Fetcher, FetchPolicy, default_transport
from sitemap_auditor.fetching.interim import MAX_HEAD_BYTES
from sitemap_auditor.fetching.replay import Recordings

__all__ = [
    "MAX_DEDUPE_URLS_CEILING",
    "MAX_PER_HOST",
    "MAX_SITEMAPS_CEILING",
    "Limits",
    "Options",
    "Progress",
    "SitemapRecord",
    "UrlRecord",
    "Walk",
    "load_rules",
    "walk",
]

# Sitemaps listed past the limit are recorded as unfetched up to this many more, then counted.
MAX_UNFETCHED_RECORDS = 1000
# Progress within the files being read is told at most this often (a terminal's line).
PROGRESS_EVERY_S = 0.25
# The uncompressed bytes a fetch reads before it parses them (a batch, parsed at once): at most
# this much a fetch beyond the parsers' own, so 8 MiB at the most --concurrency.
PARSE_BATCH_BYTES = 256 * 1024
_BLOCKING_STATUSES = frozenset({403, 429, 503})
_COMPRESSION_KINDS = frozenset(
    {
        FetchErrorKind.BAD_COMPRESSED_DATA,
        FetchErrorKind.TRUNCATED_COMPRESSED_DATA,
        FetchErrorKind.UNSUPPORTED_ENCODING,
    }
)
_LINE = re.compile(r"at line (\d+)")
_COLUMN = re.compile(r"column (\d+)")


def load_rules(body: bytes) -> Rules:
    """robots.txt's rules (RobotsRules), to ask for any agent."""
    from sitemap_auditor.deep.robots_rules import RobotsRules

    return RobotsRules.parse(body)


@dataclass
class _Fetched:
    """One sitemap's fetch, as a worker thread hands it back."""

    record: SitemapRecord
    checks: SitemapChecks | None
    tally: Tally
    parser: SitemapParser | None = None
    reader: EntryReader | None = None  # the parser's reader, which knows the root element
    whole: bool = False  # read to its end as a sitemap: the file-wide checks apply
    read_as: int | None = None  # the record read where its redirect led (ReadElsewhere)


class _Walker:
    def __init__(self, url: str, site: sites.SiteBase, options: Options) -> None:
        self.url = url
        self.site = site
        self.options = options
        self.limits = options.limits
        self.started_mono = time.monotonic()
        self.deadline = self.started_mono + self.limits.max_seconds
        self.policy = FetchPolicy(
            origin=site.origin(),
            credentials=options.credentials,
            allow_private_networks=options.allow_private_networks,
            resolver=options.resolver,
            budget_deadline=self.deadline,
            extra_headers=options.headers,
            refuse_metadata=True,  # never, even where private networks are allowed
            max_head_bytes=MAX_HEAD_BYTES,  # a head as long as browsers read, no longer
        )
        # The Lambda verdict's fetches, for the walk's same requests: asked once (docs/deep.md).
        self.heard = Recordings()
        self.now = options.now()
        self.now_key = checks.instant_key(self.now)
        self.lock = threading.Lock()
        self.interrupt = options.interrupt or Interrupt()
        # Set once the walk stops for an interruption: fetches still running leave all alone.
        self.abandon = threading.Event()
        self.local = threading.local()
        self.fetchers: list[Fetcher] = []
        self.records: list[SitemapRecord] = []
        self.by_url: dict[str, SitemapRecord] = {}
        # Each sitemap once: the URLs listed so far (urls.resource_key), the record each became.
        self.listed: dict[str, int | None] = {}
        self.last_listed: str | None = None  # the key listed_before found or added last
        self.repeated = False  # whether the last sitemap `add` was given was listed before
        self.elsewhere = ReadElsewhere()  # sitemaps read where their redirects led
        # Each record read, by number: its tally, read once the walk is over (a later file adds).
        self.tally_of: dict[int, Tally] = {}
        self.urls = 0
        self.wire_bytes = 0
        self.bytes = 0
        self.not_recorded = 0
        self.site_checks: SiteChecks | None = None
        self.rows = options.finding_rows
        self.done = 0
        # Entries read in each file being read (under self.lock), files queued, last told.
        self.reading: dict[int, int] = {}
        self.queued = 0
        self.told_at = 0.0
        # The sitemaps each index lists, claimed in the walk's order (`settle`): by place.
        self.claims: list[Claim] = []
        # Sitemaps being read that are known to list none (their root is no sitemapindex), by
        # number: an index placed after them need not wait for their end (set by the fetches).
        self.leaves: set[int] = set()
        secrets = options.credentials.secrets() if options.credentials else ()
        # Longest first, as redaction needs (a header before the token inside it).
        self.secrets = tuple(
            sorted(dict.fromkeys(secrets + options.headers.secrets()), key=len, reverse=True)
        )
        self.on_url = redaction.url_stream(options.on_listed, options.on_url, self.secrets)
        self.clean = redaction.cleaner(self.secrets)
        self.site_tally = Tally(self.sink(SITE, None), self.clean)

    def sink(self, number: int, url: str | None) -> checks.RowSink | None:
        """Where a tally of sitemap number hands each occurrence (None: no rows are kept)."""
        return None if self.rows is None else self.rows.sink(number, url)

    # -- fetching, in worker threads -------------------------------------------------------

    def fetcher(self) -> Fetcher:
        f: Fetcher | None = getattr(self.local, "fetcher", None)
        if f is None:
            f = Fetcher(self.policy, transport=self.heard.replaying(default_transport(self.policy)))
            self.local.fetcher = f
            with self.lock:
                self.fetchers.append(f)
        return f

    @contextmanager
    def shared(self) -> Iterator[None]:
        """The lock over what the walk's fetches share; raises _AbandonedError once the walk
        has stopped for an interruption."""
        with self.lock:
            if self.abandon.is_set():
                raise _AbandonedError
            yield

    def fetch(self, record: SitemapRecord) -> _Fetched:
        try:
            return self._fetch(record)
        except _AbandonedError:
            return _Fetched(record, None, Tally())

    def _fetch(self, record: SitemapRecord) -> _Fetched:
        started = time.monotonic()
        tally = Tally(self.sink(record.number, record.url), self.clean)
        out = _Fetched(record, None, tally)
        fetcher = self.fetcher()
        rec = replace(record, findings=[], children=[])
        out.record = rec
        answer = None
        try:
            with fetcher.open(rec.url) as answer:
                rec.http_status = answer.status
                listed = None  # the record listed under the URL redirects led to, if any
                if answer.final.href != answer.requested.href:  # redirected, in the one reading
                    rec.final_url = strip_userinfo(answer.url)
                    listed = self.listed.get(urls.resource_key(answer.final))
                rec.content_type = clip(answer.content_type or "", 200) or None
                if not 200 <= answer.status < 300:
                    self._refused(rec, answer, tally)
                elif (read_as := self.elsewhere.target(rec, listed, self.records)) is not None:
                    rec.type, out.read_as = "redirect", read_as  # read where it led, once
                else:
                    self._read(rec, answer, out)
        except FetchError as e:
            if fetcher.ran_out_of_budget and time.monotonic() >= self.deadline:
                rec.cut = True
                fetcher.ran_out_of_budget = False
            elif e.kind is FetchErrorKind.TOO_LARGE:
                tally.add(Kind.FILE_TOO_LARGE, None, rec.url)
                if answer is not None and rec.bytes and rec.bytes != answer.wire_bytes:
                    rec.compression = "gzip"  # cut past the limit before the read's own end
            elif e.kind in _COMPRESSION_KINDS:
                tally.set_count(Kind.COMPRESSION_ERROR, 1, detail=e.describe())
                rec.compression = "gzip"  # what was read came through it, however far
            else:
                tally.set_count(Kind.COULDNT_FETCH, 1, detail=e.describe())
            head = out.reader.head if out.reader is not None else None
            if rec.type == "unfetched" and not rec.cut:
                if rec.http_status is None:
                    rec.unanswered = True  # nothing was read of it: listed, not fetched
                else:
                    found = head.root if head is not None else ""
                    rec.type = found if found in checks.SITEMAP_ROOTS else "unknown"
        if answer is not None:
            rec.wire_bytes = answer.wire_bytes
            if rec.compression is None and (rec.bytes or 0) > answer.wire_bytes:
                rec.compression = "gzip"  # inflated, though its read was cut before its end
        rec.seconds = round(time.monotonic() - started, 3)
        if out.checks is not None:
            with self.shared():
                if out.whole:
                    out.checks.finish()
                elif not rec.cut:
                    out.checks.finish_cut()
        return out

    def _refused(self, rec: SitemapRecord, answer: Any, tally: Tally) -> None:
        rec.type = "unknown"
        head = b""
        try:
            # In blocks of one size: the record's wireBytes are the same every run.
            for chunk in answer.body(limit=8192, truncate=True, eager=False):
                head += chunk
        except FetchError:
            pass
        rec.bytes = len(head)
        status = answer.status
        if status in _BLOCKING_STATUSES or checks.challenge_page(head):
            tally.set_count(Kind.BLOCKED, 1, detail=f"HTTP {status}")
        else:
            tally.set_count(Kind.COULDNT_FETCH, 1, detail=f"HTTP {status}")

    def _read(self, rec: SitemapRecord, answer: Any, out: _Fetched) -> None:
        tally = out.tally
        chunks: Iterator[bytes] = iter(answer.body())
        first = read_head(chunks)
        head = first.data
        rec.bytes = first.read
        kind = first_bytes(head)
        if checks.sniff_html(head, answer.content_type):
            rec.type = "html"
            tally.set_count(Kind.SITEMAP_IS_HTML, 1)
            self._count_bytes(rec, answer, chunks)
            return
        if not head.strip(XML_SPACE + BOM):
            self._count_bytes(rec, answer, chunks)
            rec.type, rec.entries = "unknown", 0
            tally.set_count(Kind.EMPTY_SITEMAP, 1)
            return
        from_robots = self._from_robots(rec)
        scope = SitemapScope.of(rec.url, from_robots, self.site.url, rec.final_url)
        sc = SitemapChecks(rec.url, rec.number, scope, False, self.now_key, self._site())
        sc.tally = tally
        out.checks = sc
        # The lines before what the parser is given: the white space dropped from the head, and
        # before <?xml, the rest of it (the parser refuses white space there).
        offset = first.dropped_lines
        if kind == "text":
            self._read_text(rec, answer, head, chunks, sc, offset)
            out.whole = True
            return
        if kind != "xml":
            out.checks = None
            rec.type = "unknown"
            detail = (
                "a list of URLs in UTF-16, where a text sitemap must be UTF-8"
                if kind == "utf16-text"
                else "neither XML nor a list of URLs"
            )
            tally.set_count(Kind.UNKNOWN_FORMAT, 1, detail=detail)
            self._count_bytes(rec, answer, chunks)
            return
        bom = BOM if head.startswith(BOM) else b""
        rest = head[len(bom) :]
        stripped = rest.lstrip(XML_SPACE)
        if stripped.startswith(b"<?xml") and (len(stripped) < len(rest) or first.dropped):
            offset += line_breaks(rest[: len(rest) - len(stripped)])
            tally.set_count(Kind.LEADING_WHITESPACE, 1, line=1)
            head = bom + stripped
        on_url = self.on_url
        shared, check = self.shared, sc.entry

        def every(line: int, loc: str | None, lastmod: str | None, ext: Extensions | None) -> None:
            # Called from inside parser.feed and parser.close, which run holding self.lock:
            # the checks that span files, and on_url, see one entry at a time.
            line += offset
            check(line, loc, lastmod, ext)
            if on_url is not None and loc and not sc.is_index:
                # Trimmed of XML white space, as the <loc> is (a pretty-printed file's lastmod
                # ends in its line break and indent).
                shown = None if lastmod is None else lastmod.strip(" \t\r\n")
                on_url(UrlRecord(loc, rec.url, line, shown))

        def reader(root: DocumentHead) -> EntryCallback:
            # Read before the first entry: an index's entries are not listed URLs, and a file
            # with nothing more to do than the checks gives the parser the checks themselves.
            sc.is_index = root.root == "sitemapindex"
            if not sc.is_index:
                self.leaves.add(rec.number)  # it lists no sitemap: no claim waits for it
            if offset or (on_url is not None and not sc.is_index):
                return every
            # A urlset's entries are checked a run at a time (sc.flush after each feed).
            if sc.is_index:
                return check
            entries.on_run = sc.gathered
            return sc.batched()

        entries = EntryReader(every, on_head=reader)
        parser = SitemapParser(entries)
        out.parser = parser
        out.reader = entries
        # The lock is taken per batch of chunks (PARSE_BATCH_BYTES): parsing is bound by the
        # interpreter's lock anyway; a lock per entry made four fetches cost half as much again
        # as one, and per 64 KiB chunk a tenth more. The next batch is read without it.
        batch = [head]
        held = 0
        # The last batch fed, and the lines before it: an error's line is quoted from it.
        last, lines_before = b"", 0
        for chunk in chunks:
            rec.bytes += len(chunk)
            batch.append(chunk)
            held += len(chunk)
            if held >= PARSE_BATCH_BYTES:
                data = b"".join(batch)  # one slice: a run is read at once, not a chunk at a time
                batch.clear()
                with shared():
                    parser.feed(data)
                    sc.flush()
                    if not sc.is_index:
                        self.reading_progress(rec.number, sc.entries)
                held = 0
                if parser.finished:
                    last = data
                    break  # refused already: the rest cannot change that
                lines_before += line_breaks(data)
                del data
        data = b"".join(batch)
        batch.clear()
        with shared():
            parser.feed(data)
            outcome = parser.close()
            sc.flush()
        if data:
            last = data
        root = entries.head.root if entries.head is not None else None
        sc.misplaced = entries.misplaced
        if isinstance(outcome, ParsedSitemap):
            rec.type = outcome.root
            rec.entries = outcome.entry_count
            sc.is_index = outcome.root == "sitemapindex"
            out.whole = True
            self._namespace(entries.head, tally, offset)
            encoding = not_utf8(head, entries.head.encoding if entries.head else None)
            if encoding is not None:
                tally.set_count(Kind.NOT_UTF8, 1, detail=encoding)
        else:
            self._rejected(rec, outcome, root, tally, offset, (last, lines_before))
            if root in checks.SITEMAP_ROOTS:
                rec.entries = sc.entries
        rec.compression = "gzip" if rec.bytes != answer.wire_bytes else None

    def _namespace(self, head: DocumentHead | None, tally: Tally, offset: int) -> None:
        # offset: the lines before <?xml, which the parser was not given.
        if head is not None and head.namespace != SITEMAP_NAMESPACE:
            shown = "missing" if head.namespace is None else repr(head.namespace[:100])
            tally.set_count(Kind.INCORRECT_NAMESPACE, 1, line=head.line + offset, detail=shown)

    def _rejected(
        self,
        rec: SitemapRecord,
        outcome: Rejected,
        root: str | None,
        tally: Tally,
        offset: int,
        last: tuple[bytes, int] = (b"", 0),
    ) -> None:
        if outcome.kind is IssueKind.UNKNOWN_ROOT:
            if root == "rss":
                rec.type = "rss"
            elif root == "feed":
                rec.type = "atom"
            elif root == "html":
                rec.type = "html"
                tally.set_count(Kind.SITEMAP_IS_HTML, 1)
            else:
                rec.type = "unknown"
                detail = f"its root element is <{root}>"
                tally.set_count(Kind.UNKNOWN_FORMAT, 1, line=1, detail=detail)
            return
        if outcome.kind is IssueKind.EMPTY_BODY:
            rec.type, rec.entries = "unknown", 0
            tally.set_count(Kind.EMPTY_SITEMAP, 1)
            return
        rec.type = root if root in checks.SITEMAP_ROOTS else "unknown"
        m = _LINE.search(outcome.reason)
        line = int(m[1]) + offset if m else None
        # The example quotes the line expat stopped at, when it is in the last batch read.
        column = _COLUMN.search(outcome.reason)
        quoted = (
            checks.quote_line(last[0], int(m[1]) - last[1], int(column[1]) if column else None)
            if m
            else ""
        )
        # The reason names the line of the file, not of what the parser was given.
        reason = _LINE.sub(f"at line {line}", outcome.reason, count=1) if m else outcome.reason
        # A construct the parser refuses (entities, markup past its bounds) is well-formed
        # XML, so no Invalid XML of Search Console's: a limit of this audit's own.
        refused = outcome.kind in (IssueKind.REFUSED_XML, IssueKind.TOO_DEEP)
        kind = Kind.XML_NOT_READ if refused else Kind.INVALID_XML
        detail = reason.removeprefix("refused XML construct: ") if refused else reason
        tally.add(kind, line, quoted or reason, detail)

    def _read_text(
        self,
        rec: SitemapRecord,
        answer: Any,
        head: bytes,
        chunks: Iterator[bytes],
        sc: SitemapChecks,
        lines_before: int,
    ) -> None:
        rec.type = "text"
        on_url = self.on_url

        def counted() -> Iterator[bytes]:
            yield head
            for chunk in chunks:
                rec.bytes = (rec.bytes or 0) + len(chunk)
                yield chunk

        not_utf8: list[int] = []  # the first line that is not UTF-8, which a text sitemap must be

        def first_not_utf8(number: int) -> None:
            if not not_utf8:
                not_utf8.append(number + lines_before)

        for number, text in text_lines(counted(), first_not_utf8):
            number += lines_before
            sc.entries += 1
            with self.shared():
                sc.location(text, number)
                if on_url is not None:
                    on_url(UrlRecord(text, rec.url, number, None))
        rec.entries = sc.entries
        rec.compression = "gzip" if rec.bytes != answer.wire_bytes else None
        if not_utf8:
            detail = f"another encoding (line {not_utf8[0]:,} is not valid UTF-8)"
            sc.tally.set_count(Kind.NOT_UTF8, 1, line=not_utf8[0], detail=detail)

    def _count_bytes(self, rec: SitemapRecord, answer: Any, chunks: Iterator[bytes]) -> None:
        for chunk in chunks:
            rec.bytes = (rec.bytes or 0) + len(chunk)
        rec.compression = "gzip" if rec.bytes != answer.wire_bytes else None

    def _from_robots(self, rec: SitemapRecord) -> bool:
        r: SitemapRecord | None = rec
        while r is not None:
            if r.source == "robots":
                return True
            r = self.by_url.get(r.parent) if r.parent else None
        return False

    def _site(self) -> SiteChecks:
        assert self.site_checks is not None
        return self.site_checks

    # -- the walk itself, on the calling thread ----------------------------------------------

    def listed_before(self, url: str, remember: bool = True) -> bool:
        """True when url, or another spelling of it, was listed before; else it is now, if
        remember (past the records kept, not: millions listed do not grow the walk)."""
        try:
            key = urls.resource_key(urls.read(url))
        except urls.UnfetchableURLError:
            key = url  # refused when fetched; only the same text is the same
        self.last_listed = key
        if key in self.listed:
            return True
        if remember:
            self.listed[key] = None
        return False

    def add(self, url: str, parent: SitemapRecord | None, source: str) -> SitemapRecord | None:
        """The record of a sitemap listed, or None: listed before (`repeated`), or past the
        records kept (counted)."""
        full = len(self.records) >= self.limits.max_sitemaps + MAX_UNFETCHED_RECORDS
        self.repeated = self.listed_before(url, remember=not full)
        if self.repeated:
            return None
        if full:
            self.not_recorded += 1
            return None
        number = len(self.records)
        if parent is None:
            place: tuple[Any, ...] = (0, (), number)
        else:
            place = (parent.depth + 1, parent.place, len(parent.children))
        rec = SitemapRecord(number, url, parent.url if parent else None, place[0], source)
        rec.place = place
        rec.in_index = parent is not None and source == "index"
        self.records.append(rec)
        self.by_url[url] = rec
        if self.last_listed is not None:
            self.listed[self.last_listed] = number
        if parent is not None:
            parent.children.append(rec.number)
        return rec

    def progress(self, queued: int) -> None:
        self.queued = queued
        if self.options.on_progress is not None:
            with self.lock:
                reading = sum(self.reading.values())
            self.options.on_progress(Progress(self.done, queued, self.urls, self.bytes, reading))

    def reading_progress(self, number: int, entries: int) -> None:
        """Tell how far the files being read are (called under self.lock after each batch the
        parser is fed), at most PROGRESS_EVERY_S apart: progress moves within a large file."""
        self.reading[number] = entries
        on_progress = self.options.on_progress
        now = time.monotonic()
        if on_progress is not None and now - self.told_at >= PROGRESS_EVERY_S:
            self.told_at = now
            reading = sum(self.reading.values())
            on_progress(Progress(self.done, self.queued, self.urls, self.bytes, reading))

    def apply(self, got: _Fetched, queue: deque[SitemapRecord]) -> None:
        rec = got.record
        with self.lock:
            self.reading.pop(rec.number, None)  # its entries are counted in urls below
        old = self.records[rec.number]
        rec.children, rec.in_index = old.children, old.in_index  # what the walk added since
        self.records[rec.number] = rec
        self.by_url[rec.url] = rec
        # A usual path guessed and not there is no sitemap done, as the reports count them.
        if not is_probe(rec.source, rec.http_status):
            self.done += 1
        self.elsewhere.applied(rec, got.read_as)
        if rec.cut:
            rec.type = "unfetched"
            return
        if got.read_as is not None and rec.in_index:
            self._listed_again(rec.number)  # an index lists it, through a redirect
        self.wire_bytes += rec.wire_bytes or 0
        self.bytes += rec.bytes or 0
        parent = self.by_url.get(rec.parent) if rec.parent else None
        with self.lock:  # a later file may add a repeat to this one's tally (SiteChecks)
            self._apply_checks(got, rec, parent, queue)

    def _apply_checks(
        self,
        got: _Fetched,
        rec: SitemapRecord,
        parent: SitemapRecord | None,
        queue: deque[SitemapRecord],
    ) -> None:
        tally = got.tally
        blocked = self._disallowed(rec.url)
        if blocked is not None:
            # The file itself, not a URL it lists: search engines cannot read it at all.
            tally.add(Kind.SITEMAP_BLOCKED_BY_ROBOTS, None, rec.url, blocked)
        if rec.type == "sitemapindex" and (
            rec.in_index or (parent is not None and parent.type == "sitemapindex")
        ):
            tally.set_count(Kind.NESTED_INDEX, 1)
        self.tally_of[rec.number] = tally
        sc = got.checks
        if sc is not None:
            self.urls += sc.entries if not sc.is_index else 0
            rec.lastmod = sc.stats.settled()
            rec.extensions = {
                "image": sc.images,
                "video": sc.videos,
                "news": sc.news,
                "alternates": sc.alternates,
                "alternatesDropped": sc.alternates_dropped,
            }
            if rec.entries is None and rec.type not in ("rss", "atom"):
                rec.entries = sc.entries  # a feed's items are not counted as entries
            if sc.is_index:
                if sc.children:
                    claim = Claim(rec.place, rec.number, rec, sc.children, tally)
                    heapq.heappush(self.claims, claim)
                sc.children = []  # read: not kept while the walk goes on

    def settle(
        self, queue: deque[SitemapRecord], running: Iterable[SitemapRecord], every: bool = False
    ) -> None:
        """Record the sitemaps of the indexes read, an index at a time in the walk's order,
        each as soon as no sitemap placed before the index may still list them (every: all at
        once, the walk being over). So a sitemap two indexes list is the child of the one
        placed first (breadth first, each index's children in the order it lists them),
        whichever was read first, and the same site gives the same tree every run.

        The queue is in the walk's order (each claim appends its children, claims are settled
        in order, and a child is placed after its index): its first is the earliest unread."""
        claims = self.claims
        while claims:
            place = claims[0].place
            if not every and (
                (queue and queue[0].place < place)
                or any(r.place < place and r.number not in self.leaves for r in running)
            ):
                return
            claim = heapq.heappop(claims)
            for child, line in claim.children:
                added = self.add(child, claim.record, "index")
                if added is not None:
                    queue.append(added)
                elif self.repeated:
                    claim.tally.add(Kind.DUPLICATE_SITEMAP, line, child)
                    self._listed_again(self.listed.get(self.last_listed or ""))

    def _listed_again(self, number: int | None) -> None:
        """An index lists a sitemap listed before (by robots.txt, another index, or itself):
        should it be an index, it is a nested one, read already or not yet; so is each one read
        for it where its redirects led."""
        for n in () if number is None else (number, *self.elsewhere.chain(number)):
            rec = self.records[n]
            rec.in_index = True
            tally = self.tally_of.get(n)
            if tally is not None and rec.type == "sitemapindex":
                with self.lock:  # a file being read may add a repeat to it (SiteChecks)
                    tally.set_count(Kind.NESTED_INDEX, 1)

    def findings(self) -> None:
        """Every record's findings, from its tally; a sitemap a limit left unread gets the one
        its URL alone decides (robots.txt disallows it: search engines cannot read it either)."""
        for number, tally in self.tally_of.items():
            rec = self.records[number]
            rec.findings = tally.findings(rec.url)
        self.tally_of.clear()
        for rec in self.records:
            # Not a usual path guessed: one untried may not be there at all.
            listed = rec.left_by_a_limit and rec.source != "fallback"
            blocked = self._disallowed(rec.url) if listed else None
            if blocked is not None:
                tally = Tally(self.sink(rec.number, rec.url), self.clean)
                tally.add(Kind.SITEMAP_BLOCKED_BY_ROBOTS, None, rec.url, blocked)
                rec.findings = tally.findings(rec.url)

    def _disallowed(self, url: str) -> str | None:
        """To whom robots.txt disallows a sitemap of the site's origin (None: no one), matched
        as it is fetched, in the one reading (`/a/../private/s.xml` is `/private/s.xml`)."""
        site = self.site_checks
        allows = site.allows if site is not None else None
        read = _reading(url) if allows is not None else None
        if read is None or read.origin != self.site.origin() or allows is None or allows(read.href):
            return None
        return self._site().blocked_for(read.href)

    def run(self) -> tuple[str | None, bool]:
        """Fetch every queued sitemap, and those they list, within the limits: what stopped
        the walk (None: nothing did) and whether the depth limit left some unread."""
        queue: deque[SitemapRecord] = deque(r for r in self.records)
        running: dict[Future[_Fetched], SitemapRecord] = {}
        stopped: str | None = None
        depth_cut = False
        fetched = 0
        hosts: Counter[str] = Counter()  # fetches running, by host
        pool = ThreadPoolExecutor(max_workers=self.limits.concurrency, thread_name_prefix="deep")
        interrupt = self.interrupt
        try:
            # A signal breaks in only while the loop waits for fetches (core/interrupts.py); every
            # step that changes the walk's state is taken whole, and the loop then stops.
            with interrupt.opened():
                while queue or running or self.claims:
                    if interrupt.requested.is_set():
                        raise KeyboardInterrupt
                    with interrupt.deferred():
                        self.settle(queue, running.values())
                        stopped, depth_cut, fetched = self._start(
                            queue, running, hosts, pool, stopped, depth_cut, fetched
                        )
                    if not running:
                        # Nothing is being read, and nothing queued can start (_start would
                        # have started it): no sitemap placed before a claim will list more.
                        with interrupt.deferred():
                            self.settle(queue, (), every=True)
                        if stopped is None and queue:
                            continue
                        break
                    # A claim waiting for files read before it is looked at again soon: such a
                    # file may be known to list none (self.leaves) before it ends.
                    timeout = 0.05 if self.claims else 0.25
                    done, _ = wait(running, timeout=timeout, return_when=FIRST_COMPLETED)
                    with interrupt.deferred():
                        for fut in done:
                            hosts[host_of(running.pop(fut).url)] -= 1
                            got = fut.result()
                            self.apply(got, queue)
                            if got.record.cut and stopped is None:
                                stopped = "max-seconds"
                        self.progress(len(queue) + len(running))
        except KeyboardInterrupt:
            stopped = "interrupted"
            # Fetches that ended before the interruption are read whole: they count, as if the
            # loop had seen them end; those still running are abandoned (they change nothing).
            ended = [fut for fut in running if fut.done() and not fut.cancelled()]
            self.abandon.set()
            pool.shutdown(wait=False, cancel_futures=True)
            with interrupt.deferred():
                for fut in ended:
                    if fut.exception() is None:
                        self.apply(fut.result(), queue)
                self.settle(queue, (), every=True)
            raise _InterruptedError(stopped, depth_cut) from None
        finally:
            if stopped != "interrupted":
                pool.shutdown(wait=True)
        return stopped, depth_cut

    def _start(
        self,
        queue: deque[SitemapRecord],
        running: dict[Future[_Fetched], SitemapRecord],
        hosts: Counter[str],
        pool: ThreadPoolExecutor,
        stopped: str | None,
        depth_cut: bool,
        fetched: int,
    ) -> tuple[str | None, bool, int]:
        """Start the fetches the limits and the politeness per host allow."""
        limits = self.limits
        while queue and len(running) < limits.concurrency and stopped is None:
            at = next_polite((r.url for r in queue), hosts)
            if at is None:
                break  # every queued sitemap is on a host already at its share
            rec = queue[at]
            if rec.depth > limits.max_depth:
                del queue[at]
                depth_cut = True
                continue
            if fetched >= limits.max_sitemaps:
                stopped = "max-sitemaps"
            elif self.bytes >= limits.max_bytes:
                stopped = "max-bytes"
            elif time.monotonic() >= self.deadline:
                stopped = "max-seconds"
            if stopped is not None:
                break
            del queue[at]
            fetched += 1
            hosts[host_of(rec.url)] += 1
            running[pool.submit(self.fetch, rec)] = rec
        return stopped, depth_cut, fetched

    def close(self) -> None:
        for f in self.fetchers:
            f.close()
        self.heard.close()


def _reading(url: str) -> urls.WebURL | None:
    """The one reading of a sitemap's URL, None when it is none to fetch."""
    try:
        return urls.read(url)
    except urls.UnfetchableURLError:
        return None


class _AbandonedError(Exception):
    """A fetch still running once the walk stopped for an interruption: it changes nothing."""


class _InterruptedError(Exception):
    def __init__(self, stopped: str, depth_cut: bool) -> None:
        super().__init__(stopped)
        self.stopped = stopped
        self.depth_cut = depth_cut


def walk(url: str, options: Options | None = None) -> Walk:
    """Walk every sitemap of the site of url; raises ValueError for a URL with no site root."""
    options = options or Options()
    site = sites.resolve(url)
    if site is None:
        raise ValueError("the URL has no http(s) scheme and host")
    audited = strip_userinfo(url.strip())
    started = options.now()
    walker = _Walker(audited, site, options)
    stopped: str | None = None
    depth_cut = False
    verdict: dict[str, Any] = {}  # none, when interrupted before the Lambda's audit answered
    status: int | None = None
    body: bytes | None = None
    listed: list[str] = []
    lines = 0
    unreachable = False
    skipped: list[first_answers.Skipped] = []
    try:
        with walker.interrupt.opened():
            verdict = first_answers.verdict(site, url, options, walker.policy, walker.heard)
            if time.monotonic() < walker.deadline:
                answer = first_answers.robots_txt(walker.fetcher(), site.robots_txt_url)
            else:
                # The verdict took the whole --max-seconds: robots.txt as it kept it, if it did
                # (no time is left to ask the site), and no usual path tried in its place.
                stopped = "max-seconds"
                answer = first_answers.robots_txt_kept(
                    walker.policy, walker.heard, site.robots_txt_url
                )
            status, body, listed, lines, unreachable, skipped = answer
    except KeyboardInterrupt:
        stopped = "interrupted"
    if stopped is None and unreachable:
        from sitemap_auditor.deep.robots_rules import COMPLETE_DISALLOW

        rules: Rules | None = load_rules(COMPLETE_DISALLOW)
        detail = "no answer" if status is None else f"HTTP {status}"
        walker.site_tally.add(Kind.ROBOTS_UNREACHABLE, None, site.robots_txt_url, detail)
    else:
        rules = load_rules(body) if body is not None else None
    for number, value, why in skipped:
        walker.site_tally.add(Kind.ROBOTS_SITEMAP_INVALID, number, value, why)
    max_dedupe = options.limits.max_dedupe_urls
    records = walker.records
    seen = Duplicates(max_dedupe, order=lambda number: records[number].place)
    agents = first_answers.robots_agents(options.headers)
    # Its host as the one reading spells it, as each sitemap's scope is read (`127.1` is
    # 127.0.0.1 there): the robots.txt of that host decides for its URLs.
    robots_host = site.root.host
    walker.site_checks = SiteChecks(rules, robots_host, max_dedupe, seen, agents=agents)
    source = "robots" if listed else "fallback"
    try:
        if stopped is None or (stopped == "max-seconds" and listed):
            for u in listed or [site.url + p for p in candidates.FALLBACK_PATHS]:
                if walker.add(u, None, source) is None and walker.repeated:
                    walker.site_tally.add(Kind.DUPLICATE_SITEMAP, None, u)
        if stopped is None:
            try:
                stopped, depth_cut = walker.run()
            except _InterruptedError as e:
                stopped, depth_cut = e.stopped, e.depth_cut
    finally:
        walker.close()
    for number in walker.elsewhere.unread():
        walker.records[number].type = "unfetched"  # left to one a limit left unread
    # Read under the lock: a fetch still running after an interruption leaves them be.
    with walker.interrupt.deferred(), walker.lock:
        walker.findings()
        _site_findings(walker, source, stopped, depth_cut, status)
    finished = options.now()
    findings = [f for r in walker.records for f in r.findings]
    findings.extend(walker.site_tally.findings(None))
    findings = checks.merge_findings(findings)
    return Walk(
        audited_url=audited,
        site=site,
        robots_url=site.robots_txt_url,
        robots_status=status,
        robots_sitemap_lines=lines,
        started=started,
        finished=finished,
        seconds=round(time.monotonic() - walker.started_mono, 3),
        verdict=verdict,
        limits=options.limits,
        stopped_by=stopped,
        complete=stopped is None and not depth_cut and walker.not_recorded == 0,
        records=walk_order(walker.records),
        findings=findings,
        urls=walker.urls,
        wire_bytes=walker.wire_bytes,
        bytes=walker.bytes,
        secrets=walker.secrets,
        robots_agents=walker.site_checks.agents,
    )


def _site_findings(
    walker: _Walker, source: str, stopped: str | None, depth_cut: bool, robots: int | None
) -> None:
    """What is found once every file is read: return links, fallbacks, limits."""
    site = walker._site()
    tallies: dict[str, Tally] = {}
    for sitemap, line, value in site.missing_return_links():
        tally = tallies.get(sitemap)
        if tally is None:
            rec = walker.by_url.get(sitemap)
            tally = tallies[sitemap] = Tally(
                walker.sink(rec.number, rec.url) if rec else None, walker.clean
            )
        # A link whose words the sample did not keep is counted, with no example.
        tally.add(Kind.HREFLANG_INVALID, line, value, "no return link", example=bool(value))
    for sitemap, tally in tallies.items():
        rec = walker.by_url.get(sitemap)
        if rec is not None:
            rec.findings.extend(tally.findings(sitemap))
    if source == "fallback":
        fallbacks = [r for r in walker.records if r.source == "fallback"]
        found = [r for r in fallbacks if r.type in checks.SITEMAP_ROOTS]
        for r in fallbacks:
            # A usual path that is not there is no finding: it was a guess.
            if is_probe(r.source, r.http_status):
                r.findings = []
        if not found and fallbacks and not any(r.left_by_a_limit for r in fallbacks):
            # Its Sitemap: lines are read from a 200 only (a 503's body is no robots.txt).
            said = {None: "did not answer", 200: "lists no sitemap"}.get(robots)
            tried = ", ".join(candidates.FALLBACK_PATHS)
            walker.site_tally.set_count(
                Kind.COULDNT_FETCH,
                1,
                detail=f"robots.txt {said or f'answered HTTP {robots}'}, and none of {tried}"
                " answered one",
            )
    # Files an interruption left unread were left by no limit: the document's stoppedBy says so.
    interrupted = stopped == "interrupted"
    unfetched = (
        0
        if interrupted
        else (sum(1 for r in walker.records if r.left_by_a_limit) + walker.not_recorded)
    )
    why: list[str] = []
    if (stopped is not None and not interrupted) or depth_cut or walker.not_recorded:
        if stopped == "max-sitemaps":
            most = walker.limits.max_sitemaps
            why.append(f"at most {most:,} sitemap{'' if most == 1 else 's'}")
        elif stopped == "max-bytes":
            why.append(f"at most {walker.limits.max_bytes:,} bytes")
        elif stopped == "max-seconds":
            seconds = walker.limits.max_seconds
            why.append(f"at most {seconds:g} second{'' if seconds == 1 else 's'}")
        if depth_cut:
            why.append(f"at most {walker.limits.max_depth} levels of indexes")
        if not interrupted:
            why.append(f"{unfetched:,} sitemap{'' if unfetched == 1 else 's'} not read")
    if site.alternates_dropped:
        most = checks.MAX_TRACKED_ALTERNATES
        why.append(f"hreflang return links looked for among {most:,} links and pages only")
    if site.seen.full:
        why.append(
            f"duplicates looked for among the first {site.seen.max_urls:,} URLs read only (which"
            " ones can vary between runs when files are read at once; not with --concurrency 1)"
        )
    if why:
        # One finding, counting the sitemaps left unread (1 when only the checks were cut).
        walker.site_tally.set_count(Kind.LIMIT_REACHED, unfetched or 1, detail="; ".join(why))
