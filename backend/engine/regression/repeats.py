"""Repeats: each planned conversation run k times with different simulator seeds, to tell flaky from broken.

`Repeats(k).plan` is the hook `SenseiJob.replan` applies to each profile's plan: conversation i of a
plan of n becomes conversations i·k … i·k + k - 1 (the repeats of one conversation sit side by side), with the
same inputs, goals, styles and turn limit. Repeat 0 keeps the planned seed — a run without repeats and repeat 0
of a run with them simulate alike — and repeat r draws its own from the plan's seed, so repeats are
reproducible too. `Repeats(k).tag(record)` writes `settings.planned_index`, `settings.repeat` and
`settings.repeats` on a finished record, which is how a comparison finds the repeats of one conversation.
"""

from __future__ import annotations

import random
from dataclasses import replace

from engine.conversation import ConversationRecord
from engine.sensei.planner import Plan, PlannedConversation
from engine.sensei.profile import Profile

MAX_REPEATS = 20


def repeat_seed(seed: int, repeat: int) -> int:
    """The simulator seed of repeat `repeat` of a conversation planned with `seed` (repeat 0 keeps it)."""
    if repeat == 0:
        return seed
    return random.Random(f"{seed}:repeat:{repeat}").randrange(2**31)  # noqa: S311 - reproducible, not secret


class Repeats:
    """Runs each planned conversation `k` times (see the module docstring)."""

    def __init__(self, k: int) -> None:
        if not 1 <= k <= MAX_REPEATS:
            raise ValueError(f"repeats must be between 1 and {MAX_REPEATS}")
        self.k = k

    def plan(self, profile: Profile, planned: Plan) -> Plan:
        if self.k == 1:
            return planned
        conversations: list[PlannedConversation] = []
        for conversation in planned.conversations:
            conversations += [
                replace(
                    conversation,
                    index=conversation.index * self.k + repeat,
                    seed=repeat_seed(conversation.seed, repeat),
                )
                for repeat in range(self.k)
            ]
        estimate = planned.estimated_cost_usd
        return replace(
            planned,
            conversations=conversations,
            estimated_cost_usd=None if estimate is None else estimate * self.k,
        )

    def tag(self, record: ConversationRecord) -> ConversationRecord:
        if self.k > 1:
            record.settings.planned_index = record.index // self.k
            record.settings.repeat = record.index % self.k
            record.settings.repeats = self.k
        return record
