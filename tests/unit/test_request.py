"""The event read once at the door (docs/contract.md §1, §6), and the outcome's redaction."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from sitemap_auditor.audit import response
from sitemap_auditor.audit.outcome import redacted
from sitemap_auditor.audit.request import AuditRequest, parse
from sitemap_auditor.audit.rules import RuleInputs, evaluate
from sitemap_auditor.core.codes import Status
from sitemap_auditor.core.credentials import Credentials
from sitemap_auditor.core.issues import Kind, issue

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_an_event_that_is_no_object_is_a_request_without_a_url() -> None:
    events: tuple[object, ...] = (None, [], "https://ex.com/", 3)
    for event in events:
        assert parse(event) == AuditRequest(url=None)


def test_the_url_stays_as_received_for_the_501_rules() -> None:
    assert parse({"url": {"a": 1}}).url == {"a": 1}
    assert parse({"url": "  https://ex.com/ "}).url == "  https://ex.com/ "


def test_only_a_string_id_is_a_run_id() -> None:
    assert parse({"id": "run-1"}).id == "run-1"
    assert parse({"id": 7}).id is None


def test_inline_credentials_win_and_a_secret_id_is_used_only_without_them() -> None:
    inline = parse({"basicAuth": {"username": "u", "password": "pw"}, "basicAuthSecretId": "s"})
    assert inline.basic_auth == Credentials("u", "pw") and inline.secret_id is None
    bad = parse({"basicAuth": {"username": "u", "password": 1}, "basicAuthSecretId": " s "})
    assert bad.basic_auth is None and bad.secret_id == "s"
    assert parse({"basicAuthSecretId": "  "}).secret_id is None
    assert parse({"basicAuthSecretId": 5}).secret_id is None
    assert "pw" not in repr(inline)


@pytest.mark.parametrize("field", ["username", "password"])
def test_credentials_utf8_cannot_carry_are_none(field: str) -> None:
    # `"\ud800"` is valid JSON; no Authorization header can be made of it (docs/contract.md §1).
    auth = {"username": "u", "password": "pw", field: "p\ud800w"}
    request = parse({"basicAuth": auth, "basicAuthSecretId": "s"})
    assert request.basic_auth is None and request.secret_id == "s"


@pytest.mark.parametrize("value", [30, 1])
def test_a_json_integer_of_at_least_one_overrides_the_window(value: int) -> None:
    assert parse({"preferences": {"maxAgeDays": value}}).window(7) == (value, None)


@pytest.mark.parametrize("preferences", [None, {}, {"maxAgeDays": None}, "x", []])
def test_no_override_is_no_issue(preferences: Any) -> None:
    assert parse({"preferences": preferences}).window(7) == (7, None)


@pytest.mark.parametrize(
    ("value", "shown"), [(0, "0"), (True, "true"), ("30", '"30"'), (2.5, "2.5"), ([1], "[1]")]
)
def test_any_other_value_is_ignored_with_the_issue(value: object, shown: str) -> None:
    window, why = parse({"preferences": {"maxAgeDays": value}}).window(9)
    assert window == 9 and why is not None and why.kind is Kind.IGNORED_PREFERENCE
    assert why == (
        f"preferences.maxAgeDays: ignored {shown}: not an integer of at least 1; "
        "the window stays 9 days"
    )


def test_a_long_ignored_value_is_cut() -> None:
    _, why = parse({"preferences": {"maxAgeDays": "x" * 10_000}}).window(7)
    assert why is not None and len(why) < 250


def test_statuses_are_an_enumeration_whose_values_are_the_wire_strings() -> None:
    assert [s.value for s in Status] == ["INFORMATION", "SUCCESS", "WARNING", "FAIL", "ERROR"]
    assert f"{Status.FAIL}" == "FAIL" and Status.FAIL == "FAIL"


def test_redaction_reaches_what_the_site_said_and_leaves_identities() -> None:
    inputs = RuleInputs("https://ex.com/pw", None, None, False, False, (), None, 7, NOW)
    found = issue("https://ex.com/pw", Kind.HTTP_STATUS, "HTTP 404 pw")
    outcome = response.build(evaluate(inputs), response.data_map(inputs, [found]), NOW, [found])
    clean = redacted(outcome, ["pw"])
    assert clean.data is not None and clean.data.issues == ("https://ex.com/***: HTTP 404 ***",)
    assert clean.issues == ("https://ex.com/***: HTTP 404 ***",)
    assert clean.issues[0].kind is Kind.HTTP_STATUS
    assert clean.checks is not None and "pw" not in (clean.checks[1].message or "")
    assert clean.check_codes == outcome.check_codes and clean.status is Status.ERROR
    assert redacted(outcome, []) is outcome
