"""Where the `sitemap-auditor` command starts: before anything heavy is imported, SIGINT and
SIGTERM are taken, so that a signal at any moment, the imports included, never ends in a
traceback: `deep` hands them to core/interrupts.py (the partial document, 130 or 143); the
audits, once their module is in, take Ctrl-C as KeyboardInterrupt, and one that came before
ends the command at once (130, or 143 for SIGTERM). (A signal in the interpreter's own start-up,
the first 10 to 20 ms before this module runs, is Python's.)"""

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
    for sig in (_signal.SIGINT, _signal.SIGTERM):
        _signal.signal(sig, _note)
    if argv[:1] == ["deep"]:
        from sitemap_auditor.core.interrupts import Interrupt

        interrupt = Interrupt()
        interrupt.install()
        interrupt.hold()  # taken where the deep audit opens a section to it
        for early in _early:
            interrupt.request(early)  # as if it came now: held, like any other
        from sitemap_auditor.cli.main import exit_with, main

        exit_with(main(argv, json_by_default=json_by_default, interrupt=interrupt))
    # The audits take Ctrl-C as KeyboardInterrupt once their module is in (cli/main.py), and
    # SIGTERM as the default; one that came while it was being imported, or before the audits
    # began, ends the command now.
    from sitemap_auditor.cli.main import EXIT_INTERRUPTED, exit_with, main

    _signal.signal(_signal.SIGINT, _signal.default_int_handler)
    _signal.signal(_signal.SIGTERM, _signal.SIG_DFL)
    try:
        if _early:
            raise KeyboardInterrupt
        status = main(argv, json_by_default=json_by_default)
    except KeyboardInterrupt:
        # Before the audits began (their own imports, say): nothing was printed yet.
        sys.stderr.write("interrupted\n")
        status = 128 + _early[0] if _early and _early[0] != _signal.SIGINT else EXIT_INTERRUPTED
    exit_with(status)


def entry_point() -> None:
    """The `sitemap-auditor` console script."""
    run(sys.argv[1:])
