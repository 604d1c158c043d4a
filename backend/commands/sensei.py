"""`parley sensei`: validate profiles, show their plan, run them against a chatbot.

    parley sensei validate PROFILE... [--strict] [--allow-local-files]
    parley sensei plan PROFILE [--seed S] [--json]
    parley sensei run PROFILE... --connector FILE --provider P --model M [--base-url URL] [--api-key K]
                      [--concurrency K] [--seed S] [--repeats K] [--replay FROM_DIR] --out DIR [--junit FILE]
                      [--fail-on-inconclusive] [--allow-local-files]
    parley sensei compare BASELINE RUN [--json [FILE]] [--junit FILE] [--threshold X] [--fail-on-inconclusive]
    parley sensei coverage --tracer DIR --run DIR [--json [FILE]] [--fail-on-unreached]

A PROFILE may be a folder: every *.yml / *.yaml under it is a profile. Custom personalities and types are read
from `personalities/` and `types/` folders next to the profile or one level up (the reference's project layout).
`run` writes `OUT/plan.json` (seed, date, the values invented for any() items, each profile's rows) before the
first conversation, one JSON record per conversation as soon as it finishes (`OUT/<profile>/<index>.json`; a
second profile with the same test name is keyed `<name>#2`), then `OUT/summary.json`.

Every record carries a verdict (`engine.sensei.verdicts`): only `failed` is a chatbot failure — in the exit code
and in JUnit (`<failure>`); `inconclusive` conversations (the simulated user never conveyed a goal's inputs or
left its role, an LLM or infrastructure failure, a rate limit) are listed apart with their reasons, as JUnit
`<skipped>`. The last lines count verdicts, inconclusive reasons and simulator slips. Exit codes: 0 no
conversation failed, 1 some failed (or a profile has errors; with `--fail-on-inconclusive`, also when some are
inconclusive), 2 usage or configuration error. `--repeats K` runs each planned conversation K times with other simulator seeds (records
`settings.repeat` and `settings.planned_index`), so `compare` can tell a flaky conversation from a broken one;
`--replay FROM_DIR` re-tests with FROM_DIR's recorded LLM answers (`commands.replay`); `compare` is documented in
`commands.compare`, `coverage` in `commands.coverage`, `shrink` in `commands.shrink`.

Reliability (README D33): every profile reports pass^k (planned conversations whose decided repeats all passed) and
pass@1 (decided repeats that passed), each with its Wilson interval (`engine.regression.reliability`): printed
when K > 1, always in `summary.json` (`reliability`), and with K > 1 in JUnit (a `<profile> reliability` case
per profile, with properties). A run whose profiles are all scripted without goals needs no LLM: no API key is asked for.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from commands.common import (
    EXIT_FAILURES,
    EXIT_OK,
    EXIT_USAGE,
    JUnitCase,
    add_json_argument,
    add_junit_argument,
    add_llm_arguments,
    cli_context,
    egress_guard_from_env,
    int_at_least,
    provider_config_from_args,
    provider_state,
    report_errors,
    write_json,
    write_junit,
)
from commands.compare import add_compare_parser
from commands.coverage import add_coverage_parser
from commands.replay import add_replay_arguments, finish_replay, replay_setup
from commands.sensei_output import reliability_cases, reliability_of, verdict_lines
from commands.shrink import add_shrink_parser


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sensei = commands.add_parser(
        "sensei", help="user simulator: validate, plan and run conversation profiles"
    )
    actions = sensei.add_subparsers(dest="sensei_action", metavar="ACTION", required=True)

    validate = actions.add_parser("validate", help="check profiles (exit 1 on errors)")
    validate.add_argument("profiles", nargs="+", metavar="PROFILE")
    validate.add_argument("--strict", action="store_true", help="unknown keys are errors, not warnings")
    _add_local_files(validate)
    add_json_argument(validate)
    validate.set_defaults(handler=report_errors(_validate))

    plan = actions.add_parser("plan", help="show the conversations a profile will run (no LLM call)")
    plan.add_argument("profile", metavar="PROFILE")
    plan.add_argument("--seed", type=int, help="seed for random selectors (default: random, printed)")
    plan.add_argument("--model", help="model used for the cost estimate (default: the profile's)")
    _add_local_files(plan)
    add_json_argument(plan)
    plan.set_defaults(handler=report_errors(_plan))

    run = actions.add_parser("run", help="run profiles against a chatbot")
    run.add_argument("profiles", nargs="+", metavar="PROFILE")
    run.add_argument("--connector", required=True, metavar="FILE", help="connector YAML file")
    add_llm_arguments(run)
    run.add_argument("--concurrency", type=int, default=4, help="conversations at once (default 4)")
    run.add_argument(
        "--seed", type=int, help="seed for the plans and the simulation (default: random, printed at the end)"
    )
    run.add_argument("--out", required=True, metavar="DIR", help="folder for the conversation records")
    run.add_argument("--max-cost", type=float, help="USD budget for the whole run")
    run.add_argument(
        "--fail-on-inconclusive",
        action="store_true",
        help="exit 1 when a conversation is inconclusive, not only when one failed",
    )
    run.add_argument(
        "--repeats",
        type=int_at_least(1),
        metavar="K",
        help="run each planned conversation K times with other simulator seeds (flakiness; default 1)",
    )
    run.add_argument(
        "--calibrated-user",
        metavar="FILE",
        help="a personality from `parley transcripts calibrate`: the simulator enforces its measured behaviour",
    )
    add_replay_arguments(run)
    add_junit_argument(run)
    _add_local_files(run)
    run.set_defaults(handler=report_errors(_run))

    add_compare_parser(actions)
    add_coverage_parser(actions)
    add_shrink_parser(actions)


def _personality_calibrations(files: list[Path], profiles: list[Any]) -> dict[str, Any]:
    """The calibrated users the profiles' personalities carry (a `personalities/*.yaml` with `parameters`)."""
    from engine.sensei.calibration import calibration_of
    from engine.sensei.personalities import personality_key

    found: dict[str, Any] = {}
    for path, profile in zip(files, profiles, strict=False):
        name = profile.user.personality
        if name and personality_key(name) not in found:
            calibration = calibration_of(_project_catalogs(path)[0].resolve(name))
            if calibration is not None:
                found[personality_key(name)] = calibration
    return found


