"""The operators a rule may use: their symbols (for the compiler's allow-list and messages) and their meaning.

Arithmetic and bitwise operators map to Python's own; the interpreter checks their operands against the limits
first (see `limits.check_operands`). Comparisons are Python's too, except `in`, which only accepts the
containers a rule may hold and asks `SandboxObject`s through `sandbox_contains`. Indexing and slicing
(`item_of`, `slice_of`) only reach strings, sequences, ranges, dicts and `SandboxObject`s, and say which
key or index was missing.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from engine.check.errors import EvaluationError
from engine.check.sandbox.messages import short_repr
from engine.check.sandbox.values import SandboxObject, type_name

OPERATORS: dict[type[ast.AST], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitOr: "|",
    ast.BitAnd: "&",
    ast.BitXor: "^",
}

BINARY: dict[type[ast.AST], Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
    ast.LShift: lambda a, b: a << b,
    ast.RShift: lambda a, b: a >> b,
    ast.BitOr: lambda a, b: a | b,
    ast.BitAnd: lambda a, b: a & b,
    ast.BitXor: lambda a, b: a ^ b,
}


def contains(container: Any, item: Any) -> bool:
    """`item in container`, for the containers a rule may hold."""
    if isinstance(container, SandboxObject):
        return container.sandbox_contains(item)
    if isinstance(container, str) and not isinstance(item, str):
        raise EvaluationError(f"'in <string>' needs a string on the left, got {type_name(item)}")
    if not isinstance(container, str | list | tuple | set | frozenset | dict | range):
        raise EvaluationError(f"'in' is not supported for {type_name(container)}")
    return item in container


COMPARE: dict[type[ast.AST], Callable[[Any, Any], bool]] = {
    ast.Eq: lambda a, b: bool(a == b),
    ast.NotEq: lambda a, b: bool(a != b),
    ast.Lt: lambda a, b: bool(a < b),
    ast.LtE: lambda a, b: bool(a <= b),
    ast.Gt: lambda a, b: bool(a > b),
    ast.GtE: lambda a, b: bool(a >= b),
    ast.In: lambda a, b: contains(b, a),
    ast.NotIn: lambda a, b: not contains(b, a),
    ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b,
}


def item_of(value: Any, key: Any) -> Any:
    """`value[key]`, for the values a rule may index."""
    if isinstance(value, SandboxObject):
        return value.sandbox_item(key)
    if isinstance(value, dict):
        if key not in value:
            raise EvaluationError(f"key {short_repr(key)} not found; keys are: {short_repr(list(value))}")
        return value[key]
    if isinstance(value, str | list | tuple | range):
        if not isinstance(key, int):
            raise EvaluationError(f"{type_name(value)} indices must be integers, got {type_name(key)}")
        if not -len(value) <= key < len(value):
            raise EvaluationError(
                f"index {key} is out of range for a {type_name(value)} of length {len(value)}"
            )
        return value[key]
    raise EvaluationError(f"{type_name(value)} cannot be indexed")


def slice_of(value: Any, parts: list[Any]) -> Any:
    """`value[lower:upper:step]`, for the sequences a rule may slice; `parts` are the evaluated bounds."""
    for part in parts:
        if part is not None and not isinstance(part, int):
            raise EvaluationError(f"slice bounds must be integers, got {type_name(part)}")
    if not isinstance(value, str | list | tuple | range):
        raise EvaluationError(f"{type_name(value)} cannot be sliced")
    return value[slice(*parts)]
