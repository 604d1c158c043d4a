"""The `script` section and `min_pass_rate`: literal user turns with checks on the chatbot's replies.

    script:
      - user: "I'd like a large margherita"
        expect: [{contains: size}]
      - user: "that's all"
        expect:
          - states: money
          - not_contains: error
    min_pass_rate: 0.9          # or "90%"

A step is `user` (the literal message) and `expect` (one check or a list). A check is a mapping with one key:
`contains` / `not_contains` (text, case and spacing ignored), `matches` (a regular expression searched in the
reply, run with a timeout like every user-written expression) or `states` (an output type whose values words
can show: money, int, float, date, time, datetime, enum[...] or a custom type). Everything is checked here, so
a hostile script (huge texts, NUL bytes, a broken expression) is a problem with its position, never a crash.
"""

from __future__ import annotations

from typing import Any

from engine.sensei.dialects.chatbot import read_output_type
from engine.sensei.dialects.reader import Path, Reader
from engine.sensei.planner import MAX_TURNS
from engine.sensei.profile import CHECK_KINDS, ReplyCheck, ScriptStep
from engine.sensei.types import PatternError, compile_pattern

MAX_MESSAGE_CHARS = 4000  # one user message; a chat message longer than this is a paste, not a turn
MAX_CHECK_CHARS = 500  # a text or an expression to look for in one reply
MAX_CHECKS_PER_STEP = 20
# Types whose values a reply's words can show; a string or a bool says nothing that code can recognise.
STATABLE_KINDS = ("money", "int", "float", "date", "time", "datetime", "enum", "custom")
CHECK_HINT = (
    "Write a check as one of {contains: TEXT}, {not_contains: TEXT}, {matches: REGEX} or {states: TYPE}."
)


def read_script(reader: Reader, value: Any, path: Path) -> list[ScriptStep] | None:
    """The script's steps (None when it is absent or unusable; its problems are recorded)."""
    if value is None:
        return None
    if not isinstance(value, list) or not value:
        reader.error(
            "wrong_type",
            "script must be a non-empty list of steps",
            path,
            'Write `script:` then `- user: "..."` items, each with an optional `expect:` list.',
        )
        return None
    if len(value) > MAX_TURNS:
        reader.error("out_of_range", f"a script has at most {MAX_TURNS} user turns", path)
        return None
    steps: list[ScriptStep] = []
    ok = True
    for index, item in enumerate(value):
        step = _step(reader, item, (*path, index))
        ok &= step is not None
        if step is not None:
            steps.append(step)
    return steps if ok else None


def _step(reader: Reader, item: Any, path: Path) -> ScriptStep | None:
    if not isinstance(item, dict):
        reader.error("wrong_type", "a script step is a mapping: `user` and optional `expect`", path)
        return None
    reader.unknown_keys(item, ["user", "expect"], path)
    message = _text(reader, item.get("user"), (*path, "user"), "the step's user message", MAX_MESSAGE_CHARS)
    raw = item.get("expect")
    where: Path = (*path, "expect")
    entries: list[tuple[Any, Path]]
    if raw is None:
        entries = []
    elif isinstance(raw, dict):
        entries = [(raw, where)]  # a single check need not be written as a list
    elif isinstance(raw, list):
        entries = [(entry, (*where, i)) for i, entry in enumerate(raw)]
    else:
        reader.error("wrong_type", "expect is a list of checks", where, CHECK_HINT)
        return None
    if len(entries) > MAX_CHECKS_PER_STEP:
        reader.error("out_of_range", f"at most {MAX_CHECKS_PER_STEP} checks per step", where)
        return None
    checks = [_check(reader, entry, at) for entry, at in entries]
    if message is None or any(check is None for check in checks):
        return None
    return ScriptStep(user=message, expect=[c for c in checks if c is not None])


def _check(reader: Reader, entry: Any, path: Path) -> ReplyCheck | None:
    if not isinstance(entry, dict) or len(entry) != 1:
        reader.error("wrong_type", "a check is a mapping with exactly one key", path, CHECK_HINT)
        return None
    key, raw = next(iter(entry.items()))
    kind = str(key).strip().lower().replace(" ", "_").replace("-", "_")
    if kind not in CHECK_KINDS:
        reader.error("unknown_check", f"unknown check `{key}`", path, CHECK_HINT)
        return None
    where = (*path, key)
    text = _text(reader, raw, where, f"the `{kind}` check", MAX_CHECK_CHARS)
    if text is None:
        return None
    if kind == "matches":
        try:
            compile_pattern(text)
        except PatternError as exc:
            reader.error("bad_regex", f"`matches`: {exc}", where, "Fix the regular expression.")
            return None
        return ReplyCheck(kind="matches", value=text)
    if kind == "states":
        return _states(reader, text, where)
    return ReplyCheck(kind=kind, value=text)  # type: ignore[arg-type]


def _states(reader: Reader, text: str, path: Path) -> ReplyCheck | None:
    output_type = read_output_type(reader, text, path)
    if output_type is None:
        return None
    if output_type.kind not in STATABLE_KINDS:
        reader.error(
            "unstatable_type",
            f"no words show a value of type {output_type.label()}",
            path,
            "Use money, int, float, date, time, datetime, enum[a, b] or a custom type; for text write "
            "`contains` or `matches`.",
        )
        return None
    return ReplyCheck(kind="states", value=output_type.label(), type=output_type)


def _text(reader: Reader, raw: Any, path: Path, what: str, limit: int) -> str | None:
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        raw = str(raw)  # `contains: 42` means the text "42"
    if not isinstance(raw, str) or not raw.strip():
        reader.error("missing" if raw is None else "wrong_type", f"{what} must be non-empty text", path)
        return None
    if "\x00" in raw:
        reader.error("bad_text", f"{what} contains a NUL byte", path, "Remove the control character.")
        return None
    if len(raw) > limit:
        reader.error("too_long", f"{what} is {len(raw)} characters long; at most {limit}", path)
        return None
    return raw.strip()


def read_min_pass_rate(reader: Reader, value: Any, path: Path) -> float | None:
    """A fraction above 0 and at most 1, or a percentage ("90%")."""
    if value is None:
        return None
    hint = "Write a fraction such as 0.9, or 90%."
    if isinstance(value, str) and value.strip().endswith("%"):
        number = reader.number(value.strip()[:-1], path, "min_pass_rate")
        rate = None if number is None else number / 100
    else:
        rate = reader.number(value, path, "min_pass_rate")
    if rate is None:
        return None
    if not 0 < rate <= 1:
        reader.error("out_of_range", "min_pass_rate must be above 0 and at most 1 (100%)", path, hint)
        return None
    return rate
