"""Benchmark of sharing (docs/contract.md §7): 100 simultaneous audits of one site, on and off.

    make bench-share                # = .venv/bin/python bench/share.py
    .venv/bin/python bench/share.py --runs 1 --no-write     # a quicker look

A site on 127.0.0.1 serves robots.txt and one ~20 MB urlset sitemap with fresh lastmods (plain,
then gzipped as sitemap.xml.gz), counting the body bytes it sends; moto's DynamoDB server on
127.0.0.1 is the shared table. 100 audits run as 4 processes ("containers",
harness/share_worker.py) of 25 threads each, all from one start time, each invocation with
a 120 s time budget: with sharing on (SITEMAP_SHARE_SECONDS=60 and the table) and off
(SITEMAP_SHARE_SECONDS=0). A lone audit (one process, one audit, sharing off) is the yardstick
of the slowest audit; a lone audit with sharing on shows what the store calls alone add. The
containers' init (the handler's import) is timed apart. Prints the markdown section and writes
it into bench/RESULTS.md, between its markers; its prose is in bench/share_report.md.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
# The report's prose, in one template.
TEMPLATE = BENCH / "share_report.md"
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

import corpora  # noqa: E402
import report  # noqa: E402
import run  # noqa: E402

from harness import moto_atomic, servers  # noqa: E402
from harness.containers import Container  # noqa: E402
from harness.environments import REGION, container_environment  # noqa: E402
from sitemap_auditor.sharing import lease  # noqa: E402

COMMAND = "make bench-share"
COMMAND_RAW = ".venv/bin/python bench/share.py"
BEGIN = "<!-- bench/share.py: begin -->"
END = "<!-- bench/share.py: end -->"

SITEMAP_BYTES = 20_000_000
PROCESSES = 4
THREADS = 25
BUDGET_MS = 120_000
SHARE_SECONDS = 60
RUNS = 3
# Containers are started this long before the common start time: interpreter, imports and, for
# warm containers, one audit of another site must be done by then (checked: a late one is said).
START_DELAY_S = 8.0
RUN_TIMEOUT_S = 400.0
# Targets of the project's issue.
TARGET_BYTES = 50.0  # bytes served with sharing off / with sharing on, at least
TARGET_CPU = 50.0  # CPU-seconds off / on, at least
TARGET_SLOWEST = 1.2  # slowest shared audit / lone audit, at most
# Imports of the handler timed per configuration (a fresh process each), for the init cost.
INIT_SAMPLES = 5


# --- the site ----------------------------------------------------------------------------------


def fresh_lastmod(now: datetime) -> Any:
    """W3C Datetime values of the common forms, all within the last five days."""

    def value(rng: random.Random, _i: int) -> str:
        t = now - timedelta(seconds=rng.randrange(86_400, 5 * 86_400))
        r = rng.random()
        if r < 0.25:
            return t.date().isoformat()
        if r < 0.6:
            return t.strftime("%Y-%m-%dT%H:%M:%SZ")
        if r < 0.85:
            return (t + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%S+02:00")
        return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{rng.randrange(1000):03d}Z"

    return value


def write_sitemaps(folder: Path, target: int) -> tuple[Path, Path, Path, int]:
    """A urlset of about target bytes of fresh lastmods, its gzip, a 5-URL sitemap; entries."""
    now = datetime.now(UTC)
    big = folder / "sitemap.xml"
    entries = 0
    with big.open("w", encoding="utf-8", newline="\n", buffering=1 << 20) as f:
        size = f.write(corpora.HEAD_URLSET)
        for entry in corpora.urlset_entries(10**7, 20, fresh_lastmod(now), True):
            size += len(entry)  # ASCII: characters are bytes
            f.write(entry)
            entries += 1
            if size + len(corpora.TAIL_URLSET) >= target:
                break
        f.write(corpora.TAIL_URLSET)
    packed = folder / "sitemap.xml.gz"
    with big.open("rb") as src, gzip.open(packed, "wb", compresslevel=6) as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    tiny = folder / "tiny.xml"
    rng = random.Random(5)
    lastmod = fresh_lastmod(now)
    tiny.write_text(
        corpora.HEAD_URLSET
        + "".join(
            f"<url><loc>https://example.com/{i}</loc><lastmod>{lastmod(rng, i)}</lastmod></url>\n"
            for i in range(5)
        )
        + corpora.TAIL_URLSET,
        encoding="utf-8",
    )
    return big, packed, tiny, entries


class Site:
    """robots.txt naming one file, that file sent from disk; body bytes counted per path."""

    def __init__(self, sitemap: Path) -> None:
        self.sitemap = sitemap
        self.lock = threading.Lock()
        self.bytes: Counter[str] = Counter()
        self.requests: Counter[str] = Counter()
        self.started: list[float] = []  # time.time() of each sitemap request
        self.loopback = servers.Site().start()
        self.base = self.loopback.base
        path = "/" + sitemap.name
        robots_body = f"User-agent: *\nSitemap: {self.base}/{sitemap.name}\n".encode()
        robots = servers.reply(robots_body, content_type="text/plain")
        kind = "application/gzip" if sitemap.name.endswith(".gz") else "application/xml"
        send_file = servers.file(sitemap, kind, lambda n: self.count(path, n))

        def robots_route(h: BaseHTTPRequestHandler) -> None:
            with self.lock:
                self.requests["/robots.txt"] += 1
            robots(h)
            self.count("/robots.txt", len(robots_body))

        def sitemap_route(h: BaseHTTPRequestHandler) -> None:
            with self.lock:
                self.requests[path] += 1
                self.started.append(time.time())
            send_file(h)

        self.loopback.route("/robots.txt", robots_route)
        self.loopback.route(path, sitemap_route)

    def count(self, path: str, n: int) -> None:
        with self.lock:
            self.bytes[path] += n

    def reset(self) -> None:
        with self.lock:
            self.bytes.clear()
            self.requests.clear()
            self.started.clear()
        self.loopback.seen.clear()

    def stop(self) -> None:
        self.loopback.stop()


# --- the table and the containers ---------------------------------------------------------------


@contextmanager
def moto_dynamodb() -> Iterator[tuple[str, Any]]:
    """moto's server, in a process of its own with atomic conditional writes as DynamoDB's
    (harness/moto_atomic.py), on a free port of 127.0.0.1; yields its URL and a client."""
    import boto3

    with moto_atomic.running() as endpoint:
        client = boto3.session.Session(
            aws_access_key_id="testing", aws_secret_access_key="testing", region_name=REGION
        ).client("dynamodb", endpoint_url=endpoint)
        yield endpoint, client


def container_env(endpoint: str, table: str, share_seconds: int) -> dict[str, str]:
    """The function's environment as deployed, pointed at the local table, private IPs allowed."""
    return container_environment(endpoint, table, share_seconds=share_seconds, namespace="bench")


