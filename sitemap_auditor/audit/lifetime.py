"""Everything that lives as long as the process, in one place, with one reset for tests.

Lambda keeps a process for many invocations: what is built here is built once per cold start,
at import, which Lambda runs at full speed before the first event. Elsewhere, process-wide state
is only caches these own (the DynamoDB client, the secrets read, the logger's cold-start flag),
and `reset()` forgets all of it.
"""

from __future__ import annotations

import os

from sitemap_auditor.audit import config, observability, secrets
from sitemap_auditor.sharing import driver as sharing
from sitemap_auditor.sharing import dynamostore

__all__ = ["PROCESS_KEY", "SETTINGS", "SHARING", "reset"]

# Read once per cold start; an invalid SITEMAP_MAX_AGE_DAYS stops the function here, at import.
SETTINGS = config.load(os.environ)
# A setting read otherwise than it may have been meant (SITEMAP_ALLOW_PRIVATE_NETWORKS=1 is
# false): one warning line each, in the logs of the function's start.
for _warning in config.setting_warnings(os.environ):
    observability.logger.warning(_warning.message, setting=_warning.variable)
# Audits of one site in this process share its facts (docs/contract.md §7).
SHARING = sharing.Sharing()
# Without a shared key, credentials are hashed with this process's own key: such facts are then
# shared within the process only, and the key never leaves it.
PROCESS_KEY = os.urandom(32)
if SETTINGS.cache_table and SETTINGS.share_seconds > 0:
    # boto3 and the DynamoDB client (~110 ms) at start-up rather than in the first audit;
    # without a table boto3 is never imported.
    dynamostore.warm()


def reset() -> None:
    """Forget what the process learnt: shared facts, the store's client, secrets, cold start."""
    SHARING.local.clear()
    dynamostore.reset()
    secrets.clear_cache()
    observability.reset()
