"""The page check: every URL the sitemaps list, requested once, judged as Google documents
indexability (`sitemap-auditor deep URL --pages`). The Lambda never imports it."""
