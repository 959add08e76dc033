"""Sharing at a hot site's scale, simulated: the fleet in virtual time, each audit the real driver.

    make bench-scale                  # = .venv/bin/python bench/scale.py
    .venv/bin/python bench/scale.py --quick --no-write      # smaller day models, a quicker look

No machine here runs a thousand containers, so this plays them in virtual time
(harness/fleet.py, the one fleet simulator): each audit is one call of the function's own
driver, `sitemap_auditor.sharing.driver.Sharing.obtain` (and through it the protocol core,
`sitemap_auditor.sharing.lease`), against a simulated DynamoDB item with per-item token buckets
(3,000 read units/s, 1,000 write units/s; a consistent read 1 unit per 4 KB, an eventually
consistent one half; a write 1 unit per KB; a conditional write that fails 1 unit), call
latencies, reads that lag and throttling answered as DynamoDB answers it. The same scenarios run
with sharing off beside them. Lambda is billed as 256 MB arm64, DynamoDB on demand. Prints the
markdown section and writes it into bench/RESULTS.md, between its markers. bench/fleet.py runs
the scenarios where sharing could lose, with in-process sharing beside; this one, the scale.
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import math
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

import report  # noqa: E402

from harness.fleet import RealFleet, Site  # noqa: E402

BEGIN = "<!-- bench/scale.py: begin -->"
END = "<!-- bench/scale.py: end -->"

# Prices (us-east-1): Lambda arm64 per GB-second and per request; DynamoDB on demand per unit.
LAMBDA_GB = 0.25
LAMBDA_GB_S = 0.0000133334
LAMBDA_REQUEST = 0.20 / 1e6
READ_UNIT = 0.125 / 1e6
WRITE_UNIT = 0.625 / 1e6
WINDOW_S = 60.0
BUDGET_S = 147.0  # the function's 150 s, less the margin kept to return the result
# The targets of the issue.
TARGET_HOT_WAITING = 20
UNSHAREABLE_SLACK_S = 1.0

MODES = {"on": "on", "off": "off"}  # the table; SITEMAP_SHARE_SECONDS=0


@dataclass
class Outcome:
    """What one run of a scenario gave."""

    mode: str
    fleet: RealFleet
    cpu_s: float

    @property
    def audits(self) -> int:
        return len(self.fleet.records)

    @property
    def fetches(self) -> int:
        return len(self.fleet.fetches)

    @property
    def throttle_fetches(self) -> int:
        """Audits that fetched because the store did not answer (here: throttled past the
        SDK's attempts and the driver's patience)."""
        return sum(1 for r in self.fleet.records if r.reason == "store-failed")

    @property
    def incomplete(self) -> int:
        return self.fleet.incomplete()

    def durations(self) -> list[float]:
        return sorted(r.ended - r.arrived for r in self.fleet.records)

    @property
    def lambda_usd(self) -> float:
        billed = sum(r.ended - r.started for r in self.fleet.records)
        return billed * LAMBDA_GB * LAMBDA_GB_S + len(self.fleet.records) * LAMBDA_REQUEST

    @property
    def dynamo_usd(self) -> float:
        s = self.fleet.table.db
        return s.read_units * READ_UNIT + s.write_units * WRITE_UNIT

    def per_million(self, usd: float) -> float:
        return usd / max(1, len(self.fleet.records)) * 1e6


def simulate(
    mode: str,
    arrivals: Callable[[], Iterable[tuple[float, str]]],
    containers: int,
    sites: dict[str, Site] | None = None,
    default_site: Callable[[str], Site] | None = None,
    seed: int = 7,
    **options: float,
) -> Outcome:
    """One scenario, one mode."""
    fleet = RealFleet(
        containers,
        dict(sites or {}),
        mode=MODES[mode],
        window_s=int(WINDOW_S),
        budget_s=BUDGET_S,
        seed=seed,
        default_site=default_site,
        **options,  # type: ignore[arg-type]
    )
    started = time.process_time()
    fleet.run(arrivals())
    return Outcome(mode, fleet, time.process_time() - started)


Arrivals = Callable[[], Iterator[tuple[float, str]]]


def burst(n: int, spread_s: float = 1.0, site: str = "site") -> Arrivals:
    """n audits of one site, evenly over spread_s."""
    return lambda: ((i * spread_s / n, site) for i in range(n))


def poisson(rate: float, seconds: float, site: str, seed: int) -> Arrivals:
    """Audits of one site at this mean rate for this long."""

    def gen() -> Iterator[tuple[float, str]]:
        rng = random.Random(seed)
        t = 0.0
        while True:
            t += rng.expovariate(rate)
            if t > seconds:
                return
            yield t, site

    return gen


# --- scenarios ----------------------------------------------------------------------------------


def scenario_bursts() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for containers in (200, 1000):
        for fetch_s in (0.8, 25.0):
            site = {"site": Site(fetch_s)}
            runs = {m: simulate(m, burst(1000), containers, site) for m in ("on", "off")}
            rows.append({"containers": containers, "fetch_s": fetch_s, **runs})
    return rows


def scenario_killed() -> dict[str, Outcome]:
    site = {"site": Site(25.0)}
    return {m: simulate(m, burst(1000), 1000, site, kill_first_fetch_after=5.0) for m in ("on",)}


def scenario_unshareable() -> list[tuple[float, dict[str, Outcome]]]:
    out = []
    for fetch_s in (0.8, 5.0):
        site = {"site": Site(fetch_s, facts_bytes=200 * 1024)}
        out.append((fetch_s, {m: simulate(m, burst(1000), 1000, site) for m in ("on", "off")}))
    return out


def unshareable_lag(o: Outcome, fetch_s: float) -> float:
    """The longest an audit took beyond one fetch of its own, counted from its arrival or from
    the end of the unshareable fetch it waited for, whichever is later."""
    first_end = min(f.ended for f in o.fleet.fetches if f.ended is not None)
    worst = 0.0
    for r in o.fleet.records:
        start = max(r.arrived, first_end) if r.arrived < first_end else r.arrived
        worst = max(worst, r.ended - start - fetch_s)
    return worst


def scenario_slow_site() -> dict[str, Outcome]:
    site = {"site": Site(120.0)}
    return {m: simulate(m, burst(1000, spread_s=60.0), 1000, site) for m in ("on", "off")}


@dataclass
class Hot:
    rate: float
    outcome: Outcome
    max_waiting_after_first: int
    fetches_per_window: int
    fetch_count: int


def scenario_hot(quick: bool) -> list[Hot]:
    seconds = 300.0 if quick else 600.0
    out = []
    for rate in (200.0, 400.0):
        for mode in ("on",):
            site = {"hot": Site(5.0)}
            o = simulate(mode, poisson(rate, seconds, "hot", seed=int(rate)), 1000, site)
            samples = o.fleet.waiting("hot", 0.05, seconds)
            first = min(f.ended for f in o.fleet.fetches if f.ended is not None)
            # After the cold start: from the first moment after the first publish that no audit
            # waits (the first crowd, which no earlier facts could serve, has drained).
            drained = next((t for t, n in samples if t > first and n == 0), math.inf)
            after = [n for t, n in samples if t > drained]
            ends = sorted(f.ended for f in o.fleet.fetches if f.ended is not None)
            starts = sorted(f.started for f in o.fleet.fetches)
            per_window = max(
                bisect.bisect_right(starts, e + WINDOW_S) - bisect.bisect_left(starts, e)
                for e in ends
            )
            out.append(Hot(rate, o, max(after, default=0), per_window, len(o.fleet.fetches)))
    return out


def zipf_sites(n_sites: int, audits: int, rng: random.Random) -> list[int]:
    """The site rank of each audit, Zipf with s = 1 over n_sites."""
    weights = list(itertools.accumulate(1.0 / k for k in range(1, n_sites + 1)))
    return rng.choices(range(n_sites), cum_weights=weights, k=audits)


def site_model(name: str) -> Site:
    """A site of the day models: its fetch time and facts size drawn once, from its name."""
    rng = random.Random(name)
    fetch_s = min(60.0, rng.lognormvariate(math.log(1.0), 0.8))
    # Items of encoded, compressed facts measure 600 bytes (one Sitemap: line) to 1 KB (100 of
    # them, 20 unparsable lastmods): a median of 650 bytes, a few over 1 KB.
    size = int(min(300_000, rng.lognormvariate(math.log(650), 0.25)))
    return Site(fetch_s, facts_bytes=size)


def day_even(n_sites: int, audits: int) -> Arrivals:
    def gen() -> Iterator[tuple[float, str]]:
        rng = random.Random(11)
        ranks = zipf_sites(n_sites, audits, rng)
        times = sorted(rng.uniform(0, 86_400) for _ in range(audits))
        for t, k in zip(times, ranks, strict=True):
            yield t, f"s{k}"

    return gen


def day_crawl(n_sites: int, audits: int) -> Arrivals:
    """Each site's audits as one crawl of 10 pages a second, starting at a random moment."""

    def gen() -> Iterator[tuple[float, str]]:
        rng = random.Random(12)
        counts = Counter(zipf_sites(n_sites, audits, rng))
        pages: list[tuple[float, str]] = []
        for k, n in counts.items():
            start = rng.uniform(0, 86_400 - n / 10)
            pages.extend((start + i / 10, f"s{k}") for i in range(n))
        pages.sort()
        yield from pages

    return gen


