"""What is never shown of a credential (docs/contract.md §8): its forms, and how they are found."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import pytest

from sitemap_auditor.audit import response
from sitemap_auditor.audit.response import redact
from sitemap_auditor.core.credentials import MIN_FREE_TEXT_SECRET, Credentials, echoed_in
from sitemap_auditor.core.request_headers import ExtraHeaders
from sitemap_auditor.core.robots import sitemap_urls
from sitemap_auditor.sharing import driver as sharing


@pytest.mark.parametrize(
    "password",
    ["a  b   c", "  padded  ", "tab\there", "new\nline", "multi   word   secret", "é ü"],
)
def test_a_password_with_runs_of_white_space_is_redacted_however_it_is_echoed(
    password: str,
) -> None:
    secrets = Credentials("u", password).secrets()
    folded = " ".join(password.split())
    for echoed in (password, password.strip(), folded):
        text = f"the site said {echoed!s} back"
        assert folded not in redact(text, secrets).replace("the site said", "")


def test_an_error_message_is_redacted_before_its_white_space_is_folded() -> None:
    creds = Credentials("u", "two  spaces")
    error = ValueError("failed with two  spaces in it")
    result = response.render(response.error(error, datetime.now(UTC), creds.secrets()))
    assert "two spaces" not in result["message"] and "two  spaces" not in result["message"]
    assert result["message"] == "The audit could not finish: ValueError: failed with *** in it"


@pytest.mark.parametrize("password", ["p", "p2", " x "])
def test_a_short_password_is_redacted_where_it_stands_as_a_credential(password: str) -> None:
    creds = Credentials("auditor", password)
    assert len(password.strip()) < MIN_FREE_TEXT_SECRET
    secrets = creds.secrets()
    assert f"auditor:{password}" not in redact(f"seen auditor:{password} here", secrets)
    assert f":{password}@" not in redact(f"http://auditor:{password}@h/", secrets)
    assert creds.header()[6:] not in redact(f"seen {creds.header()}", secrets)
    # Elsewhere a letter stays a letter: every "p" of a message is not a secret.
    assert redact("a plain message", creds.secrets()) == "a plain message"


def test_the_header_goes_before_the_token_inside_it() -> None:
    creds = Credentials("u", "long-password")
    assert redact(creds.header(), creds.secrets()) == "***"


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (Credentials("a\0b", "c"), Credentials("a", "b\0c")),
        (Credentials("a:b", "c"), Credentials("a", "b:c")),
        (Credentials("1:a", "b"), Credentials("1", ":ab")),
    ],
)
def test_two_credential_pairs_never_share_a_scope(one: Credentials, other: Credentials) -> None:
    assert one.scope() != other.scope()
    key = b"k" * 32
    site = "https://example.com"
    assert sharing.scope_key(site, False, one.scope(), key) != sharing.scope_key(
        site, False, other.scope(), key
    )


def test_an_error_message_is_redacted_once_folded_too() -> None:
    # "a\tb" in the raw text becomes the password "a b" only once its white space is folded.
    creds = Credentials("u", "pass word-9Zq")
    error = ValueError("failed with pass\tword-9Zq in it")
    result = response.error(error, datetime.now(UTC), creds.secrets())
    assert result.message == "The audit could not finish: ValueError: failed with *** in it"


@pytest.mark.parametrize(
    "echoed",
    [
        "a%2bb%2fc%3d%20x",  # percent-encoded with lower-case hex
        "a%2Bb%2Fc%3D+x",  # `+` for the space
        "YStiL2M9IHg=",  # the password's own Base64
        "dTphK2IvYz0geA%3D%3D",  # the header's token as a URL carries it
    ],
)
def test_a_password_is_redacted_in_every_encoding_a_url_gives_it(echoed: str) -> None:
    secrets = Credentials("u", "a+b/c= x").secrets()
    assert redact(f"/login?next={echoed}&x=1", secrets) == "/login?next=***&x=1"


@pytest.mark.parametrize(
    ("password", "host"),
    [
        ("S3cretPass", "s3cretpass"),  # a host is read lower-cased
        ("Pässwort9", "xn--psswort9-0za"),  # and IDNA-encoded
        ("Pass.Word9", "pass.word9"),  # several labels
    ],
)
def test_a_password_echoed_as_a_host_is_redacted_as_the_reading_writes_it(
    password: str, host: str
) -> None:
    secrets = Credentials("u", password).secrets()
    assert redact(f"http://{host}.example/s.xml", secrets) == "http://***.example/s.xml"


def test_what_cannot_be_a_host_has_no_host_form() -> None:
    # `a@B` read as a host is `b` (after a userinfo `a`): no such fragment is hunted for.
    assert redact("http://b.example/", Credentials("u", "a@B").secrets()) == "http://b.example/"


def test_what_a_cut_left_of_a_password_is_redacted_and_nothing_else() -> None:
    secrets = Credentials("auditor", "Pa55-w0rd-9Zq").secrets()
    assert redact("value 'xxxPa55-w...'", secrets) == "value 'xxx***...'"
    assert redact("unparsable <lastmod> 'xxPa55-w0'", secrets) == "unparsable <lastmod> 'xx***'"
    # Two characters are left (a cut that short reveals little), and a prefix not at a cut.
    assert redact("xPa5...", secrets) == "x***..."
    assert redact("xPa...", secrets) == "xPa..."
    assert redact("Pa55-w here...", secrets) == "Pa55-w here..."
    assert redact("P...", secrets) == "P..."
    # The username is no secret: a cut of `auditor:pw` (a short password) leaves nothing to hide.
    assert redact("auditor...", Credentials("auditor", "pw").secrets()) == "auditor..."


def test_redacting_what_cuts_left_is_bounded_on_hostile_text() -> None:
    # A site that knows the password can fill a text with its prefixes and cuts.
    # (A megabyte password and 60,000 cuts each took a search of 500 characters: 7 s.)
    password = "a" * 1_000_000
    secrets = Credentials("u", password).secrets()
    text = ("a" * 30 + "...") * 60_000
    started = time.monotonic()
    redacted = redact(text, secrets)
    assert time.monotonic() - started < 5
    assert "a" * 3 + "..." not in redacted


@pytest.mark.parametrize(
    ("password", "echoed"),
    [
        ("hunter2-Secret", "%68unter2-Secret"),  # some characters percent-encoded
        ("hunter2-Secret", "hunter2%2dS%65cret"),  # lower-case hex, mixed
        ("sécret-Pässword", "s%E9cret-P%e4ssword"),  # Latin-1 bytes, percent-encoded
        ("sécret-Pässword", "s%C3%A9cret-Pässword"),  # one character as UTF-8, one as itself
        ("sécret-Pässword", "sÃ©cret-PÃ¤ssword"),  # UTF-8 read as Latin-1 (a header's text)
        ("sécret-Pässword", "se\u0301cret-Pa\u0308ssword"),  # decomposed (NFD)
        ("sécret-Pässword", "se%CC%81cret-Pa%CC%88ssword"),  # decomposed, percent-encoded
        ("two words here", "two+words%20here"),  # a space as + and as %20
    ],
)
def test_a_password_is_redacted_in_any_spelling_of_its_characters(
    password: str, echoed: str
) -> None:
    secrets = Credentials("u", password).secrets()
    text = f"https://example.com/backup/{echoed}.xml and more"
    assert redact(text, secrets) == "https://example.com/backup/***.xml and more"
    assert echoed_in(json.dumps({"url": text}).encode(), secrets)
    # Only the password's own characters: a near miss is kept.
    near = echoed[:-1] + ("x" if echoed[-1] != "x" else "y")
    assert redact(near, secrets) == near


def test_facts_that_echo_a_password_are_found_through_json_escapes() -> None:
    secrets = Credentials("u", 'quo"te\\back').secrets()
    assert echoed_in(json.dumps({"url": 'x/quo"te\\back'}).encode(), secrets)
    assert echoed_in(json.dumps({"url": "x/quo%22te%5Cback"}).encode(), secrets)
    assert not echoed_in(json.dumps({"url": "x/quote back"}).encode(), secrets)
    assert not echoed_in(b'{"url":"x"}', ())


@pytest.mark.parametrize("written", ["Hunter%20Two", "Hunter Two", "HUNTER%20two"])
def test_a_password_listed_as_a_sitemap_host_is_redacted_in_the_issue(written: str) -> None:
    # robots.txt names the password as a host no DNS can carry: the issue says which host,
    # shown as it was written, never in another case than the password's own spellings.
    robots = "https://ex.com/robots.txt"
    found = sitemap_urls(f"Sitemap: http://{written}/\n".encode(), robots, robots)
    shown = redact(found.issues[0], Credentials("bob", "Hunter Two").secrets())
    assert "hunter two" not in shown.lower() and "hunter%20two" not in shown.lower()


def test_a_token_read_back_lower_cased_as_a_host_is_redacted() -> None:
    # A site lists its visitor's token as a URL's host: the reading lower-cases it, and the
    # name look-up's error names it so (Basic's token, a cookie's value, a bearer token).
    creds = Credentials("alice", "Sup3r-Secret")
    token = creds.header()[6:]
    headers = ExtraHeaders.of(
        [("Cookie", "session=C00kieValueQWERTY"), ("Authorization", "Bearer AbCdEf0123456789XyZ")]
    )
    for secret, secrets in (
        (token, creds.secrets()),
        ("C00kieValueQWERTY", headers.secrets()),
        ("AbCdEf0123456789XyZ", headers.secrets()),
    ):
        said = f"fetch error (dns: the name {secret.lower()} could not be resolved)"
        shown = redact(said, secrets)
        assert secret.lower() not in shown.lower(), shown
        assert shown == "fetch error (dns: the name *** could not be resolved)"


def test_what_a_cut_left_of_a_lower_cased_token_is_redacted() -> None:
    creds = Credentials("alice", "Sup3r-Secret")
    token = creds.header()[6:]
    said = f"host {token.lower()[:12]}..."
    assert redact(said, creds.secrets()) == "host ***..."
