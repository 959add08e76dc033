"""The one table of the deep audit's finding kinds: kind, severity, whose rule it is, its title
(Search Console's words where it has some), the sentence a site owner reads, and the fix.
Everything else (the JSON document, the reports, the exit status, the README's list) is derived
from it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "IMPACT_ORDER",
    "KINDS",
    "SEVERITY_ORDER",
    "SOURCE_NAMES",
    "Impact",
    "Kind",
    "KindInfo",
    "Reach",
    "Severity",
    "Source",
    "share",
]


class Severity(StrEnum):
    """How bad a finding is: an error makes search engines reject or ignore something."""

    ERROR = "error"
    WARNING = "warning"
    NOTICE = "notice"


class Source(StrEnum):
    """Whose rule a finding applies: a search engine's report, the protocol, or this tool's own
    judgement (a heuristic: a sign that something is likely wrong, not a rule anyone enforces)."""

    SEARCH_CONSOLE = "search-console"
    BING = "bing"
    SITEMAPS_ORG = "sitemaps.org"
    TOOL = "tool"


SOURCE_NAMES = {
    Source.SEARCH_CONSOLE: "Search Console",
    Source.BING: "Bing Webmaster Tools",
    Source.SITEMAPS_ORG: "sitemaps.org",
    Source.TOOL: "this tool's heuristic",
}


class Impact(StrEnum):
    """What a finding costs the site, the first key of the findings' order: a file search
    engines cannot read at all, then URLs they drop, then what makes them trust the listing
    less (dates, duplicates, alternates), then what the audit itself could not do."""

    FILE_UNREAD = "file-unread"
    URLS_LOST = "urls-lost"
    URLS_AFFECTED = "urls-affected"
    AUDIT = "audit"


IMPACT_ORDER = (Impact.FILE_UNREAD, Impact.URLS_LOST, Impact.URLS_AFFECTED, Impact.AUDIT)


class Reach(StrEnum):
    """Which of the site's listed URLs a finding affects: its `urls` in the document."""

    # Each occurrence is one listed URL (an entry, a page): urls is the count.
    URLS = "urls"
    # Occurrences are parts of entries (images, videos, robots.txt's agents): urls is the
    # number of entries with at least one.
    ENTRIES = "entries"
    # The file as a whole: urls is what it lists as far as it was read (for an index, what the
    # sitemaps it lists list); null when nothing of it was read.
    FILE = "file"
    # Not a count of URLs (links, sitemaps, the audit's limits): urls is null.
    NONE = "none"


def share(urls: int | None, total: int) -> float | None:
    """urls as a share of total (the site's listed URLs, a file's entries), to 4 places, 0 when
    total is 0. Rounding never says "all" when it is not so: a part short of the whole is at
    most 0.9999 (a report's "100 %" beside a finding about the rest would contradict it)."""
    if urls is None:
        return None
    if total <= 0:
        return 0.0
    return 1.0 if urls >= total else min(round(urls / total, 4), 0.9999)


# Worst first, as the document sorts findings.
SEVERITY_ORDER = (Severity.ERROR, Severity.WARNING, Severity.NOTICE)


