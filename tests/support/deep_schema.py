"""The deep audit's JSON document checked against its published schema,
docs/deep-document.schema.json: every document the tests produce goes through `validated`."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, TypeVar

import jsonschema

__all__ = ["SCHEMA_PATH", "schema", "validated"]

_T = TypeVar("_T")

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "docs" / "deep-document.schema.json"


@functools.cache
def _validator() -> jsonschema.protocols.Validator:
    found = schema()
    cls = jsonschema.validators.validator_for(found)
    cls.check_schema(found)
    validator: jsonschema.protocols.Validator = cls(found)
    return validator


def schema() -> dict[str, Any]:
    """The published schema."""
    loaded: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return loaded


def validated(document: _T) -> _T:
    """The document, after checking it against the schema (AssertionError with every error)."""
    found: Any = document
    errors = sorted(_validator().iter_errors(found), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message[:300]}" for e in errors)
    return document
