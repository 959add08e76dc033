"""Basic Auth from Secrets Manager (`basicAuthSecretId`), against moto's server over real HTTP.

moto runs as a server on 127.0.0.1 and the function's boto3 reaches it through
AWS_ENDPOINT_URL_SECRETS_MANAGER, as it would reach the real service: no in-process AWS mock.
"""

from __future__ import annotations

import json
import socket
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from support.aws import (
    PREFIX,
    basic,
    moto_server,
    point_at,
    protect,
    secrets_client,
)
from support.faults import unresolved
from support.lambda_process import LambdaProcess
from support.results import LOCAL, LogCapture, codes_of

from harness.environments import aws_environment, lambda_environment
from harness.servers import Site, reply
from sitemap_auditor import handler
from sitemap_auditor.audit import secrets


@pytest.fixture(scope="module")
def moto() -> Iterator[str]:
    with moto_server() as endpoint:
        yield endpoint


@pytest.fixture
def sm(moto: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """This process's environment pointed at moto, the secret cache empty; yields a client."""
    point_at(moto, monkeypatch)
    secrets.clear_cache()
    yield secrets_client(moto)
    secrets.clear_cache()


def new_secret(sm: Any, value: dict[str, Any] | str | bytes) -> str:
    """Create a secret with a unique name under the template's prefix; return its name."""
    name = f"{PREFIX}{uuid.uuid4().hex}"
    if isinstance(value, bytes):
        sm.create_secret(Name=name, SecretBinary=value)
    else:
        text = value if isinstance(value, str) else json.dumps(value)
        sm.create_secret(Name=name, SecretString=text)
    return name


def audit(site: Site, secret_id: str) -> dict[str, Any]:
    event = {"id": "secret-run", "url": site.url("/"), "basicAuthSecretId": secret_id}
    return handler.run(event, None, LOCAL)


def test_a_good_secret_sends_its_credentials(sm: Any, site: Site, logs: LogCapture) -> None:
    password = "s3cr3t-from-the-vault"
    expected = basic("auditor", password)
    protect(site, expected)
    secret_id = new_secret(sm, {"username": "auditor", "password": password})
    result = audit(site, secret_id)
    assert result["status"] == "SUCCESS", result["message"]
    assert codes_of(result) == ["100", "200"]
    assert site.paths() == ["/robots.txt", "/sitemap.xml"]
    assert [s.headers.get("authorization") for s in site.seen] == [expected, expected]
    for leaked in (password, expected, expected[6:]):
        assert leaked not in json.dumps(result)
        assert leaked not in logs.text()
    assert {line["run_id"] for line in logs.lines()} == {"secret-run"}


def test_a_secrets_password_in_the_audited_urls_query_is_on_no_log_line(
    sm: Any, site: Site, logs: LogCapture
) -> None:
    # The password is known only once the secret is read: the first line waits for it.
    password = "vault-pw-in-the-query"
    protect(site, basic("auditor", password))
    secret_id = new_secret(sm, {"username": "auditor", "password": password})
    event = {
        "id": "secret-run",
        "url": site.url(f"/?pw={password}"),
        "basicAuthSecretId": secret_id,
    }
    result = handler.run(event, None, LOCAL)
    assert result["status"] == "SUCCESS", result["message"]
    assert password not in json.dumps(result)
    lines = logs.lines()
    assert [line["message"] for line in lines][:1] == ["audit started"]
    assert all(line["url"] == site.url("/?pw=***") for line in lines), lines[0]["url"]
    assert password not in logs.text()


def test_a_secret_arn_works_like_its_name(sm: Any, site: Site) -> None:
    expected = basic("auditor", "by-arn")
    protect(site, expected)
    name = new_secret(sm, {"username": "auditor", "password": "by-arn"})
    arn = sm.describe_secret(SecretId=name)["ARN"]
    assert audit(site, arn)["status"] == "SUCCESS"


def test_no_event_may_name_the_cache_key_secret(sm: Any, site: Site) -> None:
    # The role may read the cache key secret, and an event naming it had the function read it
    # for the event (and say it was no username and password). By its name as configured, its
    # ARN, before and after the key was read: refused, and its value used for nothing.
    from dataclasses import replace

    name = new_secret(sm, "k" * 64)
    arn = sm.describe_secret(SecretId=name)["ARN"]
    settings = replace(LOCAL, cache_key_secret=name)
    for secret_id in (arn, name):
        event = {"id": "k", "url": site.url("/"), "basicAuthSecretId": secret_id}
        result = handler.run(event, None, settings)
        assert result["status"] == "ERROR" and result["checks"] is None
        assert "names the function's own cache key secret" in result["message"]
        assert "k" * 16 not in json.dumps(result)
    secrets.clear_cache()
    assert secrets.cache_key(name) == b"k" * 64  # read as the key: its ARN is known now
    result = handler.run({"url": site.url("/"), "basicAuthSecretId": arn}, None, settings)
    assert "names the function's own cache key secret" in result["message"]
    assert site.seen == []


def test_a_missing_secret_is_an_error_naming_it(sm: Any, site: Site) -> None:
    secret_id = f"{PREFIX}does-not-exist"
    result = audit(site, secret_id)
    assert result["status"] == "ERROR"
    assert result["checks"] is None
    assert result["message"] == (
        f"The audit could not finish: SecretError: basicAuthSecretId '{secret_id}' "
        "could not be read: ResourceNotFoundException"
    )
    assert site.seen == []  # nothing is fetched without the credentials


def test_secrets_manager_that_never_answers_is_an_error_within_seconds(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It accepts connections and says nothing: boto3's defaults would wait 60 s a try.
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)
    endpoint = f"http://127.0.0.1:{silent.getsockname()[1]}"
    point_at(endpoint, monkeypatch)
    secrets.clear_cache()
    try:
        started = time.monotonic()
        result = audit(site, f"{PREFIX}silent")
        took = time.monotonic() - started
    finally:
        secrets.clear_cache()
        silent.close()
    assert (
        result["status"] == "ERROR" and "could not be read: ReadTimeoutError" in (result["message"])
    )
    budget = secrets.MAX_ATTEMPTS * (secrets.CONNECT_TIMEOUT_S + secrets.READ_TIMEOUT_S) + 2
    assert took < budget
    assert site.seen == []


@pytest.mark.slow
def test_a_secrets_endpoint_whose_name_never_resolves_is_an_error_within_seconds(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    # botocore's timeouts do not bound the endpoint's name lookup (urllib3 makes it with none):
    # a resolver that hangs costs the read no more than its timeouts would.
    point_at("http://secrets.invalid:9", monkeypatch)
    secrets.clear_cache()
    try:
        with unresolved("secrets.invalid", monkeypatch):
            started = time.monotonic()
            result = audit(site, f"{PREFIX}unresolved")
            took = time.monotonic() - started
    finally:
        secrets.clear_cache()
    assert result["status"] == "ERROR" and "could not be read: PastDueError" in result["message"]
    assert took < secrets.WORST_READ_S + 2
    assert site.seen == []


@pytest.mark.parametrize(
    "value",
    [
        "not json at all",
        {"username": "auditor"},
        {"user": "auditor", "pass": "wrong-keys-p4ss"},
        {"username": "auditor", "password": 12345678},
        ["auditor", "list-p4ss"],
        "   ",
        b"\x00binary secret",
        "[" * 100_000 + "]" * 100_000,
        '{"username": "auditor", "password": "wrong-keys-p4ss\\ud800"}',
    ],
    ids=[
        "not-json",
        "no-password",
        "wrong-keys",
        "number",
        "list",
        "blank",
        "binary",
        "deep",
        "lone-surrogate",
    ],
)
def test_a_malformed_secret_is_an_error(
    sm: Any, site: Site, logs: LogCapture, value: dict[str, Any] | list[str] | str | bytes
) -> None:
    stored = json.dumps(value) if isinstance(value, list) else value
    secret_id = new_secret(sm, stored)
    result = audit(site, secret_id)
    assert result["status"] == "ERROR"
    assert result["checks"] is None
    assert result["message"] == (
        f"The audit could not finish: SecretError: basicAuthSecretId '{secret_id}' "
        "is not a JSON object with string username and password"
    )
    assert site.seen == []
    for leaked in ("wrong-keys-p4ss", "list-p4ss", "12345678"):
        assert leaked not in json.dumps(result) and leaked not in logs.text()


def test_a_warm_invocation_reuses_the_secret_without_calling_secrets_manager(
    sm: Any, site: Site
) -> None:
    expected = basic("auditor", "cached-p4ss")
    protect(site, expected)
    secret_id = new_secret(sm, {"username": "auditor", "password": "cached-p4ss"})
    assert audit(site, secret_id)["status"] == "SUCCESS"
    sm.delete_secret(SecretId=secret_id, ForceDeleteWithoutRecovery=True)
    # Within the cache window the deleted secret is not asked for again.
    second = audit(site, secret_id)
    assert second["status"] == "SUCCESS"
    assert [s.headers.get("authorization") for s in site.seen] == [expected] * 4
    # Control: a cold start (empty cache) does ask, and finds the secret gone.
    secrets.clear_cache()
    cold = audit(site, secret_id)
    assert cold["status"] == "ERROR"
    assert cold["message"].endswith("could not be read: ResourceNotFoundException")


def test_a_rotated_password_is_read_again_once_the_cache_expires(
    sm: Any, site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret_id = new_secret(sm, {"username": "auditor", "password": "old-p4ss"})
    protect(site, basic("auditor", "old-p4ss"))
    assert audit(site, secret_id)["status"] == "SUCCESS"
    sm.put_secret_value(
        SecretId=secret_id, SecretString=json.dumps({"username": "auditor", "password": "new-p4ss"})
    )
    protect(site, basic("auditor", "new-p4ss"))
    # Still cached: the old password is sent and refused.
    assert audit(site, secret_id)["status"] == "FAIL"
    monkeypatch.setattr(secrets, "SECRET_CACHE_SECONDS", 0.0)
    secrets.clear_cache()
    assert audit(site, secret_id)["status"] == "SUCCESS"
    # With no cache window every invocation reads the secret: after deletion, it fails.
    sm.delete_secret(SecretId=secret_id, ForceDeleteWithoutRecovery=True)
    assert audit(site, secret_id)["status"] == "ERROR"


def test_inline_credentials_win_over_a_secret_id(sm: Any, site: Site) -> None:
    expected = basic("inline", "inline-p4ss")
    protect(site, expected)
    event = {
        "id": "both",
        "url": site.url("/"),
        "basicAuth": {"username": "inline", "password": "inline-p4ss"},
        "basicAuthSecretId": f"{PREFIX}never-read",
    }
    assert handler.run(event, None, LOCAL)["status"] == "SUCCESS"


def test_the_deployed_function_never_prints_the_password(moto: str, site: Site) -> None:
    """The whole standard output (logs and EMF) of a warm function process, two invocations."""
    password = "Pr1nt-N0where-\u00e9t\u00e9"
    expected = basic("auditor", password)
    protect(site, expected)
    client = secrets_client(moto)
    secret_id = new_secret(client, {"username": "auditor", "password": password})
    # Each invocation fetches for itself, so that the second shows the cached secret at work.
    env = lambda_environment({**aws_environment(moto), "SITEMAP_SHARE_SECONDS": "0"})
    with LambdaProcess(env) as process:
        first = process.invoke(
            {"id": "warm-1", "url": site.url("/"), "basicAuthSecretId": secret_id}
        )
        client.delete_secret(SecretId=secret_id, ForceDeleteWithoutRecovery=True)
        second = process.invoke(
            {"id": "warm-2", "url": site.url("/"), "basicAuthSecretId": secret_id}
        )
        assert "boto3" in process.modules()
    for run in (first, second):
        assert run.result["status"] == "SUCCESS"
        assert len(run.emf) == 1 and run.metrics()["AuditSuccess"] == [1]
        for leaked in (password, expected, expected[6:]):
            assert leaked not in run.text
            assert leaked not in json.dumps(run.result)
    assert [s.headers.get("authorization") for s in site.seen] == [expected] * 4


def test_a_cache_key_secret_that_cannot_be_read_is_not_asked_again_for_a_minute(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The key serves sharing alone: a Secrets Manager that fails would otherwise cost every
    # credentialed audit its read, where sharing off costs nothing (contract section 7).
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    accepted = [0]

    def answer_nothing() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            accepted[0] += 1
            conn.close()  # the connection reset: a failure at once

    threading.Thread(target=answer_nothing, daemon=True).start()
    point_at(f"http://127.0.0.1:{server.getsockname()[1]}", monkeypatch)
    secrets.clear_cache()
    try:
        with pytest.raises(secrets.SecretError) as first:
            secrets.cache_key(f"{PREFIX}cache-key")
        asked = accepted[0]
        assert asked >= 1
        started = time.monotonic()
        with pytest.raises(secrets.SecretError) as again:
            secrets.cache_key(f"{PREFIX}cache-key")
        assert time.monotonic() - started < 0.5 and accepted[0] == asked
        assert str(again.value) == str(first.value)
    finally:
        secrets.clear_cache()
        server.close()


def test_a_cache_key_with_a_lone_surrogate_is_a_key(sm: Any) -> None:
    # JSON, the service's wire format, can escape a lone surrogate: the key's bytes need only be
    # the same in every container, and an exception here would fail every credentialed audit.
    key = "k" * 40 + "\ud800"
    secret_id = new_secret(sm, key)
    secrets.clear_cache()
    try:
        assert secrets.cache_key(secret_id) == key.encode("utf-8", "surrogatepass")
    finally:
        secrets.clear_cache()


@pytest.mark.parametrize("secret_id", [5, {}, ["a"], True])
def test_a_secret_id_that_is_no_string_is_an_error_naming_it(site: Site, secret_id: Any) -> None:
    # docs/contract.md §2: an unreadable basicAuthSecretId is the ERROR, not an audit without
    # the credentials it was meant to name.
    event = {"id": "secret-run", "url": site.url("/"), "basicAuthSecretId": secret_id}
    result = handler.run(event, None, LOCAL)
    assert result["status"] == "ERROR" and result["checks"] is None
    assert result["message"].startswith(
        "The audit could not finish: SecretError: basicAuthSecretId "
    )
    assert "is no secret id (not a string)" in result["message"]
    assert site.seen == []


class _Context:
    def __init__(self, millis: int) -> None:
        self.millis = millis

    def get_remaining_time_in_millis(self) -> int:
        return self.millis


def test_a_secret_read_that_hangs_is_cut_before_the_lambdas_deadline(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 4.5 s left at the start: the read, whose own bound is 10 s, is cut half a second before
    # the function's deadline (handler.STORE_MARGIN_S), not after it: "Task timed out".
    point_at("http://secrets.invalid:9", monkeypatch)
    secrets.clear_cache()
    event = {"id": "x", "url": site.url("/"), "basicAuthSecretId": f"{PREFIX}hangs"}
    try:
        with unresolved("secrets.invalid", monkeypatch):
            started = time.monotonic()
            result = handler.run(event, _Context(4_500), LOCAL)
            took = time.monotonic() - started
    finally:
        secrets.clear_cache()
    assert result["status"] == "ERROR" and "could not be read: PastDueError" in result["message"]
    assert took < 4.5 - 0.2
    assert site.seen == []


@pytest.mark.parametrize(
    "misplaced",
    [
        {"username": "auditor", "password": "Zq7-vault-Pa55word"},
        ["auditor:Zq7-vault-Pa55word"],
    ],
)
def test_a_secret_put_where_its_id_belongs_is_named_by_its_type_only(
    site: Site, misplaced: Any, logs: LogCapture
) -> None:
    # The secret's value given as its id: the ERROR names the JSON type, never the value.
    event = {"id": "secret-run", "url": site.url("/"), "basicAuthSecretId": misplaced}
    result = handler.run(event, None, LOCAL)
    assert result["status"] == "ERROR"
    kind = "an object" if isinstance(misplaced, dict) else "an array"
    assert f"basicAuthSecretId ({kind}) is no secret id" in result["message"]
    assert "Pa55word" not in json.dumps(result) and "Pa55word" not in logs.text()


def test_a_null_secret_id_is_none(site: Site) -> None:
    site.route("/robots.txt", reply("User-agent: *\nDisallow:\n", content_type="text/plain"))
    event = {"id": "secret-run", "url": site.url("/"), "basicAuthSecretId": None}
    assert handler.run(event, None, LOCAL)["status"] != "ERROR"
