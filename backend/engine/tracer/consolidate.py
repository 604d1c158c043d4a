"""Extraction after each session, and consolidation of duplicate functionalities.

Duplicates are fought twice. Extraction is shown the names already known and asked to reuse them, at a low
temperature, so a step seen again usually comes back under its name. What still slips through — the same
step in other words — goes to the LLM: `similarity.shortlist` pairs every functionality with its nearest
neighbours (however low their lexical score: paraphrases share few words) and with anything above a cut-off;
near-identical pairs merge at once, the rest become questions that one batched call answers, and every
judged pair is remembered so it is never asked again. Without the LLM (the lexical mode, or a failed call at
the end), lexical similarity decides alone, and the run is told it got an approximation.

A merge keeps the older node's name (so parent links and the exploration stack stay valid), unions
parameters, options, outputs and parents, and re-points every link to the absorbed node.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.llm import LLMError, user
from engine.tracer import prompts
from engine.tracer.deps import TracerDeps, survivable
from engine.tracer.explore import load_model
from engine.tracer.found import locate, merge_found
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
from engine.tracer.state import ExplorationTranscript, TracerState

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
    keep.found_at = merge_found(keep.found_at, gone.found_at)
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
    description = " ".join(node.description.split())
    return f"{node.name}: {description} | inputs: {inputs or '-'} | outputs: {outputs or '-'}"


def _either(numbers: Sequence[int]) -> str:
    shown = [f"[{n}]" for n in numbers]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


@dataclass
class Resolution:
    judged: list[str] = field(default_factory=list)
    """Keys of the pairs decided now; they are never asked again."""
    error: LLMError | None = None
    """The consolidation call that failed; its pairs stay undecided."""


def resolve_candidates(
    deps: TracerDeps,
    model: FunctionalModel,
    candidates: Sequence[Candidate],
    judged: set[str],
    *,
    lexical: bool = False,
) -> Resolution:
    """Merge the candidates that are duplicates into `model` (in place).

    Certain pairs (score ≥ `certain_duplicate`) merge without a call. The others become questions — "is this
    functionality the same step as one of these earlier ones?" — that the LLM answers in one batched call
    (`max_questions_per_call` questions each). With `lexical`, no call is made: pairs scoring at least
    `lexical_merge` merge, the rest stay apart (an approximation). Names follow earlier merges, so a chain
    a~b, b~c ends in one node; the node discovered first keeps its name.
    """
    config = deps.config
    renamed: dict[str, str] = {}
    resolution = Resolution()

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
        deps.context.reporter.event(
            "functionality", {"event": "merged", "name": survivor, "detail": absorbed}
        )
        logger.info("Merged %s into %s", absorbed, survivor)

    asked: list[Candidate] = []
    for candidate in candidates:
        if candidate.key in judged:
            continue
        if candidate.score >= config.certain_duplicate:
            merge(candidate.a, candidate.b, "")
            resolution.judged.append(candidate.key)
        elif lexical:
            if candidate.score >= config.lexical_merge:
                merge(candidate.a, candidate.b, "")
            resolution.judged.append(candidate.key)
        else:
            asked.append(candidate)

    # Each question is about the later-found node of a pair: is it one of the earlier ones it resembles?
    questions: dict[str, dict[str, str]] = {}
    order = {name: index for index, name in enumerate(model.names())}
    for candidate in asked:
        a, b = current(candidate.a), current(candidate.b)
        if a == b or a not in order or b not in order:
            resolution.judged.append(candidate.key)
            continue
        later, earlier = (a, b) if order[a] > order[b] else (b, a)
        questions.setdefault(later, {}).setdefault(earlier, candidate.key)
    items = sorted(questions, key=order.__getitem__)
    size = config.max_questions_per_call
    for start in range(0, len(items), size):
        # Earlier batches may have merged some of these nodes: ask about what they are now.
        batch: dict[str, set[str]] = {}
        keys: list[str] = []
        for asked_item in items[start : start + size]:
            item = current(asked_item)
            for other, key in questions[asked_item].items():
                keys.append(key)
                if current(other) != item:
                    batch.setdefault(item, set()).add(current(other))
        if not batch:
            resolution.judged += keys
            continue
        nodes = {node.name: node for node in model.functionalities}
        shown = sorted(
            {name for item, others in batch.items() for name in (item, *others)}, key=order.__getitem__
        )
        number = {name: index for index, name in enumerate(shown, start=1)}
        functionalities = "\n".join(f"[{number[name]}] {_describe(nodes[name])}" for name in shown)
        lines = [
            f"- Is [{number[item]}] the same step as {_either(sorted(number[o] for o in others))}?"
            for item, others in batch.items()
        ]
        try:
            answer = deps.llm.structured(
                [
                    user(
                        prompts.CONSOLIDATE.format(
                            functionalities=functionalities, questions="\n".join(lines)
                        )
                    )
                ],
                ConsolidationAnswer,
                tag="tracer.consolidate",
                temperature=config.analysis_temperature,
            )
        except LLMError as exc:
            if not survivable(exc):
                raise
            resolution.error = exc
            return resolution
        by_number = {index: name for name, index in number.items()}
        for verdict in answer.verdicts:
            said_item = by_number.get(verdict.item, "")
            said_same = by_number.get(verdict.same_as, "") if verdict.same_as is not None else ""
            # Only an answer to a question asked counts: a number outside the item's candidates is ignored.
            if said_same in batch.get(said_item, ()):
                merge(said_same, said_item, verdict.description)
        resolution.judged += keys
    return resolution


# -- nodes --------------------------------------------------------------------------------------------------------


def format_transcript(transcript: ExplorationTranscript) -> str:
    """The conversation as `User:` / `Chatbot:` lines; turns the chatbot failed to answer are left out."""
    lines = []
    for turn in transcript["turns"]:
        if turn.get("error"):
            continue
        speaker = "User" if turn["role"] == "explorer" else "Chatbot"
        lines.append(f"{speaker}: {turn['text']}")
    return "\n".join(lines)


def known_functionalities(model: FunctionalModel, limit: int) -> str:
    """The extraction prompt's list of the names found so far (empty when there are none)."""
    if not model.functionalities or limit <= 0:
        return ""
    lines = []
    for node in model.functionalities[:limit]:
        inputs = ", ".join(p.name for p in node.parameters)
        description = " ".join(node.description.split())[:160]
        lines.append(f"- {node.name}: {description}" + (f" (inputs: {inputs})" if inputs else ""))
    return prompts.KNOWN_IN_EXTRACTION.format(functionalities="\n".join(lines))


