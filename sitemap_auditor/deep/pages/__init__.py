"""The page check: every URL the sitemaps list, requested once, judged as Google documents
indexability (`sitemap-auditor deep URL --pages`). The Lambda never imports it."""

# Pages checked at most, an even sample past it (--max-pages): here, so that the command line's
# help names it without importing the page check.
DEFAULT_MAX_PAGES = 10_000
