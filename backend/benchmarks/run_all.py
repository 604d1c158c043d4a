"""Every benchmark, one JSON line each (what `make bench` calls).

    cd backend && .venv/bin/python benchmarks/run_all.py [--quick]

SENSEI throughput (1/4/8/16), TRACER calls and time for 10 x 8, TRACER duplicates left at 10 x 8 on every
reference bot (imperfect LLM double), SENSEI's false findings on the unmodified reference bots (imperfect LLM
double), the regression gate (an unchanged bot compares `unchanged`, one answering 500 on every second turn
`regressed`), SENSEI-check rules per second over 1,000 conversations, importing 50,000 transcripts
(masked; 5,000 with `--quick`), peak memory of a
100-conversation SENSEI run and a 10 x 8 TRACER run, and the worker overhead
(start run -> first LLM call; it needs PostgreSQL and RabbitMQ and starts its own Celery worker), and the API
latency through nginx (`api_latency.py --stack` starts a stack of its own). `--quick` shrinks the runs and
leaves out memory and the API (CI smoke).
Exit 1 when a benchmark misses its target.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    tracer = ["--sessions", "3", "--turns", "4"] if args.quick else []
    commands = [
        ["sensei_throughput.py", *(["--per-worker", "1", "--latency", "0.1"] if args.quick else [])],
        ["tracer_calls.py", "--json", *tracer],
        ["tracer_duplicates.py", *(["--seeds", "1"] if args.quick else [])],
        ["sensei_false_findings.py", *(["--repeats", "1"] if args.quick else [])],
        ["regression_compare.py", *([] if args.quick else ["--repeats", "3"])],
        ["check_rules.py", *(["--conversations", "200"] if args.quick else [])],
        ["language_accuracy.py"],
        ["transcripts_import.py", *(["--conversations", "5000"] if args.quick else [])],
        ["worker_overhead.py", *(["--runs", "3", "--warmup", "1"] if args.quick else [])],
        ["memory.py"],
        ["api_latency.py", "--stack"],
    ]
    if args.quick:
        # Memory needs the full-size runs to mean anything; the API figures need 10,000 seeded runs.
        commands = commands[:-2]
    failed = False
    for command in commands:
        done = subprocess.run(  # noqa: S603 - this interpreter and our own scripts
            [sys.executable, str(HERE / command[0]), *command[1:]],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode not in (0, 1) or not done.stdout.strip():
            sys.stderr.write(done.stderr)
            failed = True
            continue
        failed |= done.returncode == 1
        text = done.stdout.strip()
        data = json.loads(text) if command[0] == "tracer_calls.py" else json.loads(text.splitlines()[-1])
        if command[0] == "tracer_calls.py":
            data = {"benchmark": "tracer_calls", **data}
        sys.stdout.write(json.dumps(data) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
