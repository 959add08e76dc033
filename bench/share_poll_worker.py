"""tests/share_worker.py with a flat poll interval for waiting audits: an experiment of share.py.

The interval (seconds) comes from BENCH_POLL_S and replaces both `sharing.POLL_FIRST_S` and
`sharing.POLL_MAX_S` in this process only; nothing else of the function changes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import share_worker

from sitemap_auditor import sharing

if __name__ == "__main__":
    sharing.POLL_FIRST_S = sharing.POLL_MAX_S = float(os.environ["BENCH_POLL_S"])
    share_worker.main()
