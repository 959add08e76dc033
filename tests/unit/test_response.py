"""The platform's Response built from values (docs/contract.md §2, §3): order, status, texts."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest
from support.results import CHECK_KEYS, DATA_MAP_OF_501

from sitemap_auditor.audit import response
from sitemap_auditor.audit.outcome import DataMap
from sitemap_auditor.audit.rules import Fired, RuleInputs
from sitemap_auditor.core import codes
from sitemap_auditor.core.issues import Kind, issue

NOW = datetime(2026, 12, 1, 12, 0, 5, 999_000, tzinfo=UTC)
INFO = Fired(codes.INFO_100, codes.SPEC_URL, {"specUrl": codes.SPEC_URL})
STALE = Fired(
    codes.WARN_300,
    "https://ex.com/s.xml",
    {
        "sitemapUrl": "https://ex.com/s.xml",
        "latestLastmod": "2026-01-01T00:00:00Z",
        "ageDays": 334,
        "maxAgeDays": 7,
    },
)
NONE_FOUND = Fired(
    codes.FAIL_400,
    "https://ex.com",
    {
        "siteBase": "https://ex.com",
        "robotsTxtUrl": "https://ex.com/robots.txt",
        "candidates": "a, b",
        "candidateCount": 2,
    },
)
NO_SITEMAP_LINE = Fired(
    codes.WARN_302,
    "https://ex.com/robots.txt",
    {"robotsTxtUrl": "https://ex.com/robots.txt", "sitemapUrl": "https://ex.com/sitemap.xml"},
)
INVALID = Fired(codes.ERROR_501, None, {"url": None})
EMPTY = response.data_map(RuleInputs(None, None, None, False, False, (), None, 7, NOW), [])


def build(fired: list[Fired], data: DataMap = EMPTY) -> dict[str, Any]:
    """The Response of an outcome built from these checks and this data map."""
    return response.render(response.build(fired, data, NOW))


@pytest.mark.parametrize(
    ("statuses", "overall"),
    [
        ([], "SUCCESS"),
        (["INFORMATION"], "SUCCESS"),
        (["INFORMATION", "SUCCESS"], "SUCCESS"),
        (["INFORMATION", "WARNING", "SUCCESS"], "WARNING"),
        (["INFORMATION", "FAIL", "WARNING"], "FAIL"),
        (["INFORMATION", "ERROR"], "ERROR"),
        (["ERROR", "WARNING"], "WARNING"),
        (["ERROR", "FAIL"], "FAIL"),
    ],
)
def test_the_overall_status_ignores_information(statuses: list[str], overall: str) -> None:
    assert response.overall_status(statuses) == overall


def test_a_response_has_every_key_and_the_deciding_checks_message() -> None:
    result = build([INFO, NONE_FOUND, NO_SITEMAP_LINE])
    assert list(result) == ["version", "auditor", "status", "date", "message", "groupId", "checks"]
    assert result["status"] == "FAIL" and result["date"] == "2026-12-01T12:00:05Z"
    assert result["message"] == result["checks"][1]["message"]
    assert result["auditor"]["id"] == "com.thirtysevenaudits.auditor.SitemapAuditor"
    check = result["checks"][1]
    assert list(check) == CHECK_KEYS
    assert check["score"] == 0 and check["order"] is None
    assert check["code"] == {
        "id": "37A-SitemapAuditor-400",
        "description": "No sitemap found",
        "rationale": codes.FAIL_400.rationale,
    }
    assert "Candidates tried: a, b." in check["recommendation"]


def test_placeholders_are_filled_and_a_missing_value_reads_null() -> None:
    result = build([INFO, INVALID])
    (_, invalid) = result["checks"]
    assert "The audited URL null is missing" in invalid["message"]
    assert invalid["recommendation"].endswith("instead of null.")
    assert result["checks"][0]["recommendation"] is None and invalid["code"]["rationale"] is None
    assert result["status"] == "ERROR"


def test_every_check_carries_the_same_data_map() -> None:
    found = issue("https://ex.com/robots.txt", Kind.HTTP_STATUS, "HTTP 404")
    shared = replace(EMPTY, issues=(found.text,))
    data = shared.to_json()
    result = build([INFO, STALE], shared)
    assert all(c["data"] == data for c in result["checks"])
    assert "334 days ago" in result["message"]


def test_the_data_map_of_a_501_is_empty_but_for_the_window() -> None:
    f = RuleInputs(None, None, None, False, False, (), None, 7, NOW)
    assert response.data_map(f, []).to_json() == DATA_MAP_OF_501


def test_issues_go_out_as_their_text() -> None:
    f = RuleInputs(None, None, None, False, False, (), None, 7, NOW)
    found = issue("https://ex.com/robots.txt", Kind.HTTP_STATUS, "HTTP 503")
    assert response.data_map(f, [found]).to_json()["issues"] == [
        "https://ex.com/robots.txt: HTTP 503"
    ]


def test_a_defect_is_the_error_response_cut_and_redacted() -> None:
    outcome = response.error(ValueError("token s3cr3t\n\n  " + "x" * 400), NOW, ["s3cr3t"])
    result = response.render(outcome)
    assert result["status"] == "ERROR" and result["checks"] is None
    assert result["message"].startswith("The audit could not finish: ValueError: token *** x")
    assert len(result["message"]) == response.MAX_ERROR_MESSAGE and result["message"].endswith(
        "..."
    )
    assert "s3cr3t" not in json.dumps(result)


def test_redaction_reaches_every_string_of_a_result() -> None:
    tree = {"a": ["pw", {"b": "user:pw@host"}], "c": 3, "d": None}
    assert response.redact_tree(tree, ["pw", ""]) == {
        "a": ["***", {"b": "user:***@host"}],
        "c": 3,
        "d": None,
    }


@pytest.mark.parametrize("password", ["SUCCESS", "WARNING", "2026", "Sitemap", "SitemapAuditor"])
def test_a_password_that_spells_a_fixed_word_leaves_the_format_whole(password: str) -> None:
    # The status, a CheckCode, the date and the auditor became "***": the format broken, and
    # the password told by where the stars stood (`***-12-01T12:00:05Z` is 2026).
    result = build([INFO, STALE])
    shown = response.redact_tree(result, [password])
    for key in ("status", "date", "auditor"):
        assert shown[key] == result[key]
    for check, was in zip(shown["checks"], result["checks"], strict=True):
        assert (check["code"], check["status"]) == (was["code"], was["status"])
        assert check["data"]["latestLastmod"] == was["data"]["latestLastmod"]
    # What the site may have echoed is still redacted.
    assert response.redact_tree({"data": {"issues": [f"x/{password}"]}}, [password]) == {
        "data": {"issues": ["x/***"]}
    }
