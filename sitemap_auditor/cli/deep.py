"""`sitemap-auditor deep URL`: the deep audit from a terminal, with its reports."""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
import tempfile
import threading
from collections.abc import Sequence
from typing import IO, Any, NoReturn

from sitemap_auditor.core.credentials import Credentials
from sitemap_auditor.core.text import valid_text
from sitemap_auditor.deep.kinds import Severity

__all__ = ["EPILOG", "EXIT_CODES", "build_parser", "main"]

# Exit status by the worst finding (none above a notice: 0); 64 and 130 as the audit's own.
EXIT_CODES = {None: 0, Severity.NOTICE: 0, Severity.WARNING: 1, Severity.ERROR: 2}
EXIT_USAGE = 64
EXIT_INTERRUPTED = 130
PASSWORD_ENV = "SITEMAP_AUDITOR_PASSWORD"

EPILOG = """\
examples:
  sitemap-auditor deep https://www.example.com/
      read every sitemap of the site and print the tree and the findings, worst first
  sitemap-auditor deep --json https://www.example.com/ > audit.json
      the JSON document (format sitemap-auditor-deep, version 1)
  sitemap-auditor deep --csv out/ --urls urls.jsonl --html report.html https://www.example.com/
      also sitemaps.csv and findings.csv in out/, every listed URL as JSON Lines, an HTML page
  sitemap-auditor deep --max-sitemaps 20000 --max-seconds 3600 https://www.example.com/
      raise the walk's limits
  sitemap-auditor deep --demo --html report.html
      serve the embedded demo site on 127.0.0.1 and audit it

exit status: 0 no finding above a notice, 1 a warning, 2 an error, 64 usage error,
130 interrupted (what was read is reported first).
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
        help="write sitemaps.csv and findings.csv (and pages.csv, with --pages) into DIR",
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
        help=f"fetches at once, in all and so to any one host (default {d.concurrency})",
    )
    p.add_argument(
        "--max-dedupe-urls",
        type=int,
        default=d.max_dedupe_urls,
        metavar="N",
        help=f"URLs looked through for duplicates, 16 bytes each past 8 MiB "
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
    _page_options(p)
    return p


# --- the page check (`--pages`, deep/pages/) ------------------------------------------------------


def _page_options(p: argparse.ArgumentParser) -> None:
    """The page check's options; --concurrency and --max-seconds bound it too."""
    from sitemap_auditor.deep.pages.check import DEFAULT_MAX_PAGES

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

    options = PageOptions(
        max_pages=args.max_pages,
        concurrency=args.concurrency,
        rate=args.rate,
        max_seconds=args.max_seconds,
        pages_out=args.pages_file,
        resume=args.resume,
        on_progress=progress,
    )
    policy = FetchPolicy(
        origin=found.site.origin(),
        credentials=args.credentials,
        allow_private_networks=args.allow_private_networks or args.demo_site,
    )
    summary = check_pages(spool, found.site.url, policy, options)
    if shown:
        stderr.write("\r\x1b[K")
    return summary


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


