"""One "container" of the function for the sharing tests: its own process, its own handler.

Started as `python share_worker.py SPEC_JSON`, where the spec gives the URLs to audit, how many
threads audit them at once, an optional wall-clock start time (so that several processes start
together), an optional time budget per invocation, an optional spacing (audit i starts i x spacing
seconds after the start) and the file to write the results to, in order.
URLs under "warmup" are audited first, one by one, before the start time (a container that has
served before). The CPU time of the audits themselves (user + system, `getrusage` of the process
taken right before and after them) is printed as a JSON line `{"usage": ...}`.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sitemap_auditor import handler


class Context:
    """The two fields of the Lambda context the handler reads."""

    def __init__(self, budget_ms: int, request_id: str) -> None:
        self.deadline = time.monotonic() + budget_ms / 1000
        self.aws_request_id = request_id

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.deadline - time.monotonic()) * 1000))


def main() -> None:
    spec: dict[str, Any] = json.loads(sys.argv[1])
    urls: list[str] = spec["urls"]
    budget_ms = spec.get("budget_ms")
    start_at = spec.get("start_at")
    events = [{"id": f"run-{i}", "url": url, **spec.get("event", {})} for i, url in enumerate(urls)]
    for i, url in enumerate(spec.get("warmup", [])):
        warm = Context(budget_ms, f"warmup-{i}") if budget_ms else None
        handler.lambda_handler({"id": f"warmup-{i}", "url": url}, warm)
    print(json.dumps({"ready": True}), flush=True)
    if start_at is not None:
        time.sleep(max(0.0, start_at - time.time()))

    spacing = spec.get("spacing_s")
    began = time.time()

    def one(i: int) -> dict[str, Any]:
        if spacing:
            # A stream of audits rather than a burst: audit i starts i x spacing after the start.
            time.sleep(max(0.0, began + i * spacing - time.time()))
        context = Context(budget_ms, f"req-{i}") if budget_ms else None
        started = time.monotonic()
        result = handler.lambda_handler(events[i], context)
        return {"result": result, "seconds": time.monotonic() - started}

    before = resource.getrusage(resource.RUSAGE_SELF)
    with ThreadPoolExecutor(max_workers=spec.get("threads", 1)) as pool:
        answers = list(pool.map(one, range(len(urls))))
    after = resource.getrusage(resource.RUSAGE_SELF)
    usage = {
        "user_s": after.ru_utime - before.ru_utime,
        "sys_s": after.ru_stime - before.ru_stime,
        "max_rss_kib": after.ru_maxrss,
    }
    print(json.dumps({"usage": usage}), flush=True)
    # Answers go to their own file: the function's log lines share standard output with them.
    with open(spec["out"], "w", encoding="utf-8") as out:
        json.dump(answers, out)


if __name__ == "__main__":
    main()