def _add_extracted(
    deps: TracerDeps,
    model: FunctionalModel,
    answer: ExtractionAnswer,
    transcript: ExplorationTranscript,
    focus: str | None,
) -> list[str]:
    added: list[str] = []
    session = transcript["session"]
    for extracted in answer.functionalities:
        node = _normalised(extracted, session, focus)
        if node.name == focus:
            node.parents = []
        found = locate(node, transcript)
        node.found_at = [found] if found else []
        existing = model.find(node.name)
        if existing is None:
            model.functionalities.append(node)
            added.append(node.name)
            deps.context.reporter.event(
                "functionality", {"event": "added", "name": node.name, "detail": node.description}
            )
        else:
            # Same name (or the name of a node merged earlier): seen again; no LLM needed to merge it.
            existing.parameters = union_parameters(existing.parameters, node.parameters)
            existing.outputs = union_outputs(existing.outputs, node.outputs)
            existing.discovered_in = sorted(set(existing.discovered_in) | {session})
            existing.found_at = merge_found(existing.found_at, node.found_at)
    return added


def extract(deps: TracerDeps, state: TracerState) -> dict[str, object]:
    """Analyse the last session: one structured call that sees the names already known, then add the new
    nodes, let the LLM decide in one call whether any is a known one in other words, and push the survivors on
    the stack. An LLM failure skips the session with a warning; `max_llm_failed_sessions` in a row fail the
    run (the provider is evidently down)."""
    transcript = state.get("pending")
    done = state.get("sessions_done", 0)
    if transcript is None:
        return {"sessions_done": done}
    config = deps.config
    model = load_model(state)
    focus = transcript["focus"] if transcript["focus"] and model.get(transcript["focus"]) else None
    session = transcript["session"]
    added: list[str] = []
    judged_now: list[str] = []
    warnings: list[str] = []
    failed = transcript["ended"] == "llm_error"
    failure = transcript["error"] or ""
    with deps.usage_delta() as usage:
        if any(
            t["role"] == "chatbot" and not t["fallback"] and not t.get("error") for t in transcript["turns"]
        ):
            hint = f"\nThe user was exploring the chatbot's step '{focus}'." if focus else ""
            prompt = prompts.EXTRACT.format(
                focus=hint,
                known=known_functionalities(model, config.known_in_extraction),
                transcript=format_transcript(transcript),
            )
            try:
                answer = deps.llm.structured(
                    [user(prompt)],
                    ExtractionAnswer,
                    tag="tracer.extract",
                    temperature=config.analysis_temperature,
                )
            except LLMError as exc:
                if not survivable(exc):
                    raise
                failed, failure = True, exc.user_message
                warnings.append(
                    f"Session {session} was skipped: the language model failed while reading it "
                    f"({exc.user_message})."
                )
            else:
                failed = False
                added = _add_extracted(deps, model, answer, transcript, focus)
        if added:
            candidates = shortlist(
                model.functionalities,
                threshold=config.duplicate_threshold,
                only_involving=set(added),
                neighbours=config.duplicate_neighbours,
            )
            resolution = resolve_candidates(
                deps,
                model,
                candidates,
                set(state.get("judged_pairs", [])),
                lexical=config.consolidation == "lexical",
            )
            judged_now = resolution.judged
            if resolution.error is not None:
                warnings.append(
                    f"Session {session}: duplicates could not be checked ({resolution.error.user_message}); "
                    "they are checked again after the last session."
                )
    failed_in_row = state.get("llm_failed_sessions", 0) + 1 if failed else 0
    if failed_in_row >= config.max_llm_failed_sessions:
        raise LLMError(
            f"The language model failed in {failed_in_row} exploration sessions in a row (last: {failure}). "
            "Resume the run once the provider answers again."
        )
    for warning in warnings:
        logger.warning(warning)
        deps.context.reporter.warning(warning)
    survivors = [name for name in added if model.get(name) is not None]
    explored = set(state.get("explored", []))
    queue = [name for name in state.get("queue", []) if model.get(name) is not None]
    # Depth-first: the first node found in this session is explored next, before older pending ones.
    queue += [name for name in reversed(survivors) if name not in explored and name not in queue]
    deps.context.reporter.progress(done + 1, config.sessions)
    return {
        "model": model.model_dump(mode="json"),
        "sessions_done": done + 1,
        "pending": None,
        "transcripts": [transcript],
        "queue": queue,
        "judged_pairs": judged_now,
        "llm_failed_sessions": failed_in_row,
        "warnings": warnings,
        "usage": usage,
    }


