"""The sandbox refuses known Python sandbox escapes and resource exhaustion, and only ever raises its own
errors — whatever expression it is fed (property test with hypothesis)."""

from __future__ import annotations

import contextlib
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.check import (
    SandboxError,
    SandboxLimitError,
    SandboxSyntaxError,
    compile_rule_code,
    default_registry,
)
from engine.check.functions import CallContext
from engine.check.namespace import ConversationView, SingleNames
from engine.check.sandbox import Interpreter, SandboxLimits
from tests.engine.check.conftest import conversation


def evaluate(source: str, limits: SandboxLimits | None = None):
    view = ConversationView(
        conversation("c", inputs={"size": "small", "x": [1, 2, 3]}, outputs={"price": "$10"})
    )
    interpreter = Interpreter(
        SingleNames(view),
        default_registry(),
        limits or SandboxLimits(),
        context=CallContext(conversation=view),
    )
    return interpreter.run(compile_rule_code(source, limits))


ESCAPES = [
    "__import__('os').system('touch /tmp/parley-pwned')",
    "__builtins__",
    "().__class__.__bases__[0].__subclasses__()",
    "[].__class__.__mro__[1].__subclasses__()",
    "''.__class__",
    "x.__class__",
    "size.__class__.__base__",
    "open('/etc/passwd').read()",
    "getattr(size, '__class__')",
    "globals()",
    "locals()",
    "vars()",
    "dir()",
    "type(size)",
    "eval('1+1')",
    "exec('import os')",
    "compile('1', 'x', 'eval')",
    "'{0.__class__}'.format(size)",
    "'{0.__class__}'.format_map({})",
    "size.format()",
    "f'{size.__class__}'",
    "f'{size!r:{\"9\" * 9}}'",
    "(lambda: 1)()",
    "(lambda f: f(f))(lambda f: f(f))",
    "[y := 1]",
    "(x for x in []).gi_frame",
    "(x for x in []).gi_frame.f_back.f_globals",
    "conv[0].record",
    "conv[0]._cache",
    "inputs._values",
    "import os",
    "from os import system",
    "def f(): pass",
    "class A: pass",
    "while True: pass",
    "for i in range(10): pass",
    "with open('x') as f: f.read()",
    "del size",
    "raise Exception()",
    "try:\n  1\nexcept: 2",
    "[*range(3)]",
    "dict(**{'a': 1})",
    "b'bytes'",
    "...",
    "1j",
    "print('hi')",
    "help()",
    "breakpoint()",
    "input()",
    "memoryview(b'')",
    "chatbot_phrases.__len__()",
    "str.__dict__",
    "max.__self__",
    "len.__call__",
    "'%s' % size",
    "'a'.join.__self__",
    "[c for c in ().__class__.__base__.__subclasses__()]",
    "__loader__",
    "__spec__",
    "_x = 1\n_x",
]


@pytest.mark.parametrize("source", ESCAPES)
def test_escape_attempts_are_refused(source, tmp_path):
    with pytest.raises(SandboxError):
        evaluate(source)


def test_no_side_effect_happened():
    import pathlib

    assert not pathlib.Path("/tmp/parley-pwned").exists()


RESOURCE_BOMBS = [
    "10**10**10",
    "2**100000000",
    "9**9**9**9",
    "1 << 10**9",
    "'a' * 10**10",
    "[0] * 10**9",
    "'ab' * 10**6 * 10**6",
    "[x for x in range(10**12)]",
    "sum(x for x in range(10**12))",
    "len([1 for a in range(10**4) for b in range(10**4)])",
    "sum(range(10**12))",
    "list(range(10**9))",
    "sorted(range(10**9))",
    "'x'.ljust(10**10)",
    "'x'.zfill(10**10)",
    "('a' * 10**5).replace('a', 'a' * 10**5)",
    "'-'.join(['a' * 10**5] * 10**5)",
    "str([('a' * 10**5,) * 10**5])",
    "f'{1:{10**9}}'",
    "f'{1.5:.{10**6}f}'",
    "int('9' * 10**5)",
    "s = 'a' * 10**5\nt = s * 100",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    "(" * 500 + "1" + ")" * 500,
    "-" * 5000 + "1",
    "not " * 3000 + "True",
    "1+" * 5000 + "1",
]


@pytest.mark.parametrize("source", RESOURCE_BOMBS)
def test_resource_bombs_stop_quickly_with_a_clear_error(source):
    started = time.perf_counter()
    with pytest.raises(SandboxError) as caught:
        evaluate(source)
    assert time.perf_counter() - started < 5
    assert caught.value.message


def test_step_limit_message_is_actionable():
    with pytest.raises(SandboxLimitError, match="evaluation steps"):
        evaluate("[1 for a in range(3000) for b in range(3000) if a * b < 0]")


def test_refusals_carry_a_position():
    with pytest.raises(SandboxSyntaxError) as caught:
        compile_rule_code("size == 'small' and x.__class__")
    assert (caught.value.line, caught.value.column) == (1, 21)


