"""TRACER's LLM-call budget, measured: a full run over HTTP against the fake OpenAI-compatible server and a
reference bot (in process), checked against the targets of issue 8.

    cd backend && .venv/bin/python benchmarks/tracer_calls.py [--bot pizza] [--sessions 10] [--turns 8] [--json]

Targets (s sessions, n turns, k = 3 functionalities per session):
- LLM calls per explorer turn (explorer + rewrite + fallback checks) ≤ 1.3;
- consolidation calls ≤ 2 x functionalities;
- exploration calls ≤ 0.5 x (3 + s·(3n + 2k)), and refinement + profile calls ≤ 30.
The fake server answers from a script derived from the bot's ground truth: the explorer walks the bot's menus
and values, each extraction reports three functionalities (renamed on later sessions, so that near-duplicates
reach the consolidation), the LLM says in every consolidation call that functionality [2] is the same as [1]
(a merge when [1] was among its candidates). Exit 1 when a target is missed. Duplicates left with an imperfect
LLM are measured by `tracer_duplicates.py`.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import uuid
from datetime import date
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from engine.bots import manifest, open_bot
from engine.bots.runtime import BotRuntime
from engine.connectors import BotReply, Button, Connector
from engine.egress import EgressGuard, EgressPolicy
from engine.llm import LLMClient, ProviderConfig, UsageLedger
from engine.llm.offline.server import running_fake_server
from engine.tracer import TracerConfig, TracerDeps, TracerJob, run_tracer

K = 3
EXPLORATION_STEPS = ("probe", "explore", "rewrite", "fallback", "extract")


class InProcessBot(Connector):
    technology = "demo"

    def __init__(self, bot_id: str) -> None:
        self.bot_id = bot_id
        self.runtime: BotRuntime | None = None
        self.opening = BotReply()

    def new_conversation(self) -> None:
        self.runtime = open_bot(self.bot_id, conversation_id=str(uuid.uuid4()), today=date(2026, 3, 2))
        reply = self.runtime.start()
        self.opening = BotReply(messages=reply.messages, buttons=[Button(label=b) for b in reply.buttons])

    def greeting(self) -> BotReply | None:
        if self.runtime is None:
            self.new_conversation()
        return self.opening if self.opening.messages else None

    def send(self, text: str) -> BotReply:
        if self.runtime is None:
            self.new_conversation()
        assert self.runtime is not None
        reply = self.runtime.reply(text)
        return BotReply(messages=reply.messages, buttons=[Button(label=b) for b in reply.buttons])


def script_for(bot_id: str, sessions: int) -> dict[str, Any]:
    truth = manifest(bot_id)
    modules = list(truth.modules)
    lines: list[str] = [title for titles in truth.menu_items.values() for title in titles]
    lines += [value for info in truth.inputs for value in info.values[:2]]

    def node(module: str, renamed: bool) -> dict[str, Any]:
        parameters = [
            {"name": i.slot, "description": f"the {i.slot}", "options": list(i.values)}
            for i in truth.inputs
            if i.module == module
        ]
        name = f"handle_{module}" if renamed else module
        return {
            "name": name,
            "description": f"Handles the {module.replace('_', ' ')} step.",
            "parameters": parameters,
        }

    extractions = []
    for session in range(sessions):
        chosen = [modules[(session * K + i) % len(modules)] for i in range(K)]
        extractions.append({"json": {"functionalities": [node(m, renamed=session % 2 == 1) for m in chosen]}})
    return {
        "tracer.probe": {"json": {"languages": ["English"], "fallback": None}},
        "tracer.explore": lines * (sessions * 2),
        "tracer.extract": extractions,
        "tracer.fallback": {"json": {"is_fallback": False}},
        "tracer.consolidate": {"json": {"verdicts": [{"item": 2, "same_as": 1, "description": ""}]}},
        "tracer.classify": {"json": {"chatbot_type": "transactional"}},
    }


def measure(bot_id: str, sessions: int, turns: int) -> dict[str, Any]:
    guard = EgressGuard(EgressPolicy.parse("127.0.0.1"))
    with running_fake_server(script_for(bot_id, sessions)) as server, tempfile.TemporaryDirectory() as out:
        provider = ProviderConfig("openai-compatible", base_url=server.base_url, model="fake-model")
        with LLMClient(provider, guard=guard, ledger=UsageLedger()) as llm:
            started = time.monotonic()
            result = run_tracer(
                TracerJob(
                    TracerConfig(sessions=sessions, turns=turns, output_dir=Path(out)),
                    TracerDeps(llm=llm, connector=InProcessBot(bot_id)),
                    run_id="bench",
                    checkpointer=InMemorySaver(),
                )
            )
            elapsed = time.monotonic() - started
        http_requests = len(server.requests)
    by_tag = result.usage["calls_by_tag"]

    def calls(*steps: str) -> int:
        return sum(by_tag.get(f"tracer.{step}", 0) for step in steps)

    explorer_turns = sum(1 for t in result.transcripts for turn in t["turns"] if turn["role"] == "explorer")
    extracted = calls("extract") * K
    exploration_calls = calls(*EXPLORATION_STEPS)
    refinement_and_profiles = result.usage["calls"] - exploration_calls - calls("consolidate")
    exploration_budget = 0.5 * (3 + sessions * (3 * turns + 2 * K))
    per_turn = calls("explore", "rewrite", "fallback") / max(explorer_turns, 1)
    report = {
        "bot": bot_id,
        "sessions": sessions,
        "turns": turns,
        "explorer_turns": explorer_turns,
        "calls_total": result.usage["calls"],
        "http_requests": http_requests,
        "calls_by_tag": by_tag,
        "calls_per_explorer_turn": round(per_turn, 3),
        "consolidation_calls": calls("consolidate"),
        "functionalities_extracted": extracted,
        "functionalities_final": len(result.model.functionalities),
        "exploration_calls_incl_consolidation": exploration_calls + calls("consolidate"),
        "exploration_budget": exploration_budget,
        "refinement_and_profile_calls": refinement_and_profiles,
        "valid_profiles": len(result.valid_profiles),
        "seconds": round(elapsed, 2),
    }
    report["targets"] = {
        "calls_per_explorer_turn <= 1.3": per_turn <= 1.3,
        "consolidation_calls <= 2 x final functionalities": calls("consolidate")
        <= 2 * len(result.model.functionalities),
        "exploration (incl. consolidation) <= 0.5 x (3 + s(3n + 2k))": exploration_calls
        + calls("consolidate")
        <= exploration_budget,
        "refinement + profiles <= 30": refinement_and_profiles <= 30,
        "total <= budget + 30": result.usage["calls"] <= exploration_budget + 30,
    }
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--bot", default="pizza")
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--turns", type=int, default=8)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = measure(args.bot, args.sessions, args.turns)
    if args.json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        for key, value in report.items():
            if key != "targets":
                sys.stdout.write(f"{key:40} {value}\n")
        for target, met in report["targets"].items():
            sys.stdout.write(f"{'OK  ' if met else 'MISS'} {target}\n")
    return 0 if all(report["targets"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
