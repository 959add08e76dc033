"""The simulation layer: the real sharing driver in a fleet in virtual time. Like the unit layer,
no test here opens a socket or sleeps (its fixture is the unit layer's own); these are apart for
their length, whole fleets of audits a test."""

from __future__ import annotations

from unit.conftest import no_sockets_no_sleeps

__all__ = ["no_sockets_no_sleeps"]
