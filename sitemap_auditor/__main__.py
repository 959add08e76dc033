"""`python -m sitemap_auditor URL`: print the JSON result for any URL."""

from sitemap_auditor.cli.main import exit_with, main

exit_with(main(json_by_default=True))
