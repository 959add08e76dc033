"""Where the `sitemap-auditor` command starts: before anything heavy is imported, `deep` takes
SIGINT and SIGTERM (core/interrupts.py), so that a signal at any moment of its run, its own
imports included, ends in the partial document and 130 or 143, never a traceback. (A signal in
the interpreter's own start-up, the first 10 to 20 ms before this module runs, is Python's.)"""

from __future__ import annotations

# The C module under `signal`: installing the first handler imports nothing (`signal` imports
# enum, which takes a few ms of the start-up).
import _signal  # type: ignore[import-not-found]  # no stub of its own: `signal`'s functions
import sys

__all__ = ["entry_point", "run"]

# Signals that came while core/interrupts.py was being imported (its own imports: threading,
# typing...), recorded by the first handler, which needs nothing but this module.
_early: list[int] = []


def _note(signum: int, _frame: object) -> None:
    _early.append(signum)


def run(argv: list[str], json_by_default: bool = False) -> None:
    """Run the command line on argv and end the process with its status."""
    interrupt = None
    if argv[:1] == ["deep"]:
        for sig in (_signal.SIGINT, _signal.SIGTERM):
            _signal.signal(sig, _note)
        from sitemap_auditor.core.interrupts import Interrupt

        interrupt = Interrupt()
        interrupt.install()
        interrupt.hold()  # taken where the deep audit opens a section to it
        for early in _early:
            interrupt.request(early)  # as if it came now: held, like any other
    from sitemap_auditor.cli.main import exit_with, main

    exit_with(main(argv, json_by_default=json_by_default, interrupt=interrupt))


def entry_point() -> None:
    """The `sitemap-auditor` console script."""
    run(sys.argv[1:])
