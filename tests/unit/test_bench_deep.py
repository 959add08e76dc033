"""The deep-audit benchmark's own parts (bench/deep.py): the site generator's counts, reading each
contender's answer, the targets and the section of RESULTS.md it owns. No server here: the
benchmark run itself serves the site."""

from __future__ import annotations

import gzip
import importlib
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any
from xml.etree import ElementTree

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
BASE = "http://127.0.0.1:8123"


@pytest.fixture(scope="module")
def deep() -> ModuleType:
    sys.path.insert(0, str(BENCH))
    return importlib.import_module("deep")


def _entries(xml: bytes, tag: str) -> list[tuple[str, str | None]]:
    root = ElementTree.fromstring(xml)
    return [(e.findtext(f"{NS}loc") or "", e.findtext(f"{NS}lastmod")) for e in root.iter(tag)]


def test_the_generated_site_holds_what_it_says(deep: ModuleType, tmp_path: Path) -> None:
    # Children larger than one formatting batch, and more than one of them.
    per_child = deep.BATCH * 2 + 7
    site = deep.generate(tmp_path / "site", BASE, 3, per_child)
    assert site.urls == 3 * per_child
    index = (site.root / deep.INDEX).read_bytes()
    listed = _entries(index, f"{NS}sitemap")
    assert [loc for loc, _ in listed] == [f"{BASE}/{name}" for name in site.children]
    seen: set[str] = set()
    xml_bytes = len(index)
    for number, name in enumerate(site.children):
        xml = gzip.decompress((site.root / name).read_bytes())
        xml_bytes += len(xml)
        entries = _entries(xml, f"{NS}url")
        assert len(entries) == per_child
        assert all(loc.startswith(f"{BASE}/c{number}/") for loc, _ in entries)
        # A distinct full timestamp per URL, as real generators write them.
        lastmods = [lastmod for _, lastmod in entries]
        assert all(lastmod is not None and lastmod[:3] == "202" for lastmod in lastmods)
        full = [lastmod for lastmod in lastmods if lastmod and "T" in lastmod]
        assert len(set(full)) == len(full) and len(full) >= 0.85 * len(lastmods)
        seen.update(loc for loc, _ in entries)
    assert len(seen) == site.urls  # no duplicates: every URL counts once for every contender
    assert site.xml_bytes == xml_bytes
    served = len(index) + sum((site.root / n).stat().st_size for n in site.children)
    assert site.wire_bytes == served
    manifest = json.loads((site.root / "site.json").read_text(encoding="utf-8"))
    assert manifest == {"base": BASE, "children": 3, "perChild": per_child, "urls": site.urls}
    assert (
        site.robots()
        == f"User-agent: *\nDisallow: /private/\n\nSitemap: {BASE}/{deep.INDEX}\n".encode()
    )


def test_generating_again_replaces_the_old_site(deep: ModuleType, tmp_path: Path) -> None:
    deep.generate(tmp_path / "site", BASE, 4, 3)
    site = deep.generate(tmp_path / "site", BASE, 2, 3)
    assert sorted(p.name for p in site.root.glob("*.gz")) == list(site.children)


def test_the_issue_sizes(deep: ModuleType) -> None:
    assert deep.CHILDREN * deep.PER_CHILD == 500_000
    assert deep.LARGE_CHILDREN * deep.LARGE_PER_CHILD == 10_000_000
    assert deep.LARGE_PER_CHILD <= 50_000  # each child within the protocol's cap


def _run(deep: ModuleType, key: str, **figures: object) -> Any:
    run = deep.Run(key, ["x"], exit_code=0)
    for name, value in figures.items():
        setattr(run, name, value)
    return run


def test_the_deep_audit_is_read_from_its_document(deep: ModuleType) -> None:
    run = _run(deep, "deep")
    document = {"format": "sitemap-auditor-deep", "version": 1, "complete": False}
    document |= {"stoppedBy": "max-bytes", "totals": {"urls": 123}}
    deep.read_answer(run, json.dumps(document).encode(), "")
    assert (run.urls, run.complete, run.stopped_by, run.error) == (123, False, "max-bytes", "")
    # The command line of today, which has no `deep`, prints a Lambda result instead.
    other = _run(deep, "deep", exit_code=3)
    deep.read_answer(other, b'{"status": "ERROR"}', "Traceback\nboom\n")
    assert other.urls is None and "exit 3" in other.error and "boom" in other.error
    assert not other.ok


