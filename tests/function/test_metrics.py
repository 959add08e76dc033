"""EMF metrics as CloudWatch reads them: the function's standard output, one invocation at a time.

The handler runs in a separate, warm Python process (`LambdaProcess`) fed one event per line, as
the Lambda runtime would: its log lines and EMF documents are whatever it prints to standard
output, with no test double in between. Other test modules use `LambdaProcess` too.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from typing import Any

import pytest
from support.documents import urlset
from support.lambda_process import Invocation, LambdaProcess
from support.metric_names import UNITS
from support.results import days_ago

from harness.environments import lambda_environment
from harness.servers import Site, reply

# --- metrics ------------------------------------------------------------------------------------

NAMESPACE = "37Audits/SitemapAuditor"
SERVICE = "sitemap-auditor"
# What every audit that reached the site emits about sharing, when it fetched by itself.
SHARING_FETCHED = {"FactsFetched", "FactsRevalidated", "BytesSaved", "StoreErrors"}
OUTCOMES = {"AuditSuccess", "AuditWarning", "AuditFail", "AuditError"}


@pytest.fixture(scope="module")
def warm() -> Iterator[LambdaProcess]:
    with LambdaProcess(lambda_environment()) as process:
        yield process


def fetch_logs(invocation: Invocation) -> list[dict[str, Any]]:
    return [line for line in invocation.logs if line["message"] == "fetched"]


def assert_emf_envelope(invocation: Invocation, namespace: str, service: str) -> None:
    (doc,) = invocation.emf
    (directive,) = doc["_aws"]["CloudWatchMetrics"]
    assert directive["Namespace"] == namespace
    assert directive["Dimensions"] == [["service"]]
    assert doc["service"] == service
    assert isinstance(doc["_aws"]["Timestamp"], int)
    for name, unit in invocation.units().items():
        assert UNITS[name] == unit, name


def test_success_metrics(warm: LambdaProcess, site: Site) -> None:
    robots = f"User-agent: *\nSitemap: {site.url('/sitemap.xml.gz')}\n".encode()
    entries = 250
    sitemap = gzip.compress(urlset([days_ago(1)] * entries), mtime=0)
    site.route("/robots.txt", reply(robots, content_type="text/plain"))
    site.route("/sitemap.xml.gz", reply(sitemap, content_type="application/x-gzip"))
    run = warm.invoke({"id": "metrics-success", "url": site.url("/")})
    assert run.result["status"] == "SUCCESS"
    assert_emf_envelope(run, NAMESPACE, SERVICE)
    values = run.metrics()
    assert set(values) == {
        "AuditSuccess",
        "Check100",
        "Check200",
        "AuditDuration",
        "BytesFetched",
        "FetchLatency",
        "SitemapBytes",
        "SitemapEntries",
        *SHARING_FETCHED,
    }
    assert values["AuditSuccess"] == [1]
    assert values["Check100"] == [1] and values["Check200"] == [1]
    # Wire bytes: the sitemap counts compressed, as it crossed the network.
    assert values["BytesFetched"] == [len(robots) + len(sitemap)]
    assert values["SitemapBytes"] == [len(sitemap)]
    assert values["SitemapEntries"] == [entries]
    fetched = fetch_logs(run)
    assert [f["fetch_url"] for f in fetched] == [
        site.url("/robots.txt"),
        site.url("/sitemap.xml.gz"),
    ]
    assert len(values["FetchLatency"]) == len(fetched) == 2
    for latency, log in zip(values["FetchLatency"], fetched, strict=True):
        assert latency > 0
        assert round(latency, 1) == pytest.approx(log["duration_ms"], abs=0.06)
    assert values["AuditDuration"][0] >= sum(values["FetchLatency"])
    finished = run.logs[-1]
    assert finished["message"] == "audit finished"
    assert values["AuditDuration"][0] == pytest.approx(finished["duration_ms"], abs=0.06)


def test_fail_metrics(warm: LambdaProcess, site: Site) -> None:
    robots = b"User-agent: *\nSitemap: /sitemaps/main.xml\n"
    site.route("/robots.txt", reply(robots, content_type="text/plain"))
    run = warm.invoke({"id": "metrics-fail", "url": site.url("/shop/")})
    assert run.result["status"] == "FAIL"
    assert_emf_envelope(run, NAMESPACE, SERVICE)
    values = run.metrics()
    assert set(values) == {
        "AuditFail",
        "Check100",
        "Check400",
        "AuditDuration",
        "BytesFetched",
        "FetchLatency",
        *SHARING_FETCHED,
    }
    assert values["AuditFail"] == [1] and values["Check400"] == [1]
    # The 404's body is never read: only robots.txt's bytes crossed into the auditor.
    assert values["BytesFetched"] == [len(robots)]
    assert [f["wire_bytes"] for f in fetch_logs(run)] == [len(robots), 0]
    assert len(values["FetchLatency"]) == 2


def test_warning_metrics_count_every_fired_check(warm: LambdaProcess, site: Site) -> None:
    site.route("/robots.txt", reply("User-agent: *\nDisallow:\n", content_type="text/plain"))
    site.route("/sitemap.xml", reply(urlset([days_ago(40), None])))
    run = warm.invoke({"id": "metrics-warning", "url": site.url("/")})
    assert run.result["status"] == "WARNING"
    values = run.metrics()
    outcome = {k: v for k, v in values.items() if k.startswith("Check") or k in OUTCOMES}
    assert outcome == {"AuditWarning": [1], "Check100": [1], "Check302": [1], "Check300": [1]}
    assert values["SitemapEntries"] == [2]


def test_invalid_url_metrics(warm: LambdaProcess) -> None:
    run = warm.invoke({"id": "metrics-501", "url": "www.example.com/no-scheme"})
    assert run.result["status"] == "ERROR"
    assert_emf_envelope(run, NAMESPACE, SERVICE)
    values = run.metrics()
    assert set(values) == {"AuditError", "Check100", "Check501", "AuditDuration", "BytesFetched"}
    assert values["AuditError"] == [1]
    assert values["Check100"] == [1] and values["Check501"] == [1]
    assert values["BytesFetched"] == [0]


def test_metrics_are_flushed_on_the_defect_path(warm: LambdaProcess, site: Site) -> None:
    run = warm.invoke({"id": "metrics-defect", "url": site.url("/")}, defect="probe bug")
    assert run.result["status"] == "ERROR"
    assert run.result["checks"] is None
    assert run.result["message"] == "The audit could not finish: RuntimeError: probe bug"
    assert_emf_envelope(run, NAMESPACE, SERVICE)
    values = run.metrics()
    assert set(values) == {"AuditError", "AuditDuration", "BytesFetched"}
    assert values["AuditError"] == [1]
    assert [line["message"] for line in run.logs] == [
        "audit started",
        "audit could not finish",
        "audit finished",
    ]
    # The next invocation of the same warm process is unaffected.
    site.route("/sitemap.xml", reply(urlset([days_ago(1)])))
    after = warm.invoke({"id": "metrics-after-defect", "url": site.url("/")})
    assert after.result["status"] == "SUCCESS"
    assert after.metrics()["AuditSuccess"] == [1]


def test_many_fetches_still_make_one_emf_document(warm: LambdaProcess, site: Site) -> None:
    lines = "".join(f"Sitemap: /missing-{i}.xml\n" for i in range(120))
    site.route("/robots.txt", reply(lines, content_type="text/plain"))
    run = warm.invoke({"id": "metrics-many", "url": site.url("/")})
    assert run.result["status"] == "FAIL"
    assert len(fetch_logs(run)) == 101  # robots.txt and the 100 candidates kept
    values = run.metrics()  # asserts a single EMF document
    # CloudWatch takes at most 100 values of a metric per document.
    assert len(values["FetchLatency"]) == 99


def test_namespace_and_service_come_from_the_environment(site: Site) -> None:
    env = lambda_environment(
        {
            "POWERTOOLS_METRICS_NAMESPACE": "Staging/SitemapAuditor",
            "POWERTOOLS_SERVICE_NAME": "sitemap-auditor-staging",
        }
    )
    site.route("/sitemap.xml", reply(urlset([days_ago(1)])))
    with LambdaProcess(env) as process:
        run = process.invoke({"id": "metrics-env", "url": site.url("/")})
    assert_emf_envelope(run, "Staging/SitemapAuditor", "sitemap-auditor-staging")
    assert {line["service"] for line in run.logs} == {"sitemap-auditor-staging"}
    assert {line["run_id"] for line in run.logs} == {"metrics-env"}


def test_the_run_id_is_on_every_line_the_emf_document_included(
    warm: LambdaProcess, site: Site
) -> None:
    site.route("/robots.txt", reply("Sitemap: /missing.xml\n", content_type="text/plain"))
    runs = {
        "run-fail": warm.invoke({"id": "run-fail", "url": site.url("/")}),
        "run-defect": warm.invoke({"id": "run-defect", "url": site.url("/")}, defect="bug"),
        # No AWS configuration in this process: the secret cannot be read, a warning line.
        "run-secret": warm.invoke(
            {"id": "run-secret", "url": site.url("/"), "basicAuthSecretId": "no-such-secret"}
        ),
        "run-501": warm.invoke({"id": "run-501", "url": "no scheme"}),
    }
    levels = set()
    for run_id, run in runs.items():
        assert len(run.emf) == 1
        for line in run.lines:
            assert line["run_id"] == run_id, line
            levels.add(line.get("level"))
        # A property of the document, for Logs Insights; not a dimension (one metric per run).
        (doc,) = run.emf
        directive = doc["_aws"]["CloudWatchMetrics"][0]
        assert all("run_id" not in dims for dims in directive["Dimensions"])
        assert "run_id" not in {m["Name"] for m in directive["Metrics"]}
    assert {"INFO", "WARNING", "ERROR"} <= levels
    assert [line["message"] for line in runs["run-fail"].logs] == [
        "audit started",
        "fetched",
        "fetched",
        "audit finished",
    ]
    # Metadata is per invocation: an event without an id carries none of an earlier run's.
    anonymous = warm.invoke({"url": site.url("/")})
    assert all(line.get("run_id") is None for line in anonymous.lines)
