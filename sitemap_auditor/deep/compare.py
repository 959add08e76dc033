"""What changed between two deep-audit documents of a site (`deep --compare OLD.json`): findings
new, resolved and changed, and URL counts per sitemap. A finding the newer run did not check
again (its sitemap not read, or for the site, not every sitemap read) is not resolved: it is
counted as not checked.

Pure: two documents (dicts) in, the `comparison` block of the newer one out. A finding is known
by its kind and its sitemap (`null` for the site); a sitemap by its URL. The older document is
the user's own file but is read as hostile all the same: any value of the wrong type is taken as
absent, and what the block lists is bounded.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, cast

from sitemap_auditor.core import urls
from sitemap_auditor.core.text import valid_unicode
from sitemap_auditor.deep.document import FORMAT
from sitemap_auditor.deep.kinds import KINDS, Kind

__all__ = ["MAX_LISTED", "MAX_PREVIOUS_BYTES", "compare", "load_previous"]

# The older document is read whole (it is JSON): at most this many bytes.
MAX_PREVIOUS_BYTES = 256 * 1024 * 1024
# Each list of the block holds at most this many items; its totals count all of them.
MAX_LISTED = 10_000

_Key = tuple[str, str | None]


def load_previous(path: str | Path) -> dict[str, Any]:
    """The older document at path; raises ValueError saying why it cannot be compared with."""
    file = Path(path)
    try:
        size = file.stat().st_size
        if size > MAX_PREVIOUS_BYTES:
            raise ValueError(f"it is larger than {MAX_PREVIOUS_BYTES:,} bytes")
        with file.open("rb") as f:
            loaded = json.loads(f.read(MAX_PREVIOUS_BYTES + 1))
    except OSError as e:
        raise ValueError(e.strerror or str(e)) from None
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as e:
        raise ValueError(f"it is not JSON ({str(e)[:80]})") from None
    if not isinstance(loaded, dict) or loaded.get("format") != FORMAT:
        raise ValueError(f"it is not a document of sitemap-auditor deep --json (format {FORMAT})")
    # JSON can escape a lone surrogate ("\\ud800") that no report can write: U+FFFD, once, here.
    return cast(dict[str, Any], valid_unicode(loaded))


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _started(document: Mapping[str, Any]) -> str | None:
    # Version 2 keeps the time in its run block; version 1 at the top.
    run = document.get("run")
    if isinstance(run, Mapping) and _str(run.get("startedAt")):
        return _str(run.get("startedAt"))
    return _str(document.get("startedAt"))


def _findings(document: Mapping[str, Any], pages: bool) -> dict[_Key, Mapping[str, Any]]:
    """The document's findings by key; with pages, the page check's too (the site's, of no
    one sitemap), which count in the exit status as the walk's do."""
    found: dict[_Key, Mapping[str, Any]] = {}
    block = document.get("pages")
    listed = _list(block.get("findings")) if pages and isinstance(block, Mapping) else []
    for item in [*_list(document.get("findings")), *listed]:
        if isinstance(item, Mapping) and _str(item.get("kind")):
            key = (str(item["kind"]), _str(item.get("sitemap")))
            found.setdefault(key, item)
    return found


def _checked_pages(document: Mapping[str, Any]) -> bool:
    """Every listed page was checked: every sitemap read (no limit of the walk), and the pages
    they list neither sampled (--max-pages) nor left by an early stop."""
    pages = document.get("pages")
    return (
        document.get("complete") is True
        and isinstance(pages, Mapping)
        and pages.get("complete") is True
    )


# What the walk finds of a sitemap's URL, not of its body: checked of a `redirect` too.
_OF_THE_URL = frozenset({Kind.SITEMAP_BLOCKED_BY_ROBOTS.value})


def _checked(document: Mapping[str, Any]) -> Callable[[_Key], bool]:
    """Whether the document's run checked again what a finding is about: every finding, when it
    read every sitemap (`complete`) and no bound of its checks was reached (no limit-reached
    notice: the duplicate table's or the return links' bound leaves the walk complete); else a
    sitemap's own findings, when it read that sitemap, but for those found by comparing it
    with the other files (`KindInfo.across_files`), and the site's when every sitemap was read.
    A finding it did not check is no resolved one: a run cut short by a limit or Ctrl-C found
    fewer only for what it did not read; nor is one of a sitemap it read as another (a
    `redirect`), whose findings are that one's now, but for those of its URL (_OF_THE_URL)."""
    complete = document.get("complete") is True
    limited = any(
        isinstance(f, Mapping) and f.get("kind") == Kind.LIMIT_REACHED.value
        for f in _list(document.get("findings"))
    )
    items = [i for i in _list(document.get("sitemaps")) if isinstance(i, Mapping)]
    redirected = {
        str(i["url"]) for i in items if _str(i.get("url")) and i.get("type") == "redirect"
    }
    if complete and not limited:
        return lambda key: key[1] not in redirected or key[0] in _OF_THE_URL
    read = {
        str(item["url"])
        for item in items
        if _str(item.get("url")) and item.get("type") not in (None, "unfetched")
    }

    def checked(key: _Key) -> bool:
        if _across_files(key[0]):
            return False
        if key[1] is None:
            return complete
        if key[1] in redirected:
            return key[0] in _OF_THE_URL
        return complete or key[1] in read

    return checked


