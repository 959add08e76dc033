"""ExtraHeaders.secrets: what no report may echo of the credential headers a user gives."""

from __future__ import annotations

from sitemap_auditor.audit.response import redact
from sitemap_auditor.core.request_headers import MIN_TOKEN_CHARS, ExtraHeaders, parse_header


def _secrets(*headers: str) -> tuple[str, ...]:
    return ExtraHeaders.of([parse_header(h) for h in headers]).secrets()


def test_a_bearer_token_echoed_alone_is_redacted() -> None:
    secrets = _secrets("Authorization: Bearer TOKEN123secret")
    assert redact("?t=TOKEN123secret", secrets) == "?t=***"
    assert redact("Bearer TOKEN123secret", secrets) == "***"


def test_each_cookie_value_is_redacted_alone_and_percent_encoded() -> None:
    secrets = _secrets("Cookie: sess=a1b2/c3d4+e5; lang=fr")
    assert redact("/x?s=a1b2/c3d4+e5", secrets) == "/x?s=***"
    assert redact("/x?s=a1b2%2Fc3d4%2Be5", secrets) == "/x?s=***"
    # Lower-case hex, and a path's encoding, which keeps the `/`.
    assert redact("/x?s=a1b2%2fc3d4%2be5", secrets) == "/x?s=***"
    assert redact("/x/a1b2/c3d4%2Be5", secrets) == "/x/***"
    # A value shorter than MIN_TOKEN_CHARS is an ordinary word: only the whole header hides it.
    assert len("fr") < MIN_TOKEN_CHARS
    assert redact("/fr/page", secrets) == "/fr/page"


def test_other_headers_are_no_secret() -> None:
    assert _secrets("X-Audit: agency-42-long-value") == ()
