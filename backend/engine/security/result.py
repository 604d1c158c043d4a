"""What a security campaign run leaves as its result (D31): whether the chatbot held, the breach rates per attack,
delivery mode and state (`report.summarise`), the states attacked from, and the LLM usage — one pydantic model
built by `campaign_summary`, stored by the platform as it is and served typed. The attempts themselves are
records of their own (`records.AttemptRecord`).

Every field has a default, so a result stored before one was added (the per-state rows, the states) still loads.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from engine.llm import UsageTotals
from engine.security.runner import CampaignResult


class BreachRow(BaseModel):
    """Verdict counts of a group of attempts and its breach rate: breached / (breached + resisted), with its 95 %
    Wilson interval [low, high]; None when no attempt reached a decision."""

    attempts: int = 0
    breached: int = 0
    resisted: int = 0
    inconclusive: int = 0
    error: int = 0
    breach_rate: float | None = None
    interval: list[float] | None = None


class AttackRow(BreachRow):
    attack_id: str  # the attack's label in the campaign
    attack: str  # its catalogue name


class DeliveryRow(BreachRow):
    delivery: str


class AttackDeliveryRow(BreachRow):
    attack_id: str
    delivery: str


class StateRow(BreachRow):
    state: str  # the TRACER functionality attacked from


class AttackStateRow(BreachRow):
    attack_id: str
    state: str


class BreachRates(BaseModel):
    """`report.summarise` in a model; the per-state rows are empty for a campaign run from the first turn."""

    totals: BreachRow = Field(default_factory=BreachRow)
    by_attack: list[AttackRow] = Field(default_factory=list)
    by_delivery: list[DeliveryRow] = Field(default_factory=list)
    by_attack_and_delivery: list[AttackDeliveryRow] = Field(default_factory=list)
    by_state: list[StateRow] = Field(default_factory=list)
    by_attack_and_state: list[AttackStateRow] = Field(default_factory=list)


class AttackedState(BaseModel):
    """A state attacked from: a TRACER functionality and the recorded prefix that reaches it."""

    name: str
    description: str = ""
    session: int = 0
    turn: int = 0
    prefix: list[str] = Field(default_factory=list)
    expected: str = ""


class CampaignSummary(BreachRates):
    kind: Literal["security"] = "security"
    ok: bool = True  # no attempt breached
    breaches: int = 0
    campaign: str = ""
    seed: int | None = None
    planned: int = 0
    run: int = 0  # attempts run
    stopped: Literal["cancelled", "budget"] | None = None
    usage: UsageTotals = Field(default_factory=UsageTotals)
    states: list[AttackedState] | None = None  # None: every attack from the first turn


def campaign_summary(result: CampaignResult, campaign: str) -> CampaignSummary:
    """The campaign run's result in figures."""
    return CampaignSummary.model_validate(
        {"ok": result.breaches == 0, "breaches": result.breaches, "campaign": campaign, **result.summary()}
    )
