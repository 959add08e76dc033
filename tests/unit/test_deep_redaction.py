"""What a cut leaves of a secret in the deep audit's reports: its cuts end with a mark of their
own ("…", core.text.clip), and a quote of the middle of a line starts with one. The deep
audit's redaction knows that mark; the Lambda's keeps its own ("...") alone."""

from __future__ import annotations

from sitemap_auditor.audit.outcome import redact as lambda_redact
from sitemap_auditor.core.text import CUT_MARK, clip
from sitemap_auditor.deep import checks, redaction
from sitemap_auditor.deep.kinds import Kind
from sitemap_auditor.deep.reading.entries import MAX_FIELD_CHARS

SECRET = "Zq7Secr3tTokenValue"


def test_clip_keeps_short_texts_and_marks_a_cut_within_the_limit() -> None:
    assert clip("abc", 3) == "abc"
    assert clip("abcd", 3) == "ab" + CUT_MARK
    assert len(clip("x" * 5000, 4096)) == 4096


def test_a_prefix_before_the_deep_mark_is_redacted() -> None:
    cut = clip("https://ex.com/?t=" + SECRET, 24)  # the cut falls inside the secret
    assert SECRET[:5] in cut
    shown = redaction.redact(cut, [SECRET])
    assert SECRET[:3] not in shown and shown.endswith("***" + CUT_MARK)


def test_a_suffix_after_a_leading_mark_is_redacted() -> None:
    quoted = CUT_MARK + SECRET[7:] + "<bad " + CUT_MARK
    shown = redaction.redact(quoted, [SECRET])
    assert SECRET[-3:] not in shown and shown.startswith(CUT_MARK + "***<bad")


def test_a_quote_cut_at_both_ends_inside_a_long_secret_shows_none_of_it() -> None:
    token = "eyJhbGciOiJIUzI1NiJ9." + "x7Kq" * 100
    quoted = CUT_MARK + token[40:200] + CUT_MARK
    assert redaction.redact(quoted, [token]) == CUT_MARK + "***" + CUT_MARK
    # A short piece between two marks is ordinary text.
    assert redaction.redact(CUT_MARK + "x7" + CUT_MARK, [token]) == CUT_MARK + "x7" + CUT_MARK


def test_a_long_secret_s_suffix_after_a_leading_mark_is_found_at_once() -> None:
    token = "tok_" + "".join(chr(65 + (i * 7) % 26) for i in range(796))
    for size in (3, 17, 499):
        shown = redaction.redact(CUT_MARK + token[-size:] + "/rest", [token])
        assert shown == CUT_MARK + "***/rest", size
    assert redaction.redact(CUT_MARK + "nothing/of/it", [token]) == CUT_MARK + "nothing/of/it"


def test_the_lambda_s_redaction_is_unchanged_by_the_deep_mark() -> None:
    # The Lambda's results change only with CONTRACT.md: its cuts end in "...", and a site's
    # "…" is text to it.
    text = "see " + SECRET[:6] + CUT_MARK
    assert lambda_redact(text, [SECRET]) == text
    assert lambda_redact("see " + SECRET[:6] + "...", [SECRET]) == "see ***..."


def test_a_quote_cut_inside_a_secret_shows_none_of_it() -> None:
    line = b"w" * 300 + SECRET.encode() + b"w" * 300
    for column in range(300, 300 + len(SECRET) + checks.QUOTE_CHARS, 7):
        quoted = checks.quote_line(line, 1, column)
        shown = redaction.redact(quoted, [SECRET])
        assert all(SECRET[k : k + 3] not in shown for k in range(len(SECRET) - 2)), column


def test_an_example_cut_inside_a_secret_shows_none_of_it() -> None:
    rows: list[str] = []
    for at in range(checks.MAX_EXAMPLE_CHARS - len(SECRET), checks.MAX_EXAMPLE_CHARS):
        tally = checks.Tally(lambda kind, line, value, detail: rows.append(value))
        tally.add(Kind.INVALID_DATE, 1, "y" * at + SECRET + "z" * 4000)
        (example,) = tally.findings("s")[0].examples
        assert SECRET[:3] not in redaction.redact(example.value, [SECRET]), at
    # The rows keep the value to the reading's bound, cut with the mark too.
    assert all(len(v) == MAX_FIELD_CHARS and v.endswith(CUT_MARK) for v in rows)
    assert all(SECRET not in redaction.redact(v, [SECRET]) for v in rows)


def test_a_value_is_cleaned_of_a_password_holding_at_and_slash_before_its_userinfo() -> None:
    url = "http://u:p@ss/w0rd-XYZ@shop.example/page"
    assert "w0rd" in redaction.cleaner(())(url)  # no secret known: the one reading's userinfo only
    shown = redaction.cleaner(("p@ss/w0rd-XYZ",))(url)
    assert "w0rd" not in shown and "u:" not in shown and shown.endswith("shop.example/page")
