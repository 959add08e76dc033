"""The data map's issues as values: what they are about, their kind, and what happened.

An issue's text, `<subject>: <detail>` cut to 500 characters, is what the data map shows
(docs/contract.md §6); its kind is a stable identifier (lower-case words joined by `-`) that the
`issue_kinds` log field and the operators' queries group by, so that rewording a message never
moves it to another kind. docs/operations.md lists every kind.
"""

from __future__ import annotations

from enum import StrEnum

from sitemap_auditor.core.urls import strip_userinfo

__all__ = [
    "MAX_HEADER_CHARS",
    "MAX_ISSUE_CHARS",
    "MAX_VALUE_CHARS",
    "Issue",
    "Kind",
    "cut_header",
    "cut_value",
    "issue",
]

# docs/contract.md §6: no issue string is longer than 500 characters; quoted values are cut to 100.
MAX_ISSUE_CHARS = 500
MAX_VALUE_CHARS = 100
# A header the data map shows as sent (the Content-Type) is cut past this: the longest line an
# answer's header may have (http.client refuses a longer one), so only a header folded over
# several lines, which can be megabytes, is cut.
MAX_HEADER_CHARS = 65_536
_ELLIPSIS = "..."


class Kind(StrEnum):
    """What an issue says happened."""

    # robots.txt
    HTTP_STATUS = "http-status"  # an answer other than 200 (robots.txt) or 2xx (a candidate)
    ROBOTS_UNREAD = "robots-unread"  # robots.txt answered 200, its body could not be read whole
    ROBOTS_TRUNCATED = "robots-truncated"  # larger than its 500 KiB: only that much was read
    UTF16_ROBOTS = "utf16-robots"  # robots.txt in UTF-16, which Google does not read
    LENIENT_KEY = "lenient-sitemap-key"  # `Sitemaps:`, `site-map`, no colon: only Google reads it
    LENIENT_KEYS_TOTAL = "lenient-sitemap-keys-total"  # how many such lines beyond those listed
    SKIPPED_SITEMAP = "skipped-sitemap-value"  # a Sitemap: value that is no usable URL
    SKIPPED_TOTAL = "skipped-sitemap-total"  # how many values were skipped in all
    CANDIDATES_LEFT_OUT = "candidates-left-out"  # Sitemap: URLs beyond the first 100
    # a candidate's body
    EMPTY_BODY = "empty-body"
    UNKNOWN_ROOT = "unknown-root"  # a root other than <urlset> or <sitemapindex>
    NOT_WELL_FORMED = "not-well-formed"  # XML that is not well-formed (line and column)
    REFUSED_XML = "refused-xml"  # entities, external references, markup or names past bounds
    TOO_DEEP = "too-deeply-nested"  # elements nested deeper than 256
    UNSUPPORTED_ENCODING = "unsupported-encoding"  # a declared encoding nothing can read
    BODY_TOO_LARGE = "body-too-large"  # over 50 MB, on the wire or decompressed
    OUT_OF_TIME = "out-of-time"  # not fetched: the audit's own time budget ran out
    # fetching (one kind per fetch.FetchErrorKind but those two above)
    BLOCKED_ADDRESS = "blocked-address"  # a non-public address
    FETCH_TIMEOUT = "fetch-timeout"
    FETCH_DNS = "fetch-dns"
    FETCH_CONNECT = "fetch-connect"
    FETCH_CONNECTION = "fetch-connection"
    FETCH_CONNECTION_RESET = "fetch-connection-reset"
    FETCH_INCOMPLETE_BODY = "fetch-incomplete-body"
    FETCH_TLS = "fetch-tls"
    FETCH_INVALID_URL = "fetch-invalid-url"
    FETCH_BROKEN_BODY = "fetch-broken-body"
    FETCH_PROTOCOL = "fetch-protocol"
    FETCH_BAD_COMPRESSED_DATA = "fetch-bad-compressed-data"
    FETCH_TRUNCATED_COMPRESSED_DATA = "fetch-truncated-compressed-data"
    FETCH_UNSUPPORTED_ENCODING = "fetch-unsupported-content-encoding"
    FETCH_TOO_MANY_REDIRECTS = "fetch-too-many-redirects"
    FETCH_OTHER_SCHEME = "fetch-redirect-to-another-scheme"
    # the selected sitemap's lastmods, and the event
    UNPARSABLE_LASTMOD = "unparsable-lastmod"
    UNPARSABLE_TOTAL = "unparsable-lastmod-total"  # how many in all, beyond the 20 listed
    IGNORED_PREFERENCE = "ignored-preference"  # preferences.maxAgeDays that is not an integer ≥ 1


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - len(_ELLIPSIS)] + _ELLIPSIS


# An issue too long for MAX_ISSUE_CHARS keeps at least this much of its subject, and its
# detail (the why: "HTTP 404") whole before the subject is cut further.
_MIN_SUBJECT_CHARS = 100


def _shown(subject: str, detail: str) -> str:
    """`<subject>: <detail>` in MAX_ISSUE_CHARS: a long subject (a URL up to 2,048 characters)
    is cut, not the detail, so that a failed candidate still says why."""
    text = f"{subject}: {detail}"
    if len(text) <= MAX_ISSUE_CHARS:
        return text
    shown = _cut(detail, MAX_ISSUE_CHARS - 2 - min(len(subject), _MIN_SUBJECT_CHARS))
    return f"{_cut(subject, MAX_ISSUE_CHARS - 2 - len(shown))}: {shown}"


def cut_value(value: str) -> str:
    """Cut a value quoted from a site to the length an issue may quote, without the userinfo
    of any URL in it (docs/contract.md §8: no echoed URL carries userinfo, in any spelling)."""
    return _cut(strip_userinfo(value), MAX_VALUE_CHARS)


def cut_header(value: str | None) -> str | None:
    """A header the data map shows as sent, cut to MAX_HEADER_CHARS (the last three `...`):
    every echoed value is cut, so that the result stays small whatever the site sends."""
    return None if value is None else _cut(value, MAX_HEADER_CHARS)


class Issue(str):
    """One issue of the data map: the string it shows, `<subject>: <detail>` cut to 500
    characters, with what it is about (`subject`: a URL, or a setting), its `kind` and its
    `detail`. It is that string (it compares, hashes and serialises as it), so it travels
    wherever the data map's strings go; its kind never has to be read back from its wording."""

    subject: str
    kind: Kind
    detail: str

    def __new__(cls, subject: str, kind: Kind, detail: str) -> Issue:
        self = super().__new__(cls, _shown(subject, detail))
        object.__setattr__(self, "subject", subject)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "detail", detail)
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("an Issue is a value: it cannot be changed")

    def __getnewargs__(self) -> tuple[str, Kind, str]:  # type: ignore[override]
        return (self.subject, self.kind, self.detail)

    @property
    def text(self) -> str:
        """The string the data map shows."""
        return str.__str__(self)

    def __repr__(self) -> str:
        return f"Issue({self.kind.value}: {str.__repr__(self)})"


def issue(subject: str, kind: Kind, detail: str) -> Issue:
    """One issue about a URL (or the setting named in subject)."""
    return Issue(subject, kind, detail)
