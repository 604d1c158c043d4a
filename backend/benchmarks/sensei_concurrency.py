"""SENSEI concurrency benchmark: N conversations at concurrency K against a fake LLM with fixed latency.

Target (issue 6): with the fake LLM adding 300 ms per call and a reference bot, 40 conversations at concurrency 8
finish in at most 1.3 x (40 / 8) x the time of one conversation (scaled by the LLM calls per conversation, which
differ when the extractor is asked for the chatbot's words); LLM calls per user turn <= 1.1 in steps mode; one
extraction call per conversation.

    cd backend && .venv/bin/python benchmarks/sensei_concurrency.py [--latency 0.3] [--conversations 40]
                  [--concurrency 8] [--steps 3] [--bot pizza] [--json]

Everything runs on this machine: the fake OpenAI-compatible server on 127.0.0.1 (real HTTP through the gateway)
and the reference bot in process (`engine.bots.open_bot`). Exit code 0 when every target is met.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.connectors import BotReply, Button, Connector
from engine.egress import EgressGuard, EgressPolicy
from engine.llm import LLMClient, ProviderConfig
from engine.llm.offline.server import running_fake_server
from engine.sensei import SenseiJob, SimulatorSettings, load_profile, run_profiles

PROFILE = """
test_name: bench_pizza
user:
  role: You order a pizza and drinks for tonight.
  goals:
    - "order a {{size}} margherita pizza"
    - "ask for {{drinks}} cokes"
    - size: {function: forward(), type: string, data: [small, medium, large]}
    - drinks: {function: forward(), type: int, data: {min: 1, max: 4}}
chatbot:
  is_starter: false
  fallback: Sorry, I didn't catch that.
  output:
    - price: {type: money, description: total price of the order}
conversation: {number: NUMBER, goal_style: {steps: STEPS}, interaction_style: [single question]}
"""
MESSAGES = ["I'd like a large margherita pizza", "2 cokes, please", "What time do you open?", "Thanks!"]


class BotConnector(Connector):
    technology = "reference-bot"

    def __init__(self, bot_id: str) -> None:
        from engine.bots import open_bot

        self.open = open_bot
        self.bot_id = bot_id
        self.runtime: Any = None

    def new_conversation(self) -> None:
        self.runtime = self.open(self.bot_id)

    def send(self, text: str) -> BotReply:
        started = time.monotonic()
        reply = self.runtime.reply(text)
        return BotReply(
            messages=reply.messages,
            buttons=[Button(label=b) for b in reply.buttons],
            latency_s=time.monotonic() - started,
        )


def run(conversations: int, concurrency: int, *, base_url: str, steps: int, bot: str) -> dict[str, Any]:
    text = PROFILE.replace("NUMBER", str(conversations)).replace("STEPS", str(steps))
    profile, problems = load_profile(text)
    if profile is None:
        raise SystemExit("\n".join(p.render() for p in problems))
    config = ProviderConfig(
        "openai-compatible",
        base_url=base_url,
        model="gpt-4o-mini",
        api_key="bench",
        max_concurrency=concurrency,
    )
    records: list[Any] = []
    settings = SimulatorSettings(repeat_limit=1000, fallback_loop_limit=1000)  # fixed-length conversations
    with LLMClient(config, guard=EgressGuard(EgressPolicy.parse("127.0.0.1"))) as llm:
        started = time.monotonic()
        summary = run_profiles(
            SenseiJob(
                [profile],
                lambda: BotConnector(bot),
                llm,
                concurrency=concurrency,
                seed=1,
                sink=records.append,
                settings=settings,
            )
        )
        elapsed = time.monotonic() - started
        calls = llm.ledger.to_json()["calls_by_tag"]
    user_turns = sum(len(r.user_phrases) for r in records)
    return {
        "conversations": summary.conversations,
        "concurrency": concurrency,
        "seconds": round(elapsed, 3),
        "user_turns": user_turns,
        "calls_by_tag": calls,
        "user_calls_per_user_turn": round(calls.get("sensei.user_turn", 0) / max(1, user_turns), 3),
        "extract_calls_per_conversation": round(calls.get("sensei.extract", 0) / max(1, len(records)), 3),
        "errors": summary.errors_by_code,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.3, help="seconds the fake LLM adds per call")
    parser.add_argument("--conversations", type=int, default=40)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--steps", type=int, default=3, help="user messages per conversation")
    parser.add_argument("--bot", default="pizza", help="reference bot id")
    parser.add_argument("--json", action="store_true", help="print the result as JSON only")
    args = parser.parse_args(argv)
    script = {
        "sensei.user_turn": MESSAGES * 1000,
        "sensei.extract": {"json": {"price": {"amount": 21, "currency": "USD"}}},
    }
    with running_fake_server(script, latency_s=args.latency) as server:
        run(1, 1, base_url=server.base_url, steps=args.steps, bot=args.bot)  # warm-up: imports, connections
        single = run(1, 1, base_url=server.base_url, steps=args.steps, bot=args.bot)
        batch = run(
            args.conversations, args.concurrency, base_url=server.base_url, steps=args.steps, bot=args.bot
        )
        in_flight = server.max_in_flight
    # The scripted messages are shared by conversations running side by side, so many never reach the order's
    # total that the scripted extractor claims: those pay one more call asking for the chatbot's words
    # (engine.sensei.extraction). The ideal counts the calls made, so the ratio measures concurrency alone.
    per_single = sum(single["calls_by_tag"].values())
    per_batch = sum(batch["calls_by_tag"].values()) / max(1, args.conversations)
    ideal = args.conversations / args.concurrency * single["seconds"] * per_batch / max(1, per_single)
    limit = 1.3 * ideal
    result = {
        "latency_s": args.latency,
        "one_conversation_s": single["seconds"],
        "batch": batch,
        "ideal_s": round(ideal, 3),
        "limit_s": round(limit, 3),
        "ratio_to_ideal": round(batch["seconds"] / ideal, 3),
        "max_llm_requests_in_flight": in_flight,
        "targets": {
            "time": batch["seconds"] <= limit,
            "user_calls_per_user_turn<=1.1": batch["user_calls_per_user_turn"] <= 1.1,
            "one_extraction_per_conversation": batch["extract_calls_per_conversation"] == 1.0,
        },
    }
    if args.json:
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
    else:
        sys.stdout.write(
            f"one conversation: {single['seconds']:.2f} s ({args.steps} user turns + 1 extraction, "
            f"{args.latency * 1000:.0f} ms per LLM call)\n"
            f"{args.conversations} conversations at concurrency {args.concurrency}: {batch['seconds']:.2f} s "
            f"(ideal {ideal:.2f} s, limit {limit:.2f} s, ratio {result['ratio_to_ideal']:.2f})\n"
            f"LLM calls per user turn: {batch['user_calls_per_user_turn']}; extraction calls per conversation: "
            f"{batch['extract_calls_per_conversation']}; max LLM requests in flight: {in_flight}\n"
            f"targets: {result['targets']}\n"
        )
    return 0 if all(result["targets"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
