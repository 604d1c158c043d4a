"""What a SENSEI run planned, as one document (`PlanDocument`): the seed, the date the plans were drawn for, the
values invented for any() items and each profile's plan — `parley sensei run --out` writes it as plan.json and the
platform keeps it as the run's `plan` artefact (`executor.plan_document` builds it), so that a resumed attempt, a
re-run or a replay plans the same conversations again. The platform serves it typed through this model.

Every field has a default, so a plan written before a field was added still loads.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from engine.sensei.profile import Scalar


class PlannedProfile(BaseModel):
    """One profile's plan (`planner.Plan.to_json`): a row of variable values per conversation."""

    profile: str = ""
    seed: int = 0
    conversations: int = 0
    combinations: int = 0
    rows: list[dict[str, Scalar | list[Scalar] | None]] = Field(default_factory=list)
    """Per conversation, the value of each of the profile's variables (a list for a multi-valued one)."""
    estimated_cost_usd: float | None = None


class PlanDocument(BaseModel):
    seed: int = 0
    planned_on: str | None = None
    """ISO date."""
    any_values: dict[str, list[str]] = Field(default_factory=dict)
    """The values invented for each any() item, so a later attempt draws the same."""
    profiles: list[PlannedProfile] = Field(default_factory=list)
