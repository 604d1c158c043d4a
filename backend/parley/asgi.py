"""ASGI entry point: the live-update streams (/api/stream/, runs/http/streams.py), served by uvicorn.

nginx sends only /api/stream/ here; every other request goes to gunicorn (parley/wsgi.py). Without nginx, `make
run` lets uvicorn answer everything. The application is the same Django project either way, so the streams see
the same settings, authentication and permissions.
"""

import os

from django.core.asgi import get_asgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parley.settings")
django_application = get_asgi_application()
# Import every view now, as parley/wsgi.py does, so the first stream does not wait for the imports.
get_resolver().url_patterns  # noqa: B018

STREAMS = "/api/stream/"


async def application(scope, receive, send):
    """Django's ASGI handler; a stream skips its per-request thread. Django gives each request a thread of its own
    for synchronous code (the middleware), kept until the response ends: a stream would park one for as long as
    it stays open. A stream's synchronous work is a few microseconds of middleware (its database reads run on
    runs.http.streams' own pool), so streams share asgiref's one thread instead; other requests keep their own."""
    if scope["type"] == "http" and scope["path"].startswith(STREAMS):
        await django_application.handle(scope, receive, send)
    else:
        await django_application(scope, receive, send)