def _calibrated_settings(path: str | None, by_personality: dict[str, Any] | None = None) -> Any:
    """Simulator settings enforcing a calibrated user: the file given for the whole run, else each profile's
    calibrated personality (None: the defaults)."""
    from engine.sensei import SimulatorSettings

    if not path:
        return SimulatorSettings(calibrations=by_personality) if by_personality else None
    from engine.sensei.calibration import Calibration
    from engine.yamlguard import load_yaml

    data = load_yaml(Path(path).read_text(encoding="utf-8"), round_trip=False) or {}
    parameters = data.get("parameters") if isinstance(data, dict) else None
    if not isinstance(parameters, dict):
        raise SystemExit(f"parley: {path} has no parameters: write it with `parley transcripts calibrate`")
    return SimulatorSettings(calibration=Calibration.from_parameters(parameters))


def _add_local_files(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow-local-files",
        action="store_true",
        help="let profiles read local files and run custom-function generators (trusted profiles only)",
    )


def _profile_files(targets: list[str]) -> list[Path]:
    files: list[Path] = []
    for target in targets:
        path = Path(target)
        if path.is_dir():
            files += sorted(
                p
                for p in path.rglob("*")
                if p.suffix in (".yml", ".yaml")
                and p.is_file()
                and not {"personalities", "types"} & set(p.relative_to(path).parts[:-1])
            )
        else:
            files.append(path)
    return files


def _project_catalogs(path: Path) -> tuple[Any, Any]:
    from engine.sensei import Personality, PersonalityCatalog, TypeCatalog, parse_custom_type
    from engine.yamlguard import load_yaml

    personalities: list[Personality] = []
    types = []
    for folder in (path.parent, path.parent.parent):
        for file in sorted((folder / "personalities").glob("*.y*ml")):
            data = load_yaml(file.read_text(encoding="utf-8"), round_trip=False) or {}
            context = data.get("context") if isinstance(data, dict) else None
            if isinstance(context, list):
                parameters = data.get("parameters")  # a calibrated user's measured behaviour
                personalities.append(
                    Personality(
                        file.stem,
                        tuple(str(c) for c in context),
                        parameters=parameters if isinstance(parameters, dict) else None,
                    )
                )
        for file in sorted((folder / "types").glob("*.y*ml")):
            data = load_yaml(file.read_text(encoding="utf-8"), round_trip=False) or {}
            if isinstance(data, dict):
                types.append(parse_custom_type(data, name=file.stem))
    return PersonalityCatalog(personalities), TypeCatalog(types)


