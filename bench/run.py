"""Benchmark of the auditor's sitemap parse path against expat, a hand-written reference and peers.

    make bench                      # = .venv/bin/python bench/run.py
    .venv/bin/python bench/run.py --quick    # without the ~50 MB corpus, into bench/out/

Writes deterministic corpora into bench/out/ (git-ignored), times every contender on every corpus
in fresh processes (best of 3), measures the peak RSS of whole audits over loopback HTTP and the
handler's import time, prints markdown tables and writes them into bench/RESULTS.md (a `--quick`
run into bench/out/RESULTS-quick.md: its figures are not the benchmark's, and RESULTS.md is
tracked).

The peers (ultimate-sitemap-parser, advertools, scrapy) are not project dependencies; install them
into the venv for the benchmark (`.venv/bin/pip install ultimate-sitemap-parser advertools
scrapy`). A peer that is not installed is skipped and the report says so.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.metadata
import importlib.util
import io
import json
import os
import platform
import pstats
import resource
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from xml.parsers import expat

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
OUT = BENCH / "out"
RESULTS = BENCH / "RESULTS.md"
QUICK_RESULTS = OUT / "RESULTS-quick.md"
sys.path.insert(0, str(BENCH))

import contenders  # noqa: E402
import corpora  # noqa: E402
from report import write_section  # noqa: E402
from run_report import (  # noqa: E402
    BEGIN,
    CHILD_TIMEOUT_S,
    END,
    RESULT_MARK,
    RUNS,
    SLOW_RUN_S,
    AuditRun,
    Measured,
    Report,
    render,
    verdict,
)

from harness import servers  # noqa: E402

# --- child processes ---------------------------------------------------------------------------


def _rss_kib() -> int:
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)  # KiB on Linux


def child_contender(key: str, path: Path) -> None:
    """Run one contender once on one corpus and print what it found, as JSON."""
    run = contenders.BY_KEY[key].load()
    before = _rss_kib()
    start = time.perf_counter()
    answer = run(path)
    seconds = time.perf_counter() - start
    out = {
        "seconds": seconds,
        "count": answer.count,
        "latest": answer.latest.isoformat() if answer.latest else None,
        "note": answer.note,
        "rss_kib": _rss_kib(),
        "rss_before_kib": before,
    }
    print(RESULT_MARK + json.dumps(out), flush=True)


def child_audit(url: str) -> None:
    """Run one whole audit through handler.run and print its cost and facts, as JSON."""
    from sitemap_auditor import handler
    from sitemap_auditor.audit.config import Settings

    settings = Settings(max_age_days=7, allow_private_networks=True)
    before = _rss_kib()
    start = time.perf_counter()
    result = handler.run({"id": "b", "url": url}, None, settings)
    seconds = time.perf_counter() - start
    data = result["checks"][0]["data"] if result.get("checks") else {}
    out = {
        "seconds": seconds,
        "rss_kib": _rss_kib(),
        "rss_before_kib": before,
        "selected": data.get("selectedSitemapUrl"),
        "entries": data.get("entryCount"),
        "latest": data.get("latestLastmod"),
        "status": result.get("status"),
    }
    print(RESULT_MARK + json.dumps(out), flush=True)


def child_profile(path: Path) -> None:
    """cProfile the auditor's parse path on one corpus; print the top functions as JSON rows."""
    run = contenders.load_auditor()
    profile = cProfile.Profile()
    profile.enable()
    run(path)
    profile.disable()
    stats = pstats.Stats(profile, stream=io.StringIO()).strip_dirs()
    rows = []
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    for func, (_cc, ncalls, tottime, cumtime, _callers) in raw.items():
        filename, line, name = func
        where = f"{filename}:{line}({name})" if line else name
        rows.append({"func": where, "ncalls": ncalls, "tottime": tottime, "cumtime": cumtime})
    rows.sort(key=lambda r: r["tottime"], reverse=True)
    total = sum(r["tottime"] for r in rows)
    by_file: dict[str, float] = {}
    for func, (_cc, _n, tottime, _cum, _callers) in raw.items():
        by_file[func[0]] = by_file.get(func[0], 0.0) + tottime
    out = {"total": total, "rows": rows[:15], "by_file": by_file}
    print(RESULT_MARK + json.dumps(out), flush=True)


def child_memory(path: Path) -> None:
    """Trace the auditor's parse path: peak, what stays allocated after it, and where."""
    import linecache
    import tracemalloc

    run = contenders.load_auditor()
    tracemalloc.start()
    run(path)
    current, peak = tracemalloc.get_traced_memory()
    snapshot = tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.Filter(True, "*sitemap_auditor*")]
    )
    tracemalloc.stop()
    top = []
    for stat in snapshot.statistics("lineno")[:6]:
        frame = stat.traceback[0]
        where = frame.filename.replace(os.sep, "/")
        where = where[where.rfind("sitemap_auditor/") :]
        source = linecache.getline(frame.filename, frame.lineno).strip()
        top.append(
            {
                "where": f"{where}:{frame.lineno}",
                "bytes": stat.size,
                "count": stat.count,
                "source": source,
            }
        )
    out = {"peak": peak, "current": current, "top": top}
    print(RESULT_MARK + json.dumps(out), flush=True)


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    # The handler reads these at import; a benchmark runs as a plain deployment.
    env.pop("SITEMAP_MAX_AGE_DAYS", None)
    env.pop("SITEMAP_ALLOW_PRIVATE_NETWORKS", None)
    env["PYTHONHASHSEED"] = "0"
    return env


