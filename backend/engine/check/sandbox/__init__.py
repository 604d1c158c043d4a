"""The sandbox: a small interpreter for rule expressions, written over Python's AST.

Rules come from users of a shared server, so nothing here hands a rule to Python's own evaluator. A rule is
parsed with `ast.parse`, every node is checked against an allow-list, and the tree is walked by our own
interpreter. Every evaluation counts its steps and its nesting depth, and every string, collection and integer
it produces is measured before or right after it is built, so `'a' * 10**10`, `10**10**10` or a comprehension
over `range(10**12)` stop with a `SandboxLimitError` instead of eating the machine. The child process that
runs checks (see `runner`) adds CPU-time and memory limits underneath.

Modules, in the order a rule meets them:
- `compiler`: parse and vet a rule's text into a `Program` (`compile_rule_code`).
- `interpreter`: the `Interpreter` that evaluates a `Program`.
  Hosts plug in through `SandboxCallable` and `FunctionTable` (defined there) and `values.Names`.
- `values`: what a rule's values may be (`SandboxObject`, …) and its variables' `Scope`.
- `operators`: the allowed operators, indexing and slicing, and their meaning.
- `methods`: what `.name` reaches: `SandboxObject` attributes and the allowed methods of built-ins.
- `limits`: `SandboxLimits` and the size checks that enforce them.
- `messages`: how errors are worded for rule authors.
"""

from engine.check.sandbox.compiler import Program, compile_rule_code
from engine.check.sandbox.interpreter import FunctionTable, Interpreter, SandboxCallable
from engine.check.sandbox.limits import MAX_SOURCE_CHARS, SandboxLimits
from engine.check.sandbox.methods import METHODS, BoundMethod
from engine.check.sandbox.operators import COMPARE
from engine.check.sandbox.values import LazyGenerator, Names, NoNames, SandboxObject, Scope, type_name

__all__ = [
    "COMPARE",
    "MAX_SOURCE_CHARS",
    "METHODS",
    "BoundMethod",
    "FunctionTable",
    "Interpreter",
    "LazyGenerator",
    "Names",
    "NoNames",
    "Program",
    "SandboxCallable",
    "SandboxLimits",
    "SandboxObject",
    "Scope",
    "compile_rule_code",
    "type_name",
]
