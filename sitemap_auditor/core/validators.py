"""An answer's HTTP validators (`ETag`, `Last-Modified`), to ask the site later if it changed."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["NO_VALIDATORS", "Validators"]


@dataclass(frozen=True)
class Validators:
    """The HTTP validators of an answer, to ask the site later whether it changed."""

    etag: str | None = None
    last_modified: str | None = None

    def __bool__(self) -> bool:
        return self.etag is not None or self.last_modified is not None

    def headers(self) -> dict[str, str]:
        """The conditional request headers these validators give."""
        out: dict[str, str] = {}
        if self.etag is not None:
            out["If-None-Match"] = self.etag
        if self.last_modified is not None:
            out["If-Modified-Since"] = self.last_modified
        return out


NO_VALIDATORS = Validators()
