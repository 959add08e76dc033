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
