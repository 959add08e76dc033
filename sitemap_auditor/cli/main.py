"""The `sitemap-auditor` command line: audit URLs from a terminal, a file or a pipe."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from typing import IO, TYPE_CHECKING, Any, NoReturn

from sitemap_auditor import __version__
from sitemap_auditor.cli.outputs import colour_enabled, to_reader
from sitemap_auditor.cli.outputs import gone as reader_gone
from sitemap_auditor.cli.password import PASSWORD_ENV, credentials, one_host
from sitemap_auditor.core.codes import Status
from sitemap_auditor.core.errors import FetchErrorKind
from sitemap_auditor.core.issues import Issue, Kind
from sitemap_auditor.core.parser import is_html_page
from sitemap_auditor.core.text import shown_text, valid_text
from sitemap_auditor.core.urls import echoed_url

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
    from sitemap_auditor.audit.outcome import DataMap, Outcome
    from sitemap_auditor.audit.probe import Step
    from sitemap_auditor.core.interrupts import Interrupt

# Exit status by the worst outcome; usage errors use 64 (EX_USAGE) so they never read as a FAIL.
EXIT_CODES = {"SUCCESS": 0, "WARNING": 1, "FAIL": 2, "ERROR": 3}
EXIT_USAGE = 64
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report an interrupted command

_COLOURS = {
    "SUCCESS": "32",
    "WARNING": "33",
    "FAIL": "31",
    "ERROR": "35",
    "INFORMATION": "36",
}
_MARKS = {"SUCCESS": "✓", "WARNING": "!", "FAIL": "✗", "ERROR": "✗", "INFORMATION": "i"}

COMMANDS = """\
commands:
  sitemap-auditor deep URL   read every sitemap of a site and report its
                             findings, per file and line (see deep --help)
  sitemap-auditor demo       serve the embedded demo site on 127.0.0.1 and
                             audit it
