"""Valid Unicode out, whatever came in (docs/contract.md §2).

JSON lets an event carry a lone surrogate (`"\\ud800"`), and so does a command-line argument that
is not UTF-8 (Python decodes it with surrogateescape). UTF-8 cannot encode one: the Lambda runtime
then fails to post the result and a log handler drops the whole line. Each such character becomes
U+FFFD, once, where the text comes in.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = [
    "CUT_MARK",
    "REPLACEMENT",
    "UNSAFE",
    "clip",
    "map_text",
    "shown_text",
    "valid_text",
    "valid_unicode",
]

REPLACEMENT = "\ufffd"
# Python strings hold surrogate code points only alone: json.loads already joins escaped pairs.
_SURROGATES = re.compile("[\ud800-\udfff]")


# What a report never shows as it came from a site: C0 and C1 controls (a terminal reads ESC and
# CSI as commands), bidirectional overrides and lone surrogates. Each becomes U+FFFD.
UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
# A line of a text report is one line: line breaks and tabs in a site's text show as spaces.
_BREAKS = re.compile("[\t\n\r]")


# What a text the deep audit cuts ends with, so that a cut value is never taken for the whole
# one, and so that redaction knows what a cut may have left of a secret (deep/redaction.py).
CUT_MARK = "…"


def clip(text: str, limit: int) -> str:
    """text in at most `limit` characters: when longer, its first limit - 1 and CUT_MARK."""
    return text if len(text) <= limit else text[: limit - 1] + CUT_MARK


def shown_text(text: str) -> str:
    """A site's text fit for a terminal line: UNSAFE characters as U+FFFD, breaks as spaces."""
    return _BREAKS.sub(" ", UNSAFE.sub(REPLACEMENT, text))


def valid_text(text: str) -> str:
    """The text with every surrogate code point replaced by U+FFFD."""
    return _SURROGATES.sub(REPLACEMENT, text)


def valid_unicode(value: object) -> object:
    """A copy of a JSON value whose strings, dictionary keys included, are all valid Unicode."""
    return map_text(value, valid_text)


def map_text(value: object, change: Callable[[str], str]) -> object:
    """A copy of a JSON value with `change` applied to every string, dictionary keys included."""
    if isinstance(value, str):
        return change(value)
    if not isinstance(value, dict | list):
        return value
    # Iterative, so that an event nested as deep as json.loads allows cannot exhaust the stack.
    root: dict[object, object] | list[object] = {} if isinstance(value, dict) else []
    pending: list[tuple[object, dict[object, object] | list[object]]] = [(value, root)]
    while pending:
        source, target = pending.pop()
        if isinstance(source, dict) and isinstance(target, dict):
            for key, item in source.items():
                key = change(key) if isinstance(key, str) else key
                target[key] = _copy(item, pending, change)
        elif isinstance(source, list) and isinstance(target, list):
            target.extend(_copy(item, pending, change) for item in source)
    return root


def _copy(
    value: object,
    pending: list[tuple[object, dict[object, object] | list[object]]],
    change: Callable[[str], str],
) -> object:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        new_dict: dict[object, object] = {}
        pending.append((value, new_dict))
        return new_dict
    if isinstance(value, list):
        new_list: list[object] = []
        pending.append((value, new_list))
        return new_list
    return value
