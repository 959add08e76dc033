"""The deep audit on a 500,000-URL site, beside the tools people use to walk sitemaps (issue 24, 5).

    make bench-deep                               # installs the peers into the venv, runs this
    .venv/bin/python bench/deep.py                # the site: 20 gzipped children of 25,000 URLs
    .venv/bin/python bench/deep.py --large        # and 10,000,000 URLs, the deep audit alone
    .venv/bin/python bench/deep.py --children 4 --per-child 2000 --no-write   # a quick look

A local site on 127.0.0.1 (robots.txt, an index, gzipped children, all generated into bench/out/,
which git ignores) is walked by three contenders, each in a process of its own, one after the
other: the deep audit through its command line (`python -m sitemap_auditor deep URL --json
--allow-private-networks`), ultimate-sitemap-parser's `sitemap_tree_for_homepage` and
advertools' `sitemap_to_df` on the site's robots.txt. Each process is timed from its start to its
exit (interpreter start and imports included, as a user waits for it); its CPU time and peak RSS
come from the kernel (wait4), and its RSS is sampled while it runs. A contender must find every
URL for its figures to count. Targets (TARGET_*): the deep audit's wall time at most a third of
the fastest peer's, its CPU a URL at most twice the bare floor's (gunzip, expat and
`datetime.fromisoformat` of every <lastmod>), its peak RSS at most a fifth of that peer's; the
large run (10 M URLs, children generated streaming) shows whether its memory stays flat.

The peers are not project dependencies: `make bench-deep` installs them into the venv for the
benchmark only. A peer that is not installed is skipped, and the report says so. The section of
bench/RESULTS.md between this script's markers is rewritten; the rest of the file is kept.
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import gzip
import importlib.metadata
import json
import os
import platform
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
OUT = BENCH / "out"
RESULTS = BENCH / "RESULTS.md"
BEGIN, END = "<!-- bench/deep.py: begin -->", "<!-- bench/deep.py: end -->"
# Each set of dates has a section of its own: the headline (a distinct timestamp per URL, as real
# sites write them) and the small set (one of 365 days, which a memo answers).
MARKS = {
    "real": (BEGIN, END),
    "small": (
        "<!-- bench/deep.py --dates small: begin -->",
        "<!-- bench/deep.py --dates small: end -->",
    ),
}
TITLES = {
    "real": "a distinct full timestamp per URL, the headline",
    "small": "one of 365 days per URL (`--dates small`), the second set",
}
RESULT_MARK = "BENCH-DEEP-RESULT "
COMMAND = "make bench-deep"

CHILDREN, PER_CHILD = 20, 25_000  # issue 24: 500,000 URLs
LARGE_CHILDREN, LARGE_PER_CHILD = 200, 50_000  # 10,000,000 URLs, each child at the protocol's cap
TARGET_SPEEDUP = 3.0  # fastest peer's wall time / the deep audit's, at least
TARGET_OVER_FLOOR = 2.0  # the deep audit's CPU a URL / the bare floor's, at most
TARGET_MEMORY_SHARE = 0.2  # the deep audit's peak RSS / that peer's, at most
DEDUPE_BOUND = 5_000_000  # sitemap_auditor.deep.checks.DEFAULT_MAX_DEDUPE_URLS (a test holds it)
CHILD_TIMEOUT_S = 3600.0
SAMPLE_S = 0.25
INDEX = "sitemap_index.xml"
BATCH = 1000  # entries formatted at once: the generator's memory does not grow with the site
GZIP_LEVEL = 6
FIRST_DAY = date(2025, 1, 1)
DAYS = 365
MIB = 1024 * 1024
URLSET_HEAD = b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
URLSET_TAIL = b"</urlset>\n"
INDEX_HEAD = b'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
INDEX_TAIL = b"</sitemapindex>\n"
ROBOTS = "User-agent: *\nDisallow: /private/\n\nSitemap: {base}/" + INDEX + "\n"


# --- the site -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Site:
    """What the generator wrote, as it counted while writing."""

    root: Path
    base: str
    children: tuple[str, ...]
    urls: int
    wire_bytes: int  # the index and the gzipped children, as served
    xml_bytes: int  # the same, uncompressed

    @property
    def robots_url(self) -> str:
        return f"{self.base}/robots.txt"

    def robots(self) -> bytes:
        return ROBOTS.format(base=self.base).encode()


def page_url(base: str, child: int, entry: int) -> str:
    return f"{base}/c{child}/p{entry}.html"


def _lastmods() -> list[str]:
    return [(FIRST_DAY + timedelta(days=d)).isoformat() for d in range(DAYS)]


_TWO_YEARS_S = 2 * 365 * 86_400
_OFFSETS = ("+01:00", "+02:00", "-05:00", "+05:30", "-08:00", "+09:00", "+00:00")


def real_lastmod(child: int, entry: int) -> str:
    """A distinct full timestamp per URL, as WordPress, Yoast, Shopify and Magento write them:
    70 % with a `+HH:MM` offset, 20 % in UTC with fractions of a second, 10 % a date alone,
    all within 2024 and 2025."""
    n = child * 1_000_003 + entry
    # Within two years before 2026, as a live site's are: none in the future.
    when = datetime(2024, 1, 1, tzinfo=UTC) + timedelta(seconds=(n * 37 + n % 13) % _TWO_YEARS_S)
    style = (entry * 7 + child) % 10
    if style < 7:
        return when.strftime("%Y-%m-%dT%H:%M:%S") + _OFFSETS[n % len(_OFFSETS)]
    if style < 9:
        return when.strftime("%Y-%m-%dT%H:%M:%S") + f".{n % 1000:03d}Z"
    return when.strftime("%Y-%m-%d")


def _lastmod(dates: str, days: list[str], child: int, entry: int) -> str:
    return real_lastmod(child, entry) if dates == "real" else days[(child * 7919 + entry) % DAYS]


def write_child(path: Path, base: str, child: int, entries: int, dates: str = "real") -> int:
    """Write one gzipped urlset, streaming; return its uncompressed size. dates: "real", a
    distinct timestamp per URL (real_lastmod), or "small", one of 365 days."""
    days = _lastmods()
    size = 0
    with gzip.open(path, "wb", compresslevel=GZIP_LEVEL) as out:
        out.write(URLSET_HEAD)
        size += len(URLSET_HEAD)
        for start in range(0, entries, BATCH):
            chunk = "".join(
                f"<url><loc>{page_url(base, child, j)}</loc>"
                f"<lastmod>{_lastmod(dates, days, child, j)}</lastmod></url>\n"
                for j in range(start, min(start + BATCH, entries))
            ).encode()
            out.write(chunk)
            size += len(chunk)
        out.write(URLSET_TAIL)
        size += len(URLSET_TAIL)
    return size


def index_xml(base: str, children: Sequence[str]) -> bytes:
    last = (FIRST_DAY + timedelta(days=DAYS - 1)).isoformat()
    body = "".join(
        f"<sitemap><loc>{base}/{name}</loc><lastmod>{last}</lastmod></sitemap>\n"
        for name in children
    )
    return INDEX_HEAD + body.encode() + INDEX_TAIL


def generate(root: Path, base: str, children: int, per_child: int, dates: str = "real") -> Site:
    """Write the site's index and gzipped children into root (whatever was there goes)."""
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    names = tuple(f"sitemap-{i:04d}.xml.gz" for i in range(children))
    xml_bytes = sum(
        write_child(root / name, base, i, per_child, dates) for i, name in enumerate(names)
    )
    index = index_xml(base, names)
    (root / INDEX).write_bytes(index)
    wire = len(index) + sum((root / name).stat().st_size for name in names)
    site = Site(root, base, names, children * per_child, wire, xml_bytes + len(index))
    manifest = {"base": base, "children": children, "perChild": per_child, "urls": site.urls}
    (root / "site.json").write_text(json.dumps(manifest), encoding="utf-8")
    return site


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


