"""Fixtures of the bench tests: scripted LLM clients whose scripts come from a bot's ground truth.

TRACER's script follows `tests/engine/tracer/conftest.py`: the explorer walks the bot's menus and values, the
extraction reports every module of the manifest with its enum inputs as options, two profiles are grouped.
SENSEI's user plays a fixed 15-message cycle per bot that orders, books and asks FAQ questions, so that a
conversation on the original bot has no finding, and the right mutants are killed for the right reasons.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.bots import manifest
from engine.egress import EgressGuard
from engine.llm import LLMClient, ProviderConfig
from engine.llm.offline import ScriptedChatModel
from tests.engine.tracer.conftest import whole_run_script

USER_CYCLES: dict[str, list[str]] = {
    "pizza": [
        "I want to order a pizza",
        "house pizza",
        "large carbonara",  # margherita costs nothing extra: the "-" mutant would agree with it
        "2",
        "coke",
        "When are you open?",
        "What drinks do you have?",
        "order",
        "build my own",
        "medium with ham, olives, corn and bacon",
        "3 lemonade",
        "How long does an order take?",
        "Do you deliver?",
        "hello",
        "Which pizzas do you have?",
    ],
    "bike": [
        "book an appointment",
        "tune-up",
        "tomorrow",
        "10:00",
        "How much is a new tire?",
        "How much is a new seat?",
        "How should I take care of my bike?",
        "book",
        "repair",
        "tomorrow at 11:00",
        "What are your opening hours?",
        "hello",
        "How much is a tune-up?",
        "Any tips for bike maintenance?",
        "thanks, bye",
    ],
}


def tracer_script(bot_id: str) -> dict[str, Any]:
    m = manifest(bot_id)
    functionalities = [
        {
            "name": name,
            "description": f"{kind} step {name.replace('_', ' ')} of {m.name}",
            "parameters": [
                {"name": i.slot, "description": f"the {i.slot.replace('_', ' ')}", "options": list(i.values)}
                for i in m.inputs
                if i.module == name
            ],
            "outputs": [],
        }
        for name, kind in m.modules.items()
    ]
    explorer = [title for titles in m.menu_items.values() for title in titles]
    explorer += [i.values[0] for i in m.inputs if i.values]
    nodes = [{"name": m.entry, "parents": [], "category": "Meta"}]
    nodes += [
        {"name": name, "parents": [m.entry], "category": "Tasks"} for name in m.modules if name != m.entry
    ]
    profile = {
        # No variable: the scripted user plays a fixed cycle, so it could not convey one (SENSEI would call such
        # a conversation inconclusive). Out-of-range values are tested in test_model_rules.
        "goals": ["Order something and finish the task", "Ask a question about the shop"],
        "variables": [],
        "context": ["You are in a hurry."],
        "outputs": [{"name": "confirmation", "type": "string", "description": "the final confirmation"}],
    }
    return whole_run_script(explorer * 4, functionalities, nodes, profile)


GREETINGS = {"pizza": "Welcome to Slice Station!", "bike": "Welcome to Spoke & Chain!"}
"""What each bot answers "hello" with (in every cycle): the confirmation the extractor reads, a value the
chatbot did state (SENSEI drops an extracted value no chatbot turn states)."""


def sensei_script(bot_id: str) -> dict[str, Any]:
    return {
        "sensei.user_turn": USER_CYCLES[bot_id] * 200,
        "sensei.extract": {"json": {"confirmation": GREETINGS[bot_id]}},
    }


def scripted_client(script: dict[str, Any]) -> LLMClient:
    return LLMClient(
        ProviderConfig("openai", api_key="sk-test", model="gpt-4o-mini"),
        guard=EgressGuard(),
        chat_model=ScriptedChatModel(script),
    )


def bench_factory(roles: list[str]) -> Callable[[str], LLMClient]:
    """An `llm_factory` for `run_bench`: a fresh scripted client per role, each role recorded in `roles`."""

    def factory(role: str) -> LLMClient:
        roles.append(role)
        kind, bot = role.split(":")[:2]
        return scripted_client(tracer_script(bot) if kind == "tracer" else sensei_script(bot))

    return factory
