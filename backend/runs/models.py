"""The Run model and its state machine, and what runs leave behind: events, conversations, artefacts and rule
results — all in PostgreSQL, so any worker on any machine can pick a run up."""

from __future__ import annotations

from datetime import timedelta
from typing import ClassVar

from django.conf import settings
from django.db import models


class IllegalTransition(Exception):
    """A run was asked to move between two states the state machine does not connect."""


class Run(models.Model):
    class Kind(models.TextChoices):
        PING = "ping", "Ping"
        KEY_TEST = "key_test", "Key test"
        KEY_MODELS = "key_models", "Model list"
        CONNECTOR_TEST = "connector_test", "Connection test"
        TRACER = "tracer", "TRACER exploration"
        SENSEI = "sensei", "SENSEI simulation"
        CHECK = "check", "Rule check"
        BENCH = "bench", "Evaluation bench"
        SECURITY = "security", "Security campaign"
        PROFILE_DRAFT = "profile_draft", "Profile drafts"
        SHRINK = "shrink", "Shrink a failure"
        QUALIFY = "qualify", "Model qualification"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    class Trigger(models.TextChoices):
        API = "api", "API"
        CLI = "cli", "Command line"
        SCHEDULE = "schedule", "Schedule"

    # The whole state machine: a run is created queued and ends in exactly one terminal state.
    TRANSITIONS: ClassVar[dict[str, frozenset[str]]] = {
        Status.QUEUED: frozenset({Status.RUNNING, Status.FAILED, Status.CANCELLED}),
        # running → queued only for the reaper, when a run's worker died and the run can resume elsewhere.
        Status.RUNNING: frozenset({Status.SUCCEEDED, Status.FAILED, Status.CANCELLED, Status.QUEUED}),
        Status.SUCCEEDED: frozenset(),
        Status.FAILED: frozenset(),
        Status.CANCELLED: frozenset(),
    }
    ACTIVE: ClassVar[tuple[str, ...]] = (Status.QUEUED, Status.RUNNING)

    kind = models.CharField(max_length=32, choices=Kind.choices)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="runs")
    project = models.ForeignKey(
        "workspace.Project", on_delete=models.CASCADE, null=True, blank=True, related_name="runs"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    trigger_source = models.CharField(max_length=16, choices=Trigger.choices, default=Trigger.API)
    input = models.JSONField(default=dict, blank=True)
    result = models.JSONField(default=dict, blank=True)
    error_type = models.CharField(max_length=64, blank=True)
    error_message = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Live state, written by the worker's reporter while the run goes.
    stage = models.CharField(max_length=32, blank=True)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    counters = models.JSONField(default=dict, blank=True)
    usage = models.JSONField(default=dict, blank=True)
    cost_usd = models.FloatField(null=True, blank=True)
    cancel_requested = models.BooleanField(default=False)
    heartbeat_at = models.DateTimeField(null=True, blank=True)  # the reaper's evidence that a worker lives
    attempts = models.PositiveSmallIntegerField(default=0)
    # A SENSEI run its project's later runs are compared with (regression workflow); one per project.
    is_baseline = models.BooleanField(default=False)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["owner", "-created_at"], name="run_owner_recent"),
            models.Index(fields=["owner", "kind", "status"], name="run_owner_kind_status"),
            models.Index(fields=["status"], name="run_status"),
            models.Index(fields=["project", "kind", "-created_at"], name="run_project_kind"),
        ]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(
                fields=["project"], condition=models.Q(is_baseline=True), name="run_one_baseline_per_project"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} run {self.pk} ({self.status})"

    @classmethod
    def check_transition(cls, old: str, new: str) -> None:
        if new not in cls.TRANSITIONS[old]:
            raise IllegalTransition(f"A run cannot go from {old} to {new}.")

    @property
    def is_finished(self) -> bool:
        return not self.TRANSITIONS[self.status]

    @property
    def wait_time(self) -> timedelta | None:
        return self.started_at - self.created_at if self.started_at else None

    @property
    def duration(self) -> timedelta | None:
        return self.finished_at - self.started_at if self.started_at and self.finished_at else None


class RunEvent(models.Model):
    """Something that happened in a run, for the live view; read incrementally by id (a cursor)."""

    class Type(models.TextChoices):
        STAGE = "stage"
        PROGRESS = "progress"
        MESSAGE = "message"  # an explorer or chatbot message (TRACER) or a conversation turn (SENSEI)
        CONVERSATION = "conversation"  # a SENSEI conversation finished
        FUNCTIONALITY = "functionality"
        LOG = "log"
        WARNING = "warning"

    class Visibility(models.TextChoices):
        PUBLIC = "public"  # visible wherever the run is (public projects included)
        OWNER = "owner"  # system log: the owner only

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="events")
    type = models.CharField(max_length=16, choices=Type.choices)
    visibility = models.CharField(max_length=8, choices=Visibility.choices, default=Visibility.PUBLIC)
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("id",)
        indexes: ClassVar[list[models.Index]] = [models.Index(fields=["run", "id"], name="event_run_cursor")]

    def __str__(self) -> str:
        return f"{self.type} event of run {self.run_id}"


