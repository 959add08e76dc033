"""template.yaml: cfn-lint clean, and the deployment settings the auditor's code relies on."""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from cfnlint.api import lint
from cfnlint.config import ManualArgs
from cfnlint.decode.decode import decode_str
from support.metric_names import SHARING, UNITS
from support.results import days_ago

from harness.environments import lambda_environment
from harness.servers import Site, reply
from sitemap_auditor.audit import config
from sitemap_auditor.core import codes
from sitemap_auditor.fetching.fetch import MAX_BODY_BYTES, REQUEST_DEADLINE_S
from sitemap_auditor.handler import RESPONSE_MARGIN_S

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE_TEXT = (ROOT / "template.yaml").read_text(encoding="utf-8")
# Every metric the function emits (observability.METRICS), each of which the dashboard must show.
METRIC_NAMES = set(UNITS)
# The metrics of facts shared between audits of one site (docs/contract.md §7), from the same table.
SHARING_METRICS = set(SHARING)
LAMBDA_MAX_TIMEOUT_S = 900


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    decoded, errors = decode_str(TEMPLATE_TEXT)
    assert not errors and isinstance(decoded, dict)
    return decoded


@pytest.fixture(scope="module")
def function(template: dict[str, Any]) -> dict[str, Any]:
    resource = template["Resources"]["AuditorFunction"]
    assert resource["Type"] == "AWS::Serverless::Function"
    properties: dict[str, Any] = resource["Properties"]
    return properties


def resources_of(template: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in template["Resources"].items() if v["Type"] == kind}


# --- cfn-lint -----------------------------------------------------------------------------------


def test_cfn_lint_finds_nothing() -> None:
    """No error, no warning and no informational finding (I-rules included), in every region."""
    matches = lint(
        TEMPLATE_TEXT,
        config=ManualArgs(include_checks=["I"], regions=["us-east-1", "eu-west-1", "ap-south-1"]),
    )
    assert [f"{m.rule.id} line {m.linenumber}: {m.message}" for m in matches] == []


