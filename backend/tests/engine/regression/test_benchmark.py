"""The Done-when benchmark, run as a user runs it: one JSON line, `unchanged` (exit 0) on the unmodified bots and
no LLM call when they are replayed, `regressed` (exit 1) naming every profile on the bots that answer HTTP 500 to
every second user turn."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parents[3] / "benchmarks" / "regression_compare.py"


def test_the_regression_benchmark_meets_its_target():
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--seed", "3", "--repeats", "2"],
        capture_output=True,
        text=True,
        check=False,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert result["target_met"] is True
    assert result["unchanged"] | {"overall": None} == {
        "verdict": "unchanged",
        "exit_code": 0,
        "regressed_profiles": [],
        "newly_failing": 0,
        "new_error_codes": [],
        "overall": None,
        "inconclusive": 0,
    }
    broken = result["broken_500_every_second_turn"]
    assert (broken["verdict"], broken["exit_code"]) == ("regressed", 1)
    assert broken["regressed_profiles"] == [
        "bike_booking",
        "bike_questions",
        "pizza_order",
        "pizza_questions",
    ]
    assert 500 in broken["new_error_codes"]
    assert result["conversations"]["broken"] == 40  # 20 planned conversations, each run twice
    replayed = result["replayed_unchanged"]
    assert (replayed["verdict"], replayed["llm_calls"], replayed["user_turn_calls"]) == ("unchanged", 0, 0)
    assert replayed["calls_saved"] == sum(result["baseline_llm_calls"].values())
    replayed_broken = result["replayed_broken"]
    assert replayed_broken["verdict"] == "regressed" and replayed_broken["llm_calls"] > 0


def test_the_shrink_benchmark_pins_failures_that_fail_on_the_mutant_and_pass_on_the_original():
    script = Path(__file__).parents[3] / "benchmarks" / "shrink_mutants.py"
    done = subprocess.run(
        [sys.executable, str(script), "--bots", "pizza", "--operators", "crash-on-value,repeat-loop",
         "--per-operator", "1", "--detail"],
        capture_output=True, text=True, check=False, timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.strip().splitlines()
    result = json.loads(line)
    assert result["killed"] == result["shrunk"] == 2 and result["llm_calls"] == 0
    assert result["pins_failing_on_mutant"] == result["pins_passing_on_original"] == 2
    assert result["median_user_turns_after"] <= result["median_user_turns_to_failure"]
    assert 0 < result["chatbot_calls"] <= 2 * 200
