"""`parley tracer --from-transcripts DIR`: TRACER's model and profiles from imported conversations, no exploration.

    parley transcripts import logs.jsonl --out imported/
    parley tracer --from-transcripts imported/ --provider openai --model gpt-4.1-mini -o out/ [--sample 40]
    parley tracer --from-transcripts imported/ --double imperfect -o out/      # offline, fake LLM

Prints the sampling plan and the cost estimate before the first LLM call, then what was built. Writes TRACER's
artefacts into OUT (model.json, profiles/, report.md…) plus OUT/provenance.json: "source: transcripts", the plan,
and how many imported conversations reached each functionality. Exit 0 with a model and a valid profile, 1 without,
2 when DIR holds no import or the LLM settings are wrong.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from commands.common import (
    EXIT_FAILURES,
    EXIT_OK,
    EXIT_USAGE,
    cli_context,
    egress_guard_from_env,
    provider_config_from_args,
    write_json,
)


def run(args: argparse.Namespace) -> int:
    from engine.evaluation.doubles import NOTE, imperfect_factory
    from engine.llm import LLMClient, ProviderState, UsageLedger
    from engine.tracer import TracerConfig
    from engine.tracer.from_transcripts import PROVENANCE_FILE, SamplingPlan, read_conversations
    from engine.tracer.traffic_profiles import TRAFFIC_FOLDER
    from engine.tracer.transcript_build import build_from_transcripts
    from engine.transcripts import TranscriptError

    source, out = Path(args.from_transcripts), Path(args.out)
    try:
        conversations = read_conversations(source)
    except TranscriptError as exc:
        sys.stderr.write(f"parley: {exc}\n")
        return EXIT_USAGE
    if not conversations:
        sys.stderr.write(f"parley: {source} holds no conversations\n")
        return EXIT_USAGE
    out.mkdir(parents=True, exist_ok=True)
    seed = args.seed if args.seed is not None else 0
    config = TracerConfig(profile_model=args.profile_model, output_dir=out, seed=seed)

    def show_plan(plan: SamplingPlan) -> None:
        sys.stdout.write("Source: transcripts (" + str(source) + ")\n" + plan.text() + "\n")
        sys.stdout.flush()

    if args.double:
        sys.stdout.write(f"({NOTE})\n")
        client = imperfect_factory(seed)("tracer:transcripts")
    else:
        guard = egress_guard_from_env()
        client = LLMClient(
            provider_config_from_args(args), guard=guard, ledger=UsageLedger(), state=ProviderState()
        )
    with client as llm:
        build = build_from_transcripts(
            conversations,
            llm,
            config=config,
            sample=args.sample,
            seed=seed,
            context=cli_context(verbose=args.verbose),
            on_plan=show_plan,
        )
    built, written = build.built, build.traffic
    folder = out / TRAFFIC_FOLDER
    folder.mkdir(exist_ok=True)
    for profile in written:
        (folder / f"{profile.name}.yaml").write_text(profile.yaml, encoding="utf-8")
    summary: dict[str, Any] = {
        "ok": bool(built.model.functionalities) and bool(built.valid_profiles),
        "source": "transcripts",
        "output_dir": str(out),
        "conversations": built.plan.conversations,
        "sampled": len(built.plan.sampled),
        "functionalities": len(built.model.functionalities),
        "profiles": len(built.valid_profiles),
        "reached": built.reached,
        "usage": built.usage,
        "traffic_profiles": [
            {"name": p.name, "kind": p.kind, "share": p.share, "valid": p.valid, "errors": p.errors}
            for p in written
        ],
    }
    if args.json:
        write_json(args.json, summary)
    else:
        top = sorted(built.reached.items(), key=lambda kv: -kv[1]["conversations"])
        lines = [f"  {name}: {info['share']:.0%} of conversations" for name, info in top[:10]]
        sys.stdout.write(
            f"{summary['functionalities']} functionalities, {summary['profiles']} valid profile(s) from "
            f"{summary['sampled']} of {summary['conversations']} conversations; {built.usage['calls']} LLM calls. "
            f"Most reached:\n" + "\n".join(lines) + "\n"
            f"{sum(p.valid for p in written)} profile(s) that follow real traffic in {folder}/ "
            f"({', '.join(f'{p.name} {p.share:.0%}' for p in written)}).\nArtefacts in {out}/ ({PROVENANCE_FILE}, report.md).\n"
        )
    return EXIT_OK if summary["ok"] else EXIT_FAILURES
