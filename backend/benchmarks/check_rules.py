"""SENSEI-check speed: rules per second over 1,000 conversations (reuses `bench/check_speed.py`'s data).

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

from bench.check_speed import RULES, _yaml, synthetic
from engine.check import Limits, check, parse_rule


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
