"""A model qualification's plan on one of the user's keys: its candidates by name, their prices and the estimate
shown before it starts — what the start dialog (runs.http.qualify_views) and the worker (runs.worker.qualifying)
both read, the same figures `parley qualify` prints first."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from accounts.models import LLMKey
from engine.evaluation.qualify import choose_partner
from engine.evaluation.qualify_plan import SIZES, Candidate, Estimate, Thresholds, estimate, parse_candidates
from engine.llm import PriceTable

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
