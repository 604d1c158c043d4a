"""WSGI entry point for gunicorn."""

import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parley.settings")
application = get_wsgi_application()
# Import every view (and the engines behind them) now: with gunicorn --preload this happens once, before the
# workers fork, instead of making each worker's first request wait for it.
get_resolver().url_patterns  # noqa: B018
