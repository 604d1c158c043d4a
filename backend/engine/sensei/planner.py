"""The planner: exactly which conversations a profile will run, before any LLM or chatbot is called.

`plan(profile, seed)` gives one row of variable values per conversation plus everything else drawn per
conversation (random steps, the random subset of styles, a conversation seed) and a cost estimate.

Selectors (each variable's stream advances exactly once per conversation):
- `forward()` walks the list in order and wraps; `forward(n)` walks it in chunks of n;
- `forward(v)` is nested iteration: it advances only when `v` has gone round once. With `period(v)` the number
  of conversations `v` holds one value for, `forward(v)` holds each of its values for `cycle(v) x period(v)`
  conversations — an odometer whose fastest wheel is the most depended-on variable (paper, Table 2);
- `another()`/`another(n)` draw without repetition from a seeded shuffle, reshuffling when exhausted;
- `random()`, `random(n)`, `random(rand)` draw with the variable's own seeded generator;
- `pairwise()` takes rows of an all-pairs covering array over every pairwise variable (wrapping around);
- `default()` gives the whole list.
Number of conversations: a fixed count, or `combinations` = enough conversations to exhaust every finite
selector (the paper's definition: the largest nested-forward odometer, plain forward list, another() list or
pairwise row count); `combinations(f)` runs a seeded random subset of round(f x that) rows, in plan order.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from engine.llm.prices import PriceTable
from engine.sensei.generators import AnyResolver, placeholder_any, values_of
from engine.sensei.profile import Profile, Scalar, Style, Variable

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
MAX_CONVERSATIONS = 10_000  # per profile
MAX_TURNS = 200  # user turns per conversation (goal_style steps or all_answered limit)

# Rough sizes used by the cost estimate (characters; 4 characters ≈ 1 token).
_SYSTEM_PROMPT_CHARS = 1800
_MESSAGE_CHARS = 220
_USER_COMPLETION_TOKENS = 60
_CHECK_COMPLETION_TOKENS = 120
_EXTRACT_COMPLETION_TOKENS_PER_OUTPUT = 30


class PlanError(ValueError):
    """The profile cannot be planned (a dependency cycle, a selector that needs what the profile lacks)."""


@dataclass(frozen=True)
class PlannedConversation:
    index: int
    values: dict[str, Any]
    goals: list[str]
    styles: list[Style]
    max_user_turns: int
    seed: int


@dataclass
class Plan:
    profile: str
    seed: int
    conversations: list[PlannedConversation]
    combinations: int
    candidates: dict[str, list[Scalar]] = field(default_factory=dict)
    estimated_cost_usd: float | None = None

    @property
    def rows(self) -> list[dict[str, Any]]:
        return [c.values for c in self.conversations]

    def to_json(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "seed": self.seed,
            "conversations": len(self.conversations),
            "combinations": self.combinations,
            "rows": self.rows,
            "estimated_cost_usd": None
            if self.estimated_cost_usd is None
            else round(self.estimated_cost_usd, 6),
        }


def render(template: str, values: dict[str, Any]) -> str:
    """A goal with its {{placeholders}} replaced; list values are joined with ", "."""

    def substitute(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            return match.group(0)
        value = values[name]
        return ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)

    return PLACEHOLDER.sub(substitute, template)


def placeholders(template: str) -> list[str]:
    return PLACEHOLDER.findall(template)


def dependency_cycle(variables: Sequence[Variable]) -> list[str] | None:
    """The names along a forward(v) cycle, or None."""
    edges = {v.name: v.selector.depends_on for v in variables if v.selector.depends_on}
    for start in edges:
        seen = [start]
        current = edges.get(start)
        while current is not None:
            if current in seen:
                return [*seen[seen.index(current) :], current]
            seen.append(current)
            current = edges.get(current)
    return None


def covering_array(sizes: Sequence[int]) -> list[list[int]]:
    """Rows (value indexes per parameter) in which every pair of values of every two parameters appears.

    Greedy and deterministic: each row starts from the first uncovered pair and fills the other parameters
    with the value covering the most still-uncovered pairs (ties: the lowest index).
    """
    n = len(sizes)
    uncovered = {
        (i, a, j, b)
        for i in range(n)
        for j in range(i + 1, n)
        for a in range(sizes[i])
        for b in range(sizes[j])
    }
    rows: list[list[int]] = []
    while uncovered:
        i, a, j, b = min(uncovered)
        row: list[int | None] = [None] * n
        row[i], row[j] = a, b
        for k in range(n):
            if row[k] is not None:
                continue
            best, best_gain = 0, -1
            for value in range(sizes[k]):
                gain = 0
                for other in range(n):
                    chosen = row[other]
                    if other == k or chosen is None:
                        continue
                    pair = (other, chosen, k, value) if other < k else (k, value, other, chosen)
                    gain += pair in uncovered
                if gain > best_gain:
                    best, best_gain = value, gain
            row[k] = best
        filled = [v if v is not None else 0 for v in row]
        for p in range(n):
            for q in range(p + 1, n):
                uncovered.discard((p, filled[p], q, filled[q]))
        rows.append(filled)
    return rows


class _Streams:
    """The value streams of a profile's variables; `row(i)` is the values of conversation i."""

    def __init__(self, profile: Profile, candidates: dict[str, list[Scalar]], seed: int) -> None:
        self.variables = profile.user.variables
        self.candidates = candidates
        self.rngs = {v.name: random.Random(f"{seed}:{v.name}") for v in self.variables}  # noqa: S311
        self.bags: dict[str, list[Scalar]] = {v.name: [] for v in self.variables}
        by_name = {v.name: v for v in self.variables}
        cycle = dependency_cycle(self.variables)
        if cycle:
            raise PlanError(f"forward() dependencies form a cycle: {' -> '.join(cycle)}")
        self.period: dict[str, int] = {}
        for variable in self.variables:
            self._period(variable.name, by_name)
        self.pairwise = [v.name for v in self.variables if v.selector.kind == "pairwise"]
        self.pairwise.sort(key=lambda name: -len(candidates[name]))
        self.pair_rows = (
            covering_array([len(candidates[name]) for name in self.pairwise])
            if len(self.pairwise) >= 2
            else []
        )

    def cycle(self, name: str) -> int:
        variable = next(v for v in self.variables if v.name == name)
        size = len(self.candidates[name])
        count = variable.selector.count
        return math.ceil(size / count) if isinstance(count, int) else size

    def _period(self, name: str, by_name: dict[str, Variable]) -> int:
        if name in self.period:
            return self.period[name]
        variable = by_name[name]
        dependency = variable.selector.depends_on
        if dependency is None:
            period = 1
        else:
            target = by_name.get(dependency)
            if target is None:
                raise PlanError(f"{name}: forward({dependency}) names no variable")
            if target.selector.kind != "forward":
                raise PlanError(f"{name}: forward({dependency}) needs {dependency} to use forward() too")
            period = self.cycle(dependency) * self._period(dependency, by_name)
        self.period[name] = period
        return period

    def combinations(self, basis: str) -> int:
        counts: list[int] = []
        for variable in self.variables:
            kind = variable.selector.kind
            if kind == "forward" and basis in ("all", "forward"):
                counts.append(self.cycle(variable.name) * self.period[variable.name])
            elif kind == "another" and basis == "all":
                counts.append(self.cycle(variable.name))
        if basis in ("all", "pairwise") and self.pair_rows:
            counts.append(len(self.pair_rows))
        return max(counts, default=0)

    def row(self, index: int) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for variable in self.variables:
            values[variable.name] = self._value(variable, index)
        return values

    def _value(self, variable: Variable, index: int) -> Any:
        items = self.candidates[variable.name]
        selector = variable.selector
        rng = self.rngs[variable.name]
        if selector.kind == "default":
            return list(items)
        if selector.kind == "random":
            if selector.count is None:
                return rng.choice(items)
            count = (
                rng.randint(1, len(items)) if selector.count == "rand" else min(selector.count, len(items))
            )
            return rng.sample(items, count)
        if selector.kind == "another":
            bag = self.bags[variable.name]
            wanted = selector.count if isinstance(selector.count, int) else 1
            if not bag:
                bag.extend(rng.sample(items, len(items)))
            taken, bag[:] = bag[:wanted], bag[wanted:]
            return taken[0] if selector.count is None else taken
        if selector.kind == "forward":
            step = (index // self.period[variable.name]) % self.cycle(variable.name)
            if isinstance(selector.count, int):
                return items[step * selector.count : (step + 1) * selector.count]
            return items[step]
        # pairwise
        if not self.pair_rows:
            return items[index % len(items)]
        row = self.pair_rows[index % len(self.pair_rows)]
        return items[row[self.pairwise.index(variable.name)]]


def plan(
    profile: Profile,
    seed: int | None = None,
    *,
    today: date | None = None,
    any_values: AnyResolver = placeholder_any,
    base_dir: Path | None = None,
    model: str | None = None,
    prices: PriceTable | None = None,
) -> Plan:
    """The conversations `profile` will run. Same profile, seed and `today` → the same plan."""
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    today = today or date.today()
    candidates: dict[str, list[Scalar]] = {}
    for variable in profile.user.variables:
        rng = random.Random(f"{seed}:{variable.name}:data")  # noqa: S311
        candidates[variable.name] = values_of(
            variable, rng=rng, today=today, any_values=any_values, base_dir=base_dir
        )
    streams = _Streams(profile, candidates, seed)
    number = profile.conversation.number
    if number.kind == "fixed":
        total = number.count or 1
        indexes = list(range(total))
    else:
        total = max(1, streams.combinations(number.basis))
        wanted = max(1, round(total * number.fraction))
        if wanted >= total:
            indexes = list(range(total))
        else:
            picker = random.Random(f"{seed}:sample")  # noqa: S311
            indexes = sorted(picker.sample(range(total), wanted))
    if total > MAX_CONVERSATIONS:
        raise PlanError(f"the profile plans {total} conversations; the limit is {MAX_CONVERSATIONS}")
    all_rows = [streams.row(i) for i in range(max(indexes) + 1)] if indexes else []
    chooser = random.Random(f"{seed}:conversation")  # noqa: S311
    conversations: list[PlannedConversation] = []
    for position, row_index in enumerate(indexes):
        values = all_rows[row_index]
        conversations.append(
            PlannedConversation(
                index=position,
                values=values,
                goals=[render(goal, values) for goal in profile.user.goals],
                styles=_styles_for(profile, chooser),
                max_user_turns=_turns_for(profile, chooser),
                seed=chooser.randrange(2**31),
            )
        )
    result = Plan(
        profile=profile.name,
        seed=seed,
        conversations=conversations,
        combinations=streams.combinations(number.basis) if number.kind == "combinations" else total,
        candidates=candidates,
    )
    result.estimated_cost_usd = estimate_cost(profile, result, model=model, prices=prices)
    return result


def _styles_for(profile: Profile, rng: random.Random) -> list[Style]:
    styles = list(profile.conversation.styles)
    pool = profile.conversation.random_styles
    if pool:
        styles += rng.sample(pool, rng.randint(1, len(pool)))
    return styles


def _turns_for(profile: Profile, rng: random.Random) -> int:
    goal_style = profile.conversation.goal_style
    if goal_style.kind == "steps":
        return goal_style.steps or 1
    if goal_style.kind == "random_steps":
        return rng.randint(1, goal_style.steps or 1)
    return goal_style.limit


def estimate_cost(
    profile: Profile, planned: Plan, *, model: str | None = None, prices: PriceTable | None = None
) -> float | None:
    """An upper-bound estimate in USD (every conversation runs to its turn limit); None for unpriced models."""
    table = prices or PriceTable.default()
    price = table.for_model(model or profile.llm.model or "gpt-4o-mini")
    if price is None:
        return None
    role_chars = len(profile.user.role) + sum(
        len(c) for c in profile.user.context + profile.user.personality_context
    )
    total = 0.0
    checks = profile.conversation.goal_style.kind == "all_answered"
    literal = len(profile.script)  # a script's turns are sent as written: no LLM writes them
    for conversation in planned.conversations:
        base = _SYSTEM_PROMPT_CHARS + role_chars + sum(len(g) for g in conversation.goals)
        for turn in range(literal, conversation.max_user_turns):
            history = 2 * turn * _MESSAGE_CHARS
            total += price.cost((base + history) // 4, _USER_COMPLETION_TOKENS)
            if checks:
                total += price.cost((base + history + _MESSAGE_CHARS) // 4, _CHECK_COMPLETION_TOKENS)
        if profile.chatbot.outputs:
            transcript = 2 * conversation.max_user_turns * _MESSAGE_CHARS
            described = sum(len(o.description) + 80 for o in profile.chatbot.outputs)
            total += price.cost(
                (1200 + transcript + described) // 4,
                _EXTRACT_COMPLETION_TOKENS_PER_OUTPUT * len(profile.chatbot.outputs),
            )
    return total
