"""The drafting run (`profile_draft`): SENSEI profiles for chosen functionalities of a TRACER run's model, written
by the project's LLM with TRACER's own profile synthesis (`engine.tracer.drafts`), stored in the project's test
center as profiles the user edits. Started from the coverage map (`runs.http.coverage`).
"""

from __future__ import annotations

from typing import Any, Literal

from django.db import transaction
from pydantic import BaseModel, Field

from engine.errors import ParleyError
from engine.llm import UsageTotals
from engine.tracer.config import TracerConfig
from engine.tracer.drafts import draft_profiles
from engine.tracer.model import snake_name
from runs.models import Artefact, Run
from runs.worker import deps
from runs.worker.reporting import RunRecorder
from workspace.models import Profile
from workspace.validation import validate_profile

DRAFT_PREFIX = "draft_"


class StoredProfile(BaseModel):
    """A profile a run filed in the project's test center."""

    id: int
    name: str
    valid: bool = False


class DraftsSummary(BaseModel):
    """A drafting run's result (D31): the profiles it stored, the chosen functionalities the model does not have,
    the warnings of the synthesis and the LLM usage."""

    kind: Literal["profile_draft"] = "profile_draft"
    profiles: list[StoredProfile] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    usage: UsageTotals = Field(default_factory=UsageTotals)


class NothingToDraft(ParleyError):
    code = "nothing_to_draft"


def free_name(project_id: int, wanted: str) -> str:
    taken = set(Profile.objects.filter(project_id=project_id).values_list("name", flat=True))
    name, number = wanted, 2
    while name in taken:
        name, number = f"{wanted}_{number}", number + 1
    return name


def execute_profile_draft(run: Run) -> dict[str, Any]:
    """The drafting run: the TRACER run's model cut down to the chosen functionalities, TRACER's profile
    synthesis on it with the project's LLM, each profile validated and stored for the user to edit."""
    project = run.project
    model = Artefact.objects.filter(run_id=run.input["tracer_run"], name=Artefact.Name.MODEL).first()
    if project is None or model is None or not isinstance(model.content, dict):
        raise NothingToDraft("The TRACER run's model is gone: there is nothing to draft profiles from.")
    recorder = RunRecorder(run.pk)
    with deps.llm_client(
        project, project.profile_model or project.exploration_model, recorder=recorder
    ) as llm:
        drafts = draft_profiles(
            llm,
            model.content,
            run.input["functionalities"],
            config=TracerConfig(profile_model=project.profile_model or None),
        )
        usage = UsageTotals.model_validate(llm.ledger.total().to_json())
    stored = []
    with transaction.atomic():
        Profile.objects.filter(source_run=run).delete()  # a repeated execution files them once
        for draft in drafts.profiles:
            checked = validate_profile(draft["yaml"])
            profile = Profile.objects.create(
                project=project,
                name=free_name(project.pk, DRAFT_PREFIX + snake_name(draft["name"])),
                text=draft["yaml"],
                valid=checked.valid,
                problems=checked.problems,
                warnings=checked.warnings,
                origin=Profile.Origin.MANUAL,
                source_run=run,
            )
            stored.append(StoredProfile(id=profile.pk, name=profile.name, valid=profile.valid))
    summary = DraftsSummary(profiles=stored, missing=drafts.missing, warnings=drafts.warnings, usage=usage)
    return summary.model_dump(mode="json")
