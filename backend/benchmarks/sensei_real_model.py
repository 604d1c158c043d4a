"""SENSEI with a real small model as simulated user and extractor: verdicts, inconclusive reasons, simulator slips.

    make real-llm   # in another terminal: SmolLM2-135M-Instruct at http://127.0.0.1:8095/v1
    cd backend && .venv/bin/python benchmarks/sensei_real_model.py [--base-url http://127.0.0.1:8095/v1]
                                     [--seeds 1,2,3] [--bots pizza,bike,pizza-500] [--out DIR]

Serves the unmodified reference bots (json protocol, in process) — and `pizza-500`, the pizza bot answering HTTP
500 to every conversation's second user message — and runs `parley sensei run` against each with the profiles
below (the pizza bot's include the issue's short order profile), once per seed, as a user would; prints one JSON
line: per bot and overall, the verdicts, the reasons of failed and inconclusive conversations, who is at fault,
the simulator slips by kind, and the checks that must all be 0: no conversation lost to an LLM or format error,
no output without evidence, no user turn that speaks for the chatbot, no `failed` conversation whose user never
conveyed its inputs, no `failed` conversation on an unmodified bot (verdicts with proof), and no conversation
that met the 500 and is not `failed`.

These figures are a 135M model's: they say how Parley copes with an imperfect model, not how good the chatbots
are. Expect most conversations to be inconclusive — that is the point: they are not reported as failures.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cli
from engine.bots.server import Faults, build_server
from engine.sensei.evidence import mentions

TODAY = date.today()
GOAL_REASONS = ("goal_not_completed", "goals_not_verified", "fallback_loop", "repetition_loop")

PROFILES: dict[str, list[str]] = {
    "pizza": [
        """
test_name: pizza_order
user:
  role: You order a pizza to pick up tonight.
  goals:
    - "order a {{size}} margherita pizza and {{drinks}} coke"
    - size: {function: forward(), type: string, data: [small, medium, large]}
    - drinks: {function: random(), type: int, data: [1, 2]}
chatbot:
  is_starter: false
  fallback: Sorry, I didn't catch that.
  output:
    - price: {type: money, description: the total price of the order}
conversation:
  number: 2
  goal_style: {steps: 4}
  interaction_style: [default]
""",
        """
test_name: pizza_price_question
user:
  role: You wonder what a pizza costs before ordering.
  goals:
    - "ask how much a {{size}} margherita pizza costs"
    - size: {function: forward(), type: string, data: [small, large]}
chatbot:
  is_starter: false
  fallback: Sorry, I didn't catch that.
  output:
    - price: {type: money, description: the price of the pizza the user asked about}
conversation:
  number: 1
  goal_style: {steps: 2}
  interaction_style: [default]
""",
    ],
    "pizza-500": [],  # filled below: the short order profile
    "bike": [
        """
test_name: bike_booking
user:
  role: Your bike needs the workshop.
  goals:
    - "book a {{service}} for tomorrow at {{hour}}"
    - service: {function: forward(), type: string, data: [repair, tune-up]}
    - hour: {function: forward(), type: string, data: [10am, 3pm]}
chatbot:
  is_starter: true
  fallback: Sorry, the workshop is noisy today. Could you say that again?
  output:
    - price: {type: money, description: the starting price of the service}
conversation:
  number: 2
  goal_style: {steps: 3}
  interaction_style: [default]
""",
        """
test_name: bike_tire_question
user:
  role: You look after your own bike.
  goals:
    - ask how much a new tire costs
chatbot:
  is_starter: true
  fallback: Sorry, the workshop is noisy today. Could you say that again?
  output:
    - price: {type: money, description: the price of a new tire}
conversation:
  number: 1
  goal_style: {steps: 2}
  interaction_style: [default]
