"""The conversation record: what one simulated conversation leaves behind.

SENSEI writes it, SENSEI-check reads it, the platform stores it as JSON and the dashboards show it — one schema
for all of them. Error codes keep the numbers users of the reference tools know (500, 504, 1000, 1001, 2000,
2001) and add more precise ones.
"""

from __future__ import annotations

from datetime import datetime
from enum import IntEnum
from typing import Any, Literal

from pydantic import BaseModel, Field, computed_field, model_validator

# One button model for connectors and records: `value` is what pressing it sends, `url` where a link points.
from engine.connectors.base import Button
from engine.json_value import JsonValue


class ErrorCode(IntEnum):
    """Why a conversation did not go as the profile intended."""

    CHATBOT_CRASH = 500  # the chatbot answered with an HTTP 5xx
    MALFORMED_REPLY = 502  # the reply could not be understood (HTML page, invalid JSON, missing reply path)
    CHATBOT_UNREACHABLE = 503  # connection refused, DNS failure, refused by the egress guard
    TIMEOUT = 504  # no reply within the connector's timeout
    SESSION_LOST = 410  # the chatbot forgot the conversation (unknown session)
    RATE_LIMITED = 429  # the chatbot kept refusing the load (HTTP 429/503) after Parley waited as asked
    FALLBACK_LOOP = 1000  # too many consecutive fallback replies
    GOAL_NOT_COMPLETED = 1001  # outputs the profile expects could not be extracted
    GOALS_NOT_VERIFIED = 1002  # the user simulator could not confirm its goals were met
    REPETITION_LOOP = 1003  # the chatbot kept giving the same answer
    CHECK_FAILED = 1004  # a scripted profile's check on the chatbot's reply did not hold
    RUN_BUDGET_EXCEEDED = 2000  # the profile's budget (`conversation.max_cost`) was spent
    CONVERSATION_BUDGET_EXCEEDED = 2001  # this conversation's budget (`goal_style.max_cost`) was spent
    BUDGET_REFUSED = 2002  # the run's budget refused an LLM call before it was sent
    # 3000-3999: the LLMs Parley itself uses. USER_LLM_FAILED was 1100 until SENSEI (issue 6) gave the LLM
    # failures their own range; no record was ever written with 1100.
    USER_LLM_FAILED = 3000  # the LLM playing the user failed (after retries) or answered nothing usable
    EXTRACTION_FAILED = 3001  # the LLM extracting the outputs failed (after retries and one repair)
    USER_LEFT_ROLE = (
        3002  # the simulated user left its role twice in a row (a turn written again was no better)
    )
    CANCELLED = 4000  # the run was cancelled while this conversation was in progress

    @property
    def slug(self) -> str:
        return self.name.lower()


__all__ = [
    "Button",
    "CheckOutcome",
    "ConversationError",
    "ConversationRecord",
    "ErrorCode",
    "JsonValue",
    "Note",
    "OutputEvidence",
    "RecordOutcome",
    "RecordSettings",
    "RecordedSlip",
    "Turn",
    "Usage",
    "Verdict",
    "error_name",
]

# passed: no chatbot fault and every goal met; failed: a chatbot fault; inconclusive: nothing can be said about
# the chatbot (the simulated user never conveyed a goal's inputs or left its role, an LLM or infrastructure
# failure, a rate limit, a budget, a cancellation). `engine.sensei.verdicts` decides.
Verdict = Literal["passed", "failed", "inconclusive"]


class Turn(BaseModel):
    role: Literal["user", "bot"]
    text: str
    buttons: list[Button] = Field(default_factory=list)
    # Seconds from the start of the conversation to the moment this turn was complete.
    at_s: float = 0.0
    # Bot turns only: seconds between sending the user's message and receiving this reply.
    latency_s: float | None = None


class ConversationError(BaseModel):
    code: int
    message: str
    turn: int | None = None  # index in `turns` where it happened, when known

    @computed_field  # type: ignore[prop-decorator]
    @property
    def name(self) -> str:
        """The code's slug, written beside it so that no reader keeps its own table of codes."""
        return error_name(self.code)


