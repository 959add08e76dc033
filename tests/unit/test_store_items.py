"""Nothing read from the shared table is trusted as written (docs/contract.md §7): the facts'
JSON (`facts.decode`), the item (`dynamostore.read_item`) and the lease's bound (`lease`).

Pure: items are the dicts boto3 gives, read at a fixed clock; no socket, no sleep.
"""

from __future__ import annotations

import json
import random
import tracemalloc
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.store_items import (
    BOMB_INFLATED,
    HOSTILE,
    facts_item,
    lease_item,
    pack,
    sample_facts,
    spliced,
    zlib_bomb,
)

from sitemap_auditor.audit import request
from sitemap_auditor.audit import steps as audit
from sitemap_auditor.audit.config import Settings
from sitemap_auditor.core import facts, robots, validators
from sitemap_auditor.core.candidates import for_base
from sitemap_auditor.core.errors import InvalidItemError
from sitemap_auditor.core.issues import Kind, issue
from sitemap_auditor.core.parser import ParsedSitemap
from sitemap_auditor.core.site import resolve
from sitemap_auditor.fetching import fetch
from sitemap_auditor.sharing import dynamostore, lease
from sitemap_auditor.sharing.lease import (
    LEASE_S,
    FetchAlone,
    Finish,
    Item,
    Protocol,
    Read,
    ReadDone,
    Sleep,
    Slept,
    Source,
    TakeLease,
    Unshareable,
    Use,
)

NOW = 1_800_000_000.0
KEY = "v5|g|-|https://www.example.com"
SITE = resolve("https://www.example.com/")
assert SITE is not None


def valid_json() -> dict[str, Any]:
    return facts.to_json(sample_facts(NOW - 5))


def refused(data: bytes) -> str:
    with pytest.raises(InvalidItemError) as caught:
        facts.decode(data)
    return caught.value.reason


def with_value(path: tuple[str | int, ...], new: object) -> bytes:
    value: Any = valid_json()
    node = value
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = new
    return json.dumps(value).encode()


# --- the facts' JSON ---------------------------------------------------------------------------


def test_facts_as_written_are_read_back() -> None:
    value = sample_facts(NOW - 5)
    assert facts.decode(facts.encode(value)) == value


def test_the_readers_bounds_hold_what_the_writer_writes() -> None:
    assert facts.MAX_URL_CHARS >= robots.MAX_URL_CHARS
    assert facts.MAX_CANDIDATES >= robots.MAX_CANDIDATES
    assert facts.MAX_VALIDATOR_CHARS >= fetch.MAX_VALIDATOR_CHARS
    assert facts.MAX_ROBOTS_ISSUES >= 2 * robots.MAX_SKIPPED_LISTED + 3
    # The writer never packs what its reader would refuse.
    assert dynamostore.DynamoStore("t").pack(b" " * (facts.MAX_FACTS_BYTES + 1)) is None


def test_the_largest_facts_the_writer_makes_are_read_back() -> None:
    # 100 candidates of 2,048 characters, 99 refused and one parsed with every sample, robots.txt
    # listing them with the most issues it gives, the longest validators.
    urls = [
        (f"https://www.example.com/{n:04d}/" + "a" * 2048)[: robots.MAX_URL_CHARS]
        for n in range(robots.MAX_CANDIDATES)
    ]
    assert all(len(u) == robots.MAX_URL_CHARS for u in urls)
    robots_url = "https://www.example.com/robots.txt"
    skipped = tuple(
        issue(robots_url, Kind.SKIPPED_SITEMAP, f"skipped Sitemap: value {'v' * 100!r} (why)")
        for _ in range(2 * robots.MAX_SKIPPED_LISTED + 3)
    )
    longest = validators.Validators('"' + "e" * 254 + '"', "x" * fetch.MAX_VALIDATOR_CHARS)
    parsed = ParsedSitemap(
        "urlset", 10**6, datetime(2026, 11, 30, tzinfo=UTC), ("s" * 100,) * 20, 10**6, "2026-11-30"
    )
    outcomes = [
        facts.CandidateOutcome(u, None, issue(u, Kind.HTTP_STATUS, "HTTP 404"), longest, 10**7)
        for u in urls[:-1]
    ]
    selected = facts.SelectedSitemap(urls[-1], 200, "application/xml", parsed)
    outcomes.append(facts.CandidateOutcome(urls[-1], selected, None, longest, 10**7))
    largest = facts.SiteFacts(
        facts.RobotsProbe(200, True, tuple(urls), (), skipped, longest, 500_000),
        tuple(urls),
        tuple(outcomes),
        fetched_at=NOW,
        fetch_seconds=3030.0,
    )
    data = facts.encode(largest)
    assert len(data) < facts.MAX_FACTS_BYTES // 4
    assert facts.decode(data) == largest


