"""Project-level views over runs: the model diff between two TRACER runs, and importing YAML in bulk."""

from __future__ import annotations

import io
import zipfile
from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, status
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from runs.models import Artefact, Run
from workspace.models import Profile, Rule
from workspace.permissions import readable_projects, writable_projects
from workspace.validation import validate_profile, validate_rule

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


class ModelDiffView(APIView):
    permission_classes = (AllowAny,)  # readable_projects decides

    @extend_schema(
        parameters=[OpenApiParameter("from", int, required=True), OpenApiParameter("to", int, required=True)],
        responses={200: OpenApiTypes.OBJECT},
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
            {
                "from": ids[0],
                "to": ids[1],
                "added": sorted(after.keys() - before.keys()),
                "removed": sorted(before.keys() - after.keys()),
                "changed": changed,
                "unchanged": len(before.keys() & after.keys()) - len(changed),
            }
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
        responses={201: OpenApiTypes.OBJECT},
        summary="Import a zip of profiles and rules (a TRACER output folder or SENSEI project folders)",
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
        imported: dict[str, list[dict[str, Any]]] = {"profiles": [], "rules": [], "skipped": []}
        for name, text in entries:
            base = name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
            lowered = f"/{name.lower()}"
            if "/rules/" in lowered or (
                text.lstrip().startswith(("name:", "description:")) and "oracle" in text
            ):
                checked = validate_rule(text)
                Rule.objects.create(
                    project=project,
                    name=(checked.name or base)[:200],
                    text=text,
                    valid=checked.valid,
                    problems=checked.problems,
                    warnings=checked.warnings,
                )
                imported["rules"].append({"file": name, "valid": checked.valid})
            elif "test_name" in text:
                checked = validate_profile(text)
                Profile.objects.create(
                    project=project,
                    name=(checked.name or base)[:200],
                    text=text,
                    valid=checked.valid,
                    problems=checked.problems,
                    warnings=checked.warnings,
                )
                imported["profiles"].append({"file": name, "valid": checked.valid})
            else:
                imported["skipped"].append({"file": name, "why": "neither a profile nor a rule"})
        return Response(imported, status=status.HTTP_201_CREATED)