ALLOWED = {
    "1 + 2 * 3": 7,
    "size == 'small'": True,
    "inputs.size.upper()": "SMALL",
    "[n * 2 for n in x if n > 1]": [4, 6],
    "{n: n * n for n in x}": {1: 1, 2: 4, 3: 9},
    "sorted({3, 1, 2}, reverse=True)": [3, 2, 1],
    "x[-1]": 3,
    "x[::2]": [1, 3],
    "f'{extract_float(price):.1f} {currency(price)}'": "10.0 USD",
    "f'{size!r:>8}'": " 'small'",
    "'yes' if size == 'small' else 'no'": "yes",
    "all(n > 0 for n in x) and not any(n > 5 for n in x)": True,
    "a, b = 1, 2\nc = a + b\nc * 2": 6,
    "total = 0\ntotal += 5\ntotal": 5,
    "'a,b'.split(',')": ["a", "b"],
    "{'k': 1}.get('z', 0)": 0,
    "max(len(p) for p in chatbot_phrases)": 5,
    "10 // 3, 10 % 3, 2 ** 10, -7 / 2": (3, 1, 1024, -3.5),
    "1 < 2 < 3": True,
    "'small' in size and 3 in x": True,
    "round(3.14159, 2)": 3.14,
    "outputs['price']": "$10",
    "meta.turns": 2,
}


@pytest.mark.parametrize(("source", "expected"), list(ALLOWED.items()))
def test_ordinary_expressions_work(source, expected):
    assert evaluate(source) == expected


# -- property: nothing but our own errors ------------------------------------------------------------------

ATOMS = st.sampled_from(
    [
        "1",
        "0",
        "-3",
        "2.5",
        "'a'",
        "''",
        "None",
        "True",
        "x",
        "size",
        "price",
        "inputs",
        "conv",
        "chatbot_phrases",
        "[]",
        "()",
        "{}",
        "[1, 'a']",
        "{'k': 2}",
        "range(5)",
        "meta",
        "interaction",
        "errors",
        "10**3",
    ]
)
BINARY = st.sampled_from(
    [
        "+",
        "-",
        "*",
        "/",
        "//",
        "%",
        "**",
        "<<",
        ">>",
        "|",
        "&",
        "^",
        "==",
        "!=",
        "<",
        "<=",
        ">",
        ">=",
        " in ",
        " not in ",
        " is ",
        " and ",
        " or ",
    ]
)
CALLS = st.sampled_from(
    [
        "len",
        "str",
        "int",
        "float",
        "sorted",
        "list",
        "set",
        "max",
        "min",
        "sum",
        "any",
        "all",
        "extract_float",
        "currency",
        "length",
        "language",
        "abs",
        "round",
        "tuple",
        "dict",
        "enumerate",
        "zip",
        "missing_outputs",
        "is_unique",
        "exists",
        "tone",
        "repeated_answers",
    ]
)
ATTRS = st.sampled_from(
    [
        "upper",
        "split",
        "get",
        "size",
        "price",
        "keys",
        "items",
        "count",
        "index",
        "join",
        "format",
        "mro",
        "__class__",
        "turns",
        "x",
        "id",
        "ok",
        "reason",
    ]
)


def _expressions():
    def extend(inner):
        return st.one_of(
            st.tuples(inner, BINARY, inner).map(lambda t: f"({t[0]}{t[1]}{t[2]})"),
            st.tuples(CALLS, st.lists(inner, max_size=3)).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
            st.tuples(inner, ATTRS).map(lambda t: f"{t[0]}.{t[1]}"),
            st.tuples(inner, ATTRS, st.lists(inner, max_size=2)).map(
                lambda t: f"{t[0]}.{t[1]}({', '.join(t[2])})"
            ),
            st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
            st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
            st.tuples(inner, inner).map(lambda t: f"[v for v in {t[0]} if {t[1]}]"),
            inner.map(lambda e: f"not {e}"),
            inner.map(lambda e: f"-{e}"),
            inner.map(lambda e: f"f'{{{e}}}'"),
            inner.map(lambda e: f"[{e}] * 3"),
        )

    return st.recursive(ATOMS, extend, max_leaves=12)


FAST = SandboxLimits(max_steps=20_000, max_items=5_000, max_string=50_000, max_int_bits=4_000)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_expressions())
def test_structured_random_expressions_raise_only_sandbox_errors(source):
    with contextlib.suppress(SandboxError):
        evaluate(source, FAST)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=60))
def test_arbitrary_text_raises_only_sandbox_errors(source):
    with contextlib.suppress(SandboxError):
        evaluate(source, FAST)


def test_many_large_values_hit_the_total_size_budget():
    with pytest.raises(SandboxLimitError, match="in total"):
        evaluate("s = 'a' * 999990\nlen([s + str(i) for i in range(100000)])")
