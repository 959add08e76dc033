"""The environments the function's processes run with in tests and benchmarks: plain values, with
no test machinery, so a benchmark can build the same environment as the tests."""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["REGION", "aws_environment", "container_environment", "lambda_environment"]

REGION = "us-east-1"
# Whatever the caller's shell sets for these would leak into the function under test.
_CLEARED_PREFIXES = ("SITEMAP_", "POWERTOOLS_", "AWS_")


def aws_environment(endpoint: str) -> dict[str, str]:
    """The variables that point the function's boto3 at the local server, with fake keys."""
    return {
        "AWS_ENDPOINT_URL_SECRETS_MANAGER": endpoint,
        "AWS_DEFAULT_REGION": REGION,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    }


def lambda_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A clean environment for the function: local servers allowed, no AWS configuration."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_CLEARED_PREFIXES)}
    env.update(
        {
            "SITEMAP_ALLOW_PRIVATE_NETWORKS": "true",
            # Each invocation fetches for itself; tests of sharing between audits set their own.
            "SITEMAP_SHARE_SECONDS": "0",
            "AWS_EC2_METADATA_DISABLED": "true",
            "AWS_CONFIG_FILE": os.devnull,
            "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra or {})
    return env


def container_environment(
    dynamo: str,
    table: str,
    secrets: str | None = None,
    share_seconds: int = 60,
    namespace: str = "test",
    **extra: str,
) -> dict[str, str]:
    """A container's environment as deployed with a shared table, pointed at local servers."""
    env = lambda_environment(
        {
            **aws_environment(secrets or dynamo),
            "AWS_ENDPOINT_URL_DYNAMODB": dynamo,
            "SITEMAP_CACHE_TABLE": table,
            "SITEMAP_SHARE_SECONDS": str(share_seconds),
            "POWERTOOLS_METRICS_NAMESPACE": namespace,
        }
    )
    env.update(extra)
    return env