def scenario_days(quick: bool) -> list[tuple[str, dict[str, Outcome]]]:
    # Each audit is one call of the real driver, about a millisecond of CPU: a day of a million
    # audits would take the better part of an hour a mode. Scaled down, sites and audits alike.
    audits, n_sites = (20_000, 2_000) if quick else (200_000, 20_000)
    out = []
    for name, gen in (("spread evenly", day_even), ("crawl-like", day_crawl)):
        runs = {
            m: simulate(m, gen(n_sites, audits), 300, default_site=site_model)
            for m in ("on", "off")
        }
        out.append((name, runs))
    return out


# --- the report ---------------------------------------------------------------------------------

TEMPLATE = """{begin}
## Sharing at scale (simulated)

Generated by `bench/scale.py` (`make bench-scale`); do not edit by hand. {cpu}

Virtual time (harness/fleet.py): every audit is one call of the function's own driver,
`sitemap_auditor.sharing.driver.Sharing.obtain` (its clock, sleep, lease token and renewal
thread injected; through it the protocol core, `sitemap_auditor.sharing.lease`),
against a simulated DynamoDB item per site with per-item token buckets ({read_rate:,} read units/s,
{write_rate:,} write units/s; a consistent read 1 unit per 4 KB, an eventually consistent one half,
a write 1 unit per KB, a conditional write that fails 1 unit), log-normal call latencies (reads
{read_ms} ms, writes {write_ms} ms median), eventually consistent reads up to {lag_ms} ms behind,
and throttling answered as DynamoDB answers it (botocore tries a throttled call twice). A
container runs one invocation at a time and keeps its process store; a site's fetch takes
the time given (past 5 s, an early waiter may fetch beside it in the standby slot); every
audit has a {budget:.0f} s budget; the share window is {window:.0f} s.
"on" is sharing on, "off" is `SITEMAP_SHARE_SECONDS=0`. Lambda is billed as 256 MB arm64
(${gb_s} per GB-s, $0.20 per million requests), DynamoDB on demand ($0.125 per million read
units, $0.625 per million write units).

### Targets

{targets}

### 1,000 audits of one site at once (within one second)

{head0}
{bursts}

### The holder killed 5 s into a 25 s fetch (1,000 audits, 1,000 containers)

{head1}
{killed}

### Facts that cannot be shared (too large for an item), 1,000 audits at once

"Beyond one fetch" is the longest any audit took past one fetch time of its own, counted from
its arrival or, for an audit that waited, from the end of the unshareable fetch it waited for.

{head2}
{unshareable}

### A site whose fetch takes 120 s, 1,000 audits over a minute

{head3}
{slow}

### A hot site for {hot_minutes} minutes, 5 s fetch, 1,000 containers

Waiting is the number of audits asleep on another's lease at one moment, sampled every 50 ms,
once the cold start's crowd (the audits that no earlier facts could serve) has drained.
Fetches per window: the most fetches that started within one window of a publish.

{head4}
{hot}

### A day: {day_audits:,} audits over {day_sites:,} sites (Zipf, s = 1), 300 containers

Site fetch times are log-normal (median 1 s); facts items log-normal (median 650 bytes, as
measured on encoded facts).

{head5}
{days}

{notes}
{end}
"""


