"""SENSEI with loose JSON: the imperfect double's loose-JSON mode answers every extraction the way models in
`json_object` mode and small local models do (a bare number or "13.75$" for money, `{"value": 13.75, "turn":
"13.75", "quote": "13.75"}`, the turn as text, keys in other words, the value at the top level, prose around, now
and then `{}`), against the unmodified pizza and bike bots.

    cd backend && .venv/bin/python benchmarks/sensei_loose_json.py [--seeds 1,2,3] [--share 1.0]

Prints one JSON line: conversations, verdicts, the reasons of the ones not passed, and the prices — how many
conversations had the chatbot state an amount, and in how many of those the price was extracted (with the
chatbot's turn as evidence). Both must hold: 0 `failed`, every stated price extracted. The amount check is a
pattern of its own, apart from the engine's evidence code. The profiles are the SENSEI quality tests'.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.on_bots import profile_from, run_on_bot
from engine.egress import EgressGuard, EgressPolicy
from engine.llm import LLMClient, ProviderConfig, RetryPolicy, UsageLedger
from engine.llm.offline.sensei import SenseiDouble, SenseiImperfection

# The two profiles of SENSEI's quality tests (`tests/engine/sensei/test_quality.py` reads them from here).
ORDER = """
test_name: quality_order
user:
  role: You order a pizza and drinks to pick up tonight.
  goals:
    - "order a {{size}} {{pizza}} pizza"
    - "with {{drinks}} {{drink}} to drink"
    - size: {function: forward(), type: string, data: [small, medium, large]}
    - pizza: {function: another(), type: string, data: [margherita, carbonara, hawaiian]}
    - drink: {function: random(), type: string, data: [coke, lemonade, water]}
    - drinks: {function: random(), type: int, data: [1, 2, 3]}
chatbot:
  is_starter: false
  fallback: Sorry, I didn't catch that.
  output:
    - price: {type: money, description: the total price of the order}
    - order_id: {type: string, description: the order number}
conversation:
  number: 6
  goal_style: {GOAL_STYLE}
  interaction_style: [default]
"""

BOOKING = """
test_name: quality_booking
user:
  role: Your bike needs the workshop.
  goals:
    - "book a {{service}} for {{day}} at {{hour}}"
    - ask how much a new tire costs
    - service: {function: forward(), type: string, data: [repair, tune-up]}
    - day: {function: random(), type: string, data: [tomorrow, next friday]}
    - hour: {function: random(), type: string, data: [10am, "11:30", 3pm]}
chatbot:
  is_starter: true
  fallback: Sorry, the workshop is noisy today. Could you say that again?
  output:
    - price: {type: money, description: the starting price of the service}
conversation:
  number: 6
  goal_style: {GOAL_STYLE}
  interaction_style: [default]
"""


AMOUNT = re.compile(r"(\d+(?:\.\d+)?)\s?(?:\$|dollars?\b)|\$\s?(\d+(?:\.\d+)?)", re.IGNORECASE)


def run(bot: str, text: str, seed: int, share: float) -> list[Any]:
    config = ProviderConfig(
        "openai-compatible",
        base_url="http://127.0.0.1:9/v1",
        model="loose-json",
        structured_method="json_object",
    )
    double = SenseiDouble(seed=seed, imperfection=SenseiImperfection(loose_json=share))
    with LLMClient(
        config,
        guard=EgressGuard(EgressPolicy.parse("127.0.0.1")),
        retry=RetryPolicy(max_attempts=1, initial_delay_s=0.0, max_delay_s=0.0, jitter_s=0.0, max_total_s=1),
        chat_model=double.chat_model(),
        ledger=UsageLedger(),
    ) as llm:
        return run_on_bot([profile_from(text.replace("{GOAL_STYLE}", "{steps: 10}"))], bot, llm, seed)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--share", type=float, default=1.0, help="share of extractions answered loosely")
    args = parser.parse_args()
    started = time.monotonic()
    verdicts: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    stated = extracted = 0
    for seed in [int(s) for s in args.seeds.split(",")]:
        for bot, text in (("pizza", ORDER), ("bike", BOOKING)):
            for record in run(bot, text, seed, args.share):
                verdicts[record.verdict or "none"] += 1
                if record.verdict != "passed":
                    reasons[(record.verdict_reason or "").split(":")[0]] += 1
                said = [
                    float(a or b) for t in record.turns if t.role == "bot" for a, b in AMOUNT.findall(t.text)
                ]
                if said:
                    stated += 1
                    price = record.outputs.get("price")
                    extracted += int(isinstance(price, dict) and price.get("amount") in said)
    result = {
        "benchmark": "sensei_loose_json",
        "seeds": args.seeds,
        "share": args.share,
        "conversations": sum(verdicts.values()),
        "verdicts": dict(verdicts),
        "not_passed_reasons": dict(reasons),
        "prices_stated": stated,
        "prices_extracted": extracted,
        "seconds": round(time.monotonic() - started, 1),
    }
    sys.stdout.write(json.dumps(result) + "\n")
    return 0 if verdicts["failed"] == 0 and extracted == stated else 1


if __name__ == "__main__":
    raise SystemExit(main())
