"""`sitemap-auditor deep URL`: the deep audit from a terminal, with its reports."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any, NoReturn

from sitemap_auditor.cli.password import PASSWORD_ENV, credentials, one_host
from sitemap_auditor.core import site as sites
from sitemap_auditor.core.interrupts import Interrupt
from sitemap_auditor.core.request_headers import ExtraHeaders
from sitemap_auditor.core.text import shown_text, valid_text
from sitemap_auditor.core.urls import echoed_url
from sitemap_auditor.deep.kinds import Severity

if TYPE_CHECKING:
    from sitemap_auditor.deep.options import Progress
    from sitemap_auditor.deep.walk import Walk

__all__ = ["EPILOG", "EXIT_CODES", "ProgressLine", "build_parser", "main"]

# Exit status by the worst finding (none above a notice: 0); 64 and 130 as the audit's own.
EXIT_CODES = {None: 0, Severity.NOTICE: 0, Severity.WARNING: 1, Severity.ERROR: 2}
EXIT_USAGE = 64
EXIT_INTERRUPTED = 130

EPILOG = """\
examples:
  sitemap-auditor deep https://www.example.com/
      read every sitemap of the site and print the tree and the findings, most harmful first
  sitemap-auditor deep --json https://www.example.com/ > audit.json
      the JSON document (format sitemap-auditor-deep, version 6)
  sitemap-auditor deep --csv out/ --urls urls.jsonl --html report.html https://www.example.com/
      also sitemaps.csv, findings.csv and finding_urls.csv (every affected URL) in out/,
      every listed URL as JSON Lines, an HTML page
  sitemap-auditor deep --max-sitemaps 20000 --max-seconds 3600 https://www.example.com/
      raise the walk's limits
  sitemap-auditor deep --demo --html report.html
      serve the embedded demo site on 127.0.0.1 and audit it
  sitemap-auditor deep --user-agent 'Mozilla/5.0 (compatible; Audit/1.0)' https://www.example.com/
      send this User-Agent (and any --header NAME:VALUE) with every request
  sitemap-auditor deep --compare last-month.json https://www.example.com/
      findings new, resolved and changed since an earlier --json document
  sitemap-auditor deep --input sites.txt --jobs 4 --json > audits.jsonl
      every site of sites.txt, 4 at a time, one JSON document a line

