"""Answers heard once, read twice: the deep audit's Lambda verdict and its walk ask a site for the
same robots.txt, redirects and sitemap, and the site is to see each request once (docs/deep.md).

`Recordings.recording(inner)` wraps the verdict's transport: each answer it passes on is kept, its
head and its body as it came over the wire (no content coding undone), when the fetch read that
body to its end in time. `Recordings.replaying(inner)` wraps the walk's: a request equal to one
kept (the same URL in its one reading, the same headers) is answered from what was kept, once;
any other goes to the site. Nothing is decided here: the fetcher reads a replayed answer as it
read the first (redirects, credentials by origin, bounds, decoding), so the walk's findings are
those a second request to the site would have given, had the site answered it the same.

An answer only partly read is not kept (the Lambda reads a robots.txt to its limit, and a sitemap
until its parser has had enough). One whose body the fetch never began is kept when it is a
redirect (the fetcher follows a redirect without reading its body: its replay has none), or when
its Content-Length says at most MAX_DRAIN_BYTES, read on to its end (within MAX_DRAIN_S) before
the connection is released (an error page the Lambda passes over, whose first bytes the walk
reads: blocked, a challenge page). Bodies are held in memory up to IN_MEMORY_BYTES each, in a
temporary file past that, and MAX_KEPT_BYTES in all; past it, answers are not kept.
"""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import IO, TYPE_CHECKING

from sitemap_auditor.core.errors import MAX_BODY_BYTES, FetchError
from sitemap_auditor.fetching.exchange import Headers, Reply, Request, Transport
from sitemap_auditor.fetching.fetch import redirect_location

if TYPE_CHECKING:
    from sitemap_auditor.fetching.guard import Guard

__all__ = [
    "IN_MEMORY_BYTES",
    "MAX_DRAIN_BYTES",
    "MAX_DRAIN_S",
    "MAX_KEPT_BYTES",
    "MAX_KEPT_FILES",
    "Recordings",
]

# One body of the largest size a fetch reads (docs/contract.md §4) may be kept, on disk.
MAX_KEPT_BYTES = MAX_BODY_BYTES
# A robots.txt, a redirect or a small sitemap stays in memory; larger bodies go to a file.
IN_MEMORY_BYTES = 256 * 1024
# An unread body read on before release, so that the walk need not ask again, when its length is
# declared and this small: error pages are; a larger one is asked for again if the walk needs it.
MAX_DRAIN_BYTES = 64 * 1024
# ... and when it comes within this: the verdict is not held up by a site that drips it.
MAX_DRAIN_S = 0.5
# Bodies kept in temporary files at once (a descriptor each until the walk reads them again).
MAX_KEPT_FILES = 8
_CHUNK = 16 * 1024

_Key = tuple[str, tuple[tuple[str, str], ...]]


def _key(request: Request) -> _Key:
    return request.url.href, tuple(sorted((k.lower(), v) for k, v in request.headers.items()))


class _Kept:
    """One answer as it came: status, header lines, and its body in a (spooled) file."""

    def __init__(self, status: int, lines: list[tuple[str, str]], body: IO[bytes]) -> None:
        self.status = status
        self.lines = lines
        self.body = body
        body.seek(0, 2)
        self.size = body.tell()
        body.seek(0)


def _spooled() -> IO[bytes]:
    # Closed by the reply that writes it, or by the Recordings that keep it.
    return tempfile.SpooledTemporaryFile(max_size=IN_MEMORY_BYTES)


