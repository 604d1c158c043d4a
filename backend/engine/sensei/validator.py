"""The profile validator: every problem with file, line, column and a hint, plus the language's JSON Schema.

`load_profile(text)` parses (positions kept), reads any dialect into the canonical `Profile` (`dialects.py`)
and then checks what only the whole profile can tell: undefined `{{placeholders}}`, unused variables,
`forward(v)` on an undeclared or non-forward variable, dependency cycles, lonely `pairwise()`, selectors asking
for more values than the list has, `combinations` that cannot be computed, and a plan that would be too
large. The CLI, the platform's API (inline errors in the editor) and TRACER's profile generator all call it.

`profile_json_schema()` describes the canonical language (with the deprecated aliases marked `deprecated`)
for the web editor's completion and hover.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path as FsPath
from typing import Any

from engine.sensei.dialects import IDENTIFIER, LoadOptions, read_profile_data
from engine.sensei.generators import GeneratorError, values_of
from engine.sensei.personalities import Personality, PersonalityCatalog
from engine.sensei.planner import MAX_CONVERSATIONS, PlanError, _Streams, dependency_cycle, placeholders
from engine.sensei.problems import Problem, has_errors
from engine.sensei.profile import FunctionData, Profile, Scalar, Variable
from engine.sensei.types import CustomType, TypeCatalog
from engine.sensei.yamlpos import Locator, no_position, parse_yaml

LANGUAGES = frozenset(
    [
        "Afrikaans",
        "Albanian",
        "Arabic",
        "Armenian",
        "Basque",
        "Belarusian",
        "Bengali",
        "Bosnian",
        "Bulgarian",
        "Catalan",
        "Chinese",
        "Croatian",
        "Czech",
        "Danish",
        "Dutch",
        "English",
        "Estonian",
        "Filipino",
        "Finnish",
        "French",
        "Galician",
        "Georgian",
        "German",
        "Greek",
        "Gujarati",
        "Hebrew",
        "Hindi",
        "Hungarian",
        "Icelandic",
        "Indonesian",
        "Irish",
        "Italian",
        "Japanese",
        "Kannada",
        "Kazakh",
        "Korean",
        "Latvian",
        "Lithuanian",
        "Macedonian",
        "Malay",
        "Malayalam",
        "Maltese",
        "Marathi",
        "Mongolian",
        "Nepali",
        "Norwegian",
        "Persian",
        "Polish",
        "Portuguese",
        "Punjabi",
        "Romanian",
        "Russian",
        "Serbian",
        "Slovak",
        "Slovenian",
        "Spanish",
        "Swahili",
        "Swedish",
        "Tamil",
        "Telugu",
        "Thai",
        "Turkish",
        "Ukrainian",
        "Urdu",
        "Uzbek",
        "Vietnamese",
        "Welsh",
        "Yoruba",
        "Zulu",
    ]
) | {"Chinese (Simplified)", "Chinese (Traditional)"}


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
        problems += _semantic_problems(
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


# -- whole-profile checks ----------------------------------------------------------------------------------------


def _raw_goal_entries(data: Any) -> list[tuple[Any, tuple[str | int, ...]]]:
    user = data.get("user") if isinstance(data, dict) else None
    if not isinstance(user, dict):
        return []
    key = "goals" if "goals" in user else "ask_about"
    goals = user.get(key)
    if isinstance(goals, list):
        return [(item, ("user", key, i)) for i, item in enumerate(goals)]
    if isinstance(goals, dict):
        return [
            (item, ("user", key, part, i))
            for part in ("templates", "inputs")
            if isinstance(goals.get(part), list)
            for i, item in enumerate(goals[part])
        ]
    return []


def _semantic_problems(
    profile: Profile, data: Any, locate: Locator, source: str, base_dir: FsPath | None, *, values: bool
) -> list[Problem]:
    entries = _raw_goal_entries(data)
    goal_paths = [path for item, path in entries if isinstance(item, str | int | float)]
    variable_paths: dict[str, tuple[str | int, ...]] = {}
    for item, path in entries:
        if isinstance(item, dict) and item:
            name = str(next(iter(item)))
            variable_paths.setdefault(name, (*path, name))
    problems: list[Problem] = []

    def add(
        severity: str, code: str, message: str, path: tuple[str | int, ...], hint: str | None = None
    ) -> None:
        position = locate(path)
        problems.append(
            Problem.model_validate(
                {
                    "severity": severity,
                    "code": code,
                    "message": message,
                    "path": ".".join(str(p) for p in path),
                    "line": position[0] if position else None,
                    "column": position[1] if position else None,
                    "hint": hint,
                    "file": source,
                }
            )
        )

    names = [v.name for v in profile.user.variables]
    used: set[str] = set()
    for index, goal in enumerate(profile.user.goals):
        path = goal_paths[index] if index < len(goal_paths) else ("user", "goals")
        for name in placeholders(goal):
            used.add(name)
            if name not in names:
                close = difflib.get_close_matches(name, names, n=1)
                add(
                    "error",
                    "undefined_placeholder",
                    f"{{{{{name}}}}} is used but no variable `{name}` is defined",
                    path,
                    f"Did you mean {{{{{close[0]}}}}}?"
                    if close
                    else f"Add `- {name}: {{function: forward(), type: string, data: [...]}}` to the goals.",
                )
    dependents = {v.selector.depends_on for v in profile.user.variables if v.selector.depends_on}
    for variable in profile.user.variables:
        vpath = variable_paths.get(variable.name, ("user", "goals"))
        if variable.name not in used and variable.name not in dependents:
            add(
                "warning",
                "unused_variable",
                f"variable `{variable.name}` is not used in any goal",
                vpath,
                f"Use it as {{{{{variable.name}}}}} in a goal, or remove it.",
            )
        dependency = variable.selector.depends_on
        if dependency is not None:
            target = profile.variable(dependency)
            if dependency == variable.name:
                add(
                    "error",
                    "self_dependency",
                    f"`{variable.name}` cannot depend on itself",
                    vpath,
                    "Write forward() for a plain sequence.",
                )
            elif target is None:
                add(
                    "error",
                    "undefined_dependency",
                    f"forward({dependency}) names no variable",
                    vpath,
                    f"Define `{dependency}` or write forward().",
                )
            elif target.selector.kind != "forward":
                add(
                    "error",
                    "bad_dependency",
                    f"`{variable.name}` depends on `{dependency}`, whose function is "
                    f"{target.selector.kind}() and cannot be nested",
                    vpath,
                    f"Give `{dependency}` the function forward() (or forward(<another variable>)).",
                )
            if variable.selector.count is not None:
                add("error", "bad_dependency", "forward(n) cannot also depend on a variable", vpath)
    cycle = dependency_cycle(profile.user.variables)
    if cycle and len(cycle) > 2:
        first = variable_paths.get(cycle[0], ("user", "goals"))
        add(
            "error",
            "dependency_cycle",
            f"forward() dependencies form a cycle: {' -> '.join(cycle)}",
            first,
            "Remove one of the forward(<variable>) links.",
        )
    pairwise = [v for v in profile.user.variables if v.selector.kind == "pairwise"]
    if len(pairwise) == 1:
        add(
            "error",
            "lonely_pairwise",
            "pairwise() needs at least two pairwise variables",
            variable_paths.get(pairwise[0].name, ("user", "goals")),
            "Use pairwise() on two or more variables.",
        )
    for language in [profile.user.language] + [
        lang
        for style in profile.conversation.styles + profile.conversation.random_styles
        for lang in style.languages
    ]:
        if language not in LANGUAGES:
            add(
                "warning",
                "unknown_language",
                f"{language!r} is not a language Parley knows",
                ("user", "language"),
                "Write the language's English name, e.g. Spanish or Chinese (Simplified).",
            )
    # Sizes, combinations and plan size need the candidate values (dry-run: no LLM, placeholders for any()).
    if has_errors(problems) or not values:
        return problems
    candidates: dict[str, list[Scalar]] = {}
    for variable in profile.user.variables:
        if isinstance(variable.data, FunctionData):
            candidates[variable.name] = ["<function value>"]
            continue
        try:
            import random

            candidates[variable.name] = values_of(variable, rng=random.Random(0), today=date.today())  # noqa: S311
        except GeneratorError as exc:
            add("error", "generator_failed", str(exc), variable_paths.get(variable.name, ("user", "goals")))
            return problems
    for variable in profile.user.variables:
        _check_counts(variable, candidates[variable.name], variable_paths, add)
    conv_key = "conversation" if isinstance(data, dict) and "conversation" in data else "conversations"
    number = profile.conversation.number
    try:
        streams = _Streams(profile, candidates, 0)
    except PlanError as exc:
        add("error", "plan_failed", str(exc), (conv_key, "number"))
        return problems
    if number.kind == "combinations":
        total = streams.combinations(number.basis)
        if total == 0 and number.basis != "all":
            add(
                "error",
                "impossible_combinations",
                f"combinations over {number.basis} variables, but the profile "
                f"has no {number.basis}() variable",
                (conv_key, "number"),
                "Drop the second argument or use that selector on some variables.",
            )
        elif total == 0:
            add(
                "warning",
                "no_combinations",
                "no variable has a finite selector (forward, another, pairwise), so "
                "combinations means a single conversation",
                (conv_key, "number"),
                "Use forward() on a variable, or give a number of conversations.",
            )
        elif total * number.fraction > MAX_CONVERSATIONS:
            add(
                "error",
                "too_many_conversations",
                f"combinations would plan {total} conversations",
                (conv_key, "number"),
                f"Use a fraction, e.g. combinations({min(1.0, 100 / total):.2f}).",
            )
    elif (number.count or 0) > MAX_CONVERSATIONS:
        add(
            "error",
            "too_many_conversations",
            f"at most {MAX_CONVERSATIONS} conversations per profile",
            (conv_key, "number"),
        )
    for output in profile.chatbot.outputs:
        if not IDENTIFIER.match(output.name):
            add(
                "error",
                "bad_name",
                f"output name {output.name!r} is not an identifier",
                ("chatbot", "output"),
            )
    return problems


def _check_counts(
    variable: Variable, items: list[Scalar], paths: dict[str, tuple[str | int, ...]], add: Any
) -> None:
    count = variable.selector.count
    path = paths.get(variable.name, ("user", "goals"))
    if isinstance(count, int) and count > len(items):
        add(
            "warning",
            "count_above_size",
            f"{variable.selector.kind}({count}) asks for more values than the "
            f"{len(items)} `{variable.name}` has",
            path,
            f"Use at most {len(items)}.",
        )


# -- JSON Schema ---------------------------------------------------------------------------------------------------


def _deprecated(schema: dict[str, Any], instead: str) -> dict[str, Any]:
    return {**schema, "deprecated": True, "description": f"Old spelling; write `{instead}` instead."}


def profile_json_schema() -> dict[str, Any]:
    """JSON Schema (2020-12) of the profile language, for the editor's completion and hover.

    Structural only: the validator's semantic checks (placeholders, dependencies, combinations) come from
    `validate` through the API. Deprecated spellings are present and marked `deprecated: true`.
    """
    selector = {
        "type": "string",
        "description": "How a value is picked per conversation: default() the whole list, random(), random(n), "
        "random(rand), another(), another(n) (no repetition), forward() (in order), forward(n), forward(<variable>) "
        "(nested: advances when <variable> has gone round) or pairwise() (all-pairs covering rows).",
        "pattern": r"^\s*(default|random|another|forward|pairwise)\s*\(\s*([A-Za-z_][A-Za-z0-9_]*|\d+|rand)?\s*\)\s*$",
        "examples": ["forward()", "forward(size)", "another()", "random(2)", "pairwise()"],
    }
    range_data = {
        "type": "object",
        "description": "Numbers from min to max (max always included), by step, or linspace evenly spaced floats.",
        "properties": {
            "min": {"type": "number"},
            "max": {"type": "number"},
            "step": {"type": "number", "exclusiveMinimum": 0},
            "linspace": {"type": "integer", "minimum": 2},
        },
        "required": ["min", "max"],
    }
    date_data = {
        "type": "object",
        "properties": {
            "date": {
                "type": "object",
                "description": "ISO dates (YYYY-MM-DD), the parts concatenated.",
                "properties": {
                    "custom": {"type": ["array", "string"], "description": "Dates as written."},
                    "random": {"type": "integer", "minimum": 1, "description": "n random dates (1900-2100)."},
                    "set": {
                        "type": "string",
                        "pattern": r"^[<>]\s*today\(\d+\)$",
                        "description": ">today(n) / <today(n): n dates within the next / previous year.",
                    },
                    "range": {
                        "type": "object",
                        "properties": {
                            "min": {"type": "string"},
                            "max": {"type": "string"},
                            "step": {"type": "string", "pattern": r"^(day|month|year|linspace)\(\d+\)$"},
                            "random": {"type": "integer", "minimum": 1},
                        },
                        "required": ["min", "max"],
                    },
                    "fake": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "n impossible dates, for negative tests.",
                    },
                },
            }
        },
        "required": ["date"],
    }
    function_data = {
        "type": "object",
        "description": "Values returned by a Python function in a local file (command line with "
        "--allow-local-files only).",
        "properties": {"file": {"type": "string"}, "function_name": {"type": "string"}, "args": {}},
        "required": ["file", "function_name"],
    }
    variable = {
        "type": "object",
        "properties": {
            "function": selector,
            "selector": _deprecated(selector, "function"),
            "type": {
                "type": "string",
                "description": "string, int, float, date or a custom type name.",
                "examples": ["string", "int", "float", "date"],
            },
            "data": {
                "description": "A list (items may be any(<prompt>) for LLM-invented values), a range, dates "
                "or a custom function.",
                "anyOf": [{"type": "array", "minItems": 1}, range_data, date_data, function_data],
            },
        },
        "required": ["type", "data"],
    }
    goal_item = {
        "anyOf": [
            {"type": "string", "description": "A goal; {{name}} is replaced by the variable's value."},
            {
                "type": "object",
                "minProperties": 1,
                "maxProperties": 1,
                "additionalProperties": variable,
                "description": "A variable: `name: {function, type, data}`.",
            },
        ]
    }
    output = {
        "type": "object",
        "minProperties": 1,
        "maxProperties": 1,
        "additionalProperties": {
            "type": "object",
            "properties": {
                "type": {
                    "type": "string",
                    "description": "string, int, float, bool, money ({amount, currency}), "
                    "date, time, datetime (ISO), list[T], enum[a, b] or a custom type. Old: str, currency.",
                    "examples": ["string", "int", "money", "date", "time", "list[string]", "enum[yes, no]"],
                },
                "description": {"type": "string", "description": "What to extract; the extractor's prompt."},
            },
            "required": ["type", "description"],
        },
    }
    style_names = [
        "default",
        "long phrases",
        "short phrases",
        "make spelling mistakes",
        "single question",
        "all questions",
        "change your mind",
    ]
    style = {
        "anyOf": [
            {"type": "string", "enum": style_names},
            {"type": "string", "enum": ["single questions", "use short phrases"], "deprecated": True},
            {
                "type": "object",
                "properties": {"change language": {"type": "array", "items": {"type": "string"}}},
                "required": ["change language"],
                "additionalProperties": False,
            },
        ]
    }
    goal_style = {
        "anyOf": [
            {
                "type": "object",
                "properties": {
                    "steps": {"type": "integer", "minimum": 1, "description": "Stop after n user messages."},
                    "random steps": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "Stop after a random 1..n user messages.",
                    },
                    "random_steps": _deprecated({"type": "integer", "minimum": 1}, "random steps"),
                    "all_answered": {
                        "description": "Stop when every goal is answered and every output found.",
                        "anyOf": [
                            {"type": "null"},
                            {
                                "type": "object",
                                "properties": {
                                    "limit": {"type": "integer", "minimum": 1, "default": 30},
                                    "export": {"type": "boolean", "default": False},
                                },
                            },
                        ],
                    },
                    "max_cost": {
                        "type": "number",
                        "minimum": 0,
                        "description": "USD budget per conversation.",
                    },
                },
            },
            {"type": "string", "enum": ["all_answered", "default"]},
        ]
    }
    number = {
        "description": "How many conversations: a number, combinations (enough to exhaust every finite selector), "
        "combinations(f) (a seeded random fraction), combinations(f, forward|pairwise). Old: all_combinations, "
        "sample(f).",
        "anyOf": [
            {"type": "integer", "minimum": 1},
            {
                "type": "string",
                "pattern": r"^(combinations|combinations\(\s*(0?\.\d+|1(\.0*)?)\s*(,\s*(forward|pairwise)\s*)?\))$",
            },
            {
                "type": "string",
                "pattern": r"^(all_combinations|sample\(\s*(0?\.\d+|1(\.0*)?)\s*\))$",
                "deprecated": True,
            },
        ],
    }
    llm = {
        "type": "object",
        "properties": {
            "model": {"type": "string", "description": "Model playing the user (default: the run's model)."},
            "provider": {"type": "string"},
            "model_prov": _deprecated({"type": "string"}, "provider"),
            "temperature": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.8},
            "format": {
                "type": "object",
                "properties": {
                    "type": {"enum": ["text", "speech", "audio"], "default": "text"},
                    "config": {"type": "string"},
                },
            },
        },
    }
    user = {
        "type": "object",
        "properties": {
            "language": {"type": "string", "default": "English"},
            "role": {"type": "string", "description": "Who the simulated user is and what they want."},
            "context": {
                "description": "Extra facts and at most one `personality: <name>`.",
                "anyOf": [
                    {
                        "type": "array",
                        "items": {
                            "anyOf": [
                                {"type": "string"},
                                {
                                    "type": "object",
                                    "properties": {"personality": {"type": "string"}},
                                    "required": ["personality"],
                                },
                            ]
                        },
                    },
                    {"type": "object", "properties": {"personality": {"type": "string"}}},
                ],
            },
            "goals": {"type": "array", "minItems": 1, "items": goal_item},
            "ask_about": _deprecated({"type": "array", "items": goal_item}, "goals"),
        },
        "required": ["role", "goals"],
    }
    chatbot = {
        "type": "object",
        "properties": {
            "is_starter": {"type": "boolean", "default": True, "description": "The chatbot speaks first."},
            "isStarter": _deprecated({"type": "boolean"}, "is_starter"),
            "fallback": {
                "description": "What the chatbot says when it does not understand (one or several).",
                "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
            },
            "output": {"type": "array", "items": output},
            "outputs": _deprecated({"type": "array", "items": output}, "output"),
        },
    }
    conversation = {
        "type": "object",
        "properties": {
            "number": number,
            "max_cost": {"type": "number", "minimum": 0, "description": "USD budget for this profile's run."},
            "goal_style": goal_style,
            "stop_condition": _deprecated(goal_style, "goal_style"),
            "interaction_style": {
                "type": "array",
                "items": {
                    "anyOf": [
                        style,
                        {
                            "type": "object",
                            "properties": {"random": {"type": "array", "items": style}},
                            "required": ["random"],
                        },
                    ]
                },
            },
        },
        "required": ["number", "goal_style"],
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://parley.invalid/schemas/sensei-profile.json",
        "title": "SENSEI conversation profile",
        "type": "object",
        "properties": {
            "test_name": {"type": "string", "minLength": 1, "description": "Unique name of this profile."},
            "llm": llm,
            "LLM": _deprecated(llm, "llm"),
            "user": user,
            "chatbot": chatbot,
            "conversation": conversation,
            "conversations": _deprecated(conversation, "conversation"),
        },
        "required": ["test_name", "user", "chatbot", "conversation"],
    }
