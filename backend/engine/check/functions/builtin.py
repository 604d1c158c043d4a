"""Python-like built-ins (kind "builtin"): len, min, max, sum, sorted, int, str, dict, range, zip, …

They behave like Python's, except that every collection they read goes through the interpreter's
`materialise` / `iterate`, so its item and size limits hold, and their argument checks speak the rule's terms.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.check.errors import EvaluationError, SandboxLimitError
from engine.check.functions.registry import LIBRARY
from engine.check.namespace import Section
from engine.check.sandbox import Interpreter, type_name


def _numbers(interpreter: Interpreter, values: Any, function: str) -> list[Any]:
    items = interpreter.materialise(values)
    for item in items:
        if not isinstance(item, int | float):
            raise EvaluationError(f"{function}() needs numbers, got a {type_name(item)}")
    return items


def _builtin(name: str, signature: str, summary: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return LIBRARY.function(name, kind="builtin", summary=summary, signature=signature)


@_builtin("len", "(x)", "number of items or characters")
def _len(interpreter: Interpreter, value: Any) -> int:
    if isinstance(value, str | list | tuple | dict | set | frozenset | range):
        return len(value)
    if isinstance(value, Section):
        return len(value)
    return len(interpreter.materialise(value))


@_builtin("abs", "(x)", "absolute value")
def _abs(interpreter: Interpreter, value: Any) -> Any:
    if not isinstance(value, int | float):
        raise EvaluationError(f"abs() needs a number, got a {type_name(value)}")
    return abs(value)


def _extremum(pick: Callable[..., Any], name: str) -> Callable[..., Any]:
    def impl(interpreter: Interpreter, *values: Any, default: Any = ...) -> Any:
        items = interpreter.materialise(values[0]) if len(values) == 1 else list(values)
        if not items:
            if default is ...:
                raise EvaluationError(f"{name}() of an empty sequence (give default=…)")
            return default
        return pick(items)

    return impl


_builtin("min", "(values, default=…)", "smallest item")(_extremum(min, "min"))
_builtin("max", "(values, default=…)", "largest item")(_extremum(max, "max"))


@_builtin("sum", "(numbers, start=0)", "sum of numbers")
def _sum(interpreter: Interpreter, values: Any, start: float = 0) -> Any:
    if not isinstance(start, int | float):
        raise EvaluationError("sum() adds numbers only")
    return sum(_numbers(interpreter, values, "sum"), start)


@_builtin("mean", "(numbers)", "arithmetic mean (None for no numbers)")
def _mean(interpreter: Interpreter, values: Any) -> float | None:
    items = _numbers(interpreter, values, "mean")
    return sum(items) / len(items) if items else None


@_builtin("round", "(x, digits=None)", "rounded number")
def _round(interpreter: Interpreter, value: Any, digits: int | None = None) -> Any:
    if not isinstance(value, int | float):
        raise EvaluationError(f"round() needs a number, got a {type_name(value)}")
    if digits is not None and (not isinstance(digits, int) or abs(digits) > 100):
        raise EvaluationError("round() digits must be an integer between -100 and 100")
    return round(value) if digits is None else round(value, digits)


@_builtin("sorted", "(values, reverse=False)", "sorted list")
def _sorted(interpreter: Interpreter, values: Any, reverse: bool = False) -> list[Any]:
    return sorted(interpreter.materialise(values), reverse=bool(reverse))


@_builtin("reversed", "(values)", "list in reverse order")
def _reversed(interpreter: Interpreter, values: Any) -> list[Any]:
    return interpreter.materialise(values)[::-1]


@_builtin("any", "(values)", "True if some item is true")
def _any(interpreter: Interpreter, values: Any) -> bool:
    return any(bool(item) for item in interpreter.iterate(values))


@_builtin("all", "(values)", "True if every item is true")
def _all(interpreter: Interpreter, values: Any) -> bool:
    return all(bool(item) for item in interpreter.iterate(values))


@_builtin("int", "(x)", "integer from a number or text")
def _int(interpreter: Interpreter, value: Any = 0) -> int:
    if isinstance(value, str) and len(value) > 1000:
        raise SandboxLimitError("int() of more than 1000 characters")
    if not isinstance(value, str | int | float):
        raise EvaluationError(f"int() needs a number or text, got a {type_name(value)}")
    return int(value)


@_builtin("float", "(x)", "decimal number from a number or text")
def _float(interpreter: Interpreter, value: Any = 0.0) -> float:
    if not isinstance(value, str | int | float):
        raise EvaluationError(f"float() needs a number or text, got a {type_name(value)}")
    if isinstance(value, str) and len(value) > 1000:
        raise SandboxLimitError("float() of more than 1000 characters")
    return float(value)


@_builtin("str", "(x)", "text of a value")
def _str(interpreter: Interpreter, value: Any = "") -> str:
    return interpreter.to_text(value)


@_builtin("bool", "(x)", "truth value")
def _bool(interpreter: Interpreter, value: Any = False) -> bool:
    return bool(value)


@_builtin("list", "(values)", "list of the items")
def _list(interpreter: Interpreter, values: Any = ()) -> list[Any]:
    return interpreter.materialise(values)


@_builtin("tuple", "(values)", "tuple of the items")
def _tuple(interpreter: Interpreter, values: Any = ()) -> tuple[Any, ...]:
    return tuple(interpreter.materialise(values))


@_builtin("set", "(values)", "set of the items")
def _set(interpreter: Interpreter, values: Any = ()) -> set[Any]:
    return set(interpreter.materialise(values))


@_builtin("dict", "(pairs, **names)", "dictionary")
def _dict(interpreter: Interpreter, pairs: Any = (), **names: Any) -> dict[Any, Any]:
    result: dict[Any, Any] = {}
    if isinstance(pairs, dict):
        result.update(pairs)
    else:
        for pair in interpreter.materialise(pairs):
            if not isinstance(pair, list | tuple) or len(pair) != 2:
                raise EvaluationError("dict() needs (key, value) pairs")
            result[pair[0]] = pair[1]
    result.update(names)
    return result


@_builtin("range", "(stop) or (start, stop, step=1)", "integers from start to stop")
def _range(interpreter: Interpreter, *bounds: Any) -> range:
    if not 1 <= len(bounds) <= 3 or not all(isinstance(b, int) for b in bounds):
        raise EvaluationError("range() needs one to three integers")
    return range(*bounds)


@_builtin("enumerate", "(values, start=0)", "(index, item) pairs")
def _enumerate(interpreter: Interpreter, values: Any, start: int = 0) -> list[tuple[int, Any]]:
    if not isinstance(start, int):
        raise EvaluationError("enumerate() start must be an integer")
    return list(enumerate(interpreter.materialise(values), start))


@_builtin("zip", "(a, b, …)", "tuples of the items at the same position")
def _zip(interpreter: Interpreter, *sequences: Any) -> list[tuple[Any, ...]]:
    return list(zip(*(interpreter.materialise(seq) for seq in sequences), strict=False))