class Conversation(models.Model):
    """One SENSEI conversation, stored the moment it finished (engine.conversation.ConversationRecord)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="conversations")
    profile = models.CharField(max_length=200)
    index = models.PositiveIntegerField()
    record = models.JSONField()
    has_errors = models.BooleanField(default=False)
    error_codes = models.JSONField(default=list)
    turns = models.PositiveIntegerField(default=0)
    duration_s = models.FloatField(null=True)
    cost_usd = models.FloatField(null=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("profile", "index")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            # A resumed run skips what is stored; a duplicate delivery cannot store a conversation twice.
            models.UniqueConstraint(fields=["run", "profile", "index"], name="conversation_once_per_run"),
        ]

    def __str__(self) -> str:
        return f"{self.profile} #{self.index} of run {self.run_id}"


class Artefact(models.Model):
    """A named result of a run: TRACER's model, report, graph, transcripts and usage; a bench's figures
    (`bench`, what bench.json holds) and its Markdown `report`; a SENSEI run's `plan` (its seed, the date
    it was planned for, the values invented for any() items and each profile's rows — what a resumed
    attempt plans again)."""

    class Name(models.TextChoices):
        MODEL = "model"
        REPORT = "report"
        GRAPH = "graph"
        TRANSCRIPTS = "transcripts"
        USAGE = "usage"
        BENCH = "bench"
        PLAN = "plan"
        EXCHANGES = (
            "exchanges"  # a SENSEI run's LLM calls, which a re-run answers from (engine.regression.replay)
        )

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="artefacts")
    name = models.CharField(max_length=32, choices=Name.choices)
    content = models.JSONField()  # JSON artefacts as objects; the Markdown report as a string
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["run", "name"], name="artefact_once_per_run"),
        ]

    def __str__(self) -> str:
        return f"{self.name} of run {self.run_id}"


class RuleResult(models.Model):
    """How one rule fared in a check run; `report` lists its failing and erroring checks with reasons."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="rule_results")
    rule = models.ForeignKey(
        "workspace.Rule", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    name = models.CharField(max_length=200)
    status = models.CharField(max_length=16)  # passed | failed | error | not_applicable
    checks = models.PositiveIntegerField(default=0)
    passed = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    not_applicable = models.PositiveIntegerField(default=0)
    errors = models.PositiveIntegerField(default=0)
    report = models.JSONField(default=dict)

    class Meta:
        ordering = ("name", "id")

    def __str__(self) -> str:
        return f"{self.name}: {self.status}"


class SecurityAttempt(models.Model):
    """One attempt of a security campaign, stored the moment it was judged (engine.security.AttemptRecord)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="security_attempts")
    attack = models.CharField(max_length=64)  # the strategy
    attack_id = models.CharField(max_length=100)  # its label in the campaign
    index = models.PositiveIntegerField()
    delivery = models.CharField(max_length=16)
    state = models.CharField(max_length=200, blank=True, default="")  # TRACER's functionality attacked from
    verdict = models.CharField(max_length=16)  # breached | resisted | inconclusive | error
    because = models.TextField(blank=True)
    record = models.JSONField()
    duration_s = models.FloatField(null=True)
    cost_usd = models.FloatField(null=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("id",)
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(
                fields=["run", "attack_id", "state", "index"], name="attempt_once_per_run_and_state"
            ),
        ]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["run", "verdict"], name="attempt_verdict")
        ]

    def __str__(self) -> str:
        return f"{self.attack_id} #{self.index} of run {self.run_id}: {self.verdict}"


class TranscriptUpload(models.Model):
    """A transcript file a project's owner sends in chunks (runs.http.transcripts); what it remembers between chunks
    is the engine's `ChunkState` (format, CSV header, counts) — never a conversation's text."""

    class Status(models.TextChoices):
        RECEIVING = "receiving"
        DONE = "done"
        FAILED = "failed"

    project = models.ForeignKey(
        "workspace.Project", on_delete=models.CASCADE, related_name="transcript_uploads"
    )
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=200)
    size = models.BigIntegerField()  # declared by the client, for the progress bar and the size cap
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RECEIVING)
    state = models.JSONField(default=dict)  # engine.transcripts.chunks.ChunkState
    chunks = models.PositiveIntegerField(default=0)
    offset = models.BigIntegerField(default=0)  # bytes of the file read so far (the next chunk starts here)
    conversations = models.PositiveIntegerField(default=0)
    problems = models.JSONField(default=list)  # the first ones, masked (engine.transcripts.Problem)
    problems_total = models.PositiveIntegerField(default=0)
    errors = models.PositiveIntegerField(default=0)
    warnings = models.PositiveIntegerField(default=0)
    masked = models.JSONField(default=dict)  # masked occurrences by kind
    message = models.TextField(blank=True)  # why it failed
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-created_at", "-id")

    def __str__(self) -> str:
        return f"{self.name} ({self.status})"


class ImportedConversation(models.Model):
    """One production conversation of a project, masked before it was stored (engine.transcripts.Conversation)."""

    project = models.ForeignKey(
        "workspace.Project", on_delete=models.CASCADE, related_name="imported_conversations"
    )
    upload = models.ForeignKey(
        TranscriptUpload, on_delete=models.CASCADE, related_name="conversations_stored"
    )
    number = models.PositiveIntegerField()  # 1, 2, … in the project, in the order they were imported
    record = models.JSONField()
    turns = models.PositiveIntegerField(default=0)
    user_turns = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ("number",)
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["project", "number"], name="imported_conversation_number"),
        ]

    def __str__(self) -> str:
        return f"conversation {self.number} of project {self.project_id}"