def test_cfn_lint_command_line_agrees() -> None:
    """What CI or a developer runs: `cfn-lint template.yaml` exits 0 and prints nothing."""
    command = "import sys; from cfnlint.runner import main; sys.argv[0] = 'cfn-lint'; main()"
    out = subprocess.run(
        [sys.executable, "-c", command, "--include-checks", "I", "--", "template.yaml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert (out.returncode, out.stdout, out.stderr) == (0, "", "")


def test_the_template_is_a_sam_template(template: dict[str, Any]) -> None:
    assert template["Transform"] == "AWS::Serverless-2016-10-31"


# --- the function -------------------------------------------------------------------------------


def test_function_runtime_architecture_and_handler(function: dict[str, Any]) -> None:
    assert function["Runtime"] in {"python3.12", "python3.13"}
    assert function["Architectures"] == ["arm64"]
    assert function["CodeUri"] == "."
    assert function["Handler"] == "sitemap_auditor.handler.lambda_handler"
    module, name = function["Handler"].rsplit(".", 1)
    assert callable(getattr(importlib.import_module(module), name))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    minimum = project["project"]["requires-python"].removeprefix(">=")
    assert tuple(map(int, function["Runtime"].removeprefix("python").split("."))) >= tuple(
        map(int, minimum.split("."))
    )


def test_timeout_covers_robots_and_three_candidates(function: dict[str, Any]) -> None:
    worst_case = 4 * REQUEST_DEADLINE_S  # robots.txt + the three fallback paths, 30 s each
    assert function["Timeout"] >= worst_case + RESPONSE_MARGIN_S
    assert function["Timeout"] >= 150
    assert function["Timeout"] <= LAMBDA_MAX_TIMEOUT_S


def test_memory_size(function: dict[str, Any]) -> None:
    # Sized by CPU share, not memory: see the comment in template.yaml and test_memory_is_flat.
    assert function["MemorySize"] == 256


def test_environment(template: dict[str, Any], function: dict[str, Any]) -> None:
    env = function["Environment"]["Variables"]
    assert env["SITEMAP_MAX_AGE_DAYS"] == {"Ref": "MaxAgeDays"}
    assert env["POWERTOOLS_SERVICE_NAME"] == {"Ref": "ServiceName"}
    assert env["POWERTOOLS_METRICS_NAMESPACE"] == {"Ref": "MetricsNamespace"}
    assert env["POWERTOOLS_LOG_LEVEL"] == {"Ref": "LogLevel"}
    assert env["POWERTOOLS_TRACE_DISABLED"] == {"Fn::If": ["TracingEnabled", "false", "true"]}
    # Sharing facts between audits: the window, the table and the key, all from this stack.
    assert env["SITEMAP_SHARE_SECONDS"] == {"Ref": "ShareSeconds"}
    (table,) = resources_of(template, "AWS::DynamoDB::Table")
    assert env["SITEMAP_CACHE_TABLE"] == {"Ref": table}  # Ref of a table: its name
    (key,) = resources_of(template, "AWS::SecretsManager::Secret")
    assert env["SITEMAP_CACHE_KEY_SECRET"] == {"Ref": key}  # Ref of a secret: its ARN
    assert function["Tracing"] == {"Fn::If": ["TracingEnabled", "Active", "PassThrough"]}
    assert template["Parameters"]["Tracing"]["Default"] == "Disabled"
    # Production never reaches private addresses: the development switch is not deployed.
    assert "SITEMAP_ALLOW_PRIVATE_NETWORKS" not in env
    params = template["Parameters"]
    assert params["ServiceName"]["Default"] == "sitemap-auditor"
    assert params["MetricsNamespace"]["Default"] == "37Audits/SitemapAuditor"
    assert params["LogLevel"]["Default"] == "INFO"


@pytest.mark.parametrize(
    ("value", "allowed"),
    [
        ("7", True),
        ("1", True),
        ("30", True),
        ("365", True),
        ("0", False),
        ("-1", False),
        ("2.5", False),
        ("1e3", False),
        ("7days", False),
        ("", False),
        # The function would take these; the template asks for the plain spelling.
        (" 7", False),
        ("07", False),
    ],
)
def test_max_age_days_parameter_lets_through_only_what_the_function_takes(
    template: dict[str, Any], value: str, allowed: bool
) -> None:
    parameter = template["Parameters"]["MaxAgeDays"]
    assert config.parse_max_age_days(parameter["Default"]) == config.DEFAULT_MAX_AGE_DAYS
    assert (re.fullmatch(parameter["AllowedPattern"], value) is not None) is allowed
    if allowed:
        assert config.parse_max_age_days(value) == int(value)


@pytest.mark.parametrize(
    ("value", "allowed"),
    [
        ("60", True),
        ("0", True),  # sharing off
        ("1", True),
        ("3600", True),
        ("-1", False),
        ("2.5", False),
        ("1e3", False),
        ("60s", False),
        ("", False),
        (" 60", False),
        ("060", False),
        ("00", False),
    ],
)
def test_share_seconds_parameter_lets_through_only_what_the_function_takes(
    template: dict[str, Any], value: str, allowed: bool
) -> None:
    parameter = template["Parameters"]["ShareSeconds"]
    # A pattern needs a String: a Number parameter would let "2.5" or "1e3" through.
    assert parameter["Type"] == "String"
    assert parameter["Default"] == "60"
    assert (re.fullmatch(parameter["AllowedPattern"], value) is not None) is allowed
    parse = getattr(config, "parse_share_seconds", None)
    if parse is not None:  # the function's own reading of SITEMAP_SHARE_SECONDS
        assert parse(parameter["Default"]) == 60
        if allowed:
            assert parse(value) == int(value)


def test_log_group_and_retention(template: dict[str, Any], function: dict[str, Any]) -> None:
    (name, group) = resources_of(template, "AWS::Logs::LogGroup").popitem()
    assert group["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}
    assert function["LoggingConfig"]["LogGroup"] == {"Ref": name}
    retention = template["Parameters"]["LogRetentionDays"]
    assert retention["Default"] in retention["AllowedValues"]


# --- facts shared between audits ---------------------------------------------------------------


def test_facts_table(template: dict[str, Any]) -> None:
    (table,) = resources_of(template, "AWS::DynamoDB::Table").values()
    props = table["Properties"]
    assert props["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}]  # no sort key
    assert props["AttributeDefinitions"] == [{"AttributeName": "pk", "AttributeType": "S"}]
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    # Old facts expire by themselves: the function writes expires_at, in epoch seconds.
    assert props["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}
    # Single items by key only: no index the role would have to reach, no stream to read.
    assert "GlobalSecondaryIndexes" not in props and "LocalSecondaryIndexes" not in props
    assert "StreamSpecification" not in props
    # A generated name: two stacks in one account and region never share a table.
    assert "TableName" not in props
    # A cache: it goes with the stack.
    assert (table["DeletionPolicy"], table["UpdateReplacePolicy"]) == ("Delete", "Delete")


def test_cache_key_secret(template: dict[str, Any]) -> None:
    (secret,) = resources_of(template, "AWS::SecretsManager::Secret").values()
    props = secret["Properties"]
    generated = props["GenerateSecretString"]
    # A bare random string (no JSON template), long enough for an HMAC key.
    assert generated["PasswordLength"] >= 32
    assert "SecretStringTemplate" not in generated and "GenerateStringKey" not in generated
    assert "SecretString" not in props  # nobody chose it, nothing in the template reveals it
    # A generated name never falls under SecretPrefix, so no event's basicAuthSecretId reaches it.
    assert "Name" not in props
    # The default aws/secretsmanager key: a customer key would need kms:Decrypt for the role.
    assert "KmsKeyId" not in props


# --- least privilege ----------------------------------------------------------------------------


def role_statements(template: dict[str, Any]) -> Iterator[tuple[str | None, dict[str, Any]]]:
    """Each statement of the function role's policies, with the condition it depends on."""
    (role,) = resources_of(template, "AWS::IAM::Role").values()
    for policy in role["Properties"]["Policies"]:
        condition = None
        if "Fn::If" in policy:
            condition, policy, otherwise = policy["Fn::If"]
            assert otherwise == {"Ref": "AWS::NoValue"}
        for statement in policy["PolicyDocument"]["Statement"]:
            yield condition, statement


def actions(statement: dict[str, Any]) -> list[str]:
    value = statement["Action"]
    return [value] if isinstance(value, str) else list(value)


def test_the_function_has_only_its_own_role(
    template: dict[str, Any], function: dict[str, Any]
) -> None:
    (name, role) = resources_of(template, "AWS::IAM::Role").popitem()
    assert function["Role"] == {"Fn::GetAtt": [name, "Arn"]}
    # No SAM policy shortcuts: with an explicit role, SAM adds nothing to it.
    assert "Policies" not in function
    assert "ManagedPolicyArns" not in role["Properties"]
    trust = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    assert trust == [
        {
            "Effect": "Allow",
            "Principal": {"Service": "lambda.amazonaws.com"},
            "Action": "sts:AssumeRole",
        }
    ]


def test_iam_is_least_privilege(template: dict[str, Any]) -> None:
    always = [s for condition, s in role_statements(template) if condition is None]
    for statement in always:
        assert set(statement) == {"Effect", "Action", "Resource"}  # no NotAction, NotResource
        assert statement["Effect"] == "Allow"
        assert not any("*" in a for a in actions(statement))
        assert isinstance(statement["Resource"], dict)  # one resource, never "*" nor a list
    granted = sorted(
        (a, json.dumps(s["Resource"], sort_keys=True)) for s in always for a in actions(s)
    )
    (group,) = resources_of(template, "AWS::Logs::LogGroup")
    (table,) = resources_of(template, "AWS::DynamoDB::Table")
    (key,) = resources_of(template, "AWS::SecretsManager::Secret")
    own_group = {"Fn::GetAtt": [group, "Arn"]}
    under_prefix = {
        "Fn::Sub": (
            "arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}"
            ":secret:${SecretPrefix}*"
        )
    }
    # The table's ARN alone: not "<arn>/*" (its indexes), not another table.
    facts_table = {"Fn::GetAtt": [table, "Arn"]}
    expected = [
        ("logs:CreateLogStream", own_group),
        ("logs:PutLogEvents", own_group),
        ("secretsmanager:GetSecretValue", under_prefix),
        ("secretsmanager:GetSecretValue", {"Ref": key}),  # the one cache key, by its ARN
        ("dynamodb:GetItem", facts_table),
        ("dynamodb:PutItem", facts_table),
        ("dynamodb:UpdateItem", facts_table),
    ]
    assert granted == sorted((a, json.dumps(r, sort_keys=True)) for a, r in expected)
    tracing = [s for condition, s in role_statements(template) if condition is not None]
    assert {c for c, _ in role_statements(template) if c is not None} == {"TracingEnabled"}
    assert sorted(a for s in tracing for a in actions(s)) == [
        "xray:PutTelemetryRecords",
        "xray:PutTraceSegments",
    ]


@pytest.mark.parametrize(
    ("prefix", "allowed"),
    [("sitemap-auditor/", True), ("audits/prod/", True), ("", False), ("*", False), ("a b", False)],
)
def test_secret_prefix_cannot_widen_to_every_secret(
    template: dict[str, Any], prefix: str, allowed: bool
) -> None:
    parameter = template["Parameters"]["SecretPrefix"]
    assert parameter["MinLength"] >= 1
    ok = len(prefix) >= parameter["MinLength"] and re.fullmatch(parameter["AllowedPattern"], prefix)
    assert bool(ok) is allowed


# --- dashboard, alarms, outputs -----------------------------------------------------------------


def substitute(text: str, values: dict[str, str]) -> str:
    """Fill Fn::Sub placeholders (`${Name}`, `${Resource.Attribute}`); fail on an unknown one."""

    def one(found: re.Match[str]) -> str:
        name = found.group(1)
        assert name in values, f"unknown placeholder ${{{name}}}"
        return values[name]

    return re.sub(r"\$\{([^}!]+)\}", one, text)


@pytest.fixture(scope="module")
def dashboard(template: dict[str, Any]) -> dict[str, Any]:
    (board,) = resources_of(template, "AWS::CloudWatch::Dashboard").values()
    body = board["Properties"]["DashboardBody"]["Fn::Sub"]
    assert isinstance(body, str)
    values = {
        "AWS::Region": "eu-west-1",
        "MetricsNamespace": "37Audits/SitemapAuditor",
        "ServiceName": "sitemap-auditor",
        "AuditorFunction": "stack-AuditorFunction-ABC123",
        "ErrorsAlarm.Arn": "arn:aws:cloudwatch:eu-west-1:123456789012:alarm:errors",
        "ThrottlesAlarm.Arn": "arn:aws:cloudwatch:eu-west-1:123456789012:alarm:throttles",
        "StoreErrorsAlarm.Arn": "arn:aws:cloudwatch:eu-west-1:123456789012:alarm:store-errors",
        "SiteFactsTable": "stack-SiteFactsTable-XYZ789",
    }
    # Every placeholder is a parameter, a resource (or its attribute) or a pseudo parameter.
    for name in set(re.findall(r"\$\{([^}!]+)\}", body)):
        assert (
            name in template["Parameters"]
            or name.split(".")[0] in template["Resources"]
            or name.startswith("AWS::")
        ), name
    parsed = json.loads(substitute(body, values))
    assert isinstance(parsed, dict)
    return parsed


def metric_rows(dashboard: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], list[Any]]]:
    """(widget title, widget properties, metric row) for every metric of the dashboard."""
    for widget in dashboard["widgets"]:
        if widget["type"] == "metric":
            for row in widget["properties"]["metrics"]:
                yield widget["properties"]["title"], widget["properties"], row


def test_dashboard_shows_every_custom_metric(dashboard: dict[str, Any]) -> None:
    shown = {row[1] for _, _, row in metric_rows(dashboard) if row[0] == "37Audits/SitemapAuditor"}
    assert shown == METRIC_NAMES | SHARING_METRICS
    for _, _, row in metric_rows(dashboard):
        if row[0] == "37Audits/SitemapAuditor":
            # The one dimension Powertools puts on every metric.
            assert row[2:4] == ["service", "sitemap-auditor"]
    # The names the function really builds (observability.py): Audit<Status> and Check<suffix>.
    statuses = {codes.SUCCESS, codes.WARNING, codes.FAIL, codes.ERROR}
    assert {f"Audit{s.title()}" for s in statuses} <= METRIC_NAMES
    assert {f"Check{c.id.rsplit('-', 1)[1]}" for c in codes.ALL} <= METRIC_NAMES


def widget(dashboard: dict[str, Any], title: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [
        w["properties"] for w in dashboard["widgets"] if w["properties"].get("title") == title
    ]
    assert len(found) == 1, title
    return found[0]


def test_dashboard_widgets(dashboard: dict[str, Any], function: dict[str, Any]) -> None:
    status = widget(dashboard, "Audits by overall status")
    assert [row[1] for row in status["metrics"]] == [
        "AuditSuccess",
        "AuditWarning",
        "AuditFail",
        "AuditError",
    ]
    assert status["stat"] == "Sum"
    checks = widget(dashboard, "Checks fired by CheckCode")
    assert [row[1] for row in checks["metrics"]] == [
        f"Check{c}" for c in ("100", "200", "300", "301", "302", "400", "501")
    ]
    errors = widget(dashboard, "Invocations, errors and throttles")
    lambda_rows = [row for row in errors["metrics"] if row[0] == "AWS/Lambda"]
    assert {row[1] for row in lambda_rows} == {"Invocations", "Errors", "Throttles"}
    duration = widget(dashboard, "Lambda duration p50 / p99 (ms)")
    assert [(row[0], row[1], row[-1]["stat"]) for row in duration["metrics"]] == [
        ("AWS/Lambda", "Duration", "p50"),
        ("AWS/Lambda", "Duration", "p99"),
    ]
    (timeout,) = duration["annotations"]["horizontal"]
    assert timeout["value"] == function["Timeout"] * 1000
    latency = widget(dashboard, "Fetch latency p50 / p99 (ms, one value per fetch)")
    assert [(row[1], row[-1]["stat"]) for row in latency["metrics"]] == [
        ("FetchLatency", "p50"),
        ("FetchLatency", "p99"),
    ]
    (deadline,) = latency["annotations"]["horizontal"]
    assert deadline["value"] == REQUEST_DEADLINE_S * 1000
    assert "BytesFetched" in {row[1] for row in widget(dashboard, "Bytes fetched")["metrics"]}
    for _, props, row in metric_rows(dashboard):
        assert props["region"] == "eu-west-1"
        if row[0] == "AWS/Lambda":
            assert row[2:4] == ["FunctionName", "stack-AuditorFunction-ABC123"]
        if row[0] == "AWS/DynamoDB":
            assert row[2:4] == ["TableName", "stack-SiteFactsTable-XYZ789"]
    alarms = [w for w in dashboard["widgets"] if w["type"] == "alarm"]
    assert [len(w["properties"]["alarms"]) for w in alarms] == [3]
    assert "arn:aws:cloudwatch:eu-west-1:123456789012:alarm:store-errors" in str(alarms)


def test_dashboard_sharing_widgets(dashboard: dict[str, Any]) -> None:
    sharing = widget(dashboard, "Site facts: fetched, reused, waited, revalidated")
    assert [row[1] for row in sharing["metrics"]] == [
        "FactsFetched",
        "FactsReused",
        "FactsWaited",
        "FactsRevalidated",
    ]
    assert sharing["stat"] == "Sum"
    saved = widget(dashboard, "Bytes saved by sharing vs bytes fetched")
    assert [row[1] for row in saved["metrics"]] == ["BytesSaved", "BytesFetched"]
    assert saved["stat"] == "Sum"
    errors = widget(dashboard, "Store errors (failed, timed out or throttled store calls)")
    assert [row[1] for row in errors["metrics"]] == ["StoreErrors"]
    waits = widget(
        dashboard, "Waiting for another audit's fetch p50 / p99 / max (ms, audits that waited)"
    )
    assert [(row[1], row[-1]["stat"]) for row in waits["metrics"]] == [
        ("ShareWaitTime", "p50"),
        ("ShareWaitTime", "p99"),
        ("ShareWaitTime", "Maximum"),
    ]
    assert UNITS["ShareWaitTime"] == "Milliseconds"


def test_dashboard_sharing_ratio(dashboard: dict[str, Any]) -> None:
    """(FactsReused + FactsWaited) / (FactsFetched + FactsReused + FactsWaited), in percent."""
    ratio = widget(dashboard, "Sharing ratio (% of audits served from shared facts)")
    assert ratio["stat"] == "Sum"
    (expression,) = [row[0] for row in ratio["metrics"] if isinstance(row[0], dict)]
    inputs = {row[-1]["id"]: row for row in ratio["metrics"] if isinstance(row[0], str)}
    assert {k: row[1] for k, row in inputs.items()} == {
        "fetched": "FactsFetched",
        "reused": "FactsReused",
        "waited": "FactsWaited",
    }
    assert all(row[-1]["visible"] is False for row in inputs.values())  # only the ratio is drawn
    # FILL(m, 0): a period with audits but no reuse still has a ratio (0 %), not a gap.
    formula = re.sub(r"FILL\((\w+), 0\)", r"\1", expression["expression"])
    assert set(re.findall(r"[A-Za-z_]\w*", formula)) == set(inputs)

    def ratio_of(**counts: int) -> float:
        value = eval(formula, {"__builtins__": {}}, counts)  # our own arithmetic, no names
        assert isinstance(value, int | float)
        return float(value)

    assert ratio_of(fetched=1, reused=2, waited=1) == 75.0
    assert ratio_of(fetched=4, reused=0, waited=0) == 0.0
    assert ratio_of(fetched=0, reused=3, waited=0) == 100.0


def test_dashboard_facts_table_metrics(dashboard: dict[str, Any]) -> None:
    shown = {row[1] for _, _, row in metric_rows(dashboard) if row[0] == "AWS/DynamoDB"}
    assert {
        "ConsumedReadCapacityUnits",
        "ConsumedWriteCapacityUnits",
        "ReadThrottleEvents",
        "WriteThrottleEvents",
        "SystemErrors",
    } <= shown
    errors = widget(dashboard, "Facts table: throttles and system errors")
    operations = [row[5] for row in errors["metrics"] if row[1] == "SystemErrors"]
    # SystemErrors has an Operation dimension: one row for each operation the role may call.
    assert operations == ["GetItem", "PutItem", "UpdateItem"]


def test_alarms_on_errors_throttles_and_store_errors(template: dict[str, Any]) -> None:
    alarms = resources_of(template, "AWS::CloudWatch::Alarm")
    watched = {}
    for alarm in alarms.values():
        props = alarm["Properties"]
        assert props["Statistic"] == "Sum"
        assert props["Threshold"] == 1
        assert props["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"
        assert props["TreatMissingData"] == "notBreaching"
        topic = {"Fn::If": ["HasAlarmTopic", [{"Ref": "AlarmTopicArn"}], {"Ref": "AWS::NoValue"}]}
        assert props["AlarmActions"] == props["OKActions"] == topic
        watched[props["MetricName"]] = props
    assert set(watched) == {"Errors", "Throttles", "StoreErrors"}
    for name in ("Errors", "Throttles"):
        assert watched[name]["Namespace"] == "AWS/Lambda"
        function_name = {"Name": "FunctionName", "Value": {"Ref": "AuditorFunction"}}
        assert watched[name]["Dimensions"] == [function_name]
    store = watched["StoreErrors"]
    # The function's own metric, with the dimension Powertools puts on it.
    assert store["Namespace"] == {"Ref": "MetricsNamespace"}
    assert store["Dimensions"] == [{"Name": "service", "Value": {"Ref": "ServiceName"}}]
    assert store["MetricName"] in SHARING_METRICS
    # A store failing for 15 minutes, not a burst of throttled calls (which costs only fetches).
    assert (store["Period"], store["EvaluationPeriods"], store["DatapointsToAlarm"]) == (300, 3, 3)


# --- saved Logs Insights queries ---------------------------------------------------------------

# Fields of the function's log lines (docs/operations.md, "Log lines") and of its EMF document
# (run_id and the metric names are top-level properties), and what Logs Insights adds.
LOG_FIELDS = {
    *("level", "location", "message", "timestamp", "service", "xray_trace_id"),
    *("run_id", "request_id", "url", "cold_start"),
    *("fetch_url", "http_status", "wire_bytes", "duration_ms", "fetch_error"),
    *("status", "check_codes", "facts_source", "revalidated", "bytes_saved", "store_errors"),
    *("issue_kinds", "store_op", "error"),
    *METRIC_NAMES,
    *SHARING_METRICS,
    *("@timestamp", "@message", "@logStream", "@log", "@requestId"),
}
QUERY_COMMANDS = {"fields", "filter", "stats", "sort", "limit", "unnest", "display", "dedup"}
QUERY_WORDS = {"as", "by", "into", "and", "or", "not", "asc", "desc"}
# What each saved query needs to answer its question.
QUERY_NEEDS = {
    "RunQuery": [
        'filter run_id = "REPLACE-WITH-RUN-ID"',
        "sort @timestamp asc",
        "@message",  # the EMF document: its metric values
        "fetch_url",
        "status",
        "facts_source",
    ],
    "SlowestFetchesQuery": [
        'filter message = "fetched"',
        "sort duration_ms desc",
        "limit 50",
        *("fetch_url", "http_status", "wire_bytes", "fetch_error", "run_id"),
    ],
    "FailuresByIssueKindQuery": [
        '"audit finished"',
        'status = "FAIL"',
        'status = "ERROR"',
        "jsonParse(@message)",
        "unnest line.issue_kinds into issue_kind",
        "stats count(*)",
        "by status, issue_kind",
    ],
    "FetchErrorsQuery": ['filter message = "fetched"', "by fetch_error"],
    "SharingRatioQuery": [
        '"audit finished"',
        *('"fetched"', '"reused"', '"waited"'),
        "100 * (sum(reused) + sum(waited)) / count(*)",
        "bin(",
    ],
    "StoreErrorsQuery": ['filter message = "store error"', "by store_op", "error"],
}


@pytest.fixture(scope="module")
def queries(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        k: v["Properties"] for k, v in resources_of(template, "AWS::Logs::QueryDefinition").items()
    }


def query_commands(query: str) -> list[str]:
    """The commands of a Logs Insights query: comments dropped, split at pipes outside quotes."""
    lines = [line for line in query.splitlines() if not line.lstrip().startswith("#")]
    parts = re.split(r'\|(?=(?:[^"]*"[^"]*")*[^"]*$)', " ".join(lines))
    return [part.strip() for part in parts]


def test_saved_queries_exist_on_the_log_group(queries: dict[str, dict[str, Any]]) -> None:
    assert set(queries) == set(QUERY_NEEDS)
    names = []
    for props in queries.values():
        assert props["LogGroupNames"] == [{"Ref": "AuditorLogGroup"}]
        name = props["Name"]["Fn::Sub"]
        # One folder in the console's saved queries, one subfolder for each stack.
        assert name.startswith("SitemapAuditor/${AWS::StackName}/")
        assert len(name) <= 255 - 128 + len("${AWS::StackName}")  # stack names: 128 at most
        names.append(name)
        assert 1 <= len(props["QueryString"]) <= 10000
    assert len(set(names)) == len(names)


@pytest.mark.parametrize("query", sorted(QUERY_NEEDS))
def test_saved_query_has_what_it_needs(queries: dict[str, dict[str, Any]], query: str) -> None:
    text = queries[query]["QueryString"]
    for needed in QUERY_NEEDS[query]:
        assert needed in text, needed


@pytest.mark.parametrize("query", sorted(QUERY_NEEDS))
def test_saved_query_is_well_formed(queries: dict[str, dict[str, Any]], query: str) -> None:
    """Known commands, balanced quotes and brackets, and only fields the log lines have."""
    commands = query_commands(queries[query]["QueryString"])
    assert all(c.split(" ", 1)[0] in QUERY_COMMANDS for c in commands), commands
    text = " ".join(commands)
    assert text.count('"') % 2 == 0
    assert text.count("(") == text.count(")") and text.count("[") == text.count("]")
    bare = re.sub(r'"[^"]*"', '""', text)  # string literals are values, not fields
    aliases = set(re.findall(r"\b(?:as|into)\s+([A-Za-z_]\w*)", bare))
    for command in commands:
        words = command.split(" ", 1)
        body = re.sub(r'"[^"]*"', '""', words[1] if len(words) > 1 else "")
        for found in re.finditer(r"(?<![\w.@])@?[A-Za-z_][\w.]*(\s*\()?", body):
            name, call = found.group(0).rstrip(" ("), found.group(1)
            if call or name in QUERY_WORDS or name in aliases:
                continue  # a function, a keyword or a name the query itself defines
            root, _, rest = name.partition(".")
            if root in aliases and rest:
                name = rest  # line.issue_kinds: a field of the parsed line
            assert name in LOG_FIELDS, f"{query}: unknown field {name}"


def test_outputs(template: dict[str, Any]) -> None:
    outputs = template["Outputs"]
    assert outputs["FunctionArn"]["Value"] == {"Fn::GetAtt": ["AuditorFunction", "Arn"]}
    (board,) = resources_of(template, "AWS::CloudWatch::Dashboard")
    assert outputs["DashboardName"]["Value"] == {"Ref": board}
    (table,) = resources_of(template, "AWS::DynamoDB::Table")
    assert outputs["SiteFactsTableName"]["Value"] == {"Ref": table}


def name_of(requirement: str) -> str:
    """The normalised project name of a requirement line (PEP 503)."""
    name = re.split(r"[<>=!~\[;@ ]", requirement.strip(), maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


def test_sam_build_finds_the_dependencies() -> None:
    """`sam build` installs CodeUri's requirements.txt; pyproject.toml alone is not read."""
    requirements = ROOT / "requirements.txt"
    if not requirements.exists():
        pytest.skip("no requirements.txt: sam build would package the code without dependencies")
    lines = requirements.read_text(encoding="utf-8").splitlines()
    listed = {name_of(line) for line in lines if line.strip() and not line.lstrip().startswith("#")}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    needed = {name_of(dep) for dep in project["project"]["dependencies"]}
    assert needed - {"boto3"} <= listed  # the runtime ships boto3; the rest must be packaged


# --- memory: the measurement MemorySize rests on ------------------------------------------------

_ENTRY = (
    b"<url><loc>https://www.example.com/products/item-000000</loc>"
    b"<lastmod>" + days_ago(1).encode() + b"</lastmod></url>\n"
)
_HEAD = b'<?xml version="1.0" encoding="UTF-8"?>\n'
_HEAD += b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
_TAIL = b"</urlset>\n"
_ENTRIES = (MAX_BODY_BYTES - len(_HEAD) - len(_TAIL)) // len(_ENTRY)

_MEASURED = """
import json, resource, sys
from sitemap_auditor import handler

before = resource.getrusage(resource.RUSAGE_SELF)
result = handler.lambda_handler({"id": "memory", "url": sys.argv[1]}, None)
after = resource.getrusage(resource.RUSAGE_SELF)
cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
data = result["checks"][0]["data"]
print(json.dumps({"status": result["status"], "entries": data["entryCount"],
                  "import_kib": before.ru_maxrss, "peak_kib": after.ru_maxrss, "cpu_s": cpu}))
"""
# ru_maxrss survives exec: a child forked straight from this (large) test process would start with
# the test process's peak. A small launcher in between gives the measured process a clean slate.
_LAUNCHER = "import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:]))"


def _big_sitemap(h: BaseHTTPRequestHandler) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "application/xml")
    h.send_header("Content-Length", str(len(_HEAD) + _ENTRIES * len(_ENTRY) + len(_TAIL)))
    h.end_headers()
    h.wfile.write(_HEAD)
    block = _ENTRY * 1000
    for _ in range(_ENTRIES // 1000):
        h.wfile.write(block)
    h.wfile.write(_ENTRY * (_ENTRIES % 1000))
    h.wfile.write(_TAIL)


@pytest.mark.slow
def test_memory_is_flat_for_a_50_mb_sitemap(site: Site, function: dict[str, Any]) -> None:
    site.route("/robots.txt", reply("Sitemap: /sitemap.xml\n", content_type="text/plain"))
    site.route("/sitemap.xml", _big_sitemap)
    out = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, sys.executable, "-c", _MEASURED, site.url("/")],
        env=lambda_environment(),
        capture_output=True,
        text=True,
        check=True,
        timeout=240,
    )
    measured = json.loads(out.stdout.splitlines()[-1])
    size = len(_HEAD) + _ENTRIES * len(_ENTRY) + len(_TAIL)
    print(
        f"audit of a {size:,}-byte sitemap ({_ENTRIES:,} entries): peak RSS "
        f"{measured['peak_kib'] / 1024:.1f} MiB, {measured['import_kib'] / 1024:.1f} MiB after "
        f"import, {measured['cpu_s']:.2f} s CPU"
    )
    assert size <= MAX_BODY_BYTES
    assert measured["status"] == "SUCCESS"
    assert measured["entries"] == _ENTRIES
    # Streaming: the audit adds little to what the imports take, whatever the sitemap's size.
    assert measured["peak_kib"] - measured["import_kib"] < 16 * 1024
    # And the whole process stays well inside the function's memory.
    assert measured["peak_kib"] < function["MemorySize"] * 1024 / 4


def test_sam_build_packages_only_the_package(template: dict[str, Any], tmp_path: Path) -> None:
    """The makefile build puts the package and its requirements in the artifact, nothing else."""
    function = template["Resources"]["AuditorFunction"]
    assert function["Metadata"] == {"BuildMethod": "makefile"}
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "build-AuditorFunction:" in makefile
    done = subprocess.run(
        ["make", "-n", "build-AuditorFunction", f"ARTIFACTS_DIR={tmp_path}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "--requirement requirements.txt" in done.stdout
    assert "manylinux2014_aarch64" in done.stdout and "--python-version 3.13" in done.stdout
    assert f"cp -r sitemap_auditor {tmp_path}/" in done.stdout.replace('"', "")
    assert "tests" not in done.stdout and "bench" not in done.stdout


@pytest.mark.parametrize("given", [None, "", " ", "/", "//", "/.", "/tmp/.."])
def test_the_build_refuses_at_once_without_a_folder_of_its_own(
    given: str | None, tmp_path: Path
) -> None:
    """Without ARTIFACTS_DIR the recipe would remove "/bin" and copy the package into "/": it
    stops before its first command, having written nothing."""
    variables = [] if given is None else [f"ARTIFACTS_DIR={given}"]
    environ = {k: v for k, v in os.environ.items() if k != "ARTIFACTS_DIR"}
    started = time.monotonic()
    done = subprocess.run(
        ["make", "--no-print-directory", "build-AuditorFunction", *variables],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**environ, "PYTHON": str(tmp_path / "no-python")},
        timeout=60,
    )
    assert done.returncode != 0
    assert "set ARTIFACTS_DIR" in done.stderr
    assert "pip" not in done.stdout + done.stderr and "rm -rf" not in done.stdout
    assert time.monotonic() - started < 10


def test_sam_build_runs_make_in_the_source_folder() -> None:
    # Without it, sam build copies the whole folder (.venv included) to a scratch folder first.
    import tomllib

    config = tomllib.loads((ROOT / "samconfig.toml").read_text(encoding="utf-8"))
    assert config["default"]["build"]["parameters"]["build_in_source"] is True