def error_name(code: int) -> str:
    """An error code's slug (`ErrorCode`), `http_NNN` for another HTTP status, else `unknown`."""
    try:
        return ErrorCode(code).slug
    except ValueError:
        return f"http_{code}" if 100 <= code < 600 else "unknown"


class OutputEvidence(BaseModel):
    """Where the chatbot stated an extracted output, or why the output is None."""

    turn: int | None = None  # index in `turns` of the chatbot turn that states the value
    quote: str | None = None  # the chatbot's words that state it
    # Why the output is None: not_stated (the extractor found nothing), no_evidence (a value no chatbot turn
    # states), doubtful (a chatbot sentence may state it), unreadable (the extractor's answer did not fit its type,
    # even when asked again; `invalid` in older records), not_extracted (the conversation ended before extraction).
    reason: str | None = None


class Usage(BaseModel):
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = 0.0


class RecordSettings(BaseModel):
    """How the conversation was planned: the profile's choices for it, the models, the connector. Every field is
    optional: a record imported from the reference tool or written by an older Parley has only some."""

    styles: list[str | dict[str, list[str]]] | None = (
        None  # interaction styles; change language with its languages
    )
    goal_style: dict[str, JsonValue] | None = None  # the profile's `goal_style`, as written
    max_user_turns: int | None = None
    goals: list[str] | None = None  # the goals with this conversation's values filled in
    seed: int | None = None
    personality: str | None = None
    user_model: str | None = None
    judge_model: str | None = None
    profile_model: str | None = None
    temperature: float | None = None
    connector: str | None = None  # the connector's technology
    min_pass_rate: float | None = None  # the profile's pass^k gate, read by the comparison
    test_name: str | None = None  # the profile's name made unique within its run
    planned_index: int | None = None  # with repeats: the planned conversation this one repeats
    repeat: int | None = None  # with repeats: which repetition (0-based)
    repeats: int | None = None  # with repeats: how many of each planned conversation
    imported_from: str | None = None  # "reference": read from the reference tool's YAML files
    reference: dict[str, JsonValue] | None = None  # what such a file's `conversation` section said


class RecordedSlip(BaseModel):
    """One way the simulated user left its role (`engine.sensei.hygiene`), in the user turn it was caught in."""

    turn: int | None = None
    attempt: int = 0
    kind: str = ""
    text: str = ""


class Note(BaseModel):
    turn: int | None = None
    note: str = ""


class CheckOutcome(BaseModel):
    """A scripted profile's check on the chatbot's reply (`engine.sensei.scripted`)."""

    step: int = 0
    turn: int | None = None  # the chatbot turn checked; None when never reached
    check: str = ""
    held: bool | None = None  # None: not decided
    detail: str = ""


class RecordOutcome(BaseModel):
    """How the conversation went, beside its verdict (which the record holds itself): why it stopped and who ended
    it, the simulated user's slips, notes, the goals the user confirmed, the extraction's notes, the LLM calls by
    tag. A field is None when it does not apply (and in records written before it existed). A comparison's view
    of a conversation — its verdict and where it came from — is `engine.regression.outcomes.Outcome`."""

    stopped_because: str | None = None  # completed, finished, max_turns, fallback_loop, timeout, cancelled…
    ended_by: str | None = None  # user or chatbot, when one of them ended it
    end_signal: str | None = None
    fallback_replies: int | None = None
    ended_on_fallback: bool | None = None  # True when the chatbot's last turn was its fallback
    simulator_slips: list[RecordedSlip] | None = None
    notes: list[Note] | None = None
    languages: list[str] | None = None  # the language of each user turn, when the profile changes language
    goals_verified: dict[str, str | None] | None = None  # all_answered: goal number -> the chatbot's words
    extraction_skipped: str | None = None
    extraction_notes: list[str] | None = None
    llm_calls: dict[str, int] | None = None  # by call tag
    script_turns: list[int] | None = None  # scripted profiles: the user turns the script sent
    checks: list[CheckOutcome] | None = None  # scripted profiles: every check's result


