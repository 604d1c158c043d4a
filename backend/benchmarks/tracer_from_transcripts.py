"""The model from transcripts against a live TRACER run: recall against the ground truth and LLM calls spent.

    cd backend && .venv/bin/python benchmarks/tracer_from_transcripts.py [--bots pizza,bike] [--conversations 300]
        [--sample 40] [--sessions 10] [--turns 8] [--seeds 3] [--json FILE]

For each bot: the scripted population (`engine.bots.population`, TEST DATA) writes `--conversations`
conversations, `engine.transcripts.import_transcripts` imports them (masked), then
- `model_from_transcripts` reads a sample of `--sample` of them (extraction, consolidation, workflow, profiles);
- a live `run_tracer` of `--sessions` sessions of `--turns` turns explores the in-process bot;
both on the same offline imperfect LLM double (`engine.evaluation.doubles`; the figures measure Parley's
machinery, not a real model), scored with the bench's lexical matcher (`engine.evaluation.matching`). Exit 1 when
the model from transcripts has a lower recall than the live run or spends more LLM calls, over all bots.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from datetime import date
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from engine.bots import load_bot
from engine.bots.population import write_population
from engine.evaluation.doubles import NOTE, imperfect_factory
from engine.evaluation.matching import precision_recall
from engine.evaluation.target import CoverageLogs, CoveredBot
from engine.tracer import TracerConfig, TracerDeps, TracerJob, run_tracer
from engine.tracer.from_transcripts import model_from_transcripts, read_conversations
from engine.transcripts import import_transcripts

TODAY = date(2026, 3, 2)


def measure(
    bot: str, *, conversations: int, sample: int, sessions: int, turns: int, seed: int
) -> dict[str, Any]:
    definition = load_bot(bot)
    factory = imperfect_factory(seed)
    with tempfile.TemporaryDirectory() as tmp:
        raw, imported = Path(tmp) / "raw.jsonl", Path(tmp) / "imported"
        write_population(bot, conversations, raw, seed=seed)
        import_transcripts(raw, imported)
        loaded = read_conversations(imported)
        with factory(f"tracer:{bot}") as llm:
            built = model_from_transcripts(
                loaded, llm, config=TracerConfig(seed=seed), sample=sample, seed=seed
            )
            offline_calls = len(llm.ledger.records)
    offline = precision_recall(built.model, definition, matcher="lexical")
    with factory(f"tracer:{bot}") as llm:
        live_result = run_tracer(
            TracerJob(
                TracerConfig(sessions=sessions, turns=turns, seed=seed),
                TracerDeps(
                    llm=llm, connector=CoveredBot(definition, CoverageLogs(), today=TODAY, label="tracer")
                ),
                run_id=f"live-{bot}-{seed}",
                checkpointer=InMemorySaver(),
            )
        )
        live_calls = len(llm.ledger.records)
    live = precision_recall(live_result.model, definition, matcher="lexical")
    top = sorted(built.reached.items(), key=lambda kv: -kv[1]["conversations"])[:3]
    return {
        "bot": bot,
        "seed": seed,
        "sampled": len(built.plan.sampled),
        "paths": built.plan.groups,
        "estimated_calls": built.plan.estimated_calls["total"],
        "transcripts": {
            "recall": offline["recall"],
            "precision": offline["precision"],
            "calls": offline_calls,
        },
        "live": {"recall": live["recall"], "precision": live["precision"], "calls": live_calls},
        "most_reached": {name: info["share"] for name, info in top},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--bots", default="pizza,bike,photography,veterinary")
    parser.add_argument("--conversations", type=int, default=300)
    parser.add_argument("--sample", type=int, default=40)
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--turns", type=int, default=8)
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    rows = [
        measure(bot, conversations=args.conversations, sample=args.sample, sessions=args.sessions,
                turns=args.turns, seed=seed)
        for bot in args.bots.split(",")
        for seed in range(args.seeds)
    ]  # fmt: skip
    out = [
        (
            f"({NOTE}; lexical matcher; population = scripted test data; {args.sample} conversations read of "
            f"{args.conversations}; live: {args.sessions} sessions x {args.turns} turns)"
        ),
        (
            "| bot | seed | recall from transcripts | recall live | precision from transcripts | precision live "
            "| LLM calls from transcripts | LLM calls live |"
        ),
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        t, live = row["transcripts"], row["live"]
        out.append(
            f"| {row['bot']} | {row['seed']} | {t['recall']} | {live['recall']} | {t['precision']} | "
            f"{live['precision']} | {t['calls']} | {live['calls']} |"
        )
    t_recall = sum(r["transcripts"]["recall"] or 0 for r in rows) / len(rows)
    l_recall = sum(r["live"]["recall"] or 0 for r in rows) / len(rows)
    t_calls = sum(r["transcripts"]["calls"] for r in rows)
    l_calls = sum(r["live"]["calls"] for r in rows)
    out.append(
        f"mean recall {t_recall:.1f} % from transcripts vs {l_recall:.1f} % live; LLM calls {t_calls} vs "
        f"{l_calls} ({100 * t_calls / max(1, l_calls):.0f} %)"
    )
    sys.stdout.write("\n".join(out) + "\n")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"note": NOTE, "rows": rows}, indent=2) + "\n", encoding="utf-8"
        )
    return 0 if t_recall >= l_recall and t_calls < l_calls else 1


if __name__ == "__main__":
    sys.exit(main())
