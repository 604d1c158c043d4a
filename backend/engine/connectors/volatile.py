"""Volatile patterns: values the chatbot changes in every conversation (a ticket number, a session code) that a
replay must not take for a changed reply (README D24). UUIDs, dates, times and identifier-like tokens are
built in (`engine.regression.replay`); a connector adds its own as regular expressions.

In a connector file they are the top-level key `volatile` (a list of expressions) beside `technology`; on the
platform, the connector's `volatile` field. They run on chatbot text with the `regex` package's timeout, so a
catastrophic pattern slows nothing down; still, they are bounded here: at most `MAX_PATTERNS` expressions of at
most `MAX_PATTERN_LENGTH` characters, each one compiling and none matching empty text (it would mark every gap
between two characters as a changed value).
"""

from __future__ import annotations

from typing import Any

import regex  # type: ignore[import-untyped]

from engine.connectors.errors import ConnectorConfigError

KEY = "volatile"
MAX_PATTERNS = 20
MAX_PATTERN_LENGTH = 200


def pattern_problem(pattern: Any) -> str | None:
    """Why `pattern` cannot be a volatile pattern, or None."""
    if not isinstance(pattern, str) or not pattern.strip():
        return "write a regular expression (a non-empty string)"
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"longer than {MAX_PATTERN_LENGTH} characters"
    try:
        compiled = regex.compile(pattern)
    except regex.error as exc:
        return f"not a valid regular expression ({exc})"
    try:
        if compiled.fullmatch("", timeout=0.1) is not None:
            return "matches empty text; it must match the changing value itself"
    except TimeoutError:
        return "too slow to match"
    return None


def check_volatile(value: Any) -> list[str]:
    """The connector's volatile patterns, validated; a `ConnectorConfigError` names the first bad one (its field
    is `volatile` or `volatile.N`, N counted from 0)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ConnectorConfigError(f"{KEY}: write a list of regular expressions.", field=KEY)
    if len(value) > MAX_PATTERNS:
        raise ConnectorConfigError(
            f"{KEY}: {len(value)} patterns; at most {MAX_PATTERNS} are allowed.", field=KEY
        )
    for index, pattern in enumerate(value):
        problem = pattern_problem(pattern)
        if problem:
            text = str(pattern)
            shown = text if len(text) <= 60 else f"{text[:57]}..."
            raise ConnectorConfigError(
                f"{KEY}: pattern {index + 1} `{shown}`: {problem}.", field=f"{KEY}.{index}"
            )
    return list(value)
