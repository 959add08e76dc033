"""Coverage-guided fuzzing of the code that reads hostile bytes, for a bounded time per target.

The fuzzer is atheris (libFuzzer for Python): each target runs in a child process,
`python tests/property/test_fuzz.py <target> <corpus dirs> -max_total_time=N`, with
sitemap_auditor's bytecode instrumented for coverage. A crash fails the test with the input that
caused it.

Targets (what counts as a crash):
- parser: SitemapParser.feed/close over the input cut into chunks; any exception, an answer that
  depends on the chunking, or samples over their caps.
- gzip: decoding.peel_gzip, the sniffing and bounded decompression; any exception other than
  FetchError, more than the 50 MB cap out, or an answer that depends on the chunking.
- robots: robots.sitemap_urls; any exception, a URL that is not http(s), a duplicate, more than
  100 URLs, or an issue over 500 characters.
- lastmod: lastmod.parse_lastmod; any exception, an instant not in UTC, or a parsed instant whose
  formatted form does not parse back to the same second.

Seeds come from tests/corpus (real sitemaps and robots.txt files) and tests/fuzz_corpus/<target>
(inputs a longer run found worth keeping, see its README). New inputs go to a temporary
directory, never to the checkout. SITEMAP_FUZZ_SECONDS sets the time per target (default 10).
Without atheris installed the tests are skipped.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

HERE = Path(__file__).resolve().parents[1]
CORPUS = HERE / "corpus"
KEPT = HERE / "fuzz_corpus"
FUZZ_SECONDS = int(os.environ.get("SITEMAP_FUZZ_SECONDS", "10"))
# Small inputs find the bugs and keep each run fast (a 1-byte chunking of 16 KB is 16,384 feeds).
MAX_LEN = {"parser": 16_384, "gzip": 8_192, "robots": 8_192, "lastmod": 128}
TARGETS = tuple(MAX_LEN)
CHUNK_SIZES = (1, 2, 3, 5, 8, 13, 64, 512, 4096, 1 << 30)


# --- the targets (run in the child process, with the package instrumented) ----------------------

_modules: dict[str, ModuleType] = {}


def _chunks(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)] or [b""]


def _parser_answer(chunks: list[bytes]) -> Any:
    parser = _modules["parser"]
    p = parser.SitemapParser()
    for chunk in chunks:
        p.feed(chunk)
    return p.close()


def parser_target(data: bytes) -> None:
    """Feed a document in chunks chosen by its first byte; compare with feeding it whole."""
    if not data:
        return
    parser = _modules["parser"]
    size, doc = CHUNK_SIZES[data[0] % len(CHUNK_SIZES)], data[1:]
    split = _parser_answer(_chunks(doc, size))
    whole = _parser_answer([doc])
    if isinstance(whole, parser.ParsedSitemap):
        assert len(whole.unparsable_samples) <= parser.MAX_UNPARSABLE_SAMPLES
        assert all(len(s) <= parser.MAX_SAMPLE_CHARS for s in whole.unparsable_samples)
    # Where and how an invalid byte sequence is reported can depend on the chunking, a known bug
    # (property/test_properties.py::test_the_error_position_does_not_depend_on_the_chunking).
    assert _comparable(split) == _comparable(whole), (whole, split)


def _comparable(answer: Any) -> Any:
    reason = getattr(answer, "reason", "")
    return "not well-formed XML" if reason.startswith("not well-formed XML") else answer


def _peeled(chunks: list[bytes]) -> tuple[str, int, str]:
    decoding = _modules["decoding"]
    digest = hashlib.sha256()
    total = 0
    try:
        for chunk in decoding.peel_gzip(chunks, layers=decoding.MAX_SNIFFED_GZIP_LAYERS):
            total += len(chunk)
            digest.update(chunk)
    except decoding.FetchError as e:
        return (e.kind, total, "")
    assert total <= decoding.MAX_BODY_BYTES
    return ("ok", total, digest.hexdigest())


def gzip_target(data: bytes) -> None:
    """Peel gzip layers from the input in chunks chosen by its first byte, and whole."""
    if not data:
        return
    size, body = CHUNK_SIZES[data[0] % len(CHUNK_SIZES)], data[1:]
    whole = _peeled([body])
    split = _peeled(_chunks(body, size))
    # A FetchError may come after a different number of bytes; its kind may not differ.
    assert (whole[0], whole[2]) == (split[0], split[2]), (whole, split)
    if whole[0] == "ok":
        assert whole[1] == split[1]


ROBOTS_URL = "https://www.ex.com/robots.txt"
FINAL_URLS = (ROBOTS_URL, "https://cdn.ex.com/seo/live/robots.txt", "http://[::1]:8080/r.txt")


def robots_target(data: bytes) -> None:
    """Read Sitemap: lines from the input; flags (truncated, final URL) from its first byte."""
    if not data:
        return
    robots = _modules["robots"]
    truncated = bool(data[0] & 1)
    final_url = FINAL_URLS[(data[0] >> 1) % len(FINAL_URLS)]
    found = robots.sitemap_urls(data[1:], final_url, ROBOTS_URL, truncated)
    assert len(found.urls) <= robots.MAX_CANDIDATES
    assert len(set(found.urls)) == len(found.urls)
    for url in found.urls:
        assert url.lower().startswith(("http://", "https://")) and url.isascii(), url
    for issue in found.issues:
        assert issue.startswith(ROBOTS_URL + ": ") and len(issue) <= 500, issue


def lastmod_target(data: bytes) -> None:
    """Parse the input as a <lastmod>; what parses must format and parse back to its second."""
    lastmod = _modules["lastmod"]
    text = data.decode("utf-8", errors="replace")
    parsed = lastmod.parse_lastmod(text)
    if parsed is None:
        return
    assert parsed.utcoffset().total_seconds() == 0
    formatted = lastmod.format_instant(parsed)
    assert lastmod.parse_lastmod(formatted) == parsed.replace(microsecond=0), (text, formatted)


TARGET_FUNCTIONS: dict[str, Callable[[bytes], None]] = {
    "parser": parser_target,
    "gzip": gzip_target,
    "robots": robots_target,
    "lastmod": lastmod_target,
}


def main(argv: list[str]) -> None:
    """Child process: `test_fuzz.py <target> [libFuzzer arguments and corpus directories]`."""
    import atheris

    target = argv[1]
    with atheris.instrument_imports(include=["sitemap_auditor"]):
        from sitemap_auditor.core import lastmod, parser, robots
        from sitemap_auditor.fetching import decoding

    _modules.update(parser=parser, decoding=decoding, robots=robots, lastmod=lastmod)
    # libFuzzer runs its program again through the shell for -merge and -fork: name it as a
    # command line that brings the target along.
    program = shlex.join([sys.executable, str(Path(__file__).resolve()), target])
    atheris.Setup([program, *argv[2:]], TARGET_FUNCTIONS[target])
    atheris.Fuzz()


# --- the tests (run by pytest: one bounded fuzzing run per target) ------------------------------


def _seed(target: str, into: Path) -> None:
    """Copy the seeds of a target into a directory the fuzzer may add to."""
    into.mkdir(parents=True)
    kept = KEPT / target
    if kept.is_dir():
        for f in kept.iterdir():
            if f.is_file():
                shutil.copy(f, into / f.name)
    real = [
        f
        for f in sorted(CORPUS.iterdir())
        if f.suffix in (".xml", ".txt") and f.stat().st_size <= MAX_LEN["parser"]
    ]
    for f in real:
        data = f.read_bytes()
        if target == "parser" and f.suffix == ".xml":
            (into / f"real-{f.stem}").write_bytes(bytes([9]) + data)  # 9: fed whole
            (into / f"real-{f.stem}-7").write_bytes(bytes([7]) + data)  # in 512-byte chunks
        elif target == "robots" and f.suffix == ".txt":
            (into / f"real-{f.stem}").write_bytes(b"\x00" + data)
        elif target == "gzip" and len(data) < 4096:
            (into / f"real-{f.stem}.gz").write_bytes(b"\x06" + gzip.compress(data, mtime=0))
    if target == "lastmod":
        for value in ("2026", "2026-10", "2026-10-16", "2026-10-16T09:30:15.5+02:00"):
            (into / f"seed-{value}").write_bytes(value.encode())


@pytest.mark.slow
@pytest.mark.parametrize("target", TARGETS)
def test_fuzz(target: str, tmp_path: Path) -> None:
    pytest.importorskip("atheris", reason="the fuzzer (pip install atheris) is not installed")
    corpus = tmp_path / "corpus"
    _seed(target, corpus)
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        target,
        str(corpus),
        f"-max_total_time={FUZZ_SECONDS}",
        # A fixed seed by default, so a run can be repeated; SITEMAP_FUZZ_SEED=0 picks one anew.
        f"-seed={os.environ.get('SITEMAP_FUZZ_SEED', '1')}",
        f"-max_len={MAX_LEN[target]}",
        f"-artifact_prefix={artifacts}/",
        "-timeout=20",
        "-rss_limit_mb=2048",
        "-print_final_stats=1",
    ]
    run = subprocess.run(
        command,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=FUZZ_SECONDS + 120,
        cwd=tmp_path,
    )
    found = sorted(artifacts.iterdir())
    crashes = "\n".join(f"{f.name}: {f.read_bytes()[:400]!r}" for f in found)
    assert run.returncode == 0 and not found, (
        f"fuzzer {target} failed (exit {run.returncode}):\n{crashes}\n"
        f"{run.stdout[-6000:]}\n{run.stderr[-3000:]}"
    )
    assert "Done" in run.stderr and "stat::number_of_executed_units" in run.stderr, run.stderr


if __name__ == "__main__":
    main(sys.argv)
