"""Serving the built SPA from Django, for machines where `make run` found no nginx.

nginx is the normal way (nginx/nginx.conf). This fallback returns index.html for client-side routes, with the
same security headers nginx would add; whitenoise serves the hashed assets next to it.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from parley.security_headers import CONTENT_SECURITY_POLICY


def index(request: HttpRequest, path: str = "") -> HttpResponse:
    index_file = settings.SPA_DIST_DIR / "index.html"
    if not index_file.is_file():
        return HttpResponse(
            "The web application is not built yet: run `make run` (or `npm run build` in frontend/).",
            status=503,
            content_type="text/plain; charset=utf-8",
        )
    response = HttpResponse(index_file.read_bytes(), content_type="text/html; charset=utf-8")
    response["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response["Cache-Control"] = "no-cache"
    return response
