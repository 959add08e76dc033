"""What one fetch cost: the value the fetcher reports and the logs and metrics read."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FetchStats"]


@dataclass(frozen=True)
class FetchStats:
    """What one fetch cost, for logs and metrics."""

    url: str
    status: int | None
    wire_bytes: int
    seconds: float
    error: str | None
