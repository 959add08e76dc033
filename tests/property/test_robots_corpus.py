"""Every real robots.txt file of the shared corpus (`realworld*` and Protego's test data, over
2,000), read two ways against the reference: the Lambda's Sitemap: lines (core/robots.py) as a
statement-by-statement model of Google's robots.cc reads them, and the deep audit's rules
(deep/robots_rules.py) read without a crash, agreeing with the Lambda on Sitemap: lines, and
deciding alike with their index of `*` patterns and without it. The pinned files and the
quick cases are tests/unit/test_robots.py's and tests/unit/test_robots_rules.py's."""

from __future__ import annotations

import tarfile
from collections.abc import Iterator

import pytest
from support.shared import CORPUS, needs_shared

from sitemap_auditor.core.issues import MAX_ISSUE_CHARS
from sitemap_auditor.core.robots import (
    MAX_CANDIDATES,
    MAX_URL_CHARS,
    sitemap_lines,
    sitemap_urls,
    utf16_encoding,
)
from sitemap_auditor.deep import robots_rules
from sitemap_auditor.deep.robots_rules import Key, RobotsRules, iter_directives

ROBOTS = "https://ex.com/robots.txt"
PROTEGO_TGZ = CORPUS / "peers" / "protego" / "test_data-sitemap-subset.tgz"
PROBES = ("/", "/search?q=x", "/wp-admin/", "/cart", "/ツ", "/%7Euser/")


def _corpus() -> Iterator[tuple[str, bytes]]:
    for folder in sorted(CORPUS.glob("realworld*")):
        for path in sorted(folder.glob("robots-*")):
            yield path.name, path.read_bytes()
    with tarfile.open(PROTEGO_TGZ) as archive:
        for member in archive:
            handle = archive.extractfile(member) if member.isfile() else None
            if handle is not None:
                yield member.name, handle.read()


@needs_shared
def test_the_corpus_is_read_without_a_crash_and_agrees_with_the_lambda_on_sitemap_lines() -> None:
    files = decided = 0
    for name, body in _corpus():
        files += 1
        rules = RobotsRules.parse(body)
        for agent in ("Googlebot", "Bingbot"):
            for probe in PROBES:
                decided += rules.deciding_rule(f"https://example.com{probe}", agent) is not None
        # One way of reading lines: the Lambda's Sitemap: lines are this reader's.
        ours = [(d.number, d.value) for d in iter_directives(body) if d.key is Key.SITEMAP]
        if body[:2] not in (b"\xff\xfe", b"\xfe\xff"):  # the Lambda decodes UTF-16; Google does not
            assert ours == [(s.number, s.value) for s in sitemap_lines(body)], name
    assert files > 2000
    assert decided > 1000  # the probes do meet rules: the corpus is read, not skipped


@needs_shared
def test_the_index_of_star_patterns_answers_as_one_expression_on_real_files(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked = 0
    for name, body in _corpus():
        if body.count(b"*") < robots_rules.WILD_INDEX_FROM:
            continue
        # Paths made from the file's own patterns, so that they do meet its rules.
        values = [
            d.value.decode() for d in iter_directives(body) if d.key in (Key.ALLOW, Key.DISALLOW)
        ]
        paths = [*PROBES, *(v.replace("*", "x").rstrip("$") for v in values[:300])]
        with monkeypatch.context() as patch:
            patch.setattr(robots_rules, "WILD_INDEX_FROM", 10**9)
            plain = RobotsRules.parse(body)
            expected = [plain.deciding_rule(f"https://ex.com{p}") for p in paths]
        indexed = RobotsRules.parse(body)
        assert [indexed.deciding_rule(f"https://ex.com{p}") for p in paths] == expected, name
        checked += 1
    assert checked > 20


# --- the Lambda's Sitemap: lines as Google reads them ------------------------------------------

_ISSPACE = b" \t\n\v\f\r"  # absl::ascii_isspace


def _google_key_value(buf: bytes) -> tuple[bytes, bytes, bool] | None:
    # robots.cc GetKeyAndValueFrom, statement by statement, on a C string.
    line = buf.split(b"\0")[0]
    comment = line.find(b"#")
    if comment >= 0:
        line = line[:comment]
    line = line.strip(_ISSPACE)
    sep = line.find(b":")
    if sep < 0:
        blanks = [i for i in (line.find(b" "), line.find(b"\t")) if i >= 0]
        if blanks:
            sep = min(blanks)
            val = sep
            while val < len(line) and line[val] in b" \t":
                val += 1
            if any(c in b" \t" for c in line[val:]):
                return None
    if sep < 0:
        return None
    key = line[:sep].strip(_ISSPACE)
    if not key:
        return None
    return key, line[sep + 1 :].strip(_ISSPACE), line[sep : sep + 1] == b":"


def google_sitemap_lines(body: bytes) -> list[tuple[int, bytes, bytes, bool]]:
    """robots.cc RobotsTxtParser::Parse, byte by byte: (line, key, value, colon) of SITEMAP keys."""
    bom = b"\xef\xbb\xbf"
    room = 2083 * 8 - 1
    found: list[tuple[int, bytes, bytes, bool]] = []
    buf = bytearray()
    number = bom_pos = 0
    last_was_cr = False

    def emit() -> None:
        kv = _google_key_value(bytes(buf))
        if kv is not None and kv[0].lower().startswith((b"sitemap", b"site-map")):
            found.append((number, *kv))

    for ch in body:
        if bom_pos < 3:
            matched = ch == bom[bom_pos]
            bom_pos += 1
            if matched:
                continue
        bom_pos = 3
        if ch not in (0x0A, 0x0D):
            if len(buf) < room:
                buf.append(ch)
            continue
        if not (not buf and last_was_cr and ch == 0x0A):
            number += 1
            emit()
        buf.clear()
        last_was_cr = ch == 0x0D
    number += 1
    emit()
    return found


def _corpus_files() -> Iterator[tuple[str, bytes]]:
    for path in sorted((CORPUS / "realworld2").glob("robots-*.txt")):
        yield path.name, path.read_bytes()
    with tarfile.open(PROTEGO_TGZ) as tar:
        for member in tar:
            data = tar.extractfile(member) if member.isfile() else None
            if data is not None:
                yield member.name.rsplit("/", 1)[-1], data.read()


@needs_shared
def test_every_corpus_robots_txt_is_read_as_google_reads_it() -> None:
    seen = 0
    for name, body in _corpus_files():
        seen += 1
        # The contract's reading: UTF-16 decoded first, then Google's parser on the UTF-8 text.
        text = body.decode("utf-16", "replace").encode() if utf16_encoding(body) else body
        got = [(x.number, x.key, x.value, x.colon) for x in sitemap_lines(body)]
        assert got == google_sitemap_lines(text), name
        robots = f"https://{name.split('_')[0].removeprefix('robots-')}/robots.txt"
        found = sitemap_urls(body, robots, ROBOTS)
        assert len(found.urls) <= MAX_CANDIDATES, name
        assert len(set(found.urls)) == len(found.urls), name
        for url in found.urls:
            assert url.startswith(("http://", "https://")) and url.isascii(), (name, url)
            assert len(url) <= MAX_URL_CHARS and " " not in url, (name, url)
        for text_issue in found.issues + found.notes:
            assert text_issue.startswith(ROBOTS + ": ") and len(text_issue) <= MAX_ISSUE_CHARS
            text_issue.encode("utf-8")  # valid Unicode: raises on a lone surrogate
        if not any(x.lenient for x in sitemap_lines(body)):
            assert not any("Google's lenient parser" in i for i in found.issues), name
    assert seen > 2000
