"""Model qualification on the platform: a `qualify` run on one of the user's LLM keys, executed by the worker
through the engine's `qualify()` — the function `parley qualify` calls, so both give the same figures for the
same seed (tests/test_qualify_runs.py).

The candidates are the key's models by name (`gpt-4.1-mini`: the key's provider and base URL) or Parley's
offline doubles (`double:imperfect`, `double:loose-json`, `double:perfect`). The run's input keeps the key,
the names, the size, the seed and the thresholds; its result is the engine's `QualifyResult` plus the ids of the
conversations behind every false alarm and missed mutant, stored with the run so the page can link them.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from accounts.models import LLMKey
from engine.context import Cancelled, RunContext
from engine.conversation import ConversationRecord
from engine.evaluation.qualify import QualifyJob, choose_partner, qualify, read_reference
from engine.evaluation.qualify_plan import Candidate, Thresholds
from engine.llm import LLMClient, ProviderConfig, ProviderState, UsageLedger
from runs.models import Conversation, Run
from runs.qualify_plans import THRESHOLD_FIELDS, key_candidates, prices_of
from runs.worker import deps
from runs.worker.reporting import recorder_of, run_context


class KeyClients:
    """The key's clients, one provider state per candidate (a refusal is learned once); every call counts in the
    run's usage."""

    def __init__(self, key: LLMKey, context: RunContext) -> None:
        self.key = key
        self.context = context
        self.states: dict[str, ProviderState] = {}
        self.warnings: dict[str, list[str]] = {}

    def make(self, candidate: Candidate) -> LLMClient:
        if candidate.entry not in self.states:
            notes = self.warnings.setdefault(candidate.entry, [])
            self.states[candidate.entry] = ProviderState(on_warning=notes.append)
        config = ProviderConfig(
            self.key.provider,
            api_key=self.key.reveal(),
            model=candidate.model,
            base_url=self.key.base_url or None,
        )
        client = LLMClient(
            config, guard=deps.egress_guard(), ledger=UsageLedger(), state=self.states[candidate.entry]
        )
        self.context.meter(client.ledger)
        return client

    def learned(self, candidate: Candidate) -> list[str]:
        return list(dict.fromkeys(self.warnings.get(candidate.entry, [])))


def _references(result: dict[str, Any]) -> list[str]:
    rows = [*result["models"]]
    if result["recommendation"]:
        rows.append(result["recommendation"]["figures"]["together"])
    refs = (
        ref
        for row in rows
        for ref in (*row["false_alarm_conversations"], *row["missed_mutant_conversations"])
    )
    return list(dict.fromkeys(refs))


def _store_conversations(run: Run, root: Path, result: dict[str, Any]) -> dict[str, int]:
    """The conversations the page links (false alarms, missed mutants), stored with the run: ref → id."""
    ids: dict[str, int] = {}
    for ref in _references(result):
        record = ConversationRecord.model_validate(read_reference(root, ref))
        row = Conversation.objects.create(
            run=run,
            profile=ref[:200],
            index=1,
            record=record.model_dump(mode="json"),
            turns=len(record.turns),
            has_errors=bool(record.errors),
        )
        ids[ref] = row.pk
    return ids


def execute_qualify(run: Run) -> dict[str, Any]:
    key = LLMKey.objects.get(pk=run.input["key_id"], owner=run.owner)
    context = run_context(run.pk)
    recorder = recorder_of(context)
    candidates = key_candidates(key, run.input["models"])
    size = run.input["size"]
    partner = choose_partner(candidates, prices_of(candidates), None)
    thresholds = Thresholds(
        **{k: v for k, v in (run.input.get("thresholds") or {}).items() if k in THRESHOLD_FIELDS}
    )
    recorder.touch(stage="qualifying")
    with tempfile.TemporaryDirectory(prefix="parley-qualify-") as tmp:
        job = QualifyJob(
            candidates,
            size=size,
            seed=run.input["seed"],
            out=Path(tmp),
            partner=partner,
            thresholds=thresholds,
            clients=KeyClients(key, context),
        )
        try:
            result = qualify(job, context)
        except Cancelled:
            recorder.touch(result={})
            raise Cancelled(
                "The run was cancelled; nothing of a qualification is kept before its end."
            ) from None
        Conversation.objects.filter(run=run).delete()  # a re-delivered run stores them once
        result["conversations"] = _store_conversations(run, Path(tmp), result)
    recorder.touch(stage="done")
    return result
