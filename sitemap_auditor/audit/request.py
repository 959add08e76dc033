"""The event, read once at the door into a typed request (docs/contract.md §1, §6).

Only what the contract names is read, and every bad value has its rule here: an `id` that is
not a string is no run id; a `basicAuth` that is not an object of string `username` and
`password` is no credentials (a `basicAuthSecretId` then may name them); a `basicAuthSecretId`
that is neither a string nor null is unreadable (the handler's ERROR); a `maxAgeDays` that is
absent or `null` is no override, and any other value that is not a JSON integer of at least 1 is
ignored, which `window` turns into the contract's issue. The URL stays as received: whether it
gives a site root, and how a 501 describes it, is site.py's to say (§6).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from sitemap_auditor.core.credentials import Credentials, from_mapping
from sitemap_auditor.core.issues import Issue, Kind, cut_value, issue

__all__ = ["AuditRequest", "parse"]


@dataclass(frozen=True)
class AuditRequest:
    """One invocation's event, typed. Its repr never shows the credentials."""

    url: object  # as received: the 501 rules (site.py) read any JSON value
    id: str | None = None
    basic_auth: Credentials | None = field(default=None, repr=False)
    # Used only when `basic_auth` is None: a Secrets Manager secret id, stripped.
    secret_id: str | None = None
    # The JSON type of a `basicAuthSecretId` that is no string ("an object"): no secret can be
    # read by it, and the audit is the contract's ERROR for an unreadable one (§2), not one
    # without it. Its type only: the secret's value put where its id belongs is a credential.
    unreadable_secret_id: str | None = None
    max_age_days: int | None = None  # the event's valid override, if any
    # The JSON text (cut) of a `maxAgeDays` the contract ignores, for its issue.
    ignored_max_age_days: str | None = None

    def window(self, default: int) -> tuple[int, Issue | None]:
        """The window for this run: the override when valid, else `default` and, when a value
        was ignored, the issue that says so."""
        if self.max_age_days is not None:
            return self.max_age_days, None
        if self.ignored_max_age_days is None:
            return default, None
        return default, issue(
            "preferences.maxAgeDays",
            Kind.IGNORED_PREFERENCE,
            f"ignored {self.ignored_max_age_days}: not an integer of at least 1; "
            f"the window stays {default} days",
        )


def _shown(value: object) -> str:
    try:
        shown = json.dumps(value)
    except (TypeError, ValueError):
        shown = repr(value)
    return cut_value(shown)


def _json_type(value: object) -> str:
    """What JSON calls a value's type, with its article (bool before int: true is no number)."""
    for kind, word in ((bool, "a boolean"), ((int, float), "a number"), (dict, "an object")):
        if isinstance(value, kind):
            return word
    return "an array" if isinstance(value, list) else "no JSON value"


def parse(event: Any) -> AuditRequest:
    """The request an event makes; anything but an object is an event without a URL."""
    ev: dict[str, Any] = event if isinstance(event, dict) else {}
    run_id = ev.get("id")
    inline = from_mapping(ev.get("basicAuth"))
    raw_secret_id = ev.get("basicAuthSecretId")
    secret_id = raw_secret_id.strip() if isinstance(raw_secret_id, str) else ""
    max_age: int | None = None
    ignored: str | None = None
    preferences = ev.get("preferences")
    if isinstance(preferences, dict) and preferences.get("maxAgeDays") is not None:
        value = preferences["maxAgeDays"]
        # A JSON integer: bool is an int in Python but true is not a number in JSON.
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            max_age = value
        else:
            ignored = _shown(value)
    return AuditRequest(
        url=ev.get("url"),
        id=run_id if isinstance(run_id, str) else None,
        basic_auth=inline,
        secret_id=secret_id if inline is None and secret_id else None,
        unreadable_secret_id=(
            _json_type(raw_secret_id)
            if inline is None and raw_secret_id is not None and not isinstance(raw_secret_id, str)
            else None
        ),
        max_age_days=max_age,
        ignored_max_age_days=ignored,
    )
