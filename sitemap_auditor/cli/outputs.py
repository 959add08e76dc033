"""Where the command's reports go: colour only on a terminal, and the deep audit's files checked
before the walk (a path that cannot be written is a usage error at once, not a traceback after
an hour of reading)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import IO

__all__ = [
    "colour_enabled",
    "file_problem",
    "folder_problem",
    "gone",
    "to_reader",
    "write_whole",
]


def colour_enabled(stream: IO[str]) -> bool:
    """Colour on stream: on a terminal, unless NO_COLOR is set to a value (https://no-color.org:
    whatever the value; set but empty does not count)."""
    if os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


@contextlib.contextmanager
def to_reader(stream: IO[str]) -> Iterator[None]:
    """Writes to stream, whose reader may have gone (a pipe into `head`): a BrokenPipeError ends
    them quietly, and the stream writes nowhere from then on (`gone`)."""
    try:
        yield
    except BrokenPipeError:
        gone(stream)


def write_whole(stream: IO[str], text: str) -> None:
    """Write text to stream whole, and flush it.

    An unbuffered stream (`python -u`, PYTHONUNBUFFERED) is a text layer over the raw file,
    which makes one write(2) of the text and drops what that call did not take: a signal that
    arrives while a pipe's reader is slow ends such a call early, and the command, which holds
    signals until its report is written, would end with the report cut. So the text goes to
    the binary layer, in as many writes as it takes. (A BrokenPipeError still ends it:
    `to_reader`.)"""
    buffer = getattr(stream, "buffer", None)
    encoding = getattr(stream, "encoding", None)
    if buffer is None or not isinstance(encoding, str) or os.linesep != "\n":
        stream.write(text)
        stream.flush()
        return
    stream.flush()  # what the text layer holds goes first
    data = memoryview(text.encode(encoding, getattr(stream, "errors", None) or "strict"))
    while data:
        taken = buffer.write(data)
        if taken is None:  # a stream set not to block, which a write could not fill
            raise BlockingIOError("standard output would block")
        data = data[taken:]
    buffer.flush()


def gone(stream: IO[str]) -> None:
    """Send what stream still holds, and all it is given later, nowhere: its reader is gone, and
    neither the command's later writes nor the interpreter's flush at exit may fail on it."""
    with contextlib.suppress(OSError, ValueError):  # no file descriptor (a StringIO), say
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, stream.fileno())
        finally:
            os.close(devnull)


def file_problem(path: str) -> str | None:
    """Why a file cannot be written at path (made or replaced), or None. Nothing is made."""
    if os.path.isdir(path):
        return "it is a folder"
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"no such folder: {folder}"
    if os.path.exists(path):
        return None if os.access(path, os.W_OK) else "permission denied"
    return None if os.access(folder, os.W_OK | os.X_OK) else f"permission denied in {folder}"


def folder_problem(path: str) -> str | None:
    """Why files cannot be written into the folder path, or None; the folder is made when it
    is missing (its reports would make it anyway)."""
    try:
        os.makedirs(path, exist_ok=True)
    except FileExistsError:
        return "it is a file, not a folder"
    except OSError as e:
        return e.strerror or str(e)
    if not os.access(path, os.W_OK | os.X_OK):
        return "permission denied"
    return None