INIT_CODE = """
import json, resource, sys, time
r0 = resource.getrusage(resource.RUSAGE_SELF)
t0 = time.perf_counter()
import sitemap_auditor.handler
t1 = time.perf_counter()
r1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
print(json.dumps({"wall_s": t1 - t0, "cpu_s": cpu, "boto3": "boto3" in sys.modules}))
"""


@dataclass
class Init:
    """What importing the handler (Lambda's init phase) cost one container, alone on the machine."""

    wall_s: list[float]
    cpu_s: list[float]
    boto3: bool

    @property
    def cpu(self) -> float:
        return statistics.median(self.cpu_s)


def init_cost(endpoint: str, shared: bool, samples: int) -> Init:
    """Time `import sitemap_auditor.handler` in fresh processes with the containers' environment.

    The processes start one after another, not four at once as the containers do, so the wall
    times are those of a container alone; the CPU times hold either way.
    """
    env = container_env(endpoint, "init-table", SHARE_SECONDS if shared else 0)
    walls, cpus, boto = [], [], []
    for _ in range(samples):
        out = subprocess.run(
            [sys.executable, "-c", INIT_CODE],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
        value = json.loads(out.strip().splitlines()[-1])
        walls.append(float(value["wall_s"]))
        cpus.append(float(value["cpu_s"]))
        boto.append(bool(value["boto3"]))
    return Init(walls, cpus, all(boto))


# --- one run -------------------------------------------------------------------------------------


@dataclass
class Run:
    """What one run of N audits cost and gave."""

    kind: str  # "lone" (sharing off), "lone-on" (sharing on), "on" or "off" (100 audits)
    warm: bool
    seconds: list[float]
    cpu_s: float
    bytes_served: int
    sitemap_requests: int
    robots_requests: int
    sources: Counter[str]
    store_errors: int
    codes: Counter[str]
    same_as_lone: int
    late: int  # containers not ready at the common start time
    fetching_s: list[float]  # duration of the audits that fetched (their log lines)
    request_offsets: list[float]  # start of each sitemap request after the common start time
    per_container: list[list[float]]  # the audits' wall times, container by container
    fetchers: list[tuple[int, int]]  # (container, audit) of each audit that fetched

    @property
    def fetch_end(self) -> float | None:
        """When the (last) fetching audit returned, after the common start (its measured time)."""
        ends = [self.per_container[c][i] for c, i in self.fetchers]
        return max(ends) if ends else None

    @property
    def news(self) -> list[float]:
        """For each container without a fetching audit: its first audit's end − fetch_end."""
        end = self.fetch_end
        mine = {c for c, _ in self.fetchers}
        if end is None:
            return []
        return [min(xs) - end for c, xs in enumerate(self.per_container) if c not in mine]

    @property
    def slowest_parts(self) -> tuple[float, float] | None:
        """The slowest audit's lag after fetch_end, split in two, in its container: until the
        container's first audit ended (the news: 0 in the fetching container) and from then on
        (the container's audits finishing one after another)."""
        end = self.fetch_end
        if end is None:
            return None
        c = max(range(len(self.per_container)), key=lambda k: max(self.per_container[k]))
        first = min(self.per_container[c])
        return max(0.0, first - end), self.slowest - max(first, end)

    @property
    def lag(self) -> float | None:
        """How long the slowest audit finished after the (slowest) fetching audit."""
        return self.slowest - max(self.fetching_s) if self.fetching_s else None

    @property
    def slowest(self) -> float:
        return max(self.seconds)


def without_date(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "date"}


def check_codes(result: dict[str, Any]) -> str:
    return "/".join(c["code"]["id"].rsplit("-", 1)[-1] for c in result.get("checks") or [])


@dataclass
class Bench:
    site: Site
    warm_site: Site
    endpoint: str
    client: Any
    reference: dict[str, Any] | None = None
    log: Any = field(default=sys.stderr)

    def run(self, kind: str, warm: bool) -> Run:
        """kind "lone"/"lone-on": 1 audit in 1 process, sharing off/on; "on"/"off": 100 audits,
        4 processes x 25 threads."""
        shared = kind in ("on", "lone-on")
        lone = kind.startswith("lone")
        table = moto_atomic.new_facts_table(self.client) if shared else "unused-table"
        env = container_env(self.endpoint, table, SHARE_SECONDS if shared else 0)
        processes, threads = (1, 1) if lone else (PROCESSES, THREADS)
        start_at = time.time() + START_DELAY_S if not lone else None
        zero = start_at or time.time()
        warmup = [self.warm_site.base + "/"] if warm else []
        self.site.reset()
        containers = [
            Container(
                env,
                {
                    "urls": [self.site.base + f"/c{c}/page-{i}" for i in range(threads)],
                    "threads": threads,
                    "start_at": start_at,
                    "budget_ms": BUDGET_MS,
                    "warmup": warmup,
                },
            )
            for c in range(processes)
        ]
        got = [c.finish(RUN_TIMEOUT_S) for c in containers]
        answers = [a for answers, _ in got for a in answers]
        fetchers = [
            (k, int(str(x["run_id"]).removeprefix("run-")))
            for k, c in enumerate(containers)
            for x in c.finished_logs()
            if x.get("facts_source") == "fetched"
        ]
        usages = [u for _, u in got if u is not None]
        logs = [x for c in containers for x in c.finished_logs()]
        if self.reference is None:
            self.reference = without_date(answers[0]["result"])
        late = sum(
            1 for c in containers if start_at is not None and (c.ready_at or 1e18) > start_at
        )
        sitemap_path = "/" + self.site.sitemap.name
        with self.site.lock:
            served = sum(self.site.bytes.values())
            sitemap_requests = self.site.requests[sitemap_path]
            robots_requests = self.site.requests["/robots.txt"]
            offsets = [t - zero for t in self.site.started]
        if table != "unused-table":
            self.client.delete_table(TableName=table)
        return Run(
            kind=kind,
            warm=warm,
            seconds=[float(a["seconds"]) for a in answers],
            cpu_s=sum(u["user_s"] + u["sys_s"] for u in usages),
            bytes_served=served,
            sitemap_requests=sitemap_requests,
            robots_requests=robots_requests,
            sources=Counter(str(x.get("facts_source")) for x in logs),
            store_errors=sum(int(x.get("store_errors") or 0) for x in logs),
            codes=Counter(check_codes(a["result"]) for a in answers),
            same_as_lone=sum(1 for a in answers if without_date(a["result"]) == self.reference),
            late=late,
            fetching_s=[
                float(x["duration_ms"]) / 1000 for x in logs if x.get("facts_source") == "fetched"
            ],
            request_offsets=offsets,
            per_container=[[float(a["seconds"]) for a in answers] for answers, _ in got],
            fetchers=fetchers,
        )


# --- the report ----------------------------------------------------------------------------------


@dataclass
class Variant:
    """One sitemap (plain or gzipped): every run made on it."""

    name: str
    sitemap: Path
    size: int
    runs: list[Run] = field(default_factory=list)

    def of(self, kind: str, warm: bool) -> list[Run]:
        return [r for r in self.runs if r.kind == kind and r.warm == warm]


def med(xs: Sequence[float]) -> float:
    return statistics.median(xs)


def fmt_bytes(n: float) -> str:
    return f"{n:,.0f}"


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def run_row(label: str, runs: list[Run]) -> str:
    """One table row for a set of runs of one kind: medians, with (min–max) where it varies."""

    def span(xs: list[float], f: str) -> str:
        if not xs:
            return "—"
        if len(xs) == 1 or min(xs) == max(xs):
            return format(xs[0], f)
        return f"{format(med(xs), f)} ({format(min(xs), f)}–{format(max(xs), f)})"

    sources = Counter[str]()
    codes = Counter[str]()
    for r in runs:
        sources.update(r.sources)
        codes.update(r.codes)
    audits = sum(len(r.seconds) for r in runs)
    source_text = ", ".join(f"{k} {v}" for k, v in sorted(sources.items()))
    code_text = ", ".join(f"{k} ×{v}" for k, v in sorted(codes.items()))
    same = sum(r.same_as_lone for r in runs)
    late = sum(r.late for r in runs)
    several = [r for r in runs if len(r.request_offsets) > 1]
    starts = "; ".join(
        ", ".join(f"{t:.2f}" for t in sorted(r.request_offsets)[:4])
        + (", …" if len(r.request_offsets) > 4 else "")
        for r in several
    )
    lags = [r.lag for r in runs if r.lag is not None]
    shared = runs[0].kind == "on"
    fetching = [max(r.fetching_s) for r in runs if r.fetching_s]
    return (
        f"| {label} | {len(runs)} | {span([float(r.bytes_served) for r in runs], ',.0f')} "
        f"| {span([float(r.sitemap_requests) for r in runs], '.0f')} "
        f"| {span([r.cpu_s for r in runs], '.2f')} "
        f"| {span([r.slowest for r in runs], '.2f')} "
        f"| {span([med(r.seconds) for r in runs], '.2f')} "
        f"| {span(fetching, '.2f') if shared else '—'} "
        f"| {span(lags, '.2f') if shared else '—'} "
        f"| {source_text or '—'} | {code_text} | {same}/{audits} "
        f"| {sum(r.store_errors for r in runs)} | {late} | {starts or '—'} |"
    )


def _templates(path: Path) -> dict[str, str]:
    """The named blocks of the report's template, continuation lines joined."""
    parts = re.split(
        r"^<!-- template: ([\w-]+) -->\n", path.read_text(encoding="utf-8"), flags=re.M
    )
    return {
        name: body.rstrip("\n").replace("\n  ", " ")
        for name, body in zip(parts[1::2], parts[2::2], strict=True)
    }


TEMPLATES = _templates(TEMPLATE)


def prose(block: str, **fields: Any) -> str:
    """One block of the report's template, filled in."""
    return TEMPLATES[block].format(**fields)


def targets_rows(v: Variant, warm: bool, inits: dict[bool, Init] | None) -> list[str]:
    lone = v.of("lone", warm)
    on = v.of("on", warm)
    off = v.of("off", False)
    if not (lone and on and off):
        return []
    state = "warm" if warm else "cold"
    bytes_ratio = med([r.bytes_served for r in off]) / max(1.0, med([r.bytes_served for r in on]))
    cpu_off, cpu_on = med([r.cpu_s for r in off]), med([r.cpu_s for r in on])
    cpu_ratio = cpu_off / cpu_on
    slow_med = med([r.slowest for r in on]) / med([r.seconds[0] for r in lone])
    slow_best = min(r.slowest for r in on) / min(r.seconds[0] for r in lone)

    def row(block: str, ratio: float, target: float, ok: bool) -> str:
        return prose(
            block, name=v.name, state=state, ratio=ratio, target=target, verdict=verdict(ok)
        )

    rows = [
        row("target-bytes", bytes_ratio, TARGET_BYTES, bytes_ratio >= TARGET_BYTES),
        row("target-cpu", cpu_ratio, TARGET_CPU, cpu_ratio >= TARGET_CPU),
    ]
    if not warm and inits:
        # A cold container has run its init just before: add it, off and on, to see the bill.
        init_off, init_on = PROCESSES * inits[False].cpu, PROCESSES * inits[True].cpu
        with_init = (cpu_off + init_off) / (cpu_on + init_on)
        rows.append(row("target-cpu-with-init", with_init, TARGET_CPU, with_init >= TARGET_CPU))
    rows += [
        row("target-slowest-medians", slow_med, TARGET_SLOWEST, slow_med <= TARGET_SLOWEST),
        row("target-slowest-best", slow_best, TARGET_SLOWEST, slow_best <= TARGET_SLOWEST),
    ]
    return rows


def poll_interval(waited_s: float) -> float:
    """The function's mean poll interval after waiting this long."""
    return lease.poll_base_s(waited_s)


def why(variants: list[Variant], inits: dict[bool, Init] | None, cores: str) -> str:
    """Where the shared audits' time and CPU go, from the runs' own figures."""
    out: list[str] = []
    for v in variants:
        for warm in (False, True):
            state = "warm" if warm else "cold"
            lone, lone_on, on = v.of("lone", warm), v.of("lone-on", warm), v.of("on", warm)
            ends = [r.fetch_end for r in on if r.fetch_end is not None]
            parts = [p for p in (r.slowest_parts for r in on) if p is not None]
            news = [x for r in on for x in r.news]
            if not (lone and lone_on and ends and parts and news):
                continue
            lone_s = med([r.seconds[0] for r in lone])
            lone_on_s = med([r.seconds[0] for r in lone_on])
            fetch = med(ends)
            slowest = med([r.slowest for r in on])
            allowed = TARGET_SLOWEST * lone_s
            out.append(
                prose(
                    "why-time",
                    name=v.name,
                    state=state,
                    lone_s=lone_s,
                    allowed=allowed,
                    margin=allowed - lone_s,
                    slowest=slowest,
                    over=slowest - lone_s,
                    within="within" if slowest <= allowed else "over",
                    lone_on_s=lone_on_s,
                    store_s=lone_on_s - lone_s,
                    fetch=fetch,
                    fetch_more=fetch - lone_on_s,
                    news_wait=med([p[0] for p in parts]),
                    news=med(news),
                    news_min=min(news),
                    news_max=max(news),
                    poll=poll_interval(fetch),
                    tail=med([p[1] for p in parts]),
                )
            )
        cold_cpu = med([r.cpu_s for r in v.of("on", False)]) if v.of("on", False) else None
        warm_cpu = med([r.cpu_s for r in v.of("on", True)]) if v.of("on", True) else None
        lone_cpu = med([r.cpu_s for r in v.of("lone", True)]) if v.of("lone", True) else None
        if cold_cpu is not None and warm_cpu is not None and lone_cpu is not None:
            out.append(
                prose(
                    "why-cpu",
                    name=v.name,
                    cold_cpu=cold_cpu,
                    warm_cpu=warm_cpu,
                    cold_more=cold_cpu - warm_cpu,
                    per_container=(cold_cpu - warm_cpu) / PROCESSES,
                    warm_more=warm_cpu - lone_cpu,
                    per_audit_ms=(warm_cpu - lone_cpu) / (PROCESSES * THREADS - 1) * 1000,
                )
            )
    if not out:
        return ""
    init_text = ""
    if inits:
        init_text = prose(
            "why-init",
            with_table=inits[True].cpu,
            without_table=inits[False].cpu,
            processes=PROCESSES,
        )
    return prose(
        "why",
        lines="\n".join(out),
        init_text=init_text,
        others=THREADS - 1,
        poll_share=lease.POLL_SHARE,
        poll_min=lease.POLL_MIN_S,
        poll_max=lease.POLL_MAX_S,
        threads=THREADS,
        processes=PROCESSES,
        cores=cores,
    )


def fetch_note(variants: list[Variant]) -> list[str]:
    """With sharing on, say whether the site was fetched exactly once in every run."""
    notes = []
    for v in variants:
        on = v.of("on", False) + v.of("on", True)
        if not on:
            continue
        bad = [
            r
            for r in on
            if r.sitemap_requests != 1 or len(r.fetchers) != 1 or r.sources.get("fetched") != 1
        ]
        same = sum(r.same_as_lone for r in on)
        audits = sum(len(r.seconds) for r in on)
        if not bad:
            notes.append(prose("fetched-once", name=v.name, runs=len(on), same=same, audits=audits))
        for r in bad:
            first_end = min((r.per_container[c][i] for c, i in r.fetchers), default=None)
            when = ""
            if first_end is not None and max(r.request_offsets, default=0.0) < first_end:
                when = prose("fetched-more-before-publish", first_end=first_end)
            notes.append(
                prose(
                    "fetched-more",
                    name=v.name,
                    state="warm" if r.warm else "cold",
                    requests=r.sitemap_requests,
                    began=", ".join(f"{t:.2f}" for t in sorted(r.request_offsets)),
                    fetchers=len(r.fetchers),
                    containers=", ".join(str(c) for c, _ in r.fetchers),
                    same=r.same_as_lone,
                    audits=len(r.seconds),
                    when=when,
                )
            )
    return notes


def cut_note(variants: list[Variant]) -> list[str]:
    """Say it when audits with sharing off did not complete: their figures are then low."""
    notes = []
    for v in variants:
        lone_cpu = 100 * med([x.cpu_s for x in v.of("lone", False)])
        for r in v.of("off", False):
            done = r.codes.get(v.of("lone", False)[0].codes.most_common(1)[0][0], 0)
            if done < len(r.seconds):
                notes.append(
                    prose(
                        "cut",
                        name=v.name,
                        cut=len(r.seconds) - done,
                        audits=len(r.seconds),
                        slowest=r.slowest,
                        lone_cpu=lone_cpu,
                    )
                )
    return notes


# (label, kind, warm) of each row of a variant's table, in order.
TABLE_ROWS = (
    ("lone audit, cold", "lone", False),
    ("lone audit, warm", "lone", True),
    ("lone audit, sharing on, cold", "lone-on", False),
    ("lone audit, sharing on, warm", "lone-on", True),
    ("100 audits, sharing off, cold", "off", False),
    ("100 audits, sharing on, cold", "on", False),
    ("100 audits, sharing on, warm", "on", True),
)


def render(
    variants: list[Variant],
    inits: dict[bool, Init] | None,
    info: dict[str, str],
    entries: int,
    runs: int,
    load_end: str,
    elapsed: float,
) -> str:
    tables = [
        prose(
            "variant-table",
            name=v.name,
            rows="\n".join(
                run_row(label, v.of(kind, warm))
                for label, kind, warm in TABLE_ROWS
                if v.of(kind, warm)
            ),
        )
        for v in variants
    ]
    init_table = ""
    if inits:
        rows = []
        for shared, label in ((False, "sharing off"), (True, "sharing on, table set")):
            i = inits[shared]
            wall = f"{med(i.wall_s):.3f} ({min(i.wall_s):.3f}–{max(i.wall_s):.3f})"
            cpu = f"{i.cpu:.3f} ({min(i.cpu_s):.3f}–{max(i.cpu_s):.3f})"
            rows.append(f"| {label} | {'yes' if i.boto3 else 'no'} | {wall} | {cpu} |")
        init_table = prose("init-table", rows="\n".join(rows))
    text = prose(
        "report",
        begin=BEGIN,
        end=END,
        command=COMMAND,
        command_raw=COMMAND_RAW,
        minutes=elapsed / 60,
        load_end=load_end,
        entries=entries,
        sizes=", ".join(f"`{v.sitemap.name}` {fmt_bytes(v.size)}" for v in variants),
        processes=PROCESSES,
        threads=THREADS,
        budget_s=BUDGET_MS // 1000,
        share_seconds=SHARE_SECONDS,
        init_samples=INIT_SAMPLES,
        megabytes=variants[0].size / 1e6,
        runs=runs,
        times="times" if runs != 1 else "time",
        variant_tables="\n\n".join(tables),
        init_table=init_table,
        target_rows="\n".join(
            row for v in variants for w in (False, True) for row in targets_rows(v, w, inits)
        ),
        notes="\n".join(fetch_note(variants) + cut_note(variants)),
        why=why(variants, inits, info["cores"]),
        **info,
    )
    # An empty part leaves its blank lines behind: Markdown needs only one between blocks.
    return re.sub(r"\n{3,}", "\n\n", text) + "\n"


def write_section(text: str) -> None:
    """Put this script's section into RESULTS.md."""
    report.write_section(text, BEGIN, END)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=RUNS, help="runs of the lone and shared cases")
    parser.add_argument("--no-write", action="store_true", help="do not write RESULTS.md")
    parser.add_argument("--only", choices=("plain", "gz"), help="one sitemap variant only")
    parser.add_argument(
        "--megabytes", type=float, default=SITEMAP_BYTES / 1e6, help="size of the sitemap"
    )
    args = parser.parse_args(argv)
    started = time.monotonic()
    log = sys.stderr
    info = run.machine()
    with tempfile.TemporaryDirectory(prefix="bench-share-") as tmp:
        print("writing the sitemaps ...", file=log, flush=True)
        big, packed, tiny, entries = write_sitemaps(Path(tmp), int(args.megabytes * 1e6))
        variants = [
            Variant("sitemap.xml (plain)", big, big.stat().st_size),
            Variant("sitemap.xml.gz", packed, packed.stat().st_size),
        ]
        if args.only:
            variants = [variants[0] if args.only == "plain" else variants[1]]
        warm_site = Site(tiny)
        with moto_dynamodb() as (endpoint, client):
            print("timing the handler's import ...", file=log, flush=True)
            inits = {shared: init_cost(endpoint, shared, INIT_SAMPLES) for shared in (False, True)}
            for v in variants:
                site = Site(v.sitemap)
                bench = Bench(site, warm_site, endpoint, client)
                try:
                    plan = [
                        ("lone", False),
                        ("lone", True),
                        ("on", False),
                        ("on", True),
                        ("lone-on", False),
                        ("lone-on", True),
                    ]
                    for i in range(args.runs):
                        for kind, warm in plan:
                            r = bench.run(kind, warm)
                            v.runs.append(r)
                            print(
                                f"{v.name} run {i + 1}: {kind} {'warm' if warm else 'cold'}: "
                                f"{r.bytes_served:,} B, {r.cpu_s:.2f} CPU s, "
                                f"slowest {r.slowest:.2f} s, {dict(r.sources)}",
                                file=log,
                                flush=True,
                            )
                    r = bench.run("off", False)
                    v.runs.append(r)
                    print(
                        f"{v.name}: off: {r.bytes_served:,} B, {r.cpu_s:.2f} CPU s, "
                        f"slowest {r.slowest:.2f} s, {dict(r.codes)}",
                        file=log,
                        flush=True,
                    )
                finally:
                    site.stop()
        warm_site.stop()
    load_end = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    text = render(variants, inits, info, entries, args.runs, load_end, time.monotonic() - started)
    print(text)
    if not args.no_write:
        write_section(text)
        print("wrote the section into bench/RESULTS.md", file=log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
