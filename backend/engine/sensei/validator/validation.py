"""`validate` and `load_profile`: parse the YAML (positions kept), read any dialect, run the whole-profile checks.

The result holds the canonical profile (when it could be read) and every problem sorted by position.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path as FsPath
from typing import Any

from engine.sensei.dialects import LoadOptions, read_profile_data
from engine.sensei.personalities import Personality, PersonalityCatalog
from engine.sensei.problems import Problem, has_errors
from engine.sensei.profile import Profile
from engine.sensei.types import CustomType, TypeCatalog
from engine.sensei.validator.checks import semantic_problems
from engine.sensei.yamlpos import no_position, parse_yaml


@dataclass
class ValidationResult:
    profile: Profile | None
    problems: list[Problem]

    @property
    def ok(self) -> bool:
        return self.profile is not None and not has_errors(self.problems)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.is_error]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if not p.is_error]


def validate(
    source_text: str | dict[str, Any],
    *,
    source: str = "profile",
    allow_local_files: bool = False,
    strict: bool = False,
    personalities: PersonalityCatalog | Iterable[Personality] | None = None,
    types: TypeCatalog | Iterable[CustomType] | None = None,
    base_dir: FsPath | None = None,
) -> ValidationResult:
    """Check a profile given as YAML text (positions reported) or as already-parsed data (paths only)."""
    if isinstance(source_text, str):
        data, locate, problems = parse_yaml(source_text, source=source)
        if problems:
            return ValidationResult(None, problems)
    else:
        data, locate = source_text, no_position
    options = LoadOptions(
        allow_local_files=allow_local_files,
        strict=strict,
        source=source,
        base_dir=base_dir,
        personalities=personalities
        if isinstance(personalities, PersonalityCatalog)
        else PersonalityCatalog(personalities or ()),
        types=types if isinstance(types, TypeCatalog) else TypeCatalog(types or ()),
    )
    profile, problems = read_profile_data(data, locate=locate, options=options)
    if profile is not None:
        problems += semantic_problems(
            profile, data, locate, source, base_dir, values=not has_errors(problems)
        )
    problems.sort(key=lambda p: (p.line or 0, p.column or 0))
    return ValidationResult(profile, problems)


def load_profile(
    text: str,
    *,
    allow_local_files: bool = False,
    source: str = "profile",
    strict: bool = False,
    personalities: PersonalityCatalog | Iterable[Personality] | None = None,
    types: TypeCatalog | Iterable[CustomType] | None = None,
    base_dir: FsPath | None = None,
) -> tuple[Profile | None, list[Problem]]:
    """(the canonical profile, problems); the profile is None when any problem is an error."""
    result = validate(
        text,
        source=source,
        allow_local_files=allow_local_files,
        strict=strict,
        personalities=personalities,
        types=types,
        base_dir=base_dir,
    )
    return (result.profile if result.ok else None), result.problems
