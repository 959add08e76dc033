"""--user's credentials for both commands: the password from $SITEMAP_AUDITOR_PASSWORD, else
asked for on the terminal, never taken as an argument."""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sitemap_auditor.core.credentials import Credentials

__all__ = ["PASSWORD_ENV", "credentials"]

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
