"""`python -m sitemap_auditor URL`: print the JSON result for any URL."""

import sys

from .cli import main

sys.exit(main(json_by_default=True))
