"""TRACER's duplicate functionalities, measured: full runs against every reference bot (in process) with the
imperfect LLM double, which names the same step with other words from one session to the next and offers no
embedding endpoint. One JSON line.

    cd backend && .venv/bin/python benchmarks/tracer_duplicates.py [--sessions 10] [--turns 8] [--seeds 3]

Per bot and seed: the functionalities of the final model, the distinct steps the double meant by them, the
duplicate pairs left (two nodes for one step) and the over-merged nodes (one node for two steps), with the
LLM calls spent on consolidation. Target (issue 20, D16): 0 duplicate pairs and 0 over-merged nodes on every
bot. Exit 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import date
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from engine.bots import bot_ids, open_bot
from engine.bots.runtime import BotRuntime
from engine.connectors import BotReply, Button, Connector
from engine.egress import EgressGuard
from engine.llm import LLMClient, ProviderConfig
from engine.llm.testing.imperfect_tracer import TracerDouble
from engine.tracer import TracerConfig, TracerDeps, run_tracer


class InProcessBot(Connector):
    technology = "demo"

    def __init__(self, bot_id: str) -> None:
        self.bot_id = bot_id
        self.runtime: BotRuntime | None = None
        self.opening = BotReply()
        self.conversations = 0

    def new_conversation(self) -> None:
        # Numbered conversations: the bot's order ids, and so every run, repeat exactly for one seed.
        self.conversations += 1
        conversation = f"{self.bot_id}-{self.conversations}"
        self.runtime = open_bot(self.bot_id, conversation_id=conversation, today=date(2026, 3, 2))
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


def measure(bot_id: str, sessions: int, turns: int, seed: int) -> dict[str, Any]:
    double = TracerDouble(seed=seed)
    llm = LLMClient(
        ProviderConfig("openai-compatible", base_url="http://127.0.0.1:9/v1", model="imperfect-model"),
        guard=EgressGuard(),
        chat_model=double.chat_model(),
    )
    started = time.monotonic()
    result = run_tracer(
        TracerConfig(sessions=sessions, turns=turns, seed=seed),
        TracerDeps(llm=llm, connector=InProcessBot(bot_id)),
        run_id=f"duplicates-{bot_id}-{seed}",
        checkpointer=InMemorySaver(),
    )
    report = double.duplicate_report((f.name, f.merged_from) for f in result.model.functionalities)
    calls = result.usage["calls_by_tag"]
    return {
        "bot": bot_id,
        "seed": seed,
        **report.to_json(),
        "consolidation_calls": calls.get("tracer.consolidate", 0),
        "extraction_calls": calls.get("tracer.extract", 0),
        "llm_calls": result.usage["calls"],
        "warnings": len(result.warnings),
        "seconds": round(time.monotonic() - started, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--bots", nargs="*", default=None, help="reference bots (default: all)")
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--turns", type=int, default=8)
    parser.add_argument("--seeds", type=int, default=3, help="runs per bot, with seeds 0..N-1")
    args = parser.parse_args(argv)
    runs = [
        measure(bot, args.sessions, args.turns, seed)
        for bot in (args.bots or bot_ids())
        for seed in range(args.seeds)
    ]
    per_bot: dict[str, dict[str, Any]] = {}
    for run in runs:
        entry = per_bot.setdefault(
            run["bot"], {"duplicate_pairs": 0, "overmerged": 0, "functionalities": [], "runs": 0}
        )
        entry["runs"] += 1
        entry["duplicate_pairs"] += run["duplicate_pairs"]
        entry["overmerged"] += len(run["overmerged"])
        entry["functionalities"].append(run["functionalities"])
    ok = all(entry["duplicate_pairs"] == 0 and entry["overmerged"] == 0 for entry in per_bot.values())
    line = {
        "benchmark": "tracer_duplicates",
        "sessions": args.sessions,
        "turns": args.turns,
        "double": "imperfect (paraphrasing, no embedding endpoint)",
        "per_bot": per_bot,
        "runs": runs,
        "target": "0 duplicate pairs and 0 over-merged nodes per bot",
        "ok": ok,
    }
    sys.stdout.write(json.dumps(line) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