# The tables' columns, and which are figures (right-aligned).
HEADS: dict[str, list[str]] = {
    "head0": [
        "containers",
        "fetch",
        "mode",
        "site fetches",
        "caused by throttling",
        "slowest audit",
        "p50 audit",
        "failed conditional writes",
        "throttled calls",
        "read units",
        "write units",
        "Lambda $",
        "DynamoDB $",
    ],
    "head1": [
        "mode",
        "site fetches",
        "audits lost with the holder",
        "others complete",
        "slowest audit",
    ],
    "head2": ["fetch", "mode", "site fetches", "slowest audit", "beyond one fetch", "Lambda $"],
    "head3": ["mode", "site fetches", "complete results", "incomplete results", "slowest audit"],
    "head4": [
        "audits/s",
        "mode",
        "audits",
        "site fetches",
        "most waiting",
        "fetches per window",
        "p50 audit",
        "slowest audit",
        "read units",
        "write units",
        "DynamoDB $ per million audits",
    ],
    "head5": [
        "arrivals",
        "mode",
        "site fetches",
        "DynamoDB $ / million audits",
        "Lambda $ / million audits",
        "total $ / million audits",
    ],
}


def _head(cols: list[str]) -> str:
    figures = {c for c in cols if c not in ("mode", "arrivals")}
    rule = " | ".join("---:" if c in figures else "---" for c in cols)
    return f"| {' | '.join(cols)} |\n| {rule} |"


