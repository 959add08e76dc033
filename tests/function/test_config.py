"""Deployment settings (docs/contract.md §6): read at start-up; a bad window stops the function."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from sitemap_auditor.audit.config import (
    ConfigError,
    Settings,
    load,
    parse_allow_private,
    parse_max_age_days,
    parse_share_seconds,
    setting_warnings,
)


@pytest.mark.parametrize(
    ("raw", "days"),
    [
        *((None, 7), ("", 7), ("   ", 7), ("1", 1), (" 30 \n", 30), ("007", 7)),
        *(("100000", 100000), ("0" * 5000 + "7", 7), ("9" * 4000, int("9" * 4000))),
    ],
)
def test_valid_windows(raw: str | None, days: int) -> None:
    assert parse_max_age_days(raw) == days


@pytest.mark.parametrize(
    "raw", ["0", "-1", "2.5", "1e3", "7days", "+7", "1_000", "٧", "seven", "0x7", "9" * 5000]
)
def test_invalid_windows_name_the_variable(raw: str) -> None:
    # In ASCII (the runtime posts an init error as Latin-1, and `٧` could not be posted), and
    # a value too long for Python's int() too (it raised a ValueError naming nothing).
    with pytest.raises(ConfigError, match="SITEMAP_MAX_AGE_DAYS") as refused:
        parse_max_age_days(raw)
    str(refused.value).encode("latin-1")


@pytest.mark.parametrize(
    ("raw", "allowed"),
    [
        (None, False),
        ("true", True),
        (" TRUE\n", True),
        ("True", True),
        ("1", False),
        ("yes", False),
        ("false", False),
        ("", False),
        ("true!", False),
    ],
)
def test_allow_private_networks(raw: str | None, allowed: bool) -> None:
    assert parse_allow_private(raw) is allowed


@pytest.mark.parametrize(
    ("raw", "seconds"), [(None, 60), ("", 60), (" ", 60), ("0", 0), (" 1\n", 1), ("3600", 3600)]
)
def test_valid_share_windows(raw: str | None, seconds: int) -> None:
    assert parse_share_seconds(raw) == seconds


@pytest.mark.parametrize(
    "raw", ["-1", "2.5", "1e3", "60s", "+60", "1_000", "٦٠", "６０", "off", "0x10", "9" * 5000]
)
def test_invalid_share_windows_name_the_variable(raw: str) -> None:
    with pytest.raises(ConfigError, match="SITEMAP_SHARE_SECONDS") as refused:
        parse_share_seconds(raw)
    str(refused.value).encode("latin-1")


@pytest.mark.parametrize("raw", ["-1", "2.5", "sixty"])
def test_a_bad_share_window_stops_the_function_at_import(raw: str) -> None:
    done = import_handler(SITEMAP_SHARE_SECONDS=raw)
    assert done.returncode != 0
    assert "ConfigError" in done.stderr and "SITEMAP_SHARE_SECONDS" in done.stderr


def test_cache_settings_are_read_at_import() -> None:
    done = import_handler(
        SITEMAP_SHARE_SECONDS=" 0 ", SITEMAP_CACHE_TABLE=" facts ", SITEMAP_CACHE_KEY_SECRET="k"
    )
    assert done.returncode == 0, done.stderr
    assert "share_seconds=0, cache_table='facts', cache_key_secret='k'" in done.stdout


def test_load() -> None:
    assert load({}) == Settings(7, False)
    env = {"SITEMAP_MAX_AGE_DAYS": "14", "SITEMAP_ALLOW_PRIVATE_NETWORKS": "true"}
    assert load(env) == Settings(14, True)


def import_handler(**env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("SITEMAP_")}
    full.update(env)
    return subprocess.run(
        [sys.executable, "-c", "import sitemap_auditor.handler as h; print(h.SETTINGS)"],
        env=full,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("raw", ["0", "-1", "2.5", "1e3", "7days"])
def test_a_bad_window_stops_the_function_at_import(raw: str) -> None:
    done = import_handler(SITEMAP_MAX_AGE_DAYS=raw)
    assert done.returncode != 0
    assert "ConfigError" in done.stderr and "SITEMAP_MAX_AGE_DAYS" in done.stderr


def test_settings_are_read_at_import() -> None:
    done = import_handler(SITEMAP_MAX_AGE_DAYS=" 21 ", SITEMAP_ALLOW_PRIVATE_NETWORKS="TRUE")
    assert done.returncode == 0, done.stderr
    assert "Settings(max_age_days=21, allow_private_networks=True, share_seconds=60" in done.stdout


@pytest.mark.parametrize("raw", ["1", "yes", " on ", "false", "TRUE!"])
def test_an_allow_private_value_other_than_true_gets_a_warning(raw: str) -> None:
    (warning,) = setting_warnings({"SITEMAP_ALLOW_PRIVATE_NETWORKS": raw})
    assert warning.variable == "SITEMAP_ALLOW_PRIVATE_NETWORKS"
    assert warning.message.startswith(f"SITEMAP_ALLOW_PRIVATE_NETWORKS is {raw.strip()!r}")
    assert "taken as false" in warning.message


@pytest.mark.parametrize("raw", [None, "", "   ", "true", " True\n"])
def test_true_or_nothing_gets_no_warning(raw: str | None) -> None:
    environ = {} if raw is None else {"SITEMAP_ALLOW_PRIVATE_NETWORKS": raw}
    assert setting_warnings(environ) == ()


def test_the_function_logs_the_warning_once_at_its_start() -> None:
    done = import_handler(SITEMAP_ALLOW_PRIVATE_NETWORKS="1")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [(r["level"], r["setting"]) for r in records] == [
        ("WARNING", "SITEMAP_ALLOW_PRIVATE_NETWORKS")
    ]
    assert "'1', taken as false" in records[0]["message"]
    assert "allow_private_networks=False" in done.stdout
