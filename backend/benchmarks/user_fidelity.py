"""The calibrated simulated user against the uncalibrated one: which behaves more like the real users?

    cd backend && .venv/bin/python benchmarks/user_fidelity.py [--bots pizza,bike,veterinary,photography]
        [--conversations 300] [--repeats 3] [--seed 1] [--out DIR]

For each bot the scripted population (`engine.bots.population`, TEST DATA standing for production traffic)
writes `--conversations` conversations, which are imported (masked) and measured (`engine.transcripts.measures`).
SENSEI then runs the bot's benchmark profiles (`sensei_false_findings.PROFILES`) `--repeats` times on the offline
imperfect LLM double, once as is and once with the user calibrated from those measures
(`engine.sensei.calibration`, enforced by the simulator). The fidelity report (`OUT/fidelity.json`,
`OUT/fidelity.md`) compares each with the population. Exit 1 when the calibrated user is not closer overall.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from sensei_false_findings import PROFILES, TODAY, _llm

from engine.bots.connector import BotConnector
from engine.bots.population import write_population
from engine.conversation import ConversationRecord
from engine.llm.offline.sensei import SenseiDouble
from engine.sensei import SenseiJob, SimulatorSettings, load_profile, run_profiles
from engine.sensei.calibration import Calibration, calibrated_personality, calibration_of
from engine.transcripts import import_transcripts, read_imported
from engine.transcripts.fidelity import fidelity_markdown, fidelity_report
from engine.transcripts.measures import TurnPair, measure

NOTE = "simulated users on Parley's imperfect LLM double (not a real model); real users = scripted population"


def simulate(bot: str, repeats: int, seed: int, calibration: Calibration | None) -> list[list[TurnPair]]:
    profiles = []
    for text in PROFILES[bot]:
        profile, _ = load_profile(text, source=f"{bot} profile")
        assert profile is not None
        profiles.append(profile)
    records: list[ConversationRecord] = []
    for repeat in range(repeats):
        with _llm(SenseiDouble(seed=seed + repeat)) as llm:
            run_profiles(
                SenseiJob(
                    profiles,
                    lambda: BotConnector(bot, today=TODAY),
                    llm,
                    concurrency=1,
                    seed=seed + repeat,
                    sink=records.append,
                    today=lambda: TODAY,
                    settings=SimulatorSettings(calibration=calibration),
                )
            )
    return [[(t.role, t.text) for t in r.turns] for r in records]


def run(bots: list[str], conversations: int, repeats: int, seed: int) -> dict[str, Any]:
    real_all: list[list[TurnPair]] = []
    before_all: list[list[TurnPair]] = []
    after_all: list[list[TurnPair]] = []
    per_bot = {}
    for bot in bots:
        with tempfile.TemporaryDirectory() as tmp:
            write_population(bot, conversations, Path(tmp) / "raw.jsonl", seed=seed)
            import_transcripts(Path(tmp) / "raw.jsonl", Path(tmp) / "imported")
            real = [[(t.role, t.text) for t in c.turns] for c in read_imported(Path(tmp) / "imported")]
        measured = measure(real)
        # The parameters go through the stored personality, as a project's calibrated user would.
        calibration = calibration_of(calibrated_personality(measured))
        before, after = simulate(bot, repeats, seed, None), simulate(bot, repeats, seed, calibration)
        per_bot[bot] = fidelity_report(measured, measure(before), measure(after), note=NOTE)
        real_all += real
        before_all += before
        after_all += after
    overall = fidelity_report(measure(real_all), measure(before_all), measure(after_all), note=NOTE)
    return {"overall": overall, "bots": per_bot}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--bots", default="pizza,bike,veterinary,photography")
    parser.add_argument("--conversations", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", metavar="DIR")
    args = parser.parse_args(argv)
    result = run(args.bots.split(","), args.conversations, args.repeats, args.seed)
    markdown = fidelity_markdown(result["overall"], "Simulated user fidelity, all bots")
    for bot, report in result["bots"].items():
        gap = report["overall_gap"]
        markdown += f"\n- {bot}: mean gap {gap['uncalibrated']} → {gap['calibrated']}"
    sys.stdout.write(markdown + "\n")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "fidelity.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        (out / "fidelity.md").write_text(markdown + "\n", encoding="utf-8")
    return 0 if result["overall"]["closer"] else 1


if __name__ == "__main__":
    sys.exit(main())