"""

EPILOG = """\
examples:
  sitemap-auditor https://www.example.com/
      audit one site and print a readable report
  sitemap-auditor --json https://www.example.com/
      print the exact Lambda result as one JSON object
  sitemap-auditor --json https://www.example.com/ https://www.example.org/
      one JSON Lines record per URL: {"url": <the URL>, "result": <its result>}
  sitemap-auditor --input sites.txt --jobs 8 > report.txt
      audit every URL of sites.txt (one a line, # for comments), 8 at a time
  cat sites.txt | sitemap-auditor --json - > results.jsonl
      read the URLs from standard input
  sitemap-auditor --user editor https://staging.example.com/
      send Basic Auth; the password is prompted for, or read from
      $SITEMAP_AUDITOR_PASSWORD
  sitemap-auditor demo
      serve the embedded demo site on 127.0.0.1 and audit it

order: each result is printed, and flushed, as its audit finishes (the finishing
order, not the input's): every report and JSON Lines record names its URL, and
Ctrl-C keeps what was printed.
exit status: 0 all SUCCESS, 1 worst WARNING, 2 worst FAIL, 3 worst ERROR,
64 usage error, 130 interrupted.
colour: only on a terminal, never when NO_COLOR is set to a value.
"""


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Options' help wrapped between words only: never inside --allow-private-networks."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(
            " ".join(text.split()), width, break_long_words=False, break_on_hyphens=False
        )


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser(prog: str = "sitemap-auditor") -> argparse.ArgumentParser:
    """The argument parser, with an example for each option."""
    p = _Parser(
        prog=prog,
        description=textwrap.fill(
            "Find a site's XML sitemap (robots.txt, then the usual paths), parse it and check "
            "that its latest <lastmod> is recent, as the 37Audits Sitemap Auditor does.",
            78,
        )
        + "\n\n"
        + COMMANDS,
        epilog=EPILOG,
        formatter_class=_Formatter,
    )
    p.add_argument(
        "urls",
        nargs="*",
        metavar="URL",
        help="URLs to audit (e.g. https://www.example.com/); '-' reads them from standard input; "
        "'demo' alone audits the embedded demo site",
    )
    p.add_argument("-V", "--version", action="version", version=f"sitemap-auditor {__version__}")
    p.add_argument(
        "--demo",
        action="store_true",
        help="audit the embedded demo site (same as 'demo'; takes no URL)",
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
        help="print JSON: for one URL its exact Lambda result; for several, one JSON Lines "
        'record per URL, {"url": <the URL>, "result": <its Lambda result>}',
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
        help="audit N sites at once (e.g. --jobs 8; default 4); each result is printed as its "
        "audit finishes, in that order",
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


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


# When no candidate parsed and every candidate failed the same way for a reason that is not the
# site's sitemap, the report says that first: the documented "publish a sitemap" advice would
# send the reader the wrong way. (The Lambda result keeps its documented texts.) The causes of
# fetch errors are FetchErrorKind's table's.
_CAUSES: dict[Kind, str] = {k.issue_kind: k.cause for k in FetchErrorKind if k.cause is not None}

# Kinds that may stand beside a lead cause: other candidates' (or robots.txt's) HTTP statuses,
# the event's ignored preference.
_TOLERATED = {Kind.HTTP_STATUS, Kind.IGNORED_PREFERENCE}

# A candidate the site does not have: probe.py writes its issue as "HTTP <status>".
_NOT_FOUND = {"HTTP 404", "HTTP 410"}


def cause(issues: Sequence[Issue], candidates: Sequence[str] = ()) -> str | None:
    """What the report says first of a FAIL: why its candidates failed, when one reason stands
    out (a blocked address, DNS, ...), or the site's own files (every candidate missing, or an
    HTML page where the sitemap should be)."""
    causes = {i.kind for i in issues if i.kind in _CAUSES}
    others = {i.kind for i in issues if i.kind not in _CAUSES}
    if len(causes) == 1 and others <= _TOLERATED:
        return _CAUSES[causes.pop()]
    return _site_files(issues, candidates) if not causes else None


def _site_files(issues: Sequence[Issue], candidates: Sequence[str]) -> str | None:
    """The cause when the site's own files are what failed: no sitemap where it was looked for."""
    refused = [i for i in issues if i.subject in candidates]
    if not candidates or {i.subject for i in refused} != set(candidates):
        return None  # a candidate not refused (out of time), or none at all
    missing = [i for i in refused if i.kind is Kind.HTTP_STATUS and i.detail in _NOT_FOUND]
    pages = [i for i in refused if is_html_page(i)]
    if len(missing) + len(pages) != len(refused):
        return None
    if pages:
        return (
            "the site serves a web page (HTML) where its sitemap should be, at "
            f"{pages[0].subject}: a sitemap is an XML file with a <urlset> or <sitemapindex> root"
        )
    where = "the one place" if len(candidates) == 1 else f"any of the {len(candidates)} places"
    return f"the site has no sitemap at {where} the auditor looked: each answered not found (404)"


def _robots_state(data: DataMap, issues: Sequence[Issue]) -> str:
    """What robots.txt answered, or why it did not: "no answer" only when it was asked."""
    lists = "lists a sitemap" if data.robots_txt_lists_sitemap else "lists no sitemap"
    status = data.robots_txt_http_status
    if status is not None:
        return f"HTTP {status}, {lists}"
    kinds = {i.kind for i in issues if i.subject == data.robots_txt_url}
    if Kind.BLOCKED_ADDRESS in kinds:
        return "not asked: its address is not a public one"
    if Kind.OUT_OF_TIME in kinds:
        return "not asked: the audit ran out of time"
    return "no answer"


def render(url: str, outcome: Outcome, colour: bool) -> str:
    """A readable report of one audit's outcome (a site's text in it `shown_text`: no control
    character reaches the terminal)."""
    status = outcome.status
    lines = [f"{shown_text(echoed_url(url))}  {_colour(colour, status, status)}"]
    checks, data = outcome.checks, outcome.data
    if checks is None or data is None:
        lines.append(f"  {shown_text(outcome.message or '')}")
        return "\n".join(lines)
    issues = outcome.issues
    lead = cause(issues, data.candidate_sitemaps) if status is Status.FAIL else None
    if lead is not None:
        lines.append(f"  {_colour(colour, status, 'cause')}  {shown_text(lead)}")
    if data.site_base is not None:
        robots = shown_text(f"{data.robots_txt_url}  {_robots_state(data, issues)}")
        lines.append(f"  robots.txt  {robots}")
        if data.selected_sitemap_url:
            latest = data.latest_lastmod
            written = outcome.latest_lastmod_written
            if latest is not None and written is not None and written != latest:
                # As the file says it; a period without a time counts as its last second
                # (docs/contract.md §5), which the instant alone reads as a moment to come.
                if "T" not in written:
                    latest = f"{written} (counts as {latest}, the end of that period)"
                else:
                    latest = f"{written} ({latest})"
            said = shown_text(
                f"{data.selected_sitemap_url}  <{data.sitemap_type}>, "
                f"{_plural(data.entry_count or 0, 'entry', 'entries')}, "
                f"latest <lastmod> {latest or 'none'}"
            )
            lines.append(f"  sitemap     {said}")
        else:
            tried = len(data.candidate_sitemaps)
            if tried == 1:
                lines.append("  sitemap     the one candidate did not parse")
            else:
                lines.append(f"  sitemap     none of {tried} candidates parsed")
        lines.append(f"  window      {_plural(data.max_age_days, 'day')}")
    for check in checks:
        s = check.status
        mark = _MARKS.get(s, "?") + " " + check.code.number
        lines.append(f"  {_colour(colour, s, mark)}  {shown_text(check.message or '')}")
        if check.recommendation:
            lines.append(f"        -> {shown_text(check.recommendation)}")
    if data.issues:
        lines.append("  issues:")
        lines.extend(f"    - {shown_text(str(i))}" for i in data.issues)
    return "\n".join(lines)


def _read_urls(stream: IO[str]) -> list[str]:
    urls = []
    for number, line in enumerate(stream):
        # A byte order mark begins many lists saved on Windows, piped ones too.
        text = (line.removeprefix("\ufeff") if number == 0 else line).strip()
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


class _Line:
    """One line on standard error, on a terminal only, rewritten in place: a batch's progress,
    or what a single audit is waiting for. Erased before a result is printed, and at the end."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.enabled = hasattr(stream, "isatty") and stream.isatty()
        self.lock = threading.RLock()
        self._text = ""

    def _width(self) -> int:
        try:
            columns = os.get_terminal_size(self.stream.fileno()).columns
        except (AttributeError, OSError, ValueError):
            columns = 0
        columns = columns or 80  # a terminal that does not say its size (0): the usual 80
        return max(20, columns - 1)  # never wrapped: a wrapped line cannot be rewritten

    @property
    def text(self) -> str:
        """What the line shows now ("" when nothing)."""
        return self._text

    def show(self, text: str) -> None:
        """Put text on the line, in place of what it showed."""
        if not self.enabled:
            return
        with self.lock:
            self._text = text[: self._width()]
            self.stream.write("\r\033[K" + self._text)
            self.stream.flush()

    def clear(self) -> None:
        """Leave the terminal clean: the line erased."""
        with self.lock:
            if self.enabled and self._text:
                self.stream.write("\r\033[K")
                self.stream.flush()
            self._text = ""


class _Progress:
    """A batch's progress bar on the line."""

    def __init__(self, total: int, line: _Line) -> None:
        self.total = total
        self.done = 0
        self.line = line
        self._lock = threading.Lock()

    def step(self) -> None:
        with self._lock:
            self.done += 1
            if self.done < self.total:
                width = 30
                filled = width * self.done // self.total
                self.line.show(f"[{'#' * filled}{'-' * (width - filled)}] {self.done}/{self.total}")
            else:
                self.line.clear()


# A single audit says what it is waiting for once it has taken this long.
WAITING_AFTER_S = 1.0


def waiting_text(step: Step, seconds: float) -> str:
    """What the line says of the fetch an audit has been waiting for for seconds."""
    what = (
        "robots.txt" if step.candidate == 0 else f"sitemap candidate {step.candidate} of {step.of}"
    )
    return f"waiting for {what}: {step.url} ({seconds:.0f} s)"


class _Waiting:
    """A single audit's line: after a second, what it is waiting for, rewritten as it goes on."""

    def __init__(self, line: _Line) -> None:
        self.line = line
        self.started = time.monotonic()
        self._step: tuple[Step, float] | None = None
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._tick, name="waiting", daemon=True)

    def start(self) -> _Waiting:
        if self.line.enabled:
            self._thread.start()
        return self

    def tell(self, step: Step) -> None:
        self._step = (step, time.monotonic())

    def _tick(self) -> None:
        while not self._stopped.wait(0.25):
            now = time.monotonic()
            current = self._step
            if current is None or now - self.started < WAITING_AFTER_S:
                continue
            with self.line.lock:
                if not self._stopped.is_set():
                    self.line.show(waiting_text(current[0], now - current[1]))

    def stop(self) -> None:
        with self.line.lock:
            self._stopped.set()
            self.line.clear()


