"""`parley tracer`: explore a chatbot, infer its functional model and write SENSEI profiles (TRACER).

    parley tracer --connector bot.yaml --provider openai --model gpt-4.1-mini -s 10 -n 8 -o out/ [--resume]
    parley tracer --from-transcripts imported/ --provider openai --model gpt-4.1-mini -o out/ [--sample 40]

Checkpoints go to OUT/.checkpoint.sqlite after every session and every phase; `--resume` continues an
interrupted run from there (without it, an old checkpoint is discarded and the run starts again).
Exit codes: 0 a model and at least one valid profile; 1 the run failed or produced no valid profile;
2 bad usage or configuration (connector file, LLM settings, egress policy).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path

from commands.common import (
    EXIT_FAILURES,
    EXIT_OK,
    EXIT_USAGE,
    add_json_argument,
    add_llm_arguments,
    cli_context,
    egress_guard_from_env,
    int_at_least,
    provider_config_from_args,
    report_errors,
    write_json,
)

SEED_FILE = "seed.json"
CHECKPOINT = ".checkpoint.sqlite"
RUN_ID = "parley-tracer"


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "tracer",
        help="explore a chatbot and generate SENSEI profiles (TRACER)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--connector", "-c", metavar="FILE", help="connector YAML file (a live run)")
    parser.add_argument(
        "--from-transcripts",
        metavar="DIR",
        help="build the model from conversations imported with `parley transcripts import`, without exploring",
    )
    parser.add_argument(
        "--sample", type=int_at_least(1), default=40, help="with --from-transcripts: conversations read (40)"
    )
    parser.add_argument(
        "--double",
        choices=("imperfect",),
        help="with --from-transcripts: Parley's offline imperfect LLM double (figures labelled fake)",
    )
    add_llm_arguments(parser, model=False)
    parser.add_argument("--model", "-m", help="model TRACER uses (default: the provider's default model)")
    parser.add_argument(
        "--profile-model", "-pm", help="model written into the profiles' llm.model (default: --model)"
    )
    parser.add_argument(
        "--sessions", "-s", type=int_at_least(1), default=3, help="exploration sessions (default 3)"
    )
    parser.add_argument(
        "--turns", "-n", type=int_at_least(2), default=8, help="explorer messages per session (default 8)"
    )
    parser.add_argument("--out", "--output", "-o", required=True, metavar="DIR", help="output directory")
    parser.add_argument("--resume", action="store_true", help="continue the run checkpointed in DIR")
    parser.add_argument(
        "--seed", type=int, help="seed for every random choice (default: random; a resumed run keeps its own)"
    )
    parser.add_argument("--verbose", "-v", action="store_true", help="print every message of the exploration")
    add_json_argument(parser)
    parser.set_defaults(handler=report_errors(_run))


def _run(args: argparse.Namespace) -> int:
    if args.from_transcripts:
        from commands.tracer_transcripts import run as from_transcripts

        return from_transcripts(args)
    if not args.connector:
        sys.stderr.write("parley: tracer needs --connector FILE (or --from-transcripts DIR)\n")
        return EXIT_USAGE
    if args.double:
        sys.stderr.write("parley: --double works with --from-transcripts only\n")
        return EXIT_USAGE
    from langgraph.checkpoint.sqlite import SqliteSaver

    from engine.connectors import ConnectorConfigError, create_connector, load_connector_file
    from engine.llm import LLMClient, ProviderState, UsageLedger
    from engine.tracer import TracerConfig, TracerDeps, TracerJob, run_tracer

    out = Path(args.out)
    try:
        connector_config = load_connector_file(args.connector)
    except ConnectorConfigError as exc:
        sys.stderr.write(f"parley: {exc.user_message}\n")
        return EXIT_USAGE
    guard = egress_guard_from_env()
    provider = provider_config_from_args(args)
    out.mkdir(parents=True, exist_ok=True)
    checkpoint = out / CHECKPOINT
    if checkpoint.exists() and not args.resume:
        checkpoint.unlink()
    elif args.resume and not checkpoint.exists():
        sys.stderr.write(f"parley: no checkpoint in {out}; starting a new run\n")
    seed = _seed(out / SEED_FILE, args.seed, resume=args.resume and checkpoint.exists())
    config = TracerConfig(
        sessions=args.sessions, turns=args.turns, profile_model=args.profile_model, output_dir=out, seed=seed
    )
    try:
        connector = create_connector(connector_config, guard)
    except ConnectorConfigError as exc:
        sys.stderr.write(f"parley: {exc.user_message}\n")
        return EXIT_USAGE
    connection = sqlite3.connect(checkpoint, check_same_thread=False)
    context = cli_context(verbose=args.verbose)
    # Adaptations to the model ("o4-mini accepts only its default temperature…") are run warnings.
    state = ProviderState(on_warning=context.reporter.warning)
    try:
        with LLMClient(provider, guard=guard, ledger=UsageLedger(), state=state) as llm, connector:
            result = run_tracer(
                TracerJob(
                    config,
                    TracerDeps(llm=llm, connector=connector),
                    run_id=RUN_ID,
                    checkpointer=SqliteSaver(connection),
                ),
                context,
            )
    finally:
        connection.close()
    summary = {
        "ok": result.ok,
        "output_dir": str(out),
        "functionalities": len(result.model.functionalities),
        "profiles": len(result.valid_profiles),
        "invalid_profiles": len(result.profiles) - len(result.valid_profiles),
        "languages": result.model.languages,
        "fallback": result.model.fallback,
        "chatbot_type": result.model.chatbot_type,
        "usage": result.usage,
        "resumed": result.resumed,
        "seed": seed,
    }
    if args.json:
        write_json(args.json, summary)
    else:
        sys.stdout.write(
            f"{summary['functionalities']} functionalities, {summary['profiles']} valid profile(s), "
            f"{summary['invalid_profiles']} invalid; {result.usage['calls']} LLM calls, "
            f"{result.usage['cost_usd']:.4f} USD, seed {seed}. Artefacts in {out}/ (report.md).\n"
        )
    return EXIT_OK if result.ok else EXIT_FAILURES


def _seed(path: Path, given: int | None, *, resume: bool) -> int:
    """The run's seed: the one given, else the stored one when resuming, else a new random one; kept in OUT so a
    resumed run explores with the seed it started with (as the platform stores it with the run)."""
    from engine.sensei import new_seed

    if given is None and resume and path.exists():
        given = int(json.loads(path.read_text(encoding="utf-8"))["seed"])
    seed = new_seed() if given is None else given
    path.write_text(json.dumps({"seed": seed}) + "\n", encoding="utf-8")
    return seed
