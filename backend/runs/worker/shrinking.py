"""The `shrink` run's worker side: shrink one failed conversation with the engine's entry point and pin it.

`execute_shrink` calls `engine.regression.shrink.shrink_record` — the CLI's entry point — with the project's
connector and the run's context (its stages as run events, a cancel between them); the LLM is opened only when no code rule turns the failure into a check and the project has a key. A
failure that reproduces is saved as a scripted profile in the project's test center, named after the failure;
the profile's `source_run` is the shrink run, whose input names the SENSEI run and the conversation, and its
YAML's first line says both. The views are in `runs.http.shrink_views`.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from engine.connectors import create_connector
from engine.conversation import ConversationRecord
from engine.errors import ParleyError
from engine.regression.shrink import ShrinkError, ShrinkJob, ShrinkResult, derive_failure, shrink_record
from engine.sensei import load_profile
from runs.models import Conversation, Run
from runs.worker import deps
from runs.worker.drafting import StoredProfile, free_name
from runs.worker.reporting import run_context
from workspace.models import Profile
from workspace.validation import validate_profile


class PinnedShrink(ShrinkResult):
    """A shrink run's result (D31): the engine's `ShrinkResult`, the conversation it shrank, and the scripted
    profile it pinned in the test center (None when the failure did not reproduce)."""

    sensei_run: int | None = None
    conversation: int | None = None
    pinned: StoredProfile | None = None


def _output_types(source: Run, record: ConversationRecord) -> dict[str, Any]:
    """The outputs' types of the profile the conversation played, from the run's profile snapshots."""
    name = record.settings.test_name or record.profile
    for snapshot in source.input.get("profiles") or []:
        if isinstance(snapshot, dict) and snapshot.get("name") in (name, record.profile):
            profile, _ = load_profile(str(snapshot.get("text", "")), source=name)
            if profile is not None:
                return {output.name: output.type for output in profile.chatbot.outputs}
    return {}


def execute_shrink(run: Run) -> dict[str, Any]:
    """The worker's side: shrink the conversation with the engine's entry point and pin what reproduced."""
    project = run.project
    row = Conversation.objects.filter(
        pk=run.input.get("conversation"), run_id=run.input.get("sensei_run")
    ).first()
    if project is None or row is None or project.connector is None:
        raise ParleyError("The conversation to shrink, or its project's connector, is gone.")
    try:
        record = ConversationRecord.model_validate(row.record)
    except ValueError as exc:
        raise ParleyError(f"The stored conversation is not a readable record: {exc}") from None
    types = _output_types(row.run, record)
    connector_config, guard = deps.connector_config(project.connector), deps.egress_guard()
    options = {
        "replays": run.input.get("replays", 3),
        "needed": run.input.get("needed", 2),
        "max_chatbot_calls": run.input.get("max_chatbot_calls", 200),
        "output_types": types,
    }

    def factory() -> Any:
        return create_connector(connector_config, guard)

    try:
        derive_failure(record, output_types=types)
        needs_llm = False
    except ShrinkError:
        needs_llm = project.llm_key_id is not None and bool(deps.judge_model(project))
    context = run_context(run.pk)
    try:
        if needs_llm:  # the LLM only derives a check no code rule gives (and it is validated like a user's)
            with deps.llm_client(project, deps.judge_model(project)) as llm:
                result = shrink_record(ShrinkJob(record, factory, llm=llm, **options), context)
        else:
            result = shrink_record(ShrinkJob(record, factory, **options), context)
    except ShrinkError as exc:
        raise ParleyError(exc.user_message) from None
    pinned = _pin(run, result, row) if result.reproduced else None
    done = PinnedShrink(**dict(result), sensei_run=row.run_id, conversation=row.pk, pinned=pinned)
    return done.model_dump(mode="json")


def _pin(run: Run, result: ShrinkResult, row: Conversation) -> StoredProfile:
    """The pinned profile in the project's test center (filed once, even when the run is executed again)."""
    assert run.project is not None
    text = (
        f"# Shrink run #{run.pk} of SENSEI run #{row.run_id}, conversation {row.pk}.\n{result.pinned_profile}"
    )
    checked = validate_profile(text)
    with transaction.atomic():
        Profile.objects.filter(source_run=run).delete()
        profile = Profile.objects.create(
            project=run.project,
            name=free_name(run.project.pk, result.name),
            text=text,
            valid=checked.valid,
            problems=checked.problems,
            warnings=checked.warnings,
            origin=Profile.Origin.MANUAL,
            source_run=run,
        )
    return StoredProfile(id=profile.pk, name=profile.name, valid=profile.valid)
