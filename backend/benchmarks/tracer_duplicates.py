"""TRACER's duplicate functionalities, measured: full runs against every reference bot (in process) with the
imperfect LLM double, which names the same step with other words from one session to the next and offers no
embedding endpoint. One JSON line.

    cd backend && .venv/bin/python benchmarks/tracer_duplicates.py [--sessions 10] [--turns 8] [--seeds 3]
        [--first-seed 0] [--random-ids] [--consolidation llm|lexical] [--bots pizza bike] [--summary]

`--random-ids` gives every conversation an id drawn at random (from the run's seed, so the figure repeats), as
the platform does, instead of numbered ones: the bots' order numbers and computed values change with it.
`--consolidation lexical` runs TRACER's no-LLM mode (lexical similarity alone decides duplicates).

Per bot and seed: the functionalities of the final model, the duplicate pairs left (two nodes for one step) and
the over-merged nodes (one node for two steps), with the LLM calls spent on consolidation. What a "step" is comes
from the bot's definition, not from the double (`engine.bots.sources`): every name the double writes is kept with
the chatbot's words it was written for, those words are traced to the message the bot sent and that message to
the part of the definition that wrote it (a slot's prompt, a response template, an answer, a stock phrase). So
the double's own judgement of which names mean one step — used when TRACER asks it — is not what the figure is
measured with; that view is shown beside it as `double_says`. Nodes written for no words of the chatbot (an
invented functionality) are counted as `invented`. Target (issue 20, README D16): 0 duplicate pairs and 0 over-merged
nodes on every bot. Exit 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Iterable
from datetime import date
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from engine.bots import bot_ids, open_bot
from engine.bots.registry import load_bot
from engine.bots.runtime import BotRuntime
from engine.bots.sources import Sources, normalise
from engine.connectors import BotReply, Button, Connector
from engine.egress import EgressGuard
from engine.llm import LLMClient, ProviderConfig
from engine.llm.offline.imperfect import glued
from engine.llm.offline.tracer import TracerDouble
from engine.tracer import TracerConfig, TracerDeps, TracerJob, run_tracer


class InProcessBot(Connector):
    technology = "demo"

    def __init__(self, bot_id: str, ids: random.Random | None = None) -> None:
        self.bot_id = bot_id
        self.ids = ids
        self.runtime: BotRuntime | None = None
        self.opening = BotReply()
        self.conversations = 0
        self.said: set[str] = set()  # every message the bot sent: what the double's words are traced to

    def new_conversation(self) -> None:
        # Numbered conversations: the bot's order ids, and so every run, repeat exactly for one seed. Random
        # ids (drawn from the run's seed) vary them as the platform's ids do.
        self.conversations += 1
        conversation = (
            f"{self.ids.getrandbits(64):016x}" if self.ids else f"{self.bot_id}-{self.conversations}"
        )
        self.runtime = open_bot(self.bot_id, conversation_id=conversation, today=date(2026, 3, 2))
        reply = self.runtime.start()
        self.opening = self._reply(reply.messages, reply.buttons)

    def _reply(self, messages: list[str], buttons: list[str]) -> BotReply:
        self.said.update(messages)
        return BotReply(messages=messages, buttons=[Button(label=b) for b in buttons])

    def greeting(self) -> BotReply | None:
        if self.runtime is None:
            self.new_conversation()
        return self.opening if self.opening.messages else None

    def send(self, text: str) -> BotReply:
        if self.runtime is None:
            self.new_conversation()
        assert self.runtime is not None
        reply = self.runtime.reply(text)
        return self._reply(reply.messages, reply.buttons)


def ground_truth_report(
    bot_id: str, said: Iterable[str], read: dict[str, set[str]], nodes: list[tuple[str, list[str]]]
) -> dict[str, Any]:
    """Duplicate pairs and over-merged nodes judged against the bot's definition: each node stands for the parts
    of the definition that wrote the chatbot words its names were written for."""
    sources = Sources(load_bot(bot_id))
    lines: dict[str, set[str]] = {}  # a normalised line the bot sent -> the parts that wrote it
    unsourced_messages = 0
    for message in said:
        key = sources.of(message)
        unsourced_messages += key is None
        split = [line for line in message.splitlines() if line.strip()]
        for index, line in enumerate(split):
            part = key or f"?{normalise(message)}"
            lines.setdefault(normalise(line), set()).add(part if len(split) == 1 else f"{part}#{index}")
    ambiguous = untraced = 0
    covered: list[tuple[str, set[str]]] = []
    for name, merged in nodes:
        parts: set[str] = set()
        texts = [text for n in (name, *merged) for text in read.get(glued(n), ())]
        for text in texts:
            words = f" {normalise(text)} "
            found = (
                set().union(*(keys for line, keys in lines.items() if words in f" {line} "))
                if lines
                else set()
            )
            if len(found) == 1:
                parts |= found
            elif found:
                ambiguous += 1  # words the bot sent in several parts: they do not say which step was meant
            else:
                untraced += 1
        covered.append((name, parts))
    pairs = [(a, b) for i, (a, pa) in enumerate(covered) for b, pb in covered[i + 1 :] if pa & pb]
    return {
        "duplicate_pairs": len(pairs),
        "pairs": [list(pair) for pair in pairs],
        "overmerged": [name for name, parts in covered if len(parts) > 1],
        "invented": sum(1 for name, parts in covered if not parts),
        "functionalities": len(covered),
        "distinct_steps": len(set().union(*(parts for _, parts in covered))) if covered else 0,
        "ambiguous_texts": ambiguous,
        "untraced_texts": untraced,
        "unsourced_messages": unsourced_messages,
    }


def measure(
    bot_id: str, sessions: int, turns: int, seed: int, *, random_ids: bool = False, consolidation: str = "llm"
) -> dict[str, Any]:
    double = TracerDouble(seed=seed)
    llm = LLMClient(
        ProviderConfig("openai-compatible", base_url="http://127.0.0.1:9/v1", model="imperfect-model"),
        guard=EgressGuard(),
        chat_model=double.chat_model(),
    )
    ids = random.Random(f"{bot_id}:{seed}") if random_ids else None  # noqa: S311 -- ids, not secrets
    bot = InProcessBot(bot_id, ids)
    started = time.monotonic()
    result = run_tracer(
        TracerJob(
            TracerConfig(sessions=sessions, turns=turns, seed=seed, consolidation=consolidation),  # type: ignore[arg-type]
            TracerDeps(llm=llm, connector=bot),
            run_id=f"duplicates-{bot_id}-{seed}",
            checkpointer=InMemorySaver(),
        )
    )
    nodes = [(f.name, list(f.merged_from)) for f in result.model.functionalities]
    report = ground_truth_report(bot_id, bot.said, double.read, nodes)
    double_says = double.duplicate_report(nodes)
    calls = result.usage["calls_by_tag"]
    return {
        "bot": bot_id,
        "seed": seed,
        **report,
        "double_says": {"duplicate_pairs": len(double_says.pairs), "overmerged": len(double_says.overmerged)},
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
    parser.add_argument("--seeds", type=int, default=3, help="runs per bot, with seeds FIRST..FIRST+N-1")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument(
        "--random-ids", action="store_true", help="random conversation ids (drawn from the seed)"
    )
    parser.add_argument("--consolidation", choices=("llm", "lexical"), default="llm")
    parser.add_argument("--summary", action="store_true", help="per-bot figures only, not every run")
    args = parser.parse_args(argv)
    runs = [
        measure(
            bot,
            args.sessions,
            args.turns,
            seed,
            random_ids=args.random_ids,
            consolidation=args.consolidation,
        )
        for bot in (args.bots or bot_ids())
        for seed in range(args.first_seed, args.first_seed + args.seeds)
    ]
    per_bot: dict[str, dict[str, Any]] = {}
    for run in runs:
        entry = per_bot.setdefault(
            run["bot"],
            {
                "runs": 0,
                "duplicate_pairs": 0,
                "overmerged": 0,
                "invented": 0,
                "per_run": [],
                "double_says": 0,
            },
        )
        entry["runs"] += 1
        entry["duplicate_pairs"] += run["duplicate_pairs"]
        entry["overmerged"] += len(run["overmerged"])
        entry["invented"] += run["invented"]
        entry["per_run"].append(run["duplicate_pairs"])
        entry["double_says"] += run["double_says"]["duplicate_pairs"]
    for entry in per_bot.values():
        entry["per_run"] = [min(entry["per_run"]), max(entry["per_run"])]  # the range over runs
    ok = all(entry["duplicate_pairs"] == 0 and entry["overmerged"] == 0 for entry in per_bot.values())
    line = {
        "benchmark": "tracer_duplicates",
        "sessions": args.sessions,
        "turns": args.turns,
        "seeds": [args.first_seed, args.first_seed + args.seeds - 1],
        "conversation_ids": "random (from the seed)" if args.random_ids else "numbered",
        "consolidation": args.consolidation,
        "double": "imperfect (paraphrasing, no embedding endpoint)",
        "judged_by": "the bot definition (engine.bots.sources), not the double",
        "per_bot": per_bot,
        "total": {
            key: sum(entry[key] for entry in per_bot.values())
            for key in ("runs", "duplicate_pairs", "overmerged", "invented", "double_says")
        },
        **({} if args.summary else {"runs": runs}),
        "target": "0 duplicate pairs and 0 over-merged nodes per bot",
        "ok": ok,
    }
    sys.stdout.write(json.dumps(line) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
