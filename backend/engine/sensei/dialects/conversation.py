"""The `conversation` section: how many conversations, when each stops, and the interaction styles.

Old spellings read here: `all_combinations`, `sample(f)`, `stop_condition`, `random_steps`, a bare `default`
goal style, and style aliases such as `single questions`.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from engine.sensei.dialects.reader import Path, Reader
from engine.sensei.dialects.syntax import call_parts
from engine.sensei.planner import MAX_TURNS
from engine.sensei.profile import STYLE_NAMES, ConversationSettings, GoalStyle, NumberSpec, Style

STYLE_ALIASES = {
    "single questions": "single question",
    "use short phrases": "short phrases",
    "short phrase": "short phrases",
    "long phrase": "long phrases",
    "use long phrases": "long phrases",
    "change languages": "change language",
    "make spelling mistake": "make spelling mistakes",
    "spelling mistakes": "make spelling mistakes",
}


def read_conversation(
    reader: Reader, value: Any, path: Path, *, scripted: bool = False
) -> ConversationSettings | None:
    """The section; with a script (`scripted`), `number` defaults to 1 and `goal_style` to the script's steps."""
    if value is None:
        reader.error("missing", "the conversation section is required (number, goal_style)", path)
        return None
    data = reader.mapping(value, path, "conversation")
    if data is None:
        return None
    reader.unknown_keys(
        data, ["number", "max_cost", "goal_style", "stop_condition", "interaction_style"], path
    )
    if scripted:
        data = {"number": 1, "goal_style": {"steps": 1}, "interaction_style": ["default"], **data}
    number = _number_spec(reader, data.get("number"), (*path, "number"))
    max_cost = reader.number(data.get("max_cost"), (*path, "max_cost"), "max_cost")
    style_key = "goal_style"
    if "goal_style" not in data and "stop_condition" in data:
        style_key = "stop_condition"
        reader.deprecated("stop_condition", "goal_style", (*path, "stop_condition"))
    goal_style = _goal_style(reader, data.get(style_key), (*path, style_key))
    styles, random_styles = _styles(reader, data.get("interaction_style"), (*path, "interaction_style"))
    if number is None or goal_style is None:
        return None
    return ConversationSettings(
        number=number,
        max_cost=max_cost,
        goal_style=goal_style,
        styles=styles,
        random_styles=random_styles,
    )


def _number_spec(reader: Reader, value: Any, path: Path) -> NumberSpec | None:
    hint = "Use a number, combinations, combinations(0.5) or combinations(0.5, forward|pairwise)."
    if value is None:
        reader.error("missing", "conversation.number is required", path, hint)
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            reader.error("out_of_range", "conversation.number must be at least 1", path)
            return None
        return NumberSpec(kind="fixed", count=value)
    text = str(value).strip()
    if text.isdigit():
        return _number_spec(reader, int(text), path)
    if text in ("all_combinations", "combinations"):
        if text == "all_combinations":
            reader.deprecated("all_combinations", "combinations", path)
        return NumberSpec(kind="combinations")
    parts = call_parts(text)
    if parts is None or parts[0] not in ("sample", "combinations") or not 1 <= len(parts[1]) <= 2:
        reader.error("unknown_value", f"{text!r} is not a valid number of conversations", path, hint)
        return None
    kind, args = parts
    if kind == "sample":
        reader.deprecated(text, f"combinations({', '.join(args)})", path)
        if len(args) != 1:
            reader.error("unknown_value", "sample() takes one fraction", path, hint)
            return None
    try:
        fraction = float(args[0])
    except ValueError:
        reader.error("unknown_value", f"{args[0]!r} is not a fraction", path, hint)
        return None
    if not 0 < fraction <= 1:
        reader.error("out_of_range", "the fraction must be above 0 and at most 1", path, hint)
        return None
    basis = args[1].lower() if len(args) == 2 else "all"
    if basis not in ("forward", "pairwise", "all"):
        reader.error("unknown_value", f"{basis!r} is not forward or pairwise", path, hint)
        return None
    return NumberSpec(kind="combinations", fraction=fraction, basis=basis)  # type: ignore[arg-type]


