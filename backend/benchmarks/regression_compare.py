"""The regression gate on the reference bots: an unchanged bot compares `unchanged` (and is re-tested with no LLM
call when replayed), a broken one `regressed`.

    cd backend && .venv/bin/python benchmarks/regression_compare.py [--seed 1] [--bots pizza,bike] [--repeats 1]

Three SENSEI runs of the same profiles and plan seed, each written as `parley sensei run --out` writes its
folder: the baseline on the unmodified bots (served over HTTP, Taskyto's protocol), a second run on the same
bots, and a third on the same bots answering HTTP 500 to every second user turn (`engine.bots.server.Faults`).
The simulated user, goal judge and extractor are the imperfect LLM double with another seed on each run, as a
real model answers differently each time. Then `parley sensei compare` (the CLI's own handler) judges run 2
and run 3 against the baseline. Then both are run again as replays of the baseline's recorded LLM calls
(`parley sensei run --replay`): on the unchanged bots every call is answered from the recording. Prints one JSON
line. Target (issue 24): the unchanged bots compare `unchanged` with exit 0 and their replay makes 0 LLM calls;
the broken ones `regressed` with exit 1, naming every profile. Exit 1 when missed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from commands import sensei as sensei_command
from engine.bots.server import Faults, build_server
from engine.connectors import create_connector
from engine.conversation import ConversationRecord
from engine.egress import EgressGuard, EgressPolicy
from engine.llm import LLMClient, ProviderConfig, UsageLedger
from engine.llm.ledger import UsageSummary
from engine.llm.offline.sensei import SenseiDouble
from engine.regression import Repeats
from engine.regression.replay import Recording, Replay
from engine.sensei import SenseiJob, load_profile, run_profiles

TODAY = date(2027, 3, 10)  # a Wednesday, as in the false-findings benchmark
GUARD = EgressGuard(EgressPolicy.parse("127.0.0.1"))

PROFILES: dict[str, list[str]] = {
    "pizza": [
        """
test_name: pizza_order
user:
  role: You order a pizza and drinks to pick up tonight.
  goals:
    - "order a {{size}} {{pizza}} pizza"
    - "with {{drinks}} {{drink}} to drink"
    - size: {function: forward(), type: string, data: [small, medium, large]}
    - pizza: {function: another(), type: string, data: [margherita, carbonara, hawaiian, four cheese]}
    - drink: {function: random(), type: string, data: [coke, lemonade, water]}
    - drinks: {function: random(), type: int, data: [1, 2, 3]}
chatbot:
  is_starter: false
  fallback: Sorry, I didn't catch that.
  output:
    - price: {type: money, description: the total price of the order}
conversation:
  number: 6
  goal_style: {all_answered: {limit: 12}}
  interaction_style: [default]
""",
        """
test_name: pizza_questions
user:
  role: You are thinking of ordering and have questions first.
  goals:
    - ask for the opening hours
    - ask whether you deliver
chatbot:
  is_starter: false
  fallback: Sorry, I didn't catch that.
  output: []
conversation:
  number: 4
  goal_style: {all_answered: {limit: 10}}
  interaction_style: [default]
""",
    ],
    "bike": [
        """
test_name: bike_booking
user:
  role: Your bike needs the workshop.
  goals:
    - "book a {{service}}"
    - "for {{day}} at {{hour}}"
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
  goal_style: {all_answered: {limit: 10}}
  interaction_style: [default]
""",
        """
test_name: bike_questions
user:
  role: You look after your own bike and want advice.
  goals:
    - ask how much a new tire costs
    - ask for tips on bike maintenance
chatbot:
  is_starter: true
  fallback: Sorry, the workshop is noisy today. Could you say that again?
  output: []
conversation:
  number: 4
  goal_style: {steps: 3}
  interaction_style: [default]
