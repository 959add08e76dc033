"""Issue strings of the data map: `<subject>: <what happened>`, bounded in length."""

from __future__ import annotations

# CONTRACT section 6: no issue string is longer than 500 characters; quoted values are cut to 100.
MAX_ISSUE_CHARS = 500
MAX_VALUE_CHARS = 100
_ELLIPSIS = "..."


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - len(_ELLIPSIS)] + _ELLIPSIS


def cut_value(value: str) -> str:
    """Cut a value quoted from a site to the length an issue may quote."""
    return _cut(value, MAX_VALUE_CHARS)


def issue(subject: str, text: str) -> str:
    """Build one issue string about a URL (or the setting named in subject)."""
    return _cut(f"{subject}: {text}", MAX_ISSUE_CHARS)
