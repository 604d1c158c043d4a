"""Account operations that more than one endpoint needs."""

from __future__ import annotations

from typing import Any

from knox.models import AuthToken

from accounts.models import RememberToken, User
from accounts.serializers import UserSerializer


def open_session(user: User) -> dict[str, Any]:
    """Issue a new per-device token; the plain token is returned once and only its hash is stored."""
    instance, token = AuthToken.objects.create(user)
    return {"token": token, "expiry": instance.expiry, "user": UserSerializer(user).data}


def close_all_sessions(user: User) -> int:
    """Revoke every token of the user: each tab's knox token and each browser's "keep me signed in"."""
    deleted, _ = AuthToken.objects.filter(user=user).delete()
    RememberToken.objects.filter(user=user).delete()
    return deleted
