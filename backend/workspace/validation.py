"""Validating the YAML documents users store, through the engines' own validators.

Every result has one shape for the API and the editor: `valid`, a list of problems
`{severity, message, line, column, path, hint}` and a warning count. The size, node and alias limits of
engine.yamlguard apply first, so no validator ever parses an oversized, too deep or alias-bomb document.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import yaml

from engine.check.errors import CheckError
from engine.check.rules import parse_rule
from engine.security import load_campaign
from engine.sensei.calibration import CALIBRATED_KEYS, calibration_problem
from engine.sensei.personalities import Personality as EnginePersonality
from engine.sensei.validator import validate as validate_profile_text
from engine.yamlguard import YAMLRefused, guard_yaml


@dataclass
class Validation:
    valid: bool
    problems: list[dict[str, Any]] = field(default_factory=list)
    name: str | None = None  # the name the document gives itself, when it has one
    parsed: Any = None

    @property
    def warnings(self) -> int:
        return sum(1 for problem in self.problems if problem["severity"] == "warning")


def _problem(message: str, *, severity: str = "error", **where: Any) -> dict[str, Any]:
    return {
        "severity": severity,
        "message": message,
        "line": where.get("line"),
        "column": where.get("column"),
        "path": where.get("path") or "",
        "hint": where.get("hint"),
    }


def _refused(text: str) -> Validation | None:
    try:
        guard_yaml(text)
    except YAMLRefused as exc:
        return Validation(
            valid=False, problems=[_problem(exc.user_message, line=exc.line, column=exc.column)]
        )
    return None


def validate_profile(text: str, *, personalities: Iterable[EnginePersonality] = ()) -> Validation:
    if refused := _refused(text):
        return refused
    # The platform never lets a profile read local files or run code (allow_local_files=False).
    result = validate_profile_text(text, allow_local_files=False, personalities=list(personalities))
    problems = [
        _problem(p.message, severity=p.severity, line=p.line, column=p.column, path=p.path, hint=p.hint)
        for p in result.problems
    ]
    name = result.profile.name if result.profile is not None else None
    return Validation(valid=result.ok, problems=problems, name=name, parsed=result.profile)


def validate_rule(text: str) -> Validation:
    if refused := _refused(text):
        return refused
    try:
        rule = parse_rule(text)
    except CheckError as exc:
        where = {k: getattr(exc, k, None) for k in ("line", "column", "hint")}
        return Validation(
            valid=False, problems=[_problem(getattr(exc, "message", exc.user_message), **where)]
        )
    return Validation(valid=True, problems=[], name=rule.name, parsed=rule)


def validate_personality(text: str) -> Validation:
    """A personality document: `name` and `context`, a list of sentences describing the persona; a calibrated
    user (from transcripts) adds `parameters`, which the simulator enforces, and `measures` and `source`."""
    if refused := _refused(text):
        return refused
    try:
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        return Validation(
            valid=False,
            problems=[
                _problem(
                    f"Not valid YAML: {exc.problem}",
                    line=mark.line + 1 if mark else None,
                    column=mark.column + 1 if mark else None,
                )
            ],
        )
    problems: list[dict[str, Any]] = []
    if not isinstance(data, dict):
        return Validation(
            valid=False, problems=[_problem("A personality is a mapping with `name` and `context`.")]
        )
    name = data.get("name")
    context = data.get("context")
    if not isinstance(name, str) or not name.strip():
        problems.append(_problem("`name` is required and must be text.", path="name"))
    if isinstance(context, str):
        context = [context]
    if (
        not isinstance(context, list)
        or not context
        or not all(isinstance(c, str) and c.strip() for c in context)
    ):
        problems.append(
            _problem(
                "`context` must be a non-empty list of sentences.",
                path="context",
                hint="context:\n  - You are in a hurry and answer briefly.",
            )
        )
    parameters = data.get("parameters")
    if parameters is not None and (why := calibration_problem(parameters)):
        problems.append(_problem(f"`parameters`: {why}", path="parameters"))
    for key in sorted(set(data) - {"name", "context", *CALIBRATED_KEYS}):
        problems.append(_problem(f"Unknown key `{key}` is ignored.", severity="warning", path=str(key)))
    valid = not any(p["severity"] == "error" for p in problems)
    parsed = (
        EnginePersonality(name.strip(), tuple(c.strip() for c in context), parameters=parameters or None)
        if valid
        else None
    )
    return Validation(
        valid=valid, problems=problems, name=name.strip() if isinstance(name, str) else None, parsed=parsed
    )


def validate_campaign(text: str) -> Validation:
    """A security campaign; the platform reads no files, so `cases_file` is refused (cases are written inline)."""
    if refused := _refused(text):
        return refused
    loaded = load_campaign(text)
    problems = [problem.to_json() for problem in loaded.problems]
    name = loaded.campaign.name if loaded.campaign is not None else None
    return Validation(valid=loaded.ok, problems=problems, name=name, parsed=loaded.campaign)
