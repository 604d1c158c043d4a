"""SENSEI throughput: conversations per minute at concurrency 1, 4, 8 and 16 (target: near-linear to 8).

    cd backend && .venv/bin/python benchmarks/sensei_throughput.py [--latency 0.3] [--per-worker 5] [--steps 3]

The fake OpenAI-compatible server on 127.0.0.1 adds `--latency` seconds to every LLM call; the reference bot
runs in process (the set-up of `sensei_concurrency.py`, whose `run` this reuses). At concurrency K it runs
K x `--per-worker` conversations. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from sensei_concurrency import MESSAGES, run

from engine.llm.offline.server import running_fake_server

LEVELS = (1, 4, 8, 16)


def measure(latency: float, per_worker: int, steps: int, bot: str = "pizza") -> dict[str, Any]:
    script = {
        "sensei.user_turn": MESSAGES * 10_000,
        "sensei.extract": {"json": {"price": {"amount": 21, "currency": "USD"}}},
    }
    rows: dict[str, Any] = {}
    with running_fake_server(script, latency_s=latency) as server:
        run(1, 1, base_url=server.base_url, steps=steps, bot=bot)  # warm-up
        for level in LEVELS:
            result = run(level * per_worker, level, base_url=server.base_url, steps=steps, bot=bot)
            rows[str(level)] = {
                "conversations": result["conversations"],
                "seconds": result["seconds"],
                "per_minute": round(60 * result["conversations"] / result["seconds"], 1),
            }
    base = rows["1"]["per_minute"]
    for row in rows.values():
        row["speedup"] = round(row["per_minute"] / base, 2)
    return {
        "benchmark": "sensei_throughput",
        "latency_s": latency,
        "steps": steps,
        "levels": rows,
        "target_near_linear_to_8": rows["8"]["speedup"] >= 0.75 * 8,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--per-worker", type=int, default=5, help="conversations per unit of concurrency")
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args(argv)
    sys.stdout.write(json.dumps(measure(args.latency, args.per_worker, args.steps)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
