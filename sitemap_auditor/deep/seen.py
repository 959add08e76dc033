"""Duplicate detection of the deep audit: which URLs were seen, and in which file.

`SeenUrls` is the table: compact (at most 16 bytes a URL), fed the URLs' 64-bit hashes.
`Duplicates` is what the checks ask: it tells the file that lists a URL seen before (its
`report`), at once while the table is in this process; once a site has listed many URLs
(`HELPER_FROM_URLS`), a helper process takes the table over, so that its loop, a Python step per
URL, runs on another core while this one reads the files. The answers are then the same, in the
same order, a little later: every file's are in before its findings are read (`settle`).

The helper is this module run alone (`python -I -S`, nothing imported but the standard
library), fed the hashes over a pipe and answering with where the repeats are. Nothing else of
the audit goes to it: no URL, no credential, not even the environment. If it cannot start, the
table stays here; if it dies, what it held is lost and the walk says so (duplicates looked for
among the URLs answered for only).
"""

from __future__ import annotations

import builtins
import contextlib
import os
import struct
import sys
import threading
from array import array
from bisect import bisect_right
from collections import deque
from collections.abc import Callable, Sequence
from typing import IO, Any

__all__ = [
    "DEDUPE_BYTES_PER_URL",
    "DEDUPE_FIRST_SLOTS",
    "DEFAULT_MAX_DEDUPE_URLS",
    "HELPER_FROM_URLS",
    "Duplicates",
    "Report",
    "SeenUrls",
    "serve",
]

# Duplicate detection: 8 bytes a slot, at most 16 bytes a URL (SeenUrls). Past this many URLs it
# stops looking, with a notice (80 MB at most).
DEDUPE_BYTES_PER_URL = 16
DEDUPE_FIRST_SLOTS = 1 << 20  # 8 MiB: 786,432 URLs before the table first grows
DEFAULT_MAX_DEDUPE_URLS = 5_000_000
# Once a site has listed this many URLs, the table goes to a helper process (started at half
# of it, so that it is ready by then). Below it, a process costs more than the table's loop.
HELPER_FROM_URLS = 50_000
# At most this many URLs, and characters held for them (the URLs, and the runs' texts kept to
# find their lines), are sent and not yet answered for: past either, this process waits. A
# message is sent once it holds _MESSAGE_URLS or _MESSAGE_CHARS. The characters bound what a
# hostile file (4,096-character URLs, runs of a few entries padded to a slice) makes it hold.
MAX_IN_FLIGHT_URLS = 1 << 15
MAX_IN_FLIGHT_CHARS = 8 << 20
_MESSAGE_CHARS = 4 << 20
# Entries read one by one are gathered this many at a time; a message to the helper holds at
# least this many URLs (fewer when settled): each answer wakes this process's reader.
_ENTRY_BATCH = 2048
_MESSAGE_URLS = 16384

_MASK = (1 << 64) - 1
_TAG_BITS = 8
_TAG_MASK = (1 << _TAG_BITS) - 1


