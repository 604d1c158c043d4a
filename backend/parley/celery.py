"""The Celery application. Configuration comes from Django settings (the CELERY_* names)."""

import os
from pathlib import Path

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parley.settings")

app = Celery("parley")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_after_configure.connect
def _prepare_filesystem_broker(sender: Celery, **_: object) -> None:
    """The embedded broker keeps messages in folders, which must exist before anyone publishes."""
    options = sender.conf.broker_transport_options or {}
    for key in ("data_folder_out", "control_folder", "processed_folder"):
        if key in options:
            Path(options[key]).mkdir(parents=True, exist_ok=True)


@worker_init.connect
def _import_before_forking(**_: object) -> None:
    """Import in the worker's parent what runs import lazily (the OpenAI SDK the LLM gateway sends with, and the
    LangChain core TRACER's graph uses), so the forked pool processes start warm and a user's first run does not
    wait for imports."""
    import langchain_core.language_models  # noqa: F401
    import openai  # noqa: F401

    import runs.worker.tasks  # noqa: F401