exit status: 0 no finding above a notice, 1 a warning, 2 an error (with --pages, the
pages' findings count too), 64 usage error, 130 interrupted by Ctrl-C or SIGINT, 143 by
SIGTERM (what was read is reported first).
It reads sitemaps and robots.txt only; with --pages, it also requests each listed page once.
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser(prog: str = "sitemap-auditor deep") -> argparse.ArgumentParser:
    """The deep audit's argument parser."""
    from sitemap_auditor.deep.walk import MAX_SITEMAPS_CEILING, Limits

    d = Limits()
    p = _Parser(
        prog=prog,
        description="Read every sitemap of a site (robots.txt's Sitemap: lines, or the usual "
        "paths, then every index's children) and check each as search engines do.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "url",
        metavar="URL",
        nargs="?",
        help="a page of the site (e.g. https://www.example.com/); 'demo' audits the demo site",
    )
    p.add_argument(
        "--demo",
        action="store_true",
        help="audit the embedded demo site, served on 127.0.0.1 (same as 'demo'; takes no URL)",
    )
    p.add_argument("--json", action="store_true", help="print the JSON document, not the report")
    p.add_argument(
        "--csv",
        metavar="DIR",
        help="write sitemaps.csv, findings.csv and finding_urls.csv (every affected URL) "
        "(and pages.csv, with --pages) into DIR",
    )
    p.add_argument(
        "--urls", metavar="FILE", help="write every listed URL to FILE as JSON Lines, as read"
    )
    p.add_argument("--html", metavar="FILE", help="write the HTML report to FILE")
    p.add_argument(
        "--max-sitemaps",
        type=int,
        default=d.max_sitemaps,
        metavar="N",
        help=f"sitemaps fetched at most (default {d.max_sitemaps:,}, up to "
        f"{MAX_SITEMAPS_CEILING:,})",
    )
    p.add_argument(
        "--max-depth",
        type=int,
        default=d.max_depth,
        metavar="N",
        help=f"levels of indexes followed (default {d.max_depth})",
    )
    p.add_argument(
        "--max-bytes",
        type=int,
        default=d.max_bytes,
        metavar="N",
        help=f"uncompressed bytes read in all (default {d.max_bytes:,})",
    )
    p.add_argument(
        "--max-seconds",
        type=float,
        default=d.max_seconds,
        metavar="S",
        help=f"time for the whole walk (default {d.max_seconds:g})",
    )
    p.add_argument(
        "--concurrency",
        type=int,
        default=d.concurrency,
        metavar="N",
        help=f"fetches at once, 1 to 32 (default {d.concurrency}): the walk's at most 4 to any "
        "one host, the page check's all of them (it asks one site, paced by --rate and "
        "Crawl-delay)",
    )
    p.add_argument(
        "--max-dedupe-urls",
        type=int,
        default=d.max_dedupe_urls,
        metavar="N",
        help=f"URLs looked through for duplicates, at most 32 bytes each past 16 MiB "
        f"(default {d.max_dedupe_urls:,})",
    )
    p.add_argument(
        "--max-age-days",
        type=int,
        default=None,
        metavar="N",
        help="the Lambda verdict's freshness window (default 7)",
    )
    p.add_argument(
        "-u",
        "--user",
        metavar="USER",
        help=f"Basic Auth user for the site's own origin; password from ${PASSWORD_ENV} or asked",
    )
    p.add_argument(
        "--allow-private-networks",
        action="store_true",
        help="allow loopback and private addresses (local development only)",
    )
    _add_request_options(p)
    _page_options(p)
    return p


# --- the page check (`--pages`, deep/pages/) ------------------------------------------------------


def _page_options(p: argparse.ArgumentParser) -> None:
    """The page check's options; --concurrency and --max-seconds bound it too."""
    from sitemap_auditor.deep.pages import DEFAULT_MAX_PAGES

    g = p.add_argument_group("the pages the sitemaps list (--pages)")
    g.add_argument(
        "--pages",
        action="store_true",
        help="request every listed URL once and say which ones search engines will not index",
    )
    g.add_argument(
        "--max-pages",
        type=int,
        default=DEFAULT_MAX_PAGES,
        metavar="N",
        help=f"pages checked at most, an even sample past it (default {DEFAULT_MAX_PAGES:,}; "
        "0: no limit)",
    )
    g.add_argument("--rate", type=float, metavar="R", help="page requests per second, at most")
    g.add_argument(
        "--pages-out", metavar="FILE", help="write one JSON line per page to FILE as it is checked"
    )
    g.add_argument(
        "--resume",
        action="store_true",
        help="with --pages-out: check only the URLs not yet in FILE, and count those that are",
    )


def _page_check(args: argparse.Namespace, found: Any, spool: Any, stderr: IO[str]) -> Any:
    """Run the page check over the walk's URLs; the `pages` key of the document."""
    from sitemap_auditor.deep.pages.check import PageOptions, check_pages
    from sitemap_auditor.fetching.fetch import FetchPolicy

    shown = stderr.isatty()

    def progress(done: int, total: int, seconds: float) -> None:
        if shown:
            rate = done / seconds if seconds > 0 else 0.0
            left = (total - done) / rate if rate > 0 else 0.0
            stderr.write(f"\r\x1b[Kpages {done:,}/{total:,}, {rate:.0f}/s, {left:.0f} s left")
            stderr.flush()

    def defect(url: str, error: str) -> None:
        # One line, once a run: the rows (and the document's pages.internalErrors) count them.
        stderr.write(
            ("\r\x1b[K" if shown else "")
            + f"sitemap-auditor deep: page check: {error} on {url}; its row says so, the other "
            "pages are checked (a defect of this tool: please report it)\n"
        )
        stderr.flush()

    options = PageOptions(
        max_pages=args.max_pages,
        concurrency=args.concurrency,
        rate=args.rate,
        max_seconds=args.max_seconds,
        pages_out=args.pages_file,
        resume=args.resume,
        on_progress=progress,
        on_defect=defect,
        **({"user_agent": args.user_agent} if args.user_agent else {}),
    )
    policy = FetchPolicy(
        origin=found.site.origin(),
        credentials=args.credentials,
        allow_private_networks=args.allow_private_networks or args.demo_site,
        extra_headers=args.extra_headers,
    )
    summary = check_pages(spool, found.site.robots_txt_url, policy, options)
    if shown:
        stderr.write("\r\x1b[K")
    return summary


def _pages_in(
    interrupt: Interrupt, args: argparse.Namespace, found: Any, spool: Any, stderr: IO[str]
) -> Any:
    """_pages_after with the signals let in (core/interrupts.py): the page check keeps what it
    checked when one comes; None when it stops before it began."""
    try:
        with interrupt.opened():
            return _pages_after(args, found, spool, stderr)
    except KeyboardInterrupt:
        return None


def _pages_after(args: argparse.Namespace, found: Any, spool: Any, stderr: IO[str]) -> Any:
    """The `pages` key when --pages was given and the walk was not interrupted; else None."""
    if spool is None:
        return None
    try:
        if found.stopped_by == "interrupted":
            return None
        return _page_check(args, found, spool, stderr).document()
    finally:
        spool.close()


class ProgressLine:
    """One line on standard error, rewritten as the walk goes: only on a terminal."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.enabled = hasattr(stream, "isatty") and stream.isatty()
        self._lock = threading.Lock()
        self._width = 0
        self._started = time.monotonic()

    def __call__(self, p: Progress) -> None:
        if not self.enabled:
            return
        elapsed = int(time.monotonic() - self._started)
        urls = p.urls + p.reading  # those of the files being read too
        text = (
            f"{elapsed // 60}:{elapsed % 60:02d}  "
            f"{p.done:,} sitemap{'' if p.done == 1 else 's'} done, {p.queued:,} queued, "
            f"{urls:,} URL{'' if urls == 1 else 's'}, {p.bytes / 1e6:,.1f} MB"
        )
        with self._lock:
            self.stream.write("\r" + text.ljust(self._width))
            self._width = len(text)
            self.stream.flush()

    def erase(self) -> None:
        if self.enabled and self._width:
            with self._lock:
                self.stream.write("\r" + " " * self._width + "\r")
                self.stream.flush()


def _terminal_width(stream: IO[str]) -> int | None:
    """The columns of the terminal stream writes to, None when it is a file or a pipe (whose
    reader gets a line each, to search and cut)."""
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    return shutil.get_terminal_size().columns


# --- Request and address options (issue 35) --------------------------------------------------


def _add_request_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--user-agent",
        metavar="TEXT",
        help="the User-Agent of every request, robots.txt's and every sitemap's "
        "(e.g. --user-agent 'Mozilla/5.0 (compatible; Googlebot/2.1)'; default 37AuditsBot)",
    )
    p.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="NAME:VALUE",
        help="a header added to every request, repeatable (e.g. --header 'Accept-Language: "
        "fr'); Authorization and Cookie go to the site's own origin only",
    )
    p.add_argument(
        "--input",
        metavar="FILE",
        help="audit every site of FILE (one URL a line, blank lines and # comments ignored; "
        "'-' for standard input): one JSON Lines document a site with --json, one folder a "
        "site under --csv DIR, one page a site in the folder --html DIR",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help=f"with --input, sites audited at once (default 1, at most {MAX_JOBS}); the sites "
        "of one host are audited one after another",
    )
    p.add_argument(
        "--compare",
        metavar="OLD.json",
        help="compare with an earlier --json document of the site: findings new, resolved and "
        "changed, URL counts per sitemap (e.g. --compare last-month.json)",
    )


MAX_JOBS = 16
MAX_INPUT_SITES = 100_000


def _asking(interrupt: Interrupt | None) -> contextlib.AbstractContextManager[None]:
    """A wait on the person running the command (the password's prompt, `--input -` reading
    standard input), which signals end at once: they are held everywhere else until the
    walk's own waits (core/interrupts.py). One that came before (during the start-up, or
    while --compare's document was read) is raised on entering it (KeyboardInterrupt)."""
    return interrupt.opened() if interrupt is not None else contextlib.nullcontext()


def _input_urls(path: str, stdin: IO[str]) -> list[str]:
    """The URLs of an --input file, in order, each once (two spellings of one URL, `HTTPS://A.
    example:443` and `https://a.example/`, are one: the first is kept); raises OSError or
    ValueError."""
    from sitemap_auditor.core import urls

    found: dict[str, str] = {}
    with open(path, encoding="utf-8-sig") if path != "-" else _kept_open(stdin) as f:
        for number, raw in enumerate(f, 1):
            # A byte order mark begins many files saved on Windows, piped ones too.
            line = (raw.removeprefix("\ufeff") if number == 1 else raw).strip()
            if line and not line.startswith("#"):
                url = valid_text(line)
                try:
                    key = urls.resource_key(urls.read(url))
                except ValueError:
                    key = url  # refused later, with the walk's own words
                found.setdefault(key, url)
                if len(found) > MAX_INPUT_SITES:
                    raise ValueError(f"more than {MAX_INPUT_SITES:,} sites (line {number})")
    return list(found.values())


class _kept_open:  # noqa: N801 -- used as a context manager like open()
    """Standard input as a context manager that does not close it."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def __enter__(self) -> IO[str]:
        return self.stream

    def __exit__(self, *exc: object) -> None:
        return None


def _site_name(url: str, taken: set[str]) -> str:
    """A file name for a site's outputs: its host and port, then -2, -3 ... when taken."""
    from sitemap_auditor.core import urls

    try:
        where = urls.read(url)
        default = 443 if where.scheme == "https" else 80
        base = where.host + (f"_{where.port}" if where.port != default else "")
    except ValueError:
        base = "site"
    base = "".join(c if c.isalnum() or c in ".-_" else "_" for c in base)[:100] or "site"
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    taken.add(name)
    return name


def _limits(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Any:
    """The walk's limits the options give; a usage error when one is out of its range."""
    from sitemap_auditor.deep.walk import Limits

    try:
        return Limits(
            max_sitemaps=args.max_sitemaps,
            max_depth=args.max_depth,
            max_bytes=args.max_bytes,
            max_seconds=args.max_seconds,
            concurrency=args.concurrency,
            max_dedupe_urls=args.max_dedupe_urls,
        )
    except ValueError as e:
        # Each message starts with the limit's name, which the option spells with dashes.
        name, _, rest = str(e).partition(" ")
        parser.error(f"--{name.replace('_', '-')} {rest}")


def _check_outputs(
    parser: argparse.ArgumentParser, files: dict[str, str | None], folders: dict[str, str | None]
) -> None:
    """A usage error, before anything is fetched, for a report that could not be written."""
    from sitemap_auditor.cli.outputs import file_problem, folder_problem

    checks = [(o, p, file_problem) for o, p in files.items()]
    checks += [(o, p, folder_problem) for o, p in folders.items()]
    for option, path, problem in checks:
        said = problem(path) if path else None
        if said is not None:
            parser.error(f"cannot write {option} {path}: {said}")


def run_many(
    args: argparse.Namespace, parser: argparse.ArgumentParser, interrupt: Interrupt | None = None
) -> int:
    """`deep --input FILE [--jobs N]`: every site of FILE, one document each; the exit status
    is the worst of them. After SIGINT or SIGTERM, the walks running stop with their partial
    documents, no other site is begun, and the status is 130 or 143."""
    from concurrent.futures import ThreadPoolExecutor
    from contextlib import nullcontext
    from dataclasses import replace

    from sitemap_auditor.cli.outputs import gone, write_whole
    from sitemap_auditor.core import urls
    from sitemap_auditor.deep import document as documents
    from sitemap_auditor.deep.finding_rows import FindingRows
    from sitemap_auditor.deep.reports import csv_report, html_report, text_report
    from sitemap_auditor.deep.walk import Options, walk

    if args.url is not None or args.demo:
        parser.error("--input names the sites: give no URL (nor --demo) beside it")
    for option in ("urls", "compare"):
        if getattr(args, option) is not None:
            parser.error(f"--{option} audits one site: not with --input")
    if args.pages:
        parser.error("--pages checks one site's pages: not with --input")
    if not 1 <= args.jobs <= MAX_JOBS:
        parser.error(f"--jobs must be between 1 and {MAX_JOBS}")
    limits = _limits(args, parser)
    _check_outputs(parser, {}, {"--html": args.html, "--csv": args.csv})
    try:
        with _asking(interrupt):  # standard input waits for its next line
            sites = _input_urls(args.input, sys.stdin)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        status = interrupt.exit_status if interrupt is not None else None
        return status or EXIT_INTERRUPTED
    except OSError as e:
        parser.error(f"--input {args.input}: {e.strerror or e}")
    except ValueError as e:
        parser.error(f"--input {args.input}: {e}")
    if not sites:
        parser.error(f"--input {args.input} names no site")
    if args.max_age_days is not None and args.max_age_days < 1:
        parser.error("--max-age-days must be at least 1")
    if not args.allow_private_networks:
        for url in sites:
            refused = private_address(url)
            if refused is not None:
                parser.error(
                    f"{echoed_url(url)} is refused: {refused}; add "
                    "--allow-private-networks to audit a private or loopback address (local "
                    "development only)"
                )
    if args.user:
        one_host(sites, parser)
    try:
        with _asking(interrupt):  # a signal ends the prompt: "no password given"
            creds = credentials(args.user, parser) if args.user else None
    except KeyboardInterrupt:
        creds = None  # one that came before: no site is begun (`one`)
    options = Options(
        limits=limits,
        credentials=creds,
        allow_private_networks=args.allow_private_networks,
        headers=request_headers(args, parser),
        max_age_days=args.max_age_days or 7,
        interrupt=interrupt,
    )
    taken: set[str] = set()
    names = {url: _site_name(url, taken) for url in sites}
    # Polite per host: the sites of one host run one after another, in the file's order.
    by_host: dict[str, list[str]] = {}
    for url in sites:
        try:
            host = urls.read(url).host
        except ValueError:
            host = url
        by_host.setdefault(host, []).append(url)
    lock = threading.Lock()
    worst = 0
    stdout, stderr = sys.stdout, sys.stderr

    # A reader gone (`| head -1`) with no file to write: no other site is begun, as the
    # sitemap-auditor batch does; with --csv or --html the files are still wanted.
    reader_gone = threading.Event()
    only_printed = not (args.csv or args.html)

    def one(url: str) -> None:
        nonlocal worst
        if interrupt is not None and interrupt.requested.is_set():
            return  # stopped: no other site is begun
        if only_printed and reader_gone.is_set():
            return
        with FindingRows() if args.csv else nullcontext() as rows:
            try:
                found = walk(url, replace(options, finding_rows=rows))
            except ValueError as e:
                with lock:
                    stderr.write(f"{parser.prog}: {echoed_url(url)!r}: {e}\n")
                    worst = max(worst, EXIT_USAGE)
                return
            doc = documents.build(found)
            if rows is not None:
                folder = os.path.join(args.csv, names[url])
                csv_report.write(doc, folder)
                _finding_urls(doc, rows, folder, found.secrets, interrupt, stderr, lock)
        name = names[url]
        if args.html:
            os.makedirs(args.html, exist_ok=True)
            with open(os.path.join(args.html, name + ".html"), "w", encoding="utf-8") as f:
                f.write(html_report.render(doc))
        status = EXIT_CODES[documents.worst_severity(doc)]
        with lock:
            worst = max(worst, status)
            if reader_gone.is_set():
                return
            try:
                if args.json:
                    write_whole(stdout, json.dumps(doc, ensure_ascii=False) + "\n")
                else:
                    write_whole(stdout, text_report.render(doc, False) + "\n\n")
            except BrokenPipeError:
                gone(stdout)
                reader_gone.set()

    def host_in_turn(group: list[str]) -> None:
        for url in group:
            one(url)

    with ThreadPoolExecutor(max_workers=args.jobs, thread_name_prefix="site") as pool:
        for done in [pool.submit(host_in_turn, g) for g in by_host.values()]:
            done.result()
    if interrupt is not None and interrupt.exit_status is not None:
        stderr.write("stopped: interrupted; the documents cover what was read\n")
        return interrupt.exit_status
    return worst


def _finding_urls(
    doc: Any,
    rows: Any,
    folder: str,
    secrets: Any,
    interrupt: Interrupt | None,
    stderr: IO[str],
    lock: Any = None,
) -> None:
    """finding_urls.csv, which a signal that comes while its rows are sorted (a minute for
    millions) stops: the file is left out, said on stderr, and the document is written."""
    from sitemap_auditor.deep.finding_rows import StoppedError
    from sitemap_auditor.deep.reports import finding_urls

    stop = None if interrupt is None else interrupt.since_now()
    try:
        finding_urls.write(doc, rows, folder, secrets, stop=stop)
    except StoppedError:
        with lock if lock is not None else contextlib.nullcontext():
            stderr.write(
                f"{os.path.join(folder, finding_urls.NAME)} was not written: interrupted\n"
            )


def previous_document(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Any:
    """The --compare document, read before the walk; a usage error when it cannot be used."""
    if args.compare is None:
        return None
    from sitemap_auditor.deep.compare import load_previous

    try:
        previous = load_previous(args.compare)
    except ValueError as e:
        parser.error(f"--compare {args.compare}: {e}")
    # Another site's document would show every finding of one as resolved and of the other as
    # new: said at once (a site that moved to https or www is still compared, as asked).
    before = previous.get("siteBase")
    try:
        site = sites.resolve(args.url) if args.url not in (None, "demo") else None
    except ValueError:
        site = None
    now = site.url if site is not None else None
    if isinstance(before, str) and now is not None and before != now:
        other = shown_text(echoed_url(before))[:200]
        sys.stderr.write(
            f"warning: --compare {args.compare} is a document of {other}, not of {now}: its "
            "findings are compared as if they were this site's\n"
        )
    return previous


def request_headers(args: argparse.Namespace, parser: argparse.ArgumentParser) -> ExtraHeaders:
    """The headers --user-agent and --header give, checked; a usage error when one is wrong."""
    from sitemap_auditor.core.request_headers import parse_header

    pairs: list[tuple[str, str]] = []
    try:
        for text in args.header:
            pairs.append(parse_header(text))
        if args.user_agent is not None:
            pairs.append(parse_header("User-Agent:" + args.user_agent))
        headers = ExtraHeaders.of(pairs)
    except ValueError as e:
        parser.error(f"--header: {e}")
    if args.user is not None and headers.has("Authorization"):
        parser.error("give --user or an Authorization header, not both")
    return headers


def private_address(url: str, resolver: Any = None) -> str | None:
    """Why url's host is an address the audit refuses without --allow-private-networks (a
    loopback or private one), or None: the guard's own check, run once before the walk so that
    such a site is a usage error, not a page of findings about files never fetched."""
    from sitemap_auditor.core import urls
    from sitemap_auditor.core.errors import FetchError, FetchErrorKind
    from sitemap_auditor.fetching.guard import Guard, system_resolver

    try:
        where = urls.read(valid_text(url))
    except ValueError:
        return None  # the walk says why the URL cannot be audited
    guard = Guard(time.monotonic() + 10.0, 10.0, resolver or system_resolver)
    try:
        guard.checked_addresses(where.host, where.port)
    except FetchError as e:
        return e.detail if e.kind is FetchErrorKind.BLOCKED else None
    except OSError:
        return None  # a name that does not resolve: the walk reports it
    return None


# --- End of the request and address options ---------------------------------------------------


def main(argv: Sequence[str] | None = None, interrupt: Interrupt | None = None) -> int:
    """Run `sitemap-auditor deep`; return the exit status. interrupt: signal handling the
    caller installed already (and holds); without it, it is installed here."""
    from sitemap_auditor.deep.walk import Options, UrlRecord, walk

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.input is not None:
        return run_many(args, parser, interrupt)
    stderr = sys.stderr
    demo = args.demo or args.url == "demo"
    if demo and args.url not in (None, "demo"):
        parser.error("--demo audits the embedded demo site and takes no URL")
    if not demo and args.url is None:
        parser.error("no URL given (name one, or use --demo)")
    if not demo and not args.allow_private_networks:
        refused = private_address(args.url)
        if refused is not None:
            parser.error(
                f"{echoed_url(args.url)} is refused: {refused}; add "
                "--allow-private-networks to audit a private or loopback address (local "
                "development only)"
            )
    limits = _limits(args, parser)
    if args.max_age_days is not None and args.max_age_days < 1:
        parser.error("--max-age-days must be at least 1")
    headers = request_headers(args, parser)
    args.extra_headers = headers
    previous = previous_document(args, parser)
    try:
        with _asking(interrupt):  # a signal ends the prompt: "no password given"
            creds = credentials(args.user, parser) if args.user is not None else None
    except KeyboardInterrupt:
        # One that came before the password was read: the walk stops at its first wait,
        # before any request, with its (empty) partial document, as without --user.
        creds = None
    args.credentials, args.demo_site = creds, demo
    if args.max_pages < 0 or (args.rate is not None and not 0 < args.rate < math.inf):
        parser.error("--max-pages must be >= 0 and --rate a number > 0")
    if (args.pages_out or args.resume) and not args.pages:
        parser.error("--pages-out and --resume go with --pages")
    if args.resume and not args.pages_out:
        parser.error("--resume needs --pages-out FILE")
    _check_outputs(
        parser,
        {"--html": args.html, "--pages-out": args.pages_out, "--urls": args.urls},
        {"--csv": args.csv},
    )
    spool = None
    if args.pages:
        from sitemap_auditor.deep.pages.spool import UrlSpool

        spool = UrlSpool()
    rows = None
    if args.csv:
        from sitemap_auditor.deep.finding_rows import FindingRows

        rows = FindingRows()  # finding_urls.csv's rows, on disk as the walk counts them
    args.finding_rows = rows
    args.pages_file = args.pages_out
    scratch = None
    if args.pages and args.csv and not args.pages_out:
        fd, scratch = tempfile.mkstemp(prefix="pages-", suffix=".jsonl")  # pages.csv's rows
        os.close(fd)
        args.pages_file = scratch

    urls_out: IO[str] | None = None
    lock = threading.Lock()

    def on_listed(u: UrlRecord) -> None:  # as listed: the page check asks for these
        assert spool is not None
        spool.add(u.url, u.sitemap, u.lastmod)

    def on_url(u: UrlRecord) -> None:  # credentials replaced: --urls shows these
        assert urls_out is not None
        line = {"url": u.url, "sitemap": u.sitemap, "line": u.line, "lastmod": u.lastmod}
        with lock:
            urls_out.write(json.dumps(line, ensure_ascii=False) + "\n")

    if args.urls:
        try:
            urls_out = open(args.urls, "w", encoding="utf-8")  # noqa: SIM115 -- closed below
        except OSError as e:
            stderr.write(f"{parser.prog}: cannot write --urls {args.urls}: {e.strerror or e}\n")
            return EXIT_USAGE
    progress = ProgressLine(stderr)
    restore = None
    if interrupt is None:
        interrupt = Interrupt()
        if threading.current_thread() is threading.main_thread():
            restore = interrupt.install()
            interrupt.hold()
    options = Options(
        interrupt=interrupt,
        limits=limits,
        credentials=creds,
        allow_private_networks=args.allow_private_networks or demo,
        headers=headers,
        max_age_days=args.max_age_days or 7,
        on_url=on_url if urls_out is not None else None,
        on_listed=on_listed if spool is not None else None,
        on_progress=progress,
        finding_rows=rows,
    )
    # SIGINT and SIGTERM stop the walk where it can stop cleanly (core/interrupts.py); once
    # it has stopped, they are only recorded: the partial document is written whole.
    try:
        try:
            if demo:
                from sitemap_auditor.cli import demo as demo_site

                with demo_site.serve() as base:
                    found = walk(base + "/", options)
                    pages = _pages_in(interrupt, args, found, spool, stderr)
            else:
                found = walk(valid_text(args.url), options)
                pages = _pages_in(interrupt, args, found, spool, stderr)
        finally:
            if urls_out is not None:
                urls_out.close()
        return _report(args, found, previous, interrupt, progress, pages, scratch)
    except ValueError as e:
        stderr.write(f"{parser.prog}: {echoed_url(args.url)!r}: {e}\n")
        return EXIT_USAGE
    finally:
        if rows is not None:
            rows.close()
        if restore is not None:
            restore()


def _report(
    args: argparse.Namespace,
    found: Walk,
    previous: Any,
    interrupt: Interrupt,
    progress: ProgressLine,
    pages: Any = None,
    scratch: str | None = None,
) -> int:
    """Write the document in the forms asked for (compared with previous, an earlier document,
    when given; with the page check's `pages`, when it ran; scratch, a pages file made for
    pages.csv alone, removed once read); the exit status."""
    from sitemap_auditor.deep import document as documents
    from sitemap_auditor.deep.reports import text_report

    stdout, stderr = sys.stdout, sys.stderr
    progress.erase()
    doc = documents.build(found)
    if pages is not None:
        documents.with_pages(doc, pages)
    if previous is not None:
        from sitemap_auditor.deep.compare import compare

        doc["comparison"] = compare(previous, doc)
    if args.csv:
        from sitemap_auditor.deep.reports import csv_report

        csv_report.write(doc, args.csv)
        _finding_urls(doc, args.finding_rows, args.csv, found.secrets, interrupt, stderr)
        if pages is not None and args.pages_file:
            from sitemap_auditor.deep.reports import pages_csv

            pages_csv.write(args.pages_file, args.csv)
    if scratch is not None:
        os.unlink(scratch)
    if args.html:
        from sitemap_auditor.deep.reports import html_report

        with open(args.html, "w", encoding="utf-8") as f:
            f.write(html_report.render(doc))
    from sitemap_auditor.cli.outputs import colour_enabled, to_reader, write_whole

    with to_reader(stdout):  # a reader gone (`| head`) ends the report, not the command
        if args.json:
            write_whole(stdout, json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
        else:
            colour = colour_enabled(stdout)
            width = _terminal_width(stdout)
            write_whole(stdout, text_report.render(doc, colour, width) + "\n")
            if pages is not None:
                write_whole(stdout, text_report.pages_text(pages, width) + "\n")
    stopped = found.stopped_by == "interrupted" or (pages or {}).get("stoppedBy") == "interrupted"
    if stopped or interrupt.exit_status is not None:
        stderr.write("stopped: interrupted; the report covers what was read\n")
        stderr.flush()
        # Fetches still running in their threads would hold the exit: none may change what
        # was written, and the process ends here.
        os._exit(interrupt.exit_status or EXIT_INTERRUPTED)
    worst = documents.worst_severity(doc)
    return EXIT_CODES[worst]
