"""LastmodStats.add_keys (a run of values counted at once) against add of each value in turn:
the same counts, days, months and bounds, whatever the runs and wherever the caps fall."""

from __future__ import annotations

import random

import pytest

from sitemap_auditor.deep.lastmods import MAX_DISTINCT_DAYS, MAX_MONTHS, LastmodStats

_DAY = 86_400 * 1_000_000
_START = 737_000 * _DAY  # in 2018


def _state(stats: LastmodStats) -> tuple[object, ...]:
    return stats.count, stats.earliest, stats.latest, stats.days, stats.months, stats.values


def _runs(keys: list[int], draw: random.Random) -> list[list[int]]:
    out, at = [], 0
    while at < len(keys):
        size = draw.choice([1, 2, 7, 100, 4096])
        out.append(keys[at : at + size])
        at += size
    return out


def _keys(draw: random.Random, shape: str) -> list[int]:
    if shape == "distinct":  # a timestamp per URL, in order, as WordPress writes them
        return [_START + i * 37_000_000 for i in range(draw.randint(1, 30_000))]
    if shape == "repeated":  # a few values, shuffled
        few = [_START + draw.randrange(400) * _DAY + draw.randrange(3) for _ in range(50)]
        return [draw.choice(few) for _ in range(draw.randint(1, 20_000))]
    if shape == "many-days":  # past the bound on days, and back to the first ones
        days = [_START + d * _DAY for d in range(MAX_DISTINCT_DAYS + 300)]
        return days + days[:500] + [days[-1]] * 3
    # past the bound on months (a century and more), some months coming back
    months = [d * 31 * _DAY for d in range(MAX_MONTHS + 200)]
    return months + months[:50] + months[-10:]


@pytest.mark.parametrize("shape", ["distinct", "repeated", "many-days", "many-months"])
@pytest.mark.parametrize("seed", range(4))
def test_a_run_counts_as_each_of_its_values_does(shape: str, seed: int) -> None:
    draw = random.Random(seed)
    keys = _keys(draw, shape)
    one_by_one, in_runs = LastmodStats(), LastmodStats()
    # Some values before, one by one in both, so that runs start with state to carry on.
    for key in keys[:3]:
        one_by_one.add(key)
        in_runs.add(key)
    for key in keys[3:]:
        one_by_one.add(key)
    for run in _runs(keys[3:], draw):
        in_runs.add_keys(run)
    assert _state(in_runs) == _state(one_by_one)
    # And the next values, one by one, land the same way after either: each run leaves the
    # day and month it ends on as `add` leaves them.
    for key in (keys[-1], keys[-1] + 1, keys[0], _START - 40 * _DAY):
        one_by_one.add(key)
        in_runs.add(key)
        assert _state(in_runs) == _state(one_by_one)
