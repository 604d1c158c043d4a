"""What the API accepts in a request, checked before any view sees it.

`GuardedJSONParser` is the API's one JSON parser: a body over the size limit is a 413, nesting deeper than
`MAX_DEPTH` or a string holding a NUL or a lone surrogate (which PostgreSQL cannot store and no client means to
send) is a 400 that names where it is. `HostileQueryMiddleware` does the same for query strings. Both answer
with the API's one error shape.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from rest_framework import exceptions, status
from rest_framework.parsers import JSONParser

MAX_DEPTH = 64
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "payload_too_large"


def too_large_message() -> str:
    return f"The request body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes."


def unstorable(text: str) -> str | None:
    """Why `text` cannot be stored ("a NUL character", "a lone surrogate"), or None when it can."""
    found = _UNSTORABLE.search(text)
    if found is None:
        return None
    return "a NUL character" if found.group() == "\x00" else "a lone surrogate (broken UTF-16)"


def hostile_value(data: Any) -> str | None:
    """The first problem in parsed JSON — too deep, or an unstorable string — as a sentence naming its path."""
    pending: list[tuple[str, Any, int]] = [("body", data, 0)]
    while pending:
        path, value, depth = pending.pop()
        if depth > MAX_DEPTH:
            return f"The JSON nests values more than {MAX_DEPTH} levels deep."
        if isinstance(value, str):
            if why := unstorable(value):
                return f"{path} contains {why}."
        elif isinstance(value, Mapping):
            for key, inner in value.items():
                if why := unstorable(str(key)):
                    return f"A key in {path} contains {why}."
                pending.append((f"{path}.{key}", inner, depth + 1))
        elif isinstance(value, list):
            pending += [(f"{path}[{index}]", inner, depth + 1) for index, inner in enumerate(value)]
    return None


class GuardedJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        request = (parser_context or {}).get("request")
        length = int(request.META.get("CONTENT_LENGTH") or 0) if request is not None else 0
        if length > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
            raise PayloadTooLarge(too_large_message())
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError(f"The JSON nests values more than {MAX_DEPTH} levels deep.") from None
        if problem := hostile_value(data):
            raise exceptions.ParseError(problem)
        return data


class HostileQueryMiddleware:
    """Refuse API query strings and paths that hold a NUL (a 400 in the API's shape, not a database error)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/"):
            for name, values in request.GET.lists():
                for value in [name, *values]:
                    if why := unstorable(value):
                        return JsonResponse(
                            {"detail": f"The query parameter {name!r} contains {why}.", "code": "invalid"},
                            status=status.HTTP_400_BAD_REQUEST,
                        )
            if why := unstorable(request.path):
                return JsonResponse(
                    {"detail": f"The address contains {why}.", "code": "invalid"},
                    status=status.HTTP_400_BAD_REQUEST,
                )
        return self.get_response(request)
