"""The rule compiler: parses a rule's text and vets every node of its tree before anything runs.

`compile_rule_code` turns source text into a `Program` (assignment lines, then the expression whose value is
the result) or raises a `SandboxSyntaxError` with a line, a column and a message a rule author can act on.
Only the node types in `_ALLOWED` pass; the common refusals (loops, lambdas, imports, …) say what to write
instead. Names and attributes starting with `_` are refused here, so no rule can reach Python's internals.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass

from engine.check.errors import SandboxSyntaxError
from engine.check.sandbox.limits import MAX_SOURCE_CHARS, SandboxLimits
from engine.check.sandbox.operators import OPERATORS

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
        *OPERATORS,
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


def where(node: ast.AST) -> dict[str, int | None]:
    """The 1-based line and column of `node`, as keyword arguments for a SandboxError."""
    line = getattr(node, "lineno", None)
    col = getattr(node, "col_offset", None)
    return {"line": line, "column": None if col is None else col + 1}


def refuse(message: str, node: ast.AST) -> SandboxSyntaxError:
    """The error refusing `node`, pointing at it."""
    return SandboxSyntaxError(message, **where(node))


def _check_tree(node: ast.AST, depth: int, limits: SandboxLimits) -> None:
    if depth > limits.max_depth:
        raise refuse(f"the expression is nested too deeply (more than {limits.max_depth} levels)", node)
    kind = type(node)
    if kind not in _ALLOWED:
        why = _REFUSED_WHY.get(kind) or f"{kind.__name__} is not allowed in rules"
        raise refuse(why, node)
    if isinstance(node, ast.Name) and node.id.startswith("__"):
        raise refuse(f"names starting with '__' are not allowed ({node.id})", node)
    if (
        isinstance(node, ast.Name)
        and isinstance(node.ctx, ast.Store)
        and node.id.startswith("_")
        and node.id != "_"
    ):
        raise refuse(f"names starting with '_' are not allowed ({node.id})", node)
    if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
        raise refuse(f"attributes starting with '_' are not allowed (.{node.attr})", node)
    if isinstance(node, ast.keyword) and node.arg is None:
        raise refuse("star arguments (*x, **x) are not allowed in rules", node)
    if isinstance(node, ast.comprehension) and node.is_async:
        raise refuse("async comprehensions are not allowed in rules", node)
    if isinstance(node, ast.Constant):
        value = node.value
        if value is not None and not isinstance(value, bool | int | float | str):
            raise refuse(f"{type(value).__name__} literals are not supported", node)
        if isinstance(value, int) and value.bit_length() > limits.max_int_bits:
            raise refuse("this number literal is too large", node)
    if isinstance(node, ast.Assign | ast.comprehension):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            _check_target(target)
    if isinstance(node, ast.AugAssign) and not isinstance(node.target, ast.Name):
        raise refuse("only plain names can be assigned to", node.target)
    for child in ast.iter_child_nodes(node):
        _check_tree(child, depth + 1, limits)


def _check_target(target: ast.expr) -> None:
    if isinstance(target, ast.Name):
        return
    if isinstance(target, ast.Tuple | ast.List):
        for item in target.elts:
            _check_target(item)
        return
    raise refuse("only plain names (or tuples of names) can be assigned to", target)


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
            raise refuse(
                "only assignments (name = expression) may come before the last line, which gives the result",
                statement,
            )
    if isinstance(last, ast.Expr | ast.Return) and last.value is not None:
        result = last.value
    elif isinstance(last, ast.Assign | ast.AugAssign):
        raise refuse(
            "the last line must be the expression whose value is the result, not an assignment", last
        )
    else:
        raise refuse("the last line must be an expression", last)
    return Program(source=text, assignments=tuple(assignments), result=result)