class SeenUrls:
    """Which URLs were seen, and in which file: an open-addressing table of 64-bit slots.

    A slot holds 56 bits of the URL's hash and 8 bits of the file's number; 0 is empty. A URL
    found again in a file of the same number (mod 256) counts as a repeat within that file. The
    first table is 8 MiB (DEDUPE_FIRST_SLOTS; less when max_urls needs less), and it grows by
    half once 3/4 full, so it is always at least half full past its first size: at most 16
    bytes a URL past the first 786,432 (and, for the moment it grows, the old table beside the
    new one).
    `add` and `add_many` are closures over the table, not methods: they run for every listed
    URL, and a closure's cells cost less than attribute look-ups.
    """

    def __init__(
        self,
        max_urls: int = DEFAULT_MAX_DEDUPE_URLS,
        held: array[int] | None = None,
        size: int = 0,
        full: bool = False,
    ) -> None:
        self.max_urls = max_urls
        # held: a table's slots, as another SeenUrls had them (its size and full go with it).
        if held is None:
            # The first table is large enough for most sites (growing it again and again costs
            # more than all the look-ups), and no larger than the bound needs.
            first = max(1024, min(DEDUPE_FIRST_SLOTS, max_urls * 4 // 3 + 1))
            held = array("Q", [0]) * first  # no zeroed bytes beside it
        slots: array[int] = held
        n = len(slots)

        def add(url_hash: int, file_number: int) -> int:
            """0 for a new URL, 1 for one seen before in the same file, 2 in another file."""
            nonlocal size, full
            # str's hash is SipHash: its bits are spread already, and the slot is its remainder.
            h = (url_hash & _MASK) >> _TAG_BITS or 1
            i = h % n
            v = slots[i]
            while v:
                if v >> _TAG_BITS == h:
                    return 1 if v & _TAG_MASK == file_number & _TAG_MASK else 2
                i += 1
                if i == n:
                    i = 0
                v = slots[i]
            if full:
                return 0
            if size >= max_urls:
                full = True
                return 0
            slots[i] = h << _TAG_BITS | (file_number & _TAG_MASK)
            size += 1
            if size * 4 > n * 3:
                grow()
            return 0

        def grow() -> None:
            nonlocal slots, n
            old = slots
            n = m = len(old) * 3 // 2
            slots = new = array("Q", [0]) * m
            for v in filter(None, old):
                i = (v >> _TAG_BITS) % m
                while new[i]:
                    i += 1
                    if i == m:
                        i = 0
                new[i] = v

        def add_many(hashes: Sequence[int], file_number: int) -> list[int]:
            """add for each hash in turn: the index of each that was not new and what add said
            of it, one after the other ([index, 1 or 2, index, 1 or 2, ...])."""
            nonlocal size
            hits: list[int] = []
            room = min(n * 3 // 4, max_urls) - size  # taken before the table grows, or fills
            if room < len(hashes):
                # One by one: the table grows on the way, or fills.
                for index, h in enumerate(hashes):
                    again = add(h, file_number)
                    if again:
                        hits += (index, again)
                return hits
            # add's loop, without the count and the limit per URL.
            tag = file_number & _TAG_MASK
            table, m = slots, n
            for index, h in enumerate(hashes):
                h = (h & _MASK) >> _TAG_BITS or 1
                i = h % m
                v = table[i]
                while v:
                    if v >> _TAG_BITS == h:
                        hits += (index, 1 if v & _TAG_MASK == tag else 2)
                        break
                    i += 1
                    if i == m:
                        i = 0
                    v = table[i]
                else:
                    table[i] = h << _TAG_BITS | tag
            size += len(hashes) - len(hits) // 2
            return hits

        def state() -> tuple[array[int], int, bool]:
            return slots, size, full

        self.add: Callable[[int, int], int] = add
        self.add_many: Callable[[Sequence[int], int], list[int]] = add_many
        self._state = state

    @property
    def size(self) -> int:
        """How many distinct URLs the table holds."""
        return self._state()[1]

    @property
    def full(self) -> bool:
        """True once max_urls were taken: no more are looked for."""
        return self._state()[2]

    @property
    def bytes(self) -> int:
        """The table's size in memory."""
        return len(self._state()[0]) * 8

    def dump(self) -> tuple[builtins.bytes, memoryview]:
        """The table as the helper loads it (_LOAD's payload): a head, and the slots as they
        are held (not a copy)."""
        slots, size, full = self._state()
        return _TABLE_HEAD.pack(self.max_urls, size, full, len(slots)), memoryview(slots)


# --- the helper's protocol ----------------------------------------------------------------------
# A request: an operation, a number and a payload's length, then the payload. An answer: the
# operation it answers and a payload's length, then the payload. Every request but _LOAD is
# answered, in order. _ADD's number is how many segments it has: its payload is, for each, a
# file's number and how many hashes are of it (_SEGMENT), then every hash (int64), in order;
# its answer is add_many's list, its indexes counted across the segments.
_REQUEST = struct.Struct("<Bqi")
_ANSWER = struct.Struct("<Bi")
_TABLE_HEAD = struct.Struct("<qq?q")  # max_urls, size, full, slots
_SEGMENT = struct.Struct("<qq")
_STATE = struct.Struct("<q?qq")  # size, full, bytes, the helper's peak RSS (KiB)
_READY, _LOAD, _ADD, _STATE_OP = 1, 2, 3, 4


def _read_into(stream: IO[bytes], view: memoryview) -> bool:
    """Fill view from stream; False at its end first."""
    got, size = 0, len(view)
    while got < size:
        n = stream.readinto(view[got:])  # type: ignore[attr-defined]
        if not n:
            return False
        got += n
    return True


def _read_exact(stream: IO[bytes], size: int) -> bytearray | None:
    """size bytes of stream, or None at its end."""
    buffer = bytearray(size)
    return buffer if _read_into(stream, memoryview(buffer)) else None


def _write_all(stream: IO[bytes], data: bytes | memoryview) -> None:
    """All of data to stream (a raw stream may take part of it at a time)."""
    view = memoryview(data).cast("B")
    while view:
        n = stream.write(view)
        if n is None:  # pragma: no cover - a non-blocking stream, which these are not
            raise OSError("the pipe would block")
        view = view[n:]


def _peak_kib() -> int:
    """This process's peak resident size in KiB, since it started its interpreter (VmHWM; the
    rusage figure would count what it held before exec, a copy of the process that started it),
    or -1 where it cannot be read."""
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return -1


def serve(requests: IO[bytes] | None = None, answers: IO[bytes] | None = None) -> None:
    """The helper: the table, fed over requests and answering over answers, until their end."""
    # The raw streams: an answer goes out whole at once, not when a buffer fills.
    into = requests if requests is not None else getattr(sys.stdin.buffer, "raw", sys.stdin.buffer)
    out = answers if answers is not None else getattr(sys.stdout.buffer, "raw", sys.stdout.buffer)
    table: SeenUrls | None = None  # until _LOAD

    def answer(op: int, payload: bytes = b"") -> None:
        _write_all(out, _ANSWER.pack(op, len(payload)) + payload)

    answer(_READY)
    while True:
        head = _read_exact(into, _REQUEST.size)
        if head is None:
            return
        op, number, length = _REQUEST.unpack(head)
        if op == _LOAD:
            # Read into the table's own array: no copy of it is held beside it.
            table_head = _read_exact(into, _TABLE_HEAD.size)
            if table_head is None:
                return
            max_urls, size, full, count = _TABLE_HEAD.unpack(table_head)
            slots = array("Q", [0]) * count
            if not _read_into(into, memoryview(slots).cast("B")):
                return
            table = SeenUrls(max_urls, slots, size, full)
            continue
        payload = _read_exact(into, length) if length else bytearray()
        if payload is None:
            return
        if table is None:
            return  # a request before the table: not this protocol
        if op == _ADD:
            heads = _SEGMENT.size * number
            hashes = array("q")
            hashes.frombytes(memoryview(payload)[heads:])
            hits = array("q")
            start = 0
            for k in range(number):
                file_number, count = _SEGMENT.unpack_from(payload, k * _SEGMENT.size)
                found = table.add_many(hashes[start : start + count], file_number)
                for i in range(0, len(found), 2):
                    hits += array("q", (found[i] + start, found[i + 1]))
                start += count
            answer(_ADD, hits.tobytes())
        elif op == _STATE_OP:
            answer(_STATE_OP, _STATE.pack(table.size, table.full, table.bytes, _peak_kib()))
        del payload


# The helper's command: this file, loaded alone (no package, no site-packages). Ctrl-C is the
# walk's to handle (it still asks the helper for what it found); at the requests' end the helper
# leaves at once, with nothing to flush (its answers are written unbuffered).
_HELPER_CODE = (
    "import os,signal,sys,importlib.util as u;signal.signal(signal.SIGINT,signal.SIG_IGN);"
    "s=u.spec_from_file_location('sitemap_auditor_seen',sys.argv[1]);"
    "m=u.module_from_spec(s);s.loader.exec_module(m);m.serve();os._exit(0)"
)


class _Helper:
    """The helper process, a thread that writes the requests and one that reads the answers."""

    def __init__(self) -> None:
        import subprocess

        self.process = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _HELPER_CODE, os.path.abspath(__file__)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
            close_fds=True,
            # None of this process's environment (where credentials may be): it needs none.
            env={k: v for k, v in os.environ.items() if k == "SYSTEMROOT"},
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.requests: IO[bytes] = self.process.stdin
        self._answers_from: IO[bytes] = self.process.stdout
        try:
            import fcntl

            # A larger pipe (1 MiB, Linux's default ceiling) lets this side run further ahead.
            fcntl.fcntl(self.requests.fileno(), 1031, 1 << 20)  # F_SETPIPE_SZ
        except (ImportError, OSError):
            pass
        self.answers: deque[tuple[int, bytearray]] = deque()
        self.ready = False
        self.alive = True
        self.changed = threading.Condition()  # answers, ready, alive
        self._outbox: deque[tuple[bytes | memoryview, ...]] = deque()
        self._outgoing = threading.Condition()  # _outbox, _closing
        self._closing = False
        self._reader = threading.Thread(target=self._read, name="deep-seen-in", daemon=True)
        self._writer = threading.Thread(target=self._write, name="deep-seen-out", daemon=True)
        self._reader.start()
        self._writer.start()

    def _read(self) -> None:
        try:
            while True:
                head = _read_exact(self._answers_from, _ANSWER.size)
                if head is None:
                    break
                op, length = _ANSWER.unpack(head)
                payload = _read_exact(self._answers_from, length) if length else bytearray()
                if payload is None:
                    break
                with self.changed:
                    if op == _READY:
                        self.ready = True
                    else:
                        self.answers.append((op, payload))
                    self.changed.notify_all()
        except (OSError, ValueError):
            pass
        with self.changed:
            self.alive = False
            self.changed.notify_all()

    def send(self, op: int, number: int, *payload: bytes | memoryview) -> bool:
        """Hand a request to the writer; False when the helper is gone. The caller never
        waits on the pipe: a thread that parses would give up the interpreter's lock for each
        write, and wait for it again behind the fetching threads."""
        length = sum(p.nbytes if isinstance(p, memoryview) else len(p) for p in payload)
        with self._outgoing:
            if not self.alive or self._closing:
                return False
            self._outbox.append((_REQUEST.pack(op, number, length), *payload))
            self._outgoing.notify()
        return True

    def _write(self) -> None:
        while True:
            with self._outgoing:
                while not self._outbox and not self._closing:
                    self._outgoing.wait()
                if not self._outbox:
                    break
                parts = self._outbox.popleft()
            try:
                for part in parts:
                    _write_all(self.requests, part)
            except (OSError, ValueError):
                with self.changed:
                    self.alive = False
                    self.changed.notify_all()
                break
        with contextlib.suppress(OSError):
            self.requests.close()

    def wait_ready(self) -> bool:
        with self.changed:
            while not self.ready and self.alive:
                self.changed.wait()
            return self.ready and self.alive

    def wait_answer(self) -> bool:
        """Wait until an answer is in; False when the helper is gone instead."""
        with self.changed:
            while not self.answers and self.alive:
                self.changed.wait()
            return bool(self.answers)

    def next_answer(self, block: bool) -> tuple[int, bytearray] | None:
        """The oldest answer not yet taken; None when there is none (or the helper is gone)."""
        with self.changed:
            while block and not self.answers and self.alive:
                self.changed.wait()
            return self.answers.popleft() if self.answers else None

    def close(self) -> None:
        import subprocess

        with self._outgoing:
            self._closing = True  # what is in the outbox is written, then the pipe closed
            self._outgoing.notify()
        self._writer.join(timeout=5)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._reader.join(timeout=5)
        self._answers_from.close()


# What is told of a URL seen before: the line it is listed on, the URL, and 1 (seen before in
# the same file) or 2 (in another file).
Report = Callable[[int | None, str, int], None]
Lines = Sequence[int | None] | Callable[[], Sequence[int | None]]


class _Part:
    """URLs of one file sent to the helper, and what reports their repeats: where they start in
    their message, their lines (or how to work them out, asked only for a repeat)."""

    __slots__ = ("held", "lines", "report", "start", "urls")

    def __init__(
        self, start: int, urls: Sequence[str], lines: Lines, report: Report, held: int = 0
    ) -> None:
        self.start = start
        self.urls = urls
        self.lines = lines
        self.report = report
        self.held = held  # characters it keeps alive

    def tell(self, index: int, again: int) -> None:
        lines = self.lines
        if callable(lines):
            lines = self.lines = lines()
        self.report(lines[index], self.urls[index], again)


class Duplicates:
    """Duplicate detection for a walk: asked of each listed URL, it reports each one seen before.

    Thread-safe. While the table is in this process, a repeat is reported before add returns;
    once the helper has it, a little later, but in the same order and before settle returns.
    helper_from is how many URLs are asked of before the helper takes over (None: never; 0: from
    the first, waiting for it to start).
    """

    def __init__(
        self, max_urls: int = DEFAULT_MAX_DEDUPE_URLS, helper_from: int | None = HELPER_FROM_URLS
    ) -> None:
        self.max_urls = max_urls
        self._table: SeenUrls | None = SeenUrls(max_urls)
        self._helper_from = helper_from
        self._helper: _Helper | None = None
        self._gave_up = helper_from is None  # no helper (or it could not start): the table stays
        self._lock = threading.RLock()
        self._asked = 0  # URLs asked of
        self._answered = 0  # URLs answered for (here, or by the helper)
        self._lost = False  # the helper died: what it held is gone
        self._final: tuple[int, bool, int] | None = None  # size, full, bytes once closed
        self.helper_peak_kib: int | None = None  # the helper's peak RSS, once closed
        # Sent to the helper and not answered yet, a message's parts each; how many URLs they
        # hold; the messages sent, and answers taken.
        self._sent: deque[list[_Part]] = deque()
        self._in_flight = self._in_flight_chars = 0
        self._sends = self._taken = 0
        # The next message, gathered until it holds _MESSAGE_URLS: its hashes, its parts, and
        # its segments ([file number, how many hashes]).
        self._out_hashes = array("q")
        self._out_parts: list[_Part] = []
        self._out_segments: list[list[int]] = []
        self._out_chars = 0  # what its parts hold
        # Entries read one by one, gathered into one part (one report at a time).
        self._entry_urls: list[str] = []
        self._entry_lines: list[int | None] = []
        self._entry_report: Report | None = None
        self._entry_file = 0
        if helper_from == 0:
            self._start_helper()

    # --- what the checks ask ---------------------------------------------------------------

    def add(self, url: str, file_number: int, line: int | None, report: Report) -> None:
        """Look for url; report(line, url, again) when it was seen before."""
        with self._lock:
            self._asked += 1
            table = self._table
            if table is not None:
                again = table.add(hash(url), file_number)
                self._answered += 1
                if again:
                    report(line, url, again)
                if not self._gave_up:
                    self._hand_over()
                return
            if self._lost:
                return
            if (
                report is not self._entry_report
                or file_number != self._entry_file
                or len(self._entry_urls) >= _ENTRY_BATCH
            ):
                self._end_entries()
                self._entry_report = report
                self._entry_file = file_number
            self._entry_urls.append(url)
            self._entry_lines.append(line)

    def add_run(
        self,
        urls: list[str],
        file_number: int,
        lines: Callable[[], Sequence[int | None]],
        report: Report,
        held: int = 0,
    ) -> None:
        """add for each of urls, listed on lines() (asked for only when one was seen before);
        held: the characters urls and lines keep alive until then (a run's, say)."""
        with self._lock:
            self._asked += len(urls)
            table = self._table
            if table is not None:
                hits = table.add_many(list(map(hash, urls)), file_number)
                self._answered += len(urls)
                if hits:
                    part = _Part(0, urls, lines, report)
                    for k in range(0, len(hits), 2):
                        part.tell(hits[k], hits[k + 1])
                if not self._gave_up:
                    self._hand_over()
                return
            if self._lost:
                return
            self._end_entries()
            self._queue(urls, file_number, lines, report, held)

    def settle(self) -> None:
        """Wait until every URL asked of so far is answered for, every repeat reported. The
        wait is not under the lock: other threads go on asking meanwhile."""
        with self._lock:
            self._end_entries()
            self._send()
            target = self._sends
        while True:
            with self._lock:
                helper = self._helper
                if self._taken >= target or helper is None or self._lost:
                    return
                if self._take_answer(block=False):
                    continue
            if not helper.wait_answer():
                with self._lock:
                    self._helper_gone()
                return

    def close(self) -> None:
        """Settle, and end the helper (the counts stay readable)."""
        with self._lock:
            if self._final is not None:
                return
            self.settle()
            helper, self._helper = self._helper, None
            if self._table is not None:
                self._final = (self._table.size, self._table.full, self._table.bytes)
            elif helper is not None and not self._lost and helper.send(_STATE_OP, 0):
                got = helper.next_answer(block=True)
                if got is not None and got[0] == _STATE_OP:
                    size, full, held, peak = _STATE.unpack(got[1])
                    self._final = (size, full, held)
                    self.helper_peak_kib = peak
            if self._final is None:
                self._helper_gone()
                self._final = (self._answered, True, 0)
            if helper is not None:
                helper.close()

    # --- what is said of it -----------------------------------------------------------------

    @property
    def full(self) -> bool:
        """True once duplicates were no longer looked for among every URL (max_urls were held,
        or the helper was lost): max_urls then says how many were."""
        return self._counts()[1]

    @property
    def size(self) -> int:
        """How many distinct URLs the table holds."""
        return self._counts()[0]

    @property
    def bytes(self) -> int:
        """The table's size in memory (in this process or the helper)."""
        return self._counts()[2]

    @property
    def helper_used(self) -> bool:
        """True when the helper holds (or held) the table."""
        return self._table is None

    def _counts(self) -> tuple[int, bool, int]:
        with self._lock:
            if self._final is not None:
                return self._final
            if self._table is not None:
                return self._table.size, self._table.full, self._table.bytes
        self.close()
        assert self._final is not None
        return self._final

    # --- the helper -------------------------------------------------------------------------

    def _start_helper(self) -> None:
        if self._helper is not None or self._gave_up:
            return
        try:
            if not sys.executable:
                raise OSError("no interpreter to start")
            self._helper = _Helper()
        except OSError:
            self._gave_up = True

    def _hand_over(self) -> None:
        # Started at half of helper_from; the table goes once helper_from URLs were asked of
        # and the helper is ready (helper_from 0: waited for).
        assert self._helper_from is not None
        if self._asked < self._helper_from // 2:
            return
        self._start_helper()
        helper = self._helper
        if helper is None or self._table is None or self._asked < self._helper_from:
            return
        if self._helper_from == 0:
            ready = helper.wait_ready()
        else:
            with helper.changed:
                ready = helper.ready
            if not ready and helper.alive:
                return  # not yet: asked again with the next URLs
            ready = ready and helper.alive
        if not ready or not helper.send(_LOAD, 0, *self._table.dump()):
            self._gave_up = True
            self._helper = None
            helper.close()
            return
        self._table = None

    def _end_entries(self) -> None:
        if self._entry_urls:
            assert self._entry_report is not None
            urls, lines = self._entry_urls, self._entry_lines
            self._entry_urls, self._entry_lines = [], []
            self._queue(urls, self._entry_file, lines, self._entry_report, sum(map(len, urls)))

    def _queue(
        self, urls: Sequence[str], file_number: int, lines: Lines, report: Report, held: int
    ) -> None:
        # Into the next message, a segment per file in turn; sent once it is large enough.
        segments = self._out_segments
        if segments and segments[-1][0] == file_number:
            segments[-1][1] += len(urls)
        else:
            segments.append([file_number, len(urls)])
        self._out_parts.append(_Part(len(self._out_hashes), urls, lines, report, held))
        self._out_hashes.fromlist(list(map(hash, urls)))  # quicker than extend(map(...))
        self._out_chars += held
        if len(self._out_hashes) >= _MESSAGE_URLS or self._out_chars >= _MESSAGE_CHARS:
            self._send()

    def _send(self) -> None:
        if not self._out_parts:
            return
        helper = self._helper
        assert helper is not None
        hashes, parts, segments = self._out_hashes, self._out_parts, self._out_segments
        self._out_hashes, self._out_parts, self._out_segments = array("q"), [], []
        held, self._out_chars = self._out_chars, 0
        heads = b"".join(_SEGMENT.pack(*segment) for segment in segments)
        if not helper.send(_ADD, len(segments), heads, memoryview(hashes)):
            self._helper_gone()
            return
        self._sent.append(parts)
        self._sends += 1
        self._in_flight += len(hashes)
        self._in_flight_chars += held
        # The answers that are in, without waiting; then as many as keep the URLs in flight
        # (and the runs kept for their lines) bounded.
        while self._sent and self._take_answer(
            block=self._in_flight > MAX_IN_FLIGHT_URLS
            or self._in_flight_chars > MAX_IN_FLIGHT_CHARS
        ):
            pass

    def _take_answer(self, block: bool) -> bool:
        """Report the oldest message's repeats once its answer is in; False when it is not."""
        helper = self._helper
        if helper is None:
            return False
        got = helper.next_answer(block)
        if got is None:
            if block:
                self._helper_gone()
            return False
        parts = self._sent.popleft()
        self._taken += 1
        sent = sum(len(p.urls) for p in parts)
        self._in_flight -= sent
        self._in_flight_chars -= sum(p.held for p in parts)
        self._answered += sent
        hits = array("q")
        hits.frombytes(got[1])
        if hits:
            starts = [p.start for p in parts]
            for k in range(0, len(hits), 2):
                part = parts[bisect_right(starts, hits[k]) - 1]
                part.tell(hits[k] - part.start, hits[k + 1])
        return True

    def _helper_gone(self) -> None:
        # What the helper held is lost: no more is looked for, and the notice says how many
        # URLs were answered for.
        if not self._lost:
            self._lost = True
            self.max_urls = min(self.max_urls, self._answered)
        self._sent.clear()
        self._in_flight = self._in_flight_chars = self._out_chars = 0
        self._out_hashes, self._out_parts, self._out_segments = array("q"), [], []
        self._entry_urls, self._entry_lines = [], []

    def __del__(self) -> None:  # pragma: no cover - a safety net; walks close what they open
        helper: Any = getattr(self, "_helper", None)
        if helper is not None:
            with contextlib.suppress(OSError, ValueError):
                helper.close()
