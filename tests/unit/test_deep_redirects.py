"""ReadElsewhere: which record a redirected sitemap is read as, in either order of the fetches."""

from __future__ import annotations

from sitemap_auditor.deep.records import SitemapRecord
from sitemap_auditor.deep.redirects import ReadElsewhere, afresh


def _records() -> list[SitemapRecord]:
    # 0 and 1 listed by robots.txt; 2 listed by 0 (an index); 3 listed later by 2.
    return [
        SitemapRecord(0, "https://s/a.xml", None, 0, "robots"),
        SitemapRecord(1, "https://s/b.xml", None, 0, "robots"),
        SitemapRecord(2, "https://s/c.xml", "https://s/a.xml", 1, "index"),
        SitemapRecord(3, "https://s/d.xml", "https://s/c.xml", 2, "index"),
    ]


def test_only_a_record_known_before_any_fetch_or_recorded_earlier_is_taken() -> None:
    records, table = _records(), ReadElsewhere()
    assert table.target(records[0], 1, records) == 1  # robots.txt lists both
    assert table.target(records[1], 0, records) == 0
    assert table.target(records[3], 2, records) == 2  # recorded before it
    assert table.target(records[2], 3, records) is None  # listed later: known or not, by chance
    assert table.target(records[2], 2, records) is None  # itself
    assert table.target(records[2], None, records) is None


def _fetched(rec: SitemapRecord, kind: str) -> SitemapRecord:
    rec.type = kind
    return rec


def test_in_either_order_a_record_left_to_one_not_read_is_read_itself() -> None:
    for target_first in (True, False):
        records, table = _records(), ReadElsewhere()
        steps = [(records[1], "unknown", None), (records[0], "redirect", 1)]
        again: list[int] = []
        for rec, kind, read_as in steps if target_first else steps[::-1]:
            again += table.applied(_fetched(rec, kind), read_as)
        assert again == [0], target_first
        assert table.target(records[0], 1, records) is None  # now read itself
        assert list(table.unread()) == [0]  # until it is fetched again


def test_a_record_left_to_one_read_is_not_fetched_again_in_either_order() -> None:
    for target_first in (True, False):
        records, table = _records(), ReadElsewhere()
        steps = [(records[1], "urlset", None), (records[0], "redirect", 1)]
        again: list[int] = []
        for rec, kind, read_as in steps if target_first else steps[::-1]:
            again += table.applied(_fetched(rec, kind), read_as)
        assert again == [] and list(table.unread()) == []


def test_one_left_to_a_record_never_applied_is_unread_and_chains_end() -> None:
    records, table = _records(), ReadElsewhere()
    assert table.applied(_fetched(records[0], "redirect"), 1) == []
    assert list(table.unread()) == [0]
    # A server that answers each way: neither was read, so each is read itself.
    assert table.applied(_fetched(records[1], "redirect"), 0) == [0, 1]
    assert list(table.unread()) == [0, 1] and table.read_as == {}
    table.read_as.update({0: 1, 1: 2, 2: 0})  # a loop of redirects: each taken once
    assert list(table.chain(0)) == [1, 2]


def test_a_record_afresh_is_as_listed() -> None:
    rec = _fetched(_records()[2], "redirect")
    rec.http_status, rec.final_url, rec.in_index, rec.place = 200, "https://s/b.xml", True, (1,)
    again = afresh(rec)
    assert (again.type, again.http_status, again.final_url) == ("unfetched", None, None)
    assert (again.number, again.url, again.in_index, again.place) == (2, rec.url, True, (1,))


def test_one_sent_back_and_not_fetched_again_is_unread() -> None:
    records, table = _records(), ReadElsewhere()
    table.applied(_fetched(records[1], "unknown"), None)
    assert table.applied(_fetched(records[0], "redirect"), 1) == [0]
    assert list(table.unread()) == [0]  # the walk stopped before fetching it again
    table.applied(_fetched(afresh(records[0]), "urlset"), None)
    assert list(table.unread()) == []
