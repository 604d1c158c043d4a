"""SENSEI-check speed: rules per second over 1,000 synthetic conversations, ten local rules.

    cd backend && .venv/bin/python benchmarks/check_rules.py [--conversations 1000] [--in-process]

Ten local rules (no LLM) over synthetic conversations, in the limited child process unless `--in-process`.
"Rule checks" are rule x conversation evaluations. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.check import Limits, check, parse_rule
from engine.conversation import Button, ConversationRecord, Turn

RULES = [
    ("min_small_price", "1", "size == 'small'", "extract_float(price) >= 10 and currency(price) == 'USD'"),
    ("has_order_id", "1", None, "order_id is not None and len(order_id) == 6"),
    ("fast_replies", "1", None, "max(response_times) < 5"),
    ("short_replies", "1", None, "length(chatbot_phrases, kind='average') < 300"),
    ("speaks_english", "1", None, "language(chatbot_phrases) == 'ENG'"),
    ("no_empty_buttons", "1", None, "not chatbot_returns('LINK: <empty>')"),
    ("no_repetition", "1", None, "not repeated_answers('tf-idf', threshold=0.75)"),
    ("all_data", "1", None, "data_collected() and not missing_outputs()"),
    ("no_crash", "1", None, "not any(code in (500, 504) for code in error_codes)"),
    ("unique_ids", "all", None, "is_unique('order_id')"),
]

SIZES = ["small", "medium", "large"]
BOT_LINES = [
    "Hello! Welcome to the pizza shop, what would you like to order?",
    "Sure, which size would you like for your {size} pizza?",
    "Great choice. Would you like something to drink with it?",
    "Your order costs {price}. It will be ready in 15 minutes at our shop on Main Street.",
    "Your order id is {order_id}. Thank you for ordering with us!",
]


def synthetic(index: int, rng: random.Random) -> ConversationRecord:
    size = rng.choice(SIZES)
    price = f"${rng.randint(8, 25)}.{rng.choice(['00', '50'])}"
    order_id = f"{index:06x}"
    turns: list[Turn] = []
    for step, line in enumerate(BOT_LINES):
        turns.append(Turn(role="user", text=f"I want a {size} pizza, step {step}", at_s=step * 2.0))
        buttons = [Button(label="Menu", url="https://shop.invalid/menu")] if step == 0 else []
        text = line.format(size=size, price=price, order_id=order_id)
        turns.append(Turn(role="bot", text=text, buttons=buttons, latency_s=rng.uniform(0.2, 3.0)))
    return ConversationRecord(
        id=f"conv-{index:04d}",
        profile="pizza",
        index=index,
        inputs={
            "size": size,
            "drink": rng.choice(["cola", "water"]),
            "toppings": ["ham"] * rng.randint(0, 3),
        },
        outputs={"price": price, "order_id": order_id},
        turns=turns,
        duration_s=20.0,
    )


def _yaml(name: str, arity: str, when: str | None, then: str) -> str:
    lines = [f"name: {name}", "description: benchmark", f"conversations: {arity}", "then: |", f"  {then}"]
    if when:
        lines += ["when: |", f"  {when}"]
    return "\n".join(lines) + "\n"


def measure(conversations: int, *, isolate: bool = True) -> dict[str, Any]:
    rng = random.Random(7)  # noqa: S311 - synthetic data
    records = [synthetic(i, rng) for i in range(conversations)]
    rules = [parse_rule(_yaml(name, arity, when, then)) for name, arity, when, then in RULES]
    started = time.perf_counter()
    report = check(rules, records, limits=Limits(isolate=isolate))
    elapsed = time.perf_counter() - started
    checks = sum(rule.checks for rule in report.rules)
    return {
        "benchmark": "check_rules",
        "conversations": conversations,
        "rules": len(rules),
        "rule_checks": checks,
        "seconds": round(elapsed, 3),
        "rule_checks_per_s": round(checks / elapsed, 1),
        "conversations_per_s": round(conversations / elapsed, 1),
        "isolated": isolate,
        "seconds_per_rule": {rule.name: round(rule.duration_s, 3) for rule in report.rules},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=1000)
    parser.add_argument("--in-process", action="store_true")
    args = parser.parse_args(argv)
    sys.stdout.write(json.dumps(measure(args.conversations, isolate=not args.in_process)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
