"""One audit in a process of its own, its memory measured by the kernel rather than traced.

Under tracemalloc an audit of a 50 MB body runs several times slower, and on a loaded machine
that takes it past the site's 30 s per fetch. Here no tracer runs: `audited_apart` starts this
file as a script, which audits a warm-up URL first (so that lazy imports and the first buffers are
in place), then the measured URL, and reports the result and how far the process's resident set
peaked above where it stood before that audit (VmHWM after less VmRSS before, from
/proc/self/status). The resident set sees C allocations (zlib, expat) too. Ballast, when given, is
held through the measured audit: the control that shows the measure sees memory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from harness.servers import Site, reply
from support.documents import urlset

# The resident set is read from /proc, as on Lambda's Linux.
linux_only = pytest.mark.skipif(
    not Path("/proc/self/clear_refs").exists(), reason="needs Linux's /proc/self"
)


@dataclass(frozen=True)
class Measured:
    """One audit run apart: its Response, its resident set's rise, its wall time."""

    result: dict[str, Any]
    rss_growth: int
    seconds: float


def audited_apart(url: str, warm_up_url: str, ballast_bytes: int = 0) -> Measured:
    """Audit url in a process of its own and say what it cost."""
    tests = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, __file__, url, warm_up_url, str(ballast_bytes)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(tests)},
        check=True,
    )
    return Measured(**json.loads(done.stdout.splitlines()[-1]))


def warm_up_site(site: Site) -> str:
    """Serve a small sitemap on site and give its root, for the warm-up audit.

    A site of its own: the warm-up must not take the measured site's one-shot body.
    """
    site.route("/robots.txt", reply("Sitemap: /s.xml\n", content_type="text/plain"))
    site.route("/s.xml", reply(urlset(["2024-06-30"])))
    return site.url("/")


def _status_bytes(field: str) -> int:
    """A VmXXX field of /proc/self/status, in bytes."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise LookupError(field)


def _main(url: str, warm_up_url: str, ballast_bytes: int) -> None:
    from sitemap_auditor import handler
    from support.results import LOCAL

    handler.run({"id": "warm-up", "url": warm_up_url}, None, LOCAL)
    resident = _status_bytes("VmRSS")
    # The high-water mark is the process's so far: reset it to the present (Linux 4.0+) so that
    # the peak read afterwards is this audit's own.
    with open("/proc/self/clear_refs", "w", encoding="ascii") as clear:
        clear.write("5")
    ballast = b"\xa5" * ballast_bytes  # written, so every page of it is resident
    started = time.monotonic()
    result = handler.run({"id": "measured", "url": url}, None, LOCAL)
    seconds = time.monotonic() - started
    growth = _status_bytes("VmHWM") - resident
    del ballast
    print(json.dumps({"result": result, "rss_growth": growth, "seconds": seconds}))


if __name__ == "__main__":
    _main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
