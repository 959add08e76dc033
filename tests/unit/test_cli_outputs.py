"""Where the command's reports go: written whole, whatever a stream's layers do with a write."""

from __future__ import annotations

import io

from sitemap_auditor.cli.outputs import write_whole


class ShortWrites(io.RawIOBase):
    """A pipe whose every write(2) takes at most `most` bytes, as one a signal ends early does
    while its reader is slow."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.got = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, data: object) -> int:
        taken = bytes(memoryview(data))[: self.most]  # type: ignore[arg-type]
        self.got += taken
        return len(taken)


def unbuffered(raw: ShortWrites) -> io.TextIOWrapper:
    """Standard output as `python -u` or PYTHONUNBUFFERED makes it: a text layer over the raw
    file, writing through."""
    return io.TextIOWrapper(raw, encoding="utf-8", write_through=True)  # type: ignore[arg-type]


def test_an_unbuffered_stream_drops_what_a_short_write_left() -> None:
    # Why write_whole exists: the text layer makes one write of it and drops the rest.
    raw = ShortWrites(4096)
    unbuffered(raw).write("x" * 100_000)
    assert len(raw.got) == 4096


def test_a_report_is_written_whole_through_short_writes() -> None:
    raw = ShortWrites(4096)
    stream = unbuffered(raw)
    text = '{"café": "' + "é" * 50_000 + '"}\n'
    stream.write("before\n")
    write_whole(stream, text)
    assert raw.got.decode("utf-8") == "before\n" + text


def test_a_stream_of_text_only_is_written_as_text() -> None:
    stream = io.StringIO()
    write_whole(stream, "report\n")
    assert stream.getvalue() == "report\n"
