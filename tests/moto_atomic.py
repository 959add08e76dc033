"""moto's server, one request at a time: `python moto_atomic.py HOST PORT`.

DynamoDB makes each conditional write atomic, and the lease that elects the one audit fetching a
site relies on it. moto's threaded server checks a condition and writes without a lock, so two
writes arriving together can both pass (seen: 5 double grants in 150 four-way races). Requests
still arrive concurrently; the application handles them one after another.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any

from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import run_simple


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


if __name__ == "__main__":
    main()
