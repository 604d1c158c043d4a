"""`JsonValue`: any JSON value, validated as JSON (an object, a list, a string, a number, a boolean or null,
nested) and published in the API schema as one of those kinds — so the generated web client reads a variable's
value, an extracted output or a chatbot's raw reply as JSON, never as an unknown. The schema names the kind of
the value and leaves what an object or a list holds open: a recursive schema makes the web client's response
types too deep for TypeScript to compare. Pydantic's own `JsonValue` validates the same values but publishes an
empty schema."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

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


def strings_in(value: Any) -> Iterator[str]:
    """Every string inside a JSON-like value (dict values, list and tuple items, nested), depth first."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for inner in value.values():
            yield from strings_in(inner)
    elif isinstance(value, list | tuple):
        for inner in value:
            yield from strings_in(inner)