def _s(x: float) -> str:
    return f"{x:.2f} s"


def _usd(x: float) -> str:
    return f"{x:.4f}" if x < 10 else f"{x:.2f}"


def render(
    bursts: list[dict[str, object]],
    killed: dict[str, Outcome],
    unshareable: list[tuple[float, dict[str, Outcome]]],
    slow: dict[str, Outcome],
    hot: list[Hot],
    days: list[tuple[str, dict[str, Outcome]]],
    quick: bool,
    cpu_s: float,
) -> str:
    """The markdown section."""
    targets: list[str] = []

    def judge(ok: bool, text: str) -> None:
        targets.append(f"- {text}: {'met' if ok else '**missed**'}")

    burst_rows = []
    fetch_ok = True
    for row in bursts:
        for mode in ("on", "off"):
            o = row[mode]
            assert isinstance(o, Outcome)
            d = o.durations()
            s = o.fleet.table.db
            if mode == "on":
                # The holder's fetch, and for a fetch past lease.STANDBY_MIN_S its standby's.
                fetch_ok &= o.fetches <= (1 if row["fetch_s"] < 5.0 else 2)  # type: ignore[operator]
                fetch_ok &= o.throttle_fetches == 0
            burst_rows.append(
                f"| {row['containers']:,} | {row['fetch_s']} s | {mode} | {o.fetches} | "
                f"{o.throttle_fetches} | {_s(d[-1])} | {_s(statistics.median(d))} | "
                f"{s.failed_conditional_writes} | {s.throttled_calls} | {s.read_units:,.0f} | "
                f"{s.write_units:,.0f} | {_usd(o.lambda_usd)} | {_usd(o.dynamo_usd)} |"
            )
    judge(
        fetch_ok,
        "one site fetch per burst (and its standby's, for a fetch past 5 s), none caused by "
        "throttling (on, every burst)",
    )
    killed_rows = []
    for mode, o in killed.items():
        lost = o.fleet.lost_audits
        done = o.fleet.records
        complete = sum(1 for r in done if r.complete)
        killed_rows.append(
            f"| {mode} | {o.fetches} | {lost} | {complete} of {len(done)} | "
            f"{_s(max(r.ended - r.arrived for r in done))} |"
        )
    judge(
        killed["on"].fetches <= 3,
        "at most two more site fetches when the holder dies (a standby's, a takeover's) (on)",
    )
    un_rows = []
    un_ok = True
    for fetch_s, runs in unshareable:
        for mode, o in runs.items():
            lag = unshareable_lag(o, fetch_s)
            if mode == "on":
                un_ok &= lag <= UNSHAREABLE_SLACK_S
            un_rows.append(
                f"| {fetch_s} s | {mode} | {o.fetches} | {_s(o.durations()[-1])} | {_s(lag)} | "
                f"{_usd(o.lambda_usd)} |"
            )
    judge(un_ok, "unshareable facts: every audit done within one fetch time + 1 s (on)")
    slow_rows = []
    for mode, o in slow.items():
        slow_rows.append(
            f"| {mode} | {o.fetches} | {o.audits - o.incomplete} | {o.incomplete} | "
            f"{_s(o.durations()[-1])} |"
        )
    judge(
        slow["on"].incomplete == slow["off"].incomplete == 0,
        "the 120 s site: every result complete, as with sharing off (on)",
    )
    hot_rows = []
    hot_ok = True
    for h in hot:
        o = h.outcome
        d = o.durations()
        s = o.fleet.table.db
        if o.mode == "on":
            hot_ok &= h.max_waiting_after_first <= TARGET_HOT_WAITING and h.fetches_per_window <= 2
        hot_rows.append(
            f"| {h.rate:.0f} | {o.mode} | {o.audits:,} | {h.fetch_count} | "
            f"{h.max_waiting_after_first} | {h.fetches_per_window} | {_s(statistics.median(d))} | "
            f"{_s(d[-1])} | {s.read_units:,.0f} | {s.write_units:,.0f} | "
            f"{_usd(o.per_million(o.dynamo_usd))} |"
        )
    judge(
        hot_ok,
        f"the hot site: at most {TARGET_HOT_WAITING} audits waiting at any window end and at most "
        "one refresh per window, with its standby's beside it (on)",
    )
    day_rows = []
    for name, runs in days:
        on, off = runs["on"], runs["off"]
        for mode, o in runs.items():
            total = o.lambda_usd + o.dynamo_usd
            day_rows.append(
                f"| {name} | {mode} | {o.fetches:,} | {_usd(o.per_million(o.dynamo_usd))} | "
                f"{_usd(o.per_million(o.lambda_usd))} | {_usd(o.per_million(total))} |"
            )
        judge(
            on.lambda_usd + on.dynamo_usd <= off.lambda_usd + off.dynamo_usd,
            f"{name}: the total with the table not above sharing off",
        )
    even = dict(days)["spread evenly"]
    notes = NOTES.format(
        even_alone=even["on"].fetches / max(1, len(even["on"].fleet.records)),
    )
    day_audits = len(days[0][1]["on"].fleet.records)
    return TEMPLATE.format(
        **{name: _head(cols) for name, cols in HEADS.items()},
        begin=BEGIN,
        end=END,
        cpu=f"The whole run took {cpu_s:.0f} s of CPU{' (--quick)' if quick else ''}.",
        read_rate=3000,
        write_rate=1000,
        read_ms=4,
        write_ms=7,
        lag_ms=50,
        budget=BUDGET_S,
        window=WINDOW_S,
        gb_s=LAMBDA_GB_S,
        targets="\n".join(targets),
        bursts="\n".join(burst_rows),
        killed="\n".join(killed_rows),
        unshareable="\n".join(un_rows),
        slow="\n".join(slow_rows),
        hot="\n".join(hot_rows),
        hot_minutes=5 if quick else 10,
        day_audits=day_audits,
        day_sites=2_000 if quick else 20_000,
        days="\n".join(day_rows),
        notes=notes,
    )


