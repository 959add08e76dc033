"""The `sitemap-auditor` command line: audit URLs from a terminal, a file or a pipe."""

from __future__ import annotations

import argparse
import getpass
import io
import json
import os
import sys
import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import IO, TYPE_CHECKING, Any, NoReturn

from .codes import BY_ID
from .issues import Issue, Kind
from .text import valid_text

__all__ = [
    "EPILOG",
    "EXIT_CODES",
    "EXIT_INTERRUPTED",
    "EXIT_USAGE",
    "PASSWORD_ENV",
    "UsageError",
    "build_parser",
    "cause",
    "entry_point",
    "main",
    "render",
]

if TYPE_CHECKING:
    from .audit import Audited

# Exit status by the worst outcome; usage errors use 64 (EX_USAGE) so they never read as a FAIL.
EXIT_CODES = {"SUCCESS": 0, "WARNING": 1, "FAIL": 2, "ERROR": 3}
EXIT_USAGE = 64
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report an interrupted command
PASSWORD_ENV = "SITEMAP_AUDITOR_PASSWORD"

_COLOURS = {
    "SUCCESS": "32",
    "WARNING": "33",
    "FAIL": "31",
    "ERROR": "35",
    "INFORMATION": "36",
}
_MARKS = {"SUCCESS": "✓", "WARNING": "!", "FAIL": "✗", "ERROR": "✗", "INFORMATION": "i"}

