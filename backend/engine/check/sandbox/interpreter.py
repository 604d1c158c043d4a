"""The interpreter: walks a compiled `Program`'s tree and gives each node its meaning, within the limits.

One `Interpreter` serves one evaluation context. It knows literals, arithmetic, comparisons, boolean logic,
conditional expressions, comprehensions, f-strings, indexing and slicing, assignments to plain names, calls to
the functions of a `FunctionTable` and to the allowed methods of built-in values; attribute access only reaches
`SandboxObject`s and those methods. Every node costs a step, every value that can grow is measured (`guard`),
and any Python error a node raises becomes an `EvaluationError` pointing at that node.
"""

from __future__ import annotations

import ast
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Protocol

from engine.check.errors import EvaluationError, SandboxError, SandboxLimitError
from engine.check.sandbox.compiler import Program, compile_rule_code, refuse, where
from engine.check.sandbox.limits import (
    SandboxLimits,
    check_format_spec,
    check_operands,
    check_size,
    measure_text,
)
from engine.check.sandbox.messages import describe_exception, unknown_name
from engine.check.sandbox.methods import BoundMethod, attribute_of
from engine.check.sandbox.operators import BINARY, COMPARE, OPERATORS, item_of, slice_of
from engine.check.sandbox.values import PRIMITIVES, LazyGenerator, Names, SandboxObject, Scope, type_name


class SandboxCallable:
    """A function value a rule may call (library functions subclass it, see `functions.Function`)."""

    name: str = ""

    def invoke(self, interpreter: Interpreter, args: list[Any], kwargs: dict[str, Any]) -> Any:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<function {self.name}>"


class FunctionTable(Protocol):
    """Where the interpreter finds the functions a rule may call (see `functions.FunctionRegistry`)."""

    def lookup(self, name: str) -> SandboxCallable | None: ...

    def names(self) -> list[str]: ...