NOTES = """### Reading the figures

- An audit alone on its site in its window costs a read, a lease and a publish, two writes of
  at least one unit each. In the day spread evenly, {even_alone:.0%} of audits fetch their site:
  the store's spend can fall only as far as the shared part of it, and the lease cannot be
  skipped without letting an audit that arrives during the fetch fetch too.
- The protocol's savings come from eventually consistent reads (half a unit), from waiters
  that never write, from polls that back off, and from refreshing a busy site's facts ahead of
  the window's end, so that no crowd of waiters forms there.
"""


def write_section(text: str) -> None:
    """Put this script's section into RESULTS.md."""
    report.write_section(text, BEGIN, END)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller day models, shorter hot site")
    parser.add_argument("--no-write", action="store_true", help="do not write RESULTS.md")
    args = parser.parse_args(argv)
    started = time.process_time()
    log = sys.stderr
    print("bursts ...", file=log, flush=True)
    bursts = scenario_bursts()
    print("holder killed, unshareable, slow site ...", file=log, flush=True)
    killed = scenario_killed()
    unshareable = scenario_unshareable()
    slow = scenario_slow_site()
    print("hot site ...", file=log, flush=True)
    hot = scenario_hot(args.quick)
    print("day models ...", file=log, flush=True)
    days = scenario_days(args.quick)
    text = render(
        bursts, killed, unshareable, slow, hot, days, args.quick, time.process_time() - started
    )
    print(text)
    if not args.no_write:
        write_section(text)
        print("wrote the section into bench/RESULTS.md", file=log)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
