"""The sharing benchmark's report, rendered from made-up runs: every block of its one template is
filled in and used, and what it says follows the figures."""

from __future__ import annotations

import importlib
import random
import re
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def share() -> ModuleType:
    sys.path.insert(0, str(BENCH))
    import share as module

    return module


def made_up_run(
    share: ModuleType, kind: str, warm: bool, audits: int, seed: int, **how: bool
) -> object:
    rng = random.Random(seed)
    containers = 4 if audits > 1 else 1
    per = [[rng.uniform(1, 3) for _ in range(max(1, audits // 4))] for _ in range(containers)]
    seconds = [x for c in per for x in c]
    twice = how.get("twice", False)
    codes = Counter({"100/200": len(seconds) - (5 if how.get("cut") else 0)})
    if how.get("cut"):
        codes["100/400"] = 5
    return share.Run(
        kind, warm, seconds, rng.uniform(1, 50), rng.randint(10**6, 10**9), 2 if twice else 1, 1,
        Counter({"fetched": 2 if twice else 1, "waited": len(seconds) - 1}), 0, codes,
        len(seconds) - 1, 0, [rng.uniform(1, 2)], [0.1, 0.2] if twice else [0.1], per,
        [(0, 0), (1, 0)] if twice else [(0, 0)],
    )  # fmt: skip


def render(share: ModuleType, with_inits: bool) -> str:
    variants = []
    for name in ("sitemap.xml (plain)", "sitemap.xml.gz"):
        v = share.Variant(name, Path("/made-up") / name.split()[0], 20_000_056)
        seed = 0
        for warm in (False, True):
            for kind in ("lone", "lone-on"):
                seed += 1
                v.runs.append(made_up_run(share, kind, warm, 1, seed))
            seed += 1
            twice = warm and name.endswith("gz")
            v.runs.append(made_up_run(share, "on", warm, 100, seed, twice=twice))
        v.runs.append(made_up_run(share, "off", False, 100, seed + 1, cut=True))
        variants.append(v)
    inits = {
        False: share.Init([0.30, 0.31], [0.25, 0.26], False),
        True: share.Init([0.40, 0.42], [0.35, 0.37], True),
    }
    info = {
        "python": "Python 3.x",
        "cpu": "a CPU",
        "cores": "2",
        "os": "Linux",
        "load": "1 / 1 / 1",
    }
    return str(share.render(variants, inits if with_inits else None, info, 194_028, 3, "2", 60.0))


def test_every_block_of_the_template_is_filled_in_and_used(share: ModuleType) -> None:
    text = render(share, with_inits=True)
    assert text.startswith(share.BEGIN) and text.endswith(share.END + "\n")
    assert not re.search(r"\{[a-z_]+(:[^}]*)?\}", text), "a field left unfilled"
    assert "\n\n\n" not in text and "\n  " not in text
    for block, marker in {
        "target-cpu-with-init": "init (handler import) added",
        "fetched-once": "the sitemap was requested once and one audit fetched",
        "fetched-more": "a run with 2 sitemap requests",
        "fetched-more-before-publish": "All began before the first fetching audit ended",
        "cut": "5 of the 100 audits did not complete",
        "why-time": "a lone audit takes",
        "why-cpu": "CPU**: the 100 audits with sharing on used",
        "why-init": "The import itself costs 0.36 CPU s per container with a table",
        "init-table": "### Init: the handler's import, per container",
    }.items():
        assert block in share.TEMPLATES and marker in text, block


def test_without_init_figures_their_parts_are_left_out_cleanly(share: ModuleType) -> None:
    text = render(share, with_inits=False)
    assert "### Init" not in text and "The import itself costs" not in text
    assert "\n\n\n" not in text and "### Targets" in text


def test_a_quick_run_never_writes_the_tracked_results() -> None:
    """`bench/run.py --quick` rewrote bench/RESULTS.md with figures that are not the benchmark's."""
    sys.path.insert(0, str(BENCH))
    run = importlib.import_module("run")

    assert run.results_path(quick=False) == BENCH / "RESULTS.md"
    quick = run.results_path(quick=True)
    assert quick != BENCH / "RESULTS.md"
    assert quick.parent == BENCH / "out"  # git-ignored, and removed by make clean
    ignored = (BENCH.parent / ".gitignore").read_text(encoding="utf-8").split()
    assert "bench/out/" in ignored


def test_each_script_writes_only_its_own_section(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH))
    import report

    results = tmp_path / "RESULTS.md"
    sections = {
        name: f"<!-- bench/{name}.py: begin -->\n# {name} old\n<!-- bench/{name}.py: end -->\n"
        for name in ("run", "share", "scale")
    }
    results.write_text("\n".join(sections.values()), encoding="utf-8")
    begin, end = "<!-- bench/run.py: begin -->", "<!-- bench/run.py: end -->"
    report.write_section(f"{begin}\n# run new\n{end}\n", begin, end, results)
    text = results.read_text(encoding="utf-8")
    assert "# run new" in text and "# run old" not in text
    assert sections["share"] in text and sections["scale"] in text
    assert text.index("# run new") < text.index("# share old") < text.index("# scale old")