PARSED = ("outcomes", 1, "selected", "parsed")


@pytest.mark.parametrize(
    ("path", "new", "why"),
    [
        ((*PARSED, "entries"), "2", "entries: not an integer"),
        ((*PARSED, "entries"), True, "entries: not an integer"),
        ((*PARSED, "entries"), 2.5, "entries: not an integer"),
        ((*PARSED, "entries"), -1, "entries: not within"),
        ((*PARSED, "latest"), "2026-11-30T08:00:00", "latest: not a UTC instant"),
        ((*PARSED, "latest"), "2026-11-30T08:00:00+02:00", "latest: not a UTC instant"),
        ((*PARSED, "latest"), "yesterday", "latest: not an ISO 8601 instant"),
        ((*PARSED, "latest"), 1_700_000_000, "latest: not a string"),
        ((*PARSED, "root"), "rss", "root: not a sitemap root"),
        ((*PARSED, "samples"), ["x"] * 21, "samples: more than 20 items"),
        ((*PARSED, "samples"), ["x" * 101], "samples[0]: longer than 100"),
        (("outcomes", 1, "selected", "status"), 404, "status: not within 200..299"),
        (("outcomes", 1, "selected", "url"), "https://elsewhere/", "not the outcome's URL"),
        (("outcomes", 0, "issue", 1), "no-such-kind", "not an issue kind"),
        (("outcomes", 0, "issue"), ["a", "http-status"], "not 3 items"),
        (("outcomes", 0, "issue"), None, "not exactly one of a sitemap and an issue"),
        (("outcomes", 1, "issue"), ["u", "http-status", "d"], "not exactly one of"),
        (("outcomes", 1, "validators", 0), '"s1"\r\nX-Evil: 1', "not a header value"),
        (("outcomes", 1, "validators", 0), " padded", "not a header value"),
        (("outcomes", 1, "validators", 0), "", "not a header value"),
        (("outcomes", 1, "validators", 0), "ĀĀ", "not a header value"),
        (("outcomes", 1, "validators", 0), "e" * 257, "longer than 256"),
        (("outcomes", 1, "bytes"), 10**30, "bytes: not within"),
        (("outcomes", 1, "transient"), 0, "transient: not a boolean"),
        (("candidates",), ["https://www.example.com/s"] * 101, "more than 100 items"),
        (("candidates", 0), "https://www.example.com/" + "a" * 5000, "longer than 4096"),
        (("robots", "status"), "200", "robots.status: not an integer"),
        (("robots", "status"), 1000, "robots.status: not within"),
        (("robots", "issues"), {"0": 1}, "robots.issues: not a list"),
        (("robots",), [], "robots: not an object"),
        (("fetchSeconds",), float("nan"), "fetchSeconds: not within"),
        (("fetchSeconds",), 10**6, "fetchSeconds: not within"),
        (("fetchSeconds",), 10**400, "fetchSeconds: not within"),
        (("fetchedAt",), -(10**400), "fetchedAt: not within"),
        (("outcomes", 0, "issue", 2), "a lone \ud800 surrogate", "[2]: not valid Unicode"),
        (("candidates", 0), "https://www.example.com/\udfff", "not valid Unicode"),
        (("fetchedAt",), "1800000000", "fetchedAt: not a number"),
        (("complete",), "yes", "complete: not a boolean"),
        (("format",), 4, "of another format"),
    ],
)
def test_a_field_not_as_written_refuses_the_facts(
    path: tuple[str | int, ...], new: object, why: str
) -> None:
    assert why in refused(with_value(path, new))