def _summary(statuses: Iterable[str]) -> str:
    counts = dict.fromkeys(EXIT_CODES, 0)
    for s in statuses:
        counts[s] = counts.get(s, 0) + 1
    total = sum(counts.values())
    return f"{total} audited: " + ", ".join(f"{n} {s}" for s, n in counts.items())


def main(
    argv: Sequence[str] | None = None,
    *,
    json_by_default: bool = False,
    interrupt: Interrupt | None = None,
) -> int:
    """Run the command line; return the exit status. interrupt: the deep audit's signal
    handling, when the caller installed it already (cli/start.py)."""
    argv = sys.argv[1:] if argv is None else argv
    if list(argv[:1]) == ["deep"]:  # the deep audit: sitemap_auditor/cli/deep.py
        from sitemap_auditor.cli import deep as deep_cli

        return deep_cli.main(argv[1:], interrupt)
    parser = build_parser("python -m sitemap_auditor" if json_by_default else "sitemap-auditor")
    args = parser.parse_args(argv)
    stdout, stderr = sys.stdout, sys.stderr
    as_json = args.json or json_by_default
    demo = args.demo or args.urls[:1] == ["demo"]
    if demo and (args.urls not in ([], ["demo"]) or args.input):
        parser.error("demo audits the embedded demo site and takes no URL")
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

    if args.user is not None:
        one_host(urls, parser)
    creds = credentials(args.user, parser) if args.user is not None else None

    from sitemap_auditor.audit import config
    from sitemap_auditor.core import errors

    try:
        settings = config.load(os.environ)
    except errors.ConfigError as e:
        stderr.write(f"sitemap-auditor: {e}\n")
        return EXIT_USAGE
    for warning in config.setting_warnings(os.environ):
        stderr.write(f"sitemap-auditor: warning: {warning.message}\n")
    from dataclasses import replace

    if args.max_age_days is not None:
        settings = replace(settings, max_age_days=args.max_age_days)
    if args.allow_private_networks or demo:
        settings = replace(settings, allow_private_networks=True)
    if args.no_share:
        settings = replace(settings, share_seconds=0)

    from sitemap_auditor.audit import observability

    observability.quiet(verbose=args.verbose)
    # The settings' warnings were said above, in words: not again as a log line.
    with observability.muted():
        from sitemap_auditor import handler
        from sitemap_auditor.audit import probe

    def audit(url: str, watcher: Callable[[Step], None] | None) -> Answer:
        event: dict[str, Any] = {"id": "cli", "url": url}
        if creds is not None:
            event["basicAuth"] = {"username": creds.username, "password": creds.password}
        found: list[Outcome] = []
        if watcher is None:
            result = handler.run(event, None, settings, observe=found.append)
        else:
            with probe.watching(watcher):
                result = handler.run(event, None, settings, observe=found.append)
        return result, found[0]

    printer = _Printer(stdout, stderr, as_json, colour_enabled(stdout))
    try:
        if demo:
            from sitemap_auditor.cli import demo as demo_site

            with demo_site.serve() as base:
                statuses = printer.run([base + "/"], audit, 1)
        else:
            statuses = printer.run(urls, audit, args.jobs)
    except ReaderGoneError as gone:
        # As a single audit's does: quietly, by the worst outcome printed or not, and with no
        # further write to the closed pipe (the interpreter's own flush at exit included).
        printer.stop()
        reader_gone(stdout)
        os._exit(max(EXIT_CODES.get(s, 3) for s in gone.statuses))
    except KeyboardInterrupt:
        # Every result printed so far was flushed as it came: it stays where it went.
        printer.stop()
        stderr.write("interrupted\n")
        stderr.flush()
        stdout.flush()
        # Audits still running would hold the exit for up to their 30 s deadlines.
        os._exit(EXIT_INTERRUPTED)
    if len(statuses) > 1:
        summary = stderr if as_json else stdout
        with to_reader(summary):
            summary.write(_summary(statuses) + "\n")
            summary.flush()
    with to_reader(stdout):
        stdout.flush()
    return max(EXIT_CODES.get(s, 3) for s in statuses)