LEXICAL_NOTE = (
    "Duplicate functionalities were decided by lexical similarity alone, without the language model: an "
    "approximation that leaves paraphrased duplicates apart."
)


def relocate(model: FunctionalModel, transcripts: list[ExplorationTranscript]) -> None:
    """Every node's `found_at` located again, once its merges are done, in the sessions it was discovered in: a
    merge carries the absorbed node's turns, which show the absorbed step (a greeting folded into "which pizza"
    would otherwise make the greeting the prefix that reaches the pizza step). A session where the merged node
    is shown by no reply keeps no turn for it."""
    by_session = {transcript["session"]: transcript for transcript in transcripts}
    for node in model.functionalities:
        seen = [by_session[s] for s in node.discovered_in if s in by_session]
        if seen:
            node.found_at = [found for t in seen if (found := locate(node, t)) is not None]


def consolidate(deps: TracerDeps, state: TracerState) -> dict[str, object]:
    """Refinement step 1: one global pass over all functionalities, each compared with its nearest neighbours
    (pairs judged once). If the LLM fails here, the open pairs are decided lexically and the run says so."""
    deps.context.reporter.stage("consolidate")
    config = deps.config
    model = load_model(state)
    warnings: list[str] = []
    with deps.usage_delta() as usage:
        candidates = shortlist(
            model.functionalities,
            threshold=config.duplicate_threshold,
            neighbours=config.duplicate_neighbours,
        )
        judged = set(state.get("judged_pairs", []))
        lexical = config.consolidation == "lexical"
        resolution = resolve_candidates(deps, model, candidates, judged, lexical=lexical)
        judged_now = resolution.judged
        if resolution.error is not None:
            warnings.append(
                f"The language model failed while checking duplicates ({resolution.error.user_message})."
            )
            fallback = resolve_candidates(deps, model, candidates, judged | set(judged_now), lexical=True)
            judged_now += fallback.judged
            lexical = True
        if lexical:
            warnings.append(LEXICAL_NOTE)
    for warning in warnings:
        logger.warning(warning)
        deps.context.reporter.warning(warning)
    relocate(model, state.get("transcripts", []))
    return {
        "stage": "classify",
        "model": model.model_dump(mode="json"),
        "judged_pairs": judged_now,
        "warnings": warnings,
        "usage": usage,
    }
