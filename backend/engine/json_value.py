"""`JsonValue`: any JSON value, validated as JSON (an object, a list, a string, a number, a boolean or null,
nested) and published in the API schema as one of those kinds — so the generated web client reads a variable's
value, an extracted output or a chatbot's raw reply as JSON, never as an unknown. The schema names the kind of
the value and leaves what an object or a list holds open: a recursive schema makes the web client's response
types too deep for TypeScript to compare. Pydantic's own `JsonValue` validates the same values but publishes an
empty schema."""

from __future__ import annotations

from typing import Annotated

from pydantic import WithJsonSchema
from typing_extensions import TypeAliasType

_SCHEMA = {
    "anyOf": [
        {"type": "object", "additionalProperties": True},
        {"type": "array", "items": {}},
        {"type": "string"},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "null"},
    ]
}

JsonValue = TypeAliasType(
    "JsonValue",
    Annotated[
        "dict[str, JsonValue] | list[JsonValue] | str | int | float | bool | None",
        WithJsonSchema(_SCHEMA),
    ],
)
