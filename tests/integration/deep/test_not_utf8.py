"""`not-utf8`: a sitemap in another encoding than UTF-8, which the protocol requires, is read in
its encoding (as the Lambda reads it) and named; UTF-8 by any name, and ASCII, are silent. No file
of the real-world corpus is in another encoding: tests/integration/deep/test_corpus.py holds the
kind silent on all of them."""

from __future__ import annotations

import pytest
from support.deep import kinds_of, run, serve_listed

from harness.servers import Site

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _sitemap(site: Site, declaration: str, codec: str, bom: bytes = b"") -> bytes:
    word = "日本" if codec == "shift_jis" else "café"  # a character outside ASCII
    text = (
        f'{declaration}\n<urlset xmlns="{NS}">\n'
        f"<url><loc>{site.url('/' + word)}</loc><lastmod>2026-11-30</lastmod></url>\n</urlset>\n"
    )
    return bom + text.encode(codec)


@pytest.mark.parametrize(
    ("declaration", "codec", "bom", "named"),
    [
        ('<?xml version="1.0" encoding="ISO-8859-1"?>', "latin-1", b"", "ISO-8859-1"),
        ('<?xml version="1.0" encoding="windows-1252"?>', "cp1252", b"", "windows-1252"),
        ('<?xml version="1.0" encoding="Shift_JIS"?>', "shift_jis", b"", "Shift_JIS"),
        ('<?xml version="1.0" encoding="UTF-16"?>', "utf-16-le", b"\xff\xfe", "UTF-16"),
        ('<?xml version="1.0"?>', "utf-16-be", b"\xfe\xff", "UTF-16"),
    ],
)
def test_another_encoding_is_named(
    site: Site, declaration: str, codec: str, bom: bytes, named: str
) -> None:
    serve_listed(site, {"/s.xml": _sitemap(site, declaration, codec, bom)})
    doc = run(site.url("/"))
    (sitemap,) = doc["sitemaps"]
    assert sitemap["entries"] == 1  # read, in its encoding
    found = kinds_of(doc)
    assert found["not-utf8"]["count"] == 1
    assert named in found["not-utf8"]["message"]


@pytest.mark.parametrize(
    ("declaration", "bom"),
    [
        ('<?xml version="1.0" encoding="UTF-8"?>', b""),
        ('<?xml version="1.0" encoding="utf8"?>', b""),
        ('<?xml version="1.0"?>', b""),
        ("", b""),
        ('<?xml version="1.0" encoding="UTF-8"?>', b"\xef\xbb\xbf"),
        ('<?xml version="1.0" encoding="US-ASCII"?>', b""),
    ],
)
def test_utf8_by_any_name_is_silent(site: Site, declaration: str, bom: bytes) -> None:
    codec = "ascii" if "ASCII" in declaration else "utf-8"
    body = _sitemap(site, declaration, "utf-8", bom)
    if codec == "ascii":
        body = body.replace("é".encode(), b"e")
    serve_listed(site, {"/s.xml": body})
    assert "not-utf8" not in kinds_of(run(site.url("/")))


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be"])
def test_a_list_of_urls_in_utf16_is_a_file_search_engines_cannot_read(
    site: Site, codec: str
) -> None:
    # A text sitemap must be UTF-8: read as such, a UTF-16 list holds no URL. It was taken
    # for XML and reported as invalid XML, quoting a line of NUL characters.
    mark = b"\xfe\xff" if codec == "utf-16-be" else b""
    body = mark + f"{site.url('/a')}\n{site.url('/b')}\n".encode(codec)
    serve_listed(site, {"/s.txt": body})
    doc = run(site.url("/"))
    found = kinds_of(doc)
    assert set(found) == {"unknown-format"}
    assert "UTF-16" in found["unknown-format"]["message"]


def test_a_list_of_urls_with_bytes_that_are_not_utf8_is_named(site: Site) -> None:
    # A Latin-1 text sitemap had no finding: its URLs were read with U+FFFD, silently.
    body = f"{site.url('/a')}\n{site.url('/caf')}".encode() + b"\xe9\n"
    serve_listed(site, {"/s.txt": body})
    doc = run(site.url("/"))
    found = kinds_of(doc)
    assert found["not-utf8"]["line"] == 2
    assert "line 2 is not valid UTF-8" in found["not-utf8"]["message"]
    serve_listed(site, {"/s.txt": f"{site.url('/a')}\n{site.url('/café')}\n".encode()})
    assert "not-utf8" not in kinds_of(run(site.url("/")))
