"""--user's credentials for both commands: the password from $SITEMAP_AUDITOR_PASSWORD, else
asked for on the terminal, never taken as an argument."""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sitemap_auditor.core.credentials import Credentials

__all__ = ["PASSWORD_ENV", "credentials", "one_host"]

PASSWORD_ENV = "SITEMAP_AUDITOR_PASSWORD"


def credentials(user: str, parser: argparse.ArgumentParser) -> Credentials:
    """--user's credentials; a usage error when there is no password to be had, or when the
    user or the password holds bytes that are not UTF-8 (no Authorization header can carry
    them: an argument or variable that is not UTF-8 arrives with lone surrogates)."""
    # Imported here: the URL parser behind it is no cost to a command line without --user.
    from sitemap_auditor.core.credentials import from_mapping

    creds = from_mapping({"username": user, "password": _password(user, parser)})
    if creds is None:
        parser.error(f"--user or ${PASSWORD_ENV} holds bytes that are not UTF-8 text")
    return creds


def _password(user: str, parser: argparse.ArgumentParser) -> str:
    password = os.environ.get(PASSWORD_ENV)
    if password is not None:
        return password
    if not sys.stdin.isatty():
        parser.error(f"--user needs ${PASSWORD_ENV} when there is no terminal to ask on")
    try:
        return getpass.getpass(f"Password for {user}: ")
    except (EOFError, KeyboardInterrupt):
        parser.error("no password given")


def one_host(urls: Iterable[str], parser: argparse.ArgumentParser) -> None:
    """A usage error when --user would go to the sites of more than one host: each audit sends
    the credentials to its own site, and a list of URLs (a file, standard input) may name
    another owner's site beside yours. URLs with no site (no audit sends anything) count for
    none."""
    from sitemap_auditor.core import site as sites

    hosts: dict[str, None] = {}
    for url in urls:
        site = sites.resolve(url)
        if site is not None:
            hosts.setdefault(site.host)
    if len(hosts) > 1:
        named = ", ".join(list(hosts)[:3]) + (", ..." if len(hosts) > 3 else "")
        parser.error(
            f"--user sends the password to every site audited, and these URLs name "
            f"{len(hosts)} hosts ({named}): audit one host's URLs with --user"
        )