class Recordings:
    """The answers one deep audit's verdict heard, for its walk to read again; thread-safe."""

    def __init__(
        self,
        max_bytes: int = MAX_KEPT_BYTES,
        spool: Callable[[], IO[bytes]] | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._kept: dict[_Key, list[_Kept]] = {}
        self._room = max_bytes
        self._files = 0  # kept bodies past IN_MEMORY_BYTES, each a temporary file
        # Where a body is written as it passes: memory, then an unnamed temporary file.
        self.spool = spool or _spooled
        self.replayed = 0  # requests answered from what was kept

    def recording(self, inner: Transport) -> Transport:
        """inner, each of whose answers read to the end is kept here."""
        return _Recording(inner, self)

    def replaying(self, inner: Transport) -> Transport:
        """inner, but a request kept here is answered from here, once."""
        return _Replaying(inner, self)

    def close(self) -> None:
        """Drop whatever was kept and not read again."""
        with self._lock:
            kept, self._kept = self._kept, {}
        for answers in kept.values():
            for answer in answers:
                answer.body.close()

    def _reserve(self, size: int) -> bool:
        with self._lock:
            if size > self._room:
                return False
            self._room -= size
            return True

    def _give_back(self, size: int) -> None:
        with self._lock:
            self._room += size

    def _keep(self, key: _Key, answer: _Kept) -> bool:
        """Keep answer for key; False (not kept) past MAX_KEPT_FILES bodies in files."""
        with self._lock:
            if answer.size > IN_MEMORY_BYTES:
                if self._files >= MAX_KEPT_FILES:
                    return False
                self._files += 1
            self._kept.setdefault(key, []).append(answer)
            return True

    def _take(self, key: _Key) -> _Kept | None:
        with self._lock:
            answers = self._kept.get(key)
            if not answers:
                return None
            answer = answers.pop(0)
            if not answers:
                del self._kept[key]
            if answer.size > IN_MEMORY_BYTES:
                self._files -= 1
            self._room += answer.size
            self.replayed += 1
            return answer


class _RecordingReply:
    """The inner reply, passed on; what passes is written to a file, kept at close when whole."""

    def __init__(self, raw: Reply, key: _Key, guard: Guard, recordings: Recordings) -> None:
        self._raw = raw
        self._key = key
        self._guard = guard
        self._recordings = recordings
        self.status = raw.status
        self.headers: Mapping[str, str] = raw.headers
        # Closed at close(), or handed over to the Recordings that close it.
        self._file: IO[bytes] = recordings.spool()
        self._size = 0  # bytes written to the file (and reserved in the Recordings)
        self._inner: Iterator[bytes] | None = None  # the body as the consumer began it
        self._whole = False  # the body was read to its end
        self._spoilt = False  # too large to keep, cut by an error, or the file failed
        self._closed = False

    def header_lines(self, name: str) -> tuple[str, ...]:
        return self._raw.header_lines(name)

    def _write(self, chunk: bytes) -> None:
        if self._spoilt:
            return
        if not self._recordings._reserve(len(chunk)):
            self._spoilt = True
            return
        self._size += len(chunk)
        try:
            self._file.write(chunk)
        except OSError:  # no room for a temporary file, or no descriptor left: not kept
            self._spoilt = True

    def chunks(self, size: int, eager: bool = False) -> Iterator[bytes]:
        # Kept, so that what the consumer leaves unread may still be read on (`_drain`).
        self._inner = iter(self._raw.chunks(size, eager))
        try:
            for chunk in self._inner:
                self._write(chunk)
                yield chunk
        except FetchError:
            self._spoilt = True
            raise
        self._whole = True

    def _drain(self) -> None:
        """A body its reader left: none for a redirect never begun; the rest read on when its
        declared length is small and it comes at once."""
        if self._inner is None and redirect_location(self.status, self.headers) is not None:
            self._whole = True  # kept without a body, which the fetcher never reads
            return
        declared = self.headers.get("Content-Length", "").strip()
        if not (declared.isascii() and declared.isdigit()) or int(declared) > MAX_DRAIN_BYTES:
            return
        rest = self._inner if self._inner is not None else iter(self._raw.chunks(_CHUNK))
        read = self._size
        # A body that does not come at once (a server dripping it) is cut, as the fetch's own
        # deadline would cut it: the guard expires, and the walk asks again if it needs it.
        cut = threading.Timer(MAX_DRAIN_S, self._guard.expire)
        cut.daemon = True
        cut.start()
        try:
            for chunk in rest:
                read += len(chunk)
                if read > MAX_DRAIN_BYTES:
                    return
                self._guard.check()
                self._write(chunk)
            self._guard.check()
        except FetchError:
            return
        finally:
            cut.cancel()
        self._whole = not self._guard.expired

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            if not self._whole and not self._spoilt and not self._guard.expired:
                self._drain()
            lines = [(name, v) for name in self.headers for v in self._raw.header_lines(name)]
        except BaseException:
            self._drop()  # an interruption while reading on: nothing is kept
            raise
        finally:
            self._raw.close()
        # An expired guard may have cut a body sent without a length: it only looked whole.
        kept = self._whole and not self._spoilt and not self._guard.expired
        if not (kept and self._recordings._keep(self._key, _Kept(self.status, lines, self._file))):
            self._drop()

    def _drop(self) -> None:
        self._file.close()
        self._recordings._give_back(self._size)
        self._size = 0


class _Recording:
    def __init__(self, inner: Transport, recordings: Recordings) -> None:
        self._inner = inner
        self._recordings = recordings

    def send(self, request: Request, guard: Guard) -> Reply:
        raw = self._inner.send(request, guard)
        return _RecordingReply(raw, _key(request), guard, self._recordings)

    def close(self) -> None:
        self._inner.close()


class _ReplayedReply:
    def __init__(self, kept: _Kept, guard: Guard) -> None:
        self._kept = kept
        self._guard = guard
        self.status = kept.status
        self._headers = Headers(kept.lines)
        self.headers: Mapping[str, str] = self._headers

    def header_lines(self, name: str) -> tuple[str, ...]:
        return self._headers.lines(name)

    def chunks(self, size: int, eager: bool = False) -> Iterator[bytes]:
        body = self._kept.body
        while chunk := body.read(size):
            self._guard.check()
            yield chunk

    def close(self) -> None:
        self._kept.body.close()


class _Replaying:
    def __init__(self, inner: Transport, recordings: Recordings) -> None:
        self._inner = inner
        self._recordings = recordings

    def send(self, request: Request, guard: Guard) -> Reply:
        kept = self._recordings._take(_key(request))
        if kept is None:
            return self._inner.send(request, guard)
        guard.check()
        return _ReplayedReply(kept, guard)

    def close(self) -> None:
        self._inner.close()
