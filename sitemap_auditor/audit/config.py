"""Deployment settings, read from the environment once per cold start and validated. (The
event's own `preferences.maxAgeDays` is read with the rest of the event, in request.py.)"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from sitemap_auditor.core.errors import ConfigError as ConfigError

__all__ = [
    "ALLOW_PRIVATE_ENV",
    "CACHE_KEY_SECRET_ENV",
    "CACHE_TABLE_ENV",
    "DEFAULT_MAX_AGE_DAYS",
    "DEFAULT_SHARE_SECONDS",
    "MAX_AGE_ENV",
    "SHARE_SECONDS_ENV",
    "ConfigError",
    "SettingWarning",
    "Settings",
    "load",
    "parse_allow_private",
    "parse_max_age_days",
    "parse_share_seconds",
    "setting_warnings",
]

MAX_AGE_ENV = "SITEMAP_MAX_AGE_DAYS"
ALLOW_PRIVATE_ENV = "SITEMAP_ALLOW_PRIVATE_NETWORKS"
SHARE_SECONDS_ENV = "SITEMAP_SHARE_SECONDS"
CACHE_TABLE_ENV = "SITEMAP_CACHE_TABLE"
CACHE_KEY_SECRET_ENV = "SITEMAP_CACHE_KEY_SECRET"
# The documented default freshness window (auditor-doc.md, "Freshness window").
DEFAULT_MAX_AGE_DAYS = 7
# docs/contract.md §7: audits of a site within this many seconds of its fetch share its facts.
DEFAULT_SHARE_SECONDS = 60

_DIGITS = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class Settings:
    """The deployment settings in force for every invocation of this process."""

    max_age_days: int = DEFAULT_MAX_AGE_DAYS
    allow_private_networks: bool = False
    share_seconds: int = DEFAULT_SHARE_SECONDS  # 0: every audit fetches for itself
    cache_table: str | None = None  # the DynamoDB table shared by every container, if any
    # A Secrets Manager secret whose value keys the hash of credentials in the shared table;
    # without it, facts learnt with credentials are shared within one process only.
    cache_key_secret: str | None = None


def parse_max_age_days(raw: str | None) -> int:
    """Return the freshness window from the raw SITEMAP_MAX_AGE_DAYS value, or raise ConfigError."""
    if raw is None or raw.strip() == "":
        return DEFAULT_MAX_AGE_DAYS
    text = raw.strip()
    # ASCII digits only: int() would also take "+7", "1_000" or Arabic-Indic digits.
    if not _DIGITS.fullmatch(text) or _too_long(text) or _number(text) < 1:
        raise ConfigError(
            f"{MAX_AGE_ENV} must be a whole number of days, at least 1 and of at most "
            f"{MAX_SETTING_DIGITS:,} digits; got {raw[:40]!a}"
        )
    return _number(text)


def parse_share_seconds(raw: str | None) -> int:
    """Return the share window from the raw SITEMAP_SHARE_SECONDS value, or raise ConfigError."""
    if raw is None or raw.strip() == "":
        return DEFAULT_SHARE_SECONDS
    text = raw.strip()
    if not _DIGITS.fullmatch(text) or _too_long(text):
        raise ConfigError(
            f"{SHARE_SECONDS_ENV} must be a whole number of seconds, 0 or more and of at most "
            f"{MAX_SETTING_DIGITS:,} digits; got {raw[:40]!a}"
        )
    return _number(text)


# Python reads and writes whole numbers of up to 4,300 digits (sys.get_int_max_str_digits); a
# setting longer than that could be neither read nor written into a Response. The error names
# the variable, and echoes the value in ASCII (!a): the runtime posts an init error as Latin-1.
MAX_SETTING_DIGITS = 4000


def _too_long(digits: str) -> bool:
    return len(digits.lstrip("0")) > MAX_SETTING_DIGITS


def _number(digits: str) -> int:
    return int(digits.lstrip("0") or "0")  # leading zeros count against int()'s limit too


def _optional(raw: str | None) -> str | None:
    return raw.strip() if raw is not None and raw.strip() else None


def parse_allow_private(raw: str | None) -> bool:
    """Return True only for the value "true" (any case, white space ignored)."""
    return raw is not None and raw.strip().lower() == "true"


@dataclass(frozen=True)
class SettingWarning:
    """A setting read otherwise than it may have been meant: the variable, and what was done."""

    variable: str
    message: str  # a sentence that names the variable and the value it was taken as


def setting_warnings(environ: Mapping[str, str]) -> tuple[SettingWarning, ...]:
    """What is read otherwise than people may mean it, one sentence each naming the variable.

    Only `true` lifts the private-network rule (a safety default, docs/contract.md §4): `1`,
    `yes` or `on` are taken as false, and said so rather than silently.
    """
    raw = environ.get(ALLOW_PRIVATE_ENV)
    if raw is None or raw.strip() == "" or parse_allow_private(raw):
        return ()
    return (
        SettingWarning(
            ALLOW_PRIVATE_ENV,
            f"{ALLOW_PRIVATE_ENV} is {raw.strip()[:40]!r}, taken as false: only 'true' allows "
            "loopback and private addresses",
        ),
    )


def load(environ: Mapping[str, str]) -> Settings:
    """Read and validate the settings from an environment mapping."""
    return Settings(
        max_age_days=parse_max_age_days(environ.get(MAX_AGE_ENV)),
        allow_private_networks=parse_allow_private(environ.get(ALLOW_PRIVATE_ENV)),
        share_seconds=parse_share_seconds(environ.get(SHARE_SECONDS_ENV)),
        cache_table=_optional(environ.get(CACHE_TABLE_ENV)),
        cache_key_secret=_optional(environ.get(CACHE_KEY_SECRET_ENV)),
    )
