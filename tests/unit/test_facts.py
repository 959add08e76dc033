"""Shared facts (docs/contract.md §7): a result built from facts that travelled through a store
equals, key for key, the result built from the facts as fetched, `date` aside."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemap_auditor.audit import response
from sitemap_auditor.audit import steps as audit
from sitemap_auditor.audit.config import Settings
from sitemap_auditor.audit.request import parse
from sitemap_auditor.core import facts
from sitemap_auditor.core.errors import InvalidItemError
from sitemap_auditor.core.facts import CandidateOutcome, RobotsProbe, SelectedSitemap, SiteFacts
from sitemap_auditor.core.issues import Issue, Kind
from sitemap_auditor.core.parser import ParsedSitemap
from sitemap_auditor.core.site import resolve
from sitemap_auditor.core.validators import Validators

SITE = resolve("https://www.example.com/page")
assert SITE is not None

texts = st.text(max_size=40)
issues = st.builds(Issue, texts, st.sampled_from(list(Kind)), texts)
urls = st.builds(lambda p: f"https://www.example.com/{p}", st.text("abc/-.é", max_size=20))
# What the fetcher keeps of a header (stripped, non-empty, Latin-1 without line breaks).
header_values = st.text(
    st.characters(min_codepoint=0x20, max_codepoint=0xFF), min_size=1, max_size=40
).filter(lambda v: v == v.strip() != "")
validators = st.builds(Validators, st.none() | header_values, st.none() | header_values)
instants = st.datetimes(
    min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)
)
parsed = st.builds(
    ParsedSitemap,
    root=st.sampled_from(["urlset", "sitemapindex"]),
    entry_count=st.integers(0, 10**6),
    latest_lastmod=st.none() | instants,
    unparsable_samples=st.lists(texts, max_size=3).map(tuple),
    unparsable_total=st.integers(0, 10**6),
)
selected = st.builds(SelectedSitemap, urls, st.integers(200, 299), st.none() | texts, parsed)
robots = st.builds(
    RobotsProbe,
    status=st.none() | st.integers(100, 599),
    read_whole=st.booleans(),
    sitemaps=st.lists(urls, max_size=4).map(tuple),
    issues=st.lists(issues, max_size=3).map(tuple),
    skipped=st.lists(issues, max_size=3).map(tuple),
    validators=validators,
    wire_bytes=st.integers(0, 10**8),
)


@st.composite
def site_facts(draw: st.DrawFn) -> SiteFacts:
    """Facts as an audit stores them: complete, each candidate tried in order until one is
    selected (the last outcome), every one of them when none is (probe.first_sitemap)."""
    candidates: tuple[str, ...] = tuple(draw(st.lists(urls, max_size=5)))
    with_selected: bool = draw(st.booleans())
    refused = st.builds(CandidateOutcome, st.just(""), st.just(None), issues, validators,
                        st.integers(0, 10**8))  # fmt: skip
    tried = [replace(draw(refused), url=url) for url in candidates]
    if candidates and with_selected:
        last = draw(st.integers(0, len(candidates) - 1))
        s = replace(draw(selected), url=candidates[last])
        tried = [*tried[:last], CandidateOutcome(s.url, s, None, Validators('"e"'), 10)]
    return SiteFacts(
        robots=draw(robots),
        candidates=candidates,
        outcomes=tuple(tried),
        complete=True,
        fetched_at=draw(st.floats(0, 4e9)),
    )


events = st.fixed_dictionaries(
    {"url": st.just("https://www.example.com/page")},
    optional={
        "preferences": st.fixed_dictionaries(
            {"maxAgeDays": st.none() | st.integers(-2, 10**6) | texts}
        )
    },
)


@given(site_facts())
def test_facts_survive_the_store_unchanged(value: SiteFacts) -> None:
    back = facts.decode(facts.encode(value))
    assert back == value
    # Issues compare as their strings: their kinds and subjects travel too.
    assert back is not None
    assert [(i.subject, i.kind, i.detail) for i in back.robots.issues] == [
        (i.subject, i.kind, i.detail) for i in value.robots.issues
    ]


@given(site_facts(), events, st.integers(1, 10**4), instants)
def test_a_result_from_stored_facts_equals_the_fresh_one(
    value: SiteFacts, event: dict[str, Any], window: int, now: datetime
) -> None:
    assert SITE is not None
    settings = Settings(max_age_days=window)
    stored = facts.decode(facts.encode(value))
    assert stored is not None
    request = parse(event)
    fresh = response.render(audit.apply_rules(SITE, request, value, settings, now))
    assert response.render(audit.apply_rules(SITE, request, stored, settings, now)) == fresh


def test_facts_of_another_format_are_not_read() -> None:
    for data in (b'{"format": 0}', b"not json", b'{"format": 1, "robots": []}'):
        with pytest.raises(InvalidItemError):
            facts.decode(data)


def test_facts_no_audit_stores_are_refused_however_well_each_field_reads() -> None:
    # docs/contract.md §7: an item not as the function writes it counts as no item.
    a, b = "https://www.example.com/a.xml", "https://www.example.com/b.xml"
    refused = CandidateOutcome(a, None, Issue(a, Kind.HTTP_STATUS, "HTTP 404"))
    parsed_b = ParsedSitemap("urlset", 1, None, (), 0)
    chosen = CandidateOutcome(b, SelectedSitemap(b, 200, None, parsed_b), None)
    good = SiteFacts(RobotsProbe(200, True, (), (), ()), (a, b), (refused, chosen))
    assert facts.decode(facts.encode(good)) == good
    forged = [
        replace(good, complete=False),  # cut facts are never published
        replace(good, outcomes=(chosen,)),  # b tried before a
        replace(good, outcomes=(refused,)),  # b left untried, nothing selected
        replace(good, candidates=(b, a), outcomes=(chosen, refused)),  # tried past the selected
        replace(good, outcomes=(refused, chosen, refused)),  # more outcomes than candidates
    ]
    for value in forged:
        with pytest.raises(InvalidItemError):
            facts.decode(facts.encode(value))