class Kind(StrEnum):
    """A finding's stable kind, as the JSON document writes it."""

    COULDNT_FETCH = "couldnt-fetch"
    BLOCKED = "blocked"
    SITEMAP_IS_HTML = "sitemap-is-html"
    LEADING_WHITESPACE = "leading-whitespace"
    INVALID_XML = "invalid-xml"
    XML_NOT_READ = "xml-not-read"
    INCORRECT_NAMESPACE = "incorrect-namespace"
    NOT_UTF8 = "not-utf8"
    UNKNOWN_FORMAT = "unknown-format"
    MISSING_TAG = "missing-tag"
    INVALID_URL = "invalid-url"
    URL_NOT_ALLOWED = "url-not-allowed"
    PATH_MISMATCH = "path-mismatch"
    TOO_MANY_URLS = "too-many-urls"
    FILE_TOO_LARGE = "file-too-large"
    EMPTY_SITEMAP = "empty-sitemap"
    NESTED_INDEX = "nested-index"
    DUPLICATE_SITEMAP = "duplicate-sitemap"
    TOO_MANY_SITEMAPS = "too-many-sitemaps"
    COMPRESSION_ERROR = "compression-error"
    INVALID_DATE = "invalid-date"
    DATE_WITHOUT_TIMEZONE = "date-without-timezone"
    FUTURE_LASTMOD = "future-lastmod"
    IDENTICAL_LASTMODS = "identical-lastmods"
    PARTIAL_LASTMOD = "partial-lastmod"
    DUPLICATE_URL = "duplicate-url"
    ALSO_IN_NEWS = "also-in-news-sitemap"
    BLOCKED_BY_ROBOTS = "blocked-by-robots"
    SITEMAP_BLOCKED_BY_ROBOTS = "sitemap-blocked-by-robots"
    ROBOTS_UNREACHABLE = "robots-txt-unreachable"
    ROBOTS_SITEMAP_INVALID = "robots-sitemap-invalid"
    NEWS_TOO_MANY = "news-too-many"
    NEWS_TOO_OLD = "news-too-old"
    NEWS_MISSING_TAG = "news-missing-tag"
    VIDEO_MISSING_TAG = "video-missing-tag"
    IMAGE_MISSING_LOC = "image-missing-loc"
    HREFLANG_INVALID = "hreflang-invalid"
    LIMIT_REACHED = "limit-reached"
    # The pages the sitemaps list (`deep --pages`): deep/pages/.
    PAGE_NOT_FOUND = "page-not-found"
    PAGE_UNAUTHORIZED = "page-unauthorized"
    PAGE_FORBIDDEN = "page-forbidden"
    PAGE_OTHER_4XX = "page-other-4xx"
    PAGE_SERVER_ERROR = "page-server-error"
    PAGE_RATE_LIMITED = "page-rate-limited"
    PAGE_REDIRECT = "page-redirect"
    PAGE_REDIRECT_ERROR = "page-redirect-error"
    PAGE_NOINDEX = "page-noindex"
    PAGE_CANONICALISED = "page-canonicalised"
    PAGE_UNREACHABLE = "page-unreachable"
    PAGE_SOFT_404 = "page-soft-404"
    LASTMOD_MISMATCH = "lastmod-mismatch"


@dataclass(frozen=True)
class KindInfo:
    """What a kind means to a site owner."""

    severity: Severity
    title: str  # Search Console's words for it, where it has some
    message: str  # one sentence; {count} is the number of times it was found
    fix: str
    # The sentence when {count} is 1, for a kind that can be found once (`message_for`).
    one: str = ""
    # The sentence when the finding has a detail, for a kind whose detail is not always there.
    detailed: str = ""
    # Whose rule it is: Search Console reports most kinds by these titles.
    source: Source = Source.SEARCH_CONSOLE
    # What a finding of this kind costs the site: the first key of the findings' order.
    impact: Impact = Impact.URLS_AFFECTED
    # Which listed URLs it affects (the document's `urls` and `share`).
    reach: Reach = Reach.URLS
    # Its detail names agents (named_agents' words): findings that name different ones say
    # "for Googlebot or Bingbot" (checks.joined_details), not a list of lists.
    agents_detail: bool = False
    # Found by comparing a file with the others (a URL listed before, a missing return link):
    # gone from a file, it is resolved only by a walk that read every file (deep/compare.py).
    across_files: bool = False

    def message_for(self, count: int, detail: str = "") -> str:
        """The sentence for a finding of this kind seen count times."""
        if detail and self.detailed:
            template = self.detailed
        else:
            template = self.one if count == 1 and self.one else self.message
        return template.format(count=f"{count:,}", detail=detail)


