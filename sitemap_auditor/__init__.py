"""The 37Audits Sitemap Auditor: finds a site's XML sitemap and checks that it is fresh."""

__version__ = "1.0.0"
