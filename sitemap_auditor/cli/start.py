"""Where the `sitemap-auditor` command starts: before anything heavy is imported, `deep` takes
SIGINT and SIGTERM (core/interrupts.py), so that a signal at any moment of its run, its own
imports included, ends in the partial document and 130 or 143, never a traceback."""

from __future__ import annotations

import sys

__all__ = ["entry_point", "run"]


def run(argv: list[str], json_by_default: bool = False) -> None:
    """Run the command line on argv and end the process with its status."""
    interrupt = None
    if argv[:1] == ["deep"]:
        from sitemap_auditor.core.interrupts import Interrupt

        interrupt = Interrupt()
        interrupt.install()
        interrupt.hold()  # taken where the deep audit opens a section to it
    from sitemap_auditor.cli.main import exit_with, main

    exit_with(main(argv, json_by_default=json_by_default, interrupt=interrupt))


def entry_point() -> None:
    """The `sitemap-auditor` console script."""
    run(sys.argv[1:])
