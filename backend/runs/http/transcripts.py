"""The Transcripts page's API: a project's production conversations, uploaded in chunks and masked on arrival.

- `POST /api/projects/{id}/transcripts/uploads/` `{name, size}` opens an upload;
  `POST …/uploads/{upload}/chunks/?offset=N[&final=true]` sends the file's bytes from N as the raw body (at most
  `MAX_CHUNK_BYTES`, cut after a line break). Each chunk is read and masked by the engine
  (`engine.transcripts.chunks`) before anything is stored: only masked conversations and masked problems reach
  the database. The answer says where the next chunk starts (the end of the chunk, less the rows of a
  conversation that may go on), and lists the chunk's malformed records by line; the rest is kept.
- `GET /api/projects/{id}/transcripts/`: counts, uploads, the masking rules (their examples masked now), a sample
  of stored conversations and the measures of the real users. `DELETE` forgets every imported conversation.
- `POST …/transcripts/calibrate/`: the calibrated user, stored as the project personality `calibrated-user` with
  its measured parameters (SENSEI runs enforce them, runs.worker.execution).
- `GET …/transcripts/fidelity/`: real users against the latest SENSEI run without and the latest with
  `calibrated_user`.

Production conversations are the owner's alone, in a public project too: every door is owner-only (404 for anyone
else, 401 without a login). Uploads are throttled per user and capped in size.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import transaction
from django.db.models import Sum
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import UserRateThrottle
from rest_framework.views import APIView

from common.requests import PayloadTooLarge
from engine.sensei.calibration import CALIBRATED, calibrated_personality
from engine.transcripts import TranscriptError
from engine.transcripts.chunks import MAX_CHUNK_BYTES, ChunkState, import_chunk
from engine.transcripts.measures import measure
from engine.transcripts.report import (
    FidelityReport,
    MaskingRule,
    MeasureSummary,
    TranscriptConversation,
    TranscriptDocument,
    TranscriptProblem,
    fidelity,
    masking_rules,
    summary_of,
    turn_pairs,
)
from runs.http.compare import ComparisonSchema
from runs.models import Conversation, ImportedConversation, Run, TranscriptUpload
from runs.selectors import imported_conversations
from workspace.models import Personality, Project
from workspace.permissions import writable_projects
from workspace.validation import validate_personality

SAMPLE_SIZE = 5
MAX_LISTED_PROBLEMS = 200  # kept per upload; the rest are counted


class TranscriptDocumentSchema(ComparisonSchema):
    """The Transcripts page's pydantic documents in the generated client, as the comparison's are."""

    target_class = "engine.transcripts.report.TranscriptDocument"


class TranscriptThrottle(UserRateThrottle):
    scope = "transcripts"


def _owned_project(request: Request, project_id: int) -> Project:
    return get_object_or_404(writable_projects(request.user), pk=project_id)


def max_upload_bytes() -> int:
    return int(getattr(settings, "PARLEY_TRANSCRIPT_MAX_BYTES", 200 * 1024 * 1024))


# -- uploads ----------------------------------------------------------------------------------------------------
class UploadRequest(serializers.Serializer[Any]):
    name = serializers.CharField(max_length=200)
    size = serializers.IntegerField(min_value=1)


class UploadDocument(TranscriptDocument):
    id: int
    name: str
    size: int
    status: str  # receiving | done | failed
    format: str | None = None
    chunks: int
    offset: int  # bytes of the file read so far: the next chunk starts here
    conversations: int
    problems: list[TranscriptProblem]  # the first ones, masked, with the file's line numbers
    problems_total: int
    errors: int
    warnings: int
    masked: dict[str, int]
    message: str  # why the upload failed
    chunk_bytes: int  # the most bytes one chunk may carry
    created_at: datetime


def upload_document(upload: TranscriptUpload) -> dict[str, Any]:
    return upload_model(upload).model_dump(mode="json")


def upload_model(upload: TranscriptUpload) -> UploadDocument:
    return UploadDocument(
        id=upload.pk,
        name=upload.name,
        size=upload.size,
        status=upload.status,
        format=upload.state.get("format"),
        chunks=upload.chunks,
        offset=upload.offset,
        conversations=upload.conversations,
        problems=[TranscriptProblem.model_validate(p) for p in upload.problems],
        problems_total=upload.problems_total,
        errors=upload.errors,
        warnings=upload.warnings,
        masked=upload.masked,
        message=upload.message,
        chunk_bytes=MAX_CHUNK_BYTES,
        created_at=upload.created_at,
    )


class UploadsView(APIView):
    throttle_classes = (TranscriptThrottle,)

    @extend_schema(request=UploadRequest, responses={201: UploadDocument}, summary="Open a transcript upload")
    def post(self, request: Request, project_id: int) -> Response:
        project = _owned_project(request, project_id)
        body = UploadRequest(data=request.data)
        body.is_valid(raise_exception=True)
        size, cap = body.validated_data["size"], max_upload_bytes()
        if size > cap:
            raise PayloadTooLarge(f"The file is larger than {cap:,} bytes, the most one upload may hold.")
        name = body.validated_data["name"]
        upload = TranscriptUpload.objects.create(
            project=project,
            owner=request.user,
            name=name,
            size=size,
            state=ChunkState(name=name, limit=_room_left(project)).model_dump(mode="json"),
        )
        return Response(upload_document(upload), status=status.HTTP_201_CREATED)


def _room_left(project: Project) -> int:
    from engine.transcripts import MAX_CONVERSATIONS

    return max(0, MAX_CONVERSATIONS - ImportedConversation.objects.filter(project=project).count())


class ChunkView(APIView):
    """The raw bytes of one chunk; parsers are not used (the body is read as it is)."""

    throttle_classes = (TranscriptThrottle,)
    parser_classes = ()

    @extend_schema(
        request={"application/octet-stream": {"type": "string", "format": "binary"}},
        parameters=[
            OpenApiParameter(
                "offset", int, required=True, description="Where in the file this chunk starts."
            ),
            OpenApiParameter("final", bool, required=False, description="The chunk ends the file."),
        ],
        responses=UploadDocument,
        summary="Send one chunk of a transcript file: it is read and masked before anything is stored",
    )
    def post(self, request: Request, project_id: int, upload_id: int) -> Response:
        project = _owned_project(request, project_id)
        offset = _int_param(request, "offset")
        final = request.query_params.get("final", "false").lower() in {"1", "true", "yes"}
        declared = _int_param(request, "length", request.META.get("CONTENT_LENGTH") or 0)
        if declared > MAX_CHUNK_BYTES:
            raise PayloadTooLarge(f"A chunk holds at most {MAX_CHUNK_BYTES:,} bytes.")
        try:
            data = request._request.body
        except RequestDataTooBig:
            raise PayloadTooLarge(f"A chunk holds at most {MAX_CHUNK_BYTES:,} bytes.") from None
        if len(data) > MAX_CHUNK_BYTES:
            raise PayloadTooLarge(f"A chunk holds at most {MAX_CHUNK_BYTES:,} bytes.")
        with transaction.atomic():
            upload = get_object_or_404(
                TranscriptUpload.objects.select_for_update(), pk=upload_id, project=project
            )
            if upload.status != TranscriptUpload.Status.RECEIVING:
                raise exceptions.ValidationError(
                    {"upload": [f"This upload is {upload.status}: start a new one."]}
                )
            if offset != upload.offset:
                raise exceptions.ValidationError(
                    {"offset": [f"The next chunk starts at byte {upload.offset}, not {offset}."]},
                    code="offset",
                )
            if offset + len(data) > min(upload.size, max_upload_bytes()):
                raise PayloadTooLarge("The chunk goes past the end of the file declared for this upload.")
            _store_chunk(project, upload, data, final)
        return Response(upload_document(upload))


def _int_param(request: Request, name: str, default: Any = None) -> int:
    value = request.query_params.get(name, default)
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise exceptions.ValidationError({name: ["A whole number of bytes is required."]}) from None
    if number < 0:
        raise exceptions.ValidationError({name: ["A whole number of bytes is required."]})
    return number


def _store_chunk(project: Project, upload: TranscriptUpload, data: bytes, final: bool) -> None:
    """Mask the chunk with the engine, then store what it gave (masked); the upload row moves on."""
    state = ChunkState.model_validate(upload.state)
    try:
        outcome = import_chunk(data, state, final=final)
    except TranscriptError as exc:
        upload.status, upload.message = TranscriptUpload.Status.FAILED, exc.user_message
        upload.save(update_fields=["status", "message", "updated_at"])
        raise exceptions.ValidationError({"file": [exc.user_message]}, code="transcript_unusable") from None
    Project.objects.select_for_update().filter(
        pk=project.pk
    ).first()  # numbers are taken one upload at a time
    last = ImportedConversation.objects.filter(project=project).order_by("-number").first()
    number = last.number if last else 0
    rows = []
    masked = dict(upload.masked)
    for conversation in outcome.conversations:
        number += 1
        rows.append(
            ImportedConversation(
                project=project,
                upload=upload,
                number=number,
                record=conversation.model_dump(mode="json", exclude_none=True),
                turns=len(conversation.turns),
                user_turns=sum(turn.role == "user" for turn in conversation.turns),
            )
        )
        for kind, count in conversation.masked.items():
            masked[kind] = masked.get(kind, 0) + count
    ImportedConversation.objects.bulk_create(rows)
    upload.state = state.model_dump(mode="json")
    upload.chunks += 1
    upload.offset += len(data) - outcome.held_back_bytes
    upload.conversations += len(rows)
    room = MAX_LISTED_PROBLEMS - len(upload.problems)
    upload.problems = [
        *upload.problems,
        *(p.model_dump(mode="json") for p in outcome.problems[: max(0, room)]),
    ]
    upload.problems_total += outcome.problems_total
    upload.errors += outcome.errors
    upload.warnings += outcome.warnings
    upload.masked = dict(sorted(masked.items()))
    if final:
        upload.status = TranscriptUpload.Status.DONE
    upload.save()


# -- the page's overview ----------------------------------------------------------------------------------------
class TranscriptsOverview(TranscriptDocument):
    conversations: int
    turns: int
    user_turns: int
    uploads: list[UploadDocument]
    rules: list[MaskingRule]  # each example masked now, by the code the import runs
    sample: list[TranscriptConversation]  # the first conversations as stored (masked)
    measures: MeasureSummary | None = None  # the real users'; None before any import
    calibrated_personality: int | None = None  # the project personality `calibrated-user`, when it exists


class OverviewView(APIView):
    throttle_classes = (TranscriptThrottle,)

    @extend_schema(
        responses=TranscriptsOverview,
        summary="The project's imported conversations: counts, masking rules, a sample, the real users' measures",
    )
    def get(self, request: Request, project_id: int) -> Response:
        project = _owned_project(request, project_id)
        rows = ImportedConversation.objects.filter(project=project)
        totals = rows.aggregate(turns=Sum("turns"), user_turns=Sum("user_turns"))
        conversations = imported_conversations(project.pk)
        personality = project.personalities.filter(name=CALIBRATED).values_list("pk", flat=True).first()
        overview = TranscriptsOverview(
            conversations=len(conversations),
            turns=totals["turns"] or 0,
            user_turns=totals["user_turns"] or 0,
            uploads=[upload_model(upload) for upload in project.transcript_uploads.all()[:20]],
            rules=masking_rules(),
            sample=[TranscriptConversation.of(c) for c in conversations[:SAMPLE_SIZE]],
            measures=summary_of(measure(turn_pairs(conversations))) if conversations else None,
            calibrated_personality=personality,
        )
        return Response(overview.model_dump(mode="json"))

    @extend_schema(responses={204: None}, summary="Forget every imported conversation of the project")
    def delete(self, request: Request, project_id: int) -> Response:
        project = _owned_project(request, project_id)
        project.transcript_uploads.all().delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


# -- calibration and fidelity -----------------------------------------------------------------------------------
class CalibrationDocument(TranscriptDocument):
    personality: int  # the project personality that carries the calibrated user
    name: str
    leave_after: int  # fallbacks in a row after which the simulated user leaves (0: never)
    measures: MeasureSummary  # of the real users it copies


class CalibrateView(APIView):
    throttle_classes = (TranscriptThrottle,)

    @extend_schema(request=None, responses=CalibrationDocument, summary="Calibrate a simulated user")
    def post(self, request: Request, project_id: int) -> Response:
        import yaml

        project = _owned_project(request, project_id)
        conversations = imported_conversations(project.pk)
        measured = measure(turn_pairs(conversations))
        if not measured.conversations:
            raise exceptions.ValidationError(
                {"transcripts": ["No imported conversation has a user message: upload transcripts first."]}
            )
        personality = calibrated_personality(measured)
        document = {
            "name": personality.name,
            "context": list(personality.context),
            "parameters": dict(personality.parameters or {}),
            "measures": measured.summary(),
            "source": f"transcripts: {measured.conversations} conversations",
        }
        text = "# A simulated user calibrated to real users, generated from transcripts\n" + yaml.safe_dump(
            document, sort_keys=False, allow_unicode=True
        )
        checked = validate_personality(text)
        stored, _ = Personality.objects.update_or_create(
            project=project,
            name=personality.name,
            defaults={
                "text": text,
                "valid": checked.valid,
                "problems": checked.problems,
                "warnings": checked.warnings,
            },
        )
        answer = CalibrationDocument(
            personality=stored.pk,
            name=stored.name,
            leave_after=int(document["parameters"].get("leave_after", 0)),
            measures=summary_of(measured),
        )
        return Response(answer.model_dump(mode="json"))


def _latest_sensei(project: Project, *, calibrated: bool) -> tuple[int, Any] | None:
    runs = Run.objects.filter(project=project, kind=Run.Kind.SENSEI, status=Run.Status.SUCCEEDED)
    # A run that names no calibrated user has no such key at all (a JSON-null filter would never match it).
    with_user = runs.filter(input__has_key="calibrated_user")
    runs = with_user if calibrated else runs.exclude(pk__in=with_user.values("pk"))
    run = runs.order_by("-finished_at", "-id").first()
    if run is None:
        return None
    records = Conversation.objects.filter(run=run).values_list("record", flat=True)
    pairs = [[(turn["role"], turn["text"]) for turn in record.get("turns", [])] for record in records]
    return run.pk, measure(pairs)


class FidelityView(APIView):
    throttle_classes = (TranscriptThrottle,)

    @extend_schema(responses=FidelityReport, summary="Simulated users against the real ones, per measure")
    def get(self, request: Request, project_id: int) -> Response:
        project = _owned_project(request, project_id)
        real = measure(turn_pairs(imported_conversations(project.pk)))
        report = fidelity(
            real, _latest_sensei(project, calibrated=False), _latest_sensei(project, calibrated=True)
        )
        return Response(report.model_dump(mode="json"))
