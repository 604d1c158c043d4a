"""The sandbox: a small interpreter for rule expressions, written over Python's AST.

Rules come from users of a shared server, so nothing here hands a rule to Python's own evaluator. A rule is
parsed with `ast.parse`, every node is checked against an allow-list (`compile_rule_code`), and the tree is
walked by `Interpreter`, which only knows literals, arithmetic, comparisons, boolean logic, conditional
expressions, comprehensions, f-strings, indexing and slicing, assignments to plain names, calls to the
functions of a `FunctionTable`, and calls to a fixed list of methods per built-in type (never `format` or
`format_map`). Attribute access only reaches `SandboxObject`s (conversation views) and those methods; names
starting with `_` are refused outright.

Every evaluation counts its steps and its nesting depth, and every string, collection and integer it produces
is measured before or right after it is built, so `'a' * 10**10`, `10**10**10` or a comprehension over
`range(10**12)` stop with a `SandboxLimitError` instead of eating the machine. The child process that runs
checks (see `runner`) adds CPU-time and memory limits underneath.
"""

from __future__ import annotations

import ast
import re
import textwrap
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.check.errors import (
    EvaluationError,
    SandboxError,
    SandboxLimitError,
    SandboxSyntaxError,
)

MAX_SOURCE_CHARS = 20_000


@dataclass(frozen=True)
class SandboxLimits:
    """What one evaluation may use. The defaults let real rules through and stop abuse in well under a second."""

    max_steps: int = 1_000_000  # AST nodes evaluated, comprehension iterations included
    max_depth: int = 60  # nesting of the expression tree (checked when compiling and while running)
    max_string: int = 1_000_000  # characters in any string produced
    max_items: int = 100_000  # items in any list, tuple, set or dict produced
    max_int_bits: int = 66_000  # about 20,000 decimal digits
    max_total_size: int = 50_000_000  # characters and items produced over one evaluation, all values together
    max_format_width: int = 1_000  # f-string width
    max_format_precision: int = 100  # f-string precision
    cpu_seconds: float | None = None  # CPU time for one evaluation, checked every few thousand steps


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


# -- compiling -------------------------------------------------------------------------------------------------

