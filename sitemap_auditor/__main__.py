"""`python -m sitemap_auditor URL`: print the JSON result for any URL."""

import sys

from sitemap_auditor.cli.start import run

run(sys.argv[1:], json_by_default=True)
