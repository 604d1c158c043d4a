"""Project-level views over runs: the model diff between two TRACER runs, and a project's YAML documents in bulk —
exported as one zip (`profiles/`, `rules/`, `campaigns/`, `personalities/`) and imported from one (that layout, a
TRACER output folder or SENSEI project folders).

An import stores profiles, rules and personalities as an upload does, valid or not; a security campaign must be
valid, since a campaign run starts from it as it is: one invalid campaign refuses the whole archive with its file
and line, and nothing of it is stored. Profiles name personalities, so a personality keeps its name: the same
text again is skipped, a different text under a taken name refuses the archive.
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from runs.models import Artefact, Run
from workspace import visibility
from workspace.models import Campaign, Personality, Profile, Rule
from workspace.permissions import readable_projects, writable_projects
from workspace.validation import (
    Validation,
    validate_campaign,
    validate_personality,
    validate_profile,
    validate_rule,
)

MAX_ENTRIES = 500
MAX_UNCOMPRESSED = 20 * 1024 * 1024


def _functionalities(run: Run) -> dict[str, dict[str, Any]]:
    artefact = Artefact.objects.filter(run=run, name=Artefact.Name.MODEL).first()
    if artefact is None:
        raise exceptions.ValidationError({"run": [f"Run {run.pk} has no model (did it finish?)."]})
    return {item["name"]: item for item in artefact.content.get("functionalities", [])}


def _shape(functionality: dict[str, Any]) -> dict[str, Any]:
    """What counts as a change: description, parameters with options, outputs, parents."""
    return {
        "description": functionality.get("description"),
        "parameters": sorted(
            (p.get("name"), tuple(sorted(map(str, p.get("options") or []))))
            for p in functionality.get("parameters", [])
        ),
        "outputs": sorted(o.get("name") for o in functionality.get("outputs", [])),
        "parents": sorted(functionality.get("parents", [])),
    }


class FunctionalityShapeSerializer(serializers.Serializer[Any]):
    """What of a functionality a model diff compares (`_shape`)."""

    description = serializers.CharField(allow_null=True)
    parameters = serializers.ListField(
        child=serializers.JSONField(), help_text="[name, [options…]] of each parameter, sorted."
    )
    outputs = serializers.ListField(child=serializers.CharField())
    parents = serializers.ListField(child=serializers.CharField())


class ChangedFunctionalitySerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    before = FunctionalityShapeSerializer()
    after = FunctionalityShapeSerializer()


class ImportedFileSerializer(serializers.Serializer[Any]):
    file = serializers.CharField()
    valid = serializers.BooleanField()


class SkippedFileSerializer(serializers.Serializer[Any]):
    file = serializers.CharField()
    why = serializers.CharField()


class ModelDiffView(APIView):
    permission_classes = (AllowAny,)  # readable_projects decides

    @extend_schema(
        parameters=[OpenApiParameter("from", int, required=True), OpenApiParameter("to", int, required=True)],
        responses=inline_serializer(
            "ModelDiff",
            {
                "from": serializers.IntegerField(),
                "to": serializers.IntegerField(),
                "added": serializers.ListField(child=serializers.CharField()),
                "removed": serializers.ListField(child=serializers.CharField()),
                "changed": ChangedFunctionalitySerializer(many=True),
                "unchanged": serializers.IntegerField(),
            },
        ),
        summary="Functionalities added, removed and changed between two TRACER runs of the project",
    )
    def get(self, request: Request, project_id: str) -> Response:
        project = get_object_or_404(readable_projects(request.user), pk=project_id)
        try:
            ids = [int(request.query_params[name]) for name in ("from", "to")]
        except (KeyError, ValueError):
            raise exceptions.ValidationError(
                {"from": ["Give two TRACER run ids: ?from=<run>&to=<run>."]}
            ) from None
        runs = [get_object_or_404(Run, pk=i, project=project, kind=Run.Kind.TRACER) for i in ids]
        before, after = (_functionalities(run) for run in runs)
        changed = [
            {"name": name, "before": _shape(before[name]), "after": _shape(after[name])}
            for name in sorted(before.keys() & after.keys())
            if _shape(before[name]) != _shape(after[name])
        ]
        return Response(
            visibility.for_projects(request.user, project).data(
                {
                    "from": ids[0],
                    "to": ids[1],
                    "added": sorted(after.keys() - before.keys()),
                    "removed": sorted(before.keys() - after.keys()),
                    "changed": changed,
                    "unchanged": len(before.keys() & after.keys()) - len(changed),
                }
            )
        )


def _yaml_entries(archive: zipfile.ZipFile) -> list[tuple[str, str]]:
    """Read the archive's YAML files in memory, refusing what could escape or explode."""
    infos = archive.infolist()
    if len(infos) > MAX_ENTRIES:
        raise exceptions.ValidationError({"file": [f"The archive has more than {MAX_ENTRIES} entries."]})
    if sum(info.file_size for info in infos) > MAX_UNCOMPRESSED:
        raise exceptions.ValidationError({"file": ["The archive unpacks to more than 20 MB."]})
    entries = []
    for info in infos:
        name = info.filename
        is_link = (info.external_attr >> 16) & 0o170000 == 0o120000
        if "\x00" in name:
            raise exceptions.ValidationError(
                {"file": ["Refused an entry whose name contains a NUL character."]}
            )
        if name.startswith("/") or ".." in name.split("/") or is_link:
            raise exceptions.ValidationError(
                {"file": [f"Refused entry {name!r} (absolute path, '..' or a link)."]}
            )
        if info.is_dir() or not name.lower().endswith((".yml", ".yaml")) or "__report__" in name:
            continue
        try:
            text = archive.read(info).decode("utf-8")
        except UnicodeDecodeError:
            raise exceptions.ValidationError({"file": [f"{name} is not UTF-8 text."]}) from None
        if "\x00" in text:
            raise exceptions.ValidationError({"file": [f"{name} contains a NUL character."]})
        entries.append((name, text))
    return entries


