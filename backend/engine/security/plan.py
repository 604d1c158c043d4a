"""What a campaign will do before it runs: its attempts, the LLM calls they may make, and a cost ceiling.

The estimate counts the calls each attempt can make at most (a task, a rewording, warm-up turns, escalation
turns, one judge call per judged reply) at typical sizes; oracles that decide in code often spare the judge, so
the real cost is usually lower.

From TRACER's states every attack runs from every state: the attempts multiply by the states, each attempt
replays its state's recorded prefix (chatbot messages, no LLM call), and the plan lists the attempts per state.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.llm import PriceTable
from engine.security.campaign import AttackSpec, Campaign
from engine.security.catalogue import (
    STRATEGIES,
    attempt_rng,
    builtin_task,
    compose,
    default_oracles,
    task_kind,
)
from engine.security.states import State

# Typical prompt and completion tokens of each kind of call.
CALL_TOKENS = {
    "task": (350, 80),
    "rephrase": (300, 150),
    "warmup": (450, 60),
    "escalate": (700, 120),
    "judge": (650, 90),
}
_JUDGING = ("domain", "judge", "policy", "leakage")


@dataclass
class PlannedAttack:
    attack_id: str
    attack: str
    delivery: str
    attempts: int
    oracles: list[str]
    calls: dict[str, int]  # per kind of call, for all attempts, at most
    written_by_llm: bool
    example: str  # the first attempt's message as written without a model

    def to_json(self) -> dict[str, Any]:
        return self.__dict__.copy()


@dataclass
class PlannedState:
    name: str
    prefix_messages: int  # user messages replayed before every attack from it
    attempts: int

    def to_json(self) -> dict[str, Any]:
        return self.__dict__.copy()


@dataclass
class CampaignPlan:
    attacks: list[PlannedAttack] = field(default_factory=list)
    model: str | None = None
    estimated_cost_usd: float | None = None
    seed: int = 0
    states: list[PlannedState] | None = None  # None: from the first turn
    left_out: list[str] = field(default_factory=list)  # states named but not attackable, and why

    @property
    def attempts(self) -> int:
        return sum(a.attempts for a in self.attacks)

    @property
    def calls(self) -> int:
        return sum(sum(a.calls.values()) for a in self.attacks)

    @property
    def prefix_messages(self) -> int:
        """Chatbot messages spent replaying prefixes over the whole campaign (no LLM call among them)."""
        return sum(s.prefix_messages * s.attempts for s in self.states or [])

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "attempts": self.attempts,
            "llm_calls_at_most": self.calls,
            "model": self.model,
            "estimated_cost_usd": self.estimated_cost_usd,
            "attacks": [a.to_json() for a in self.attacks],
            **(
                {
                    "states": [s.to_json() for s in self.states],
                    "prefix_messages": self.prefix_messages,
                    "left_out": self.left_out,
                }
                if self.states is not None
                else {}
            ),
        }


def _calls(
    campaign: Campaign, attack: AttackSpec, oracles: Sequence[str], with_model: bool
) -> dict[str, int]:
    if not with_model:
        return {}
    attempts = campaign.attempts_of(attack)
    delivery = attack.delivery
    replies = delivery.max_turns if delivery.mode == "escalation" else 1
    calls = {
        "task": attempts
        if task_kind(attack) and not attack.tasks and STRATEGIES[attack.name].written_by_llm
        else 0,
        "rephrase": attempts if attack.rephrase else 0,
        "warmup": attempts * delivery.warmup_turns if delivery.mode == "simulated_user" else 0,
        "escalate": attempts * (replies - 1),
        "judge": attempts * replies * sum(1 for o in oracles if o in _JUDGING),
    }
    return {kind: count for kind, count in calls.items() if count}


def plan_campaign(
    campaign: Campaign,
    *,
    seed: int | None = None,
    model: str | None = None,
    with_model: bool = True,
    states: Sequence[State] | None = None,
    left_out: Sequence[str] = (),
) -> CampaignPlan:
    """The campaign's attempts and, with a priced `model`, the most its LLM calls may cost; from `states`, every
    attack once per state."""
    chosen = campaign.seed if campaign.seed is not None else seed
    seed_value = chosen if chosen is not None else random.SystemRandom().randrange(2**31)
    plan = CampaignPlan(model=model, seed=seed_value, left_out=list(left_out))
    times = 1
    if states is not None:
        per_state = sum(campaign.attempts_of(a) for a in campaign.enabled_attacks)
        plan.states = [PlannedState(s.name, len(s.prefix), per_state) for s in states]
        times = len(states)
    for attack in campaign.enabled_attacks:
        rng = attempt_rng(seed_value, attack, 0)
        kind = task_kind(attack)
        message = compose(attack, 0, rng, builtin_task(kind, rng) if kind else None, "template")
        oracles: list[str] = [spec.kind for spec in default_oracles(campaign, attack, message)]
        plan.attacks.append(
            PlannedAttack(
                attack_id=attack.label,
                attack=attack.name,
                delivery=attack.delivery.mode,
                attempts=campaign.attempts_of(attack) * times,
                oracles=oracles,
                calls={k: n * times for k, n in _calls(campaign, attack, oracles, with_model).items()},
                written_by_llm=with_model and STRATEGIES[attack.name].written_by_llm and not attack.tasks,
                example=message.text,
            )
        )
    price = PriceTable.default().for_model(model) if model else None
    if price is not None:
        total = 0.0
        for planned in plan.attacks:
            for call, count in planned.calls.items():
                prompt, completion = CALL_TOKENS[call]
                total += count * price.cost(prompt, completion)
        plan.estimated_cost_usd = round(total, 4)
    elif not with_model or plan.calls == 0:
        plan.estimated_cost_usd = 0.0
    return plan
