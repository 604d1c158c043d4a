"""The Django project: settings from the environment, URL routing, the Celery app and the local launcher."""

from parley.celery import app as celery_app

__all__ = ["celery_app"]
