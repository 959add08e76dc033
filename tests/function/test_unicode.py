"""Valid Unicode out, whatever came in (docs/contract.md §2).

JSON lets an event carry a lone surrogate; the Lambda runtime encodes the result as UTF-8 with
`ensure_ascii=False`, and the log stream encodes as UTF-8, where a lone surrogate cannot go. So
results are checked with `json.dumps(result, ensure_ascii=False).encode("utf-8")` (plain
`json.dumps` escapes surrogates and would hide the defect), and log lines through a strict UTF-8
stream, as the function's standard output is.
"""

from __future__ import annotations

import io
import json
import logging
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.cli import SCRIPT, env
from support.documents import urlset
from support.lambda_process import LambdaProcess
from support.results import LOCAL, days_ago

from harness.environments import lambda_environment
from harness.servers import Site, reply
from sitemap_auditor import handler
from sitemap_auditor.audit import observability
from sitemap_auditor.audit.config import Settings
from sitemap_auditor.core.text import valid_text, valid_unicode

PRODUCTION = Settings(max_age_days=7, allow_private_networks=False)
LONE = "\ud800"
FFFD = "\ufffd"


def encodes(result: dict[str, Any]) -> bytes:
    """The result as the Lambda runtime sends it; raises UnicodeEncodeError if it cannot."""
    return json.dumps(result, ensure_ascii=False).encode("utf-8")


def no_names(host: str, port: int) -> list[str]:
    """A resolver that knows no name: nothing leaves the machine."""
    raise OSError(f"no look-up of {host!r} in this test")


class StrictLogs:
    """The auditor's log lines as a UTF-8 stream receives them, strictly encoded."""

    def __init__(self) -> None:
        self.raw = io.BytesIO()
        self.stream = io.TextIOWrapper(self.raw, encoding="utf-8", errors="strict")

    def lines(self) -> list[dict[str, Any]]:
        self.stream.flush()
        text = self.raw.getvalue().decode("utf-8")
        return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture
def strict_logs() -> Iterator[StrictLogs]:
    capture = StrictLogs()
    log_handler = observability.logger.registered_handler
    assert isinstance(log_handler, logging.StreamHandler)
    previous = log_handler.setStream(capture.stream)
    level = observability.logger.log_level
    observability.logger.setLevel("INFO")
    # The command line's tests may have switched metrics off in this process.
    metrics_were_on = observability.emit_metrics(True)
    try:
        yield capture
    finally:
        observability.emit_metrics(metrics_were_on)
        observability.logger.setLevel(level)
        log_handler.setStream(previous)


# --- the scrubbing function ---------------------------------------------------------------------


def test_every_string_of_the_event_keys_included_is_scrubbed() -> None:
    event = {
        "id": f"run-{LONE}",
        f"k{LONE}": ["\udc80x", {"deep\udfff": f"{LONE}\udc00"}, 1, 2.5, True, None],
        "url": "https://example.com/✓",
    }
    assert valid_unicode(event) == {
        "id": f"run-{FFFD}",
        f"k{FFFD}": [f"{FFFD}x", {f"deep{FFFD}": f"{FFFD}{FFFD}"}, 1, 2.5, True, None],
        "url": "https://example.com/✓",
    }
    assert event["id"] == f"run-{LONE}"  # a copy: the caller's event is left as it was
    for value in (None, 3, 1.5, False, "plain", "😀"):
        assert valid_unicode(value) == value


def test_an_event_nested_as_deep_as_json_allows_is_scrubbed_without_recursion() -> None:
    event: Any = LONE
    for _ in range(100_000):
        event = [event]
    cleaned = valid_unicode(event)
    for _ in range(100_000):
        assert isinstance(cleaned, list)
        (cleaned,) = cleaned
    assert cleaned == FFFD


def test_valid_text_keeps_astral_characters() -> None:
    assert valid_text("a😀b") == "a😀b"
    assert valid_text(json.loads('"\\ud83d\\ude00"')) == "😀"  # a pair JSON joined is kept
    assert valid_text(json.loads('"\\ude00\\ud83d"')) == FFFD * 2  # out of order: two lone ones


