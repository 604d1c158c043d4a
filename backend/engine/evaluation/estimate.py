"""What a bench will cost, before it runs: `estimate_bench(config, price) -> CostEstimate`.

The number of SENSEI conversations depends on the profiles TRACER will write, unknown before it runs, so the
estimate assumes `CONVERSATIONS_PER_RUN` per run of the profiles; everything else is counted from the
configuration (bots, sessions x turns, repeats, the mutants the seeded draw selects, controls). The per-turn
and per-conversation token figures were measured on the bench's own runs (`doubles`, prompt characters / 4)
and rounded up; completions are set higher than the doubles write, as real models say more. `upper_usd` doubles
the estimate for bots whose profiles ask for many conversations. The CLI prints this first and refuses to start
when it exceeds `--max-cost`; the run's budget then enforces the limit call by call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.evaluation.config import BenchConfig
from engine.llm import Price

TRACER_CALLS_PER_TURN = 1.5
TRACER_PROMPT_PER_TURN = 900
TRACER_COMPLETION_PER_TURN = 150
TRACER_FIXED = (20, 30_000, 6_000)
"""Calls, prompt and completion tokens of one TRACER run besides its turns (workflow, grouping, profiles)."""
JUDGE = (1, 4_000, 2_000)
"""One judge call per bot (the `llm` matcher)."""
CONVERSATIONS_PER_RUN = 30
SENSEI_PER_CONVERSATION = (12, 6_000, 400)
"""Calls, prompt and completion tokens of one SENSEI conversation (user turns, goal checks, extraction)."""


@dataclass
class CostEstimate:
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    """None when the model has no price."""
    upper_usd: float | None
    conversations: int
    assumptions: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": self.cost_usd,
            "upper_usd": self.upper_usd,
            "conversations": self.conversations,
            "assumptions": self.assumptions,
        }

    def describe(self, model: str | None) -> str:
        what = (
            f"about {self.calls:,} LLM calls, {self.prompt_tokens:,} + {self.completion_tokens:,} tokens, "
            f"{self.conversations:,} SENSEI conversations"
        )
        if self.cost_usd is None:
            return f"Estimate: {what}; no price is known for {model or 'this model'}, so no cost."
        return (
            f"Estimate: {what}; about ${self.cost_usd:.2f} with {model or 'this model'} "
            f"(up to ${self.upper_usd:.2f} if the profiles ask for twice as many conversations)."
        )


def estimate_bench(config: BenchConfig, price: Price | None, mutants: dict[str, int]) -> CostEstimate:
    """`mutants`: bot → number of mutants that will run (the seeded draw, without the stillborn ones)."""
    calls = prompt = completion = 0.0
    conversations = 0
    turns = config.sessions * config.turns
    for bot in config.bots:
        calls += TRACER_FIXED[0] + TRACER_CALLS_PER_TURN * turns
        prompt += TRACER_FIXED[1] + TRACER_PROMPT_PER_TURN * turns
        completion += TRACER_FIXED[2] + TRACER_COMPLETION_PER_TURN * turns
        if config.matcher == "llm":
            calls, prompt, completion = calls + JUDGE[0], prompt + JUDGE[1], completion + JUDGE[2]
        runs = config.repeats * (1 + mutants.get(bot, 0) + config.controls)
        conversations += runs * CONVERSATIONS_PER_RUN
    calls += conversations * SENSEI_PER_CONVERSATION[0]
    prompt += conversations * SENSEI_PER_CONVERSATION[1]
    completion += conversations * SENSEI_PER_CONVERSATION[2]
    cost = price.cost(int(prompt), int(completion)) if price is not None else None
    return CostEstimate(
        calls=int(calls),
        prompt_tokens=int(prompt),
        completion_tokens=int(completion),
        cost_usd=round(cost, 4) if cost is not None else None,
        upper_usd=round(2 * cost, 4) if cost is not None else None,
        conversations=conversations,
        assumptions=[
            f"{CONVERSATIONS_PER_RUN} conversations per run of the profiles (TRACER writes them; unknown before)",
            f"{SENSEI_PER_CONVERSATION[1]:,} prompt and {SENSEI_PER_CONVERSATION[2]} completion tokens a conversation",
            f"{TRACER_PROMPT_PER_TURN} prompt and {TRACER_COMPLETION_PER_TURN} completion tokens a TRACER turn",
        ],
    )