_OPERATORS: dict[type[ast.AST], str] = {
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

_ALLOWED: frozenset[type[ast.AST]] = frozenset(
    {
        ast.Module,
        ast.Expression,
        ast.Expr,
        ast.Assign,
        ast.AugAssign,
        ast.Return,
        ast.Constant,
        ast.Name,
        ast.Load,
        ast.Store,
        ast.BoolOp,
        ast.And,
        ast.Or,
        ast.UnaryOp,
        ast.Not,
        ast.USub,
        ast.UAdd,
        ast.Invert,
        ast.BinOp,
        ast.Compare,
        ast.Eq,
        ast.NotEq,
        ast.Lt,
        ast.LtE,
        ast.Gt,
        ast.GtE,
        ast.In,
        ast.NotIn,
        ast.Is,
        ast.IsNot,
        ast.IfExp,
        ast.Call,
        ast.keyword,
        ast.Attribute,
        ast.Subscript,
        ast.Slice,
        ast.Tuple,
        ast.List,
        ast.Dict,
        ast.Set,
        ast.ListComp,
        ast.SetComp,
        ast.DictComp,
        ast.GeneratorExp,
        ast.comprehension,
        ast.JoinedStr,
        ast.FormattedValue,
        *_OPERATORS,
    }
)

_REFUSED_WHY: dict[type[ast.AST], str] = {
    ast.Lambda: "lambda is not allowed in rules",
    ast.NamedExpr: "the walrus operator := is not allowed in rules; use a separate assignment line",
    ast.Import: "imports are not allowed in rules",
    ast.ImportFrom: "imports are not allowed in rules",
    ast.FunctionDef: "defining functions is not allowed in rules",
    ast.AsyncFunctionDef: "defining functions is not allowed in rules",
    ast.ClassDef: "defining classes is not allowed in rules",
    ast.For: "loops are not allowed in rules; use a comprehension such as all(... for x in xs)",
    ast.While: "loops are not allowed in rules; use a comprehension such as all(... for x in xs)",
    ast.If: "if statements are not allowed in rules; use a conditional expression `a if cond else b`",
    ast.Starred: "star arguments (*x, **x) are not allowed in rules",
    ast.Yield: "yield is not allowed in rules",
    ast.YieldFrom: "yield is not allowed in rules",
    ast.Await: "await is not allowed in rules",
    ast.Global: "global is not allowed in rules",
    ast.Nonlocal: "nonlocal is not allowed in rules",
    ast.Delete: "del is not allowed in rules",
    ast.With: "with is not allowed in rules",
    ast.Try: "try is not allowed in rules; a failing expression already makes the check an error",
    ast.Raise: "raise is not allowed in rules",
    ast.MatMult: "the @ operator is not supported",
}


@dataclass(frozen=True)
class Program:
    """A checked rule expression: zero or more assignments, then the expression whose value is the result."""

    source: str
    assignments: tuple[ast.stmt, ...]
    result: ast.expr


def _where(node: ast.AST) -> dict[str, int | None]:
    line = getattr(node, "lineno", None)
    col = getattr(node, "col_offset", None)
    return {"line": line, "column": None if col is None else col + 1}


def _refuse(message: str, node: ast.AST) -> SandboxSyntaxError:
    return SandboxSyntaxError(message, **_where(node))


def _check_tree(node: ast.AST, depth: int, limits: SandboxLimits) -> None:
    if depth > limits.max_depth:
        raise _refuse(f"the expression is nested too deeply (more than {limits.max_depth} levels)", node)
    kind = type(node)
    if kind not in _ALLOWED:
        why = _REFUSED_WHY.get(kind) or f"{kind.__name__} is not allowed in rules"
        raise _refuse(why, node)
    if isinstance(node, ast.Name) and node.id.startswith("__"):
        raise _refuse(f"names starting with '__' are not allowed ({node.id})", node)
    if (
        isinstance(node, ast.Name)
        and isinstance(node.ctx, ast.Store)
        and node.id.startswith("_")
        and node.id != "_"
    ):
        raise _refuse(f"names starting with '_' are not allowed ({node.id})", node)
    if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
        raise _refuse(f"attributes starting with '_' are not allowed (.{node.attr})", node)
    if isinstance(node, ast.keyword) and node.arg is None:
        raise _refuse("star arguments (*x, **x) are not allowed in rules", node)
    if isinstance(node, ast.comprehension) and node.is_async:
        raise _refuse("async comprehensions are not allowed in rules", node)
    if isinstance(node, ast.Constant):
        value = node.value
        if value is not None and not isinstance(value, bool | int | float | str):
            raise _refuse(f"{type(value).__name__} literals are not supported", node)
        if isinstance(value, int) and value.bit_length() > limits.max_int_bits:
            raise _refuse("this number literal is too large", node)
    if isinstance(node, ast.Assign | ast.comprehension):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            _check_target(target)
    if isinstance(node, ast.AugAssign) and not isinstance(node.target, ast.Name):
        raise _refuse("only plain names can be assigned to", node.target)
    for child in ast.iter_child_nodes(node):
        _check_tree(child, depth + 1, limits)


def _check_target(target: ast.expr) -> None:
    if isinstance(target, ast.Name):
        return
    if isinstance(target, ast.Tuple | ast.List):
        for item in target.elts:
            _check_target(item)
        return
    raise _refuse("only plain names (or tuples of names) can be assigned to", target)


def compile_rule_code(source: str, limits: SandboxLimits | None = None) -> Program:
    """Parse and vet `source`: one expression, or assignment lines followed by the expression to return.

    Raises SandboxSyntaxError with a line and column (1-based, relative to `source`) when it is not valid
    Python syntax or uses anything the rule language refuses.
    """
    limits = limits or SandboxLimits()
    if not isinstance(source, str):
        raise SandboxSyntaxError("a rule expression must be text")
    if len(source) > MAX_SOURCE_CHARS:
        raise SandboxSyntaxError(f"the expression is longer than {MAX_SOURCE_CHARS} characters")
    text = textwrap.dedent(source).strip()
    if not text:
        raise SandboxSyntaxError("the expression is empty")
    if "\x00" in text:
        raise SandboxSyntaxError("the expression contains a NUL character")
    try:
        module = ast.parse(text, filename="<rule>")
    except SyntaxError as exc:
        raise SandboxSyntaxError(f"not valid syntax: {exc.msg}", line=exc.lineno, column=exc.offset) from None
    except (RecursionError, MemoryError, ValueError, OverflowError):
        raise SandboxSyntaxError("the expression is too complex to read (too deeply nested)") from None
    try:
        _check_tree(module, 0, limits)
    except RecursionError:
        raise SandboxSyntaxError("the expression is nested too deeply") from None
    body = module.body
    if not body:
        raise SandboxSyntaxError("the expression is empty")
    *assignments, last = body
    for statement in assignments:
        if not isinstance(statement, ast.Assign | ast.AugAssign):
            raise _refuse(
                "only assignments (name = expression) may come before the last line, which gives the result",
                statement,
            )
    if isinstance(last, ast.Expr | ast.Return) and last.value is not None:
        result = last.value
    elif isinstance(last, ast.Assign | ast.AugAssign):
        raise _refuse(
            "the last line must be the expression whose value is the result, not an assignment", last
        )
    else:
        raise _refuse("the last line must be an expression", last)
    return Program(source=text, assignments=tuple(assignments), result=result)


# -- values ----------------------------------------------------------------------------------------------------


def type_name(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, SandboxObject):
        return value.sandbox_type()
    names = {
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
    return names.get(type(value), "value")


_PRIMITIVES = (type(None), bool, int, float, str)


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


@dataclass(frozen=True)
class BoundMethod:
    """An allowed method of a built-in value, ready to call."""

    name: str
    receiver: Any
    method: Callable[..., Any]

    def invoke(self, interpreter: Interpreter, args: list[Any], kwargs: dict[str, Any]) -> Any:
        interpreter.precheck_method(self.name, self.receiver, args)
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

_FORMAT_SPEC = re.compile(
    r"^(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ])?(?P<z>z)?(?P<alt>\#)?(?P<zero>0)?"
    r"(?P<width>\d+)?(?P<grouping>[_,])?(?:\.(?P<precision>\d+))?(?P<type>[bcdeEfFgGnosxX%])?$",
    re.DOTALL,
)


# -- the interpreter -------------------------------------------------------------------------------------------


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
            raise EvaluationError(_describe(exc)) from None

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
            raise _refuse("statement not allowed", node)

    def _assign(self, target: ast.expr, value: Any, scope: Scope) -> None:
        if isinstance(target, ast.Name):
            scope.values[target.id] = value
            return
        if isinstance(target, ast.Tuple | ast.List):
            items = self.materialise(value)
            if len(items) != len(target.elts):
                raise EvaluationError(
                    f"cannot unpack {len(items)} values into {len(target.elts)} names", **_where(target)
                )
            for sub, item in zip(target.elts, items, strict=True):
                self._assign(sub, item, scope)
            return
        raise _refuse("only plain names can be assigned to", target)

    # -- expressions ---------------------------------------------------------------------------------------

    def _tick(self, node: ast.AST) -> None:
        self.steps += 1
        if self.steps > self.limits.max_steps:
            raise SandboxLimitError(
                f"the rule took more than {self.limits.max_steps:,} evaluation steps; "
                "iterate over fewer items or simplify it",
                **_where(node),
            )
        if (
            self._cpu_deadline is not None
            and self.steps % 4096 == 0
            and time.process_time() > self._cpu_deadline
        ):
            raise SandboxLimitError(
                f"the rule used more than {self.limits.cpu_seconds} s of CPU time", **_where(node)
            )

    def visit(self, node: ast.expr, scope: Scope) -> Any:
        self._tick(node)
        self.depth += 1
        try:
            if self.depth > self.limits.max_depth * 4:
                raise SandboxLimitError("the expression nests too deeply to evaluate", **_where(node))
            handler = _HANDLERS.get(type(node))
            if handler is None:
                raise _refuse(f"{type(node).__name__} is not allowed in rules", node)
            try:
                return handler(self, node, scope)
            except SandboxError as exc:
                if exc.line is None and hasattr(node, "lineno"):
                    exc.line, exc.column = node.lineno, node.col_offset + 1
                raise
            except (TypeError, ValueError, KeyError, IndexError, ZeroDivisionError, OverflowError) as exc:
                raise EvaluationError(_describe(exc), **_where(node)) from None
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
            _unknown_name(name, self.names.available() + self.functions.names()), **_where(node)
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
        limits = self.limits
        symbol = _OPERATORS.get(op)
        if symbol is None:
            raise _refuse("operator not allowed", node)
        for value in (left, right):
            if not isinstance(value, (*_PRIMITIVES, list, tuple, set, frozenset, dict)):
                raise EvaluationError(f"{symbol} is not supported for {type_name(value)}")
        if op is ast.Mod and isinstance(left, str):
            raise EvaluationError("%-formatting is not allowed in rules; use an f-string")
        if op is ast.Mult:
            for seq, times in ((left, right), (right, left)):
                if isinstance(seq, str | list | tuple) and isinstance(times, int):
                    cap = limits.max_string if isinstance(seq, str) else limits.max_items
                    if len(seq) * max(times, 0) > cap:
                        raise SandboxLimitError(
                            f"this repetition would build a {type_name(seq)} of "
                            f"{len(seq) * times:,} items; the limit is {cap:,}"
                        )
            if isinstance(left, int) and isinstance(right, int):
                self._check_bits(abs(left).bit_length() + abs(right).bit_length())
        elif op is ast.Pow:
            too_big = isinstance(left, int) and isinstance(right, int) and right > 0 and abs(left) > 1
            if too_big and abs(left).bit_length() * right > limits.max_int_bits:
                raise SandboxLimitError(
                    f"{left} ** {right} would be a number too large for a rule "
                    f"(more than {limits.max_int_bits:,} bits)"
                )
            if isinstance(left, int) and isinstance(right, int) and right < 0 and left == 0:
                raise EvaluationError("0 cannot be raised to a negative power")
        elif op is ast.LShift and isinstance(left, int) and isinstance(right, int) and left and right > 0:
            self._check_bits(abs(left).bit_length() + right)
        result = _BINARY[op](left, right)
        if isinstance(result, complex):
            raise EvaluationError("the result is a complex number, which rules do not support")
        return self.guard(result)

    def _check_bits(self, bits: int) -> None:
        if bits > self.limits.max_int_bits:
            raise SandboxLimitError(f"the number would exceed {self.limits.max_int_bits:,} bits")

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
        if isinstance(value, str):
            if len(value) > limits.max_string:
                raise SandboxLimitError(
                    f"a string of {len(value):,} characters is longer than the limit of {limits.max_string:,}"
                )
        elif isinstance(value, list | tuple | set | frozenset | dict):
            if len(value) > limits.max_items:
                raise SandboxLimitError(
                    f"a {type_name(value)} of {len(value):,} items is larger than the limit of "
                    f"{limits.max_items:,}"
                )
        elif isinstance(value, int) and not isinstance(value, bool):
            self._check_bits(value.bit_length())
        return value

    def _compare(self, node: ast.Compare, scope: Scope) -> Any:
        left = self.visit(node.left, scope)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.visit(comparator, scope)
            if isinstance(op, ast.In | ast.NotIn) and isinstance(right, LazyGenerator):
                right = self.materialise(right)
            if not _COMPARE[type(op)](left, right):
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
                raise _refuse("** in dict literals is not allowed", node)
            result[self.visit(key, scope)] = self.visit(value, scope)
        return result

    def _attribute(self, node: ast.Attribute, scope: Scope) -> Any:
        value = self.visit(node.value, scope)
        return self.attribute(value, node.attr)

    def attribute(self, value: Any, name: str) -> Any:
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

    def _subscript(self, node: ast.Subscript, scope: Scope) -> Any:
        value = self.visit(node.value, scope)
        if isinstance(node.slice, ast.Slice):
            parts = [
                None if part is None else self.visit(part, scope)
                for part in (node.slice.lower, node.slice.upper, node.slice.step)
            ]
            for part in parts:
                if part is not None and not isinstance(part, int):
                    raise EvaluationError(f"slice bounds must be integers, got {type_name(part)}")
            if not isinstance(value, str | list | tuple | range):
                raise EvaluationError(f"{type_name(value)} cannot be sliced")
            return value[slice(*parts)]
        key = self.visit(node.slice, scope)
        if isinstance(value, SandboxObject):
            return value.sandbox_item(key)
        if isinstance(value, dict):
            if key not in value:
                raise EvaluationError(f"key {_short(key)} not found; keys are: {_short(list(value))}")
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
                raise _refuse("** arguments are not allowed", keyword)
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
        match = _FORMAT_SPEC.match(spec)
        if match is None:
            raise EvaluationError(f"unsupported format specification {spec!r}")
        width = int(match["width"] or 0)
        precision = int(match["precision"] or 0)
        if width > self.limits.max_format_width:
            raise SandboxLimitError(
                f"format width {width} is larger than the limit {self.limits.max_format_width}"
            )
        if precision > self.limits.max_format_precision:
            raise SandboxLimitError(
                f"format precision {precision} is larger than the limit {self.limits.max_format_precision}"
            )
        if not isinstance(value, _PRIMITIVES):
            raise EvaluationError(f"a format specification cannot be applied to a {type_name(value)}")
        return format(value, spec)

    def to_text(self, value: Any, *, repr_: bool = False) -> str:
        """`str(value)` (or repr) with the output size measured before it is built."""
        if isinstance(value, str) and not repr_:
            return value
        _measure(value, self.limits.max_string)
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

    def precheck_method(self, name: str, receiver: Any, args: list[Any]) -> None:
        """Refuse method calls whose result would be too large before building it."""
        limits = self.limits
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
            items = self.materialise(args[0])
            total = len(receiver) * max(len(items) - 1, 0)
            for item in items:
                total += len(item) if isinstance(item, str) else 0
                if total > limits.max_string:
                    raise SandboxLimitError(f".join() would exceed {limits.max_string:,} characters")
            args[0] = items


def _measure(value: Any, limit: int) -> None:
    """Refuse to render a value whose text would exceed `limit` characters (walks at most `limit` items)."""
    budget = [limit]

    def walk(item: Any) -> None:
        budget[0] -= 2
        if budget[0] < 0:
            raise SandboxLimitError(f"the text of this value would exceed {limit:,} characters")
        if isinstance(item, str):
            budget[0] -= len(item)
        elif isinstance(item, int) and not isinstance(item, bool):
            budget[0] -= item.bit_length() // 3
        elif isinstance(item, list | tuple | set | frozenset):
            for sub in item:
                walk(sub)
        elif isinstance(item, dict):
            for key, sub in item.items():
                walk(key)
                walk(sub)
        if budget[0] < 0:
            raise SandboxLimitError(f"the text of this value would exceed {limit:,} characters")

    walk(value)


def _short(value: Any, limit: int = 120) -> str:
    try:
        _measure(value, 10_000)
        text = repr(value)
    except SandboxError:
        text = f"<{type_name(value)}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _describe(exc: BaseException) -> str:
    kind = type(exc).__name__
    text = str(exc) or kind
    if isinstance(exc, ZeroDivisionError):
        return "division by zero"
    if isinstance(exc, KeyError):
        return f"key {text} not found"
    if isinstance(exc, OverflowError):
        return f"number too large: {text}"
    return text if kind in ("ValueError", "TypeError") else f"{kind}: {text}"


def _unknown_name(name: str, available: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, sorted(set(available)), n=3, cutoff=0.7)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return f"unknown name {name!r}{hint}"


def _contains(container: Any, item: Any) -> bool:
    if isinstance(container, SandboxObject):
        return container.sandbox_contains(item)
    if isinstance(container, str) and not isinstance(item, str):
        raise EvaluationError(f"'in <string>' needs a string on the left, got {type_name(item)}")
    if not isinstance(container, str | list | tuple | set | frozenset | dict | range):
        raise EvaluationError(f"'in' is not supported for {type_name(container)}")
    return item in container


_BINARY: dict[type[ast.AST], Callable[[Any, Any], Any]] = {
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

_COMPARE: dict[type[ast.AST], Callable[[Any, Any], bool]] = {
    ast.Eq: lambda a, b: bool(a == b),
    ast.NotEq: lambda a, b: bool(a != b),
    ast.Lt: lambda a, b: bool(a < b),
    ast.LtE: lambda a, b: bool(a <= b),
    ast.Gt: lambda a, b: bool(a > b),
    ast.GtE: lambda a, b: bool(a >= b),
    ast.In: lambda a, b: _contains(b, a),
    ast.NotIn: lambda a, b: not _contains(b, a),
    ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b,
}

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