@contextmanager
def serving(folder: Path) -> Iterator[tuple[str, dict[str, bytes]]]:
    """Serve folder's files on 127.0.0.1 from disk; yields the base URL and the robots.txt slot.

    The port is known before any file is written, so the generator can write absolute URLs.
    """
    robots: dict[str, bytes] = {"body": b""}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            name = self.path.split("?", 1)[0].lstrip("/")
            if name == "robots.txt":
                self._head(200, "text/plain", len(robots["body"]))
                self.wfile.write(robots["body"])
                return
            path = folder / name
            if not name or "/" in name or name.startswith(".") or not path.is_file():
                self._head(404, "text/plain", 0)
                return
            kind = "application/gzip" if name.endswith(".gz") else "application/xml"
            self._head(200, kind, path.stat().st_size)
            with path.open("rb") as f:
                shutil.copyfileobj(f, self.wfile, 64 * 1024)

        def _head(self, status: int, kind: str, length: int) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(length))
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

    server = _Server(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", robots
    finally:
        server.shutdown()
        server.server_close()


# --- the contenders, each in a process of its own -----------------------------------------------


@dataclass(frozen=True)
class Contender:
    key: str
    label: str
    module: str | None  # a peer's module: its absence skips it
    dist: str | None  # its distribution, for the version


CONTENDERS = (
    Contender("deep", "sitemap-auditor deep", None, None),
    Contender(
        "usp",
        "ultimate-sitemap-parser `sitemap_tree_for_homepage`",
        "usp",
        "ultimate-sitemap-parser",
    ),
    Contender("advertools", "advertools `sitemap_to_df`", "advertools", "advertools"),
)
BY_KEY = {c.key: c for c in CONTENDERS}


def deep_command(site_url: str, extra: Sequence[str] = ()) -> list[str]:
    """The deep audit's command line, as a user runs it."""
    return [
        sys.executable,
        *("-m", "sitemap_auditor", "deep", site_url, "--json", "--allow-private-networks"),
        *extra,
    ]


def peer_command(key: str, site: Site) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--child", key, "--url", site.base]


def child_peer(key: str, base: str) -> None:
    """Run one peer over the site and print how many page URLs it found, as JSON."""
    import logging

    logging.disable(logging.CRITICAL)  # both log every sitemap they fetch
    start = time.perf_counter()
    if key == "usp":
        from usp.tree import sitemap_tree_for_homepage  # type: ignore[import-not-found,unused-ignore]

        tree = sitemap_tree_for_homepage(f"{base}/")
        urls = sum(1 for _ in tree.all_pages())
    elif key == "advertools":
        from advertools import sitemap_to_df  # type: ignore[import-untyped,import-not-found,unused-ignore]

        frame = sitemap_to_df(f"{base}/robots.txt")
        urls = int(frame["loc"].notna().sum()) if "loc" in frame else 0
    else:
        raise SystemExit(f"no peer {key!r}")
    result = {"urls": urls, "seconds": time.perf_counter() - start}
    print(RESULT_MARK + json.dumps(result), flush=True)


@dataclass
class Run:
    """One contender's process, as measured from outside."""

    key: str
    command: list[str]
    exit_code: int | None = None
    wall_s: float = 0.0
    cpu_s: float = 0.0
    peak_mib: float = 0.0
    samples: list[tuple[float, float]] = field(default_factory=list)  # (seconds, RSS MiB)
    helper_peak_mib: float = 0.0  # the largest VmHWM of a process it started (the helper)
    urls: int | None = None
    complete: bool | None = None
    stopped_by: str | None = None
    timed_out: bool = False
    error: str = ""
    walls: list[float] = field(default_factory=list)  # every run's, when it was run more than once
    limits: list[str] = field(default_factory=list)  # the deep audit's limit-reached messages

    @property
    def ok(self) -> bool:
        return self.exit_code is not None and not self.error and not self.timed_out


def _rss_mib(pid: int, field: str = "VmRSS") -> float | None:
    """A process's resident size (or its high-water mark, VmHWM) in MiB, from /proc."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return None


def _children(pid: int) -> list[int]:
    """The processes pid started that are still running (a peer's workers, say)."""
    found: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            found += [int(c) for c in (task / "children").read_text().split()]
    except (OSError, ValueError):
        pass
    return found


def measure(key: str, command: list[str], log: Path, timeout: float = CHILD_TIMEOUT_S) -> Run:
    """Run command in a process of its own: wall time, CPU and peak RSS from wait4, RSS samples."""
    run = Run(key, command)
    out_path, err_path = log.with_suffix(".out"), log.with_suffix(".err")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    with out_path.open("wb") as out, err_path.open("wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(command, stdout=out, stderr=err, cwd=ROOT, env=env)
        done = threading.Event()

        def sample() -> None:
            # The process's RSS every quarter second, its helper's with it; the helper's
            # high-water mark (VmHWM, which counts from its own start) more often, as it may
            # live less than a quarter second.
            ticks = 0
            while not done.wait(SAMPLE_S / 5):
                helpers = _children(proc.pid)
                for child in helpers:
                    hwm = _rss_mib(child, "VmHWM") or 0.0
                    run.helper_peak_mib = max(run.helper_peak_mib, hwm)
                ticks += 1
                if ticks % 5:
                    continue
                rss = _rss_mib(proc.pid)
                if rss is not None:
                    rss += sum(_rss_mib(child) or 0.0 for child in helpers)
                    run.samples.append((time.perf_counter() - start, rss))

        def stop() -> None:
            if not done.is_set():
                run.timed_out = True
                proc.kill()

        sampler = threading.Thread(target=sample, daemon=True)
        watchdog = threading.Timer(timeout, stop)
        sampler.start()
        watchdog.start()
        _, status, usage = os.wait4(proc.pid, 0)
        run.wall_s = time.perf_counter() - start
        done.set()
        watchdog.cancel()
        sampler.join()
        proc.returncode = run.exit_code = os.waitstatus_to_exitcode(status)
    run.cpu_s = usage.ru_utime + usage.ru_stime
    # KiB on Linux. wait4's figure is the largest of the process's and its children's (and a
    # child's counts what the fork copied before exec): a helper's own peak is added to it.
    run.peak_mib = usage.ru_maxrss / 1024 + run.helper_peak_mib
    read_answer(run, out_path.read_bytes(), err_path.read_text("utf-8", errors="replace"))
    return run


def read_answer(run: Run, stdout: bytes, stderr: str) -> None:
    """Fill in what the process found: the deep audit's document, or a peer's result line."""
    tail = " ".join(stderr.strip().splitlines()[-3:])[-300:]
    if run.timed_out:
        run.error = "stopped: it ran past its time"
        return
    if run.key == "deep":
        try:
            document = json.loads(stdout)
        except ValueError:
            document = None
        if not isinstance(document, dict) or document.get("format") != "sitemap-auditor-deep":
            run.error = (
                f"no deep-audit document on stdout (exit {run.exit_code}; the `deep` command is "
                f"not in this build?): {tail or 'no output'}"
            )
            return
        run.urls = int(document["totals"]["urls"])
        run.complete = bool(document["complete"])
        run.stopped_by = document.get("stoppedBy")
        run.limits = [
            str(f.get("message", ""))
            for f in document.get("findings", [])
            if isinstance(f, dict) and f.get("kind") == "limit-reached"
        ]
        return
    for line in stdout.decode("utf-8", errors="replace").splitlines():
        if line.startswith(RESULT_MARK):
            run.urls = int(json.loads(line[len(RESULT_MARK) :])["urls"])
            return
    run.error = f"no result (exit {run.exit_code}): {tail or 'no output'}"


def available(contender: Contender) -> bool:
    if contender.module is None:
        return True
    import importlib.util

    return importlib.util.find_spec(contender.module) is not None


# --- judging and the report ---------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    peer: str | None  # the fastest peer that found every URL
    speedup: float | None  # its wall time / the deep audit's
    memory_share: float | None  # the deep audit's peak RSS / its

    @property
    def fast(self) -> bool | None:
        return None if self.speedup is None else self.speedup >= TARGET_SPEEDUP

    @property
    def small(self) -> bool | None:
        return None if self.memory_share is None else self.memory_share <= TARGET_MEMORY_SHARE


def counts(run: Run, expected: int) -> bool:
    return run.ok and run.urls == expected


def judge(runs: dict[str, Run], expected: int) -> Verdict:
    peers = [r for k, r in runs.items() if k != "deep" and counts(r, expected)]
    if not peers:
        return Verdict(None, None, None)
    fastest = min(peers, key=lambda r: r.wall_s)
    deep = runs.get("deep")
    if deep is None or not counts(deep, expected):
        return Verdict(fastest.key, None, None)
    return Verdict(fastest.key, fastest.wall_s / deep.wall_s, deep.peak_mib / fastest.peak_mib)


def flatness(run: Run) -> str:
    """RSS at each quarter of the run (samples after start-up), as a user would watch it."""
    if not run.samples:
        return "no samples"
    total = run.samples[-1][0]
    marks = []
    for quarter in (0.25, 0.5, 0.75, 1.0):
        before = [rss for t, rss in run.samples if t <= total * quarter]
        marks.append(f"{before[-1]:.0f}" if before else "–")
    return " / ".join(marks) + " MiB"


def _yes(flag: bool | None) -> str:
    return "not judged" if flag is None else ("**met**" if flag else "**not met**")


def _found(run: Run, expected: int) -> str:
    if run.urls is None:
        return "–"
    mark = "" if run.urls == expected else " (**wrong**)"
    if run.complete is False:
        mark += f" (stopped: {run.stopped_by})"
    return f"{run.urls:,}{mark}"


def _versions() -> str:
    found = []
    for contender in CONTENDERS:
        if contender.dist is None:
            continue
        try:
            found.append(f"{contender.dist} {importlib.metadata.version(contender.dist)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{contender.dist} not installed")
    return ", ".join(found)


def runs_table(runs: dict[str, Run], expected: int) -> list[str]:
    lines = [
        "| contender | URLs found | wall s | CPU s | peak RSS MiB | RSS at each quarter | "
        "wall of each run |",
        "| --- | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    for key, run in runs.items():
        label = BY_KEY[key].label
        if not run.ok:
            lines.append(f"| {label} | – | – | – | – | not measured: {run.error} | |")
            continue
        lines.append(
            f"| {label} | {_found(run, expected)} | {run.wall_s:.1f} | {run.cpu_s:.1f} | "
            f"{run.peak_mib:.0f} | {flatness(run)} | "
            f"{', '.join(f'{w:.1f}' for w in run.walls) or '–'} |"
        )
    return lines


@dataclass(frozen=True)
class Report:
    site: Site
    runs: dict[str, Run]
    skipped: tuple[str, ...]
    large: tuple[Site, Run] | None
    started: datetime
    load: float  # the machine's one-minute load average when the run started
    generated: tuple[tuple[int, float, float], ...] = ()  # (URLs, seconds, this process's peak MiB)
    floor: Floor | None = None
    load_end: float | None = None  # the one-minute load average when the runs were over
    dates: str = "real"  # the set of <lastmod> values (TITLES)


@dataclass(frozen=True)
class Floor:
    """CPU seconds, in this process, of parsing the site's children alone (decompressed first)."""

    lambda_parser: float  # the Lambda's parser, as the handler runs it
    entry_events: float  # the deep audit's reading: every entry reported (in runs), no check
    bare_expat: float  # expat with no Python handler: what any reading by expat pays
    bare_iso: float  # gunzip + expat + datetime.fromisoformat of every <lastmod>: the floor
    dedupe: float  # the duplicate table taking every URL of the site, in runs of 700
    runs: int


def parse_floor(site: Site, runs: int = 2) -> Floor:
    """What parsing alone costs on this site: the part of the deep audit no check can save."""
    sys.path.insert(0, str(ROOT))
    from sitemap_auditor.core.parser import SitemapParser
    from sitemap_auditor.deep.reading.entries import EntryReader
    from sitemap_auditor.deep.seen import Duplicates

    def parse(make: Any) -> float:
        best = float("inf")
        for _ in range(runs):
            spent = 0.0
            for name in site.children:
                body = gzip.decompress((site.root / name).read_bytes())
                started = time.process_time()
                parser = make()
                for at in range(0, len(body), 64 * 1024):
                    parser.feed(body[at : at + 64 * 1024])
                parser.close()
                spent += time.process_time() - started
            best = min(best, spent)
        return best

    def nothing(*_entry: object) -> None:
        return None

    from xml.parsers import expat

    class Bare:
        """expat with no Python handler at all."""

        def __init__(self) -> None:
            self.p = expat.ParserCreate()

        def feed(self, data: bytes) -> None:
            self.p.Parse(data, False)

        def close(self) -> None:
            self.p.Parse(b"", True)

    def bare_iso() -> float:
        # The floor the issue names: gunzip, expat with a handler per element and every
        # <lastmod> through datetime.fromisoformat, timed with the gunzip.
        best = float("inf")
        for _ in range(runs):
            started = time.process_time()
            for name in site.children:
                body = gzip.decompress((site.root / name).read_bytes())
                p = expat.ParserCreate()
                p.buffer_text = True
                text: list[str] = []
                state = {"on": False}

                def start(
                    tag: str, _attrs: Any, text: list[str] = text, state: Any = state
                ) -> None:
                    if tag == "lastmod":
                        state["on"] = True
                        text.clear()

                def end(tag: str, text: list[str] = text, state: Any = state) -> None:
                    if tag == "lastmod":
                        state["on"] = False
                        with contextlib.suppress(ValueError):
                            datetime.fromisoformat("".join(text))

                def data(chunk: str, text: list[str] = text, state: Any = state) -> None:
                    if state["on"]:
                        text.append(chunk)

                p.StartElementHandler, p.EndElementHandler = start, end
                p.CharacterDataHandler = data
                p.Parse(body, True)
            best = min(best, time.process_time() - started)
        return best

    def dedupe() -> float:
        # As the checks ask it: a run of URLs at a time (Duplicates.add_all).
        best = float("inf")
        for _ in range(runs):
            seen = Duplicates()
            spent = 0.0
            for child in range(len(site.children)):
                per_child = site.urls // max(1, len(site.children))
                urls = [page_url(site.base, child, entry) for entry in range(per_child)]
                lines = list(range(len(urls)))
                started = time.process_time()
                for at in range(0, len(urls), 700):
                    seen.add_all(urls[at : at + 700], child, lines[at : at + 700], nothing)
                spent += time.process_time() - started
            best = min(best, spent)
        return best

    return Floor(
        parse(SitemapParser),
        parse(lambda: SitemapParser(EntryReader(nothing))),
        parse(Bare),
        bare_iso(),
        dedupe(),
        max(1, runs),
    )


def _floor_lines(report: Report, verdict: Verdict) -> list[str]:
    floor, deep = report.floor, report.runs.get("deep")
    if floor is None or deep is None or not deep.ok:
        return []
    peer = report.runs.get(verdict.peer) if verdict.peer else None
    rest_s = max(0.0, deep.cpu_s - floor.entry_events - floor.dedupe)
    urls = max(1, report.site.urls)
    over_floor = deep.cpu_s / floor.bare_iso if floor.bare_iso else 0.0
    lines = [
        f"Where the deep audit's time goes (CPU seconds in one process, the best of {floor.runs}, "
        f"the {len(report.site.children)} children decompressed beforehand): expat alone, with "
        f"no Python handler, reads every byte of them in {floor.bare_expat:.2f} s; the floor "
        "(gunzip, expat with a handler per element, every <lastmod> through "
        f"datetime.fromisoformat) takes {floor.bare_iso:.2f} s, "
        f"{floor.bare_iso / urls * 1e6:.1f} µs a URL; the deep audit's reading (every entry "
        f"reported, no check) takes {floor.entry_events:.2f} s, and the Lambda's parser in "
        f"{floor.lambda_parser:.2f} s; the duplicate table takes the site's URLs in "
        f"{floor.dedupe:.2f} s; the whole deep audit, its checks, fetches, start-up and the "
        f"Lambda's verdict included, used {deep.cpu_s:.2f} s of CPU "
        f"({deep.cpu_s / urls * 1e6:.1f} µs a URL, {over_floor:.1f}× the floor; the target is "
        f"{TARGET_OVER_FLOOR:g}×), so {rest_s:.2f} s are the other checks and the rest.\n",
    ]
    if peer is not None and verdict.fast is False:
        wanted = peer.wall_s / TARGET_SPEEDUP
        per_url_us = rest_s / max(1, report.site.urls) * 1e6
        lines.append(
            f"The speed target is not met, by {deep.wall_s / wanted:.1f}×: it wants "
            f"{wanted:.2f} s of wall time for everything. The reading alone takes "
            f"{floor.entry_events:.2f} s of CPU ({floor.entry_events / wanted:.1f}× the "
            "target); everything else about "
            f"{per_url_us:.1f} µs a URL. The deep audit's wall time is its CPU time, in one "
            "process: what is left would take the children read in parallel processes (at "
            f"most the machine's {os.cpu_count()} cores, shared here), each of which adds an "
            "interpreter and its imports to the peak RSS measured here (a sum of peaks) and its "
            "start-up to the CPU a URL, against the other two targets; or the reading outside "
            "Python. Neither is done.\n"
        )
    return lines


def render(report: Report) -> str:
    site = report.site
    verdict = judge(report.runs, site.urls)
    out = [
        MARKS[report.dates][0],
        f"## The deep audit on a 500,000-URL site, {TITLES[report.dates]} (`bench/deep.py`)\n",
        f"`{COMMAND}` on {report.started:%Y-%m-%d %H:%M} UTC; Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs shared with other work (load average {report.load:.1f} at the "
        f"start); peers: {_versions()}.\n",
        f"The site, on 127.0.0.1: robots.txt, an index of {len(site.children)} gzipped children "
        f"of {site.urls // max(1, len(site.children)):,} URLs ({site.urls:,} URLs; "
        f"{site.wire_bytes / MIB:.2f} MiB served, {site.xml_bytes / MIB:.1f} MiB of XML). "
        "Each contender runs alone in a process of its own, timed from start to exit (start-up "
        "and imports included, the auditor's modules compiled to bytecode first, as installing "
        "a package compiles the peers'); CPU is user + system time, the processes it started "
        "included (wait4); peak RSS is the kernel's high-water mark (wait4) plus that of any "
        "process it started (VmHWM, sampled every 50 ms), "
        "a sum of peaks, so never less than the peak of the sum; RSS was sampled every quarter "
        "second, a started process's with it. Each ran several times (last column); the figures "
        "are the fastest run's.\n",
        *runs_table(report.runs, site.urls),
        "",
    ]
    if report.skipped:
        out.append(f"Not installed, so not run: {', '.join(report.skipped)}.\n")
    peer = BY_KEY[verdict.peer].label if verdict.peer else "none that found every URL"
    speed = "–" if verdict.speedup is None else f"{verdict.speedup:.1f}×"
    share = "–" if verdict.memory_share is None else f"{verdict.memory_share:.2f}"
    out.append(
        f"Targets against the fastest peer that found every URL ({peer}): its wall time over the "
        f"deep audit's {speed}, at least {TARGET_SPEEDUP:.0f}× wanted ({_yes(verdict.fast)}); "
        f"the deep audit's peak RSS over its {share}, at most {TARGET_MEMORY_SHARE} wanted "
        f"({_yes(verdict.small)}).\n"
    )
    fastest = report.runs.get(verdict.peer) if verdict.peer else None
    if fastest is not None:
        out.append(
            f"So the deep audit meets them at {fastest.wall_s / TARGET_SPEEDUP:.2f} s of wall "
            f"time or less and {fastest.peak_mib * TARGET_MEMORY_SHARE:.0f} MiB of peak RSS or "
            "less, on this site, on this machine.\n"
        )
    out.extend(_floor_lines(report, verdict))
    if report.load_end is not None:
        out.append(
            f"The machine is shared with other work: load average {report.load:.1f} at the "
            f"start and {report.load_end:.1f} at the end, on {os.cpu_count()} CPUs. Wall and CPU "
            "times both vary with it (the cores are shared), by the amounts the last column "
            "shows from run to run.\n"
        )
    if report.large is not None:
        big, run = report.large
        small = report.runs.get("deep")
        out.append(
            f"Larger: {big.urls:,} URLs in {len(big.children)} gzipped children "
            f"({big.wire_bytes / MIB:.0f} MiB served, {big.xml_bytes / MIB:.0f} MiB of XML), "
            "the deep audit alone:\n"
        )
        out.extend(runs_table({"deep": run}, big.urls))
        out.append("")
        if run.ok and small is not None and small.ok:
            held = min(big.urls, DEDUPE_BOUND)
            growth = (run.peak_mib - small.peak_mib) * MIB / max(1, held - site.urls)
            out.append(
                f"Peak RSS {small.peak_mib:.0f} MiB for {site.urls:,} URLs, {run.peak_mib:.0f} "
                f"MiB for {big.urls:,}. The duplicate table holds the first {held:,} URLs "
                f"(its bound is {DEDUPE_BOUND:,}): {growth:.1f} bytes more a URL up to there. "
                "The table is 16 MiB at first, then at most 32 bytes a URL at rest "
                "(sitemap_auditor/deep/seen.py); the peak also catches the moment it grows, "
                "when the old table and the new one, half as large again, are both alive. "
                "Past the bound only the records of the files grow (the quarters column).\n"
            )
        if run.limits:
            out.append(
                "The larger run's limits, as its document says them: "
                + " ".join(run.limits)
                + " So past that point its memory is flat by the table's bound, not by "
                "finding every duplicate.\n"
            )
    if report.generated:
        made = "; ".join(
            f"{urls:,} URLs in {seconds:.1f} s (the generating process's peak RSS so far "
            f"{peak:.0f} MiB)"
            for urls, seconds, peak in report.generated
        )
        out.append(f"The sites were generated streaming, a thousand entries at a time: {made}.\n")
    out.append(MARKS[report.dates][1])
    return "\n".join(out) + "\n"


def write_section(text: str, path: Path = RESULTS, dates: str = "real") -> None:
    """Replace this script's section of the file (or add it at the end); keep the rest."""
    current = path.read_text(encoding="utf-8") if path.exists() else ""
    begin, end = MARKS[dates]
    if begin in current and end in current:
        head, rest = current.split(begin, 1)
        tail = rest.split(end, 1)[1]
        path.write_text(head + text.rstrip("\n") + tail, encoding="utf-8")
    else:
        path.write_text(current.rstrip("\n") + "\n\n" + text, encoding="utf-8")


# --- the run ------------------------------------------------------------------------------------


def _own_peak_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def compile_package() -> None:
    """Compile the auditor's modules to bytecode, as pip does when it installs a package (the
    peers' were, in site-packages); the runs themselves write none."""
    compileall.compile_dir(ROOT / "sitemap_auditor", quiet=1)


def best_of(key: str, command: list[str], log: Path, runs: int) -> Run:
    """Run it `runs` times (stopping at a failure); keep the fastest, with every wall time."""
    tries: list[Run] = []
    for _ in range(max(1, runs)):
        tries.append(measure(key, command, log))
        if not tries[-1].ok:
            return tries[-1]
    best = min(tries, key=lambda r: r.wall_s)
    best.walls = [r.wall_s for r in tries] if len(tries) > 1 else []
    return best


def run_site(
    children: int,
    per_child: int,
    keys: Sequence[str],
    extra: Sequence[str],
    log: Any,
    runs: int = 1,
    dates: str = "real",
) -> tuple[Site, dict[str, Run], tuple[int, float, float]]:
    folder = OUT / f"deep-{children * per_child}-{dates}"
    with serving(folder) as (base, robots):
        started = time.perf_counter()
        site = generate(folder, base, children, per_child, dates)
        robots["body"] = site.robots()
        generated = (site.urls, time.perf_counter() - started, _own_peak_mib())
        print(f"generated {site.urls:,} URLs in {time.perf_counter() - started:.1f} s", file=log)
        results: dict[str, Run] = {}
        compile_package()
        for key in keys:
            if key == "deep":
                command = deep_command(site.base + "/", extra)
            else:
                command = peer_command(key, site)
            print(f"running {key} ...", file=log, flush=True)
            run = results[key] = best_of(key, command, folder / f"{key}.log", runs)
            print(
                f"  {key}: {run.urls} URLs, {run.wall_s:.1f} s wall, {run.cpu_s:.1f} s CPU, "
                f"{run.peak_mib:.0f} MiB peak {run.error}",
                file=log,
                flush=True,
            )
    return site, results, generated


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--children", type=int, default=CHILDREN)
    parser.add_argument("--per-child", type=int, default=PER_CHILD)
    parser.add_argument("--large", action="store_true", help="also 10 M URLs, the deep audit only")
    parser.add_argument("--large-children", type=int, default=LARGE_CHILDREN)
    parser.add_argument("--large-per-child", type=int, default=LARGE_PER_CHILD)
    parser.add_argument("--skip-peers", action="store_true")
    parser.add_argument(
        "--dates",
        choices=("real", "small"),
        default="real",
        help="real: a distinct full timestamp per URL (the headline); small: one of 365 days",
    )
    parser.add_argument("--runs", type=int, default=3, help="runs of each, the fastest kept")
    parser.add_argument("--no-write", action="store_true", help="print, leave RESULTS.md alone")
    parser.add_argument(
        "--no-floor", action="store_true", help="skip timing the parser alone on the site"
    )
    parser.add_argument(
        "--deep-arg", action="append", default=[], help="passed on to the deep audit (repeatable)"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child_peer(args.child, args.url)
        return 0
    log = sys.stderr
    started = datetime.now(UTC)
    keys = [c.key for c in CONTENDERS if c.key == "deep" or (not args.skip_peers and available(c))]
    skipped = tuple(c.label for c in CONTENDERS if c.key not in keys and not args.skip_peers)
    load = os.getloadavg()[0]
    site, runs, generated = run_site(
        args.children, args.per_child, keys, args.deep_arg, log, args.runs, args.dates
    )
    made = [generated]
    large = None
    if args.large:
        big, big_runs, big_generated = run_site(
            args.large_children, args.large_per_child, ["deep"], args.deep_arg, log, 1, args.dates
        )
        large = (big, big_runs["deep"])
        made.append(big_generated)
    floor = None if args.no_floor else parse_floor(site)
    report = Report(
        site,
        runs,
        skipped,
        large,
        started,
        load,
        tuple(made),
        floor,
        os.getloadavg()[0],
        args.dates,
    )
    text = render(report)
    print(text)
    figures = {k: {**vars(r), "samples": r.samples[-400:]} for k, r in runs.items()}
    (OUT / "deep-results.json").write_text(json.dumps(figures, indent=1), encoding="utf-8")
    if not args.no_write:
        write_section(text, dates=args.dates)
        print("wrote the deep audit's section of bench/RESULTS.md", file=log)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