def test_a_peer_is_read_from_its_result_line(deep: ModuleType) -> None:
    run = _run(deep, "usp")
    out = f"noise\n{deep.RESULT_MARK}{json.dumps({'urls': 42, 'seconds': 1.5})}\n".encode()
    deep.read_answer(run, out, "")
    assert run.urls == 42 and run.ok
    silent = _run(deep, "usp", exit_code=1)
    deep.read_answer(silent, b"", "ImportError: no usp\n")
    assert silent.urls is None and "ImportError" in silent.error


def test_the_targets_are_judged_against_the_fastest_peer_that_found_every_url(
    deep: ModuleType,
) -> None:
    runs = {
        "deep": _run(deep, "deep", urls=100, wall_s=2.0, peak_mib=50.0),
        "usp": _run(deep, "usp", urls=100, wall_s=20.0, peak_mib=400.0),
        # Faster, but it missed URLs: it does not count.
        "advertools": _run(deep, "advertools", urls=99, wall_s=1.0, peak_mib=100.0),
    }
    verdict = deep.judge(runs, 100)
    assert (verdict.peer, verdict.speedup, verdict.memory_share) == ("usp", 10.0, 0.125)
    assert verdict.fast and verdict.small
    runs["deep"] = _run(deep, "deep", urls=100, wall_s=7.0, peak_mib=100.0)
    slow = deep.judge(runs, 100)
    assert (slow.fast, slow.small) == (False, False)
    runs["deep"].error = "no deep-audit document"
    missing = deep.judge(runs, 100)
    assert (missing.peer, missing.fast, missing.small) == ("usp", None, None)


def test_flatness_reads_the_rss_at_each_quarter(deep: ModuleType) -> None:
    run = _run(deep, "deep", samples=[(t / 4, 10.0 + t) for t in range(1, 17)])
    assert deep.flatness(run) == "14 / 18 / 22 / 26 MiB"  # the samples at 1, 2, 3, 4 s
    assert deep.flatness(_run(deep, "deep")) == "no samples"


def test_only_the_own_section_of_results_is_rewritten(deep: ModuleType, tmp_path: Path) -> None:
    results = tmp_path / "RESULTS.md"
    results.write_text("# Results\n\nother tables\n", encoding="utf-8")
    deep.write_section(f"{deep.BEGIN}\nfirst\n{deep.END}\n", results)
    deep.write_section(f"{deep.BEGIN}\nsecond\n{deep.END}\n", results)
    text = results.read_text(encoding="utf-8")
    assert text.startswith("# Results\n\nother tables\n")
    assert text.count(deep.BEGIN) == 1 and "second" in text and "first" not in text
    results.write_text(text + "\nafter\n", encoding="utf-8")
    deep.write_section(f"{deep.BEGIN}\nthird\n{deep.END}\n", results)
    assert results.read_text(encoding="utf-8").endswith(f"third\n{deep.END}\n\nafter\n")


def test_the_report_says_what_was_not_measured(deep: ModuleType, tmp_path: Path) -> None:
    site = deep.Site(tmp_path, BASE, ("a.xml.gz",), 100, 2048, 8192)
    runs = {
        "deep": _run(deep, "deep", error="no deep-audit document on stdout (exit 3)"),
        "usp": _run(deep, "usp", urls=100, wall_s=20.0, cpu_s=19.0, peak_mib=400.0),
    }
    text = deep.render(
        deep.Report(site, runs, ("advertools",), None, deep.datetime.now(deep.UTC), 1.5)
    )
    assert text.startswith(deep.BEGIN) and text.rstrip().endswith(deep.END)
    assert "not measured: no deep-audit document" in text
    assert "| 100 | 20.0 | 19.0 | 400 |" in text
    assert "Not installed, so not run: advertools" in text
    assert "(not judged)" in text
    assert "at 6.67 s of wall time or less and 80 MiB of peak RSS or less" in text


