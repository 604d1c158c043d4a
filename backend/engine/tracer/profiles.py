"""Profile synthesis (thesis ch. 4): grouping, then one LLM call per profile, deterministic assembly, validation.

Per profile, a single structured call returns the goals with `{{variables}}`, each variable's match against the
listed data sources (parameter options and listed outputs) with one out-of-range value, or generated values
when nothing matches, the context and the typed outputs. Everything else is computed here without the LLM:
variable definitions (matched options + the out-of-range value; numbers as ranges; dates as ISO dates), the
conversation settings (number, steps, budget, style), temperature and personality (seeded). Each profile is
written in SENSEI's canonical dialect and checked by the SENSEI validator; errors go back to the LLM for up to
`repair_rounds` rounds, and a profile that still fails is kept apart as invalid.
"""

from __future__ import annotations

import io
import logging
import random
import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from ruamel.yaml import YAML

from engine.llm import user
from engine.tracer import prompts
from engine.tracer.deps import TracerDeps
from engine.tracer.explore import load_model, primary_language
from engine.tracer.model import (
    FunctionalModel,
    GroupingAnswer,
    ProfileDraft,
    ProfileGroup,
    RepairAnswer,
    VariableDraft,
    snake_name,
)
from engine.tracer.state import ProfileRecord, TracerState
from engine.tracer.workflow import snippets

logger = logging.getLogger("engine.tracer")
PLACEHOLDER = re.compile(r"\{\{\s*([^{}]+?)\s*\}\}")
_FENCE = re.compile(r"^```(?:ya?ml)?\s*\n(.*?)\n```\s*$", re.DOTALL)
_LIST_LEAD = re.compile(r"(?:including|such as|like|:)\s*(.+)$", re.IGNORECASE | re.DOTALL)
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
PERSONALITIES = (
    "conversational-user",
    "curious-user",
    "direct-user",
    "disorganized-user",
    "elderly-user",
    "formal-user",
    "impatient-user",
    "rude-user",
    "sarcastic-user",
    "skeptical-user",
)
"""Fallback list; the run uses SENSEI's built-in catalogue when it is importable."""


# -- data sources -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DataSource:
    id: str
    label: str
    values: tuple[str, ...]


def listed_items(description: str) -> list[str]:
    """The items of a list written in an output's description ("sizes: small, medium or large")."""
    match = _LIST_LEAD.search(description)
    if match is None:
        return []
    parts = re.split(r",|;|\bor\b|\band\b|/", match.group(1))
    items = [p.strip(" .()[]\"'") for p in parts]
    items = [item for item in items if 1 <= len(item) <= 60]
    return list(dict.fromkeys(items))[:12] if len(items) >= 2 else []


def data_sources(model: FunctionalModel) -> list[DataSource]:
    sources: list[DataSource] = []
    for node in model.functionalities:
        for parameter in node.parameters:
            if parameter.options:
                label = f"{parameter.name} (asked by {node.name})"
                sources.append(DataSource(f"DS{len(sources) + 1}", label, tuple(parameter.options)))
        for output in node.outputs:
            items = listed_items(output.description)
            if items:
                label = f"{output.name} (listed by {node.name})"
                sources.append(DataSource(f"DS{len(sources) + 1}", label, tuple(items)))
    return sources


# -- grouping -----------------------------------------------------------------------------------------------------


def _workflow_listing(model: FunctionalModel, names: list[str] | None = None) -> str:
    lines = []
    for node in model.functionalities:
        if names is not None and node.name not in names:
            continue
        after = f" (after {', '.join(node.parents)})" if node.parents else ""
        inputs = "; ".join(
            p.name + (f": {', '.join(p.options[:10])}" if p.options else "") for p in node.parameters
        )
        outputs = ", ".join(o.name for o in node.outputs)
        details = " | ".join(
            part
            for part in (f"inputs {inputs}" if inputs else "", f"outputs {outputs}" if outputs else "")
            if part
        )
        lines.append(f"- {node.name}{after}: {node.description}" + (f" [{details}]" if details else ""))
    return "\n".join(lines)


def fix_groups(model: FunctionalModel, groups: list[ProfileGroup], limit: int) -> list[dict[str, Any]]:
    """Known names only, no empty group, at most `limit` groups, and every functionality covered."""
    names = model.names()
    fixed: list[dict[str, Any]] = []
    for group in groups:
        members = []
        for name in group.functionalities:
            resolved = name if name in names else snake_name(name)
            if resolved in names and resolved not in members:
                members.append(resolved)
        if members and len(fixed) < limit:
            fixed.append(
                {
                    "name": group.name.strip() or f"User {len(fixed) + 1}",
                    "role": group.role,
                    "functionalities": members,
                }
            )
    if not fixed and names:
        fixed.append(
            {
                "name": "Typical user",
                "role": "A user who tries what the chatbot offers.",
                "functionalities": [],
            }
        )
    for name in names:
        if any(name in g["functionalities"] for g in fixed):
            continue
        node = model.get(name)
        related = set(node.parents if node else []) | set(model.children_of(name))
        home = next((g for g in fixed if related & set(g["functionalities"])), None)
        if home is None:
            home = min(fixed, key=lambda g: len(g["functionalities"]))
        home["functionalities"].append(name)
    return fixed