_E, _W, _N = Severity.ERROR, Severity.WARNING, Severity.NOTICE
_TOOL = Source.TOOL
_UNREAD, _LOST = Impact.FILE_UNREAD, Impact.URLS_LOST
_FILE, _ENTRIES, _NONE = Reach.FILE, Reach.ENTRIES, Reach.NONE

KINDS: dict[Kind, KindInfo] = {
    Kind.COULDNT_FETCH: KindInfo(
        _E,
        "Couldn't fetch",
        "The sitemap could not be downloaded: {detail}.",
        "Make the URL answer 200 with the sitemap, or remove it from robots.txt and the index.",
        impact=_UNREAD,
        reach=_FILE,
    ),
    Kind.BLOCKED: KindInfo(
        _E,
        "Couldn't fetch: refused to crawlers",
        "The server refused the sitemap to crawlers ({detail}), as a firewall, a CDN's bot "
        "protection or an overloaded server does.",
        "Let crawlers through to sitemap URLs (allow-list them in the firewall or bot "
        "protection), and check that the server is not turning them away as too busy.",
        impact=_UNREAD,
        reach=_FILE,
    ),
    Kind.SITEMAP_IS_HTML: KindInfo(
        _E,
        "Sitemap is HTML",
        "The URL answers with an HTML page, not a sitemap.",
        "Serve the XML sitemap at this URL (often a route of the app catches it), "
        "or list the real sitemap's URL.",
        impact=_UNREAD,
        reach=_FILE,
    ),
    Kind.LEADING_WHITESPACE: KindInfo(
        _E,
        "Leading whitespace",
        "White space comes before the XML declaration, which makes the file invalid XML.",
        "Remove the blank lines or spaces before <?xml (often an included file or template).",
        impact=_UNREAD,
        reach=_FILE,
    ),
    Kind.INVALID_XML: KindInfo(
        _E,
        "Invalid XML",
        "The file is not well-formed XML, so search engines stop reading it there: {detail}.",
        "Escape & as &amp; (and < as &lt;) in URLs, and close every tag; validate the file.",
        impact=_UNREAD,
        reach=_FILE,
    ),
    Kind.XML_NOT_READ: KindInfo(
        _W,
        "XML this audit does not read",
        "The file holds XML this audit refuses to read ({detail}), so it stopped reading there; "
        "search engines may read on.",
        "Remove it: a sitemap needs no entity declarations, comments of megabytes or deep nesting.",
        source=_TOOL,
        impact=_UNREAD,
        reach=_FILE,
    ),
    Kind.INCORRECT_NAMESPACE: KindInfo(
        _E,
        "Incorrect namespace",
        "The root element's namespace is {detail}, not http://www.sitemaps.org/schemas/sitemap/0.9.",
        'Write xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" on the root element.',
        impact=_UNREAD,
        reach=_FILE,
    ),
    Kind.NOT_UTF8: KindInfo(
        _W,
        "Not UTF-8",
        "The file is encoded in {detail}, not UTF-8, which the sitemap protocol requires: its "
        "characters outside ASCII may be misread.",
        'Save the file as UTF-8 and declare it so: <?xml version="1.0" encoding="UTF-8"?>.',
        source=Source.SITEMAPS_ORG,
        reach=_FILE,
    ),
    Kind.UNKNOWN_FORMAT: KindInfo(
        _E,
        "Unsupported file format",
        "The file is not a sitemap in any format search engines read: {detail}.",
        "Serve an XML sitemap (<urlset> or <sitemapindex>), an RSS or Atom feed, or a text list.",
        impact=_UNREAD,
        reach=_FILE,
    ),
    Kind.MISSING_TAG: KindInfo(
        _E,
        "Missing XML tag",
        "{count} entries have no <loc>, so they list nothing.",
        "Give every <url> and <sitemap> a <loc> with the page's absolute URL.",
        "1 entry has no <loc>, so it lists nothing.",
        impact=_LOST,
    ),
    Kind.INVALID_URL: KindInfo(
        _E,
        "Invalid URL",
        "{count} listed URLs are not absolute http(s) URLs that search engines can read.",
        "Write full URLs (https://host/path), percent-encode spaces, keep them under 2,048 chars.",
        "1 listed URL is not an absolute http(s) URL that search engines can read.",
        impact=_LOST,
    ),
    Kind.URL_NOT_ALLOWED: KindInfo(
        _E,
        "URL not allowed",
        "{count} URLs are on another host or scheme, or above the sitemap's folder.",
        "List only URLs of the sitemap's own host and scheme, in its folder or below; "
        "or move the sitemap to the site root.",
        "1 URL is on another host or scheme, or above the sitemap's folder.",
        impact=_LOST,
    ),
    Kind.PATH_MISMATCH: KindInfo(
        _E,
        "Path mismatch",
        "{count} URLs differ from the sitemap's host by www.",
        "Use the same host (with or without www) in the sitemap's URL and in every <loc>.",
        "1 URL differs from the sitemap's host by www.",
        impact=_LOST,
    ),
    Kind.TOO_MANY_URLS: KindInfo(
        _E,
        "Too many URLs",
        "The sitemap lists {count} URLs; search engines read at most 50,000 per file.",
        "Split it into files of at most 50,000 URLs listed by a sitemap index.",
        impact=_LOST,
        reach=_FILE,
    ),
    Kind.FILE_TOO_LARGE: KindInfo(
        _E,
        "Sitemap file size error",
        "The sitemap is larger than 50 MB (52,428,800 bytes) uncompressed, the protocol's limit.",
        "Split it into smaller files listed by a sitemap index.",
        impact=_UNREAD,
        reach=_FILE,
    ),
    Kind.EMPTY_SITEMAP: KindInfo(
        _W,
        "Empty sitemap",
        "The sitemap lists no URL.",
        "Fill it, or remove it from robots.txt and the index.",
        detailed="The sitemap lists no URL: {detail}.",
        reach=_FILE,
    ),
    Kind.NESTED_INDEX: KindInfo(
        _E,
        "Nested indexes",
        "A sitemap index lists another sitemap index; search engines do not follow those.",
        "List the child sitemaps directly in the top-level index.",
        impact=_LOST,
        reach=_FILE,
        across_files=True,
    ),
    Kind.DUPLICATE_SITEMAP: KindInfo(
        _N,
        "Sitemap listed more than once",
        "{count} entries list a sitemap listed before, under this or another spelling of its "
        "URL; each was read once.",
        "List each sitemap once, with one spelling of its URL.",
        "1 entry lists a sitemap listed before, under this or another spelling of its URL; it "
        "was read once.",
        source=_TOOL,
        impact=Impact.AUDIT,
        reach=_NONE,
        across_files=True,
    ),
    Kind.TOO_MANY_SITEMAPS: KindInfo(
        _E,
        "Too many sitemaps",
        "The index lists {count} sitemaps; an index may list at most 50,000.",
        "Split the index into several indexes, each submitted or listed in robots.txt.",
        impact=_LOST,
        reach=_FILE,
    ),
    Kind.COMPRESSION_ERROR: KindInfo(
        _E,
        "Compression error",
        "The file could not be decompressed: {detail}.",
        "Serve a complete gzip file (gzip -t checks one), or the plain XML.",
        impact=_UNREAD,
        reach=_FILE,
    ),
    Kind.INVALID_DATE: KindInfo(
        _E,
        "Invalid date",
        "{count} <lastmod> values are not W3C Datetime dates.",
        "Write dates as 2026-11-30 or 2026-11-30T08:15:00+00:00.",
        "1 <lastmod> value is not a W3C Datetime date.",
    ),
    Kind.DATE_WITHOUT_TIMEZONE: KindInfo(
        _E,
        "Invalid date: no time zone",
        "{count} <lastmod> values give a time without a time zone, which W3C Datetime forbids.",
        "Add the zone to the time (2026-11-30T08:15:00+00:00 or ...Z), or write the date alone.",
        "1 <lastmod> value gives a time without a time zone, which W3C Datetime forbids.",
    ),
    Kind.FUTURE_LASTMOD: KindInfo(
        _W,
        "Future date",
        "{count} <lastmod> values are in the future, so search engines distrust the dates.",
        "Write the date the page last changed, never a future or placeholder date.",
        "1 <lastmod> value is in the future, so search engines distrust the dates.",
        source=_TOOL,
    ),
    Kind.IDENTICAL_LASTMODS: KindInfo(
        _W,
        "Identical lastmods",
        "{count} entries share one <lastmod> value, 90 % or more of the file's dated entries: "
        "the dates look generated, and search engines ignore dates that do not track real "
        "changes.",
        "Set each <lastmod> to the day its page's content last changed (not the build's date).",
        source=_TOOL,
        detailed="{count} entries share one <lastmod> value ({detail}), 90 % or more of the "
        "file's dated entries: the dates look generated, and search engines ignore dates that do "
        "not track real changes.",
    ),
    Kind.PARTIAL_LASTMOD: KindInfo(
        _N,
        "Partial lastmod",
        "{count} entries have no <lastmod> while others do.",
        "Give every entry the date its page last changed.",
        "1 entry has no <lastmod> while others do.",
        source=_TOOL,
    ),
    Kind.DUPLICATE_URL: KindInfo(
        _W,
        "Duplicate URL",
        "{count} entries list a URL listed before ({detail}).",
        "List each URL once, in one sitemap.",
        "1 entry lists a URL listed before ({detail}).",
        source=_TOOL,
        across_files=True,
    ),
    Kind.ALSO_IN_NEWS: KindInfo(
        _N,
        "In more than one sitemap",
        "{count} URLs of this news sitemap are also in another sitemap: expected, as a news "
        "sitemap lists recent articles that the site's regular sitemaps list too.",
        "Nothing to do: Google News reads the news sitemap, search the regular one; removing "
        "either listing loses the articles there.",
        "1 URL of this news sitemap is also in another sitemap: expected, as a news sitemap "
        "lists recent articles that the site's regular sitemaps list too.",
        source=_TOOL,
        across_files=True,
    ),
    Kind.BLOCKED_BY_ROBOTS: KindInfo(
        _W,
        "Blocked by robots.txt",
        "{count} listed URLs are disallowed by robots.txt (for {detail}).",
        "Remove them from the sitemap, or allow them in robots.txt.",
        "1 listed URL is disallowed by robots.txt (for {detail}).",
        impact=_LOST,
        reach=_ENTRIES,
        agents_detail=True,
    ),
    Kind.SITEMAP_BLOCKED_BY_ROBOTS: KindInfo(
        _E,
        "Sitemap blocked by robots.txt",
        "robots.txt disallows this sitemap's own URL (for {detail}), so search engines cannot "
        "fetch it.",
        "Allow the sitemap's URL in robots.txt (or move the sitemap out of the disallowed path).",
        impact=_UNREAD,
        reach=_FILE,
        agents_detail=True,
    ),
    Kind.ROBOTS_UNREACHABLE: KindInfo(
        _E,
        "robots.txt unreachable",
        "robots.txt gave no usable answer ({detail}): while it does, search engines take the "
        "whole site as disallowed and crawl none of it (RFC 9309), so every sitemap and URL "
        "below counts as blocked.",
        "Make robots.txt answer 200 (or 404 when there are no rules): a 5xx, a 429 or no "
        "answer stops crawling.",
        impact=_LOST,
        reach=_NONE,
    ),
    Kind.ROBOTS_SITEMAP_INVALID: KindInfo(
        _W,
        "Invalid sitemap URL in robots.txt",
        "{count} Sitemap: lines of robots.txt hold no URL a crawler can fetch ({detail}): "
        "search engines find no sitemap through them.",
        "Write each as an absolute http(s) URL: Sitemap: https://www.example.com/sitemap.xml",
        one="1 Sitemap: line of robots.txt holds no URL a crawler can fetch ({detail}): "
        "search engines find no sitemap through it.",
        impact=_LOST,
        reach=_NONE,
    ),
    Kind.NEWS_TOO_MANY: KindInfo(
        _E,
        "Too many news URLs",
        "The news sitemap lists {count} articles; Google News reads at most 1,000 per file.",
        "Keep the last two days' articles only, at most 1,000 a file.",
        impact=_LOST,
        reach=_FILE,
    ),
    Kind.NEWS_TOO_OLD: KindInfo(
        _W,
        "Article too old",
        "{count} news articles were published more than two days ago.",
        "List only articles of the last two days in the news sitemap.",
        "1 news article was published more than two days ago.",
        reach=_ENTRIES,
    ),
    Kind.NEWS_MISSING_TAG: KindInfo(
        _E,
        "Missing XML tag",
        "{count} <news:news> elements lack a required tag, or leave it empty: {detail}.",
        "Give each <news:news> a <news:publication> (name, language), "
        "<news:publication_date> and <news:title>.",
        "1 <news:news> element lacks a required tag, or leaves it empty: {detail}.",
        reach=_ENTRIES,
    ),
    Kind.VIDEO_MISSING_TAG: KindInfo(
        _E,
        "Missing XML tag",
        "{count} <video:video> elements lack a required tag, or leave it empty: {detail}.",
        "Give each video a thumbnail_loc, title, description, and a content_loc or player_loc.",
        "1 <video:video> element lacks a required tag, or leaves it empty: {detail}.",
        reach=_ENTRIES,
    ),
    Kind.IMAGE_MISSING_LOC: KindInfo(
        _E,
        "Missing XML tag",
        "{count} <image:image> elements have no <image:loc>.",
        "Give every <image:image> an <image:loc> with the image's URL.",
        "1 <image:image> element has no <image:loc>.",
        reach=_ENTRIES,
    ),
    Kind.HREFLANG_INVALID: KindInfo(
        _W,
        "hreflang errors",
        "{count} alternate-language links are wrong ({detail}), so search engines may ignore "
        "the whole set.",
        "Use a language code, with a country code where needed (en, en-GB, not en-UK; "
        "x-default), list each page itself among its alternates, and make every alternate link "
        "back.",
        "1 alternate-language link is wrong ({detail}), so search engines may ignore the whole "
        "set.",
        source=_TOOL,
        reach=_NONE,
        across_files=True,
    ),
    Kind.LIMIT_REACHED: KindInfo(
        _N,
        "A limit was reached",
        "The audit reached a limit ({detail}); the findings cover what it read and checked.",
        "Raise the limit (see --help) to read and check the rest.",
        source=_TOOL,
        impact=Impact.AUDIT,
        reach=_NONE,
    ),
    # The pages the sitemaps list (`deep --pages`, deep/pages/verdict.py's rules).
    Kind.PAGE_NOT_FOUND: KindInfo(
        _E,
        "Not found (404)",
        "{count} listed pages answer 404 or 410.",
        "Remove them from the sitemap, or restore the pages.",
        "1 listed page answers 404 or 410.",
        impact=_LOST,
    ),
    Kind.PAGE_UNAUTHORIZED: KindInfo(
        _E,
        "Blocked due to unauthorized request (401)",
        "{count} listed pages ask for a login (401).",
        "List only public pages, or let crawlers through.",
        "1 listed page asks for a login (401).",
        impact=_LOST,
    ),
    Kind.PAGE_FORBIDDEN: KindInfo(
        _E,
        "Blocked due to access forbidden (403)",
        "{count} listed pages answer 403 Forbidden.",
        "Let crawlers through (a firewall or bot protection often answers 403), or unlist them.",
        "1 listed page answers 403 Forbidden.",
        impact=_LOST,
    ),
    Kind.PAGE_OTHER_4XX: KindInfo(
        _E,
        "Blocked due to other 4xx issue",
        "{count} listed pages answer another 4xx status ({detail}).",
        "Make them answer 200, or remove them from the sitemap.",
        "1 listed page answers another 4xx status ({detail}).",
        impact=_LOST,
    ),
    Kind.PAGE_SERVER_ERROR: KindInfo(
        _E,
        "Server error (5xx)",
        "{count} listed pages answer a server error (5xx).",
        "Fix the server errors; persistent ones make search engines drop the URLs.",
        "1 listed page answers a server error (5xx).",
        impact=_LOST,
    ),
    Kind.PAGE_RATE_LIMITED: KindInfo(
        _W,
        "Too many requests (429)",
        "{count} listed pages answer 429 Too Many Requests, even after the waits they asked "
        "for, or ask to wait longer than two minutes.",
        "Let crawlers through at a steady rate: a lasting 429 slows search engines' crawling, "
        "and persistent ones make them drop the URLs.",
        "1 listed page answers 429 Too Many Requests, even after the waits it asked for, or "
        "asks to wait longer than two minutes.",
        source=_TOOL,
    ),
    Kind.PAGE_REDIRECT: KindInfo(
        _W,
        "Page with redirect",
        "{count} listed pages redirect; search engines consider the target instead.",
        "List the final URL (the redirect's target) instead of the redirecting one.",
        "1 listed page redirects; search engines consider the target instead.",
    ),
    Kind.PAGE_REDIRECT_ERROR: KindInfo(
        _E,
        "Redirect error",
        "{count} listed pages redirect in a loop, more than 10 times, or to an unusable "
        "target ({detail}).",
        "Make each redirect lead in one hop to a page that answers 200.",
        "1 listed page redirects in a loop, more than 10 times, or to an unusable target "
        "({detail}).",
        impact=_LOST,
    ),
    Kind.PAGE_NOINDEX: KindInfo(
        _E,
        "Excluded by 'noindex' tag",
        "{count} listed pages tell search engines not to index them (noindex).",
        "Remove the noindex (meta robots or X-Robots-Tag) or remove the pages from the sitemap.",
        "1 listed page tells search engines not to index it (noindex).",
        impact=_LOST,
    ),
    Kind.PAGE_CANONICALISED: KindInfo(
        _W,
        "Alternate page with proper canonical tag",
        "{count} listed pages name another URL as canonical.",
        "List the canonical URL instead, or make the page canonical to itself.",
        "1 listed page names another URL as canonical.",
    ),
    Kind.PAGE_UNREACHABLE: KindInfo(
        _E,
        "Submitted URL has crawl issue",
        "{count} listed pages could not be fetched ({detail}).",
        "Make the pages answer; check DNS, TLS and the firewall.",
        "1 listed page could not be fetched ({detail}).",
        impact=_LOST,
    ),
    Kind.PAGE_SOFT_404: KindInfo(
        _W,
        "Soft 404",
        "{count} listed pages answer 200 but look like an error page (this tool's hint: a "
        "title saying not found, or an empty body).",
        "Answer 404 or 410 for missing pages, and unlist them.",
        "1 listed page answers 200 but looks like an error page (this tool's hint: a title "
        "saying not found, or an empty body).",
        source=_TOOL,
    ),
    Kind.LASTMOD_MISMATCH: KindInfo(
        _N,
        "Lastmod not accurate",
        "{count} listed pages state a modification time more than 24 hours from their "
        "<lastmod> (this tool's hint).",
        "Write the page's real last change in <lastmod>: Google uses it only when it is "
        "consistently and verifiably accurate.",
        "1 listed page states a modification time more than 24 hours from its <lastmod> "
        "(this tool's hint).",
        source=_TOOL,
    ),
}