def _goal_style(reader: Reader, value: Any, path: Path) -> GoalStyle | None:
    hint = "Use {steps: n}, {random steps: n} or {all_answered: {limit: n}}."
    if value is None:
        reader.error("missing", "conversation.goal_style is required", path, hint)
        return None
    if isinstance(value, str):
        key = value.strip()
        if key == "default":
            reader.warn(
                "deprecated",
                "goal_style `default` means all_answered with limit 30",
                path,
                "Write `goal_style: {all_answered: {limit: 30}}`.",
            )
            return GoalStyle(kind="all_answered")
        if key == "all_answered":
            return GoalStyle(kind="all_answered")
        reader.error("unknown_value", f"goal_style {key!r} is not known", path, hint)
        return None
    data = reader.mapping(value, path, "goal_style")
    if data is None:
        return None
    reader.unknown_keys(
        data, ["steps", "random steps", "random_steps", "all_answered", "default", "max_cost"], path
    )
    max_cost = reader.number(data.get("max_cost"), (*path, "max_cost"), "goal_style.max_cost")
    modes = [k for k in ("steps", "random steps", "random_steps", "all_answered", "default") if k in data]
    if not modes:
        reader.error("missing", "goal_style needs steps, random steps or all_answered", path, hint)
        return None
    if "all_answered" in modes or "default" in modes:
        key = "all_answered" if "all_answered" in modes else "default"
        spec = data.get(key)
        limit, export = 30, False
        if isinstance(spec, dict):
            reader.unknown_keys(spec, ["limit", "export"], (*path, key))
            if spec.get("limit") is not None:
                limit = reader.integer(spec["limit"], (*path, key, "limit"), "limit") or 30
            export = bool(spec.get("export", False))
        elif isinstance(spec, int) and not isinstance(spec, bool):
            limit = spec
        if "steps" in data:
            # The paper: maxSteps and allGoals together = stop at whichever comes first.
            steps = reader.integer(data["steps"], (*path, "steps"), "steps")
            limit = min(limit, steps) if steps else limit
        if limit > MAX_TURNS:
            reader.error(
                "out_of_range", f"at most {MAX_TURNS} user turns per conversation", (*path, key), hint
            )
            return None
        return GoalStyle(kind="all_answered", limit=limit, export=export, max_cost=max_cost)
    if len(modes) > 1:
        reader.error("conflict", "goal_style has both steps and random steps", path, hint)
        return None
    key = modes[0]
    if key == "random_steps":
        reader.deprecated("random_steps", "random steps", (*path, key))
    steps = reader.integer(data[key], (*path, key), key)
    if steps is None:
        return None
    if steps > MAX_TURNS:
        reader.error("out_of_range", f"at most {MAX_TURNS} user turns per conversation", (*path, key), hint)
        return None
    if steps > 30:
        reader.warn(
            "long_conversation",
            f"{steps} steps is a long conversation (cost grows with it)",
            (*path, key),
        )
    return GoalStyle(kind="steps" if key == "steps" else "random_steps", steps=steps, max_cost=max_cost)


def _styles(reader: Reader, value: Any, path: Path) -> tuple[list[Style], list[Style]]:
    if value is None or value == []:
        reader.warn(
            "missing", "no interaction_style; using default", path, "Add `interaction_style: [default]`."
        )
        return [Style(name="default")], []
    if isinstance(value, dict | str):
        reader.warn("deprecated", "interaction_style should be a list", path, "Write it as a list (`- ...`).")
        value = [{k: v} for k, v in value.items()] if isinstance(value, dict) else [value]
    if not isinstance(value, list):
        reader.error("wrong_type", "interaction_style must be a list", path)
        return [Style(name="default")], []
    styles: list[Style] = []
    random_styles: list[Style] = []
    for i, item in enumerate(value):
        where = (*path, i)
        if isinstance(item, dict) and len(item) == 1 and str(next(iter(item))).strip().lower() == "random":
            inner = next(iter(item.values()))
            if not isinstance(inner, list) or not inner:
                reader.error("wrong_type", "random needs a non-empty list of styles", (*where, "random"))
                continue
            if i != 0:
                reader.warn("order", "random is usually the first style; it is applied anyway", where)
            for j, sub in enumerate(inner):
                style = _style(reader, sub, (*where, "random", j))
                if style is not None:
                    random_styles.append(style)
            continue
        style = _style(reader, item, where)
        if style is not None:
            styles.append(style)
    if not styles and not random_styles:
        styles = [Style(name="default")]
    return styles, random_styles


def _style(reader: Reader, item: Any, path: Path) -> Style | None:
    languages: list[str] = []
    if isinstance(item, dict) and len(item) == 1:
        raw_name, langs = next(iter(item.items()))
        name = _style_key(str(raw_name))
        if name != "change language":
            reader.error("unknown_style", f"style {raw_name!r} takes no list", path)
            return None
        langs = langs if isinstance(langs, list) else [langs]
        languages = [str(lang).strip() for lang in langs if lang is not None and str(lang).strip()]
        if not languages:
            reader.error("missing", "change language needs at least one language", path)
            return None
    elif isinstance(item, str):
        raw_name = item
        name = _style_key(item)
    else:
        reader.error("wrong_type", "a style is a name or {change language: [...]}", path)
        return None
    if name in STYLE_ALIASES:
        reader.deprecated(str(raw_name), STYLE_ALIASES[name], path)
        name = STYLE_ALIASES[name]
    if name not in STYLE_NAMES:
        close = difflib.get_close_matches(name, STYLE_NAMES, n=1)
        reader.error(
            "unknown_style",
            f"interaction style {raw_name!r} does not exist",
            path,
            f"Did you mean `{close[0]}`?" if close else f"Known styles: {', '.join(STYLE_NAMES)}.",
        )
        return None
    if name == "change language" and not languages:
        reader.error(
            "missing",
            "change language needs a list of languages",
            path,
            "Write `- change language: [Spanish, French]`.",
        )
        return None
    return Style(name=name, languages=languages)  # type: ignore[arg-type]


def _style_key(text: str) -> str:
    return re.sub(r"[\s_\-]+", " ", text.strip().lower())