def group(deps: TracerDeps, state: TracerState) -> dict[str, object]:
    deps.context.reporter.stage("profiles")
    model = load_model(state)
    if not model.functionalities:
        return {"groups": [], "warnings": ["No functionality was found, so no profile can be written."]}
    strategy = (
        "one complete task, from its first step to its confirmation"
        if model.chatbot_type == "transactional"
        else "one theme of questions"
    )
    with deps.usage_delta() as usage:
        answer = deps.llm.structured(
            [
                user(
                    prompts.GROUP_PROFILES.format(
                        chatbot_type=model.chatbot_type,
                        functionalities=_workflow_listing(model),
                        snippets=snippets(state.get("transcripts", []), per_session=800, total=2000),
                        max_profiles=deps.config.max_profiles,
                        strategy=strategy,
                    )
                )
            ],
            GroupingAnswer,
            tag="tracer.group",
        )
    return {"groups": fix_groups(model, answer.profiles, deps.config.max_profiles), "usage": usage}


# -- assembly -----------------------------------------------------------------------------------------------------


def dump_yaml(data: Any) -> str:
    yaml = YAML(typ="rt")  # round-trip: keys stay in the canonical order (test_name, llm, user, ...)
    yaml.default_flow_style = False
    yaml.width = 1000
    yaml.allow_unicode = True
    yaml.indent(mapping=2, sequence=4, offset=2)
    buffer = io.StringIO()
    yaml.dump(data, buffer)
    return buffer.getvalue()


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def variable_definition(draft: VariableDraft, sources: dict[str, DataSource], today: date) -> dict[str, Any]:
    """SENSEI's `{function, type, data}` for one variable (matched, numeric, date or generated)."""
    source = None
    if draft.source:
        key = draft.source.strip().upper()
        source = sources.get(key if key.startswith("DS") else f"DS{key}")
    extra = (draft.out_of_range or "").strip()
    if source is not None:
        values = list(dict.fromkeys(v for v in source.values if v.strip()))
        if extra and extra.lower() not in {v.lower() for v in values}:
            values.append(extra)
        return {"function": "forward()", "type": "string", "data": values}
    if draft.kind in ("integer", "decimal"):
        low = draft.minimum if draft.minimum is not None else 1
        high = draft.maximum if draft.maximum is not None else max(low + 4, 5)
        if high <= low:
            high = low + 1
        if draft.kind == "integer":
            low, high = round(low), max(round(high), round(low) + 1)
            return {"function": "forward()", "type": "int", "data": {"min": low, "max": high, "step": 1}}
        step = round((high - low) / 4, 4) or 1
        return {
            "function": "forward()",
            "type": "float",
            "data": {"min": _number(low), "max": _number(high), "step": _number(step)},
        }
    if draft.kind == "date":
        dates = [v.strip() for v in draft.values if _ISO_DATE.match(v.strip())]
        if not dates:
            dates = [(today + timedelta(days=days)).isoformat() for days in (1, 3, 8)]
        return {"function": "forward()", "type": "date", "data": list(dict.fromkeys(dates))}
    values = list(dict.fromkeys(v.strip() for v in draft.values if v.strip()))
    if extra and extra.lower() not in {v.lower() for v in values}:
        values.append(extra)
    return {"function": "forward()", "type": "string", "data": values}


def _size(definition: dict[str, Any]) -> int:
    data = definition["data"]
    if isinstance(data, list):
        return len(data)
    step = data.get("step") or 1
    return int((data["max"] - data["min"]) / step) + 1


def conversation_settings(
    goals: list[str], outputs: int, definitions: list[dict[str, Any]]
) -> dict[str, Any]:
    """Number of conversations, steps, budget and style, computed without the LLM (thesis §4.2.6)."""
    largest = max((_size(d) for d in definitions), default=0)
    number = min(largest, 30) if largest > 1 else 3
    steps = max(15, min(30, (len(goals) + outputs) * 2))
    return {
        "number": number,
        "max_cost": round(max(0.5, 0.15 * number), 2),
        "goal_style": {"steps": steps},
        "interaction_style": ["single question"],
    }


def _personality_names() -> list[str]:
    try:
        from engine.sensei.personalities import built_in_personalities
    except ImportError:  # pragma: no cover - SENSEI is part of the engine; kept for a stripped install
        return list(PERSONALITIES)
    return sorted(built_in_personalities())


def _language(model: FunctionalModel) -> str:
    from engine.sensei.validator import LANGUAGES

    language = primary_language(model)
    return language if language in LANGUAGES else "English"