def test_fields_added_or_missing_refuse_the_facts() -> None:
    value = valid_json()
    value["extra"] = 1
    assert refused(json.dumps(value).encode()) == "facts: not the fields written"
    value = valid_json()
    del value["robots"]["transient"]
    assert "robots: not the fields written" in refused(json.dumps(value).encode())


def test_json_that_would_build_too_much_is_refused_before_it_is_built() -> None:
    deep = "[" * 3000 + "]" * 3000
    assert "nested deeper than 8" in refused(spliced(("robots", "issues"), deep)(NOW).encode())
    many = "[" + ",".join(["{}"] * 5000) + "]"
    assert "more than 4096 arrays" in refused(spliced(("candidates",), many)(NOW).encode())
    closers = "[]" + "]" * 10_000
    assert "facts: not JSON" in refused(spliced(("candidates",), closers)(NOW).encode())
    values = "[" + ",".join(["0"] * 20_000) + "]"
    assert "more than 16384 values" in refused(spliced(("candidates",), values)(NOW).encode())
    # Brackets inside strings are text, not structure: the writer's facts can hold them.
    text = "[" * 3000 + "{" * 1000
    inside = with_value(("outcomes", 0, "issue", 2), text)
    assert facts.decode(inside).outcomes[0].issue is not None


def test_bytes_that_are_not_utf8_json_or_too_many_are_refused() -> None:
    assert "not UTF-8 JSON" in refused(b"\xff\xfe{}")
    assert "not UTF-8 JSON" in refused(b'{"format": 5,')
    assert "not UTF-8 JSON" in refused(b'{"format": 1' + b"0" * 5000 + b"}")
    assert "more than 4194304 bytes" in refused(b" " * (facts.MAX_FACTS_BYTES + 1))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)


def _paths(value: Any, here: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    found: list[tuple[str | int, ...]] = [here] if here else []
    if isinstance(value, dict):
        for k, v in value.items():
            found += _paths(v, (*here, k))
    elif isinstance(value, list):
        for n, v in enumerate(value):
            found += _paths(v, (*here, n))
    return found


FIELDS = _paths(valid_json())


def _read_and_apply(data: bytes) -> None:
    """Decode; whatever decode accepts, the rules take without an exception."""
    try:
        got = facts.decode(data)
    except InvalidItemError as e:
        assert 0 < len(e.reason) <= InvalidItemError.MAX_REASON_CHARS
        return
    assert SITE is not None
    audit.apply_rules(SITE, request.parse({"url": SITE.url}), got, Settings(), datetime.now(UTC))


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2000))
def test_any_bytes_give_facts_or_one_typed_error(data: bytes) -> None:
    _read_and_apply(data)


@given(json_values)
def test_any_json_gives_facts_or_one_typed_error(value: object) -> None:
    _read_and_apply(json.dumps(value).encode())


@given(st.sampled_from(FIELDS), json_values)
def test_any_json_in_place_of_any_field_gives_facts_or_one_typed_error(
    path: tuple[str | int, ...], new: object
) -> None:
    _read_and_apply(with_value(path, new))


@given(st.sampled_from(FIELDS), st.binary(max_size=64))
def test_any_bytes_in_place_of_any_field_give_facts_or_one_typed_error(
    path: tuple[str | int, ...], raw: bytes
) -> None:
    text = spliced(path, raw.decode("latin-1"))(NOW)
    _read_and_apply(text.encode("utf-8", "surrogatepass"))
    _read_and_apply(text.encode("latin-1", "replace"))


# --- the item ----------------------------------------------------------------------------------