class ImportView(APIView):
    parser_classes = (MultiPartParser,)

    @extend_schema(
        request={
            "multipart/form-data": {
                "type": "object",
                "properties": {"file": {"type": "string", "format": "binary"}},
            }
        },
        responses={
            201: inline_serializer(
                "ProjectImport",
                {
                    **{
                        kind: ImportedFileSerializer(many=True)
                        for kind in ("profiles", "rules", "campaigns", "personalities")
                    },
                    "skipped": SkippedFileSerializer(many=True),
                },
            )
        },
        summary="Import a zip of profiles, rules, security campaigns and personalities (a project export, a "
        "TRACER output folder or SENSEI project folders); an invalid campaign, or a personality that would "
        "replace another of the same name, refuses the whole archive",
    )
    def post(self, request: Request, project_id: str) -> Response:
        project = get_object_or_404(readable_projects(request.user), pk=project_id)
        if not writable_projects(request.user).filter(pk=project.pk).exists():
            raise exceptions.PermissionDenied("Only the owner can import into this project.")
        upload = request.FILES.get("file")
        if upload is None:
            raise exceptions.ValidationError({"file": ["Attach a .zip file."]})
        try:
            with zipfile.ZipFile(io.BytesIO(upload.read())) as archive:
                entries = _yaml_entries(archive)
        except zipfile.BadZipFile:
            raise exceptions.ValidationError({"file": ["This is not a zip archive."]}) from None
        imported: dict[str, list[dict[str, Any]]] = {kind: [] for kind in (*MODELS, "skipped")}
        documents: list[tuple[str, str, str, Validation]] = []  # (kind, file, text, validation)
        for name, text in entries:
            kind = _kind_of(name, text)
            if kind is None:
                imported["skipped"].append(
                    {"file": name, "why": "neither a profile, a rule, a campaign nor a personality"}
                )
                continue
            checked = VALIDATORS[kind](text)
            if kind == "campaigns" and not checked.valid:
                raise exceptions.ValidationError({"file": [_first_error(name, checked)]})
            documents.append((kind, name, text, checked))
        documents = _personalities_once(project, documents, imported["skipped"])
        with transaction.atomic():
            for kind, name, text, checked in documents:
                MODELS[kind].objects.create(
                    project=project,
                    name=_document_name(name, checked),
                    text=text,
                    valid=checked.valid,
                    problems=checked.problems,
                    warnings=checked.warnings,
                )
                imported[kind].append({"file": name, "valid": checked.valid})
        return Response(imported, status=status.HTTP_201_CREATED)


