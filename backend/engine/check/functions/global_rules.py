"""Functions of global rules (kind "global", only in `conversations: all` rules): is_unique, exists, num_exist.

Each takes an expression in quotes and evaluates it, in the sandbox, on every conversation of the rule's
filtered set, sharing the calling interpreter's limits and step counter.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.check.errors import EvaluationError, SandboxError
from engine.check.functions.registry import LIBRARY, CallContext, Verdict, call_context
from engine.check.namespace import ConversationView, SingleNames
from engine.check.sandbox import Interpreter, compile_rule_code


def _population(interpreter: Interpreter, function: str) -> tuple[ConversationView, ...]:
    population = call_context(interpreter).population
    if population is None:
        raise EvaluationError(f"{function}() only works in global rules (conversations: all)")
    return population


def _each(interpreter: Interpreter, source: Any, function: str) -> Iterable[tuple[ConversationView, Any]]:
    """Evaluate the expression text `source` on every conversation of the filtered set, in the sandbox."""
    if not isinstance(source, str):
        raise EvaluationError(f"{function}() needs an expression in quotes, e.g. {function}('order_id')")
    program = compile_rule_code(source, interpreter.limits)
    context = call_context(interpreter)
    for view in _population(interpreter, function):
        inner = Interpreter(
            SingleNames(view),
            interpreter.functions,
            interpreter.limits,
            context=CallContext(conversation=view, judge=context.judge, registry=context.registry),
        )
        inner.steps = interpreter.steps
        try:
            value = inner.run(program)
        except SandboxError as exc:
            raise EvaluationError(
                f"{function}({source!r}) on conversation {view.id}: {exc.message}"
            ) from None
        finally:
            interpreter.steps = inner.steps
        yield view, value


@LIBRARY.function(
    "is_unique",
    kind="global",
    summary="True when no two filtered conversations share a non-None value of the expression",
    signature="('expression')",
)
def is_unique(interpreter: Interpreter, source: Any) -> Verdict:
    seen: dict[Any, str] = {}
    for view, value in _each(interpreter, source, "is_unique"):
        if value is None:
            continue
        key: Any
        try:
            key = ("value", value, type(value).__name__)
            hash(key)
        except TypeError:
            key = ("text", interpreter.to_text(value, repr_=True))
        if key in seen:
            return Verdict.no(f"conversations {seen[key]} and {view.id} both have {source} = {value!r}")
        seen[key] = view.id
    return Verdict.yes()


@LIBRARY.function(
    "exists",
    kind="global",
    summary="True when the expression holds for some filtered conversation",
    signature="('expression')",
)
def exists(interpreter: Interpreter, source: Any) -> bool:
    return any(bool(value) for _, value in _each(interpreter, source, "exists"))


@LIBRARY.function(
    "num_exist",
    kind="global",
    summary="how many filtered conversations the expression holds for",
    signature="('expression')",
)
def num_exist(interpreter: Interpreter, source: Any) -> int:
    return sum(1 for _, value in _each(interpreter, source, "num_exist") if value)
