"""Sharing on, in-process only and off, side by side: the REAL driver in a fleet in virtual time.

    make bench-fleet                  # = .venv/bin/python bench/fleet.py
    .venv/bin/python bench/fleet.py --quick --no-write     # 100-audit variants, a quicker look
    .venv/bin/python bench/fleet.py --quick --no-write --only partitions   # some rows only

Each audit is one call of `sitemap_auditor.sharing.driver.Sharing.obtain`, the function's own driver
(and through it `sitemap_auditor.sharing.lease`), with its clock, sleep, lease token and
renewal thread injected, in virtual time (harness/fleet.py), against the simulated DynamoDB of
harness/simdynamo.py. Each row runs the same arrivals three times: sharing on (the table),
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
from dataclasses import dataclass, replace
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

import report  # noqa: E402

from harness.fleet import MAX_SHARED_BYTES, RealFleet, Site  # noqa: E402
from harness.simdynamo import READ_UNITS_PER_S, WRITE_UNITS_PER_S  # noqa: E402
from sitemap_auditor.sharing import lease  # noqa: E402

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
    partitions: int | None = None  # the table's partitions; None: DynamoDB's limits per item
    clock_skew_s: float = 0.0  # each container's clock off by uniform(-this, this)
    kills: int = 1  # how many fetches in a row `kill_after` kills
    heavy: bool = False  # the table under harness.simdynamo.HEAVY conditions
    condition: str = ""  # the conditions' name, when not the project's


# Every scenario runs with sharing on under these conditions too, beside its rows under the
# project's: the table slower, with a heavier tail and one call in ten throttled; and the
# containers' clocks skewed within CLOCK_SKEW_S of each other, beyond it, and far beyond (a
# clock that lost NTP for hours).
CONDITIONS: tuple[tuple[str, dict[str, float]], ...] = (
    ("heavy latency, 10 % throttled", {"heavy": True}),
    (f"clocks ±{lease.CLOCK_SKEW_S / 2:g} s", {"clock_skew_s": lease.CLOCK_SKEW_S / 2}),
    (f"clocks ±{lease.CLOCK_SKEW_S:g} s", {"clock_skew_s": lease.CLOCK_SKEW_S}),
    ("clocks ±8 s", {"clock_skew_s": 8.0}),
)


@dataclass(frozen=True)
class Row:
    scenario: str
    mode: str
    condition: str  # "" for the project's conditions
    audits: int
    p50: float
    p99: float
    incomplete: int
    fetches: int
    read_units: float
    write_units: float
    gb_s: float
    lost: int
    throttled: int  # store calls (attempts) the table throttled
    peak_read: float  # the most read units one item (or partition) took within one second
    peak_write: float

    @property
    def dynamo_usd(self) -> float:
        return self.read_units * READ_UNIT + self.write_units * WRITE_UNIT

    @property
    def lambda_usd(self) -> float:
        return self.gb_s * LAMBDA_GB_S + self.arrived * LAMBDA_REQUEST

    @property
    def arrived(self) -> int:
        """Audits asked for: those that answered and those lost with their containers."""
        return self.audits + self.lost


def burst(n: int, site: str = "s", spread_s: float = 1.0) -> Arrivals:
    return [(i * spread_s / n, site) for i in range(n)]


def hot_sites(sites: int, burst_n: int, rate: float, span_s: float) -> Arrivals:
    """Sites all hot at once: each a burst of `burst_n` audits within the first second, then
    `rate` audits a second each until `span_s`."""
    out: Arrivals = []
    for i in range(sites):
        name = f"hot{i}"
        out += [(k / burst_n + i / (sites * burst_n), name) for k in range(burst_n)]
        steady = int((span_s - 1.0) * rate)
        out += [(1.0 + (k + i / sites) / rate, name) for k in range(steady)]
    return sorted(out)


def slow_sites_dying(n: int) -> list[Scenario]:
    """Slow sites whose holders die, or whose facts grow too large, mid-fetch: where waiting
    once cost results that sharing off completes."""
    return [
        Scenario(
            f"{n:,} audits over 60 s of a site never fetched, 120 s fetch, the holder dies at 30 s",
            {"s": Site(120.0)},
            burst(n, spread_s=60.0),
            kill_after=30.0,
        ),
        Scenario(
            f"{n:,} audits over 60 s of a site never fetched, 80 s fetch, the holder dies at "
            "68.5 s",
            {"s": Site(80.0)},
            burst(n, spread_s=60.0),
            kill_after=68.5,
        ),
        Scenario(
            f"{n:,} audits over 60 s, 120 s fetch of 100 candidates, facts past 16 KB after the "
            "ninth",
            {"s": Site(120.0, facts_bytes=200 * 1024, candidates=100)},
            burst(n, spread_s=60.0),
        ),
        Scenario(
            f"{n:,} audits over 60 s of a site never fetched, 120 s fetch, facts that pass 16 KB "
            "only with its sitemap's outcome, at the end",
            {"s": Site(120.0, facts_bytes=MAX_SHARED_BYTES + 1024)},
            burst(n, spread_s=60.0),
        ),
        Scenario(
            "a burst whose facts pass 16 KB only with its sitemap's outcome, at the end, 5 s fetch",
            {"s": Site(5.0, facts_bytes=MAX_SHARED_BYTES + 1024)},
            burst(n),
        ),
        Scenario(
            f"{n:,} audits over 60 s, 25 s fetch, every fetch kills its container 1 s in",
            {"s": Site(25.0)},
            burst(n, spread_s=60.0),
            kill_after=1.0,
            kills=10**9,
        ),
        Scenario(
            f"{n:,} audits over 60 s, 25 s fetch, the first two fetches kill their containers "
            "1 s in",
            {"s": Site(25.0)},
            burst(n, spread_s=60.0),
            kill_after=1.0,
            kills=2,
        ),
    ]


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
    # 50 sites hot at once on a table of 4 partitions (about 12 sites' items on each): a burst
    # of 20 audits each within 1 s (1,000 audits), then 2 a second each for a minute.
    hot_n = 5 if quick else 50
    hot = hot_sites(hot_n, 20, 2.0, 60.0)
    sizes = random.Random(4)
    sites_hot_large = {
        f"hot{i}": Site(0.8, facts_bytes=sizes.randint(150_000, 300_000)) for i in range(hot_n)
    }
    sites_hot_small = {f"hot{i}": Site(0.8, facts_bytes=650) for i in range(hot_n)}
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
        *slow_sites_dying(n),
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
        Scenario(
            f"{hot_n} hot sites on 4 partitions, facts of 150–300 KB (not shared), 0.8 s fetch",
            sites_hot_large,
            hot,
            partitions=4,
        ),
        Scenario(
            f"{hot_n} hot sites on 4 partitions, 650 B items, 0.8 s fetch",
            sites_hot_small,
            hot,
            partitions=4,
        ),
        Scenario(
            f"{n:,} audits over 60 s, 80 s fetch, its fetch time recorded by an earlier audit",
            {"s": Site(80.0)},
            [(0.0, "s"), *((150.0 + t, site) for t, site in burst(n, spread_s=60.0))],
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
        partitions=s.partitions,
        clock_skew_s=s.clock_skew_s,
        kills=s.kills,
        heavy=s.heavy,
    )
    f.run(s.arrivals)
    durations = sorted(r.ended - r.arrived for r in f.records if s.measured(r.site))
    db = f.table.db
    billed = sum(r.ended - r.started for r in f.records) + f.lost_billed_s
    return Row(
        s.name,
        mode,
        s.condition,
        len(f.records),
        _pct(durations, 0.5),
        _pct(durations, 0.99),
        sum(1 for r in f.records if not r.complete),
        len(f.fetches),
        db.read_units,
        db.write_units,
        billed * LAMBDA_GB,
        f.lost_audits,
        db.throttled_calls,
        db.peak_units["read"],
        db.peak_units["write"],
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
        "(harness/fleet.py), against the simulated DynamoDB of harness/simdynamo.py",
        f"({READ_UNITS_PER_S:,.0f} read and {WRITE_UNITS_PER_S:,.0f} write units a second per "
        "item; in the rows on partitions, per",
        "partition, shared by the items whose keys hash to it; log-normal latencies, lagging",
        "eventually consistent reads, botocore's two attempts on throttling). In the rows with",
        "skewed clocks, each container's wall clock is off the true time by an offset of its own,",
        "uniform within the bounds the row states: its driver reads it, its facts and leases carry",
        "it, and the items it reads are judged on it as `dynamostore.read_item` judges them.",
        f"±{lease.CLOCK_SKEW_S / 2:g} s keeps any two clocks within `lease.CLOCK_SKEW_S`; "
        f"±{lease.CLOCK_SKEW_S:g} s goes beyond it; ±8 s is a clock that lost NTP for hours.",
        "A container runs one invocation at a time and keeps its process store; 1,000 containers",
        "at most (Lambda's concurrency), the rest queue; a killed container's audit is lost and",
        "Lambda starts another in its place. Budgets are 147 s, the share window 60 s. `on`: the",
        "table; `process`: in-process only; `off`: `SITEMAP_SHARE_SECONDS=0`. Latency is from",
        'arrival (queue included) to the facts and the rules. "busiest second": the most read /',
        "write units one item (or partition) took within one second of the clock (the limit is",
        f"{READ_UNITS_PER_S:,.0f} / {WRITE_UNITS_PER_S:,.0f} a second, with a second's worth "
        'saved up); "throttled calls": attempts',
        "the table refused for it. Lambda is billed at 256 MB (the template's MemorySize),",
        f"${LAMBDA_GB_S} per GB-s and $0.20 per million requests; DynamoDB on demand, $0.125 per",
        "million read units and $0.625 per million write units. `audits`: those that answered;",
        "costs are per million audits asked for, those lost with their containers included",
        "(billed until the container died).",
        "",
        "| scenario | mode | audits | p50 | p99 | incomplete | site fetches | read units | "
        "write units | busiest second | throttled calls | DynamoDB $ / M audits | GB-s | "
        "Lambda $ / M audits |",
        "| --- | --- |" + " ---: |" * 12,
    ]

    def line(r: Row, first: str) -> str:
        per = 1e6 / max(1, r.arrived)
        return (
            f"| {first} | {r.audits:,} | {r.p50:.2f} s | {r.p99:.2f} s | "
            f"{r.incomplete} | {r.fetches:,} | {r.read_units:,.1f} | {r.write_units:,.1f} | "
            f"{r.peak_read:,.0f} / {r.peak_write:,.0f} | {r.throttled:,} | "
            f"{r.dynamo_usd * per:.2f} | {r.gb_s:,.1f} | {r.lambda_usd * per:.2f} |"
        )

    lines = [line(r, f"{r.scenario} | {r.mode}") for r in rows if not r.condition]
    others = [line(r, f"{r.scenario} | {r.condition}") for r in rows if r.condition]
    more = [
        "",
        "### Sharing on under other conditions",
        "",
        "The same scenarios with sharing on, the table under heavier conditions (medians three",
        "times as long, a heavier tail, one call in ten throttled whatever its units; an answer",
        "slower than its read timeout is lost, the call applied), or the containers' clocks",
        "skewed; each judged below against the scenario's row with sharing off above.",
        "",
        "| scenario | conditions |" + head[-2].split("| mode |", 1)[1],
        head[-1],
        *others,
    ]
    return "\n".join([*head, *lines, *(more if others else []), "", *judged(rows), "", END]) + "\n"


def judged(rows: list[Row]) -> list[str]:
    """Each scenario's sharing on against off: more incomplete results (never allowed), and a
    p50 or a cost over 1.2 times off's (said in docs/operations.md)."""
    offs = {r.scenario: r for r in rows if r.mode == "off" and not r.condition}
    worse_results, slower, dearer = [], [], []
    for on in (r for r in rows if r.mode == "on"):
        off = offs.get(on.scenario)
        if off is None:
            continue
        name = on.scenario + (f", {on.condition}" if on.condition else "")
        if on.incomplete > off.incomplete:
            worse_results.append(f"{name} ({on.incomplete} against {off.incomplete})")
        if on.p50 > 1.2 * off.p50:
            slower.append(f"{name} (p50 {on.p50:.2f} s against {off.p50:.2f} s)")
        cost_on = (on.dynamo_usd + on.lambda_usd) / max(1, on.arrived)
        cost_off = (off.dynamo_usd + off.lambda_usd) / max(1, off.arrived)
        if cost_on > 1.2 * cost_off:
            dearer.append(f"{name} (${cost_on * 1e6:.2f} against ${cost_off * 1e6:.2f} a million)")
    out = [
        "Sharing on against off, row by row: "
        + (
            "no row has more incomplete results."
            if not worse_results
            else "**more incomplete results** in " + "; ".join(worse_results) + "."
        )
    ]
    out.append("- p50 over 1.2 times off's: " + ("; ".join(slower) if slower else "none") + ".")
    out.append(
        "- cost (DynamoDB and Lambda a million audits) over 1.2 times off's: "
        + ("; ".join(dearer) if dearer else "none")
        + "."
    )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="100-audit variants")
    parser.add_argument("--no-write", action="store_true", help="do not write RESULTS.md")
    parser.add_argument(
        "--only", metavar="TEXT", help="only the rows whose scenario names it (not written)"
    )
    args = parser.parse_args(argv)
    started = time.process_time()
    rows = []
    chosen = [s for s in scenarios(args.quick) if args.only is None or args.only in s.name]
    for s in chosen:
        for mode in MODES:
            print(f"{s.name} [{mode}] ...", file=sys.stderr, flush=True)
            rows.append(run(s, mode))
    for label, changes in CONDITIONS:
        for s in chosen:
            print(f"{s.name} [on, {label}] ...", file=sys.stderr, flush=True)
            rows.append(run(replace(s, condition=label, **changes), "on"))  # type: ignore[arg-type]
    text = render(rows, args.quick, time.process_time() - started)
    print(text)
    if not (args.no_write or args.only):
        report.write_section(text, BEGIN, END)
        print("wrote the section into bench/RESULTS.md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
