"""The real sitemaps of the shared corpus (`realworld`, `realworld2`, `realworld3`: 414 files)
parse exactly as they did before the parser's bounds (docs/contract.md §5): the same root,
entries, latest lastmod and samples, or the same refusal, against the answers pinned in
realworld_answers.json. The bounds themselves are tests/unit/test_parser_bounds.py's."""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from support.hostile_xml import chunked
from support.shared import CORPUS, needs_shared

from sitemap_auditor.core.parser import ParsedSitemap, Rejected, parse_bytes

ANSWERS = Path(__file__).resolve().parent / "realworld_answers.json"


def _body(path: Path) -> bytes:
    data = path.read_bytes()
    if data.startswith(b"\x1f\x8b"):
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error):
            return data  # a file posing as gzip: the parser's answer to its bytes
    return data


def _answer(answer: ParsedSitemap | Rejected) -> dict[str, Any]:
    if isinstance(answer, Rejected):
        return {"refused": answer.kind.value, "reason": answer.reason}
    return {
        "root": answer.root,
        "entries": answer.entry_count,
        "latest": answer.latest_lastmod.isoformat() if answer.latest_lastmod else None,
        "latest_text": answer.latest_lastmod_text,
        "unparsable": answer.unparsable_total,
        "samples": list(answer.unparsable_samples),
    }


def _pinned() -> dict[str, dict[str, Any]]:
    pinned: dict[str, dict[str, Any]] = json.loads(ANSWERS.read_text(encoding="utf-8"))
    return pinned


def _corpus_chunks(path: Path) -> Iterator[bytes]:
    return chunked([_body(path)])


@needs_shared
def test_real_sitemaps_parse_exactly_as_before_the_bounds() -> None:
    # realworld_answers.json: every file's answer from the parser before these bounds (the
    # raw-byte markup guard), 414 files: 276 parsed, 126 not well-formed, 9 other roots (4 of them
    # plain-text lists of URLs, since read as the documented auditor reads them), 3 empty.
    pinned = _pinned()
    files = sorted(
        str(p.relative_to(CORPUS))
        for folder in ("realworld", "realworld2", "realworld3")
        for p in (CORPUS / folder).rglob("*")
        if p.is_file()
    )
    assert files == sorted(pinned)
    changed = [
        name
        for name in files
        if _answer(parse_bytes(_corpus_chunks(CORPUS / name))) != pinned[name]
    ]
    assert not changed, f"answers changed: {changed[:10]}"
