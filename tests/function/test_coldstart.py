"""Cold start: what importing the handler costs, and what it leaves to the invocations needing it.

Each check runs in a fresh Python process, as a Lambda cold start does, so that nothing the test
process already imported (moto, boto3) hides an import.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys

import pytest
from support.documents import urlset
from support.lambda_process import LambdaProcess
from support.results import days_ago

from harness.environments import lambda_environment
from harness.servers import Site, reply

# Generous: 0.1 to 0.2 s on a developer machine, but CI runs this beside the rest of the suite
# on two cores (a best of three reached 410 ms there). A bound against gross regressions (an
# eager boto3 or X-Ray import is tested apart, by name); the figure itself is bench/'s.
IMPORT_TIME_BOUND_MS = 600.0
# What the function's environment holds with the template's default parameters, but the table:
# the audit path without boto3.
DEPLOYED = {
    "SITEMAP_MAX_AGE_DAYS": "7",
    "POWERTOOLS_SERVICE_NAME": "sitemap-auditor",
    "POWERTOOLS_METRICS_NAMESPACE": "37Audits/SitemapAuditor",
    "POWERTOOLS_LOG_LEVEL": "INFO",
    "POWERTOOLS_TRACE_DISABLED": "true",
}
# And as template.yaml deploys it: the table and the key secret always named.
TEMPLATE = {
    **DEPLOYED,
    "SITEMAP_SHARE_SECONDS": "60",
    "SITEMAP_CACHE_TABLE": "site-facts",
    "SITEMAP_CACHE_KEY_SECRET": "arn:aws:secretsmanager:us-east-1:123456789012:secret:k",
    "AWS_REGION": "us-east-1",
}
_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)")


def top(module: str) -> str:
    return module.split(".", 1)[0]


def modules_after_import(env: dict[str, str]) -> set[str]:
    code = "import json, sys, sitemap_auditor.handler; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return set(json.loads(out.stdout))


@pytest.mark.parametrize("deployed", [False, True], ids=["bare", "template-defaults"])
def test_importing_the_handler_leaves_boto3_and_xray_out(deployed: bool) -> None:
    modules = modules_after_import(lambda_environment(DEPLOYED if deployed else {}))
    assert "sitemap_auditor.handler" in modules
    assert {m for m in modules if top(m) in {"boto3", "s3transfer", "aws_xray_sdk"}} == set()
    # Powertools probes for botocore with a bare `import botocore` (to tag its user agent): that is
    # the package's __init__ alone, no session, client or loader machinery.
    assert {m for m in modules if top(m) == "botocore"} <= {"botocore"}
    # The HTTP stack, though, loads with the handler, in the init phase, not in the first audit.
    assert {"requests", "urllib3", "sitemap_auditor.fetching.transport"} <= modules


def closed_port() -> int:
    """A port of 127.0.0.1 that nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_only_an_invocation_with_a_secret_imports_boto3(site: Site) -> None:
    site.route("/sitemap.xml", reply(urlset([days_ago(1)])))
    env = lambda_environment(
        {
            # Nothing answers there: the secret cannot be read, but boto3 has to be loaded to try.
            "AWS_ENDPOINT_URL_SECRETS_MANAGER": f"http://127.0.0.1:{closed_port()}",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_MAX_ATTEMPTS": "1",
        }
    )
    inline = {"username": "u", "password": "inline-p4ss"}
    with LambdaProcess(env) as process:
        first = process.invoke({"id": "cold", "url": site.url("/"), "basicAuth": inline})
        after_inline = process.modules()
        secret_id = "sitemap-auditor/unreachable"
        second = process.invoke(
            {"id": "warm", "url": site.url("/"), "basicAuthSecretId": secret_id}
        )
        after_secret = process.modules()
    assert first.result["status"] == "SUCCESS"
    assert "boto3" not in after_inline
    assert second.result["status"] == "ERROR"
    assert second.result["message"] == (
        f"The audit could not finish: SecretError: basicAuthSecretId '{secret_id}' "
        "could not be read: EndpointConnectionError"
    )
    assert {"boto3", "botocore.client"} <= after_secret
    # The cold_start field of the log lines: true on the first invocation only.
    assert {line["cold_start"] for line in first.logs} == {True}
    assert {line["cold_start"] for line in second.logs} == {False}


def handler_import_ms() -> float:
    """Cumulative import time of sitemap_auditor.handler in a fresh process, in milliseconds."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import sitemap_auditor.handler"],
        env=lambda_environment(DEPLOYED),
        capture_output=True,
        text=True,
        check=True,
    )
    for line in out.stderr.splitlines():
        found = _IMPORT_LINE.match(line)
        if found and found.group(4) == "sitemap_auditor.handler" and not found.group(3):
            return int(found.group(2)) / 1000.0
    raise AssertionError(f"no import time for sitemap_auditor.handler in:\n{out.stderr[-2000:]}")


def test_as_deployed_the_init_phase_builds_the_table_client_and_nothing_of_x_ray() -> None:
    # template.yaml always names a table: boto3 and the DynamoDB client load at start-up (in the
    # init phase, not the first audit's time); X-Ray and Secrets Manager's client do not.
    modules = modules_after_import(lambda_environment(TEMPLATE))
    assert {"boto3", "botocore.client", "sitemap_auditor.sharing.dynamostore"} <= modules
    assert {m for m in modules if top(m) == "aws_xray_sdk"} == set()


def test_handler_import_time() -> None:
    # The best of five: the cost of the imports, not of whatever else the machine was doing.
    runs = [handler_import_ms() for _ in range(5)]
    print(f"sitemap_auditor.handler import: {min(runs):.1f} ms (runs: {runs})")
    assert min(runs) < IMPORT_TIME_BOUND_MS
