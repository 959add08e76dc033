"""ExtraHeaders.secrets: what no report may echo of the credential headers a user gives."""

from __future__ import annotations

import base64

import pytest

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


def test_an_authorization_without_a_scheme_is_a_token_whole_in_every_spelling() -> None:
    # A raw API key: no space, so no token was taken from it, and its percent-encoded echo
    # was shown.
    secrets = _secrets("Authorization: abc/def+ghi=123456")
    for echoed in ("abc/def+ghi=123456", "abc%2Fdef%2Bghi%3D123456", "abc%2fdef%2bghi%3d123456"):
        assert redact(f"/rel?key={echoed}&x=1", secrets) == "/rel?key=***&x=1"


def test_a_quoted_cookie_value_is_hidden_without_its_quotes_too() -> None:
    secrets = _secrets('Cookie: sid="zz/yy+xx=998877"')
    assert redact("/p?ck=zz%2Fyy%2Bxx%3D998877", secrets) == "/p?ck=***"
    assert redact('/p?ck="zz/yy+xx=998877"', secrets) == "/p?ck=***"


def test_a_basic_header_s_password_is_hidden_as_itself_as_user_s_is() -> None:
    # Only the Base64 token was hunted: a site echoing the password itself showed it.
    token = base64.b64encode(b"agency:pa55word/42").decode()
    secrets = _secrets(f"Authorization: Basic {token}")
    assert redact("/p?pw=pa55word/42", secrets) == "/p?pw=***"
    assert redact("/p?pw=pa55word%2F42", secrets) == "/p?pw=***"
    # A token that is no Base64 of `user:password` is hunted as written, and nothing more.
    assert "not-base64!" in _secrets("Authorization: Basic not-base64!")


def test_other_headers_are_no_secret() -> None:
    assert _secrets("X-Audit: agency-42-long-value") == ()


def test_a_mistyped_header_is_refused_without_echoing_its_value() -> None:
    # The usage error quoted the first 40 characters: a token, in a CI log; and a bare token
    # is made of characters a header's name may hold.
    for typo in (
        "Authorization Bearer Tok3n+Secret/Value=",
        "Authorization=Tok3n+Secret/Value=",
        "Cookie session=Tok3n+Secret",
        "Authorization Bearer Tok3n:Secret",
        "ghp_Tok3nAbCdEf0123456789AbCdEf0123456789",
    ):
        with pytest.raises(ValueError) as refused:
            parse_header(typo)
        assert "Tok3n" not in str(refused.value) and "not shown" in str(refused.value)