def good_item(**attributes: Any) -> dict[str, Any]:
    return facts_item(KEY, valid_json(), NOW - 5, **attributes)


def item_refused(item: dict[str, Any], now: float = NOW) -> str:
    with pytest.raises(InvalidItemError) as caught:
        dynamostore.read_item(item, now)
    return caught.value.reason


def test_an_item_that_is_not_a_map_is_refused() -> None:
    items: tuple[object, ...] = ([], "item", None, 5)
    for item in items:
        assert "item: not a map" in item_refused(item)  # type: ignore[arg-type]


def test_an_item_whose_transient_flag_is_not_its_facts_is_refused() -> None:
    # The stamp is the facts' own (driver.stamp_of): a 503's facts flagged lasting would be
    # reused by later audits, which transient facts never are (contract section 7).
    assert "transient: not what the facts say" in item_refused(good_item(transient={"BOOL": True}))


def test_an_item_as_written_is_read_back() -> None:
    got, note = dynamostore.read_item(good_item(), NOW)
    assert note is None and got.facts == sample_facts(NOW - 5)
    assert got.item.stamp == lease.Stamp(NOW - 5, 0.25, False, "f" * 32)
    held, note = dynamostore.read_item(lease_item(KEY, "o" * 32, NOW + LEASE_S), NOW)
    assert note is None and held.item.lease_held and held.facts is None
    # A lapsed lease (a dead holder's) is read as it is: the protocol takes over from it.
    lapsed, note = dynamostore.read_item(lease_item(KEY, "o" * 32, NOW - 600), NOW)
    assert note is None and lapsed.item.lease_until == NOW - 600


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_each_hostile_case_of_the_issue_is_no_item(name: str) -> None:
    make, why = HOSTILE[name]
    item = make(KEY, NOW)
    if name == "lease an hour ahead":
        got, note = dynamostore.read_item(item, NOW)
        assert note is not None and why in note
        assert not got.item.lease_held and got.item.lease_owner is None
    elif name == "FAIL facts from an hour ahead":
        # Read, and counted as refused: no audit reuses them, and a lease write passes over them
        # (for every audit but those that waited for their very fetch, there is no item).
        got, note = dynamostore.read_item(item, NOW)
        assert note is not None and why in note and got.item.stamp is not None
        assert not lease.usable(got.item.stamp, 60.0, NOW)
        ask = TakeLease(NOW + LEASE_S, NOW, NOW - 30.0, NOW - lease.UNSHAREABLE_HOLD_S)
        assert lease.may_take(got.item, "me", ask)
    else:
        assert why in item_refused(item)


@pytest.mark.parametrize(
    ("attributes", "why"),
    [
        ({"fetched_at": {"N": "abc"}}, "fetched_at: not a number"),
        ({"fetched_at": {"N": "NaN"}}, "fetched_at: not a number"),
        ({"fetched_at": {"N": "1e400"}}, "fetched_at: not within"),
        ({"fetched_at": {"N": "1", "S": "1"}}, "fetched_at: not of type N"),
        ({"fetched_at": "1"}, "fetched_at: not of type N"),
        ({"fetch_s": {"N": "86400"}}, "fetch_s: not within"),
        ({"transient": {"S": "false"}}, "transient: not of type BOOL"),
        ({"transient": None}, "written together, found apart"),
        ({"facts": None}, "written together, found apart"),
        ({"facts": {"S": "x"}}, "facts: not of type B"),
        ({"flight": {"S": "f" * 129}}, "flight: not a string of 1 to 128"),
        ({"flight": {"S": ""}}, "flight: not a string of 1 to 128"),
        ({"expires_at": {"S": "soon"}}, "expires_at: not of type N"),
        ({"lease_owner": {"S": "o"}}, "written together, found apart"),
        ({"lease_until": {"N": repr(NOW)}}, "written together, found apart"),
        (
            {
                "unshareable_flight": {"S": "holders-dead"},
                "unshareable_at": {"N": repr(NOW + 3600)},
                "unshareable_lasting": {"BOOL": False},
            },
            "unshareable_at: ahead of the clock",
        ),
    ],
)
def test_an_attribute_not_as_written_refuses_the_item(attributes: dict[str, Any], why: str) -> None:
    assert why in item_refused(good_item(**attributes))