# --- through the handler, on loopback -----------------------------------------------------------


def test_a_surrogate_in_the_id_and_path_reaches_neither_result_nor_logs(
    site: Site, strict_logs: StrictLogs, capsys: pytest.CaptureFixture[str]
) -> None:
    site.route("/sitemap.xml", reply(urlset([days_ago(1)])))
    event = {
        "id": f"run-{LONE}",
        "url": site.url(f"/shop/{LONE}?q=\udfff"),
        "stack": [{"vendor": f"\udc80{LONE}", f"product{LONE}": "x"}],
        "preferences": {"maxAgeDays": f"{LONE}"},
    }
    result = handler.run(event, None, LOCAL)
    assert result["status"] in ("SUCCESS", "WARNING")
    assert result["checks"][0]["data"]["selectedSitemapUrl"] == site.url("/sitemap.xml")
    encodes(result)
    lines = strict_logs.lines()
    assert [line["message"] for line in lines] == [
        "audit started",
        "fetched",
        "fetched",
        "audit finished",
    ]
    assert {line["run_id"] for line in lines} == {f"run-{FFFD}"}
    assert lines[0]["url"] == site.url(f"/shop/{FFFD}?q={FFFD}")
    printed = capsys.readouterr()
    assert "Logging error" not in printed.err
    (emf,) = [json.loads(x) for x in printed.out.splitlines() if x.startswith('{"_aws"')]
    assert emf["run_id"] == f"run-{FFFD}"


@pytest.mark.parametrize(
    "url",
    [
        f"example.com/{LONE}",  # no scheme: the 501 recommendation echoes it
        f"http://{LONE}.example/",  # a host no IDNA encoding accepts
        {f"u{LONE}": ["\udfff"]},  # not a string: its JSON text is echoed
        [LONE],
        f"  https://user:{LONE}@  ",
    ],
)
def test_an_invalid_url_with_a_surrogate_is_a_501_that_encodes(
    url: object, strict_logs: StrictLogs, capsys: pytest.CaptureFixture[str]
) -> None:
    result = handler.run({"id": LONE, "url": url}, None, PRODUCTION, no_names)
    assert result["status"] == "ERROR"
    (_, error) = result["checks"]
    assert error["code"]["id"].endswith("-501")
    assert LONE not in json.dumps(result, ensure_ascii=False)
    encodes(result)
    assert [line["message"] for line in strict_logs.lines()] == ["audit started", "audit finished"]
    assert "Logging error" not in capsys.readouterr().err


def test_a_surrogate_in_an_echoed_url_becomes_fffd_in_the_recommendation() -> None:
    result = handler.run({"id": "r", "url": f"example.com/{LONE}"}, None, PRODUCTION, no_names)
    recommendation = result["checks"][1]["recommendation"]
    assert f"example.com/{FFFD}" in recommendation


def test_a_surrogate_in_a_valid_urls_path_gives_issues_not_an_error(
    strict_logs: StrictLogs,
) -> None:
    # A valid URL (its host is ASCII) whose path carries the surrogate: fetched and refused.
    result = handler.run({"id": "r", "url": f"http://a.example/{LONE}"}, None, PRODUCTION, no_names)
    assert result["status"] == "FAIL"
    encodes(result)
    assert {line["run_id"] for line in strict_logs.lines()} == {"r"}


def test_the_function_process_writes_every_line_of_a_surrogate_event(site: Site) -> None:
    """The real case: a warm function process whose standard output is a UTF-8 pipe."""
    site.route(
        "/robots.txt", reply(f"Sitemap: {site.url('/sitemap.xml')}\n", content_type="text/plain")
    )
    site.route("/sitemap.xml", reply(urlset([days_ago(1)])))
    with LambdaProcess(lambda_environment()) as process:
        run = process.invoke({"id": f"id-{LONE}", "url": site.url(f"/{LONE}")})
        after = process.invoke({"id": "next", "url": site.url("/")})
        stderr = process.stderr()
    encodes(run.result)
    assert run.result["status"] == "SUCCESS"
    assert [line["message"] for line in run.logs] == [
        "audit started",
        "fetched",
        "fetched",
        "audit finished",
    ]
    assert {line["run_id"] for line in run.lines} == {f"id-{FFFD}"}  # EMF document included
    assert after.result["status"] == "SUCCESS"  # the process lived on
    assert "Logging error" not in stderr and "UnicodeEncodeError" not in stderr


