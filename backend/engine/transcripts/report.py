"""Typed documents the Transcripts page shows (D31): the masking rules with their examples masked live, the
measures of real users, and the fidelity report — simulated users against real ones on each measure, before and
after calibration. Built from the engine's own functions, so the page shows what the import really does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from engine.personal_data import RULES, mask_text
from engine.transcripts.fidelity import LABELS
from engine.transcripts.measures import MEASURES, Measures, TurnPair, distance
from engine.transcripts.model import Conversation


class TranscriptDocument(BaseModel):
    """The base of the Transcripts page's documents (one OpenAPI extension serves them all); every field is
    present in an answer, so the generated client sees none as optional."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)


class ImportedTurn(TranscriptDocument):
    role: Literal["user", "bot"]
    text: str  # masked


class TranscriptConversation(TranscriptDocument):
    """An imported conversation as the page shows it (masked, as stored)."""

    id: str
    line: int  # where it starts in the uploaded file
    turns: list[ImportedTurn]
    masked: dict[str, int]  # masked occurrences by kind

    @classmethod
    def of(cls, conversation: Conversation) -> TranscriptConversation:
        return cls(
            id=conversation.id,
            line=conversation.line,
            turns=[ImportedTurn(role=t.role, text=t.text) for t in conversation.turns],
            masked=conversation.masked,
        )


class TranscriptProblem(TranscriptDocument):
    line: int
    severity: Literal["error", "warning"]  # error: the record was skipped; warning: kept, with a change
    message: str


class MaskExample(TranscriptDocument):
    text: str
    masked: str  # what the import stores for `text`


class MaskingRule(TranscriptDocument):
    kind: str
    placeholder: str
    what: str
    masked: list[MaskExample]  # examples that are masked
    kept: list[MaskExample]  # examples left as they are


def masking_rules() -> list[MaskingRule]:
    """The rules, each example run through the masking now (a rule shown is a rule tested)."""
    return [
        MaskingRule(
            kind=rule.kind,
            placeholder=rule.placeholder,
            what=rule.what,
            masked=[MaskExample(text=t, masked=mask_text(t)) for t in rule.masked],
            kept=[MaskExample(text=t, masked=mask_text(t)) for t in rule.kept],
        )
        for rule in RULES
    ]


class MeasureSummary(TranscriptDocument):
    conversations: int
    words_per_message: float
    user_turns: float
    ignored_question: float
    correction: float
    change_of_mind: float
    leave_after: float
    left_on_fallback: float


def summary_of(measures: Measures) -> MeasureSummary:
    return MeasureSummary(
        conversations=measures.conversations,
        left_on_fallback=round(measures.left_on_fallback, 4),
        **measures.summary(),
    )


def turn_pairs(conversations: Sequence[Conversation]) -> list[list[TurnPair]]:
    return [[(turn.role, turn.text) for turn in conversation.turns] for conversation in conversations]


class FidelityMeasure(TranscriptDocument):
    name: str
    label: str
    real: float
    uncalibrated: float | None = None
    calibrated: float | None = None
    gap_uncalibrated: float | None = None  # |simulated - real| / real (absolute when real is 0)
    gap_calibrated: float | None = None


class FidelityReport(TranscriptDocument):
    """Real users against the simulated ones of two SENSEI runs: one without, one with the calibrated user."""

    real_conversations: int
    uncalibrated_run: int | None = None
    calibrated_run: int | None = None
    uncalibrated_conversations: int = 0
    calibrated_conversations: int = 0
    measures: list[FidelityMeasure] = Field(default_factory=list)
    overall_gap_uncalibrated: float | None = None
    overall_gap_calibrated: float | None = None
    closer: bool | None = None  # the calibrated user is closer to the real users; None until both ran


def fidelity(
    real: Measures,
    uncalibrated: tuple[int, Measures] | None,
    calibrated: tuple[int, Measures] | None,
) -> FidelityReport:
    """The report for the real measures and, when they ran, a simulation without and one with calibration
    (each as (run id, measures of its conversations))."""
    gaps = {
        side: distance(pair[1], real) if pair and pair[1].conversations else None
        for side, pair in (("uncalibrated", uncalibrated), ("calibrated", calibrated))
    }
    real_values = real.summary()

    def value(pair: tuple[int, Measures] | None, name: str) -> float | None:
        return pair[1].summary()[name] if pair and pair[1].conversations else None

    rows = [
        FidelityMeasure(
            name=name,
            label=LABELS[name],
            real=real_values[name],
            uncalibrated=value(uncalibrated, name),
            calibrated=value(calibrated, name),
            gap_uncalibrated=gaps["uncalibrated"][name] if gaps["uncalibrated"] else None,
            gap_calibrated=gaps["calibrated"][name] if gaps["calibrated"] else None,
        )
        for name in MEASURES
    ]
    before = gaps["uncalibrated"]["overall"] if gaps["uncalibrated"] else None
    after = gaps["calibrated"]["overall"] if gaps["calibrated"] else None
    return FidelityReport(
        real_conversations=real.conversations,
        uncalibrated_run=uncalibrated[0] if uncalibrated else None,
        calibrated_run=calibrated[0] if calibrated else None,
        uncalibrated_conversations=uncalibrated[1].conversations if uncalibrated else 0,
        calibrated_conversations=calibrated[1].conversations if calibrated else 0,
        measures=rows,
        overall_gap_uncalibrated=before,
        overall_gap_calibrated=after,
        closer=None if before is None or after is None else after < before,
    )
