"""Deterministic sample data that satisfies a JSON schema, for answering structured calls nobody scripted.

Covers what pydantic emits: objects (every property, so optional ones are exercised too), arrays, strings
(with lengths and common formats), integers and numbers within bounds, booleans, null, enums, consts,
`$ref`/`$defs`, `anyOf`/`oneOf` (first usable branch) and `allOf` (merged). Patterns are not generated.
"""

from __future__ import annotations

import math
from typing import Any

_STRING_FORMATS = {
    "date": "2026-01-15",
    "date-time": "2026-01-15T10:30:00Z",
    "time": "10:30:00",
    "email": "someone@example.com",
    "uri": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000000",
}
_MAX_DEPTH = 8


def sample_from_schema(schema: dict[str, Any], *, label: str = "sample") -> Any:
    """A value valid against `schema`; `label` seeds string contents so answers are recognisable."""
    return _sample(schema, schema, label, 0)


def _resolve(root: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    seen = 0
    while "$ref" in schema and seen < _MAX_DEPTH:
        path = str(schema["$ref"]).removeprefix("#/").split("/")
        target: Any = root
        for part in path:
            target = target[part]
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        seen += 1
    return schema


def _sample(root: dict[str, Any], schema: dict[str, Any], label: str, depth: int) -> Any:
    schema = _resolve(root, schema)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema and depth > 0:
        return schema["default"]
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            branches = [_resolve(root, b) for b in schema[key]]
            # Prefer a real value over null so callers see populated optional fields.
            usable = [b for b in branches if b.get("type") != "null"] or branches
            return _sample(root, usable[0], label, depth + 1)
    if schema.get("allOf"):
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            merged.update(_resolve(root, part))
        return _sample(root, merged, label, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None:
        kind = "object" if "properties" in schema else "string"
    if kind == "object":
        if depth >= _MAX_DEPTH:
            return {}
        properties = schema.get("properties", {})
        return {name: _sample(root, sub, name, depth + 1) for name, sub in properties.items()}
    if kind == "array":
        count = max(int(schema.get("minItems", 1)), 1) if depth < _MAX_DEPTH else 0
        count = min(count, int(schema.get("maxItems", count)))
        items = schema.get("items") or {}
        if schema.get("prefixItems"):
            return [_sample(root, s, label, depth + 1) for s in schema["prefixItems"]]
        return [_sample(root, items, f"{label}{i + 1}", depth + 1) for i in range(count)]
    if kind == "string":
        return _string(schema, label)
    if kind in ("integer", "number"):
        return _number(schema, integer=kind == "integer")
    if kind == "boolean":
        return True
    return None


def _string(schema: dict[str, Any], label: str) -> str:
    text = _STRING_FORMATS.get(str(schema.get("format", "")), f"{label} example")
    low = int(schema.get("minLength", 0))
    high = schema.get("maxLength")
    if len(text) < low:
        text = text + "x" * (low - len(text))
    if high is not None:
        text = text[: int(high)]
    return text


def _number(schema: dict[str, Any], *, integer: bool) -> int | float:
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    value: float = 1.0
    if low is not None and high is not None:
        value = (float(low) + float(high)) / 2
    elif low is not None:
        value = float(low) + 1
    elif high is not None:
        value = float(high) - 1
    if integer:
        whole = math.floor(value)
        if "exclusiveMinimum" in schema and whole <= schema["exclusiveMinimum"]:
            whole += 1
        return whole
    return value