EPILOG = """\
examples:
  sitemap-auditor https://www.example.com/
      audit one site and print a readable report
  sitemap-auditor --json https://www.example.com/ https://www.example.org/
      print the exact Lambda results, one JSON object per line
  sitemap-auditor --input sites.txt --jobs 8 > report.txt
      audit every URL of sites.txt (one a line, # for comments), 8 at a time
  cat sites.txt | sitemap-auditor --json - > results.jsonl
      read the URLs from standard input
  sitemap-auditor --user editor https://staging.example.com/
      send Basic Auth; the password is prompted for, or read from $SITEMAP_AUDITOR_PASSWORD
  sitemap-auditor demo
      serve the embedded demo site on 127.0.0.1 and audit it

exit status: 0 all SUCCESS, 1 worst WARNING, 2 worst FAIL, 3 worst ERROR, 64 usage error,
130 interrupted.
JSON Lines of a batch (more than one URL): {"url": <the input URL>, "result": <Lambda result>}.
colour: only on a terminal, never when NO_COLOR is set.
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser(prog: str = "sitemap-auditor") -> argparse.ArgumentParser:
    """The argument parser, with an example for each option."""
    p = _Parser(
        prog=prog,
        description="Find a site's XML sitemap (robots.txt, then the usual paths), parse it and "
        "check that its latest <lastmod> is recent, as the 37Audits Sitemap Auditor does.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "urls",
        nargs="*",
        metavar="URL",
        help="URLs to audit (e.g. https://www.example.com/); '-' reads them from standard input; "
        "'demo' audits the embedded demo site",
    )
    p.add_argument(
        "--demo", action="store_true", help="audit the embedded demo site (same as 'demo')"
    )
    p.add_argument(
        "-i",
        "--input",
        metavar="FILE",
        help="read URLs from FILE, one a line, blank lines and # comments ignored "
        "(e.g. --input sites.txt; '-' for standard input)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print the exact Lambda result, one JSON object a line (JSON Lines)",
    )
    p.add_argument(
        "--max-age-days",
        type=int,
        metavar="N",
        help="freshness window in days, at least 1 (e.g. --max-age-days 30; "
        "default $SITEMAP_MAX_AGE_DAYS or 7)",
    )
    p.add_argument(
        "-u",
        "--user",
        metavar="USER",
        help="Basic Auth user name for the audited site (e.g. --user editor); the password is "
        f"read from ${PASSWORD_ENV} or prompted for, never taken as an argument",
    )
    p.add_argument(
        "--allow-private-networks",
        action="store_true",
        help="allow loopback and private addresses (local development only; "
        "e.g. sitemap-auditor --allow-private-networks http://127.0.0.1:8000/)",
    )
    p.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=4,
        metavar="N",
        help="audit N sites at once (e.g. --jobs 8; default 4); results keep the input order",
    )
    p.add_argument(
        "--no-share",
        action="store_true",
        help="fetch every URL's site afresh; by default pages of one site in a batch share one "
        "fetch of its robots.txt and sitemap (e.g. --no-share --input pages.txt)",
    )
    p.add_argument(
        "-v", "--verbose", action="store_true", help="log each fetch to standard error (JSON lines)"
    )
    return p


def _colour(enabled: bool, status: str, text: str) -> str:
    return f"\033[{_COLOURS[status]}m{text}\033[0m" if enabled and status in _COLOURS else text


def _colour_enabled(stream: IO[str]) -> bool:
    if "NO_COLOR" in os.environ:  # https://no-color.org: set at all, whatever its value
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


# When no candidate parsed and every candidate failed the same way for a reason that is not the
# site's sitemap, the report says that first: the documented "publish a sitemap" advice would
# send the reader the wrong way. (The Lambda result keeps its documented texts.)
_CAUSES: dict[str, str] = {
    "blocked-address": "every candidate is on a loopback or private address, which the auditor "
    "refuses by default: to audit a local server, add --allow-private-networks",
    "fetch-dns": "the site's host name did not resolve (DNS): check the URL's spelling, or the "
    "network",
    "fetch-connect": "the site refused the connection, or none could be opened: is the server "
    "running, on that port?",
    "fetch-timeout": "the site gave no complete answer in time",
    "fetch-tls": "the TLS handshake with the site failed (certificate or protocol)",
    "body-too-large": "the sitemap is larger than 50 MB, which the auditor does not read",
}


def cause(issues: Sequence[Issue]) -> str | None:
    """What the report says first of a FAIL whose candidates failed for one such reason."""
    causes = {i.kind.value for i in issues if i.kind.value in _CAUSES}
    others = {i.kind for i in issues if i.kind.value not in _CAUSES}
    if len(causes) == 1 and others <= _TOLERATED:
        return _CAUSES[causes.pop()]
    return None


# Kinds that may stand beside a lead cause: other candidates' (or robots.txt's) HTTP statuses,
# the event's ignored preference.
_TOLERATED = {Kind.HTTP_STATUS, Kind.IGNORED_PREFERENCE}


def render(url: str, result: dict[str, Any], colour: bool, audited: Audited | None = None) -> str:
    """A readable report of one result."""
    issues = audited.issues if audited is not None else ()
    status = result["status"]
    lines = [f"{url}  {_colour(colour, status, status)}"]
    checks = result.get("checks")
    if checks is None:
        lines.append(f"  {result['message']}")
        return "\n".join(lines)
    data = checks[0]["data"]
    lead = cause(issues) if status == "FAIL" else None
    if lead is not None:
        lines.append(f"  {_colour(colour, status, 'cause')}  {lead}")
    if data["siteBase"] is not None:
        robots = data["robotsTxtHttpStatus"]
        lists = "lists a sitemap" if data["robotsTxtListsSitemap"] else "lists no sitemap"
        lines.append(
            f"  robots.txt  {data['robotsTxtUrl']}  "
            f"{'HTTP ' + str(robots) if robots is not None else 'no answer'}, {lists}"
        )
        if data["selectedSitemapUrl"]:
            latest = data["latestLastmod"]
            written = audited.latest_lastmod_written if audited is not None else None
            if latest is not None and written is not None and written != latest:
                # As the file says it; a period without a time counts as its last second
                # (docs/contract.md §5), which the instant alone reads as a moment to come.
                if "T" not in written:
                    latest = f"{written} (counts as {latest}, the end of that period)"
                else:
                    latest = f"{written} ({latest})"
            lines.append(
                f"  sitemap     {data['selectedSitemapUrl']}  <{data['sitemapType']}>, "
                f"{_plural(data['entryCount'], 'entry', 'entries')}, "
                f"latest <lastmod> {latest or 'none'}"
            )
        else:
            tried = len(data["candidateSitemaps"])
            if tried == 1:
                lines.append("  sitemap     the one candidate did not parse")
            else:
                lines.append(f"  sitemap     none of {tried} candidates parsed")
        lines.append(f"  window      {_plural(data['maxAgeDays'], 'day')}")
    for check in checks:
        s = check["status"]
        code = BY_ID[check["code"]["id"]].number
        lines.append(f"  {_colour(colour, s, _MARKS.get(s, '?') + ' ' + code)}  {check['message']}")
        if check["recommendation"]:
            lines.append(f"        -> {check['recommendation']}")
    if data["issues"]:
        lines.append("  issues:")
        lines.extend(f"    - {i}" for i in data["issues"])
    return "\n".join(lines)


def _read_urls(stream: IO[str]) -> list[str]:
    urls = []
    for line in stream:
        text = line.strip()
        if text and not text.startswith("#"):
            urls.append(text)
    return urls


def _stdin_urls(stdin: IO[str]) -> list[str]:
    buffer = getattr(stdin, "buffer", None)
    if buffer is None:
        return _read_urls(stdin)
    # As for --input files: bytes that are not UTF-8 become U+FFFD, not an exception.
    lenient = io.TextIOWrapper(buffer, encoding="utf-8", errors="replace")
    try:
        return _read_urls(lenient)
    finally:
        lenient.detach()  # standard input stays open for what follows


def _collect_urls(args: argparse.Namespace, stdin: IO[str]) -> list[str]:
    urls: list[str] = []
    for url in args.urls:
        urls.extend(_stdin_urls(stdin) if url == "-" else [url])
    if args.input:
        if args.input == "-":
            urls.extend(_stdin_urls(stdin))
        else:
            try:
                with open(args.input, encoding="utf-8", errors="replace") as f:
                    urls.extend(_read_urls(f))
            except OSError as e:
                # One line and the usage status, not a traceback (a directory, a missing file).
                raise UsageError(f"cannot read --input {args.input}: {e.strerror or e}") from None
    return urls


class UsageError(Exception):
    """A problem with what the command line was given: one line, exit status 64."""


class _Progress:
    """A one-line progress bar on standard error, only on a terminal."""

    def __init__(self, total: int, stream: IO[str]) -> None:
        self.total = total
        self.done = 0
        self.stream = stream
        self.enabled = total > 1 and hasattr(stream, "isatty") and stream.isatty()
        self._lock = threading.Lock()

    def step(self) -> None:
        with self._lock:
            self.done += 1
            if self.enabled:
                width = 30
                filled = width * self.done // self.total
                bar = "#" * filled + "-" * (width - filled)
                self.stream.write(f"\r[{bar}] {self.done}/{self.total}")
                if self.done == self.total:
                    self._clear()
                self.stream.flush()

    def _clear(self) -> None:
        self.stream.write("\r" + " " * 50 + "\r")

    def erase(self) -> None:
        """Leave the terminal clean: the progress line erased."""
        with self._lock:
            if self.enabled and self.done < self.total:
                self._clear()
                self.stream.flush()


def _summary(statuses: Iterable[str]) -> str:
    counts = dict.fromkeys(EXIT_CODES, 0)
    for s in statuses:
        counts[s] = counts.get(s, 0) + 1
    total = sum(counts.values())
    return f"{total} audited: " + ", ".join(f"{n} {s}" for s, n in counts.items())


def main(argv: Sequence[str] | None = None, *, json_by_default: bool = False) -> int:
    """Run the command line; return the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if list(argv[:1]) == ["deep"]:  # the deep audit: sitemap_auditor/deep/cli.py
        from .deep import cli as deep_cli

        return deep_cli.main(argv[1:])
    parser = build_parser("python -m sitemap_auditor" if json_by_default else "sitemap-auditor")
    args = parser.parse_args(argv)
    stdout, stderr = sys.stdout, sys.stderr
    as_json = args.json or json_by_default
    demo = args.demo or args.urls == ["demo"]
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.max_age_days is not None and args.max_age_days < 1:
        parser.error("--max-age-days must be at least 1")

    # An argument that is not UTF-8 arrives with lone surrogates, which no report could print.
    try:
        urls = [] if demo else [valid_text(url) for url in _collect_urls(args, sys.stdin)]
    except UsageError as e:
        stderr.write(f"{parser.prog}: {e}\n")
        return EXIT_USAGE
    if not demo and not urls:
        parser.error("no URL given (name one, use --input FILE, '-' for standard input, or 'demo')")

    password = None
    if args.user is not None:
        password = os.environ.get(PASSWORD_ENV)
        if password is None:
            if not sys.stdin.isatty():
                parser.error(f"--user needs ${PASSWORD_ENV} when there is no terminal to ask on")
            try:
                password = getpass.getpass(f"Password for {args.user}: ")
            except (EOFError, KeyboardInterrupt):
                parser.error("no password given")

    from . import config, errors

    try:
        settings = config.load(os.environ)
    except errors.ConfigError as e:
        stderr.write(f"sitemap-auditor: {e}\n")
        return EXIT_USAGE
    from dataclasses import replace

    if args.max_age_days is not None:
        settings = replace(settings, max_age_days=args.max_age_days)
    if args.allow_private_networks or demo:
        settings = replace(settings, allow_private_networks=True)
    if args.no_share:
        settings = replace(settings, share_seconds=0)

    from . import handler, observability

    observability.quiet(verbose=args.verbose)

    def audit(url: str) -> tuple[dict[str, Any], Audited | None]:
        event: dict[str, Any] = {"id": "cli", "url": url}
        if args.user is not None and password is not None:
            event["basicAuth"] = {"username": args.user, "password": password}
        found: list[Audited] = []
        result = handler.run(event, None, settings, observe=found.append)
        return result, found[0] if found else None

    if demo:
        from . import demo as demo_site

        with demo_site.serve() as base:
            urls = [base + "/"]
            answers = [audit(urls[0])]
    else:
        progress = _Progress(len(urls), stderr)

        def one(url: str) -> tuple[dict[str, Any], Audited | None]:
            try:
                return audit(url)
            finally:
                progress.step()

        pool = ThreadPoolExecutor(max_workers=min(args.jobs, len(urls)))
        try:
            answers = list(pool.map(one, urls))
        except KeyboardInterrupt:
            progress.erase()
            stderr.write("interrupted\n")
            stderr.flush()
            stdout.flush()
            # Audits still running would hold the exit for up to their 30 s deadlines.
            os._exit(EXIT_INTERRUPTED)
        pool.shutdown()

    results = [result for result, _ in answers]
    colour = _colour_enabled(stdout)
    batch = len(urls) > 1
    for url, (result, audited) in zip(urls, answers, strict=False):
        if as_json:
            # A batch's JSON Lines record names its input URL (README, "Using it"); a single
            # audit prints the exact Lambda result.
            record = {"url": url, "result": result} if batch else result
            stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            stdout.write(render(url, result, colour, audited) + "\n\n")
    if len(results) > 1:
        (stderr if as_json else stdout).write(_summary(r["status"] for r in results) + "\n")
    stdout.flush()
    return max(EXIT_CODES.get(r["status"], 3) for r in results)


def entry_point() -> None:
    """The `sitemap-auditor` console script."""
    sys.exit(main())
