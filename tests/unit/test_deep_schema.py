"""docs/deep-document.schema.json is in step with the code, and it rejects what it must."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from support.deep_documents import document, finding, sitemap
from support.deep_schema import schema, validated

from sitemap_auditor.deep import document as documents
from sitemap_auditor.deep.kinds import KINDS, Severity, Source


def test_the_schema_names_every_kind_source_and_the_version() -> None:
    s = schema()
    finding_props = s["$defs"]["finding"]["properties"]
    assert finding_props["kind"]["enum"] == [k.value for k in KINDS]
    assert finding_props["source"]["enum"] == [x.value for x in Source]
    assert finding_props["severity"]["enum"] == [x.value for x in Severity]
    assert s["properties"]["version"]["const"] == documents.VERSION
    assert s["properties"]["format"]["const"] == documents.FORMAT


def _good() -> dict[str, Any]:
    url = "https://www.example.com/sitemap.xml"
    doc: dict[str, Any] = dict(
        document(
            [sitemap(url, entries=3, by_month={"2026-11": 3}, findings=(1, 0, 0))],
            [finding("invalid-date", "error", "Invalid date", url, examples=[(3, "x")])],
        )
    )
    return doc


def test_a_well_formed_document_passes() -> None:
    validated(_good())


@pytest.mark.parametrize(
    "spoil",
    [
        lambda d: d["findings"][0].pop("source"),
        lambda d: d["findings"][0].update(source="google"),
        lambda d: d["findings"][0].update(kind="made-up"),
        lambda d: d.update(version=1),
        lambda d: d.update(extra=1),
        lambda d: d["findings"][0].update(examples=[{"line": 1, "value": "v"}] * 6),
    ],
)
def test_a_spoiled_document_fails(spoil: Any) -> None:
    doc = copy.deepcopy(_good())
    spoil(doc)
    with pytest.raises(AssertionError):
        validated(doc)


def test_a_share_short_of_the_whole_never_rounds_to_all() -> None:
    from sitemap_auditor.deep.kinds import share

    assert share(99_999, 100_000) == 0.9999 and share(100_000, 100_000) == 1.0
    assert share(1, 3) == 0.3333 and share(0, 5) == 0.0 and share(3, 0) == 0.0
    assert share(None, 5) is None


@pytest.mark.parametrize("secret", ["error", "1", "2026", "robots", "map", "invalid-date"])
def test_a_credential_that_spells_the_audits_own_words_leaves_the_document_valid(
    secret: str,
) -> None:
    # A password `error` or a header value `1` is no echo of the credential in a severity, a
    # kind or a time the audit wrote: redacting those broke the document (and the text report
    # read from it). What a site sent is still redacted, URL keys included.
    from sitemap_auditor.deep import redaction

    doc = _good()
    echoed = f"https://www.example.com/sitemap.xml?key={secret}"
    doc["sitemaps"][0]["url"] = echoed
    doc["run"]["sitemapSeconds"] = {echoed: 0.5}
    shown = redaction.redacted(doc, (secret,))
    validated(shown)
    assert shown["findings"][0]["severity"] == "error"
    assert shown["findings"][0]["kind"] == "invalid-date"
    assert shown["format"] == doc["format"] and shown["run"]["startedAt"] == doc["run"]["startedAt"]
    (key,) = shown["run"]["sitemapSeconds"]
    for url in (shown["sitemaps"][0]["url"], key):
        assert secret not in url and url.endswith("?key=***")


def test_a_page_rows_own_words_stay_and_what_the_site_sent_is_redacted() -> None:
    # A password `robots` turned a row's reason into `blocked-by-***`, which the page check's
    # summary could not read (exit 64); the agents a URL is blocked for are the audit's too.
    from sitemap_auditor.deep import redaction

    row = {
        "url": "https://www.example.com/robots/page",
        "reason": "blocked-by-robots",
        "blockedFor": ["Googlebot", "Bingbot"],
        "noindex": "meta",
        "canonical": "https://www.example.com/robots",
    }
    shown = redaction.redacted(row, ("robots", "bot"))
    assert shown["reason"] == "blocked-by-robots" and shown["noindex"] == "meta"
    assert shown["blockedFor"] == ["Googlebot", "Bingbot"]
    assert shown["url"] == "https://www.example.com/***/page"
    assert shown["canonical"] == "https://www.example.com/***"


def test_every_value_the_schema_fixes_is_left_as_written_by_the_redaction() -> None:
    # The redaction's list of the audit's own words is held to the schema: a property the schema
    # gives an enum, a constant or the time pattern is one a credential must not rewrite.
    from sitemap_auditor.deep import redaction

    fixed: set[str] = set()

    def is_fixed(prop: Any) -> bool:
        if not isinstance(prop, dict):
            return False
        if "enum" in prop or "const" in prop or prop.get("$ref") == "#/$defs/time":
            return True
        branches = [b for b in prop.get("oneOf", []) if b != {"type": "null"}]
        return bool(branches) and all(is_fixed(b) for b in branches)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            props = node.get("properties") or {}
            fixed.update(name for name, prop in props.items() if is_fixed(prop))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema())
    assert fixed and fixed <= redaction.OWN_VALUES, fixed - redaction.OWN_VALUES
