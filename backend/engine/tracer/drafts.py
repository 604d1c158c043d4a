"""Profiles drafted for chosen functionalities of an explored chatbot, without exploring it again.

The coverage map (`engine.regression.coverage`) lists the functionalities no conversation reached; this writes
SENSEI profiles for them with TRACER's own profile synthesis (`profiles.group`, then `profiles.write_profiles`:
grouping, one structured call per profile, deterministic assembly, validation with repair rounds). The model is
the explored one cut down to the chosen functionalities (their links to functionalities left out are dropped);
nothing talks to the chatbot, so the connector is a stand-in that refuses to be used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.connectors.base import BotReply, Connector
from engine.llm import LLMClient
from engine.tracer.config import TracerConfig
from engine.tracer.deps import TracerDeps
from engine.tracer.model import FunctionalModel
from engine.tracer.profiles import group, write_profiles
from engine.tracer.state import ProfileRecord, TracerState

MAX_CHOSEN = 50


class _NoChatbot(Connector):
    """Drafting never talks to the chatbot."""

    technology = "none"

    def new_conversation(self) -> None:
        raise RuntimeError("drafting profiles does not talk to the chatbot")

    def send(self, text: str) -> BotReply:
        raise RuntimeError("drafting profiles does not talk to the chatbot")


@dataclass
class Drafts:
    profiles: list[ProfileRecord]
    warnings: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # chosen names the model does not have


def model_for(
    model: FunctionalModel | Mapping[str, Any], names: Sequence[str]
) -> tuple[FunctionalModel, list[str]]:
    """`model` (a `FunctionalModel` or TRACER's model.json) cut down to `names`; and the names it lacks."""
    full = model if isinstance(model, FunctionalModel) else FunctionalModel.model_validate(dict(model))
    wanted = list(dict.fromkeys(names))
    kept = [f for f in full.functionalities if f.name in wanted]
    inside = {f.name for f in kept}
    trimmed = [f.model_copy(update={"parents": [p for p in f.parents if p in inside]}) for f in kept]
    missing = [name for name in wanted if name not in inside]
    return full.model_copy(update={"functionalities": trimmed}), missing


def draft_profiles(
    llm: LLMClient,
    model: FunctionalModel | Mapping[str, Any],
    names: Sequence[str],
    *,
    config: TracerConfig | None = None,
) -> Drafts:
    """SENSEI profiles (YAML, validated) for the functionalities `names` of `model`, written by `llm`."""
    if len(names) > MAX_CHOSEN:
        raise ValueError(f"choose at most {MAX_CHOSEN} functionalities")
    chosen, missing = model_for(model, names)
    if not chosen.functionalities:
        return Drafts([], ["None of the chosen functionalities is in the TRACER model."], missing)
    deps = TracerDeps(llm=llm, connector=_NoChatbot(), config=config or TracerConfig())
    state: TracerState = {"model": chosen.model_dump(mode="json"), "transcripts": []}
    grouped: dict[str, Any] = group(deps, state)
    state["groups"] = list(grouped.get("groups") or [])
    written: dict[str, Any] = write_profiles(deps, state)
    profiles: list[ProfileRecord] = list(written.get("profiles") or [])
    warnings = [*(grouped.get("warnings") or []), *(written.get("warnings") or [])]
    return Drafts(profiles, [str(w) for w in warnings], missing)
