"""moto's server, one request at a time: `python moto_atomic.py HOST PORT`, or `running()`.

DynamoDB makes each conditional write atomic, and the lease that elects the one audit fetching a
site relies on it. moto's threaded server checks a condition and writes without a lock, so two
writes arriving together can both pass (seen: 5 double grants in 150 four-way races). Requests
still arrive concurrently; the application handles them one after another.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import run_simple

from harness.servers import free_port, wait_for


def main() -> None:
    host, port = sys.argv[1], int(sys.argv[2])
    app = DomainDispatcherApplication(create_backend_app)
    lock = threading.Lock()

    def one_at_a_time(
        environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        with lock:
            return list(app(environ, start_response))

    run_simple(host, port, one_at_a_time, threaded=True, request_handler=MotoRequestHandler)


def new_facts_table(client: Any) -> str:
    """Create a table of site facts as template.yaml declares it; return its fresh name."""
    name = f"site-facts-{time.monotonic_ns()}"
    client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    # dynalite, like DynamoDB, creates a table asynchronously: wait until it is ACTIVE.
    client.get_waiter("table_exists").wait(
        TableName=name, WaiterConfig={"Delay": 0.05, "MaxAttempts": 200}
    )
    return name


@contextmanager
def running(host: str = "127.0.0.1") -> Iterator[str]:
    """This server in a process of its own on a free port; yield its URL once it listens."""
    port = free_port(host)
    proc = subprocess.Popen(
        [sys.executable, __file__, host, str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(host, port, proc, seconds=60)
        yield f"http://{host}:{port}"
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
