"""The shared table for the sharing tests: DynamoDB as moto and as dynalite, on 127.0.0.1.

Fixtures (registered by tests/conftest.py): `moto` (moto's server in its own process, with
atomic conditional writes), `dynamo` (every test that takes it runs against moto and against
dynalite), `local_aws` (this process's boto3 pointed at them) and `table` (a fresh facts table).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from harness import moto_atomic
from harness.environments import REGION, aws_environment
from sitemap_auditor.audit import lifetime

from . import dynamo as support_dynamo

__all__ = ["dynamo", "dynamodb", "local_aws", "moto", "table"]


@pytest.fixture(scope="module")
def moto() -> Iterator[str]:
    """moto's server in a process of its own, as DynamoDB is a service of its own (in the test
    process it would compete with the tests for the interpreter and answer late), with atomic
    conditional writes, as DynamoDB's."""
    with moto_atomic.running() as endpoint:
        yield endpoint


@pytest.fixture(scope="module", params=["moto", "dynalite"])
def dynamo(request: pytest.FixtureRequest, moto: str) -> Iterator[str]:
    """The shared table's DynamoDB: moto, and dynalite, an independent implementation that
    validates requests as DynamoDB does (key sizes, expressions, types) where moto is lenient."""
    if request.param == "moto":
        yield moto
        return
    with support_dynamo.dynalite() as endpoint:
        yield endpoint


@pytest.fixture
def local_aws(dynamo: str, moto: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """This process's boto3 pointed at the local servers (DynamoDB, and moto's Secrets Manager),
    with fresh clients before and after; yields the DynamoDB endpoint."""
    for k, v in {**aws_environment(moto), "AWS_ENDPOINT_URL_DYNAMODB": dynamo}.items():
        monkeypatch.setenv(k, v)
    lifetime.reset()
    yield dynamo
    lifetime.reset()


def dynamodb(endpoint: str) -> Any:
    import boto3

    return boto3.session.Session(
        aws_access_key_id="testing", aws_secret_access_key="testing", region_name=REGION
    ).client("dynamodb", endpoint_url=endpoint)


@pytest.fixture
def table(dynamo: str) -> Iterator[str]:
    client = dynamodb(dynamo)
    name = moto_atomic.new_facts_table(client)
    yield name
    client.delete_table(TableName=name)