_OUTCOME_KEYS = frozenset(RecordOutcome.model_fields)
_SETTINGS_KEYS = frozenset(RecordSettings.model_fields)


def upgrade_record(data: Any) -> Any:
    """A stored record brought to the current shape — the one place that knows older ones. Records written
    before `outcome` existed kept it inside `settings`, and a reference tool's file put anything there."""
    if not isinstance(data, dict) or not isinstance(data.get("settings"), dict):
        return data
    settings = dict(data["settings"])
    moved = {key: settings.pop(key) for key in list(settings) if key in _OUTCOME_KEYS}
    extra = {key: settings.pop(key) for key in list(settings) if key not in _SETTINGS_KEYS}
    if not moved and not extra:
        return data
    if extra:
        settings["reference"] = {**(settings.get("reference") or {}), **extra}
    outcome = data.get("outcome")
    return {
        **data,
        "settings": settings,
        "outcome": {**moved, **(outcome if isinstance(outcome, dict) else {})},
    }


class ConversationRecord(BaseModel):
    """One conversation between a simulated user (a profile) and the chatbot under test."""

    id: str
    profile: str  # the profile's test name
    index: int = 0  # position of this conversation among the profile's planned conversations
    language: str | None = None
    context: list[str] = Field(default_factory=list)
    goals: list[str] = Field(default_factory=list)  # goal templates as written in the profile
    inputs: dict[str, JsonValue] = Field(default_factory=dict)  # variable values chosen for this conversation
    outputs: dict[str, JsonValue] = Field(default_factory=dict)  # extracted outputs; None when not found
    evidence: dict[str, OutputEvidence] = Field(default_factory=dict)  # per output: where the chatbot said it
    settings: RecordSettings = Field(default_factory=RecordSettings)
    outcome: RecordOutcome = Field(default_factory=RecordOutcome)
    turns: list[Turn] = Field(default_factory=list)
    errors: list[ConversationError] = Field(default_factory=list)
    started_at: datetime | None = None
    duration_s: float | None = None  # wall clock, LLM time included
    usage: Usage = Field(default_factory=Usage)
    verdict: Verdict | None = None  # None only in records written before verdicts existed
    # "<reason>: <explanation>", the reason a slug such as chatbot_crash or inputs_not_conveyed.
    verdict_reason: str | None = None
    # Who is at fault (engine.sensei.verdicts.FAULTS): chatbot, simulated_user, parley_llm, infrastructure or
    # test_setup; None when passed.
    fault: str | None = None
    # `failed` only: the chatbot's turn that shows the fault (for an HTTP error or a timeout, the index of the reply
    # that never came, right after the user's message).
    evidence_turn: int | None = None
    # The version of the verdict rules that decided this record; an older one (or None) is decided again when read.
    verdict_rules: int | None = None

    _upgrade = model_validator(mode="before")(upgrade_record)

    @property
    def meta(self) -> dict[str, Any]:
        """Settings and outcome as one mapping of what applies (the rules' `meta`); an imported file's own keys
        stand beside Parley's, as they did in that file."""
        settings = self.settings.model_dump(mode="json", exclude_none=True)
        return {
            **settings.pop("reference", {}),
            **settings,
            **self.outcome.model_dump(mode="json", exclude_none=True),
        }

    @property
    def response_times(self) -> list[float]:
        return [turn.latency_s for turn in self.turns if turn.role == "bot" and turn.latency_s is not None]

    @property
    def error_codes(self) -> list[int]:
        return [error.code for error in self.errors]

    @property
    def chatbot_phrases(self) -> list[str]:
        return [turn.text for turn in self.turns if turn.role == "bot"]

    @property
    def user_phrases(self) -> list[str]:
        return [turn.text for turn in self.turns if turn.role == "user"]

    @property
    def ok(self) -> bool:
        return not self.errors