Answer = tuple[dict[str, Any], "Outcome"]


class _Printer:
    """Runs the audits and prints each result as its audit finishes, flushed at once."""

    def __init__(self, stdout: IO[str], stderr: IO[str], as_json: bool, colour: bool) -> None:
        self.stdout = stdout
        self.as_json = as_json
        self.colour = colour
        self.line = _Line(stderr)
        self.waiting: _Waiting | None = None

    def stop(self) -> None:
        """Leave standard error clean, and nothing more written to it by the status line."""
        if self.waiting is not None:
            self.waiting.stop()
        self.line.clear()

    def run(
        self,
        urls: Sequence[str],
        audit: Callable[[str, Callable[[Step], None] | None], Answer],
        jobs: int,
    ) -> list[str]:
        """Audit urls, jobs at a time; return their statuses in the order they finished."""
        batch = len(urls) > 1
        progress = _Progress(len(urls), self.line)
        waiting = self.waiting = None if batch else _Waiting(self.line).start()

        def one(url: str) -> Answer:
            try:
                return audit(url, waiting.tell if waiting is not None else None)
            finally:
                if waiting is not None:
                    waiting.stop()
                elif batch:
                    progress.step()

        statuses: list[str] = []
        pool = ThreadPoolExecutor(max_workers=min(jobs, len(urls)))
        futures: dict[Future[Answer], str] = {pool.submit(one, url): url for url in urls}
        for future in as_completed(futures):
            result, outcome = future.result()
            statuses.append(result["status"])
            if not self.print(futures[future], result, outcome, batch):
                # The reader is gone (`| head -1`): no audit left is worth its fetches.
                pool.shutdown(wait=False, cancel_futures=True)
                raise ReaderGoneError(statuses)
        pool.shutdown()
        return statuses

    def print(self, url: str, result: dict[str, Any], outcome: Outcome, batch: bool) -> bool:
        """Print one audit's result; False when standard output's reader is gone."""
        if self.as_json:
            # A batch's JSON Lines record names its input URL (README, "Using it"); a single
            # audit prints the exact Lambda result.
            record = {"url": echoed_url(url), "result": result} if batch else result
            text = json.dumps(record, ensure_ascii=False) + "\n"
        else:
            text = render(url, outcome, self.colour) + "\n\n"
        with self.line.lock:
            # The progress bar shares the terminal: erased first, drawn again by the next step.
            shown = self.line.text
            self.line.clear()
            try:
                self.stdout.write(text)
                self.stdout.flush()
            except BrokenPipeError:
                return False
            if shown:
                self.line.show(shown)
        return True


class ReaderGoneError(Exception):
    """Standard output's reader closed it (a pipe into `head`): the statuses so far."""

    def __init__(self, statuses: list[str]) -> None:
        super().__init__("standard output closed")
        self.statuses = statuses


def exit_with(status: int) -> NoReturn:
    """End the process with status once its output is out, without the interpreter's teardown.

    By then the command has closed what it opened and its threads and helper are done; tearing
    down the few hundred modules it imported took about 30 ms, a tenth of a small site's deep
    audit. (The deep audit already leaves this way after Ctrl-C.)"""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader gone, or a stream closed
            stream.flush()
    os._exit(status)


def entry_point() -> None:
    """The `sitemap-auditor` console script."""
    exit_with(main())