""",
    ],
}


@contextmanager
def served(bots: list[str], faults: Faults) -> Iterator[dict[str, str]]:
    """Each bot over HTTP (Taskyto's protocol) with `faults`; yields bot → base URL."""
    with ExitStack() as stack:
        urls = {}
        for bot in bots:
            server, _ = build_server(bot, protocol="taskyto", faults=faults, today=TODAY)
            stack.enter_context(server)
            urls[bot] = server.base_url
        yield urls


def write_record(out: Path, record: ConversationRecord) -> None:
    """As `parley sensei run --out` writes it: OUT/<profile>/<index>.json."""
    folder = out / sensei_command._safe(record.profile)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{record.index:04d}.json").write_text(record.model_dump_json(indent=2), encoding="utf-8")


def run_once(
    out: Path,
    bots: list[str],
    *,
    seed: int,
    double_seed: int,
    repeats: int,
    faults: Faults,
    replay: Replay | None = None,
) -> tuple[int, UsageLedger]:
    """One SENSEI run of every bot's profiles into `out` (recorded in, or replayed from, `replay`); the number
    of conversations and the ledger of the LLM calls actually made."""
    repeat = Repeats(repeats)
    replay = replay or Replay()
    ledger = UsageLedger()
    count = 0
    with served(bots, faults) as urls:
        for bot in bots:
            profiles = []
            for text in PROFILES[bot]:
                profile, problems = load_profile(text, source=f"{bot} profile")
                if profile is None:
                    raise SystemExit(f"{bot}: invalid benchmark profile: {[p.render() for p in problems]}")
                profiles.append(profile)
            config = ProviderConfig(
                "openai-compatible", base_url="http://127.0.0.1:9/v1", model="imperfect-model"
            )
            chat_model = SenseiDouble(seed=double_seed).chat_model()
            with LLMClient(config, guard=GUARD, chat_model=chat_model, ledger=ledger) as llm:
                summary = run_profiles(
                    SenseiJob(
                        profiles,
                        lambda bot=bot: create_connector(
                            {"technology": "taskyto", "base_url": urls[bot]}, GUARD
                        ),
                        replay.wrap(llm),
                        concurrency=4,
                        seed=seed,
                        sink=lambda record: write_record(out, repeat.tag(record)),
                        today=lambda: TODAY,
                        replan=repeat.plan,
                    )
                )
            count += summary.conversations
    return count, ledger


def compare_cli(baseline: Path, run: Path) -> tuple[int, dict[str, Any]]:
    """`parley sensei compare BASELINE RUN --json FILE`, through the command's own parser and handler."""
    parser = argparse.ArgumentParser(prog="parley")
    sensei_command.register(parser.add_subparsers(dest="command"))
    report = run.parent / f"{run.name}-comparison.json"
    args = parser.parse_args(["sensei", "compare", str(baseline), str(run), "--json", str(report)])
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = int(args.handler(args))
    return code, json.loads(report.read_text(encoding="utf-8"))


def measure(seed: int, bots: list[str], repeats: int) -> dict[str, Any]:
    started = time.monotonic()
    profiles = sorted(
        load_profile(text)[0].name  # type: ignore[union-attr]
        for bot in bots
        for text in PROFILES[bot]
    )
    with tempfile.TemporaryDirectory(prefix="parley-regression-") as tmp:
        root = Path(tmp)
        recorded = Replay()
        runs = {
            "baseline": (Faults(), seed + 100, recorded),
            "unchanged": (Faults(), seed + 200, None),
            "broken": (Faults(fail_every=2), seed + 300, None),
        }
        conversations = {}
        calls: dict[str, dict[str, int]] = {}
        for name, (faults, double, replay) in runs.items():
            count, ledger = run_once(
                root / name,
                bots,
                seed=seed,
                double_seed=double,
                repeats=repeats,
                faults=faults,
                replay=replay,
            )
            conversations[name] = count
            calls[name] = {tag: s.calls for tag, s in ledger.by_tag().items()}
        replays = {}
        for name, faults in (("replayed", Faults()), ("replayed_broken", Faults(fail_every=2))):
            replay = Replay(Recording(recorded.recording.exchanges()))
            count, ledger = run_once(
                root / name,
                bots,
                seed=seed,
                double_seed=seed + 400,
                repeats=repeats,
                faults=faults,
                replay=replay,
            )
            conversations[name] = count
            replays[name] = {
                "llm_calls": ledger.total().calls,
                "user_turn_calls": ledger.by_tag().get("sensei.user_turn", UsageSummary()).calls,
                "calls_saved": replay.stats.to_json()["calls_saved"],
            }
        results = {}
        for name in ("unchanged", "broken", "replayed", "replayed_broken"):
            code, data = compare_cli(root / "baseline", root / name)
            results[name] = {
                "verdict": data["verdict"],
                "exit_code": code,
                "regressed_profiles": sorted(
                    r["name"] for r in data["regressions"] if r["kind"] == "profile"
                ),
                "newly_failing": len(data["newly_failing"]),
                "new_error_codes": [e["code"] for e in data["new_error_codes"]],
                "overall": {
                    "baseline": data["overall"]["baseline"]["rate"],
                    "run": data["overall"]["run"]["rate"],
                },
                "inconclusive": len(data["inconclusive"]["run"]),
            }
    for name, figures in replays.items():
        results[name].update(figures)
    unchanged, broken = results["unchanged"], results["broken"]
    replayed, replayed_broken = results["replayed"], results["replayed_broken"]
    met = (
        unchanged["verdict"] == replayed["verdict"] == "unchanged"
        and unchanged["exit_code"] == replayed["exit_code"] == 0
        and replayed["llm_calls"] == 0
        and broken["verdict"] == replayed_broken["verdict"] == "regressed"
        and broken["exit_code"] == replayed_broken["exit_code"] == 1
        and broken["regressed_profiles"] == replayed_broken["regressed_profiles"] == profiles
    )
    return {
        "benchmark": "regression_compare",
        "double": "imperfect",
        "seed": seed,
        "repeats": repeats,
        "bots": bots,
        "conversations": conversations,
        "unchanged": unchanged,
        "broken_500_every_second_turn": broken,
        "replayed_unchanged": replayed,
        "replayed_broken": replayed_broken,
        "baseline_llm_calls": calls["baseline"],
        "target_met": met,
        "seconds": round(time.monotonic() - started, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bots", default=",".join(PROFILES), help="comma-separated bot ids")
    parser.add_argument("--repeats", type=int, default=1, help="runs of each planned conversation")
    args = parser.parse_args(argv)
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    unknown = [b for b in bots if b not in PROFILES]
    if unknown:
        parser.error(f"no benchmark profiles for {', '.join(unknown)}")
    result = measure(args.seed, bots, args.repeats)
    sys.stdout.write(json.dumps(result) + "\n")
    return 0 if result["target_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