def test_facts_stamped_ahead_of_the_clock_go_only_to_the_audits_that_waited_for_them() -> None:
    # Stamped 6 s ahead of this reader's clock (the holder's clock is ahead, beyond the skew).
    ahead = facts_item(KEY, facts.to_json(sample_facts(NOW + 6)), NOW + 6, flight={"S": "f1"})
    got, note = dynamostore.read_item(ahead, NOW)
    assert note is not None and "fetched_at: ahead of the clock" in note
    stamp = got.item.stamp
    assert stamp is not None and got.facts == sample_facts(NOW + 6)
    # Reused by no audit...
    assert not lease.usable(stamp, 60.0, NOW)
    fresh = Protocol("me", 60.0, NOW + 147.0, None, random.Random(1), 0.5)
    assert isinstance(fresh.step(ReadDone(got.item), NOW), TakeLease)
    # ...but the facts of the fetch a waiter waited for, whatever their stamp.
    waiter = Protocol("me", 60.0, NOW + 147.0, None, random.Random(1), 0.5)
    assert isinstance(
        waiter.step(ReadDone(Item(lease_owner="f1", lease_until=NOW + 4)), NOW), Sleep
    )
    assert waiter.step(Slept(), NOW + 1) == Read(consistent=False)
    assert waiter.step(ReadDone(got.item), NOW + 1) == Finish(Use.STORED, Source.WAITED)


def test_a_mark_stamped_ahead_of_the_clock_is_still_the_mark_of_its_flight() -> None:
    # The holder's clock is 8 s ahead: its waiters-only facts and their lasting mark are both
    # stamped ahead. The item is read (not as no item, which sent the waiters to take the site
    # over, too late for a fetch of their own): the mark is its flight's, with no known time.
    at = NOW + 8
    written = facts_item(KEY, facts.to_json(sample_facts(at)), at, flight={"S": "f1"})
    del written["facts"]
    written |= {
        "facts_ref": {"S": "ref"},
        "awaited_only": {"BOOL": True},
        "unshareable_flight": {"S": "f1"},
        "unshareable_at": {"N": repr(at)},
        "unshareable_lasting": {"BOOL": True},
    }
    got, note = dynamostore.read_item(written, NOW)
    assert note is not None and "ahead of the clock" in note
    item = got.item
    assert item.unshareable_flight == "f1" and item.unshareable_at is None
    # Heeded by no other audit, which takes the lease over it, as the store lets it...
    assert not lease.lasting_mark_held(item, NOW, lease.UNSHAREABLE_HOLD_S)
    assert not lease.dead_mark_held(replace(item, unshareable_flight=Unshareable.DEAD.value), NOW)
    # ...but the waiters of that flight see their mark (and take the facts handed to them).
    waiter = Protocol("me", 60.0, NOW + 20.0, None, random.Random(1), 0.5)
    assert isinstance(
        waiter.step(ReadDone(Item(lease_owner="f1", lease_until=NOW + 4)), NOW), Sleep
    )
    assert waiter.step(Slept(), NOW + 1) == Read(consistent=False)
    assert isinstance(waiter.step(ReadDone(replace(item, stamp=None)), NOW + 1), FetchAlone)


def test_facts_fetched_ahead_of_the_clock_inside_the_json_refuse_the_item() -> None:
    ahead = facts.to_json(sample_facts(NOW + 3600))
    assert "fetchedAt: ahead of the clock" in item_refused(facts_item(KEY, ahead, NOW - 5))
    # Within the allowance, a clock a little ahead is a right clock.
    close = facts.to_json(sample_facts(NOW + lease.CLOCK_SKEW_S))
    dynamostore.read_item(facts_item(KEY, close, NOW + lease.CLOCK_SKEW_S), NOW)


