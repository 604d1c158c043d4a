"""Record and replay for `parley sensei run` (engine.regression.replay, README D24).

Every run records its LLM calls in `OUT/exchanges.jsonl`. `--replay FROM_DIR` plans what FROM_DIR's run planned
(its seed, plan date, any() values and repeats, unless given) and answers each LLM call from FROM_DIR's recording
when its prompt is the same after normalising volatile values (the connector file's `volatile` list and
`--volatile REGEX` add patterns); an unchanged
chatbot is re-tested with no LLM call. The summary (`OUT/summary.json`, `replay`) and the last line say how
many calls were saved and made.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any


def add_replay_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--replay",
        metavar="FROM_DIR",
        help="re-send FROM_DIR's recorded user turns and reuse its LLM answers while the chatbot answers alike",
    )
    parser.add_argument(
        "--volatile",
        action="append",
        default=[],
        metavar="REGEX",
        help="a value that changes between runs (besides ids, UUIDs, dates, times); repeatable",
    )


@dataclass
class ReplaySetup:
    replay: Any  # engine.regression.replay.Replay
    source_dir: str | None
    seed: int | None
    planned_on: date
    any_values: dict[str, list[str]]
    repeats: int


def replay_setup(args: argparse.Namespace, connector_volatile: Sequence[str] = ()) -> ReplaySetup | None:
    """The run's record-and-replay set-up, or None (after printing why) when FROM_DIR cannot be replayed.
    `connector_volatile` are the connector file's volatile patterns; `--volatile` adds to them."""
    from engine.regression.replay import Replay, load_replay_source

    patterns = [*connector_volatile, *args.volatile]
    try:
        if not args.replay:
            return ReplaySetup(
                Replay(patterns=patterns), None, args.seed, date.today(), {}, args.repeats or 1
            )
        source = load_replay_source(args.replay)
        planned_on = date.fromisoformat(source.planned_on) if source.planned_on else date.today()
        return ReplaySetup(
            replay=Replay(source.recording, patterns=patterns),
            source_dir=args.replay,
            seed=args.seed if args.seed is not None else source.seed,
            planned_on=planned_on,
            any_values=dict(source.any_values),
            repeats=args.repeats or source.repeats,
        )
    except (OSError, ValueError) as exc:  # a missing or broken recording, a bad --volatile pattern
        sys.stderr.write(f"parley: {exc}\n")
        return None


def finish_replay(out: Path, setup: ReplaySetup, summary: dict[str, Any]) -> str:
    """Writes the run's recording beside its records, adds the replay figures to `summary`; the line to print."""
    from engine.regression.replay import RECORDING_FILE

    setup.replay.recording.write(out / RECORDING_FILE)
    stats = setup.replay.stats.to_json()
    if setup.source_dir is None:
        return ""
    summary["replay"] = {"source": setup.source_dir, **stats}
    user_turns = stats["made_by_tag"].get("sensei.user_turn", 0)
    return (
        f"replayed {setup.source_dir}: {stats['calls_saved']} LLM call(s) saved, {stats['calls_made']} made "
        f"({user_turns} simulated-user turn(s))\n"
    )
