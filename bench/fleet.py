"""Sharing on, in-process only and off, side by side: the REAL driver in a fleet in virtual time.

    make bench-fleet                  # = .venv/bin/python bench/fleet.py
    .venv/bin/python bench/fleet.py --quick --no-write     # 100-audit variants, a quicker look

Each audit is one call of `sitemap_auditor.sharing.Sharing.obtain`, the function's own driver
(and through it `sitemap_auditor.lease`), with its clock, sleep, lease token and renewal thread
injected, in virtual time (tests/support/realfleet.py), against the simulated DynamoDB of
tests/support/fleet.py. Each row runs the same arrivals three times: sharing on (the table),
in-process only (`SITEMAP_CACHE_TABLE` unset) and off (`SITEMAP_SHARE_SECONDS=0`). Prints the
markdown section and writes it into bench/RESULTS.md, between its own markers.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

import report  # noqa: E402

from harness.fleet import READ_UNITS_PER_S, WRITE_UNITS_PER_S  # noqa: E402
from harness.realfleet import RealFleet, Site  # noqa: E402

BEGIN = "<!-- bench/fleet.py: begin -->"
END = "<!-- bench/fleet.py: end -->"

# Prices (us-east-1): Lambda arm64 per GB-second and per request; DynamoDB on demand per unit.
LAMBDA_GB = 0.25  # the template's MemorySize: 256 MB
LAMBDA_GB_S = 0.0000133334
LAMBDA_REQUEST = 0.20 / 1e6
READ_UNIT = 0.125 / 1e6
WRITE_UNIT = 0.625 / 1e6
MODES = ("on", "process", "off")
Arrivals = list[tuple[float, str]]


@dataclass(frozen=True)
class Scenario:
    name: str
    sites: dict[str, Site]
    arrivals: Arrivals
    containers: int = 1000
    kill_after: float | None = None
    lost_writes: float = 0.0
    kill_site: str | None = None
    kill_from: float = 0.0
    measured: Callable[[str], bool] = lambda site: True  # the audits a row's latency is of


@dataclass(frozen=True)
class Row:
    scenario: str
    mode: str
    audits: int
    p50: float
    p99: float
    incomplete: int
    fetches: int
    read_units: float
    write_units: float
    gb_s: float
    lost: int

    @property
    def dynamo_usd(self) -> float:
        return self.read_units * READ_UNIT + self.write_units * WRITE_UNIT

    @property
    def lambda_usd(self) -> float:
        return self.gb_s * LAMBDA_GB_S + self.audits * LAMBDA_REQUEST


def burst(n: int, site: str = "s", spread_s: float = 1.0) -> Arrivals:
    return [(i * spread_s / n, site) for i in range(n)]


def scenarios(quick: bool) -> list[Scenario]:
    n = 100 if quick else 1000
    rng = random.Random(3)
    lone = [(rng.uniform(0, 600), f"lone{i}") for i in range(n)]
    lone.sort()
    other = [(i / 150, f"o{i}") for i in range(150 * (10 if quick else 60))]
    dead_beside = sorted(burst(n, "hot") + other)
    # The same, the hot site audited once before (its fetch time recorded), its window over.
    warm_beside = sorted([(0.0, "hot")] + [(t + 70.0, s) for t, s in burst(n, "hot") + other])
    sites_lone = {name: Site(1.0) for _, name in lone}
    sites_lone_large = {name: Site(1.0, facts_bytes=50_000) for _, name in lone}
    return [
        Scenario(f"{n:,} audits within 1 s, 0.8 s fetch", {"s": Site(0.8)}, burst(n)),
        Scenario(f"{n:,} audits within 1 s, 25 s fetch", {"s": Site(25.0)}, burst(n)),
        Scenario(
            "the holder killed 5 s into a 25 s fetch", {"s": Site(25.0)}, burst(n), kill_after=5.0
        ),
        Scenario(
            f"{n:,} audits within 1 s, 60 s fetch, the holder dies at 50 s",
            {"s": Site(60.0)},
            burst(n),
            kill_after=50.0,
        ),
        Scenario(
            f"{n:,} audits over 60 s, 80 s fetch, the holder dies at 60 s",
            {"s": Site(80.0)},
            burst(n, spread_s=60.0),
            kill_after=60.0,
        ),
        Scenario(
            f"{n:,} audits over 60 s, 120 s fetch", {"s": Site(120.0)}, burst(n, spread_s=60.0)
        ),
        Scenario(
            "a burst whose facts cannot be shared (credential echoed), 5 s fetch",
            {"s": Site(5.0, echoes_credential=True)},
            burst(n),
        ),
        Scenario(
            "facts items of 300 KB, a burst, 0.8 s fetch",
            {"s": Site(0.8, facts_bytes=300_000)},
            burst(n),
        ),
        Scenario(
            "lease writes that time out but are applied (10 %), 1 s fetch",
            {"s": Site(1.0)},
            burst(n),
            lost_writes=0.1,
        ),
        Scenario("sites audited once in their window (650 B items)", sites_lone, lone),
        Scenario("sites audited once in their window (50 KB items)", sites_lone_large, lone),
        Scenario(
            "a dead holder's waiters (0.8 s fetch, dies at 0.5 s) beside 150 audits/s of other "
            "sites: the other sites' audits",
            {"hot": Site(0.8), **{name: Site(1.0) for _, name in other}},
            dead_beside,
            kill_after=0.5,
            kill_site="hot",
            measured=lambda site: site != "hot",
        ),
        Scenario(
            "the same, the hot site's fetch time recorded by an earlier audit: the other sites' "
            "audits",
            {"hot": Site(0.8), **{name: Site(1.0) for _, name in other}},
            warm_beside,
            kill_after=0.5,
            kill_site="hot",
            kill_from=70.0,
            measured=lambda site: site != "hot",
        ),
    ]


def run(s: Scenario, mode: str) -> Row:
    f = RealFleet(
        s.containers,
        s.sites,
        mode=mode,
        kill_first_fetch_after=s.kill_after,
        lost_writes=s.lost_writes,
        kill_site=s.kill_site,
        kill_from=s.kill_from,
    )
    f.run(s.arrivals)
    durations = sorted(r.ended - r.arrived for r in f.records if s.measured(r.site))
    db = f.table.db
    billed = sum(r.ended - r.started for r in f.records)
    return Row(
        s.name,
        mode,
        len(f.records),
        _pct(durations, 0.5),
        _pct(durations, 0.99),
        sum(1 for r in f.records if not r.complete),
        len(f.fetches),
        db.read_units,
        db.write_units,
        billed * LAMBDA_GB,
        f.lost_audits,
    )


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    return values[min(len(values) - 1, math.ceil(q * len(values)) - 1)]


def render(rows: list[Row], quick: bool, cpu_s: float) -> str:
    head = [
        BEGIN,
        "## Sharing on, in-process only and off (the real driver, simulated)",
        "",
        f"Generated by `bench/fleet.py`{' --quick' if quick else ''} (`make bench-fleet`); do not "
        f"edit by hand. The run took {cpu_s:.0f} s of CPU.",
        "",
        "Every audit is one call of the function's own `Sharing.obtain` (and so of `lease`),",
        "its clock, sleep, lease token and renewal thread injected, in virtual time",
        "(tests/support/realfleet.py), against the simulated DynamoDB of tests/support/fleet.py",
        f"({READ_UNITS_PER_S:,.0f} read and {WRITE_UNITS_PER_S:,.0f} write units a second per "
        "item, log-normal latencies, lagging",
        "eventually consistent reads, botocore's two attempts on throttling). A container runs one",
        "invocation at a time and keeps its process store; 1,000 containers at most (Lambda's",
        "concurrency), the rest queue; a killed container's audit is lost and Lambda starts",
        "another in its place. Budgets are 147 s, the share window 60 s. `on`: the table;",
        "`process`: in-process only; `off`: `SITEMAP_SHARE_SECONDS=0`. Latency is from arrival",
        "(queue included) to the facts and the rules. Lambda is billed at 256 MB (the template's",
        f"MemorySize), ${LAMBDA_GB_S} per GB-s and $0.20 per million requests; DynamoDB on",
        "demand, $0.125 per million read units and $0.625 per million write units.",
        "",
        "| scenario | mode | audits | p50 | p99 | incomplete | site fetches | read units | "
        "write units | DynamoDB $ / M audits | GB-s | Lambda $ / M audits |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    lines = []
    for r in rows:
        per = 1e6 / max(1, r.audits)
        lines.append(
            f"| {r.scenario} | {r.mode} | {r.audits:,} | {r.p50:.2f} s | {r.p99:.2f} s | "
            f"{r.incomplete} | {r.fetches:,} | {r.read_units:,.1f} | {r.write_units:,.1f} | "
            f"{r.dynamo_usd * per:.2f} | {r.gb_s:,.1f} | {r.lambda_usd * per:.2f} |"
        )
    return "\n".join([*head, *lines, "", END]) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="100-audit variants")
    parser.add_argument("--no-write", action="store_true", help="do not write RESULTS.md")
    args = parser.parse_args(argv)
    started = time.process_time()
    rows = []
    for s in scenarios(args.quick):
        for mode in MODES:
            print(f"{s.name} [{mode}] ...", file=sys.stderr, flush=True)
            rows.append(run(s, mode))
    text = render(rows, args.quick, time.process_time() - started)
    print(text)
    if not args.no_write:
        report.write_section(text, BEGIN, END)
        print("wrote the section into bench/RESULTS.md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
