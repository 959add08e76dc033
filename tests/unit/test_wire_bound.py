"""What an answer may send after its head, counted on the socket's file (fetching/wire_bound.py):
pure, over an in-memory buffered reader."""

from __future__ import annotations

import io

import pytest

from sitemap_auditor.core.errors import FetchError, FetchErrorKind
from sitemap_auditor.fetching.wire_bound import MAX_WIRE_LINES, WireBound


def _file(data: bytes) -> io.BufferedReader:
    return io.BufferedReader(io.BytesIO(data))


def test_every_way_of_reading_counts_and_a_read_to_the_end_comes_whole() -> None:
    data = b"5\r\nhello\r\n" * 10_000
    wire = WireBound(_file(data), limit=len(data))
    got = wire.readline() + wire.read(5) + wire.read1(2)
    buffer = bytearray(10)
    got += bytes(buffer[: wire.readinto(buffer)])
    assert got + wire.read() == data


@pytest.mark.parametrize("how", ["read", "read1", "readinto", "readline", "read-all"])
def test_one_byte_past_the_limit_fails_the_fetch(how: str) -> None:
    wire = WireBound(_file(b"x" * 100 + b"\n"), limit=50)
    with pytest.raises(FetchError) as failed:
        for _ in range(10):
            if how == "readinto":
                wire.readinto(bytearray(20))
            elif how == "read-all":
                wire.read()
            else:
                getattr(wire, how)(20)
    assert failed.value.kind is FetchErrorKind.PROTOCOL


def test_only_a_run_of_lines_with_no_data_between_them_is_bounded() -> None:
    # A chunk's size line, then its data: as many chunks as a body has. Trailer lines: a run.
    chunks = b"1\r\nx\r\n" * (3 * MAX_WIRE_LINES)
    wire = WireBound(_file(chunks + b"X-T: a\r\n" * (MAX_WIRE_LINES + 5)))
    for _ in range(3 * MAX_WIRE_LINES):
        assert wire.readline() == b"1\r\n"
        assert wire.read(3) == b"x\r\n"
    with pytest.raises(FetchError, match="lines in a row"):
        while True:
            wire.readline()


def test_a_read_to_the_end_holds_what_came_not_the_limit() -> None:
    # A buffered reader given a size allocates all of it first: read(-1) asked for the bound
    # (100 MiB) to read a 1 KB rest.
    import tracemalloc

    wire = WireBound(_file(b"x" * 1024))
    tracemalloc.start()
    try:
        assert wire.read() == b"x" * 1024
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1024 * 1024
