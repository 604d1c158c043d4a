"""TRACER's model from imported production conversations instead of live exploration (issue 38, item 3).

The same engine path as a live run, minus the probe and the explorer: each sampled conversation becomes a session
transcript (the user's turns in the explorer's place) and goes through `consolidate.extract`; then the global
consolidation, classification, workflow inference, grouping and profile writing run unchanged. Nothing talks to
the chatbot. The conversations are already masked by the import (README D35), so no personal data reaches the LLM.

Before any LLM call the caller gets a `SamplingPlan`: conversations are grouped by the chatbot's first answer to
the user (a proxy for the path they took); every group gets at least one conversation, so rare paths are read, and
the rest of the budget goes to groups in proportion to their size. Each sampled conversation stands for its
group's share of the traffic (its weight), so each functionality carries how often real users reached it.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from engine.bots.understanding import detect_language
from engine.connectors.base import BotReply, Connector
from engine.context import RunContext
from engine.llm import LLMClient
from engine.tracer import consolidate as consolidation
from engine.tracer import profiles, workflow
from engine.tracer.artefacts import usage_json, write_artefacts
from engine.tracer.config import TracerConfig
from engine.tracer.deps import TracerDeps
from engine.tracer.model import FunctionalModel
from engine.tracer.similarity import fallback_similarity
from engine.tracer.state import ExplorationTranscript, ExplorationTurn, ProfileRecord, TracerState
from engine.transcripts import Conversation
from engine.transcripts.measures import infer_fallback

SOURCE = "transcripts"
PROVENANCE_FILE = "provenance.json"
DEFAULT_SAMPLE = 40
_LANGUAGES = {"en": "English", "es": "Spanish"}
_APPENDED = ("transcripts", "usage", "warnings")
_UNIONED = ("explored", "judged_pairs")
_SPACE = re.compile(r"\s+")


class _NoChatbot(Connector):
    """A model from transcripts never talks to the chatbot."""

    technology = "none"

    def new_conversation(self) -> None:
        raise RuntimeError("a model from transcripts does not talk to the chatbot")

    def send(self, text: str) -> BotReply:
        raise RuntimeError("a model from transcripts does not talk to the chatbot")


@dataclass
class SamplingPlan:
    conversations: int  # in the import
    sampled: list[str]  # conversation ids, in the order they are read
    weights: dict[str, float]  # conversation id -> how many imported conversations it stands for
    groups: int  # distinct first answers
    estimated_calls: dict[str, int] = field(default_factory=dict)

    def text(self) -> str:
        calls = self.estimated_calls
        return (
            f"Sampling plan: {len(self.sampled)} of {self.conversations} conversations, at least one from each of "
            f"{self.groups} paths (grouped by the chatbot's first answer), the rest in proportion to traffic.\n"
            f"Cost estimate: at most {calls.get('total', 0)} LLM calls ({calls.get('extract', 0)} extraction, "
            f"up to {calls.get('duplicates', 0)} duplicate checks, {calls.get('refinement', 0)} refinement, "
            f"up to {calls.get('profiles', 0)} profile calls); a live run of s sessions and n turns spends about "
            "s·(n+2) on exploration alone."
        )


@dataclass
class TranscriptModel:
    model: FunctionalModel
    profiles: list[ProfileRecord]
    plan: SamplingPlan
    reached: dict[str, dict[str, float]]  # functionality -> {"conversations": estimated, "share": 0..1}
    usage: dict[str, Any]
    warnings: list[str]

    @property
    def valid_profiles(self) -> list[ProfileRecord]:
        return [p for p in self.profiles if p["valid"]]


def _key(text: str) -> str:
    return _SPACE.sub(" ", text.strip().lower())[:80]


def first_answer(conversation: Conversation) -> str:
    """The chatbot's first reply after the user's first message: which path the conversation took."""
    seen_user = False
    for turn in conversation.turns:
        if turn.role == "user":
            seen_user = True
        elif seen_user:
            return _key(turn.text)
    return ""


def estimate_calls(sampled: int, config: TracerConfig) -> dict[str, int]:
    extract, duplicates = sampled, sampled
    refinement = 3  # consolidation, classification, workflow (each at least one call)
    profile_calls = 1 + config.max_profiles * (1 + config.repair_rounds)
    total = extract + duplicates + refinement + profile_calls
    return {
        "extract": extract,
        "duplicates": duplicates,
        "refinement": refinement,
        "profiles": profile_calls,
        "total": total,
    }


def plan_sample(
    conversations: Sequence[Conversation], limit: int, *, seed: int = 0, config: TracerConfig | None = None
) -> SamplingPlan:
    """Which conversations to read: one per path first (rarest paths first), then by traffic."""
    rng = random.Random(seed)  # noqa: S311 - sampling, not security
    groups: dict[str, list[Conversation]] = {}
    for conversation in conversations:
        if any(t.role == "user" for t in conversation.turns) and any(
            t.role == "bot" for t in conversation.turns
        ):
            groups.setdefault(first_answer(conversation), []).append(conversation)
    for members in groups.values():
        rng.shuffle(members)
    order = sorted(groups, key=lambda k: (len(groups[k]), k))
    taken: dict[str, int] = dict.fromkeys(order, 0)
    budget = max(1, limit)
    for key in order[:budget]:
        taken[key] = 1
    left = budget - sum(taken.values())
    usable = sum(len(m) for m in groups.values())
    if left > 0 and usable:
        # Largest remainder: the rest of the budget in proportion to traffic, without exceeding a group's size.
        shares = {k: left * len(groups[k]) / usable for k in order}
        for key in order:
            taken[key] = min(len(groups[key]), taken[key] + int(shares[key]))
        for key in sorted(order, key=lambda k: -(shares[k] % 1)):
            if sum(taken.values()) >= min(budget, usable):
                break
            if taken[key] < len(groups[key]):
                taken[key] += 1
    sampled: list[str] = []
    weights: dict[str, float] = {}
    for key in order:
        for conversation in groups[key][: taken[key]]:
            sampled.append(conversation.id)
            weights[conversation.id] = len(groups[key]) / taken[key]
    rng.shuffle(sampled)  # the extraction sees paths in no particular order, as a live run would
    return SamplingPlan(
        conversations=len(conversations),
        sampled=sampled,
        weights=weights,
        groups=len(groups),
        estimated_calls=estimate_calls(len(sampled), config or TracerConfig()),
    )


def infer_languages(conversations: Iterable[Conversation]) -> list[str]:
    votes: Counter[str] = Counter()
    for conversation in conversations:
        for turn in conversation.turns:
            language = detect_language(turn.text) if turn.role == "bot" else None
            if language:
                votes[_LANGUAGES.get(language, language)] += 1
    return [name for name, _ in votes.most_common()] or ["English"]


def to_transcript(
    conversation: Conversation, session: int, fallback: str | None, sure: float
) -> ExplorationTranscript:
    """A conversation as a TRACER session transcript: the user speaks where the explorer would."""
    turns: list[ExplorationTurn] = []
    for turn in conversation.turns:
        if turn.role == "user":
            turns.append(ExplorationTurn(role="explorer", text=turn.text, fallback=False))
        else:
            is_fallback = bool(fallback) and fallback_similarity(turn.text, fallback) >= sure
            turns.append(ExplorationTurn(role="chatbot", text=turn.text, fallback=is_fallback))
    return ExplorationTranscript(session=session, focus=None, turns=turns, ended="complete", error=None)


def _merge(state: TracerState, update: dict[str, Any]) -> None:
    """Apply a node's update as the graph's reducers would (append, union, replace)."""
    target: dict[str, Any] = state  # type: ignore[assignment]
    for name, value in update.items():
        if name in _APPENDED:
            target[name] = [*target.get(name, []), *value]
        elif name in _UNIONED:
            target[name] = [*target.get(name, []), *(v for v in value if v not in target.get(name, []))]
        else:
            target[name] = value


def model_from_transcripts(
    conversations: Sequence[Conversation],
    llm: LLMClient,
    *,
    config: TracerConfig | None = None,
    sample: int = DEFAULT_SAMPLE,
    seed: int = 0,
    context: RunContext | None = None,
    on_plan: Callable[[SamplingPlan], None] | None = None,
) -> TranscriptModel:
    """Extraction, consolidation, workflow inference and profiles over a sample of `conversations`."""
    config = config or TracerConfig()
    plan = plan_sample(conversations, sample, seed=seed, config=config)
    if on_plan is not None:
        on_plan(plan)
    config = config.model_copy(update={"sessions": max(1, len(plan.sampled))})
    deps = TracerDeps(llm=llm, connector=_NoChatbot(), config=config, context=context or RunContext())
    by_id = {c.id: c for c in conversations}
    fallback = infer_fallback([(t.role, t.text) for t in c.turns] for c in conversations)
    model = FunctionalModel(
        languages=infer_languages(by_id[i] for i in plan.sampled),
        fallback=fallback,
        greets_first=sum(1 for c in conversations if c.turns and c.turns[0].role == "bot") * 2
        > len(conversations),
    )
    state: TracerState = {
        "run_id": "transcripts",
        "model": model.model_dump(mode="json"),
        "sessions_done": 0,
        "queue": [],
        "transcripts": [],
        "usage": [],
        "warnings": [],
        "explored": [],
        "judged_pairs": [],
        "started_at": deps.clock(),
    }
    sessions: dict[int, str] = {}
    deps.context.reporter.stage("explore")
    for number, conversation_id in enumerate(plan.sampled, start=1):
        sessions[number] = conversation_id
        state["pending"] = to_transcript(by_id[conversation_id], number, fallback, config.fallback_sure)
        _merge(state, consolidation.extract(deps, state))
    for node in (consolidation.consolidate, workflow.classify, workflow.workflow, profiles.group):
        _merge(state, node(deps, state))
    _merge(state, profiles.write_profiles(deps, state))
    final = FunctionalModel.model_validate(state["model"])
    reached = _reached(final, sessions, plan)
    if config.output_dir is not None:
        write_artefacts(
            config.output_dir,
            final,
            state.get("profiles", []),
            state.get("transcripts", []),
            state.get("usage", []),
            duration_s=deps.clock() - state.get("started_at", deps.clock()),
            warnings=state.get("warnings", []),
        )
        provenance = {"source": SOURCE, "plan": asdict(plan), "fallback": fallback, "reached": reached}
        (config.output_dir / PROVENANCE_FILE).write_text(
            json.dumps(provenance, indent=2) + "\n", encoding="utf-8"
        )
        _append_source(config.output_dir / "report.md", plan, reached)
    return TranscriptModel(
        model=final,
        profiles=list(state.get("profiles", [])),
        plan=plan,
        reached=reached,
        usage=usage_json(state.get("usage", [])),
        warnings=list(state.get("warnings", [])),
    )


def _reached(
    model: FunctionalModel, sessions: dict[int, str], plan: SamplingPlan
) -> dict[str, dict[str, float]]:
    """How many imported conversations reached each functionality, estimated from the weighted sample."""
    total = max(1, plan.conversations)
    reached = {}
    for node in model.functionalities:
        count = sum(plan.weights.get(sessions.get(s, ""), 0.0) for s in set(node.discovered_in))
        reached[node.name] = {"conversations": round(count, 1), "share": round(count / total, 4)}
    return reached


def _append_source(report: Path, plan: SamplingPlan, reached: dict[str, dict[str, float]]) -> None:
    """The report says where the model came from, and how much traffic each functionality had."""
    rows = sorted(reached.items(), key=lambda kv: -kv[1]["conversations"])
    lines = [
        "",
        "## Source: transcripts",
        "",
        plan.text(),
        "",
        "| functionality | conversations (est.) | share |",
    ]
    lines += ["|---|---|---|"] + [f"| {n} | {i['conversations']} | {i['share']:.1%} |" for n, i in rows]
    with report.open("a", encoding="utf-8") as stream:
        stream.write("\n".join(lines) + "\n")


def read_conversations(directory: Path) -> list[Conversation]:
    from engine.transcripts import read_imported

    return list(read_imported(directory))
