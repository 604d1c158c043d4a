"""The graph state of a TRACER run: input, internal and output schemas, each field with an explicit reducer.

Values are plain JSON (dicts, lists, strings, numbers) so that every checkpointer stores them without custom
serialisers; `model.FunctionalModel.model_validate(state["model"])` turns the model back into objects. Fields
without a reducer are replaced by whatever a node returns; `transcripts`, `usage`, `events` and `warnings` are
appended to (each node returns only what it added).
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, NotRequired

from typing_extensions import TypedDict  # pydantic reads it on Python 3.11: the transcripts are served typed

Role = Literal["explorer", "chatbot"]
Ended = Literal["complete", "turn_limit", "chatbot_error", "bot_quit", "llm_error"]
Stage = Literal["probe", "explore", "consolidate", "classify", "workflow", "profiles", "artefacts", "done"]


class ExplorationTurn(TypedDict):
    role: Role
    text: str
    fallback: bool
    error: NotRequired[str]
    """Set on a chatbot turn that failed (HTTP 500, timeout...): the error, recorded; exploration went on."""


class ExplorationTranscript(TypedDict):
    session: int
    """1-based session number."""
    focus: str | None
    """The functionality this session explored; None for a general session."""
    turns: list[ExplorationTurn]
    ended: Ended
    error: str | None


class ProfileRecord(TypedDict):
    name: str
    filename: str
    valid: bool
    yaml: str
    errors: list[str]
    repair_rounds: int


def union(existing: list[str], new: list[str]) -> list[str]:
    """Reducer: keep order, add what is new."""
    return existing + [item for item in new if item not in existing]


class TracerInput(TypedDict):
    run_id: str


class TracerState(TypedDict, total=False):
    run_id: str
    stage: Stage
    model: dict[str, Any]
    """`FunctionalModel` as JSON: languages, fallback, type and every functionality with its parents."""
    sessions_done: int
    queue: list[str]
    """Functionalities waiting for a focused session; the END of the list is the top (depth-first stack)."""
    explored: Annotated[list[str], union]
    """Functionalities already used as a session focus; never explored twice."""
    focus: str | None
    """The focus of the session in progress (chosen by `select`)."""
    pending: ExplorationTranscript | None
    """The transcript of the last session, until `extract` has analysed it."""
    transcripts: Annotated[list[ExplorationTranscript], operator.add]
    judged_pairs: Annotated[list[str], union]
    """Candidate duplicate pairs the LLM already judged ("a|b", sorted), so none is asked twice."""
    llm_failed_sessions: int
    """Sessions in a row skipped because the LLM failed; too many fail the run."""
    groups: list[dict[str, Any]]
    """Profile groups (name, role, functionalities) from the grouping call."""
    profiles: list[ProfileRecord]
    usage: Annotated[list[dict[str, Any]], operator.add]
    """Ledger records of every LLM call, as JSON; survives a resume, unlike an in-memory ledger."""
    warnings: Annotated[list[str], operator.add]
    started_at: float
    finished_at: float


class TracerOutput(TypedDict, total=False):
    run_id: str
    stage: Stage
    model: dict[str, Any]
    transcripts: list[ExplorationTranscript]
    profiles: list[ProfileRecord]
    usage: list[dict[str, Any]]
    warnings: list[str]
    started_at: float
    finished_at: float
