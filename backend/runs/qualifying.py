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
from dataclasses import fields
from pathlib import Path
from typing import Any

from accounts.models import LLMKey
from engine.conversation import ConversationRecord
from engine.evaluation import BenchCancelled
from engine.evaluation.qualify import choose_partner, qualify, read_reference
from engine.evaluation.qualify_plan import SIZES, Candidate, Estimate, Thresholds, estimate, parse_candidates
from engine.llm import LLMClient, PriceTable, ProviderConfig, ProviderState, UsageLedger
from runs import deps
from runs.models import Conversation, Run
from runs.reporting import BenchProgress, RunCancel, RunRecorder

_NO_LOCAL = "http://127.0.0.1:9/v1"  # `local:` names the CLI's `make real-llm` server: not a key's model
_PROVIDERS = ("openai:", "gemini:", "openai-compatible:", "local:")
THRESHOLD_FIELDS = tuple(f.name for f in fields(Thresholds))


def key_candidates(key: LLMKey, names: list[str]) -> list[Candidate]:
    """The key's models by name, or doubles; raises ValueError naming the first name it cannot take."""
    entries: list[str] = []
    for raw in names:
        name = raw.strip()
        if not name or "," in name:
            raise ValueError(f"{raw!r}: a model name, without commas")
        if name.startswith(_PROVIDERS):
            raise ValueError(f"{name!r}: name a model of this key without its provider, or a double:NAME")
        entries.append(name if name.startswith("double:") else f"{key.provider}:{name}")
    return parse_candidates(",".join(entries), base_url=key.base_url or None, local_url=_NO_LOCAL)


def model_name(candidate: Candidate) -> str:
    """The name a project stores for a candidate: the key's model name, or the double's entry."""
    return candidate.entry if candidate.is_double else candidate.model


def prices_of(candidates: list[Candidate]) -> dict[str, Any]:
    table = PriceTable.default()
    return {c.entry: None if c.is_double else table.for_model(c.model) for c in candidates}


def plan_estimate(key: LLMKey, names: list[str], size: str, seed: int) -> tuple[Candidate, Estimate]:
    """(the partner, the estimate) of a qualification; the same figures `parley qualify` prints first."""
    candidates = key_candidates(key, names)
    prices = prices_of(candidates)
    return choose_partner(candidates, prices, None), estimate(candidates, SIZES[size], prices, seed)


class KeyClients:
    """The key's clients, one provider state per candidate (a refusal is learned once); every call counts in the
    run's usage."""

    def __init__(self, key: LLMKey, progress: BenchProgress) -> None:
        self.key = key
        self.progress = progress
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
        client.ledger.subscribe(self.progress.llm_call)
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
    recorder, cancel = RunRecorder(run.pk), RunCancel(run.pk)
    progress = BenchProgress(recorder)
    candidates = key_candidates(key, run.input["models"])
    size = run.input["size"]
    partner = choose_partner(candidates, prices_of(candidates), None)
    thresholds = Thresholds(
        **{k: v for k, v in (run.input.get("thresholds") or {}).items() if k in THRESHOLD_FIELDS}
    )
    recorder.touch(stage="qualifying")
    with tempfile.TemporaryDirectory(prefix="parley-qualify-") as tmp:
        try:
            result = qualify(
                candidates,
                size=size,
                seed=run.input["seed"],
                out=Path(tmp),
                partner=partner,
                thresholds=thresholds,
                clients=KeyClients(key, progress),
                reporter=progress,
                progress=recorder.log,
                cancel=cancel,
            )
        except BenchCancelled:
            recorder.touch(result={})
            from runs.execution import RunCancelled

            raise RunCancelled(
                "The run was cancelled; nothing of a qualification is kept before its end."
            ) from None
        Conversation.objects.filter(run=run).delete()  # a re-delivered run stores them once
        result["conversations"] = _store_conversations(run, Path(tmp), result)
    recorder.touch(stage="done")
    return result
