"""`parley sensei shrink`: the shortest script that still fails, pinned as an LLM-free scripted profile.

    parley sensei shrink RECORD --connector FILE --out DIR [--replays 3 --needed 2] [--max-chatbot-calls 200]
                                [--profile FILE] [--markdown FILE] [--junit FILE] [--provider … --model …]

RECORD is one conversation record of `parley sensei run --out` (a failed one). The check that captures its
failure is derived by code from its verdict; an LLM (the usual options) is asked only when no rule fits, so
without a key the command still shrinks every failure a rule covers. `--profile` names the profile the record
came from, for its outputs' types (else an output's name says it: `total_price` is money). Each candidate is
replayed literally through the connector: a candidate is kept when the failure shows in `--needed` of
`--replays` replays. Writes DIR/shrink.json (the result) and, when the failure reproduced, DIR/<name>.yaml (the
pinned profile, for `parley sensei run`). `--markdown` and `--junit` write the bug report and a JUnit case.

Exit codes: 0 shrunk and pinned; 1 the failure did not reproduce (nothing pinned); 2 bad usage or input.
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
    add_json_argument,
    add_llm_arguments,
    cli_context,
    egress_guard_from_env,
    int_at_least,
    provider_config_from_args,
    provider_state,
    report_errors,
    write_json,
)

MAX_RECORD_BYTES = 20 * 1024 * 1024  # a record of 200 long turns is well under 1 MB


def add_shrink_parser(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    shrink = actions.add_parser(
        "shrink",
        help="shrink a failed conversation to the shortest script that still fails, and pin it",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    shrink.add_argument("record", metavar="RECORD", help="a failed conversation record (JSON)")
    shrink.add_argument("--connector", required=True, metavar="FILE", help="connector YAML file")
    shrink.add_argument(
        "--out", required=True, metavar="DIR", help="folder for shrink.json and the pinned profile"
    )
    shrink.add_argument(
        "--replays", type=int_at_least(1), default=3, help="replays per candidate (default 3)"
    )
    shrink.add_argument(
        "--needed",
        type=int_at_least(1),
        default=2,
        help="replays that must fail to keep a candidate (default 2)",
    )
    shrink.add_argument(
        "--max-chatbot-calls",
        type=int_at_least(1),
        default=200,
        help="requests the search may send to the chatbot (default 200)",
    )
    shrink.add_argument("--profile", metavar="FILE", help="the record's profile, for its outputs' types")
    shrink.add_argument("--markdown", metavar="FILE", help="write the bug report as Markdown to FILE")
    shrink.add_argument("--junit", metavar="FILE", help="write the shrunk failure as a JUnit case to FILE")
    add_llm_arguments(shrink)
    add_json_argument(shrink)
    shrink.set_defaults(handler=report_errors(_shrink))


def _read_record(path: str) -> Any:
    from pydantic import ValidationError

    from engine.conversation import ConversationRecord

    file = Path(path)
    try:
        if file.stat().st_size > MAX_RECORD_BYTES:
            raise ValueError(
                f"larger than {MAX_RECORD_BYTES // (1024 * 1024)} MB; is it a conversation record?"
            )
        return ConversationRecord.model_validate_json(file.read_bytes())
    except OSError as exc:
        raise ValueError(f"cannot be read ({exc.strerror or exc})") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "the top level"
        raise ValueError(f"is not a conversation record ({where}: {first.get('msg')})") from None


def _output_types(path: str | None) -> dict[str, Any]:
    if not path:
        return {}
    from engine.sensei import load_profile

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"--profile {path}: cannot be read ({exc})") from None
    profile, problems = load_profile(text, source=path)
    if profile is None:
        shown = "; ".join(p.render() for p in problems if p.is_error)
        raise ValueError(f"--profile {path}: {shown}")
    return {output.name: output.type for output in profile.chatbot.outputs}


def _llm(args: argparse.Namespace, guard: Any) -> Any:
    """The LLM client when the options give one; None otherwise — most failures need none."""
    from engine.llm import LLMClient, LLMConfigError

    try:
        config = provider_config_from_args(args)
    except LLMConfigError:
        return None
    return LLMClient(config, guard=guard, state=provider_state())


def _shrink(args: argparse.Namespace) -> int:
    from engine.connectors import ConnectorConfigError, create_connector, load_connector_file
    from engine.regression.shrink import SHRINK_WARNING, ShrinkError, ShrinkJob, shrink_record
    from engine.regression.shrink.bugreport import to_junit, to_markdown

    if args.needed > args.replays:
        sys.stderr.write(f"parley: --needed ({args.needed}) cannot exceed --replays ({args.replays})\n")
        return EXIT_USAGE
    try:
        record = _read_record(args.record)
        types = _output_types(args.profile)
        connector_config = load_connector_file(args.connector)
    except ValueError as exc:
        where = "" if str(exc).startswith("--profile") else f"{args.record}: "
        sys.stderr.write(f"parley: {where}{exc}\n")
        return EXIT_USAGE
    except ConnectorConfigError as exc:
        sys.stderr.write(f"parley: {exc.user_message}\n")
        return EXIT_USAGE
    guard = egress_guard_from_env()
    sys.stderr.write(f"parley: warning: {SHRINK_WARNING}\n")
    llm = _llm(args, guard)
    try:
        result = shrink_record(
            ShrinkJob(
                record,
                lambda: create_connector(connector_config, guard),
                replays=args.replays,
                needed=args.needed,
                max_chatbot_calls=args.max_chatbot_calls,
                output_types=types,
                llm=llm,
            ),
            cli_context(),
        )
    except ShrinkError as exc:
        sys.stderr.write(f"parley: {exc.user_message}\n")
        return EXIT_USAGE
    finally:
        if llm is not None:
            llm.close()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    document = result.model_dump(mode="json")
    write_json(str(out / "shrink.json"), document)
    if result.pinned_profile:
        (out / f"{result.name}.yaml").write_text(result.pinned_profile, encoding="utf-8")
    if args.markdown:
        Path(args.markdown).write_text(to_markdown(result), encoding="utf-8")
    if args.junit:
        Path(args.junit).write_text(to_junit(result), encoding="utf-8")
    if args.json:
        write_json(args.json, document)
    else:
        sys.stdout.write(_summary(result, out))
    return EXIT_OK if result.reproduced else EXIT_FAILURES


def _summary(result: Any, out: Path) -> str:
    lines = [
        f"failure: {result.failure.reason}: {result.failure.explanation}",
        f"check: {result.failure.label()}",
    ]
    if result.reproduced:
        lines += [
            (
                f"shrunk: {result.original_turns} → {result.shrunk_turns} user turn(s), reproduced in "
                f"{result.reproduction.text()} (needed {result.reproduction.needed})"
            ),
            *(f"  {i}. {message}" for i, message in enumerate(result.script, start=1)),
            f"pinned: {out / (result.name + '.yaml')}",
        ]
    lines.append(
        f"{result.chatbot_calls} chatbot call(s), {result.llm_calls} LLM call(s), {result.candidates} candidate(s)"
    )
    lines += [f"note: {w}" for w in result.warnings[1:]]
    return "\n".join(lines) + "\n"