def test_facts_are_inflated_to_their_stated_length_and_no_further() -> None:
    data = facts.encode(sample_facts(NOW - 5))
    body = pack(data)[4:]
    for stated, why in (
        (len(data) - 1, "inflate past their stated length"),
        (len(data) + 1, "not of their stated length"),
        (facts.MAX_FACTS_BYTES + 1, "not stated to inflate to at most"),
        (2**32 - 1, "not stated to inflate to at most"),
    ):
        item = good_item(facts={"B": stated.to_bytes(4, "big") + body})
        assert why in item_refused(item), stated
    for packed, why in (
        (b"", "not stated"),
        (b"\0\0", "not stated"),
        (pack(data) + b"tail", "not of their stated length"),
        (pack(data)[:-3], "cut short"),
        (len(data).to_bytes(4, "big") + b"not zlib at all", "not a zlib stream"),
        (b"\0" * (dynamostore.MAX_ITEM_BYTES + 5), "not binary of at most"),
    ):
        assert why in item_refused(good_item(facts={"B": packed})), packed[:8]
    # An item of the previous version (zlib alone, no length) states some 2 GB: refused.
    assert "not stated" in item_refused(good_item(facts={"B": pack(data)[4:]}))


def test_a_zlib_bomb_costs_its_stated_length_at_most() -> None:
    bomb = zlib_bomb(facts.MAX_FACTS_BYTES, BOMB_INFLATED)  # ~15 KB that inflate to 15 MiB
    assert len(bomb) < dynamostore.MAX_ITEM_BYTES
    for stated in (1000, facts.MAX_FACTS_BYTES):
        item = good_item(facts={"B": stated.to_bytes(4, "big") + bomb[4:]})
        tracemalloc.start()
        try:
            assert "inflate past their stated length" in item_refused(item)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < stated + 4 * dynamostore.INFLATE_STEP_BYTES + (1 << 20), (stated, peak)


attribute_values = st.one_of(
    st.dictionaries(
        st.sampled_from(["S", "N", "B", "BOOL", "NULL", "L", "M", "SS"]),
        st.none() | st.booleans() | st.text(max_size=30) | st.binary(max_size=30) | st.integers(),
        max_size=2,
    ),
    st.builds(lambda n: {"N": n}, st.text("0123456789.eE+-naif", max_size=12)),
    st.builds(lambda b: {"B": b}, st.binary(max_size=64)),
    st.none() | st.text(max_size=5) | st.integers(),
)


@given(
    st.sampled_from([*sorted(good_item()), "lease_owner", "lease_until", "unshareable_at"]),
    attribute_values,
)
def test_any_value_of_any_attribute_gives_an_item_or_one_typed_error(
    name: str, value: object
) -> None:
    item = good_item()
    item[name] = value
    try:
        got, _ = dynamostore.read_item(item, NOW)
    except InvalidItemError as e:
        assert 0 < len(e.reason) <= InvalidItemError.MAX_REASON_CHARS
        return
    assert (got.facts is None) == (got.item.stamp is None)


# --- the lease's bound -------------------------------------------------------------------------


def test_a_lease_never_runs_further_ahead_than_a_holder_writes_it() -> None:
    far = NOW + LEASE_S + lease.CLOCK_SKEW_S
    assert lease.credible_until(far, NOW)
    assert not lease.credible_until(far + 0.001, NOW)
    assert not lease.credible_until(NOW + 3600, NOW)
    for until in (far + 0.001, NOW + 3600):
        got, note = dynamostore.read_item(lease_item(KEY, "o", until), NOW)
        assert note is not None and not got.item.lease_held
    got, note = dynamostore.read_item(lease_item(KEY, "o", far), NOW)
    assert note is None and got.item.lease_held


def test_an_audit_meeting_a_lease_an_hour_ahead_takes_the_lease_at_once() -> None:
    m = Protocol("me", 60.0, NOW + 147.0, None, random.Random(1), 0.5)
    assert m.start() == Read(consistent=False)
    got, _ = dynamostore.read_item(lease_item(KEY, "ahead", NOW + 3600), NOW)
    action = m.step(ReadDone(got.item), NOW)
    assert isinstance(action, TakeLease)