def assemble(
    deps: TracerDeps,
    model: FunctionalModel,
    group_data: dict[str, Any],
    draft: ProfileDraft,
    sources: list[DataSource],
    index: int,
) -> dict[str, Any]:
    config = deps.config
    chooser = random.Random(f"{config.seed}:profile:{index}")  # noqa: S311 - reproducible test data, not security
    today = date.fromtimestamp(deps.clock())
    goals = [PLACEHOLDER.sub(lambda m: "{{" + snake_name(m.group(1)) + "}}", g.strip()) for g in draft.goals]
    goals = [g for g in goals if g]
    used = list(dict.fromkeys(m.group(1) for g in goals for m in PLACEHOLDER.finditer(g)))
    drafts = {snake_name(v.name): v for v in draft.variables}
    by_id = {s.id: s for s in sources}
    definitions: list[dict[str, Any]] = []
    variables: list[dict[str, Any]] = []
    for name in used:
        variable = drafts.get(name)
        if variable is None:
            continue  # the validator reports the undefined placeholder; the repair round fixes it
        definition = variable_definition(variable, by_id, today)
        definitions.append(definition)
        variables.append({name: definition})
    context: list[Any] = []
    if chooser.random() < config.personality_probability:
        context.append({"personality": chooser.choice(_personality_names())})
    context += [line.strip() for line in draft.context if line.strip()]
    outputs: list[dict[str, Any]] = []
    for output in draft.outputs:
        name = snake_name(output.name)
        if all(name not in o for o in outputs):
            outputs.append(
                {
                    name: {
                        "type": output.type,
                        "description": output.description.strip() or name.replace("_", " "),
                    }
                }
            )
    chatbot: dict[str, Any] = {"is_starter": model.greets_first}
    if model.fallback:
        chatbot["fallback"] = model.fallback
    chatbot["output"] = outputs
    return {
        "test_name": group_data["name"],
        "llm": {
            "model": config.profile_model or deps.llm.model,
            "temperature": chooser.choice([0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]),
            "format": {"type": "text"},
        },
        "user": {
            "language": _language(model),
            "role": group_data["role"],
            "context": context,
            "goals": goals + variables,
        },
        "chatbot": chatbot,
        "conversation": conversation_settings(goals, len(outputs), definitions),
    }


def _strip_fence(text: str) -> str:
    match = _FENCE.match(text.strip())
    return (match.group(1) if match else text).strip() + "\n"


def validated(deps: TracerDeps, name: str, text: str) -> tuple[str, list[str], int]:
    """Validate, and repair with the LLM while errors remain (at most `repair_rounds` rounds)."""
    errors = deps.validate_profile(text)
    rounds = 0
    while errors and rounds < deps.config.repair_rounds:
        rounds += 1
        logger.info("Profile %s has %d error(s); repair round %d", name, len(errors), rounds)
        answer = deps.llm.structured(
            [user(prompts.REPAIR_PROFILE.format(errors="\n".join(f"- {e}" for e in errors), yaml=text))],
            RepairAnswer,
            tag="tracer.repair",
        )
        text = _strip_fence(answer.yaml)
        errors = deps.validate_profile(text)
    return text, errors, rounds


def _filename(name: str, taken: set[str]) -> str:
    base = snake_name(name)
    filename, number = f"{base}.yaml", 2
    while filename in taken:
        filename, number = f"{base}_{number}.yaml", number + 1
    taken.add(filename)
    return filename


def write_profiles(deps: TracerDeps, state: TracerState) -> dict[str, object]:
    model = load_model(state)
    sources = data_sources(model)
    source_text = "\n".join(f"{s.id}: {s.label}: {', '.join(s.values[:10])}" for s in sources) or "(none)"
    records: list[ProfileRecord] = []
    warnings: list[str] = []
    taken: set[str] = set()
    with deps.usage_delta() as usage:
        for index, group_data in enumerate(state.get("groups", [])):
            draft = deps.llm.structured(
                [
                    user(
                        prompts.PROFILE_CONTENT.format(
                            name=group_data["name"],
                            role=group_data["role"],
                            functionalities=_workflow_listing(model, group_data["functionalities"]),
                            sources=source_text,
                            language=primary_language(model),
                        )
                    )
                ],
                ProfileDraft,
                tag="tracer.profiles",
            )
            text = dump_yaml(assemble(deps, model, group_data, draft, sources, index))
            text, errors, rounds = validated(deps, group_data["name"], text)
            if errors:
                warnings.append(
                    f"Profile {group_data['name']!r} is still invalid after {rounds} repair round(s)."
                )
            records.append(
                ProfileRecord(
                    name=group_data["name"],
                    filename=_filename(group_data["name"], taken),
                    valid=not errors,
                    yaml=text,
                    errors=errors,
                    repair_rounds=rounds,
                )
            )
    for warning in warnings:
        deps.context.reporter.warning(warning)
    return {"stage": "artefacts", "profiles": records, "usage": usage, "warnings": warnings}
