"""Which names a rule uses that nothing will define when it is checked: a typo caught at save, not at run time.

A rule's short names are resolved per conversation (`engine.check.namespace`): the conversation's variables
(`inputs`), its extracted outputs (`outputs`), its recorded settings, the built-ins, `conv`, and the functions
of the rule library. The engine cannot know the variables and outputs before a conversation exists; the
workspace can, from the project's profiles. So this check lives here, beside the project.

A name no profile of the project defines is an error (the rule is stored, but not valid) once the project has
valid profiles; before that it is a warning, since the profiles that will define it may not be written yet.
Rules over k conversations and global rules see only `conv` / `conversations` and the functions, so any other
free name there is an error whatever the profiles say.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.check.functions import default_registry
from engine.check.namespace import BUILTINS
from engine.check.rules import EXPRESSION_FIELDS, Rule
from engine.check.sandbox import Program, compile_rule_code
from engine.sensei.personalities import Personality as EnginePersonality
from engine.sensei.profile import GoalStyle
from workspace.models import Profile, Project
from workspace.validation import Validation, validate_personality, validate_profile

# What SENSEI records in a conversation's `settings` (engine.sensei.simulator and executor), reachable by short
# name; `goal_style`'s own keys are lifted one level, as `namespace._flat_settings` does.
RECORDED_SETTINGS = frozenset(
    {
        "styles",
        "goal_style",
        "max_user_turns",
        "goals",
        "seed",
        "personality",
        "user_model",
        "judge_model",
        "profile_model",
        "temperature",
        "connector",
        "llm_calls",
        "stopped_because",
        "test_name",
        # The profile's conversation settings, as older records and the rule docs name them.
        "number",
        "interaction_style",
        *GoalStyle.model_fields,
    }
)


@dataclass(frozen=True)
class ProjectNames:
    """The variables and outputs the project's valid profiles define."""

    inputs: frozenset[str] = frozenset()
    outputs: frozenset[str] = frozenset()
    profiles: int = 0

    @classmethod
    def of(cls, project: Project) -> ProjectNames:
        personalities = tuple(
            p for p in (validate_personality(doc.text).parsed for doc in project.personalities.all()) if p
        )
        inputs: set[str] = set()
        outputs: set[str] = set()
        count = 0
        for text in Profile.objects.filter(project=project, valid=True).values_list("text", flat=True):
            names = _profile_names(text, personalities)
            if names is None:
                continue
            count += 1
            inputs.update(names[0])
            outputs.update(names[1])
        return cls(frozenset(inputs), frozenset(outputs), count)


@functools.lru_cache(maxsize=1024)
def _profile_names(
    text: str, personalities: tuple[EnginePersonality, ...]
) -> tuple[frozenset[str], frozenset[str]] | None:
    """A profile's variables and outputs. Cached: the rule editor validates as the user types, and reading a
    profile takes tens of milliseconds."""
    profile = validate_profile(text, personalities=personalities).parsed
    if profile is None:
        return None
    return (
        frozenset(variable.name for variable in profile.user.variables),
        frozenset(output.name for output in profile.chatbot.outputs),
    )


def check_rule_names(result: Validation, project: Project) -> Validation:
    """`result` (a rule's validation) with the undefined names added; an error among them makes it invalid."""
    if result.parsed is None:
        return result
    problems = undefined_name_problems(result.parsed, ProjectNames.of(project))
    if not problems:
        return result
    valid = result.valid and not any(problem["severity"] == "error" for problem in problems)
    return dataclasses.replace(result, valid=valid, problems=[*result.problems, *problems])


@dataclass
class _Use:
    name: str
    node: ast.AST
    section: str = ""  # "inputs" / "outputs" for `inputs.x`, `outputs['x']`; "" for a bare name


@dataclass
class _Uses:
    bound: set[str] = field(default_factory=set)
    uses: list[_Use] = field(default_factory=list)


def _collect(program: Program) -> _Uses:
    """Every name the program reads, every name it binds (assignments, comprehension targets)."""
    found = _Uses()
    roots: list[ast.AST] = [*program.assignments, program.result]
    for root in roots:
        for node in ast.walk(root):
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Store):
                    found.bound.add(node.id)
                else:
                    found.uses.append(_Use(node.id, node))
            elif isinstance(node, ast.Attribute) and _is_section(node.value):
                found.uses.append(_Use(node.attr, node, section=_section(node.value)))
            elif (
                isinstance(node, ast.Subscript)
                and _is_section(node.value)
                and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, str)
            ):
                found.uses.append(_Use(node.slice.value, node, section=_section(node.value)))
    return found


def _is_section(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id in ("inputs", "outputs")


def _section(node: ast.AST) -> str:
    return node.id if isinstance(node, ast.Name) else ""


def _programs(rule: Rule) -> Iterator[tuple[str, Program]]:
    for name in EXPRESSION_FIELDS:
        source = rule.expression(name)
        if source is None or (name == "on_error" and rule.on_error_is_text):
            continue
        yield name, compile_rule_code(source)  # the rule was compiled when it was parsed: this cannot fail


def undefined_name_problems(rule: Rule, project: ProjectNames) -> list[dict[str, Any]]:
    """One problem per distinct undefined name, at its first use, with the closest known name as a hint."""
    functions = set(default_registry().names())
    single = rule.kind == "single"
    per_conversation = project.inputs | project.outputs | RECORDED_SETTINGS
    known = functions | ({*BUILTINS, "conv", *per_conversation} if single else {"conv", "conversations"})
    problems: list[dict[str, Any]] = []
    reported: set[tuple[str, str]] = set()
    for field_name, program in _programs(rule):
        uses = _collect(program)
        for use in uses.uses:
            if use.section:
                if not single:
                    continue  # `inputs` alone is already reported in a rule over several conversations
                candidates = project.inputs if use.section == "inputs" else project.outputs
                if use.name in candidates:
                    continue
                label = f"{use.section}.{use.name}"
            else:
                if use.name in known or use.name in uses.bound:
                    continue
                candidates = frozenset(known)
                label = use.name
            if (use.section, use.name) in reported:
                continue
            reported.add((use.section, use.name))
            problems.append(_problem(rule, field_name, use, label, candidates, project, single=single))
    return problems


def _problem(
    rule: Rule,
    field_name: str,
    use: _Use,
    label: str,
    candidates: Iterable[str],
    project: ProjectNames,
    *,
    single: bool,
) -> dict[str, Any]:
    location = rule.locations.get(field_name)
    line, column = (
        location.at(getattr(use.node, "lineno", None), getattr(use.node, "col_offset", 0) + 1)
        if location
        else (None, None)
    )
    close = difflib.get_close_matches(use.name, sorted(candidates), n=1)
    hint = f"did you mean {close[0]!r}?" if close else None
    key = {"if": "if", "on_error": "on-error"}.get(field_name, field_name)
    if not single:
        message = (
            f"{key}: {label!r} is not defined in a rule over several conversations: it sees `conv` "
            f"(or `conversations`) and the functions; write e.g. conv[0].{use.name}"
        )
        severity = "error"
    elif project.profiles == 0:
        message = f"{key}: no profile of this project defines {label!r} yet"
        severity = "warning"
    else:
        where = "variable" if use.section == "inputs" else "output" if use.section == "outputs" else "name"
        message = (
            f"{key}: {label!r} is not a {where} of any profile of this project, nor a built-in or function"
        )
        severity = "error"
    return {
        "severity": severity,
        "message": message,
        "line": line,
        "column": column,
        "path": key,
        "hint": hint,
    }
