"""Request and response shapes of the runs API."""

from __future__ import annotations

import logging
from typing import Any, TypeVar

from drf_spectacular.utils import extend_schema_field
from pydantic import BaseModel, ValidationError
from rest_framework import serializers

from engine.bots.mutation import OPERATORS
from engine.check.report import RuleReport
from engine.conversation import ConversationRecord
from engine.llm import UsageTotals
from engine.security import needs_model
from engine.security.records import AttemptRecord
from engine.sensei import new_seed
from runs.http.artefacts import CONTENT_MODELS
from runs.http.conversation_list import FAULTS, VERDICTS, row_decision, row_verdict
from runs.http.transcript_inputs import calibrated_user_input, transcript_tracer_input
from runs.models import Artefact, Conversation, RuleResult, Run, RunEvent, SecurityAttempt
from runs.result_schema import ResultField, served_result
from runs.selectors import NoTracerStates, tracer_states
from runs.verdict_counts import refreshed_result
from workspace import visibility
from workspace.models import Campaign, Profile, Project, Rule
from workspace.validation import validate_campaign

TRACER_SESSIONS = (1, 50)
TRACER_TURNS = (2, 30)
BENCH_REPEATS = (1, 10)
BENCH_MUTANTS_PER_OPERATOR = (0, 10)


logger = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)


def leniently(model: type[M], stored: Any, fallback: dict[str, Any] | None = None) -> M:
    """`stored` as `model`, its fields that do not load (a hand-edited or hostile document) at their defaults, or
    at what `fallback` says. A field the model requires (an attempt record's verdict, say) that is missing or bad
    and has no fallback still fails: only the worker writes these documents, always whole."""
    document = {**(fallback or {}), **stored} if isinstance(stored, dict) else dict(fallback or {})
    try:
        return model.model_validate(document)
    except ValidationError as exc:
        bad = {error["loc"][0] for error in exc.errors() if error["loc"]}
        kept = {key: value for key, value in document.items() if key not in bad}
        return model.model_validate({**{k: v for k, v in (fallback or {}).items() if k in bad}, **kept})


def stored_model_field(model: type[BaseModel]) -> serializers.JSONField:
    """A JSON document a run stored, served through `model` and typed by it in the schema: brought to the model's
    current shape (a field added since takes its default)."""

    @extend_schema_field(model)
    class StoredModelField(serializers.JSONField):
        def to_representation(self, value: Any) -> Any:
            return leniently(model, value).model_dump(mode="json")

    return StoredModelField(read_only=True)


class ProgressSerializer(serializers.Serializer[Any]):
    done = serializers.IntegerField()
    total = serializers.IntegerField()


_DATETIME = serializers.DateTimeField()


