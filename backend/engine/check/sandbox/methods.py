"""What `.name` reaches on a value: the attributes of `SandboxObject`s and the allowed methods of built-ins.

Each built-in type has a fixed table of allowed methods (never `format` or `format_map`, which could reach
attributes through a format string); `attribute_of` binds one to its receiver as a `BoundMethod`. Methods whose
result can grow (`center`, `replace`, `join`, …) are measured by `precheck_method` before they run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from engine.check.errors import EvaluationError, SandboxLimitError, SandboxSyntaxError
from engine.check.sandbox.limits import SandboxLimits
from engine.check.sandbox.values import SandboxObject, type_name


class MethodCaller(Protocol):
    """What calling a method needs from the interpreter: its limits, and its way of reading a collection."""

    @property
    def limits(self) -> SandboxLimits: ...

    def materialise(self, value: Any) -> list[Any]: ...


@dataclass(frozen=True)
class BoundMethod:
    """An allowed method of a built-in value, ready to call."""

    name: str
    receiver: Any
    method: Callable[..., Any]

    def invoke(self, interpreter: MethodCaller, args: list[Any], kwargs: dict[str, Any]) -> Any:
        precheck_method(interpreter, self.name, self.receiver, args)
        result = self.method(self.receiver, *args, **kwargs)
        return result

    def __repr__(self) -> str:
        return f"<method {self.name}>"


def _as_list(method: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(receiver: Any, *args: Any, **kwargs: Any) -> Any:
        return list(method(receiver, *args, **kwargs))

    return wrapper


_STR_METHODS: dict[str, Callable[..., Any]] = {
    name: getattr(str, name)  # built at import from fixed names; rules never reach getattr
    for name in [
        "capitalize",
        "casefold",
        "center",
        "count",
        "endswith",
        "find",
        "index",
        "isalnum",
        "isalpha",
        "isascii",
        "isdecimal",
        "isdigit",
        "isidentifier",
        "islower",
        "isnumeric",
        "isspace",
        "istitle",
        "isupper",
        "join",
        "ljust",
        "lower",
        "lstrip",
        "partition",
        "removeprefix",
        "removesuffix",
        "replace",
        "rfind",
        "rindex",
        "rjust",
        "rpartition",
        "rsplit",
        "rstrip",
        "split",
        "splitlines",
        "startswith",
        "strip",
        "swapcase",
        "title",
        "upper",
        "zfill",
    ]
}
_LIST_METHODS: dict[str, Callable[..., Any]] = {"count": list.count, "index": list.index, "copy": list.copy}
_TUPLE_METHODS: dict[str, Callable[..., Any]] = {"count": tuple.count, "index": tuple.index}
_DICT_METHODS: dict[str, Callable[..., Any]] = {
    "get": dict.get,
    "keys": _as_list(dict.keys),
    "values": _as_list(dict.values),
    "items": _as_list(dict.items),
    "copy": dict.copy,
}
_SET_METHODS: dict[str, Callable[..., Any]] = {
    name: getattr(frozenset, name)
    for name in [
        "union",
        "intersection",
        "difference",
        "symmetric_difference",
        "issubset",
        "issuperset",
        "isdisjoint",
        "copy",
    ]
}
_INT_METHODS: dict[str, Callable[..., Any]] = {"bit_length": int.bit_length}
_FLOAT_METHODS: dict[str, Callable[..., Any]] = {"is_integer": float.is_integer}

METHODS: dict[type, dict[str, Callable[..., Any]]] = {
    str: _STR_METHODS,
    list: _LIST_METHODS,
    tuple: _TUPLE_METHODS,
    dict: _DICT_METHODS,
    set: _SET_METHODS,
    frozenset: _SET_METHODS,
    int: _INT_METHODS,
    bool: _INT_METHODS,
    float: _FLOAT_METHODS,
}


def attribute_of(value: Any, name: str) -> Any:
    """`value.name`: an attribute of a SandboxObject, or an allowed method bound to its receiver."""
    if name.startswith("_"):
        raise SandboxSyntaxError(f"attributes starting with '_' are not allowed (.{name})")
    if isinstance(value, SandboxObject):
        return value.sandbox_attribute(name)
    methods = METHODS.get(type(value))
    if methods is not None and name in methods:
        return BoundMethod(name, value, methods[name])
    if name in ("format", "format_map"):
        raise EvaluationError(f".{name}() is not allowed in rules; use an f-string")
    raise EvaluationError(f"{type_name(value)} has no attribute or method .{name} available in rules")


def precheck_method(interpreter: MethodCaller, name: str, receiver: Any, args: list[Any]) -> None:
    """Refuse method calls whose result would be too large before building it."""
    limits = interpreter.limits
    if name in ("center", "ljust", "rjust", "zfill") and args:
        width = args[0]
        if isinstance(width, int) and width > limits.max_string:
            raise SandboxLimitError(f".{name}({width}) would exceed {limits.max_string:,} characters")
    elif name == "replace" and isinstance(receiver, str) and len(args) >= 2:
        old, new = args[0], args[1]
        if isinstance(old, str) and isinstance(new, str):
            occurrences = receiver.count(old) if old else len(receiver) + 1
            if len(receiver) + occurrences * max(len(new) - len(old), 0) > limits.max_string:
                raise SandboxLimitError(f".replace() would exceed {limits.max_string:,} characters")
    elif name == "join" and isinstance(receiver, str) and args:
        items = interpreter.materialise(args[0])
        total = len(receiver) * max(len(items) - 1, 0)
        for item in items:
            total += len(item) if isinstance(item, str) else 0
            if total > limits.max_string:
                raise SandboxLimitError(f".join() would exceed {limits.max_string:,} characters")
        args[0] = items
