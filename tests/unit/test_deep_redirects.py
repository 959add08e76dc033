"""ReadElsewhere: which record a redirected sitemap is read as, in either order of the fetches."""

from __future__ import annotations

from sitemap_auditor.deep.records import SitemapRecord
from sitemap_auditor.deep.redirects import ReadElsewhere


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
    sibling = SitemapRecord(4, "https://s/e.xml", "https://s/a.xml", 1, "index")
    assert table.target(records[2], 4, [*records, sibling]) == 4  # its index's, recorded at once
    assert table.target(records[2], 2, records) is None  # itself
    assert table.target(records[2], None, records) is None


def _cut(rec: SitemapRecord) -> SitemapRecord:
    rec.cut = True
    return rec


def test_one_left_to_a_record_fetched_in_either_order_is_not_unread() -> None:
    for target_first in (True, False):
        records, table = _records(), ReadElsewhere()
        steps = [(records[1], None), (records[0], 1)]
        for rec, read_as in steps if target_first else steps[::-1]:
            table.applied(rec, read_as)
        assert list(table.unread()) == [] and table.read_as == {0: 1}, target_first


def test_one_left_to_a_record_never_fetched_or_cut_is_unread() -> None:
    records, table = _records(), ReadElsewhere()
    table.applied(records[0], 1)
    assert list(table.unread()) == [0]  # the walk stopped before fetching 1
    table.applied(_cut(records[1]), None)
    assert list(table.unread()) == [0]  # a limit cut it


def test_chains_of_redirects_end_even_in_a_loop() -> None:
    table = ReadElsewhere()
    table.read_as.update({0: 1, 1: 2, 2: 0})
    assert list(table.chain(0)) == [1, 2]
    assert list(table.chain(3)) == []
