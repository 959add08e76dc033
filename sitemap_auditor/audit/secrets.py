"""Basic Auth credentials and the store key, read from Secrets Manager (boto3 only then)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar, cast

from sitemap_auditor.core.bounded import within
from sitemap_auditor.core.credentials import Credentials, from_mapping
from sitemap_auditor.core.errors import SecretError as SecretError

__all__ = [
    "CONNECT_TIMEOUT_S",
    "MAX_ATTEMPTS",
    "MIN_CACHE_KEY_CHARS",
    "READ_TIMEOUT_S",
    "SECRET_CACHE_SECONDS",
    "SecretError",
    "T",
    "cache_key",
    "clear_cache",
    "from_secret",
    "resolve",
]

# Warm invocations reuse a secret for this long; a rotated password is picked up after it.
SECRET_CACHE_SECONDS = 300.0

# The shared store's credential-hash key must be long enough not to be guessed.
MIN_CACHE_KEY_CHARS = 32

# A read of Secrets Manager (tens of ms when it is well) never holds an audit past a few
# seconds: boto3's defaults (60 s reads, 3 to 5 attempts) would outlast the function's timeout.
CONNECT_TIMEOUT_S = 1.0
READ_TIMEOUT_S = 3.0
MAX_ATTEMPTS = 2  # in all, the first included (botocore's `total_max_attempts`)
# The longest a read may take (10 s): what its timeouts allow, botocore's 1 s backoff before a
# retry and a loaded machine's slack, which a name lookup of the endpoint, bounded by no
# timeout of botocore's, must not stretch (core.bounded).
WORST_READ_S = MAX_ATTEMPTS * (CONNECT_TIMEOUT_S + READ_TIMEOUT_S) + 2.0

T = TypeVar("T")
_cache: dict[tuple[str, str], tuple[float, object]] = {}
_cache_lock = threading.Lock()
# Cache key secrets that could not be read lately: until when, and what went wrong.
_key_failures: dict[str, tuple[float, str]] = {}
KEY_FAILURE_SECONDS = 60.0
_client: Any = None


def _secrets_client() -> Any:
    global _client
    if _client is None:
        # Imported here, not at module level: boto3 costs ~100 ms of cold start and only
        # invocations with a secret need it. The endpoint comes from the environment
        # (AWS_ENDPOINT_URL_SECRETS_MANAGER), as boto3 reads it itself.
        import boto3
        from botocore.config import Config

        config = Config(
            connect_timeout=CONNECT_TIMEOUT_S,
            read_timeout=READ_TIMEOUT_S,
            retries={"total_max_attempts": MAX_ATTEMPTS, "mode": "standard"},
        )
        _client = boto3.session.Session().client("secretsmanager", config=config)
    return _client


def _read(
    secret_id: str,
    what: str,
    parse: Callable[[str], T | None],
    wrong: str,
    check: Callable[[Any], None] | None = None,
    answer_by: float | None = None,
) -> T:
    """A secret's string parsed, cached while warm; errors name the secret, never its value.
    check: shown the answer first (its ARN and Name), and may refuse it."""
    now = time.monotonic()
    with _cache_lock:
        hit = _cache.get((what, secret_id))
        if hit is not None and hit[0] > now:
            return cast(T, hit[1])
    try:
        read = _secrets_client().get_secret_value
        # Cut at the worst its timeouts allow, and at the moment the answer is due (reckoned
        # after the client is made: the first read imports boto3 and builds it).
        left = WORST_READ_S if answer_by is None else answer_by - time.monotonic()
        bound = min(WORST_READ_S, left)
        answer = within(bound, lambda: read(SecretId=secret_id), "secret-read")
    except Exception as e:  # noqa: BLE001 -- any failure of the secret is the same outcome
        raise SecretError(f"{what} {secret_id!r} could not be read: {_code(e)}") from None
    if check is not None:
        check(answer)
    value = parse(answer.get("SecretString") or "")
    if value is None:
        raise SecretError(f"{what} {secret_id!r} {wrong}")
    with _cache_lock:
        _cache[(what, secret_id)] = (now + SECRET_CACHE_SECONDS, value)
    return value


def _code(e: Exception) -> str:
    """What went wrong, in AWS's words when the service answered (its error code), else the
    exception's type (a timeout's `response` is None)."""
    response = getattr(e, "response", None)
    error = response.get("Error") if isinstance(response, dict) else None
    code = error.get("Code") if isinstance(error, dict) else None
    return code if isinstance(code, str) and code else type(e).__name__


def _credentials(text: str) -> Credentials | None:
    try:
        return from_mapping(json.loads(text))
    except (ValueError, RecursionError):  # not JSON, or nested past what json.loads reads
        return None


def _key(text: str) -> bytes | None:
    # A short key would make the hash of a password guessable again. Its bytes need only be the
    # same in every container: a lone surrogate (JSON can escape one) is kept as it is written.
    return text.encode("utf-8", "surrogatepass") if len(text) >= MIN_CACHE_KEY_CHARS else None


def from_secret(
    secret_id: str, reserved: str | None = None, answer_by: float | None = None
) -> Credentials:
    """Read `{"username": .., "password": ..}` from a Secrets Manager secret, cached while warm.

    reserved: the deployment's cache key secret (SITEMAP_CACHE_KEY_SECRET), which the role may
    read and no event may name (docs/operations.md): refused by its id as configured, by its ARN
    and name once known, and by the ARN and name the answer gives, before its value is used."""

    def own(answer: Any) -> None:
        names = {answer.get("ARN"), answer.get("Name")} if isinstance(answer, dict) else set()
        if reserved is not None and (reserved in names or names & _reserved_names):
            raise SecretError(f"basicAuthSecretId {secret_id!r} {_RESERVED}")

    if reserved is not None and (secret_id == reserved or secret_id in _reserved_names):
        raise SecretError(f"basicAuthSecretId {secret_id!r} {_RESERVED}")
    return _read(
        secret_id,
        "basicAuthSecretId",
        _credentials,
        "is not a JSON object with string username and password",
        own,
        answer_by,
    )


_RESERVED = "names the function's own cache key secret, which holds no credentials"
# The cache key secret's ARN and name, as its reads answered (from_secret refuses them).
_reserved_names: set[str] = set()


def _remember_own(answer: Any) -> None:
    if isinstance(answer, dict):
        for name in (answer.get("ARN"), answer.get("Name")):
            if isinstance(name, str) and name:
                with _cache_lock:
                    _reserved_names.add(name)


def cache_key(secret_id: str, answer_by: float | None = None) -> bytes:
    """The key of the credential hash in the shared store, read from a secret, cached while warm.

    A failure is remembered for KEY_FAILURE_SECONDS: the key serves sharing alone, and a Secrets
    Manager that does not answer would otherwise cost every credentialed audit its read's
    timeouts (up to 8 s), where sharing off costs nothing (contract section 7)."""
    now = time.monotonic()
    with _cache_lock:
        failed = _key_failures.get(secret_id)
        if failed is not None and failed[0] > now:
            raise SecretError(failed[1])
    try:
        return _read(
            secret_id,
            "cache key secret",
            _key,
            f"is shorter than {MIN_CACHE_KEY_CHARS} characters",
            _remember_own,
            answer_by,
        )
    except SecretError as e:
        if answer_by is None or time.monotonic() < answer_by:
            # Not for the audit's own time running out: the next audit has its own.
            with _cache_lock:
                _key_failures[secret_id] = (time.monotonic() + KEY_FAILURE_SECONDS, str(e))
        raise


def resolve(
    inline: Credentials | None,
    secret_id: str | None,
    unreadable: str | None = None,
    reserved: str | None = None,
    answer_by: float | None = None,
) -> Credentials | None:
    """The credentials of a request: inline, else read through its secret id, if any; a
    basicAuthSecretId that is no string (`unreadable`, its JSON type), or that names the cache key
    secret (`reserved`), is a SecretError. No read outlasts answer_by (time.monotonic())."""
    if inline is not None:
        return inline
    if unreadable is not None:
        raise SecretError(f"basicAuthSecretId ({unreadable}) is no secret id (not a string)")
    return from_secret(secret_id, reserved, answer_by) if secret_id else None


def clear_cache() -> None:
    """Forget cached secrets and the client (for tests that change the endpoint)."""
    global _client
    with _cache_lock:
        _cache.clear()
        _key_failures.clear()
        _reserved_names.clear()
    _client = None
