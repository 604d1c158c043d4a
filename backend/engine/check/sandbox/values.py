"""What a rule's values may be, where its variables live, and where the names it reads come from.

Rules handle plain Python values (None, bool, int, float, str, list, tuple, dict, set, range) plus the host's
own `SandboxObject`s, whose attributes a rule may read (conversation views, verdicts). The interpreter finds
the names a rule reads through the `Names` protocol, so it never imports the modules that provide them
(functions are found the same way, see `interpreter.FunctionTable`). A rule's own variables live in chained
`Scope`s, one per block or comprehension.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.check.errors import EvaluationError


class SandboxObject:
    """A value whose attributes a rule may read (conversation views, verdicts). Subclasses decide which."""

    __slots__ = ()

    def sandbox_attribute(self, name: str) -> Any:
        raise EvaluationError(f"{self.sandbox_type()} has no attribute {name!r}")

    def sandbox_item(self, key: Any) -> Any:
        raise EvaluationError(f"{self.sandbox_type()} cannot be indexed")

    def sandbox_type(self) -> str:
        return "this value"

    def sandbox_iter(self) -> Iterator[Any]:
        raise EvaluationError(f"{self.sandbox_type()} cannot be iterated")

    def sandbox_contains(self, item: Any) -> bool:
        raise EvaluationError(f"'in' is not supported for {self.sandbox_type()}")


class Names(Protocol):
    """The names a rule sees besides its own variables and the functions: one conversation, `conv`, …"""

    def resolve(self, name: str) -> Any:
        """The value of `name`; raise EvaluationError for an ambiguous name, KeyError when unknown."""
        ...

    def available(self) -> list[str]: ...


class NoNames:
    def resolve(self, name: str) -> Any:
        raise KeyError(name)

    def available(self) -> list[str]:
        return []


@dataclass
class Scope:
    """Variables of a block or a comprehension, chained to the enclosing scope."""

    values: dict[str, Any] = field(default_factory=dict)
    parent: Scope | None = None

    def find(self, name: str) -> tuple[bool, Any]:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.values:
                return True, scope.values[name]
            scope = scope.parent
        return False, None


class LazyGenerator:
    """A generator expression: evaluated item by item, each item paid for in interpreter steps."""

    __slots__ = ("_iterator",)

    def __init__(self, iterator: Iterator[Any]) -> None:
        self._iterator = iterator

    def __iter__(self) -> Iterator[Any]:
        return self._iterator

    def __repr__(self) -> str:
        return "<generator>"


PRIMITIVES = (type(None), bool, int, float, str)

_TYPE_NAMES: dict[type, str] = {
    bool: "bool",
    int: "int",
    float: "float",
    str: "str",
    list: "list",
    tuple: "tuple",
    dict: "dict",
    set: "set",
    frozenset: "frozenset",
    range: "range",
}


def type_name(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, SandboxObject):
        return value.sandbox_type()
    return _TYPE_NAMES.get(type(value), "value")
