"""Which runs a request may read, and the list filters: the queries both halves of `runs/` share.

Who reads what is decided by the workspace's one visibility policy (`workspace.visibility`); this module only turns
it into querysets of runs."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from rest_framework import serializers

from engine.errors import ParleyError
from engine.security import choose_states, states_from_tracer
from engine.transcripts import Conversation as ImportedRecord
from runs.models import Artefact, ImportedConversation, Run
from workspace import visibility

ORDERINGS = {
    "created_at",
    "-created_at",
    "cost_usd",
    "-cost_usd",
    "finished_at",
    "-finished_at",
    "kind",
    "status",
}


def readable_runs(user: Any) -> QuerySet[Run]:
    """The runs `user` may read (workspace.visibility), with what a visitor's view of them needs."""
    runs = Run.objects.select_related("project__connector", "project__llm_key", "owner")
    return runs.filter(visibility.readable(user, "project__"))


class RunFilters(serializers.Serializer[Any]):
    """The list filters, parsed like any other input: a bad value is a 400 naming the parameter."""

    project = serializers.IntegerField(required=False, min_value=1)
    kind = serializers.ChoiceField(choices=Run.Kind.choices, required=False)
    status = serializers.ChoiceField(choices=Run.Status.choices, required=False)
    created_after = serializers.DateField(required=False)
    created_before = serializers.DateField(required=False)
    search = serializers.CharField(required=False, max_length=200)
    ordering = serializers.ChoiceField(choices=sorted(ORDERINGS), required=False)


def filter_runs(runs: QuerySet[Run], params: Any) -> QuerySet[Run]:
    """Project, kind, status, a creation date range, a search over the project name, and an ordering."""
    parsed = RunFilters(
        data={key: params.get(key) for key in RunFilters().fields if params.get(key) not in (None, "")}
    )
    parsed.is_valid(raise_exception=True)
    wanted = parsed.validated_data
    for field in ("project", "kind", "status"):
        if field in wanted:
            runs = runs.filter(**{field: wanted[field]})
    if "created_after" in wanted:
        runs = runs.filter(created_at__date__gte=wanted["created_after"])
    if "created_before" in wanted:
        runs = runs.filter(created_at__date__lte=wanted["created_before"])
    if "search" in wanted:
        runs = runs.filter(project__name__icontains=wanted["search"])
    return runs.order_by(wanted["ordering"], "-id") if "ordering" in wanted else runs


class NoTracerStates(ParleyError):
    code = "no_tracer_states"


def tracer_states(project_id: int, wanted: str | list[str], tracer_id: int | None) -> dict[str, Any]:
    """For a campaign with `from:`: the TRACER run to attack from (the one named, of this project, else the
    project's latest finished one) and its states with their recorded prefixes, as stored in the run's input so
    the run replays exactly what was planned."""
    with_model = Artefact.objects.filter(name=Artefact.Name.MODEL).values("run_id")
    candidates = Run.objects.filter(project_id=project_id, kind=Run.Kind.TRACER, pk__in=with_model)
    if tracer_id is not None:
        tracer = candidates.filter(pk=tracer_id).first()
        if tracer is None:
            raise NoTracerStates("Choose a TRACER run of this project that wrote a model.")
    else:
        tracer = candidates.filter(status=Run.Status.SUCCEEDED).order_by("-finished_at", "-id").first()
        if tracer is None:
            raise NoTracerStates(
                "This campaign attacks from TRACER's states (`from:`), and the project has no finished TRACER "
                "run: explore the chatbot with TRACER first."
            )
    contents = dict(
        Artefact.objects.filter(
            run=tracer, name__in=[Artefact.Name.MODEL, Artefact.Name.TRANSCRIPTS]
        ).values_list("name", "content")
    )
    model, transcripts = contents.get(Artefact.Name.MODEL), contents.get(Artefact.Name.TRANSCRIPTS)
    states, left_out = choose_states(
        states_from_tracer(model if isinstance(model, dict) else {}, transcripts or []), wanted
    )
    if not states:
        why = "; ".join(left_out) or "it recorded no turn for any functionality (a run older than found_at)"
        raise NoTracerStates(f"TRACER run #{tracer.pk} has no state to attack from: {why}.")
    return {"run": tracer.pk, "states": [s.to_json() for s in states], "left_out": left_out}


def imported_conversations(project_id: int) -> list[ImportedRecord]:
    """A project's imported conversations (already masked, D35), in the order they were uploaded."""
    records = ImportedConversation.objects.filter(project_id=project_id).order_by("number")
    return [ImportedRecord.model_validate(record) for record in records.values_list("record", flat=True)]