def _load(path: Path, args: argparse.Namespace, *, strict: bool = False) -> tuple[Any, list[Any]]:
    from engine.sensei import Problem, validate

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [Problem.error("unreadable", f"cannot be read ({exc})", file=str(path))]
    try:
        personalities, types = _project_catalogs(path)
    except (OSError, ValueError) as exc:
        return None, [Problem.error("project_files", f"personalities/ or types/: {exc}", file=str(path))]
    result = validate(
        text,
        source=str(path),
        allow_local_files=args.allow_local_files,
        strict=strict,
        personalities=personalities,
        types=types,
        base_dir=path.parent,
    )
    return (result.profile if result.ok else None), result.problems


def _print_problems(problems: list[Any]) -> None:
    for problem in problems:
        sys.stderr.write(problem.render() + "\n")


def _validate(args: argparse.Namespace) -> int:
    files = _profile_files(args.profiles)
    if not files:
        sys.stderr.write("parley: no profile files found\n")
        return EXIT_USAGE
    failed = 0
    report = []
    for path in files:
        profile, problems = _load(path, args, strict=args.strict)
        _print_problems(problems)
        errors = sum(1 for p in problems if p.is_error)
        failed += profile is None
        report.append(
            {
                "file": str(path),
                "ok": profile is not None,
                "errors": errors,
                "problems": [p.model_dump() for p in problems],
            }
        )
        if not args.json:
            status = "ok" if profile is not None else "invalid"
            sys.stdout.write(f"{path}: {status} ({errors} error(s), {len(problems) - errors} warning(s))\n")
    if args.json:
        write_json(args.json, report)
    return EXIT_FAILURES if failed else EXIT_OK


def _plan(args: argparse.Namespace) -> int:
    from engine.sensei import PlanError, plan

    path = Path(args.profile)
    profile, problems = _load(path, args)
    if profile is None:
        _print_problems(problems)
        return EXIT_FAILURES
    try:
        result = plan(profile, args.seed, model=args.model, base_dir=path.parent)
    except (PlanError, ValueError) as exc:
        sys.stderr.write(f"parley: {exc}\n")
        return EXIT_FAILURES
    if args.json:
        data = result.to_json()
        write_json(
            args.json,
            {
                "conversations": data["conversations"],
                "rows": data["rows"],
                "estimated_cost_usd": data["estimated_cost_usd"],
                "seed": data["seed"],
                "combinations": data["combinations"],
            },
        )
        return EXIT_OK
    _print_problems([p for p in problems if not p.is_error])
    out = sys.stdout
    out.write(f"{profile.name}: {len(result.conversations)} conversation(s), seed {result.seed}\n")
    if profile.script:
        checks = sum(len(step.expect) for step in profile.script)
        after = (
            "no simulated turn: decided by its checks, no LLM call"
            if profile.scripted_only
            else "then simulated"
        )
        out.write(f"  script: {len(profile.script)} literal user turn(s), {checks} check(s); {after}\n")
    names = [v.name for v in profile.user.variables]
    for conversation in result.conversations:
        values = ", ".join(f"{n}={json.dumps(conversation.values[n], ensure_ascii=False)}" for n in names)
        out.write(
            f"  {conversation.index + 1:>3}. {values or '(no variables)'}  [max {conversation.max_user_turns} "
            f"user messages]\n"
        )
    cost = result.estimated_cost_usd
    out.write(f"estimated cost: {'unknown (model not priced)' if cost is None else f'at most ${cost:.4f}'}\n")
    return EXIT_OK