def spawn(args: Sequence[str]) -> dict[str, Any]:
    """Run this script in a fresh interpreter with args; return the JSON it reported."""
    try:
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), *args],
            capture_output=True,
            text=True,
            timeout=CHILD_TIMEOUT_S,
            env=_child_env(),
            cwd=ROOT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"no answer within {CHILD_TIMEOUT_S:.0f} s"}
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(RESULT_MARK):
            result: dict[str, Any] = json.loads(line[len(RESULT_MARK) :])
            return result
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
    return {"error": " / ".join(tail)[-300:] or f"exit status {proc.returncode}"}


# --- measurements ------------------------------------------------------------------------------


def available(c: contenders.Contender) -> bool:
    return c.module is None or importlib.util.find_spec(c.module) is not None


def measure_corpus(corpus: corpora.Corpus, keys: Sequence[str], runs: int) -> dict[str, Measured]:
    """Time every contender on one corpus: runs rounds, each contender in a fresh process."""
    path = corpus.path(OUT)
    results = {k: Measured(k) for k in keys}
    for round_no in range(runs):
        for key in keys:
            m = results[key]
            if m.error or (round_no > 0 and (m.best or 0) > SLOW_RUN_S):
                continue
            got = spawn(["--child", key, str(path)])
            if "error" in got:
                m.error = str(got["error"])
                continue
            m.seconds.append(float(got["seconds"]))
            m.rss_kib.append(int(got["rss_kib"]))
            m.rss_before_kib.append(int(got["rss_before_kib"]))
            m.count = got["count"]
            m.latest = datetime.fromisoformat(got["latest"]) if got["latest"] else None
            m.note = got["note"]
        line = ", ".join(
            f"{k} {results[k].seconds[-1]:.2f}s" if results[k].seconds else f"{k} -" for k in keys
        )
        print(f"  {corpus.name} round {round_no + 1}: {line}", file=sys.stderr, flush=True)
    return results


def decoded_size(corpus: corpora.Corpus) -> int:
    return sum(len(c) for c in contenders.file_chunks(corpus.path(OUT)))


@contextmanager
def serve(directory: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """Serve the files of directory on 127.0.0.1, sent from disk; robots.txt names one of them.

    Yields the base URL and a dict whose "sitemap" entry is the file robots.txt points at.
    """
    state: dict[str, str] = {"sitemap": ""}
    site = servers.Site().start()
    base = site.base

    def robots(h: BaseHTTPRequestHandler) -> None:
        body = f"User-agent: *\nSitemap: {base}/{state['sitemap']}\n".encode()
        servers.send(h, 200, body, {"Content-Type": "text/plain"})

    site.route("/robots.txt", robots)
    for path in directory.iterdir():
        if path.is_file():
            kind = "application/gzip" if path.name.endswith(".gz") else "application/xml"
            site.route("/" + path.name, servers.file(path, kind))
    try:
        yield base, state
    finally:
        site.stop()


def measure_audits(files: Sequence[tuple[str, str]], runs: int) -> list[AuditRun]:
    """Peak RSS and time of whole audits through handler.run over loopback, fresh processes."""
    audits = [AuditRun(n, f, (OUT / f).stat().st_size) for n, f in files]
    with serve(OUT) as (base, state):
        for _ in range(runs):
            for a in audits:
                if a.error:
                    continue
                state["sitemap"] = a.filename
                got = spawn(["--audit-child", base + "/"])
                if "error" in got:
                    a.error = str(got["error"])
                    continue
                a.seconds.append(float(got["seconds"]))
                a.rss_kib.append(int(got["rss_kib"]))
                a.facts = got
    return audits


def measure_import(runs: int) -> dict[str, Any]:
    """`python -X importtime -c "import sitemap_auditor.handler"`: cumulative µs of the handler."""
    micros: list[int] = []
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import sitemap_auditor.handler"],
            capture_output=True,
            text=True,
            env=_child_env(),
            cwd=ROOT,
            check=False,
        )
        for line in proc.stderr.splitlines():
            parts = line.split("|")
            if len(parts) == 3 and parts[2].strip() == "sitemap_auditor.handler":
                micros.append(int(parts[1].strip()))
    probe = (
        "import importlib.util, json, os, sys\n"
        "import sitemap_auditor.handler as h\n"
        "mods = sorted(m for m in sys.modules if m.split('.')[0] in ('boto3', 'botocore'))\n"
        "pyc = os.path.exists(importlib.util.cache_from_source(h.__file__))\n"
        "print(json.dumps({'modules': mods, 'pyc': pyc}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env=_child_env(),
        cwd=ROOT,
        check=False,
    )
    found = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 else {}
    modules = found.get("modules", [])
    return {
        "micros": micros,
        "boto3": any(m.split(".")[0] == "boto3" for m in modules),
        "botocore": [m for m in modules if m.split(".")[0] == "botocore"],
        "pyc": found.get("pyc"),
        "dont_write_bytecode": bool(os.environ.get("PYTHONDONTWRITEBYTECODE")),
    }