""",
    ],
}
# The short order profile ("Verdicts with proof"): three user messages to order one pizza. With the 135M
# model, 3 of 8 such conversations were `failed` on the unmodified bot before the proof rule.
SHORT_ORDER = """
test_name: pizza_short_order
user:
  role: You order a pizza to pick up tonight.
  goals:
    - "order a {{size}} margherita pizza"
    - size: {function: forward(), type: string, data: [small, large]}
chatbot:
  is_starter: false
  fallback: Sorry, I didn't catch that.
  output:
    - price: {type: money, description: the total price of the order}
conversation:
  number: 2
  goal_style: {steps: 3}
  interaction_style: [default]
"""
PROFILES["pizza"].append(SHORT_ORDER)
PROFILES["pizza-500"].append(SHORT_ORDER)
UNMODIFIED = ("pizza", "bike")
CONNECTOR = """technology: http
name: reference bot ({bot})
base_url: {base_url}
timeout: 30
new_conversation: {{path: /chat, method: POST, payload_template: {{}}, session_id_path: session_id, greeting_path: messages}}
send_message: {{path: /chat, method: POST, payload_template: {{session_id: "{{session_id}}", message: "{{user_msg}}"}}}}
messages_path: messages
buttons_path: buttons
"""
LLM_ERRORS = {
    3000,
    3001,
}  # the user LLM or the extractor failed: a conversation lost to an LLM or format error
# A line of a user message that speaks for the chatbot (independent of engine.sensei.hygiene on purpose).
SPEAKS_FOR_CHATBOT = re.compile(r"^\W*(chat\s?bot|assistant|bot|agent)\W*:", re.IGNORECASE | re.MULTILINE)


def sensei_cli(bot: str, bot_url: str, llm_url: str, seed: int, folder: Path, extra: list[str]) -> int:
    """`parley sensei run` of the bot's profiles against the bot served at `bot_url`, the model at `llm_url`."""
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for text in PROFILES[bot]:
        name = re.search(r"test_name: (\w+)", text)
        path = folder / f"{name.group(1) if name else 'profile'}.yaml"
        path.write_text(text, encoding="utf-8")
        files.append(str(path))
    connector = folder / "connector.yaml"
    connector.write_text(CONNECTOR.format(bot=bot, base_url=bot_url), encoding="utf-8")
    argv = ["sensei", "run", *files, "--connector", str(connector), "--provider", "openai-compatible"]
    argv += ["--base-url", llm_url, "--model", "SmolLM2-135M-Instruct", "--api-key", "none"]
    argv += ["--seed", str(seed), "--concurrency", "1", "--out", str(folder / "out"), *extra]
    return cli.main(argv)


def checks(records: list[dict[str, Any]], bot: str | None = None) -> dict[str, int]:
    """The Done-when of the issues, counted over `records` of `bot` (None: several bots; each figure must be 0)."""
    lost = sum(1 for r in records if {e["code"] for e in r["errors"]} & LLM_ERRORS)
    unsupported = 0
    for record in records:
        for name, value in record["outputs"].items():
            proof = record.get("evidence", {}).get(name) or {}
            turn = proof.get("turn")
            said = (
                record["turns"][turn]["text"] if isinstance(turn, int) and turn < len(record["turns"]) else ""
            )
            if value is not None and (turn is None or record["turns"][turn]["role"] != "bot" or not said):
                unsupported += 1
    spoke = sum(
        1 for r in records for t in r["turns"] if t["role"] == "user" and SPEAKS_FOR_CHATBOT.search(t["text"])
    )
    failed_unconveyed = 0
    for r in records:
        said = "\n".join(t["text"] for t in r["turns"] if t["role"] == "user")
        unsaid = [v for v in r["inputs"].values() if not mentions(v, said, TODAY)]
        if r["verdict"] == "failed" and r["verdict_reason"].split(":")[0] in GOAL_REASONS and unsaid:
            failed_unconveyed += 1
    bots = [r.get("_bot", bot) for r in records]
    failed_unmodified = sum(
        1 for r, b in zip(records, bots, strict=True) if b in UNMODIFIED and r["verdict"] == "failed"
    )
    met_500 = [
        r
        for r, b in zip(records, bots, strict=True)
        if b == "pizza-500" and sum(t["role"] == "user" for t in r["turns"]) >= 2
    ]
    return {
        "failed_on_an_unmodified_bot": failed_unmodified,
        "met_the_500_and_not_failed": sum(1 for r in met_500 if r["verdict"] != "failed"),
        "lost_to_llm_or_format_error": lost,
        "outputs_without_evidence": unsupported,
        "user_turns_speaking_for_the_chatbot": spoke,
        "failed_without_conveyed_inputs": failed_unconveyed,
    }


