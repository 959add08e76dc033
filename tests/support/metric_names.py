"""Every metric the function emits and its unit, as the EMF tests and the dashboard's test read
them: taken from the one table, `observability.METRICS`, never listed again here."""

from __future__ import annotations

from sitemap_auditor.audit.observability import METRICS, SHARING_METRICS

__all__ = ["SHARING", "UNITS"]

UNITS: dict[str, str] = {name: unit.value for name, unit in METRICS.items()}
# The metrics of facts shared between audits of one site (docs/contract.md §7).
SHARING: frozenset[str] = frozenset(SHARING_METRICS)
