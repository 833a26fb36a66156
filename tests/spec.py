"""Validate JSON against Canton's OpenAPI spec (3.5) — reusable by every test.

The spec is OpenAPI 3.0.3, whose schema dialect is not plain JSON Schema: it
has ``nullable`` and, more importantly, Canton *prints* absent optional fields
as ``null`` although the spec never says so. Before validating we therefore
rewrite every schema so that non-required properties (and ``nullable`` ones)
also admit ``null``. Refs ``#/components/schemas/X`` resolve inside the
rewritten document.

Usage::

    from tests.spec import validate, validate_response, requires_spec

    @requires_spec
    def test_x():
        validate("JsCantonError", body)                 # dict or pydantic model
        validate_response("GET", "/v2/users/alice", 200, body)

The spec location comes from ``$LEDGER_API_SPEC`` (relative paths resolve
against the repo root), default ``../shared/reference/canton-3.5/openapi.yaml``.

Without the spec the suite still runs: a test that checks nothing but the spec
is marked ``requires_spec`` and skips with the reason; ``validate`` and
``validate_response``, called inside tests that check more than the spec,
check nothing, and the run's header says so (``missing_reason``).
"""

from __future__ import annotations

import copy
import os
import re
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

__all__ = [
    "REPO_ROOT",
    "load_spec",
    "missing_reason",
    "require_spec",
    "requires_spec",
    "required_keys",
    "schema_keys",
    "spec_available",
    "spec_path",
    "validate",
    "validate_response",
]

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SPEC = "../shared/reference/canton-3.5/openapi.yaml"


def spec_path() -> Path:
    path = Path(os.environ.get("LEDGER_API_SPEC", DEFAULT_SPEC))
    return path if path.is_absolute() else (REPO_ROOT / path).resolve()


def spec_available() -> bool:
    return spec_path().is_file()


def missing_reason() -> str:
    return f"OpenAPI spec not found at {spec_path()} (set LEDGER_API_SPEC)"


requires_spec = pytest.mark.skipif(not spec_available(), reason=missing_reason())


def require_spec() -> dict[str, Any]:
    """Return the parsed spec, or skip the calling test if it is missing."""
    if not spec_available():
        pytest.skip(missing_reason())
    return load_spec()


@cache
def load_spec() -> dict[str, Any]:
    with spec_path().open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def _raw_schemas() -> dict[str, Any]:
    return load_spec()["components"]["schemas"]


def schema_keys(name: str) -> set[str]:
    """Wire keys of a schema: its properties, or for a oneOf its alternative keys."""
    schema = _raw_schemas()[name]
    if "oneOf" in schema:
        return {key for alt in schema["oneOf"] for key in alt.get("properties", {})}
    return set(schema.get("properties", {}))


def required_keys(name: str) -> set[str]:
    return set(_raw_schemas()[name].get("required", []))


def _or_null(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def _relax(node: Any) -> Any:
    """OpenAPI 3.0 schema -> JSON Schema that admits Canton's printed nulls."""
    if isinstance(node, list):
        return [_relax(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _relax(value) for key, value in node.items() if key != "nullable"}
    if node.get("nullable"):
        out = _or_null(out)
    if isinstance(node.get("properties"), dict):
        required = set(node.get("required", []))
        out["properties"] = {
            key: prop if key in required else _or_null(prop) for key, prop in out["properties"].items()
        }
    return out


@cache
def _document() -> dict[str, Any]:
    return {"components": {"schemas": _relax(copy.deepcopy(_raw_schemas()))}}


def _validate_schema(schema: dict[str, Any], instance: Any) -> None:
    if hasattr(instance, "model_dump"):
        instance = instance.model_dump(mode="json", by_alias=True)
    root = {**_document(), **_relax(schema)}
    jsonschema.Draft202012Validator(root).validate(instance)


def validate(schema_name: str, instance: Any) -> None:
    """Raise ``jsonschema.ValidationError`` unless ``instance`` matches the schema.

    ``instance`` is decoded JSON or a pydantic model (dumped by alias).
    Append ``[]`` to the name to validate a JSON array of that schema.
    Without the spec, nothing is checked (see the module's docstring).
    """
    if not spec_available():
        return
    if schema_name.endswith("[]"):
        schema_name = schema_name[:-2]
        items = [_model_json(item) for item in instance] if isinstance(instance, list) else instance
        _validate_schema({"type": "array", "items": {"$ref": f"#/components/schemas/{schema_name}"}}, items)
        return
    if schema_name not in _raw_schemas():
        raise KeyError(f"no schema {schema_name!r} in {spec_path()}")
    _validate_schema({"$ref": f"#/components/schemas/{schema_name}"}, instance)


def _model_json(item: Any) -> Any:
    return item.model_dump(mode="json", by_alias=True) if hasattr(item, "model_dump") else item


def _match_path(path: str) -> str:
    paths = load_spec()["paths"]
    path = path.split("?", 1)[0]
    if path in paths:
        return path
    for template in sorted(paths, key=lambda t: t.count("{")):
        pattern = "^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(pattern, path):
            return template
    raise KeyError(f"no path in the spec matches {path!r}")


def validate_response(method: str, path: str, status: int, body: Any) -> None:
    """Validate a JSON response body against the operation's declared schema.

    ``path`` may be concrete (``/v2/users/alice``); it is matched to the spec's
    templates. Statuses without a JSON schema of their own use the ``default``
    response (JsCantonError), which is what Canton sends for JSON errors.
    Without the spec, nothing is checked (see the module's docstring).
    """
    if not spec_available():
        return
    operation = load_spec()["paths"][_match_path(path)][method.lower()]
    responses = operation["responses"]
    for key in (str(status), "default"):
        schema = responses.get(key, {}).get("content", {}).get("application/json", {}).get("schema")
        if schema is not None:
            _validate_schema(
                schema,
                _model_json(body) if not isinstance(body, list) else [_model_json(item) for item in body],
            )
            return
    raise KeyError(f"{method} {path} declares no JSON body for status {status}")