class Interpreter:
    """Evaluates `Program`s against `names` and `functions` within `limits`.

    One interpreter serves one evaluation context (a conversation, a tuple, a global rule); its step counter
    covers everything evaluated through it, nested evaluations of `exists('…')` strings included.
    """

    def __init__(
        self,
        names: Names,
        functions: FunctionTable,
        limits: SandboxLimits | None = None,
        *,
        context: Any = None,
    ) -> None:
        self.names = names
        self.functions = functions
        self.limits = limits or SandboxLimits()
        self.context = context  # handed to library functions (conversation, judge, population)
        self.steps = 0
        self.depth = 0
        self.produced = 0
        self._cpu_deadline: float | None = None

    # -- entry points ------------------------------------------------------------------------------------------

    def run(self, program: Program, last: Callable[[ast.expr, Scope], Any] | None = None) -> Any:
        """The value of `program`; raises only SandboxError (and its subclasses).

        `last`, when given, evaluates the final expression instead of `visit` (the evaluator uses it to
        explain a false result); it runs under the same error handling.
        """
        if self._cpu_deadline is None and self.limits.cpu_seconds is not None:
            self._cpu_deadline = time.process_time() + self.limits.cpu_seconds
        scope = Scope()
        try:
            for statement in program.assignments:
                self._statement(statement, scope)
            if last is not None:
                return last(program.result, scope)
            return self.visit(program.result, scope)
        except SandboxError:
            raise
        except RecursionError:
            raise SandboxLimitError("the expression nests too deeply to evaluate") from None
        except MemoryError:
            raise SandboxLimitError("the expression needed more memory than a rule may use") from None
        except Exception as exc:  # noqa: BLE001 - an odd library error is still only this rule's error
            raise EvaluationError(describe_exception(exc)) from None

    def run_source(self, source: str) -> Any:
        """Compile and run a string given to a function (`exists('…')`), with the same limits and counter."""
        return self.run(compile_rule_code(source, self.limits))

    # -- statements ----------------------------------------------------------------------------------------

    def _statement(self, node: ast.stmt, scope: Scope) -> None:
        if isinstance(node, ast.Assign):
            value = self.visit(node.value, scope)
            for target in node.targets:
                self._assign(target, value, scope)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            found, current = scope.find(node.target.id)
            if not found:
                current = self._name(node.target.id, scope, node.target)
            right = self.visit(node.value, scope)
            scope.values[node.target.id] = self._binary(type(node.op), current, right, node)
        else:  # compile_rule_code lets nothing else through
            raise refuse("statement not allowed", node)

    def _assign(self, target: ast.expr, value: Any, scope: Scope) -> None:
        if isinstance(target, ast.Name):
            scope.values[target.id] = value
            return
        if isinstance(target, ast.Tuple | ast.List):
            items = self.materialise(value)
            if len(items) != len(target.elts):
                raise EvaluationError(
                    f"cannot unpack {len(items)} values into {len(target.elts)} names", **where(target)
                )
            for sub, item in zip(target.elts, items, strict=True):
                self._assign(sub, item, scope)
            return
        raise refuse("only plain names can be assigned to", target)

    # -- expressions ---------------------------------------------------------------------------------------

    def _tick(self, node: ast.AST) -> None:
        self.steps += 1
        if self.steps > self.limits.max_steps:
            raise SandboxLimitError(
                f"the rule took more than {self.limits.max_steps:,} evaluation steps; "
                "iterate over fewer items or simplify it",
                **where(node),
            )
        if (
            self._cpu_deadline is not None
            and self.steps % 4096 == 0
            and time.process_time() > self._cpu_deadline
        ):
            raise SandboxLimitError(
                f"the rule used more than {self.limits.cpu_seconds} s of CPU time", **where(node)
            )

    def visit(self, node: ast.expr, scope: Scope) -> Any:
        self._tick(node)
        self.depth += 1
        try:
            if self.depth > self.limits.max_depth * 4:
                raise SandboxLimitError("the expression nests too deeply to evaluate", **where(node))
            handler = _HANDLERS.get(type(node))
            if handler is None:
                raise refuse(f"{type(node).__name__} is not allowed in rules", node)
            try:
                return handler(self, node, scope)
            except SandboxError as exc:
                if exc.line is None and hasattr(node, "lineno"):
                    exc.line, exc.column = node.lineno, node.col_offset + 1
                raise
            except (TypeError, ValueError, KeyError, IndexError, ZeroDivisionError, OverflowError) as exc:
                raise EvaluationError(describe_exception(exc), **where(node)) from None
        finally:
            self.depth -= 1

    def _constant(self, node: ast.Constant, scope: Scope) -> Any:
        return node.value

    def _name(self, name: str, scope: Scope, node: ast.AST) -> Any:
        found, value = scope.find(name)
        if found:
            return value
        try:
            return self.names.resolve(name)
        except KeyError:
            pass
        function = self.functions.lookup(name)
        if function is not None:
            return function
        raise EvaluationError(
            unknown_name(name, self.names.available() + self.functions.names()), **where(node)
        )

    def _name_node(self, node: ast.Name, scope: Scope) -> Any:
        return self._name(node.id, scope, node)

    def _bool_op(self, node: ast.BoolOp, scope: Scope) -> Any:
        is_and = isinstance(node.op, ast.And)
        value: Any = None
        for operand in node.values:
            value = self.visit(operand, scope)
            if is_and and not value:
                return value
            if not is_and and value:
                return value
        return value

    def _unary(self, node: ast.UnaryOp, scope: Scope) -> Any:
        operand = self.visit(node.operand, scope)
        if isinstance(node.op, ast.Not):
            return not operand
        if not isinstance(operand, int | float):
            raise EvaluationError(f"unary {type(node.op).__name__} needs a number, got {type_name(operand)}")
        if isinstance(node.op, ast.USub):
            return -operand
        if isinstance(node.op, ast.UAdd):
            return +operand
        if isinstance(operand, float):
            raise EvaluationError("~ needs an integer")
        return ~operand

    def _binop(self, node: ast.BinOp, scope: Scope) -> Any:
        left = self.visit(node.left, scope)
        right = self.visit(node.right, scope)
        return self._binary(type(node.op), left, right, node)

    def _binary(self, op: type[ast.AST], left: Any, right: Any, node: ast.AST) -> Any:
        symbol = OPERATORS.get(op)
        if symbol is None:
            raise refuse("operator not allowed", node)
        for value in (left, right):
            if not isinstance(value, (*PRIMITIVES, list, tuple, set, frozenset, dict)):
                raise EvaluationError(f"{symbol} is not supported for {type_name(value)}")
        if op is ast.Mod and isinstance(left, str):
            raise EvaluationError("%-formatting is not allowed in rules; use an f-string")
        check_operands(op, left, right, self.limits)
        if op is ast.Pow and isinstance(left, int) and isinstance(right, int) and right < 0 and left == 0:
            raise EvaluationError("0 cannot be raised to a negative power")
        result = BINARY[op](left, right)
        if isinstance(result, complex):
            raise EvaluationError("the result is a complex number, which rules do not support")
        return self.guard(result)

    def guard(self, value: Any) -> Any:
        """Refuse a value larger than the limits allow (called on every computed value that can grow)."""
        limits = self.limits
        if isinstance(value, str | list | tuple | set | frozenset | dict):
            self.produced += len(value)
            if self.produced > limits.max_total_size:
                raise SandboxLimitError(
                    f"the rule built more than {limits.max_total_size:,} characters and items in total; "
                    "work on fewer or smaller values"
                )
        check_size(value, limits)
        return value

    def _compare(self, node: ast.Compare, scope: Scope) -> Any:
        left = self.visit(node.left, scope)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.visit(comparator, scope)
            if isinstance(op, ast.In | ast.NotIn) and isinstance(right, LazyGenerator):
                right = self.materialise(right)
            if not COMPARE[type(op)](left, right):
                return False
            left = right
        return True

    def _if_exp(self, node: ast.IfExp, scope: Scope) -> Any:
        return self.visit(node.body if self.visit(node.test, scope) else node.orelse, scope)

    def _tuple(self, node: ast.Tuple, scope: Scope) -> Any:
        return tuple(self.visit(item, scope) for item in node.elts)

    def _list(self, node: ast.List, scope: Scope) -> Any:
        return [self.visit(item, scope) for item in node.elts]

    def _set(self, node: ast.Set, scope: Scope) -> Any:
        return {self.visit(item, scope) for item in node.elts}

    def _dict(self, node: ast.Dict, scope: Scope) -> Any:
        result: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                raise refuse("** in dict literals is not allowed", node)
            result[self.visit(key, scope)] = self.visit(value, scope)
        return result

    def _attribute(self, node: ast.Attribute, scope: Scope) -> Any:
        value = self.visit(node.value, scope)
        return self.attribute(value, node.attr)

    def attribute(self, value: Any, name: str) -> Any:
        return attribute_of(value, name)

    def _subscript(self, node: ast.Subscript, scope: Scope) -> Any:
        value = self.visit(node.value, scope)
        if isinstance(node.slice, ast.Slice):
            parts = [
                None if part is None else self.visit(part, scope)
                for part in (node.slice.lower, node.slice.upper, node.slice.step)
            ]
            return slice_of(value, parts)
        return item_of(value, self.visit(node.slice, scope))

    def _call(self, node: ast.Call, scope: Scope) -> Any:
        target: Any
        if isinstance(node.func, ast.Name):
            name = node.func.id
            found, target = scope.find(name)
            if not found:
                target = self._callable_name(name, node.func)
        else:
            target = self.visit(node.func, scope)
        args = [self.visit(arg, scope) for arg in node.args]
        kwargs: dict[str, Any] = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                raise refuse("** arguments are not allowed", keyword)
            kwargs[keyword.arg] = self.visit(keyword.value, scope)
        if not isinstance(target, BoundMethod | SandboxCallable):
            raise EvaluationError(f"{type_name(target)} is not a function that rules can call")
        return self.guard(target.invoke(self, args, kwargs))

    def _callable_name(self, name: str, node: ast.AST) -> Any:
        # A conversation value named like a library function (an output called `language`) must not hide the
        # function when the rule calls it.
        try:
            value = self.names.resolve(name)
        except KeyError:
            value = None
        except EvaluationError:
            value = None
        else:
            if isinstance(value, BoundMethod | SandboxCallable):
                return value
        function = self.functions.lookup(name)
        if function is not None:
            return function
        if value is not None:
            return value
        return self._name(name, Scope(), node)

    # comprehensions ------------------------------------------------------------------------------------------

    def _scopes(self, generators: list[ast.comprehension], index: int, parent: Scope) -> Iterator[Scope]:
        comp = generators[index]
        iterable = self.visit(comp.iter, parent)
        for item in self.iterate(iterable):
            self._tick(comp)
            scope = Scope(parent=parent)
            self._assign(comp.target, item, scope)
            if all(self.visit(condition, scope) for condition in comp.ifs):
                if index + 1 < len(generators):
                    yield from self._scopes(generators, index + 1, scope)
                else:
                    yield scope

    def _list_comp(self, node: ast.ListComp, scope: Scope) -> Any:
        result: list[Any] = []
        for inner in self._scopes(node.generators, 0, scope):
            result.append(self.visit(node.elt, inner))
            if len(result) > self.limits.max_items:
                self.guard(result)
        return result

    def _set_comp(self, node: ast.SetComp, scope: Scope) -> Any:
        result: set[Any] = set()
        for inner in self._scopes(node.generators, 0, scope):
            result.add(self.visit(node.elt, inner))
            if len(result) > self.limits.max_items:
                self.guard(result)
        return result

    def _dict_comp(self, node: ast.DictComp, scope: Scope) -> Any:
        result: dict[Any, Any] = {}
        for inner in self._scopes(node.generators, 0, scope):
            result[self.visit(node.key, inner)] = self.visit(node.value, inner)
            if len(result) > self.limits.max_items:
                self.guard(result)
        return result

    def _generator(self, node: ast.GeneratorExp, scope: Scope) -> Any:
        def items() -> Iterator[Any]:
            for inner in self._scopes(node.generators, 0, scope):
                yield self.visit(node.elt, inner)

        return LazyGenerator(items())

    # f-strings -----------------------------------------------------------------------------------------------

    def _joined(self, node: ast.JoinedStr, scope: Scope) -> Any:
        parts: list[str] = []
        size = 0
        for value in node.values:
            text = self.visit(value, scope)
            if not isinstance(text, str):
                raise EvaluationError("f-string parts must be text")
            size += len(text)
            if size > self.limits.max_string:
                raise SandboxLimitError(
                    f"the f-string would be longer than {self.limits.max_string:,} characters"
                )
            parts.append(text)
        return "".join(parts)

    def _formatted(self, node: ast.FormattedValue, scope: Scope) -> Any:
        value = self.visit(node.value, scope)
        spec = ""
        if node.format_spec is not None:
            spec = self.visit(node.format_spec, scope)
            if not isinstance(spec, str):
                raise EvaluationError("the format specification must be text")
        if node.conversion == ord("r"):
            value = self.to_text(value, repr_=True)
        elif node.conversion == ord("a"):
            value = ascii(self.to_text(value, repr_=True))
        elif node.conversion == ord("s"):
            value = self.to_text(value)
        return self.format_value(value, spec)

    def format_value(self, value: Any, spec: str) -> str:
        if not spec:
            return self.to_text(value)
        check_format_spec(spec, self.limits)
        if not isinstance(value, PRIMITIVES):
            raise EvaluationError(f"a format specification cannot be applied to a {type_name(value)}")
        return format(value, spec)

    def to_text(self, value: Any, *, repr_: bool = False) -> str:
        """`str(value)` (or repr) with the output size measured before it is built."""
        if isinstance(value, str) and not repr_:
            return value
        measure_text(value, self.limits.max_string)
        text = repr(value) if repr_ else str(value)
        return str(self.guard(text))

    # helpers for library functions ---------------------------------------------------------------------------

    def iterate(self, value: Any) -> Iterator[Any]:
        """Iterate a value a rule may iterate: collections, strings, ranges, generators, views."""
        if isinstance(value, LazyGenerator):
            for count, item in enumerate(value, 1):
                if count > self.limits.max_items:
                    raise SandboxLimitError(f"a generator produced more than {self.limits.max_items:,} items")
                yield item
            return
        if isinstance(value, SandboxObject):
            yield from value.sandbox_iter()
            return
        if not isinstance(value, str | list | tuple | set | frozenset | dict | range):
            raise EvaluationError(f"{type_name(value)} cannot be iterated")
        yield from value

    def materialise(self, value: Any) -> list[Any]:
        """A list of the items of `value`, refusing more than `max_items`."""
        if (
            isinstance(value, range | str | list | tuple | set | frozenset | dict)
            and len(value) > self.limits.max_items
        ):
            raise SandboxLimitError(
                f"a {type_name(value)} of {len(value):,} items is larger than the limit of {self.limits.max_items:,}"
            )
        return list(self.iterate(value))


_HANDLERS: Mapping[type[ast.AST], Callable[[Interpreter, Any, Scope], Any]] = {
    ast.Constant: Interpreter._constant,
    ast.Name: Interpreter._name_node,
    ast.BoolOp: Interpreter._bool_op,
    ast.UnaryOp: Interpreter._unary,
    ast.BinOp: Interpreter._binop,
    ast.Compare: Interpreter._compare,
    ast.IfExp: Interpreter._if_exp,
    ast.Tuple: Interpreter._tuple,
    ast.List: Interpreter._list,
    ast.Set: Interpreter._set,
    ast.Dict: Interpreter._dict,
    ast.Attribute: Interpreter._attribute,
    ast.Subscript: Interpreter._subscript,
    ast.Call: Interpreter._call,
    ast.ListComp: Interpreter._list_comp,
    ast.SetComp: Interpreter._set_comp,
    ast.DictComp: Interpreter._dict_comp,
    ast.GeneratorExp: Interpreter._generator,
    ast.JoinedStr: Interpreter._joined,
    ast.FormattedValue: Interpreter._formatted,
}
