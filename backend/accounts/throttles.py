"""Rate limits for the login-like endpoints, keyed by the client address nginx forwards.

Counters live in the default cache (the database cache), so every gunicorn worker sees the same counts. The
client is the last X-Forwarded-For entry only when the request comes from a trusted proxy (nginx); a client that
reaches gunicorn directly cannot choose its own address by sending the header.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView


def _trusted(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    for entry in settings.TRUSTED_PROXIES:
        try:
            if ip in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False


def client_address(meta: dict[str, Any]) -> str:
    """The address to count a request against (a Django request's META)."""
    remote = str(meta.get("REMOTE_ADDR") or "")
    forwarded = [
        part.strip() for part in str(meta.get("HTTP_X_FORWARDED_FOR") or "").split(",") if part.strip()
    ]
    if forwarded and settings.REST_FRAMEWORK.get("NUM_PROXIES") != 0 and _trusted(remote):
        return forwarded[-1]  # what nginx appended: the address that connected to it
    return remote


class _ClientAddressThrottle(SimpleRateThrottle):
    def get_ident(self, request: Request) -> str:
        return client_address(request.META)

    def get_cache_key(self, request: Request, view: APIView) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class LoginThrottle(_ClientAddressThrottle):
    scope = "login"


class SignupThrottle(_ClientAddressThrottle):
    scope = "signup"


class ResumeThrottle(_ClientAddressThrottle):
    """Keep me signed in: trading the remember cookie for a tab token is counted per address, like a login."""

    scope = "resume"


class PasswordChangeThrottle(_ClientAddressThrottle):
    """Per account and per address: a stolen token cannot guess the password from many addresses either."""

    scope = "password"

    def get_cache_key(self, request: Request, view: APIView) -> str:
        return self.cache_format % {"scope": self.scope, "ident": f"user-{request.user.pk}"}


class AddressPasswordChangeThrottle(_ClientAddressThrottle):
    scope = "password"


def throttled_form_login(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A Django (non-DRF) login view, such as the admin's, with the API's login limit on its POSTs."""

    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method == "POST":
            throttle = LoginThrottle()
            if not throttle.allow_request(Request(request), None):  # type: ignore[arg-type]
                wait = throttle.wait()
                response = JsonResponse(
                    {"detail": "Too many login attempts; try again later.", "code": "throttled"}, status=429
                )
                if wait:
                    response["Retry-After"] = str(int(wait) + 1)
                return response
        return view(request, *args, **kwargs)

    return wrapped
