"""How much one evaluation may use, and the checks that refuse a value before or right after it is built.

`SandboxLimits` is the budget (steps, nesting, string and collection sizes, integer bits, f-string widths, CPU
time). The functions here are the arithmetic of "would this be too big": they measure a value's text before
it is rendered, and the result of `*`, `**` and `<<` before it is computed, so `'a' * 10**10` or `10**10**10`
fail with a `SandboxLimitError` instead of eating the machine.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from engine.check.errors import EvaluationError, SandboxLimitError
from engine.check.sandbox.values import type_name

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


def check_bits(bits: int, limits: SandboxLimits) -> None:
    if bits > limits.max_int_bits:
        raise SandboxLimitError(f"the number would exceed {limits.max_int_bits:,} bits")


def check_size(value: Any, limits: SandboxLimits) -> None:
    """Refuse one string, collection or integer larger than the limits allow."""
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
        check_bits(value.bit_length(), limits)


def check_operands(op: type[ast.AST], left: Any, right: Any, limits: SandboxLimits) -> None:
    """Refuse a repetition, power or shift whose result would be too large, before computing it."""
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
            check_bits(abs(left).bit_length() + abs(right).bit_length(), limits)
    elif op is ast.Pow:
        too_big = isinstance(left, int) and isinstance(right, int) and right > 0 and abs(left) > 1
        if too_big and abs(left).bit_length() * right > limits.max_int_bits:
            raise SandboxLimitError(
                f"{left} ** {right} would be a number too large for a rule "
                f"(more than {limits.max_int_bits:,} bits)"
            )
    elif op is ast.LShift and isinstance(left, int) and isinstance(right, int) and left and right > 0:
        check_bits(abs(left).bit_length() + right, limits)


_FORMAT_SPEC = re.compile(
    r"^(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ])?(?P<z>z)?(?P<alt>\#)?(?P<zero>0)?"
    r"(?P<width>\d+)?(?P<grouping>[_,])?(?:\.(?P<precision>\d+))?(?P<type>[bcdeEfFgGnosxX%])?$",
    re.DOTALL,
)


def check_format_spec(spec: str, limits: SandboxLimits) -> None:
    """Refuse a format specification outside the grammar rules may use, or one too wide or too precise."""
    match = _FORMAT_SPEC.match(spec)
    if match is None:
        raise EvaluationError(f"unsupported format specification {spec!r}")
    width = int(match["width"] or 0)
    precision = int(match["precision"] or 0)
    if width > limits.max_format_width:
        raise SandboxLimitError(f"format width {width} is larger than the limit {limits.max_format_width}")
    if precision > limits.max_format_precision:
        raise SandboxLimitError(
            f"format precision {precision} is larger than the limit {limits.max_format_precision}"
        )


def measure_text(value: Any, limit: int) -> None:
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
