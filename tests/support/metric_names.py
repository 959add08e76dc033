"""Every metric the function emits (observability.py) and its unit: the EMF tests and the
dashboard's test read them."""

from __future__ import annotations

__all__ = ["UNITS"]

UNITS = {
    "AuditSuccess": "Count",
    "AuditWarning": "Count",
    "AuditFail": "Count",
    "AuditError": "Count",
    "Check100": "Count",
    "Check200": "Count",
    "Check300": "Count",
    "Check301": "Count",
    "Check302": "Count",
    "Check400": "Count",
    "Check501": "Count",
    "AuditDuration": "Milliseconds",
    "BytesFetched": "Bytes",
    "FetchLatency": "Milliseconds",
    "SitemapBytes": "Bytes",
    "SitemapEntries": "Count",
    "FactsFetched": "Count",
    "FactsReused": "Count",
    "FactsWaited": "Count",
    "FactsRevalidated": "Count",
    "BytesSaved": "Bytes",
    "StoreErrors": "Count",
    "FactsRefreshedAhead": "Count",
    "StoreThrottles": "Count",
    "FactsUnshareable": "Count",
    "StoreItemsRejected": "Count",
}