def test_a_waiter_whose_holder_jumps_an_hour_ahead_takes_over_within_a_lease() -> None:
    m = Protocol("me", 60.0, NOW + 147.0, None, random.Random(1), 0.5)
    t = NOW
    action = m.step(ReadDone(Item(lease_owner="holder", lease_until=t + LEASE_S)), t)
    assert isinstance(action, Sleep)
    # The holder's clock jumps an hour ahead; its renewals say so; then it dies.
    while not isinstance(action, TakeLease):
        assert t < NOW + LEASE_S, "held past a lease's length"
        if isinstance(action, Sleep):
            t = action.until
            action = m.step(Slept(), t)
        else:
            assert isinstance(action, Read)
            seen, _ = dynamostore.read_item(lease_item(KEY, "holder", t + 3600 + LEASE_S), t)
            action = m.step(ReadDone(seen.item), t)


def test_facts_kept_in_an_item_of_their_own_are_checked_as_the_sites_item_is() -> None:
    site = facts.SiteFacts(facts.RobotsProbe(404, False, (), (), ()), (), (), fetched_at=100.0)
    packed = pack(facts.encode(site))
    good = {
        "pk": {"S": "k|facts"},
        "facts": {"B": packed},
        "flight": {"S": "f1"},
        "expires_at": {"N": "999"},
    }
    stamp = lease.Stamp(100.0, 0.5, False, "f1")
    assert dynamostore.read_facts_item(good, "f1", 100.0, stamp) == site
    # Other facts than those referred to (a lagging read): none, not refused.
    assert dynamostore.read_facts_item(good, "f2", 100.0, stamp) is None
    # Facts that say they were fetched an hour ahead of the reader's clock, where the site's
    # item says otherwise: refused, as in the site's item.
    with pytest.raises(InvalidItemError, match="ahead of the clock"):
        dynamostore.read_facts_item(good, "f1", 100.0 - 3600, replace(stamp, fetched_at=-3500.0))
    # A stamp that says the facts hold no transient answer, where they do (a 503 reused by
    # audits that start later): refused, as in the site's item.
    down = facts.SiteFacts(facts.RobotsProbe(503, False, (), (), (), transient=True), (), ())
    lying = {**good, "facts": {"B": pack(facts.encode(replace(down, fetched_at=100.0)))}}
    with pytest.raises(InvalidItemError, match="transient"):
        dynamostore.read_facts_item(lying, "f1", 100.0, stamp)
    assert dynamostore.read_facts_item(lying, "f1", 100.0, replace(stamp, transient=True))
    # Past what the writer keeps for every audit, only the waiters' facts may be.
    large = {**good, "facts": {"B": b"\0" * (dynamostore.MAX_ITEM_BYTES + 5)}}
    with pytest.raises(InvalidItemError, match=f"at most {dynamostore.MAX_ITEM_BYTES} bytes"):
        dynamostore.read_facts_item(large, "f1", 100.0, stamp)
    with pytest.raises(InvalidItemError, match="not a zlib stream"):  # past the size: read
        dynamostore.read_facts_item(large, "f1", 100.0, replace(stamp, awaited_only=True))
    bomb = zlib_bomb(facts.MAX_FACTS_BYTES, BOMB_INFLATED)
    for bad in (
        {**good, "facts": {"B": bomb}},
        {**good, "facts": {"S": "text"}},
        {**good, "expires_at": {"N": "soon"}},
        {**good, "facts": {"B": b"\0" * (dynamostore.MAX_AWAITED_BYTES + 5)}},
    ):
        with pytest.raises(InvalidItemError):
            dynamostore.read_facts_item(bad, "f1", 100.0, replace(stamp, awaited_only=True))
    # The site's item may refer to them, not hold both.
    both = facts_item("k", facts.encode(site).decode(), 100.0, facts_ref={"S": "f1"})
    assert "facts" in item_refused(both)


