"""Issue strings of the data map: `<subject>: <what happened>`, bounded in length."""

from __future__ import annotations

import re

# docs/contract.md §6: no issue string is longer than 500 characters; quoted values are cut to 100.
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


# Where the values an issue quotes begin: quotes, numbers, a parenthesis, a colon, "at line",
# the name of a root element.
_VALUE = re.compile(r"['\"0-9(:]| at line|(?<=unknown root element) <")


def kind(text: str) -> str:
    """The kind of an issue string: what happened, without its subject or the values it quotes."""
    _, sep, rest = text.partition(": ")
    what = rest if sep else text
    if what.startswith("HTTP "):
        return what[:8]  # the status is the kind: "HTTP 404"
    if what.startswith("fetch error ("):
        return "fetch error: " + re.split(r"[:)]", what[len("fetch error (") :], maxsplit=1)[0]
    return _VALUE.split(what, maxsplit=1)[0].strip(" ,;") or what[:40]
