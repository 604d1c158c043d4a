"""The reading pass's shared state: options, problems with positions, and checks for plain values.

`Reader` collects every problem (error or warning, with file, line, column and hint), warns about old
spellings and unknown keys (errors in strict mode), refuses local-file features unless they are allowed, and
reads plain values (mappings, text, numbers). The section modules call it; it knows nothing about sections.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import Any

from engine.sensei.personalities import PersonalityCatalog
from engine.sensei.problems import Problem
from engine.sensei.profile import TypeComponent, TypeDef
from engine.sensei.types import TypeCatalog
from engine.yamldata import Locator

Path = tuple[str | int, ...]
LOCAL_FILES_HINT = (
    "Only the command line can use local files and code: run `parley sensei ... --allow-local-files`, or "
    "replace it with data written in the profile."
)


@dataclass
class LoadOptions:
    allow_local_files: bool = False
    strict: bool = False
    source: str = "profile"
    base_dir: FsPath | None = None
    personalities: PersonalityCatalog = field(default_factory=PersonalityCatalog)
    types: TypeCatalog = field(default_factory=TypeCatalog)


class Reader:
    """One pass over the plain data: collects problems with positions and the custom types the profile uses."""

    def __init__(self, locate: Locator, options: LoadOptions) -> None:
        self.locate = locate
        self.options = options
        self.problems: list[Problem] = []
        self.used_types: dict[str, TypeDef] = {}

    # -- problems ----------------------------------------------------------------------------------------

    def _add(self, severity: str, code: str, message: str, path: Path, hint: str | None) -> None:
        self.problems.append(
            Problem.at(severity, code, message, path, self.locate(path), hint=hint, file=self.options.source)
        )

    def error(self, code: str, message: str, path: Path, hint: str | None = None) -> None:
        self._add("error", code, message, path, hint)

    def warn(self, code: str, message: str, path: Path, hint: str | None = None) -> None:
        self._add("warning", code, message, path, hint)

    def deprecated(self, old: str, new: str, path: Path) -> None:
        self.warn("deprecated", f"`{old}` is an old spelling of `{new}`", path, f"Write `{new}` instead.")

    def unknown_keys(self, data: Mapping[str, Any], known: Sequence[str], path: Path) -> None:
        for key in data:
            if key in known:
                continue
            close = difflib.get_close_matches(key, known, n=1)
            hint = f"Did you mean `{close[0]}`?" if close else f"Known keys here: {', '.join(known)}."
            self._add(
                "error" if self.options.strict else "warning",
                "unknown_key",
                f"unknown key `{key}`",
                (*path, key),
                hint,
            )

    def local_file(self, what: str, path: Path) -> bool:
        if self.options.allow_local_files:
            return True
        self.error(
            "local_files_not_allowed", f"{what} reads local files or runs code", path, LOCAL_FILES_HINT
        )
        return False

    # -- helpers -----------------------------------------------------------------------------------------

    def mapping(self, value: Any, path: Path, what: str) -> dict[str, Any] | None:
        if value is None:
            return {}
        if isinstance(value, dict):
            return value
        self.error("wrong_type", f"{what} must be a mapping of keys to values", path)
        return None

    def text(self, value: Any, path: Path, what: str, *, required: bool = False) -> str | None:
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                self.error("missing", f"{what} is required", path)
            return None
        if isinstance(value, bool | dict | list):
            self.error("wrong_type", f"{what} must be text", path)
            return None
        return str(value).strip()

    def number(self, value: Any, path: Path, what: str, *, minimum: float = 0.0) -> float | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            try:
                value = float(str(value))
            except ValueError:
                self.error("wrong_type", f"{what} must be a number", path)
                return None
        if not math.isfinite(float(value)) or float(value) < minimum:
            self.error("out_of_range", f"{what} must be at least {minimum}", path)
            return None
        return float(value)

    def integer(self, value: Any, path: Path, what: str, *, minimum: int = 1) -> int | None:
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value.strip())
        if isinstance(value, bool) or not isinstance(value, int):
            self.error("wrong_type", f"{what} must be a whole number", path)
            return None
        if value < minimum:
            self.error("out_of_range", f"{what} must be at least {minimum}", path)
            return None
        return value

    # -- custom types ------------------------------------------------------------------------------------

    def use_type(self, name: str) -> TypeDef | None:
        """The custom type `name` as the profile carries it (remembered as used); None if there is none."""
        custom = self.options.types.get(name)
        if custom is None:
            return None
        definition = TypeDef(
            name=custom.name,
            description=custom.description,
            format=custom.format,
            extraction=custom.extraction,
            components=[
                TypeComponent(name=c.name, type=c.type, description=c.description) for c in custom.components
            ],
        )
        self.used_types[name] = definition
        return definition
