"""The function registry: how a library function is declared, called and listed, and the values it returns.

A theme module declares a function with `@LIBRARY.function(name, kind=…, summary=…, signature=…)`; the
registry is what the interpreter looks names up in, what `parley check --list-functions` lists and what the web
editor completes. Every implementation gets the `Interpreter` first (for its limits and its `context`, a
`CallContext`: the current conversation, the filtered set of a global rule, the judge) and the rule's
arguments after it. `Verdict` is the yes/no-with-a-reason several functions return.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.check import judge as judges
from engine.check.errors import EvaluationError, SandboxError
from engine.check.namespace import ConversationView
from engine.check.sandbox import Interpreter, SandboxCallable, SandboxObject

Kind = Literal["builtin", "local", "llm", "global"]


class Verdict(SandboxObject):
    """A yes/no with a reason, returned by functions that explain failures (only_talks_about, is_unique…).

    It behaves as a bool in `and`, `or`, `not` and `== True`, so negating it is safe; the checker shows
    `reason` when the rule fails on it.
    """

    __slots__ = ("ok", "reason")

    def __init__(self, *, ok: bool, reason: str = "") -> None:
        self.ok = ok
        self.reason = reason

    @classmethod
    def yes(cls) -> Verdict:
        return cls(ok=True)

    @classmethod
    def no(cls, reason: str) -> Verdict:
        return cls(ok=False, reason=reason)

    def __bool__(self) -> bool:
        return self.ok

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Verdict):
            return self.ok == other.ok
        if isinstance(other, bool):
            return self.ok is other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.ok)

    def __repr__(self) -> str:
        return "True" if self.ok else (self.reason or "False")

    def sandbox_type(self) -> str:
        return "verdict"

    def sandbox_attribute(self, name: str) -> Any:
        if name == "ok":
            return self.ok
        if name == "reason":
            return self.reason
        raise EvaluationError(f"a verdict has .ok and .reason, not .{name}")


@dataclass
class CallContext:
    """What library functions may use besides their arguments."""

    conversation: ConversationView | None = None
    population: tuple[ConversationView, ...] | None = None  # the filtered set of a global rule
    judge: judges.Judge | None = None
    registry: FunctionRegistry | None = None

    def view(self, function: str, conv: Any = None) -> ConversationView:
        if conv is not None:
            if not isinstance(conv, ConversationView):
                raise EvaluationError(f"{function}(conv=…) needs a conversation such as conv[0]")
            return conv
        if self.conversation is None:
            raise EvaluationError(
                f"{function}() reads one conversation; in this rule name it, e.g. {function}(conv=conv[0])"
            )
        return self.conversation


def call_context(interpreter: Interpreter) -> CallContext:
    """The `CallContext` of the evaluation calling a library function (an empty one outside a check)."""
    context = interpreter.context
    if not isinstance(context, CallContext):
        return CallContext()
    return context


class Function(SandboxCallable):
    """One registered function."""

    def __init__(
        self, name: str, impl: Callable[..., Any], *, kind: Kind, summary: str, signature: str
    ) -> None:
        self.name = name
        self.impl = impl
        self.kind = kind
        self.summary = summary
        self.signature = signature

    def invoke(self, interpreter: Interpreter, args: list[Any], kwargs: dict[str, Any]) -> Any:
        try:
            return self.impl(interpreter, *args, **kwargs)
        except SandboxError:
            raise
        except (RecursionError, MemoryError):
            raise
        except TypeError as exc:
            message = str(exc)
            if "positional argument" in message or "keyword argument" in message or "missing" in message:
                raise EvaluationError(f"wrong arguments for {self.name}{self.signature}") from None
            raise EvaluationError(f"{self.name}(): {message}") from None
        except Exception as exc:  # noqa: BLE001 - a library function's failure is this check's error
            raise EvaluationError(f"{self.name}(): {exc}") from None

    def describe(self) -> dict[str, str]:
        return {
            "name": self.name,
            "kind": self.kind,
            "signature": f"{self.name}{self.signature}",
            "summary": self.summary,
        }


@dataclass
class FunctionRegistry:
    """Name → Function. `lookup` and `names` are what the interpreter uses."""

    functions: dict[str, Function] = field(default_factory=dict)

    def add(self, function: Function) -> None:
        if function.name in self.functions:
            raise ValueError(f"function {function.name!r} is already registered")
        self.functions[function.name] = function

    def function(
        self, name: str, *, kind: Kind = "local", summary: str = "", signature: str = "(…)"
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def decorate(impl: Callable[..., Any]) -> Callable[..., Any]:
            self.add(Function(name, impl, kind=kind, summary=summary, signature=signature))
            return impl

        return decorate

    def lookup(self, name: str) -> Function | None:
        return self.functions.get(name)

    def names(self) -> list[str]:
        return list(self.functions)

    def describe(self) -> list[dict[str, str]]:
        return [function.describe() for function in self.functions.values()]

    def copy(self) -> FunctionRegistry:
        return FunctionRegistry(dict(self.functions))


LIBRARY = FunctionRegistry()  # filled by the theme modules, which the package imports in listing order


def default_registry() -> FunctionRegistry:
    """A copy of the standard library; add project functions to the copy with `.add(...)`."""
    return LIBRARY.copy()
