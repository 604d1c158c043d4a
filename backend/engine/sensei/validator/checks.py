"""What only the whole profile can tell, checked after the dialect reader has built it.

References: undefined `{{placeholders}}`, unused variables, `forward(v)` on an undeclared or non-forward
variable, dependency cycles, a lonely `pairwise()`, unknown languages. Sizes (only when the profile has no
error yet; candidate values are drawn as a dry run, no LLM): selectors asking for more values than the list
has, `combinations` that cannot be computed, and a plan that would be too large.
"""

from __future__ import annotations

import difflib
from datetime import date
from pathlib import Path as FsPath
from typing import Any

from engine.sensei.dialects import IDENTIFIER
from engine.sensei.generators import GeneratorError, values_of
from engine.sensei.planner import MAX_CONVERSATIONS, PlanError, _Streams, dependency_cycle, placeholders
from engine.sensei.problems import Problem, has_errors
from engine.sensei.profile import FunctionData, Profile, Scalar, Variable
from engine.sensei.validator.languages import LANGUAGES
from engine.yamldata import Locator


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


def semantic_problems(
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
        problems.append(Problem.at(severity, code, message, path, locate(path), hint=hint, file=source))

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
