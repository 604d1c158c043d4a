"""One error shape for the whole API: {"detail": str, "code": str, "fields"?: {name: [message, ...]}}.

`detail` is a sentence a user can read; `code` is stable for programs; `fields` appears only for validation
errors and maps each field (or "non_field_errors") to its messages. Unexpected exceptions become a JSON 500
with a generic sentence — the traceback goes to the log, never to the client.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db import DataError, IntegrityError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views.defaults import page_not_found
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from common.requests import PayloadTooLarge, too_large_message

logger = logging.getLogger(__name__)


def _flatten(detail: Any) -> dict[str, list[str]] | list[str]:
    """ValidationError details nest lists and dicts; the client wants strings per field."""
    if isinstance(detail, dict):
        return {str(key): _messages(value) for key, value in detail.items()}
    return _messages(detail)


def _messages(value: Any) -> list[str]:
    if isinstance(value, list | tuple):
        out: list[str] = []
        for item in value:
            out.extend(_messages(item))
        return out
    if isinstance(value, dict):
        return [f"{key}: {message}" for key, inner in value.items() for message in _messages(inner)]
    return [str(value)]


def _validation_body(exc: exceptions.ValidationError) -> dict[str, Any]:
    flat = _flatten(exc.detail)
    if isinstance(flat, list):
        return {"detail": " ".join(flat) or "The request is invalid.", "code": "invalid"}
    non_field = flat.pop("non_field_errors", [])
    if non_field and not flat:
        return {"detail": " ".join(non_field), "code": _first_code(exc), "fields": {}}
    first = next(iter(flat.items()), None)
    summary = " ".join(non_field) or (first[1][0] if first and first[1] else "The request is invalid.")
    body: dict[str, Any] = {"detail": summary, "code": "invalid", "fields": flat}
    if non_field:
        body["fields"]["non_field_errors"] = non_field
    return body


def _first_code(exc: exceptions.ValidationError) -> str:
    codes = exc.get_codes()
    while isinstance(codes, dict | list):
        if isinstance(codes, dict):
            codes = next(iter(codes.values()), "invalid")
        else:
            codes = codes[0] if codes else "invalid"
    return str(codes)


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"
    default_detail = "This conflicts with something that already exists; a name must be unique, for example."


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge(too_large_message())
    elif isinstance(exc, IntegrityError):
        # A safety net: serializers check uniqueness first, so this is a race or a check we missed.
        logger.warning("Integrity error in %s: %s", context.get("view").__class__.__name__, exc)
        exc = Conflict()
    elif isinstance(exc, DataError):
        logger.warning("Data error in %s: %s", context.get("view").__class__.__name__, exc)
        exc = exceptions.ValidationError("A value could not be stored (a NUL character, or out of range).")

    response = drf_exception_handler(exc, context)
    if response is None:
        logger.exception("Unhandled error in %s", context.get("view").__class__.__name__, exc_info=exc)
        return Response(
            {"detail": "Something went wrong on our side. The error was logged.", "code": "server_error"},
            status=status.HTTP_500_INTERNAL_SERVER_ERROR,
        )

    if isinstance(exc, exceptions.ValidationError):
        response.data = _validation_body(exc)
    elif isinstance(exc, exceptions.Throttled):
        wait = exc.wait
        seconds = f" Try again in {int(wait) + 1} seconds." if wait is not None else " Try again later."
        response.data = {"detail": "Too many attempts." + seconds, "code": "throttled"}
    elif isinstance(exc, exceptions.APIException):
        detail = exc.detail
        text = " ".join(_messages(detail)) if not isinstance(detail, str) else str(detail)
        code = exc.get_codes()
        response.data = {"detail": text, "code": code if isinstance(code, str) else exc.default_code}
    return response


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's 404 handler: JSON in the API's shape under /api/, Django's own page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse(
            {"detail": "There is nothing at this address.", "code": "not_found"},
            status=status.HTTP_404_NOT_FOUND,
        )
    return page_not_found(request, exception or Http404())
