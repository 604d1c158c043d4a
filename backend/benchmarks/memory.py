"""Peak resident memory of a 100-conversation SENSEI run and of a 10 x 8 TRACER run (target < 400 MB each).

    cd backend && .venv/bin/python benchmarks/memory.py [--latency 0.05]

Each run happens in a fresh child process (what a worker does with one run), in process against a reference
bot, with the fake OpenAI-compatible server on 127.0.0.1 in the same process (so the figure is an upper bound
for the worker). The peak is the child's `ru_maxrss`; the Python-heap peak from `tracemalloc` is printed too.
Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TARGET_MB = 400


def _child(kind: str, latency: float) -> dict[str, Any]:
    sys.path.insert(0, str(HERE.parent))
    sys.path.insert(0, str(HERE))
    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tracemalloc.start()
    started = time.monotonic()
    if kind == "sensei":
        from sensei_concurrency import MESSAGES, run

        from engine.llm.offline.server import running_fake_server

        script = {
            "sensei.user_turn": MESSAGES * 10_000,
            "sensei.extract": {"json": {"price": {"amount": 21, "currency": "USD"}}},
        }
        with running_fake_server(script, latency_s=latency) as server:
            detail = run(100, 8, base_url=server.base_url, steps=3, bot="pizza")
        what = {"conversations": detail["conversations"]}
    else:
        from tracer_calls import measure

        report = measure("pizza", 10, 8)
        what = {"sessions": 10, "turns": 8, "calls": report["calls_total"]}
    _, heap_peak = tracemalloc.get_traced_memory()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux
    return {
        "run": kind,
        **what,
        "seconds": round(time.monotonic() - started, 2),
        "peak_rss_mb": round(peak, 1),
        "rss_after_imports_mb": round(baseline, 1),
        "python_heap_peak_mb": round(heap_peak / 1024 / 1024, 1),
        "target_mb": TARGET_MB,
        "ok": peak < TARGET_MB,
    }


def measure(latency: float) -> dict[str, Any]:
    runs = []
    for kind in ("sensei", "tracer"):
        done = subprocess.run(  # noqa: S603 - this interpreter and this file
            [sys.executable, __file__, "--child", kind, "--latency", str(latency)],
            check=True,
            capture_output=True,
            text=True,
        )
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return {"benchmark": "memory", "runs": runs, "ok": all(r["ok"] for r in runs)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.05, help="seconds the fake LLM adds per call")
    parser.add_argument("--child", choices=("sensei", "tracer"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    result = _child(args.child, args.latency) if args.child else measure(args.latency)
    sys.stdout.write(json.dumps(result) + "\n")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