# --- reporting ---------------------------------------------------------------------------------


def machine() -> dict[str, str]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {}
    for dist in ("ultimate-sitemap-parser", "advertools", "scrapy", "lxml", "pandas"):
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            versions[dist] = "not installed"
    load = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    return {
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "os": f"{platform.system()} {platform.release()}",
        "expat": expat.EXPAT_VERSION,
        "peers": ", ".join(f"{k} {v}" for k, v in versions.items()),
        "load": load,
    }


def results_path(quick: bool) -> Path:
    """Where a run's report is written: a quick run's never over the tracked RESULTS.md."""
    return QUICK_RESULTS if quick else RESULTS


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="skip the ~50 MB corpus; write bench/out/"
    )
    parser.add_argument("--runs", type=int, default=RUNS, help="runs per measurement")
    parser.add_argument("--no-write", action="store_true", help="do not write RESULTS.md")
    parser.add_argument("--child", nargs=2, metavar=("CONTENDER", "PATH"), help=argparse.SUPPRESS)
    parser.add_argument("--audit-child", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--profile-child", metavar="PATH", help=argparse.SUPPRESS)
    parser.add_argument("--memory-child", metavar="PATH", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child_contender(args.child[0], Path(args.child[1]))
        return 0
    if args.audit_child:
        child_audit(args.audit_child)
        return 0
    if args.profile_child:
        child_profile(Path(args.profile_child))
        return 0
    if args.memory_child:
        child_memory(Path(args.memory_child))
        return 0

    started = time.perf_counter()
    info = machine()
    log = sys.stderr
    print(f"machine: {info['python']}, {info['cpu']}, {info['cores']} cores", file=log)
    print("writing corpora into bench/out/ ...", file=log, flush=True)
    corpus_list = corpora.generate(OUT, quick=args.quick)
    sizes = {c.name: decoded_size(c) for c in corpus_list}

    keys = []
    skipped = []
    for contender in contenders.CONTENDERS:
        if available(contender):
            keys.append(contender.key)
        else:
            skipped.append(f"{contender.label} (`{contender.package}`)")
            print(f"skipping {contender.label}: {contender.package} is not installed", file=log)
    labels = {x.key: x.label for x in contenders.CONTENDERS}

    headline = "urlset-50k" if args.quick else "urlset-50mb"
    all_results: dict[str, dict[str, Measured]] = {}
    for c in corpus_list:
        print(f"measuring {c.name} ...", file=log, flush=True)
        all_results[c.name] = measure_corpus(c, keys, args.runs)
    verdicts = [verdict(c.name, all_results[c.name], labels) for c in corpus_list]

    print("measuring whole audits over loopback ...", file=log, flush=True)
    big_file = OUT / f"{headline}.xml"
    audits = measure_audits(
        [
            (corpora.TINY.name, corpora.TINY.filename),
            (headline, big_file.name),
            (headline + ".gz", big_file.name + ".gz"),
        ],
        args.runs,
    )
    print("measuring the handler's import time ...", file=log, flush=True)
    imports = measure_import(args.runs)
    print(f"tracing the auditor's memory on {headline} ...", file=log, flush=True)
    got = spawn(["--memory-child", str(big_file)])
    memory = None if "error" in got else got

    missed = any(flag is False for v in verdicts for flag in v.met().values())
    profile = None
    if missed:
        print("a target is missed: profiling the auditor on urlset-50k ...", file=log)
        got = spawn(["--profile-child", str(OUT / "urlset-50k.xml")])
        profile = None if "error" in got else got

    report = Report(
        info=info,
        quick=args.quick,
        sizes=sizes,
        corpus_list=corpus_list,
        results=all_results,
        labels=labels,
        skipped=skipped,
        audits=audits,
        imports=imports,
        profile=profile,
        memory=memory,
        memory_corpus=headline,
        verdicts=verdicts,
        headline=headline,
        runs=args.runs,
    )
    text = render(report)
    print(text)
    if not args.no_write:
        target = results_path(args.quick)
        if target == RESULTS:
            # Only this script's section: bench/share.py and bench/scale.py write their own.
            write_section(f"{BEGIN}\n{text.rstrip()}\n{END}\n", BEGIN, END, RESULTS)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        print(
            f"wrote {target.relative_to(ROOT)} in {time.perf_counter() - started:.0f} s", file=log
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
