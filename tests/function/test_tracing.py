"""X-Ray tracing: off by default with nothing imported; when on, only AWS calls are patched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = r"""
import json, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

seen = []

class H(BaseHTTPRequestHandler):
    def do_GET(self):
        seen.append({k.lower() for k in self.headers})
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass

srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
threading.Thread(target=srv.serve_forever, daemon=True).start()
from sitemap_auditor import handler
url = f"http://127.0.0.1:{srv.server_address[1]}/"
result = handler.lambda_handler({"id": "t", "url": url}, None)
patched = []
if "aws_xray_sdk.core.patcher" in sys.modules:
    patched = sorted(sys.modules["aws_xray_sdk.core.patcher"]._PATCHED_MODULES)
print(json.dumps({
    "status": result["status"],
    "headers": sorted(set().union(*seen)),
    "patched": patched,
    "xray_imported": any(m.startswith("aws_xray_sdk") for m in sys.modules),
    # Powertools' wrapper keeps what it wraps (functools.wraps): the plain handler has none.
    "wrapped": hasattr(handler.lambda_handler, "__wrapped__"),
}), file=sys.stderr)
"""


def run_probe(**env: str) -> dict[str, object]:
    full_env = {
        k: v for k, v in os.environ.items() if not k.startswith(("POWERTOOLS_", "AWS_", "LAMBDA_"))
    }
    full_env.update(SITEMAP_ALLOW_PRIVATE_NETWORKS="true", **env)
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
        check=True,
    )
    last = done.stderr.strip().splitlines()[-1]
    return dict(json.loads(last))


def test_tracing_is_off_by_default_and_imports_nothing() -> None:
    out = run_probe()
    assert out["status"] == "FAIL"
    assert out["xray_imported"] is False
    assert out["wrapped"] is False


def test_tracing_on_patches_only_botocore_and_adds_no_header_to_audited_sites() -> None:
    pytest.importorskip("aws_xray_sdk")
    out = run_probe(
        POWERTOOLS_TRACE_DISABLED="false",
        LAMBDA_TASK_ROOT=str(Path(__file__).parent),
        AWS_LAMBDA_FUNCTION_NAME="sitemap-auditor",
        AWS_XRAY_CONTEXT_MISSING="IGNORE_ERROR",
    )
    assert out["wrapped"] is True
    assert out["patched"] == ["botocore"]
    assert out["headers"] == ["accept", "accept-encoding", "connection", "host", "user-agent"]
