"""How the sandbox words what went wrong: short reprs of values, Python errors and unknown names.

Rule authors read these messages in reports and in the editor, so they name the value or the nearest known
name rather than show a traceback, and never print a value too large to render.
"""

from __future__ import annotations

import difflib
from typing import Any

from engine.check.errors import SandboxError
from engine.check.sandbox.limits import measure_text
from engine.check.sandbox.values import type_name


def short_repr(value: Any, limit: int = 120) -> str:
    """A value as a rule author would write it, cut to `limit` characters (a type name if too large)."""
    try:
        measure_text(value, 10_000)
        text = repr(value)
    except SandboxError:
        text = f"<{type_name(value)}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe_exception(exc: BaseException) -> str:
    """A Python error raised while evaluating, worded for the rule's author."""
    kind = type(exc).__name__
    text = str(exc) or kind
    if isinstance(exc, ZeroDivisionError):
        return "division by zero"
    if isinstance(exc, KeyError):
        return f"key {text} not found"
    if isinstance(exc, OverflowError):
        return f"number too large: {text}"
    return text if kind in ("ValueError", "TypeError") else f"{kind}: {text}"


def unknown_name(name: str, available: list[str]) -> str:
    """The message for a name a rule uses but nothing defines, with the closest known names."""
    close = difflib.get_close_matches(name, sorted(set(available)), n=3, cutoff=0.7)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return f"unknown name {name!r}{hint}"
