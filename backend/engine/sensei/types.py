"""Custom types: a name, a description for the LLM, and a regular expression values must fully match.

Used as variable types (every data item must match the expression) and as output types (the extractor is
told the description and the expression, and the value is checked against it). `extraction` may split a
value into named components, each with its own primitive type.

User-written expressions are run with the `regex` package's `timeout`, so a catastrophic pattern such as
`(a+)+$` costs at most `REGEX_TIMEOUT_S` per match instead of hanging a worker; a timeout counts as "no
match" and is reported by the validator.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import regex  # type: ignore[import-untyped]

REGEX_TIMEOUT_S = 0.25
Primitive = Literal["str", "int", "float"]


class PatternError(ValueError):
    pass


class PatternTimeout(TimeoutError):
    pass


@dataclass(frozen=True)
class Component:
    name: str
    type: Primitive
    description: str = ""


@dataclass(frozen=True)
class CustomType:
    name: str
    description: str
    format: str  # the regular expression, as written (an r"..." wrapper removed)
    extraction: Primitive = "str"
    components: tuple[Component, ...] = field(default=())

    def matches(self, value: str, *, timeout_s: float = REGEX_TIMEOUT_S) -> bool:
        return fullmatch(self.format, value, timeout_s=timeout_s)


def clean_pattern(text: str) -> str:
    text = text.strip()
    if len(text) >= 3 and text[0] in "rR" and text[1] in "\"'" and text[-1] == text[1]:
        return text[2:-1]
    return text


def compile_pattern(pattern: str) -> Any:
    try:
        return regex.compile(pattern)
    except regex.error as exc:
        raise PatternError(f"not a valid regular expression: {exc}") from None


def fullmatch(pattern: str, value: str, *, timeout_s: float = REGEX_TIMEOUT_S) -> bool:
    """Whether `value` fully matches `pattern`; raises `PatternTimeout` when matching takes too long."""
    compiled = compile_pattern(pattern)
    try:
        return compiled.fullmatch(value, timeout=timeout_s) is not None
    except TimeoutError:
        raise PatternTimeout(f"matching {value!r} took longer than {timeout_s} s") from None


BUILT_IN_TYPES: dict[str, CustomType] = {
    "phone_number": CustomType(
        name="phone_number",
        description="a telephone number written as three digits, a hyphen and seven digits",
        format=r"\d{3}-\d{7}",
    ),
}


def parse_custom_type(data: Mapping[str, Any], *, name: str | None = None) -> CustomType:
    """A custom type from its YAML mapping (`name`, `type_description`, `format`, `extraction`)."""
    type_name = str(data.get("name") or name or "").strip()
    if not type_name:
        raise ValueError("a custom type needs a name")
    pattern = clean_pattern(str(data.get("format") or ""))
    if not pattern:
        raise ValueError(f"custom type {type_name!r}: `format` (a regular expression) is missing")
    compile_pattern(pattern)
    extraction = data.get("extraction", "str")
    components: list[Component] = []
    primitive: Primitive = "str"
    if isinstance(extraction, Mapping):
        for part, spec in extraction.items():
            kind = str((spec or {}).get("type", "str")) if isinstance(spec, Mapping) else str(spec)
            kind = "str" if kind in ("string", "str") else kind
            if kind not in ("str", "int", "float"):
                raise ValueError(f"custom type {type_name!r}: component {part!r} has unknown type {kind!r}")
            described = str(spec.get("description", "")) if isinstance(spec, Mapping) else ""
            components.append(Component(str(part), kind, described))  # type: ignore[arg-type]
    else:
        kind = "str" if str(extraction) in ("string", "str") else str(extraction)
        if kind not in ("str", "int", "float"):
            raise ValueError(f"custom type {type_name!r}: extraction {kind!r} is not str, int or float")
        primitive = kind  # type: ignore[assignment]
    return CustomType(
        name=type_name,
        description=str(data.get("type_description") or data.get("description") or ""),
        format=pattern,
        extraction=primitive,
        components=tuple(components),
    )


class TypeCatalog:
    """Built-in custom types overridden by the project's own (by name)."""

    def __init__(self, custom: Iterable[CustomType] = ()) -> None:
        self._items = dict(BUILT_IN_TYPES)
        for item in custom:
            self._items[item.name] = item

    def get(self, name: str) -> CustomType | None:
        return self._items.get(name)

    def names(self) -> list[str]:
        return sorted(self._items)
