"""`Sitemap:` values become URLs as browsers make them (docs/contract.md §4: the WHATWG URL
Standard), with the contract's own rules around it, and Node.js's own `URL` as the oracle."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from support.shared import CORPUS, needs_shared

from sitemap_auditor.core.robots import iter_sitemap_lines, sitemap_urls

ROBOTS = "https://ex.com/robots.txt"


def made(value: bytes, base: str = ROBOTS) -> str | None:
    urls = sitemap_urls(b"Sitemap: " + value + b"\n", base, base).urls
    return urls[0] if urls else None


@pytest.mark.parametrize(
    ("value", "url"),
    [
        # Kept by browsers where a hand-made encoder wrote %7C.
        (b"/a|b.xml", "https://ex.com/a|b.xml"),
        (b"/a^b{c}.xml", "https://ex.com/a%5Eb%7Bc%7D.xml"),
        # A backslash is a path separator in http(s) URLs.
        (b"/x\\y.xml", "https://ex.com/x/y.xml"),
        # The default port is no port.
        (b"http://ex.com:80/s.xml", "http://ex.com/s.xml"),
        (b"https://ex.com:443/s.xml", "https://ex.com/s.xml"),
        (b"https://ex.com:8443/s.xml", "https://ex.com:8443/s.xml"),
        (b"/s ite map.xml", "https://ex.com/s%20ite%20map.xml"),
        (b"/caf\xc3\xa9.xml", "https://ex.com/caf%C3%A9.xml"),
        # The contract's own rule: a byte that is not UTF-8 is percent-encoded as itself.
        (b"/s\xff.xml", "https://ex.com/s%FF.xml"),
        ("http://www.šiaurė.lt/s.xml".encode(), "http://www.xn--iaur-yva35b.lt/s.xml"),
        (b"/s.xml?", "https://ex.com/s.xml?"),
        (b"HTTP://EX.COM/S.xml", "http://ex.com/S.xml"),
        (b"//other.example/s.xml", "https://other.example/s.xml"),
        (b"../up/../s.xml", "https://ex.com/s.xml"),
        # docs/contract.md §8: one reading, the browsers', not a mix of two.
        (b"http:///s.xml", "http://s.xml/"),
        (b"https:///sitemap.xml", "https://sitemap.xml/"),
        (b"http://u:p@ex.com/s.xml", "http://ex.com/s.xml"),
    ],
)
def test_values_are_made_into_urls_as_browsers_make_them(value: bytes, url: str) -> None:
    assert made(value) == url


@pytest.mark.parametrize(
    "value",
    [
        b"http://a..b/s.xml",
        b"http://.example.com/s.xml",
        b"ftp://ex.com/s.xml",
        b"http://[v1.a:b]/",
    ],
)
def test_the_contracts_own_rules_still_skip(value: bytes) -> None:
    assert made(value) is None


def _corpus_values() -> list[bytes]:
    values: dict[bytes, None] = {}
    for folder in ("realworld", "realworld2", "realworld3"):
        for path in sorted((CORPUS / folder).glob("robots*")):
            for line in iter_sitemap_lines(path.read_bytes()):
                values[line.value] = None
    return list(values)


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
@needs_shared
def test_every_value_of_real_robots_files_is_made_as_nodejs_makes_it() -> None:
    values = _corpus_values()
    assert len(values) > 50
    ours = {v: made(v) for v in values}
    # Values that are not UTF-8 are the contract's own rule (above); Node.js gets the others.
    taken = [v for v, url in ours.items() if url is not None and _is_utf8(v)]
    texts = [v.decode("utf-8") for v in taken]
    script = (
        "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(input.values.map(v => {"
        "  try { return new URL(v, input.base).href; } catch (e) { return null; } })));"
    )
    done = subprocess.run(
        ["node", "-e", script],
        input=json.dumps({"base": ROBOTS, "values": texts}),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    theirs = json.loads(done.stdout)
    differ = [(v, ours[v], t) for v, t in zip(taken, theirs, strict=True) if ours[v] != t]
    assert differ == []


def _is_utf8(value: bytes) -> bool:
    try:
        value.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False
