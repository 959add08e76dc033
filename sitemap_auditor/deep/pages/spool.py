"""The walk's listed URLs kept on disk (a temporary JSON Lines file) for the page check: the walk
hands each over as it reads it; the page check reads them back, in walk order, as often as it
needs. Nothing of them is held in memory."""

from __future__ import annotations

import json
import tempfile
import threading
from collections.abc import Iterator
from typing import IO

from sitemap_auditor.deep.pages.check import Listed

__all__ = ["UrlSpool"]


class UrlSpool:
    """Write (url, sitemap, lastmod) as the walk goes; read them back after."""

    def __init__(self) -> None:
        self._file: IO[str] = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115
        self._lock = threading.Lock()

    def add(self, url: str, sitemap: str, lastmod: str | None) -> None:
        """Keep one listed URL."""
        line = json.dumps([url, sitemap, lastmod], ensure_ascii=False) + "\n"
        with self._lock:
            self._file.write(line)

    def __call__(self) -> Iterator[Listed]:
        """Every URL kept, in the order given."""
        with self._lock:
            self._file.flush()
            self._file.seek(0)
            while True:
                line = self._file.readline()
                if not line:
                    break
                url, sitemap, lastmod = json.loads(line)
                yield url, sitemap, lastmod
            self._file.seek(0, 2)

    def close(self) -> None:
        """Delete the file."""
        self._file.close()