def test_the_command_line_prints_an_argument_that_is_not_utf8(site: Site) -> None:
    assert SCRIPT is not None
    site.route("/sitemap.xml", reply(urlset([days_ago(1)])))
    url = site.url("/").encode() + b"\xff"
    for extra in ([], ["--json"]):
        done = subprocess.run(
            [SCRIPT, "--allow-private-networks", *extra, url],
            capture_output=True,
            env=env(),
            timeout=120,
        )
        out = done.stdout.decode("utf-8")
        assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
        assert b"Traceback" not in done.stderr
        if extra:
            assert json.loads(out)["status"] == "SUCCESS"
        else:
            assert out.startswith(site.url(f"/{FFFD}  "))


# --- any JSON event ------------------------------------------------------------------------------

# Any string JSON can carry. st.text() leaves surrogates out (it keeps to what UTF-8 encodes),
# so they are drawn as code points of their own.
TEXT = st.lists(
    st.characters() | st.integers(0xD800, 0xDFFF).map(chr) | st.sampled_from(["\ud83d\ude00"]),
    max_size=24,
).map("".join)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)
# A url that never leaves the machine: any JSON value (mostly not a URL), text after a scheme
# whose host is always a name (refused by the test's resolver, never an address literal), or
# text after an unresolvable host.
UNREACHABLE_URL = (
    JSON | TEXT.map(lambda t: "http://a" + t) | TEXT.map(lambda t: "https://example.invalid/" + t)
)


def event_of(url: st.SearchStrategy[Any] | None) -> st.SearchStrategy[dict[str, Any]]:
    """Events of the platform's shape, every value arbitrary JSON, unknown keys too."""
    optional: dict[str, st.SearchStrategy[Any]] = {
        "id": JSON,
        "stack": JSON,
        "basicAuth": JSON | st.fixed_dictionaries({"username": TEXT, "password": TEXT}),
        "preferences": JSON | st.fixed_dictionaries({"maxAgeDays": JSON}),
    }
    if url is not None:
        optional["url"] = url
    known = st.fixed_dictionaries({}, optional=optional)
    return st.tuples(known, st.dictionaries(TEXT, JSON, max_size=3)).map(
        lambda pair: {**pair[1], **pair[0]}
    )


def assert_returned_cleanly(result: dict[str, Any]) -> None:
    encodes(result)
    # checks is null only on the defect path: bad input is an issue or a 501, never a crash.
    assert result["checks"] is not None, result["message"]
    assert result["status"] in ("SUCCESS", "WARNING", "FAIL", "ERROR")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(event=event_of(UNREACHABLE_URL) | JSON)
def test_any_json_event_returns_a_result_that_encodes(event: Any) -> None:
    result = handler.run(event, None, PRODUCTION, no_names)
    assert_returned_cleanly(result)


@pytest.fixture(scope="module")
def loopback() -> Iterator[Site]:
    s = Site().start()
    s.route("/robots.txt", reply("Sitemap: /sitemap.xml\n", content_type="text/plain"))
    s.route("/sitemap.xml", reply(urlset([days_ago(1), "2020-01-01"])))
    yield s
    s.stop()


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(path=TEXT, rest=event_of(None))
def test_any_path_and_event_on_a_real_server_return_a_result_that_encodes(
    loopback: Site, path: str, rest: dict[str, Any]
) -> None:
    event = {**rest, "url": loopback.url("/") + path}
    result = handler.run(event, None, LOCAL, no_names)
    assert_returned_cleanly(result)
