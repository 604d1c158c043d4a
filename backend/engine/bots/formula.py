"""A tiny arithmetic language for the bots' prices and order ids — parsed once, evaluated safely.

Grammar (no Python `eval`, no attribute access, no loops):

    expr    := term (("+" | "-") term)*
    term    := unary (("*" | "/") unary)*
    unary   := "-" unary | atom
    atom    := NUMBER | NAME | NAME "[" NAME "]" | NAME "(" [expr ("," expr)*] ")" | "(" expr ")"

`NAME` is a slot or an earlier computed value; `table[slot]` looks the slot's value up in a table (a list
slot sums the entries of its values); the functions are `count(list)`, `min`, `max`, `round(x[, digits])`
and `order_id()`. A lookup whose key is missing raises `FormulaError` at run time — which is how the
crash-on-value mutants make a bot fail on one value only.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass

Value = float | str | list[str]
"""What a formula may see: numbers, single enum/string values and multi-value lists."""

FUNCTIONS = {"count": 1, "min": -1, "max": -1, "round": -1, "order_id": 0}
_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(.))")


class FormulaError(Exception):
    """A formula that cannot be parsed (load time) or evaluated (run time)."""


@dataclass(frozen=True)
class Num:
    value: float


@dataclass(frozen=True)
class Name:
    name: str


@dataclass(frozen=True)
class Lookup:
    table: str
    key: str


@dataclass(frozen=True)
class Call:
    function: str
    args: tuple[Node, ...]


@dataclass(frozen=True)
class BinOp:
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Neg:
    operand: Node


Node = Num | Name | Lookup | Call | BinOp | Neg


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    position = 0
    text = text.strip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:  # pragma: no cover - the pattern matches any character
            break
        token = match.group(1) or match.group(2) or match.group(3)
        if token.strip():
            out.append(token)
        position = match.end()
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.i = 0

    def peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            wanted = f"'{expected}'" if expected else "more"
            raise FormulaError(f"expected {wanted} in formula {self.text!r}")
        self.i += 1
        return token

    def parse(self) -> Node:
        if not self.tokens:
            raise FormulaError("the formula is empty")
        node = self.expr()
        if self.peek() is not None:
            raise FormulaError(f"unexpected {self.peek()!r} in formula {self.text!r}")
        return node

    def expr(self) -> Node:
        node = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()
            node = BinOp(op, node, self.term())
        return node

    def term(self) -> Node:
        node = self.unary()
        while self.peek() in ("*", "/"):
            op = self.take()
            node = BinOp(op, node, self.unary())
        return node

    def unary(self) -> Node:
        if self.peek() == "-":
            self.take()
            return Neg(self.unary())
        return self.atom()

    def atom(self) -> Node:
        token = self.take()
        if token == "(":
            node = self.expr()
            self.take(")")
            return node
        if re.fullmatch(r"\d+(?:\.\d+)?", token):
            return Num(float(token))
        if not re.fullmatch(r"[A-Za-z_]\w*", token):
            raise FormulaError(f"unexpected {token!r} in formula {self.text!r}")
        if self.peek() == "[":
            self.take("[")
            key = self.take()
            if not re.fullmatch(r"[A-Za-z_]\w*", key):
                raise FormulaError(f"a table is looked up by a slot name, not {key!r}")
            self.take("]")
            return Lookup(token, key)
        if self.peek() == "(":
            self.take("(")
            args: list[Node] = []
            if self.peek() != ")":
                args.append(self.expr())
                while self.peek() == ",":
                    self.take(",")
                    args.append(self.expr())
            self.take(")")
            if token not in FUNCTIONS:
                raise FormulaError(f"unknown function {token!r}; known: {', '.join(sorted(FUNCTIONS))}")
            arity = FUNCTIONS[token]
            if arity >= 0 and len(args) != arity:
                raise FormulaError(f"{token}() takes {arity} argument(s), got {len(args)}")
            return Call(token, tuple(args))
        return Name(token)


def parse_formula(text: str) -> Node:
    """Parse a formula; raises FormulaError with the problem."""
    return _Parser(text).parse()


def names_used(node: Node) -> tuple[set[str], set[str]]:
    """(plain names, table names) a formula refers to; lookup keys count as plain names."""
    names: set[str] = set()
    tables: set[str] = set()
    stack: list[Node] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, Name):
            names.add(current.name)
        elif isinstance(current, Lookup):
            tables.add(current.table)
            names.add(current.key)
        elif isinstance(current, Call):
            stack.extend(current.args)
        elif isinstance(current, BinOp):
            stack.extend((current.left, current.right))
        elif isinstance(current, Neg):
            stack.append(current.operand)
    return names, tables


@dataclass(frozen=True)
class Scope:
    values: Mapping[str, Value]
    tables: Mapping[str, Mapping[str, float]]
    seed: str
    """Makes `order_id()` unique per conversation and turn yet reproducible."""


def _order_id(seed: str) -> str:
    """Six hex digits from the seed, with at least one decimal digit: an id of letters only ("EADEDC", about one
    in 360) reads as a word, so replay could not tell it is volatile (D24) and would re-ask the LLM for the
    conversation that holds it. The rare all-letter draw gets its last letter swapped for a digit."""
    digest = hashlib.sha256(seed.encode()).hexdigest()
    head = digest[:6].upper()
    if any(c.isdigit() for c in head):
        return head
    return head[:5] + str(int(digest[6:8], 16) % 10)


def _number(value: Value | None, what: str) -> float:
    if isinstance(value, float | int):
        return float(value)
    raise FormulaError(f"{what} is not a number")


def evaluate(node: Node, scope: Scope) -> Value:
    """Evaluate a parsed formula; raises FormulaError when a value or table entry is missing."""
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Name):
        if node.name not in scope.values:
            raise FormulaError(f"no value for {node.name!r}")
        return scope.values[node.name]
    if isinstance(node, Lookup):
        table = scope.tables.get(node.table, {})
        key = scope.values.get(node.key)
        keys = key if isinstance(key, list) else [key]
        total = 0.0
        for item in keys:
            if not isinstance(item, str) or item not in table:
                raise FormulaError(f"table {node.table!r} has no entry for {item!r}")
            total += table[item]
        return total
    if isinstance(node, Neg):
        return -_number(evaluate(node.operand, scope), "the operand of '-'")
    if isinstance(node, BinOp):
        left = _number(evaluate(node.left, scope), "the left side of " + node.op)
        right = _number(evaluate(node.right, scope), "the right side of " + node.op)
        if node.op == "+":
            return left + right
        if node.op == "-":
            return left - right
        if node.op == "*":
            return left * right
        if right == 0:
            raise FormulaError("division by zero")
        return left / right
    args = [evaluate(arg, scope) for arg in node.args]
    if node.function == "count":
        value = args[0]
        return float(len(value)) if isinstance(value, list) else (0.0 if value in ("", None) else 1.0)
    if node.function == "order_id":
        return _order_id(scope.seed)
    numbers = [_number(arg, f"an argument of {node.function}()") for arg in args]
    if not numbers:
        raise FormulaError(f"{node.function}() needs arguments")
    if node.function == "min":
        return min(numbers)
    if node.function == "max":
        return max(numbers)
    digits = int(numbers[1]) if len(numbers) > 1 else 0
    return float(round(numbers[0], digits))