def _run(args: argparse.Namespace) -> int:
    from engine.connectors import ConnectorConfigError, create_connector, load_connector_file
    from engine.llm import Budget, LLMClient
    from engine.regression import MAX_REPEATS, Repeats
    from engine.sensei import SenseiJob, run_profiles

    if args.concurrency < 1:
        sys.stderr.write("parley: --concurrency must be at least 1\n")
        return EXIT_USAGE
    files = _profile_files(args.profiles)
    profiles = []
    invalid = False
    for path in files:
        profile, problems = _load(path, args)
        _print_problems(problems)
        invalid |= profile is None
        if profile is not None:
            profiles.append(profile)
    calibrations = _personality_calibrations(files, profiles)
    if invalid or not profiles:
        sys.stderr.write("parley: fix the profile errors first; nothing was run\n")
        return EXIT_FAILURES if files else EXIT_USAGE
    try:
        connector_config = load_connector_file(args.connector)
    except ConnectorConfigError as exc:
        sys.stderr.write(f"parley: {exc.user_message}\n")
        return EXIT_USAGE
    # Every run records its LLM calls; --replay answers from another's, normalising the connector's volatile
    # patterns and --volatile's.
    replaying = replay_setup(args, connector_config.volatile)
    if replaying is None:
        return EXIT_USAGE
    if replaying.repeats > MAX_REPEATS:
        sys.stderr.write(f"parley: --repeats is at most {MAX_REPEATS}\n")
        return EXIT_USAGE
    repeats = Repeats(replaying.repeats)
    guard = egress_guard_from_env()
    config, no_llm = _provider_config(args, profiles)
    from dataclasses import replace

    config = replace(config, max_concurrency=max(config.max_concurrency, args.concurrency))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cases: list[JUnitCase] = []
    records: list[Any] = []

    def sink(record: Any) -> None:
        repeats.tag(record)
        records.append(record)
        folder = out / _safe(record.profile)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{record.index:04d}.json").write_text(record.model_dump_json(indent=2), encoding="utf-8")
        details = "\n".join(f"{e.code} {e.name}: {e.message}" for e in record.errors)
        reason = record.verdict_reason or ""
        cases.append(
            JUnitCase(
                name=f"{record.profile} #{record.index}",
                classname=f"sensei.{record.profile}",
                time_s=record.duration_s or 0.0,
                failure=f"{reason}\n{details}".strip() if record.verdict == "failed" else None,
                skipped=f"inconclusive: {reason}" if record.verdict == "inconclusive" else None,
            )
        )
        mark = {"passed": "passed", "failed": "FAILED"}.get(record.verdict or "", "inconclusive")
        shown = mark if record.verdict == "passed" else f"{mark} ({reason})"
        sys.stdout.write(
            f"{record.profile} #{record.index}: {shown} ({len(record.turns)} turns, "
            f"{record.duration_s or 0:.1f} s)\n"
        )

    any_values: dict[str, list[str]] = replaying.any_values
    planned_on = replaying.planned_on

    budget = Budget(args.max_cost) if args.max_cost is not None else None
    with LLMClient(config, guard=guard, budget=budget, state=provider_state(), chat_model=no_llm) as client:
        llm = replaying.replay.wrap(client)
        job = SenseiJob(
            profiles,
            lambda: create_connector(connector_config, guard),
            llm,
            concurrency=args.concurrency,
            seed=replaying.seed,
            sink=sink,
            technology=connector_config.technology,
            planned_on=planned_on,
            any_memory=any_values,
            user_model=args.model,  # --model plays the user in every profile (D6); else each profile's llm.model
            replan=repeats.plan,
            settings=_calibrated_settings(args.calibrated_user, calibrations),
        )
        # The plan (OUT/plan.json, the document the platform keeps) is written before the first conversation.
        summary = run_profiles(job, cli_context(artefacts=out))
    document = summary.to_json()
    replayed = finish_replay(out, replaying, document)
    reliable = reliability_of(records)
    document["reliability"] = [r.to_json() for r in reliable]
    write_json(str(out / "summary.json"), document)
    if args.junit:
        cases.sort(key=lambda c: c.name)
        # With repeats, one more case per profile carries pass^k; without, the cases are the conversations.
        write_junit(args.junit, "sensei", cases + (reliability_cases(reliable) if repeats.k > 1 else []))
    sys.stdout.write(verdict_lines(summary) + replayed)
    if repeats.k > 1:
        from engine.regression import reliability_text

        sys.stdout.write(reliability_text(reliable))
    sys.stdout.write(
        f"{summary.conversations} conversation(s), ${summary.usage.get('cost_usd', 0):.4f}, seed {summary.seed}; "
        f"records in {out}\n"
    )
    if not summary.ok or (args.fail_on_inconclusive and summary.inconclusive):
        return EXIT_FAILURES
    return EXIT_OK


class _NoLLM:
    """The transport of a run whose profiles are all scripted without goals: they make no LLM call (D33), so no
    provider or key is needed; a call would be a bug, and says so."""

    def send(self, payload: dict[str, Any], *, headers: dict[str, str], timeout_s: float) -> Any:
        from engine.llm import LLMConfigError

        raise LLMConfigError("This run has only scripted profiles and no LLM, yet something asked the LLM.")

    def close(self) -> None:
        pass


def _provider_config(args: argparse.Namespace, profiles: list[Any]) -> tuple[Any, _NoLLM | None]:
    """The LLM configuration from the arguments; a scripted-only run without a key gets `_NoLLM` instead."""
    from engine.llm import LLMConfigError, ProviderConfig

    try:
        return provider_config_from_args(args), None
    except LLMConfigError:
        if not all(profile.scripted_only for profile in profiles):
            raise
    return ProviderConfig("openai-compatible", base_url="http://127.0.0.1:9/v1", model="no-llm"), _NoLLM()


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "profile"