class RunSerializer(serializers.ModelSerializer[Run]):
    wait_seconds = serializers.SerializerMethodField()
    duration_seconds = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()
    project_name = serializers.CharField(source="project.name", read_only=True, allow_null=True, default=None)
    owner_name = serializers.CharField(source="owner.public_name", read_only=True)
    is_owner = serializers.SerializerMethodField()
    params = serializers.SerializerMethodField()
    result = ResultField()
    counters = serializers.DictField(child=serializers.IntegerField(), read_only=True)
    usage = stored_model_field(UsageTotals)

    class Meta:
        model = Run
        fields = (
            "id",
            "kind",
            "status",
            "stage",
            "progress",
            "counters",
            "project",
            "project_name",
            "params",
            "trigger_source",
            "result",
            "usage",
            "cost_usd",
            "error_type",
            "error_message",
            "created_at",
            "started_at",
            "finished_at",
            "wait_seconds",
            "duration_seconds",
            "owner_name",
            "is_owner",
            "cancel_requested",
        )
        read_only_fields = fields

    def to_representation(self, run: Run) -> dict[str, Any]:
        """The same document DRF's per-field machinery builds from the fields above (they still define the
        schema), built directly: a list page serialises 25 runs, and this is several times faster
        (benchmarks/api_latency.py; tests/test_runs.py checks both give the same document)."""
        when = _DATETIME.to_representation
        document = {
            "id": run.pk,
            "kind": run.kind,
            "status": run.status,
            "stage": run.stage,
            "progress": self.get_progress(run),
            "counters": run.counters,
            "project": run.project_id,
            "project_name": run.project.name if run.project_id else None,
            "params": self.get_params(run),
            "trigger_source": run.trigger_source,
            "result": served_result(run.kind, refreshed_result(run)),
            "usage": leniently(UsageTotals, run.usage).model_dump(mode="json"),
            "cost_usd": run.cost_usd,
            "error_type": run.error_type,
            "error_message": run.error_message,
            "created_at": when(run.created_at),
            "started_at": when(run.started_at),
            "finished_at": when(run.finished_at),
            "wait_seconds": self.get_wait_seconds(run),
            "duration_seconds": self.get_duration_seconds(run),
            "owner_name": run.owner.public_name,
            "is_owner": self.get_is_owner(run),
            "cancel_requested": run.cancel_requested,
        }
        if not document["is_owner"]:
            # A visitor's view (workspace.visibility): errors, results and usage quote the chatbot's address.
            request = self.context.get("request")
            document = visibility.for_runs(getattr(request, "user", None), run).data(document)
        return document

    def get_wait_seconds(self, run: Run) -> float | None:
        return run.wait_time.total_seconds() if run.wait_time else None

    def get_duration_seconds(self, run: Run) -> float | None:
        return run.duration.total_seconds() if run.duration else None

    def get_progress(self, run: Run) -> dict[str, int]:
        return {"done": run.progress_done, "total": run.progress_total}

    def get_is_owner(self, run: Run) -> bool:
        request = self.context.get("request")
        return visibility.sees_as_owner(getattr(request, "user", None), run.owner_id)

    def get_params(self, run: Run) -> dict[str, Any]:
        """What the run was asked to do, without the snapshots' YAML text."""
        params = dict(run.input)
        for key in ("profiles", "rules", "personalities"):
            if isinstance(params.get(key), list):
                params[key] = [{"id": item.get("id"), "name": item.get("name")} for item in params[key]]
        if isinstance(params.get("campaign"), dict):
            params["campaign"] = {"id": params["campaign"].get("id"), "name": params["campaign"].get("name")}
        return params


class PingSerializer(serializers.Serializer[Any]):
    message = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")