def figures(records: list[dict[str, Any]], bot: str | None = None) -> dict[str, Any]:
    verdicts = Counter(r["verdict"] for r in records)
    faults = Counter(r.get("fault") for r in records if r["verdict"] != "passed")
    reasons: dict[str, Counter[str]] = {"failed": Counter(), "inconclusive": Counter()}
    for r in records:
        if r["verdict"] in reasons:
            reasons[r["verdict"]][r["verdict_reason"].split(":")[0]] += 1
    slips = Counter(s["kind"] for r in records for s in r["settings"].get("simulator_slips", []))
    return {
        "conversations": len(records),
        "verdicts": {v: verdicts[v] for v in ("passed", "failed", "inconclusive")},
        "failed_reasons": dict(sorted(reasons["failed"].items())),
        "inconclusive_reasons": dict(sorted(reasons["inconclusive"].items())),
        "faults": dict(sorted((str(k), v) for k, v in faults.items())),
        "simulator_slips": sum(slips.values()),
        "simulator_slips_by_kind": dict(sorted(slips.items())),
        "user_turns": sum(1 for r in records for t in r["turns"] if t["role"] == "user"),
        "checks": checks(records, bot),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base-url", default="http://127.0.0.1:8095/v1", help="the real model server")
    parser.add_argument(
        "--seeds", default="1", help="comma-separated seeds, one run per bot and seed (1,2,3)"
    )
    parser.add_argument("--seed", type=int, help="one seed (the same as --seeds N)")
    parser.add_argument("--bots", default="pizza,bike,pizza-500")
    parser.add_argument("--out", help="keep the records here (default: a temporary folder)")
    args = parser.parse_args()
    seeds = [args.seed] if args.seed is not None else [int(s) for s in args.seeds.split(",") if s.strip()]
    os.environ.setdefault("PARLEY_EGRESS_ALLOW", "127.0.0.1")  # the bots and the model server are local
    started = time.monotonic()
    result: dict[str, Any] = {"benchmark": "sensei_real_model", "model": "SmolLM2-135M-Instruct (Q4_1, 135M)"}
    result["seeds"] = seeds
    everything: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        root = Path(args.out) if args.out else Path(stack.enter_context(tempfile.TemporaryDirectory()))
        by_bot: dict[str, Any] = {}
        for bot in args.bots.split(","):
            faults = Faults(fail_on_turn=2) if bot.endswith("-500") else Faults()
            records: list[dict[str, Any]] = []
            by_seed: dict[str, Any] = {}
            for seed in seeds:
                server, _ = build_server(bot.removesuffix("-500"), protocol="json", faults=faults)
                folder = root / bot / f"seed-{seed}"
                with server, contextlib.redirect_stdout(io.StringIO()):
                    sensei_cli(bot, server.base_url, args.base_url, seed, folder, [])
                found = [
                    json.loads(p.read_text()) | {"_bot": bot}
                    for p in sorted((folder / "out").glob("*/*.json"))
                ]
                by_seed[str(seed)] = figures(found, bot)["verdicts"]
                records += found
            everything += records
            by_bot[bot] = figures(records, bot) | {"by_seed": by_seed}
        result["bots"] = by_bot
        result["overall"] = figures(everything)
    result["seconds"] = round(time.monotonic() - started, 1)
    sys.stdout.write(json.dumps(result) + "\n")
    return 0 if not any(result["overall"]["checks"].values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
