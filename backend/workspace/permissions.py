"""The one permission policy of the workspace, applied in querysets and on every action.

- Owners: full access to their own objects.
- Anyone (anonymous included): read-only access to public projects and their profiles, rules and
  personalities. Keys and connectors are never public.
- Everyone else: the object does not exist for them (404), so private names and ids do not leak.

Who sees what of a readable project (owner or visitor) is workspace.visibility's, the one policy every door asks.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView

from workspace import visibility
from workspace.models import Project


def readable_projects(user: Any) -> QuerySet[Project]:
    return Project.objects.filter(visibility.readable(user))


def writable_projects(user: Any) -> QuerySet[Project]:
    if user is not None and user.is_authenticated:
        return Project.objects.filter(owner=user)
    return Project.objects.none()


class PublicReadOwnerWrite(BasePermission):
    """Reads pass here (querysets decide what exists); writes need a logged-in owner."""

    message = "Only the owner can change this project."

    def has_permission(self, request: Request, view: APIView) -> bool:
        return request.method in SAFE_METHODS or bool(request.user and request.user.is_authenticated)

    def has_object_permission(self, request: Request, view: APIView, obj: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        project = obj if isinstance(obj, Project) else obj.project
        return bool(project.owner_id == request.user.pk)