class RunRequestSerializer(serializers.Serializer[Any]):
    """One body for the project run kinds (TRACER, SENSEI, check, bench, security); each reads its own fields."""

    kind = serializers.ChoiceField(
        choices=[Run.Kind.TRACER, Run.Kind.SENSEI, Run.Kind.CHECK, Run.Kind.BENCH, Run.Kind.SECURITY]
    )
    sessions = serializers.IntegerField(
        min_value=TRACER_SESSIONS[0], max_value=TRACER_SESSIONS[1], required=False
    )
    turns = serializers.IntegerField(min_value=TRACER_TURNS[0], max_value=TRACER_TURNS[1], required=False)
    profiles = serializers.ListField(child=serializers.IntegerField(), required=False, max_length=500)
    concurrency = serializers.IntegerField(min_value=1, max_value=16, required=False, default=4)
    seed = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=2**31 - 1)
    model = serializers.CharField(
        max_length=200,
        required=False,
        allow_blank=True,
        help_text="SENSEI: the model that plays the user for every profile, over each profile's llm.model.",
    )
    rules = serializers.ListField(child=serializers.IntegerField(), required=False, max_length=500)
    sensei_runs = serializers.ListField(child=serializers.IntegerField(), required=False, max_length=50)
    # A ChoiceField puts the operators in the schema, so the web client's copy is checked against them.
    operators = serializers.ListField(
        child=serializers.ChoiceField(choices=OPERATORS), required=False, max_length=40, allow_empty=True
    )
    # Defaults are applied in `_bench`, not declared: a declared default makes the generated client require it.
    repeats = serializers.IntegerField(
        min_value=BENCH_REPEATS[0],
        max_value=BENCH_REPEATS[1],
        required=False,
        help_text="Bench: SENSEI runs on the original bot (false alarms), 3 when omitted. SENSEI: runs of each "
        "planned conversation with other simulator seeds (flaky conversations), 1 when omitted.",
    )
    mutants_per_operator = serializers.IntegerField(
        min_value=BENCH_MUTANTS_PER_OPERATOR[0],
        max_value=BENCH_MUTANTS_PER_OPERATOR[1],
        required=False,
        help_text="Mutants drawn per mutation operator; 1 when omitted.",
    )

    source = serializers.ChoiceField(
        choices=["chatbot", "transcripts"],
        required=False,
        help_text="TRACER: explore the chatbot (default), or build the model from the project's imported "
        "conversations (no chatbot call; `sample` of them are read).",
    )
    sample = serializers.IntegerField(
        min_value=1, max_value=500, required=False, help_text="TRACER from transcripts: conversations read."
    )
    calibrated_user = serializers.CharField(
        max_length=200,
        required=False,
        help_text="SENSEI: a calibrated personality of the project whose measured behaviour the simulator "
        "enforces on every profile (as `--calibrated-user`).",
    )
    campaign = serializers.IntegerField(required=False, help_text="Security: the campaign to run.")
    tracer = serializers.IntegerField(
        required=False,
        help_text="Security, a campaign with `from:`: the TRACER run whose states it attacks from (default: the "
        "project's latest finished one).",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        project: Project = self.context["project"]
        kind = attrs["kind"]
        if kind in (Run.Kind.TRACER, Run.Kind.SENSEI, Run.Kind.BENCH):
            if project.llm_key_id is None:
                raise serializers.ValidationError(
                    {"kind": ["This project has no LLM key: choose one first."]}
                )
            if not project.exploration_model:
                raise serializers.ValidationError({"kind": ["Choose the project's exploration model first."]})
        builder = {
            Run.Kind.TRACER: self._tracer,
            Run.Kind.SENSEI: self._sensei,
            Run.Kind.CHECK: self._check,
            Run.Kind.BENCH: self._bench,
            Run.Kind.SECURITY: self._security,
        }[kind]
        return {"kind": kind, "input": builder(project, attrs)}

    def _tracer(self, project: Project, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs.get("source") == "transcripts":
            return transcript_tracer_input(project, attrs.get("sample"), attrs.get("seed"))
        missing = [name for name in ("sessions", "turns") if name not in attrs]
        if missing:
            raise serializers.ValidationError({name: ["This field is required."] for name in missing})
        seed = attrs.get("seed")
        # Drawn now when not given and stored with the run, so a resumed run keeps its seed (as the CLI's does).
        return {
            "sessions": attrs["sessions"],
            "turns": attrs["turns"],
            "seed": new_seed() if seed is None else seed,
        }

    def _sensei(self, project: Project, attrs: dict[str, Any]) -> dict[str, Any]:
        ids = attrs.get("profiles") or []
        if not ids:
            raise serializers.ValidationError({"profiles": ["Select at least one profile."]})
        found = {p.pk: p for p in Profile.objects.filter(project=project, pk__in=ids)}
        unknown = [i for i in ids if i not in found]
        if unknown:
            raise serializers.ValidationError({"profiles": [f"Not profiles of this project: {unknown}."]})
        invalid = [found[i].name for i in ids if not found[i].valid]
        if invalid:
            raise serializers.ValidationError(
                {"profiles": [f"Fix these profiles first: {', '.join(invalid)}."]}
            )
        seed = attrs.get("seed")
        return {
            # A snapshot: later edits of the profiles and personalities do not change what this run does.
            "profiles": [{"id": i, "name": found[i].name, "text": found[i].text} for i in dict.fromkeys(ids)],
            "personalities": [
                {"id": p.pk, "name": p.name, "text": p.text} for p in project.personalities.filter(valid=True)
            ],
            "concurrency": attrs.get("concurrency", 4),
            # Drawn now when not given, so every attempt of the run (a resume too) plans the same conversations.
            "seed": new_seed() if seed is None else seed,
            # README D6: the run's override beats each profile's llm.model, which beats the project's simulation model.
            "model": attrs.get("model", "").strip() or None,
            "repeats": attrs.get("repeats", 1),
            **calibrated_user_input(project, attrs.get("calibrated_user")),
        }

    def _check(self, project: Project, attrs: dict[str, Any]) -> dict[str, Any]:
        run_ids = attrs.get("sensei_runs") or []
        runs = Run.objects.filter(project=project, kind=Run.Kind.SENSEI, pk__in=run_ids)
        if not run_ids or runs.count() != len(set(run_ids)):
            raise serializers.ValidationError({"sensei_runs": ["Select SENSEI runs of this project."]})
        if runs.filter(status__in=Run.ACTIVE).exists():
            raise serializers.ValidationError(
                {"sensei_runs": ["Wait until the selected runs have finished."]}
            )
        rules = Rule.objects.filter(project=project)
        rules = rules.filter(pk__in=attrs["rules"]) if attrs.get("rules") else rules.filter(active=True)
        if not rules.exists():
            raise serializers.ValidationError({"rules": ["There is no rule to check."]})
        invalid = [rule.name for rule in rules if not rule.valid]
        if invalid:
            raise serializers.ValidationError({"rules": [f"Fix these rules first: {', '.join(invalid)}."]})
        return {
            "rules": [{"id": rule.pk, "name": rule.name, "text": rule.text} for rule in rules],
            "sensei_runs": sorted(set(run_ids)),
        }

    def _bench(self, project: Project, attrs: dict[str, Any]) -> dict[str, Any]:
        operators = attrs.get("operators") or None
        connector = project.connector
        bot = str(connector.params.get("bot", "")) if connector.technology == "demo" else ""
        if not bot or "@" in bot:
            message = (
                "The bench needs a project whose connector is a built-in reference bot (technology 'demo', an "
                "original bot, not a mutant): its ground truth is what the figures are measured against."
            )
            raise serializers.ValidationError({"kind": [message]})
        return {
            "bot": bot,
            **self._tracer(project, attrs),
            "repeats": attrs.get("repeats", 3),
            "mutants_per_operator": attrs.get("mutants_per_operator", 1),
            "operators": list(dict.fromkeys(operators)) if operators else None,
            "concurrency": attrs.get("concurrency", 4),
            "seed": attrs.get("seed") or 0,
        }

    def _security(self, project: Project, attrs: dict[str, Any]) -> dict[str, Any]:
        """The campaign and the profiles its warm-ups name, as snapshots; offline without the project's LLM."""
        document = Campaign.objects.filter(project=project, pk=attrs.get("campaign") or 0).first()
        if document is None:
            raise serializers.ValidationError({"campaign": ["Choose a campaign of this project."]})
        checked = validate_campaign(document.text)
        if not checked.valid or checked.parsed is None:
            raise serializers.ValidationError({"campaign": [f"Fix the campaign {document.name!r} first."]})
        with_model = bool(project.llm_key_id and project.exploration_model)
        missing = needs_model(checked.parsed)
        if missing and not with_model:
            message = "This campaign needs the project's LLM key and exploration model: " + "; ".join(missing)
            raise serializers.ValidationError({"campaign": [message]})
        names = checked.parsed.profiles
        found = {p.name: p for p in Profile.objects.filter(project=project, name__in=names, valid=True)}
        unknown = [name for name in names if name not in found]
        if unknown:
            message = (
                f"The warm-ups name profiles this project has no valid profile for: {', '.join(unknown)}."
            )
            raise serializers.ValidationError({"campaign": [message]})
        seed = attrs.get("seed")
        tracer = None
        if checked.parsed.from_states is not None:
            try:
                tracer = tracer_states(project.pk, checked.parsed.from_states, attrs.get("tracer"))
            except NoTracerStates as exc:
                raise serializers.ValidationError({"tracer": [exc.user_message]}) from None
        return {
            "campaign": {"id": document.pk, "name": document.name, "text": document.text},
            "profiles": [{"id": p.pk, "name": p.name, "text": p.text} for p in found.values()],
            "seed": new_seed() if seed is None else seed,
            "llm": with_model,
            **({"tracer": tracer} if tracer else {}),
        }


class RunEventSerializer(serializers.ModelSerializer[RunEvent]):
    class Meta:
        model = RunEvent
        fields = ("id", "type", "data", "created_at")
        read_only_fields = fields


class ConversationListSerializer(serializers.ModelSerializer[Conversation]):
    """A conversation's row; `verdict` says what it tells about the chatbot (only `failed` is a chatbot fault),
    `verdict_reason` why ("<reason>: <explanation>", see engine.sensei.verdicts), `fault` who is at fault (null
    when passed) and `evidence_turn` the chatbot's turn that proves a `failed` (null otherwise)."""

    error_codes = serializers.ListField(child=serializers.IntegerField(), read_only=True)
    verdict = serializers.SerializerMethodField()
    verdict_reason = serializers.SerializerMethodField()
    fault = serializers.SerializerMethodField()
    evidence_turn = serializers.SerializerMethodField()

    @extend_schema_field(serializers.ChoiceField(choices=list(VERDICTS)))
    def get_verdict(self, row: Conversation) -> str:
        return row_verdict(row)[0]

    def get_verdict_reason(self, row: Conversation) -> str:
        return row_verdict(row)[1]

    @extend_schema_field(serializers.ChoiceField(choices=list(FAULTS), allow_null=True))
    def get_fault(self, row: Conversation) -> str | None:
        return row_decision(row).fault

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_evidence_turn(self, row: Conversation) -> int | None:
        return row_decision(row).evidence_turn

    class Meta:
        model = Conversation
        fields = (
            "id",
            "profile",
            "index",
            "has_errors",
            "error_codes",
            "verdict",
            "verdict_reason",
            "fault",
            "evidence_turn",
            "turns",
            "duration_s",
            "cost_usd",
            "created_at",
        )
        read_only_fields = fields


class ConversationSerializer(ConversationListSerializer):
    record = serializers.SerializerMethodField()

    @extend_schema_field(ConversationRecord)
    def get_record(self, row: Conversation) -> dict[str, Any]:
        """The stored record in its current shape; the row names it when the document does not."""
        names = {"id": f"{row.profile}-{row.index}", "profile": row.profile, "index": row.index}
        return leniently(ConversationRecord, row.record, names).model_dump(mode="json")

    class Meta(ConversationListSerializer.Meta):
        fields = (*ConversationListSerializer.Meta.fields, "record")
        read_only_fields = fields


def served_content(name: str, stored: Any) -> Any:
    """An artefact's stored content brought to its model's current shape (`runs.http.artefacts`): the Markdown
    report as text (an early one was stored as `{"text": ...}`), a JSON document `leniently` — and as the model's
    empty document when it is not even the right kind of JSON."""
    if name == Artefact.Name.REPORT:
        text = stored.get("text") if isinstance(stored, dict) else stored
        return text if isinstance(text, str) else ""
    model = CONTENT_MODELS.get(name)
    if model is None:  # an artefact the API does not serve (a SENSEI run's recorded exchanges)
        return stored
    try:
        return leniently(model, stored).model_dump(mode="json")
    except ValidationError:
        logger.warning("A stored %s artefact does not load; served empty", name)
        return model().model_dump(mode="json")


class ArtefactSerializer(serializers.ModelSerializer[Artefact]):
    """An artefact, its content typed by its name (`runs.http.artefacts.ArtefactResponse` in the schema)."""

    class Meta:
        model = Artefact
        fields = ("name", "content", "created_at")
        read_only_fields = fields

    def to_representation(self, artefact: Artefact) -> dict[str, Any]:
        document = super().to_representation(artefact)
        document["content"] = served_content(artefact.name, artefact.content)
        return document


class RuleResultSerializer(serializers.ModelSerializer[RuleResult]):
    report = stored_model_field(RuleReport)

    class Meta:
        model = RuleResult
        fields = (
            "id",
            "rule",
            "name",
            "status",
            "checks",
            "passed",
            "failed",
            "not_applicable",
            "errors",
            "report",
        )
        read_only_fields = fields


class SecurityAttemptSerializer(serializers.ModelSerializer[SecurityAttempt]):
    """One attempt of a security campaign; `record` holds its transcript, findings and quoted evidence."""

    record = stored_model_field(AttemptRecord)

    class Meta:
        model = SecurityAttempt
        fields = (
            "id",
            "attack",
            "attack_id",
            "index",
            "delivery",
            "verdict",
            "because",
            "record",
            "duration_s",
            "cost_usd",
            "created_at",
        )
        read_only_fields = fields
