"""An invalid-XML finding quotes the line its file cannot be read past, from a real file: the
bare `&` of a video's text, deep in a 19,719-line file (so in a later batch than the first),
plain and gzipped."""

from __future__ import annotations

import gzip
import html
from xml.parsers import expat

import pytest
from support.deep import corpus_file, kinds_of, run, serve_listed

from harness.servers import Site
from sitemap_auditor.deep.reports import html_report, text_report

BROKEN = "urlset-video-bare-ampersand-1511-thefurnaceoutlet.xml"


@pytest.mark.parametrize("zipped", [False, True])
def test_the_invalid_xml_finding_quotes_the_line(site: Site, zipped: bool) -> None:
    body = corpus_file(BROKEN)
    with pytest.raises(expat.ExpatError) as stopped:
        expat.ParserCreate().Parse(body, True)
    line = stopped.value.lineno
    assert line > 4000  # past the first batch the walk feeds
    expected = body.splitlines()[line - 1].decode().strip()
    assert "&" in expected  # the bare ampersand
    path = "/video.xml.gz" if zipped else "/video.xml"
    serve_listed(site, {path: gzip.compress(body) if zipped else body})
    doc = run(site.url("/"))
    found = kinds_of(doc)["invalid-xml"]
    (example,) = found["examples"]
    assert example["line"] == line
    assert example["value"] == expected[:160]
    assert f"not well-formed XML at line {line}" in found["message"]
    assert expected[:60] in text_report.render(doc)
    page = html_report.render(doc)
    assert html.escape(expected[:40]) in page  # quoted, escaped
    assert expected[:40] not in page  # never as markup


def test_lines_before_the_declaration_count_in_every_line_shown(site: Site) -> None:
    # Two CR LF before <?xml, which the parser is not given: the root is on line 4 of the file,
    # the mismatched tag on line 5, in the finding's line and in its message alike.
    ns = b'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
    serve_listed(
        site,
        {"/a.xml": b'\r\n\r\n<?xml version="1.0"?>\n<urlset xmlns="http://wrong/">\n'
         + b"<url><loc>" + site.url("/p1").encode() + b"</loc></url>\n</urlset>\n"},
    )  # fmt: skip
    assert kinds_of(run(site.url("/")))["incorrect-namespace"]["line"] == 4
    serve_listed(
        site,
        {"/b.xml": b'\r\n\r\n<?xml version="1.0"?>\n<urlset ' + ns + b">\n"
         + b"<url><loc>bad</url>\n</urlset>\n"},
    )  # fmt: skip
    invalid = kinds_of(run(site.url("/")))["invalid-xml"]
    assert invalid["line"] == invalid["examples"][0]["line"] == 5
    assert "not well-formed XML at line 5, column 15" in invalid["message"]


def test_a_quoted_line_never_reaches_the_terminal_as_control_characters(site: Site) -> None:
    # A line that would retitle and clear the terminal, turn its text red, and reverse it.
    hostile = "\x1b]0;PWNED\x07\x1b[2J\x1b[31m \x9b31m \u202egnp.x"
    body = (
        f'<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"<url><loc>{site.url('/a')}</loc></url>\n<url>{hostile}</url>\n</urlset>\n"
    ).encode()
    serve_listed(site, {"/s.xml": body})
    doc = run(site.url("/"))
    assert "\x1b" in kinds_of(doc)["invalid-xml"]["examples"][0]["value"]  # the document keeps it
    report = text_report.render(doc, colour=True)
    # Only the report's own colour codes: ESC followed by [ and a colour, nothing of the site's.
    assert report.replace("\x1b[0m", "").count("\x1b") == report.count("\x1b[0m")
    for c in ("\x07", "\x9b", "\u202e", "\x1b]", "\x1b[2J"):
        assert c not in report
    assert "\ufffd]0;PWNED\ufffd" in report