class _ProgressLine:
    """One line on standard error, rewritten as the walk goes: only on a terminal."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.enabled = hasattr(stream, "isatty") and stream.isatty()
        self._lock = threading.Lock()
        self._width = 0

    def __call__(self, p: Any) -> None:
        if not self.enabled:
            return
        text = (
            f"{p.done:,} sitemaps done, {p.queued:,} queued, {p.urls:,} URLs, "
            f"{p.bytes / 1e6:,.1f} MB"
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run `sitemap-auditor deep`; return the exit status."""
    from sitemap_auditor.deep import document as documents
    from sitemap_auditor.deep.reports import text_report
    from sitemap_auditor.deep.walk import Limits, Options, UrlRecord, walk

    parser = build_parser()
    args = parser.parse_args(argv)
    stdout, stderr = sys.stdout, sys.stderr
    demo = args.demo or args.url == "demo"
    if demo and args.url not in (None, "demo"):
        parser.error("--demo audits the embedded demo site and takes no URL")
    if not demo and args.url is None:
        parser.error("no URL given (name one, or use --demo)")
    try:
        limits = Limits(
            max_sitemaps=args.max_sitemaps,
            max_depth=args.max_depth,
            max_bytes=args.max_bytes,
            max_seconds=args.max_seconds,
            concurrency=args.concurrency,
            max_dedupe_urls=args.max_dedupe_urls,
        )
    except ValueError as e:
        parser.error(str(e))
    if args.max_age_days is not None and args.max_age_days < 1:
        parser.error("--max-age-days must be at least 1")
    creds = None
    if args.user is not None:
        creds = Credentials(args.user, _password(args.user, parser))
    args.credentials, args.demo_site = creds, demo
    if args.max_pages < 0 or (args.rate is not None and args.rate <= 0):
        parser.error("--max-pages must be >= 0 and --rate > 0")
    if (args.pages_out or args.resume) and not args.pages:
        parser.error("--pages-out and --resume go with --pages")
    if args.resume and not args.pages_out:
        parser.error("--resume needs --pages-out FILE")
    spool = None
    if args.pages:
        from sitemap_auditor.deep.pages.spool import UrlSpool

        spool = UrlSpool()
    args.pages_file = args.pages_out
    scratch = None
    if args.pages and args.csv and not args.pages_out:
        fd, scratch = tempfile.mkstemp(prefix="pages-", suffix=".jsonl")  # pages.csv's rows
        os.close(fd)
        args.pages_file = scratch

    urls_out: IO[str] | None = None
    lock = threading.Lock()

    def on_url(u: UrlRecord) -> None:
        if spool is not None:
            spool.add(u.url, u.sitemap, u.lastmod)
        if urls_out is None:
            return
        line = {"url": u.url, "sitemap": u.sitemap, "line": u.line, "lastmod": u.lastmod}
        with lock:
            urls_out.write(json.dumps(line, ensure_ascii=False) + "\n")

    if args.urls:
        try:
            urls_out = open(args.urls, "w", encoding="utf-8")  # noqa: SIM115 -- closed below
        except OSError as e:
            stderr.write(f"{parser.prog}: cannot write --urls {args.urls}: {e.strerror or e}\n")
            return EXIT_USAGE
    progress = _ProgressLine(stderr)
    options = Options(
        limits=limits,
        credentials=creds,
        allow_private_networks=args.allow_private_networks or demo,
        max_age_days=args.max_age_days or 7,
        on_url=on_url if urls_out is not None or spool is not None else None,
        on_progress=progress,
    )
    try:
        if demo:
            from sitemap_auditor.cli import demo as demo_site

            with demo_site.serve() as base:
                found = walk(base + "/", options)
                pages = _pages_after(args, found, spool, stderr)
        else:
            found = walk(valid_text(args.url), options)
            pages = _pages_after(args, found, spool, stderr)
    except ValueError as e:
        stderr.write(f"{parser.prog}: {args.url!r}: {e}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        progress.erase()
        stderr.write("interrupted before any sitemap was read\n")
        stderr.flush()
        os._exit(EXIT_INTERRUPTED)
    finally:
        if urls_out is not None:
            urls_out.close()
    progress.erase()
    doc = documents.build(found)
    if pages is not None:
        doc["pages"] = pages
    if args.csv:
        from sitemap_auditor.deep.reports import csv_report

        csv_report.write(doc, args.csv)
        if pages is not None and args.pages_file:
            from sitemap_auditor.deep.reports import pages_csv

            pages_csv.write(args.pages_file, args.csv)
    if scratch is not None:
        os.unlink(scratch)
    if args.html:
        from sitemap_auditor.deep.reports import html_report

        with open(args.html, "w", encoding="utf-8") as f:
            f.write(html_report.render(doc))
    if args.json:
        stdout.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    else:
        colour = "NO_COLOR" not in os.environ and stdout.isatty()
        stdout.write(text_report.render(doc, colour) + "\n")
        if pages is not None:
            from sitemap_auditor.deep.pages import summary as pages_summary

            stdout.write(pages_summary.text(pages) + "\n")
    stdout.flush()
    if found.stopped_by == "interrupted" or (pages or {}).get("stoppedBy") == "interrupted":
        stderr.write("interrupted: the report covers what was read\n")
        stderr.flush()
        os._exit(EXIT_INTERRUPTED)  # fetches still running would hold the exit
    worst = documents.worst_severity(doc)
    return EXIT_CODES[worst]
