"""The secrets a run knows, as the one scrubber (engine.redact) that every writer of the run passes text through.

A chatbot may echo a connector's own token in an error page, a provider its API key; either would then sit in
events, conversation records, artefacts and failure messages — and a public project shows those to anyone (what a visitor's view hides besides is
workspace.visibility's). Built in the worker (the only place secrets are decrypted), once per run.
"""

from __future__ import annotations

import logging

from accounts.models import LLMKey
from engine.json_value import strings_in
from engine.redact import Scrubber
from runs.models import Run
from workspace.models import Connector

logger = logging.getLogger(__name__)


def run_scrubber(run_id: int) -> Scrubber:
    """Every secret the run may meet: its project's LLM key and connector secrets, or the key or connector a
    short job tests. Never raises: a run whose secrets cannot be read is scrubbed of none (and says so)."""
    try:
        run = Run.objects.select_related("project__llm_key", "project__connector").get(pk=run_id)
        keys: list[LLMKey] = []
        connectors: list[Connector] = []
        if run.project is not None:
            keys += [run.project.llm_key] if run.project.llm_key is not None else []
            connectors.append(run.project.connector)
        if key_id := run.input.get("key_id"):
            keys += list(LLMKey.objects.filter(pk=key_id, owner_id=run.owner_id))
        if connector_id := run.input.get("connector_id"):
            connectors += list(Connector.objects.filter(pk=connector_id, owner_id=run.owner_id))
        secrets = [key.reveal() for key in keys]
        for connector in connectors:
            secrets += list(strings_in(connector.reveal_secrets()))
        return Scrubber(*secrets)
    except Exception:
        logger.exception("Could not read the secrets of run %s; its output is not scrubbed", run_id)
        return Scrubber()
