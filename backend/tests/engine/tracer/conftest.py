"""Shared fixtures of the TRACER tests: an in-process connector over the reference bots, a scripted LLM client,
the imperfect double's client, and — for plumbing tests only — a script derived from a bot's ground truth."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from engine.bots import manifest, open_bot
from engine.bots.runtime import BotRuntime
from engine.connectors import BotReply, Button, Connector
from engine.egress import EgressGuard
from engine.llm import LLMClient, ProviderConfig, RetryPolicy
from engine.llm.offline import ScriptedChatModel
from engine.llm.offline.imperfect import ImperfectChatModel, Responder
from engine.llm.offline.tracer import TracerDouble
from engine.tracer import TracerConfig, TracerDeps

TODAY = date(2026, 3, 2)


class BotConnector(Connector):
    """A reference bot behind the connector contract, in process (what the `demo` technology will do)."""

    technology = "demo"

    def __init__(self, bot_id: str) -> None:
        self.bot_id = bot_id
        self.runtime: BotRuntime | None = None
        self.conversations = 0
        self.sent: list[str] = []
        self.buttons: list[str] = []
        """Every choice the bot offered, in order (what an explorer could have seen)."""

    def new_conversation(self) -> None:
        self.conversations += 1
        self.runtime = open_bot(self.bot_id, conversation_id=f"c{self.conversations}", today=TODAY)
        self._greeting = self.runtime.start()

    def greeting(self) -> BotReply | None:
        if self.runtime is None:
            self.new_conversation()
        if not self._greeting.messages:
            return None
        self.buttons += [b for b in self._greeting.buttons if b not in self.buttons]
        return BotReply(
            messages=self._greeting.messages, buttons=[Button(label=b) for b in self._greeting.buttons]
        )

    def send(self, text: str) -> BotReply:
        if self.runtime is None:
            self.new_conversation()
        assert self.runtime is not None
        self.sent.append(text)
        reply = self.runtime.reply(text)
        self.buttons += [b for b in reply.buttons if b not in self.buttons]
        return BotReply(messages=reply.messages, buttons=[Button(label=b) for b in reply.buttons])


class FailingConnector(BotConnector):
    """Raises when the conversation number `fail_at` is opened (simulates a crash in the middle of a run)."""

    def __init__(self, bot_id: str, fail_at: int) -> None:
        super().__init__(bot_id)
        self.fail_at = fail_at

    def new_conversation(self) -> None:
        if self.conversations + 1 == self.fail_at:
            raise RuntimeError("simulated crash")
        super().new_conversation()


def scripted_client(script: dict[str, Any]) -> tuple[LLMClient, ScriptedChatModel]:
    model = ScriptedChatModel(script)
    client = LLMClient(
        ProviderConfig("openai", api_key="sk-test", model="gpt-4o-mini"),
        guard=EgressGuard(),
        chat_model=model,
    )
    return client, model


def imperfect_client(
    double: TracerDouble, *, overrides: dict[str, Responder] | None = None, retry: RetryPolicy | None = None
) -> tuple[LLMClient, ImperfectChatModel]:
    """A client over the imperfect double (no ground truth: it reads the prompts)."""
    model = double.chat_model(overrides=overrides)
    client = LLMClient(
        ProviderConfig("openai", api_key="sk-test", model="gpt-4o-mini"),
        guard=EgressGuard(),
        chat_model=model,
        retry=retry,
    )
    return client, model


def make_deps(
    client: LLMClient, connector: Connector, config: TracerConfig | None = None, **kwargs: Any
) -> TracerDeps:
    return TracerDeps(
        llm=client,
        connector=connector,
        config=config or TracerConfig(),
        clock=lambda: 1_772_400_000.0,
        **kwargs,
    )


@pytest.fixture
def checkpointer() -> InMemorySaver:
    return InMemorySaver()


def ground_truth_script(bot_id: str) -> dict[str, Any]:
    """A script for a whole run against `bot_id` that HANDS THE ENGINE THE ANSWER: the explorer walks the
    menu, extraction reports every module of the ground truth (with its enum inputs as options), the workflow
    links modules to the entry menu and makes the last module a join, two profiles cover everything. For
    plumbing tests only (named `test_plumbing_*`); quality tests use the imperfect double."""
    m = manifest(bot_id)
    modules = list(m.modules)
    functionalities = []
    for name, kind in m.modules.items():
        parameters = [
            {"name": i.slot, "description": f"the {i.slot.replace('_', ' ')}", "options": list(i.values)}
            for i in m.inputs
            if i.module == name
        ]
        outputs = (
            [{"name": f"{name}_answer", "description": f"what the {kind} {name} tells"}]
            if kind in ("faq", "action")
            else []
        )
        functionalities.append(
            {
                "name": name,
                "description": f"{kind} step {name} of {m.name}",
                "parameters": parameters,
                "outputs": outputs,
            }
        )
    explorer_lines: list[str] = []
    for titles in m.menu_items.values():
        explorer_lines += list(titles)
    for i in m.inputs:
        explorer_lines += list(i.values[:1])
    entry = m.entry
    others = [name for name in modules if name != entry]
    join = others[-1]
    nodes = [{"name": entry, "parents": [], "category": "Chatbot meta"}]
    for name in others:
        parents = [entry]
        if name == join:
            parents = [entry, others[-2]]
        if name == others[0]:
            parents = [entry, "ghost_step"]  # unknown: must be dropped with a warning
        nodes.append(
            {
                "name": name,
                "parents": parents,
                "category": "Tasks" if m.modules[name] != "faq" else "questions",
            }
        )
    profile = {
        "goals": ["Ask for the available {{choice}} options", "Pick {{ choice }} and finish the task"],
        "variables": [{"name": "choice", "source": "DS1", "out_of_range": "something unusual"}],
        "context": ["You are in a hurry.", "You have used the service before."],
        "outputs": [{"name": "confirmation", "type": "string", "description": "the final confirmation text"}],
    }
    return whole_run_script([*explorer_lines, *explorer_lines], functionalities, nodes, profile)


def whole_run_script(
    explorer: list[str],
    functionalities: list[dict[str, Any]],
    nodes: list[dict[str, Any]],
    profile: dict[str, Any],
) -> dict[str, Any]:
    """A whole TRACER run's script: the explorer says `explorer`, the first extraction finds `functionalities`,
    the workflow is `nodes`, the functionalities with parameters go to a "Task user" and the others to a "Curious
    user", and every profile is written as `profile`."""
    with_inputs = [f["name"] for f in functionalities if f["parameters"]]
    rest = [f["name"] for f in functionalities if not f["parameters"]]
    return {
        "tracer.probe": {"json": {"languages": ["English"], "fallback": None}},
        "tracer.explore": explorer,
        "tracer.extract": [{"json": {"functionalities": functionalities}}, {"json": {"functionalities": []}}],
        "tracer.consolidate": {"json": {"verdicts": []}},
        "tracer.fallback": {"json": {"is_fallback": True}},
        "tracer.classify": {"json": {"chatbot_type": "transactional"}},
        "tracer.workflow": {"json": {"nodes": nodes}},
        "tracer.group": {
            "json": {
                "profiles": [
                    {
                        "name": "Task user",
                        "role": "A customer who completes a task.",
                        "functionalities": with_inputs,
                    },
                    {"name": "Curious user", "role": "A customer with questions.", "functionalities": rest},
                ]
            }
        },
        "tracer.profiles": {"json": profile},
    }


ScenarioFactory = Callable[[str], dict[str, Any]]
