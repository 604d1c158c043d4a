"""Extraction after each session, and consolidation of duplicate functionalities.

Consolidation is a shortlist plus confirmation: `similarity.shortlist` proposes candidate pairs locally;
pairs that are near-identical merge at once, the others go to the LLM in batches (one call judges many
pairs), and every judged pair is remembered so it is never asked again. A merge keeps the older node's name
(so parent links and the exploration stack stay valid), unions parameters, options, outputs and parents, and
re-points every link to the absorbed node.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from engine.llm import user
from engine.tracer import prompts
from engine.tracer.deps import TracerDeps
from engine.tracer.explore import load_model
from engine.tracer.model import (
    ConsolidationAnswer,
    ExtractedFunctionality,
    ExtractionAnswer,
    Functionality,
    FunctionalModel,
    Output,
    Parameter,
    snake_name,
)
from engine.tracer.similarity import Candidate, shortlist
from engine.tracer.state import TracerState, Transcript

logger = logging.getLogger("engine.tracer")


# -- merging ------------------------------------------------------------------------------------------------------


def _union_text(first: Sequence[str], second: Sequence[str]) -> list[str]:
    seen = {item.strip().lower() for item in first}
    result = list(first)
    for item in second:
        if item.strip() and item.strip().lower() not in seen:
            seen.add(item.strip().lower())
            result.append(item)
    return result


def union_parameters(first: Sequence[Parameter], second: Sequence[Parameter]) -> list[Parameter]:
    result = [p.model_copy(deep=True) for p in first]
    for parameter in second:
        same = next((p for p in result if p.name == parameter.name), None)
        if same is None:
            result.append(parameter.model_copy(deep=True))
        else:
            same.options = _union_text(same.options, parameter.options)
            if len(parameter.description) > len(same.description):
                same.description = parameter.description
    return result


def union_outputs(first: Sequence[Output], second: Sequence[Output]) -> list[Output]:
    result = [o.model_copy() for o in first]
    for output in second:
        same = next((o for o in result if o.name == output.name), None)
        if same is None:
            result.append(output.model_copy())
        elif len(output.description) > len(same.description):
            same.description = output.description
    return result


def merge_nodes(model: FunctionalModel, survivor: str, absorbed: str, description: str = "") -> None:
    """Fold `absorbed` into `survivor` in place (see the module docstring)."""
    keep, gone = model.get(survivor), model.get(absorbed)
    if keep is None or gone is None or keep is gone:
        return
    keep.parameters = union_parameters(keep.parameters, gone.parameters)
    keep.outputs = union_outputs(keep.outputs, gone.outputs)
    keep.parents = [p for p in _union_text(keep.parents, gone.parents) if p not in (survivor, absorbed)]
    keep.discovered_in = sorted(set(keep.discovered_in) | set(gone.discovered_in))
    keep.merged_from = _union_text(keep.merged_from, [absorbed, *gone.merged_from])
    keep.category = keep.category or gone.category
    if description.strip():
        keep.description = description.strip()
    elif len(gone.description) > len(keep.description):
        keep.description = gone.description
    model.functionalities = [f for f in model.functionalities if f.name != absorbed]
    for node in model.functionalities:
        if absorbed in node.parents:
            node.parents = [survivor if p == absorbed else p for p in node.parents]
            node.parents = [p for p in dict.fromkeys(node.parents) if p != node.name]


def _normalised(extracted: ExtractedFunctionality, session: int, parent: str | None) -> Functionality:
    parameters: list[Parameter] = []
    for parameter in extracted.parameters:
        fixed = Parameter(
            name=snake_name(parameter.name),
            description=parameter.description.strip(),
            options=_union_text([], [o.strip() for o in parameter.options]),
        )
        parameters = union_parameters(parameters, [fixed])
    outputs: list[Output] = []
    for output in extracted.outputs:
        outputs = union_outputs(
            outputs, [Output(name=snake_name(output.name), description=output.description)]
        )
    return Functionality(
        name=snake_name(extracted.name),
        description=extracted.description.strip(),
        parameters=parameters,
        outputs=outputs,
        parents=[parent] if parent else [],
        discovered_in=[session],
    )


# -- confirmation -------------------------------------------------------------------------------------------------


def _describe(node: Functionality) -> str:
    inputs = ", ".join(
        p.name + (f" [{', '.join(p.options[:8])}]" if p.options else "") for p in node.parameters
    )
    outputs = ", ".join(o.name for o in node.outputs)
    return f"{node.name}: {node.description} | inputs: {inputs or '-'} | outputs: {outputs or '-'}"


def resolve_candidates(
    deps: TracerDeps, model: FunctionalModel, candidates: Sequence[Candidate], judged: set[str]
) -> list[str]:
    """Merge the confirmed candidates into `model`; returns the keys of the pairs judged now.

    Certain pairs (score ≥ `certain_duplicate`) merge without a call; the rest are judged by the LLM in
    batches of `max_candidates_per_call`. Names follow earlier merges, so a chain a~b, b~c ends in one node.
    """
    config = deps.config
    renamed: dict[str, str] = {}

    def current(name: str) -> str:
        while name in renamed:
            name = renamed[name]
        return name

    def merge(a: str, b: str, description: str) -> None:
        survivor, absorbed = current(a), current(b)
        if survivor == absorbed or model.get(survivor) is None or model.get(absorbed) is None:
            return
        # The node discovered first keeps its name: links and the stack already point at it.
        order = model.names()
        if order.index(absorbed) < order.index(survivor):
            survivor, absorbed = absorbed, survivor
        merge_nodes(model, survivor, absorbed, description)
        renamed[absorbed] = survivor
        deps.reporter.functionality("merged", survivor, absorbed)
        logger.info("Merged %s into %s", absorbed, survivor)

    asked: list[Candidate] = []
    now_judged: list[str] = []
    for candidate in candidates:
        if candidate.key in judged:
            continue
        if candidate.score >= config.certain_duplicate:
            merge(candidate.a, candidate.b, "")
            now_judged.append(candidate.key)
        else:
            asked.append(candidate)
    size = config.max_candidates_per_call
    for start in range(0, len(asked), size):
        batch = [c for c in asked[start : start + size] if current(c.a) != current(c.b)]
        nodes = [(model.get(current(c.a)), model.get(current(c.b))) for c in batch]
        shown = [(c, a, b) for c, (a, b) in zip(batch, nodes, strict=True) if a is not None and b is not None]
        if not shown:
            continue
        pairs = "\n\n".join(
            f"Pair {number}:\n  A) {_describe(a)}\n  B) {_describe(b)}"
            for number, (_, a, b) in enumerate(shown, start=1)
        )
        answer = deps.llm.structured(
            [user(prompts.CONSOLIDATE.format(pairs=pairs))], ConsolidationAnswer, tag="tracer.consolidate"
        )
        verdicts = {v.pair: v for v in answer.verdicts}
        for number, (candidate, a, b) in enumerate(shown, start=1):
            now_judged.append(candidate.key)
            verdict = verdicts.get(number)
            if verdict is not None and verdict.same:
                merge(a.name, b.name, verdict.description)
    return now_judged


# -- nodes --------------------------------------------------------------------------------------------------------


def format_transcript(transcript: Transcript) -> str:
    lines = []
    for turn in transcript["turns"]:
        speaker = "User" if turn["role"] == "explorer" else "Chatbot"
        lines.append(f"{speaker}: {turn['text']}")
    return "\n".join(lines)


def extract(deps: TracerDeps, state: TracerState) -> dict[str, object]:
    """Analyse the last session: one structured call, then add, merge and push new nodes on the stack."""
    transcript = state.get("pending")
    done = state.get("sessions_done", 0)
    if transcript is None:
        return {"sessions_done": done}
    model = load_model(state)
    focus = transcript["focus"] if transcript["focus"] and model.get(transcript["focus"]) else None
    session = transcript["session"]
    added: list[str] = []
    judged_now: list[str] = []
    with deps.usage_delta() as usage:
        if any(t["role"] == "chatbot" and not t["fallback"] for t in transcript["turns"]):
            hint = f"\nThe user was exploring the chatbot's step '{focus}'." if focus else ""
            answer = deps.llm.structured(
                [user(prompts.EXTRACT.format(focus=hint, transcript=format_transcript(transcript)))],
                ExtractionAnswer,
                tag="tracer.extract",
            )
            for extracted in answer.functionalities:
                node = _normalised(extracted, session, focus)
                if node.name == focus:
                    node.parents = []
                existing = model.find(node.name)
                if existing is None:
                    model.functionalities.append(node)
                    added.append(node.name)
                    deps.reporter.functionality("added", node.name, node.description)
                else:
                    # Same name (or the name of a node merged earlier): seen again; no LLM needed to merge it.
                    existing.parameters = union_parameters(existing.parameters, node.parameters)
                    existing.outputs = union_outputs(existing.outputs, node.outputs)
                    existing.discovered_in = sorted(set(existing.discovered_in) | {session})
        if added:
            candidates = shortlist(
                model.functionalities, threshold=deps.config.duplicate_threshold, only_involving=set(added)
            )
            judged_now = resolve_candidates(deps, model, candidates, set(state.get("judged_pairs", [])))
    survivors = [name for name in added if model.get(name) is not None]
    explored = set(state.get("explored", []))
    queue = [name for name in state.get("queue", []) if model.get(name) is not None]
    # Depth-first: the first node found in this session is explored next, before older pending ones.
    queue += [name for name in reversed(survivors) if name not in explored and name not in queue]
    deps.reporter.progress(done + 1, deps.config.sessions)
    return {
        "model": model.model_dump(mode="json"),
        "sessions_done": done + 1,
        "pending": None,
        "transcripts": [transcript],
        "queue": queue,
        "judged_pairs": judged_now,
        "usage": usage,
    }


def consolidate(deps: TracerDeps, state: TracerState) -> dict[str, object]:
    """Refinement step 1: one global pass over all functionalities with the shortlist (pairs judged once)."""
    deps.reporter.stage("consolidate")
    model = load_model(state)
    with deps.usage_delta() as usage:
        candidates = shortlist(model.functionalities, threshold=deps.config.duplicate_threshold)
        judged_now = resolve_candidates(deps, model, candidates, set(state.get("judged_pairs", [])))
    return {
        "stage": "classify",
        "model": model.model_dump(mode="json"),
        "judged_pairs": judged_now,
        "usage": usage,
    }