def _across_files(kind: str) -> bool:
    """A kind found by comparing files (kinds.KindInfo.across_files); an unknown one too."""
    try:
        return KINDS[Kind(kind)].across_files
    except (ValueError, KeyError):
        return True


def _entries(document: Mapping[str, Any]) -> dict[str, int | None]:
    """Each sitemap's entries; a `redirect` one's are those of the sitemap it was read as (its
    final URL's), as an earlier run that read it itself counted them."""
    found: dict[str, int | None] = {}
    redirected: dict[str, str] = {}
    for item in _list(document.get("sitemaps")):
        if isinstance(item, Mapping) and _str(item.get("url")):
            found.setdefault(str(item["url"]), _int(item.get("entries")))
            if item.get("type") == "redirect" and _str(item.get("finalUrl")):
                redirected.setdefault(str(item["url"]), str(item["finalUrl"]))
    if redirected:
        # The sitemap it was read as is the one listed under any spelling of its final URL, as
        # the walk found it (urls.resource_key, of the one reading).
        by_key = {_key_of(url): url for url in found if url not in redirected}
        for url, final in redirected.items():
            found[url] = found.get(by_key.get(_key_of(final), final))
    return found


def _key_of(url: str) -> str:
    try:
        return urls.resource_key(urls.read(url))
    except ValueError:  # refused: only the same text is the same
        return url


def _brief(key: _Key, item: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "kind": key[0],
        "sitemap": key[1],
        "severity": _str(item.get("severity")),
        "count": _int(item.get("count")),
    }


def _bounded(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return items[:MAX_LISTED]


def compare(previous: Mapping[str, Any], current: Mapping[str, Any]) -> dict[str, Any]:
    """The comparison block: what `current` found that `previous` did not, and the reverse."""
    # The pages' findings are compared when both audits checked every listed page: one that
    # checked none, a sample or stopped early found fewer, which is no sign they were resolved.
    pages = _checked_pages(previous) and _checked_pages(current)
    old, new = _findings(previous, pages), _findings(current, pages)
    added = [_brief(k, v) for k, v in new.items() if k not in old]
    checked = _checked(current)
    gone = [k for k in old if k not in new]
    resolved = [_brief(k, old[k]) for k in gone if checked(k)]
    changed = []
    for key, item in new.items():
        before = old.get(key)
        if before is None:
            continue
        was, now = _int(before.get("count")), _int(item.get("count"))
        if was != now:
            changed.append({**_brief(key, item), "countBefore": was, "countAfter": now})
    old_entries, new_entries = _entries(previous), _entries(current)
    sitemaps = [
        {"url": url, "entriesBefore": old_entries.get(url), "entriesAfter": new_entries.get(url)}
        for url in {**new_entries, **old_entries}
        # A file in one run only, or read in one only, with no count either side is no other
        # number of URLs (a guessed path that is not there, say).
        if old_entries.get(url) != new_entries.get(url)
    ]
    totals_before = previous.get("totals")
    totals_after = current.get("totals")
    return {
        "previous": {
            "auditedUrl": _str(previous.get("auditedUrl")),
            "startedAt": _started(previous),
            "version": _int(previous.get("version")),
        },
        "urlsBefore": _int(totals_before.get("urls")) if isinstance(totals_before, dict) else None,
        "urlsAfter": _int(totals_after.get("urls")) if isinstance(totals_after, dict) else None,
        "counts": {
            "new": len(added),
            "resolved": len(resolved),
            "notChecked": len(gone) - len(resolved),
            "changed": len(changed),
            "sitemapsChanged": len(sitemaps),
        },
        "newFindings": _bounded(added),
        "resolvedFindings": _bounded(resolved),
        "changedFindings": _bounded(changed),
        "sitemaps": _bounded(sitemaps),
    }