VALIDATORS = {
    "profiles": validate_profile,
    "rules": validate_rule,
    "campaigns": validate_campaign,
    "personalities": validate_personality,
}
MODELS: dict[str, Any] = {
    "profiles": Profile,
    "rules": Rule,
    "campaigns": Campaign,
    "personalities": Personality,
}
_TOP_LEVEL_ATTACKS = re.compile(r"^attacks\s*:", re.MULTILINE)


def _kind_of(name: str, text: str) -> str | None:
    """Which document a YAML file of an archive is: by its folder first, else by what it says."""
    lowered = f"/{name.lower()}"
    file_name = lowered.rsplit("/", 1)[-1]
    if "/campaigns/" in lowered or file_name in ("security.yml", "security.yaml"):
        return "campaigns"
    if "/personalities/" in lowered:
        return "personalities"
    if "/rules/" in lowered:
        return "rules"
    if "/profiles/" in lowered:
        return "profiles"
    if _TOP_LEVEL_ATTACKS.search(text):
        return "campaigns"
    if text.lstrip().startswith(("name:", "description:")) and "oracle" in text:
        return "rules"
    if "test_name" in text:
        return "profiles"
    return None


def _document_name(file: str, checked: Validation) -> str:
    return (checked.name or file.rsplit("/", 1)[-1].rsplit(".", 1)[0])[:200]


def _personalities_once(
    project: Any, documents: list[tuple[str, str, str, Validation]], skipped: list[dict[str, Any]]
) -> list[tuple[str, str, str, Validation]]:
    """Profiles name personalities, so a personality keeps its name: one the project already has word for word is
    skipped; one that would replace a different text of the same name refuses the whole archive."""
    existing = dict(Personality.objects.filter(project=project).values_list("name", "text"))
    kept = []
    for kind, file, text, checked in documents:
        name = _document_name(file, checked)
        if kind == "personalities" and name in existing:
            if existing[name] != text:
                why = f"the project already has a different personality named '{name}'; rename one of them."
                raise exceptions.ValidationError({"file": [f"{file}: {why} Nothing was imported."]})
            skipped.append({"file": file, "why": f"the project already has the personality '{name}'"})
            continue
        if kind == "personalities":
            existing[name] = text
        kept.append((kind, file, text, checked))
    return kept


def _first_error(name: str, checked: Validation) -> str:
    problem = next((p for p in checked.problems if p["severity"] == "error"), None)
    if problem is None:
        return f"{name}: not a valid campaign; nothing was imported."
    where = f"{name}, line {problem['line']}" if problem.get("line") else name
    return f"{where}: {problem['message']} Nothing was imported."


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _file_names(names: list[str]) -> list[str]:
    """Safe, distinct file names for documents (names are free text and need not be unique)."""
    taken: set[str] = set()
    result = []
    for name in names:
        stem = _UNSAFE.sub("_", name).strip("._")[:100] or "untitled"
        candidate, number = stem, 1
        while candidate.lower() in taken:
            number += 1
            candidate = f"{stem}-{number}"
        taken.add(candidate.lower())
        result.append(f"{candidate}.yaml")
    return result


class ExportView(APIView):
    """/api/projects/{id}/export/: the project's profiles, rules, campaigns and personalities as one zip, the
    layout the import reads back."""

    permission_classes = (AllowAny,)  # readable_projects decides

    @extend_schema(
        responses={(200, "application/zip"): OpenApiTypes.BINARY},
        summary="Export the project's profiles, rules, security campaigns and personalities as a zip (the "
        "import reads it back)",
    )
    def get(self, request: Request, project_id: str) -> HttpResponse:
        project = get_object_or_404(readable_projects(request.user), pk=project_id)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for folder, model in MODELS.items():
                rows = list(model.objects.filter(project=project).order_by("name", "id"))
                for row, file_name in zip(rows, _file_names([r.name for r in rows]), strict=True):
                    archive.writestr(f"{folder}/{file_name}", row.text)
        response = HttpResponse(buffer.getvalue(), content_type="application/zip")
        response["Content-Disposition"] = f'attachment; filename="parley-project-{project.pk}.zip"'
        return response
