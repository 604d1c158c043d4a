"""The bench on the imperfect LLM doubles: figures that can fail, reproducible offline, labelled as fake.

`engine.llm.offline.tracer` and `engine.llm.offline.sensei` read the prompts as a competent but imperfect model
would (paraphrases, casing, omissions, bogus items, sloppy closings) and are given no ground truth, so the bench's
figures on them measure Parley's machinery, not a real model. `parley bench --double imperfect` uses them; every
figure is then labelled with `NOTE`. No judge model exists here: functionalities are matched by the lexical
matcher, labelled an approximation.
"""

from __future__ import annotations

from typing import Any

from engine.egress import EgressGuard, EgressPolicy
from engine.evaluation.config import BenchConfig, LLMFactory
from engine.llm import LLMClient, ProviderConfig, RetryPolicy, UsageLedger
from engine.llm.offline.sensei import SenseiDouble
from engine.llm.offline.tracer import TracerDouble

PROVIDER = "imperfect-double"
MODEL = "imperfect-tracer+sensei"
NOTE = "fake LLM: Parley's imperfect LLM doubles, not a real model"
_BASE_URL = "http://127.0.0.1:9/v1"  # never contacted: the doubles answer in process


def imperfect_factory(seed: int = 0) -> LLMFactory:
    """An `llm_factory` giving each role a fresh client on the imperfect double of its engine."""

    def factory(role: str) -> LLMClient:
        kind = role.split(":", 1)[0]
        double: Any = TracerDouble(seed=seed) if kind == "tracer" else SenseiDouble(seed=seed)
        return LLMClient(
            ProviderConfig("openai-compatible", base_url=_BASE_URL, model=MODEL),
            guard=EgressGuard(EgressPolicy.parse("127.0.0.1")),
            chat_model=double.chat_model(),
            ledger=UsageLedger(),
            retry=RetryPolicy(
                max_attempts=2, initial_delay_s=0.0, max_delay_s=0.0, jitter_s=0.0, max_total_s=5
            ),
        )

    return factory


def double_config(**settings: Any) -> BenchConfig:
    """A `BenchConfig` labelled as measured on the doubles, with the lexical matcher."""
    return BenchConfig(
        **{**settings, "provider": PROVIDER, "model": MODEL, "llm_note": NOTE, "matcher": "lexical"}
    )
