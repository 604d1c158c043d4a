"""ASGI entry point: the live-update streams (/api/stream/, runs/streams.py), served by uvicorn.

nginx sends only /api/stream/ here; every other request goes to gunicorn (parley/wsgi.py). The application is
the same Django project either way, so the streams see the same settings, authentication and permissions.
"""

import os

from django.core.asgi import get_asgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parley.settings")
application = get_asgi_application()
# Import every view now, as parley/wsgi.py does, so the first stream does not wait for the imports.
get_resolver().url_patterns  # noqa: B018