def test_a_process_is_measured_from_outside(deep: ModuleType, tmp_path: Path) -> None:
    # A stand-in for the deep audit's command line: it holds 100 MiB, then prints a document.
    document = {"format": "sitemap-auditor-deep", "complete": True, "stoppedBy": None}
    document["totals"] = {"urls": 7}
    code = (
        "import json, sys, time\n"
        "held = bytearray(100 * 1024 * 1024)\n"
        "while time.process_time() < 0.5: pass\n"
        f"print(json.dumps({document!r}))\n"
    )
    run = deep.measure("deep", [sys.executable, "-c", code], tmp_path / "deep.log", timeout=60)
    assert run.ok and run.exit_code == 0 and run.urls == 7 and run.complete
    assert run.peak_mib >= 100
    assert run.cpu_s >= 0.5 and run.wall_s >= run.cpu_s * 0.9  # one thread: no more CPU than wall
    assert run.samples and max(rss for _, rss in run.samples) >= 100


def test_a_process_past_its_time_is_stopped(deep: ModuleType, tmp_path: Path) -> None:
    code = "while True: pass"
    run = deep.measure("usp", [sys.executable, "-c", code], tmp_path / "usp.log", timeout=0.5)
    assert run.timed_out and not run.ok and run.urls is None


def test_the_fastest_of_several_runs_is_kept_with_every_wall_time(
    deep: ModuleType, tmp_path: Path
) -> None:
    line = deep.RESULT_MARK + json.dumps({"urls": 3, "seconds": 0})
    command = [sys.executable, "-c", f"print({line!r})"]
    run = deep.best_of("usp", command, tmp_path / "usp.log", 3)
    assert run.ok and run.urls == 3 and len(run.walls) == 3 and run.wall_s == min(run.walls)
    failing = deep.best_of("usp", [sys.executable, "-c", "raise SystemExit(2)"], tmp_path / "f", 3)
    assert not failing.ok and failing.exit_code == 2 and failing.walls == []


def test_a_missed_target_is_explained_from_the_parse_floor(
    deep: ModuleType, tmp_path: Path
) -> None:
    site = deep.Site(tmp_path, BASE, ("a.xml.gz",), 100, 2048, 8192)
    runs = {
        "deep": _run(deep, "deep", urls=100, wall_s=4.0, cpu_s=3.5, peak_mib=50.0),
        "advertools": _run(deep, "advertools", urls=100, wall_s=5.0, cpu_s=4.5, peak_mib=500.0),
    }
    floor = deep.Floor(
        lambda_parser=0.9, entry_events=0.8, bare_expat=0.3, bare_iso=0.5, dedupe=0.5, runs=2
    )
    report = deep.Report(site, runs, (), None, deep.datetime.now(deep.UTC), 3.0, (), floor, 4.0)
    text = deep.render(report)
    assert "expat alone, with no Python handler, reads every byte of them in 0.30 s" in text
    assert "every entry reported, no check) takes 0.80 s" in text
    assert "the Lambda's parser in 0.90 s" in text
    assert "so 2.20 s are the other checks and the rest" in text
    # The floor: 0.5 s for 100 URLs, 5,000 µs a URL; the audit's 3.5 s are 7.0 times it.
    assert "takes 0.50 s, 5000.0 µs a URL" in text and "7.0× the floor" in text
    # 1.67 s wanted (5 s / 3): 2.4x too slow, the reading alone 0.5x the target.
    assert "not met, by 2.4×: it wants 1.67 s" in text and "(0.5× the target)" in text
    assert "the duplicate table takes the site's URLs in 0.50 s;" in text
    assert "about 22000.0 µs a URL" in text
    assert "load average 3.0 at the start and 4.0 at the end" in text
    runs["deep"] = _run(deep, "deep", urls=100, wall_s=0.5, cpu_s=0.5, peak_mib=50.0)
    assert "not met, by" not in deep.render(report)


def test_the_dedupe_bound_is_the_deep_audit_s(deep: ModuleType) -> None:
    from sitemap_auditor.deep.checks import DEFAULT_MAX_DEDUPE_URLS

    assert deep.DEDUPE_BOUND == DEFAULT_MAX_DEDUPE_URLS