def test_facts_of_another_site_under_this_ones_key_are_refused() -> None:
    # Another site's item copied under this one's key was reused: its fallback candidates,
    # its issues, for this site. The candidates are those of the site the key names.
    probe = facts.RobotsProbe(404, False, (), (), ())
    own = facts.SiteFacts(probe, for_base("https://www.example.com", ()), ())
    dynamostore.of_site(own, KEY)
    dynamostore.of_site(own, KEY + "|facts|f1")
    other = facts.SiteFacts(probe, for_base("https://other.example", ()), ())
    for wrong in (other, replace(own, candidates=())):
        with pytest.raises(InvalidItemError, match="candidates"):
            dynamostore.of_site(wrong, KEY)
    listed = ("https://cdn.example.net/sitemap.xml",)
    robots_listed = facts.SiteFacts(replace(probe, status=200, sitemaps=listed), listed, ())
    dynamostore.of_site(robots_listed, KEY)
    with pytest.raises(InvalidItemError, match="candidates"):
        dynamostore.of_site(replace(robots_listed, candidates=own.candidates), KEY)


def test_when_a_lease_was_taken_is_read_with_its_lease_and_checked_as_any_time() -> None:
    owner = "o" * 32
    item = {**lease_item(KEY, owner, NOW + LEASE_S), "lease_at": {"N": repr(NOW)}}
    got, note = dynamostore.read_item(item, NOW)
    assert note is None and got.item.lease_at == NOW
    # A number, as any time; the item is refused for anything else.
    assert "lease_at: not a number" in item_refused({**item, "lease_at": {"N": "soon"}})
    assert "lease_at: not of type N" in item_refused({**item, "lease_at": {"S": repr(NOW)}})
    assert "lease_at: not within" in item_refused({**item, "lease_at": {"N": "-1"}})
    # Further ahead of the reader's clock than the skew allowed: not known, the lease stands.
    ahead = {**item, "lease_at": {"N": repr(NOW + lease.CLOCK_SKEW_S + 1)}}
    got, note = dynamostore.read_item(ahead, NOW)
    assert note is None and got.item.lease_held and got.item.lease_at is None
    # How often it was renewed: a whole number, known with its lease only.
    counted, note = dynamostore.read_item({**item, "lease_renewals": {"N": "3"}}, NOW)
    assert note is None and counted.item.lease_renewals == 3 and got.item.lease_renewals is None
    assert "lease_renewals: not a whole number" in item_refused(
        {**item, "lease_renewals": {"N": "1.5"}}
    )
    assert "lease_renewals: not within" in item_refused({**item, "lease_renewals": {"N": "-1"}})
    uncounted, _ = dynamostore.read_item({**good_item(), "lease_renewals": {"N": "3"}}, NOW)
    assert uncounted.item.lease_renewals is None
    # Without its lease (written by a version that does not remove it), it stands for nothing.
    alone = {**good_item(), "lease_at": {"N": repr(NOW)}}
    got, note = dynamostore.read_item(alone, NOW)
    assert note is None and got.item.lease_at is None
    # A lease read as no lease (ending further ahead than a lease runs) takes it along.
    far = {**lease_item(KEY, owner, NOW + 3600), "lease_at": {"N": repr(NOW)}}
    got, note = dynamostore.read_item(far, NOW)
    assert note is not None and got.item.lease_at is None


def test_a_store_key_names_its_site_with_or_without_a_suffix() -> None:
    from sitemap_auditor.sharing.driver import STANDBY_SUFFIX, scope_key, site_of_key

    key = scope_key("https://www.example.com", False, "1:u1:p", b"k" * 32)
    assert site_of_key(key) == "https://www.example.com"
    assert site_of_key(key + STANDBY_SUFFIX) == "https://www.example.com"
    assert site_of_key(dynamostore.facts_key(key, "f1")) == "https://www.example.com"
    assert site_of_key("k") is None
