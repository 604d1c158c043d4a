"""Refinement: classify the chatbot, then infer the workflow over ALL functionalities and validate it.

Validation of the LLM's answer: names it invents are ignored, unknown or self parents are dropped with a
warning, nodes it forgets keep their exploration links, parent cycles are broken (the edge that closes the
cycle is removed, with a warning), joins (several parents) are kept, and categories that differ only in
spelling are folded into the first one used.
"""

from __future__ import annotations

import logging

from rapidfuzz import fuzz

from engine.llm import LLMOutputError, user
from engine.tracer import prompts
from engine.tracer.consolidate import format_transcript
from engine.tracer.deps import TracerDeps
from engine.tracer.explore import load_model
from engine.tracer.model import ClassificationAnswer, FunctionalModel, WorkflowAnswer, snake_name
from engine.tracer.state import ExplorationTranscript, TracerState

logger = logging.getLogger("engine.tracer")
UNCATEGORISED = "Uncategorised"


def snippets(transcripts: list[ExplorationTranscript], *, per_session: int, total: int) -> str:
    """Beginning and end of each session's transcript, within a total character budget."""
    parts: list[str] = []
    used = 0
    half = per_session // 2
    for transcript in transcripts:
        text = format_transcript(transcript)
        if len(text) > per_session:
            text = f"{text[:half]}\n[...]\n{text[-half:]}"
        block = f"--- Session {transcript['session']} ---\n{text}"
        if used + len(block) > total:
            break
        parts.append(block)
        used += len(block)
    return "\n".join(parts) or "(no conversation)"


def _listing(model: FunctionalModel, *, with_hints: bool) -> str:
    lines = []
    for node in model.functionalities:
        inputs = ", ".join(p.name for p in node.parameters) or "-"
        line = f"- {node.name}: {node.description} (inputs: {inputs})"
        if with_hints and node.parents:
            line += f" [exploration hint: after {', '.join(node.parents)}]"
        lines.append(line)
    return "\n".join(lines)


def classify(deps: TracerDeps, state: TracerState) -> dict[str, object]:
    """One call: transactional or informational (all functionalities are shown, not only the first few)."""
    deps.context.reporter.stage("classify")
    model = load_model(state)
    if not model.functionalities:
        model.chatbot_type = "unknown"
        return {"stage": "workflow", "model": model.model_dump(mode="json")}
    with deps.usage_delta() as usage:
        answer = deps.llm.structured(
            [
                user(
                    prompts.CLASSIFY.format(
                        functionalities=_listing(model, with_hints=False),
                        snippets=snippets(state.get("transcripts", []), per_session=1000, total=5000),
                    )
                )
            ],
            ClassificationAnswer,
            tag="tracer.classify",
        )
    model.chatbot_type = answer.chatbot_type
    return {"stage": "workflow", "model": model.model_dump(mode="json"), "usage": usage}


def canonical_category(category: str, known: list[str]) -> str:
    text = " ".join(category.split())
    if not text:
        return UNCATEGORISED
    for existing in known:
        if fuzz.ratio(existing.lower(), text.lower()) >= 88:
            return existing
    known.append(text)
    return text


def break_cycles(model: FunctionalModel) -> list[str]:
    """Remove the parent links that close cycles (depth-first, in model order); returns warnings."""
    warnings: list[str] = []
    state: dict[str, int] = {}  # 1 = on the current path, 2 = finished

    def visit(name: str) -> None:
        state[name] = 1
        for child in model.children_of(name):
            if state.get(child) == 1:
                node = model.get(child)
                if node is not None:
                    node.parents = [p for p in node.parents if p != name]
                warnings.append(f"Removed the link {name} → {child}: it closed a cycle.")
            elif child not in state:
                visit(child)
        state[name] = 2

    # Start from the roots so that the natural direction survives; then any node left (a pure cycle).
    for name in model.roots() + model.names():
        if name not in state:
            visit(name)
    return warnings


def apply_workflow(model: FunctionalModel, answer: WorkflowAnswer) -> list[str]:
    """Validate the LLM's structure and write it into `model`; returns the warnings."""
    warnings: list[str] = []
    names = set(model.names())
    by_name: dict[str, tuple[list[str], str]] = {}
    for item in answer.nodes:
        name = item.name if item.name in names else snake_name(item.name)
        if name not in names:
            warnings.append(f"The workflow answer named an unknown functionality {item.name!r}; ignored.")
            continue
        by_name[name] = (item.parents, item.category)
    categories: list[str] = []
    for node in model.functionalities:
        if node.name not in by_name:
            warnings.append(f"The workflow answer left out {node.name}; its exploration links were kept.")
            node.category = canonical_category(node.category or "", categories) if node.category else None
            continue
        parents, category = by_name[node.name]
        kept: list[str] = []
        for parent in parents:
            resolved = parent if parent in names else snake_name(parent)
            if resolved == node.name:
                warnings.append(f"Dropped {node.name} as its own parent.")
            elif resolved not in names:
                warnings.append(f"Dropped unknown parent {parent!r} of {node.name}.")
            elif resolved not in kept:
                kept.append(resolved)
        node.parents = kept
        node.category = canonical_category(category, categories)
    warnings += break_cycles(model)
    for node in model.functionalities:
        node.category = node.category or UNCATEGORISED
    return warnings


def workflow(deps: TracerDeps, state: TracerState) -> dict[str, object]:
    """One call over every functionality (children included), with the prompt for the chatbot's type."""
    deps.context.reporter.stage("workflow")
    model = load_model(state)
    warnings: list[str] = []
    with deps.usage_delta() as usage:
        if model.functionalities:
            template = (
                prompts.WORKFLOW_TRANSACTIONAL
                if model.chatbot_type == "transactional"
                else prompts.WORKFLOW_INFORMATIONAL
            )
            try:
                answer = deps.llm.structured(
                    [
                        user(
                            template.format(
                                functionalities=_listing(model, with_hints=True),
                                snippets=snippets(state.get("transcripts", []), per_session=1500, total=7000),
                                categories=(
                                    f"categories already in use: {', '.join(model.categories())}"
                                    if model.categories()
                                    else "start a short list and stick to it"
                                ),
                            )
                        )
                    ],
                    WorkflowAnswer,
                    tag="tracer.workflow",
                )
                warnings = apply_workflow(model, answer)
            except LLMOutputError as exc:
                warnings.append(
                    f"The workflow could not be inferred ({exc.user_message}); exploration links kept."
                )
                warnings += break_cycles(model)
    for warning in warnings:
        logger.warning(warning)
        deps.context.reporter.warning(warning)
    return {"stage": "profiles", "model": model.model_dump(mode="json"), "usage": usage, "warnings": warnings}
