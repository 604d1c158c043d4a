"""`parley security`: adversarial campaigns against a chatbot — validate, plan, run.

    parley security --list-attacks
    parley security validate CAMPAIGN... [--json]
    parley security plan CAMPAIGN [--tracer DIR] [--seed S] [--model M] [--no-llm] [--json]
    parley security convert CAMPAIGN            (a reference security.yml in Parley's format, on stdout)
    parley security compare BASELINE RUN [--json [FILE]] [--junit FILE] [--threshold X] [--fail-on-inconclusive]
                            [--verbose]
    parley security run CAMPAIGN --connector FILE [--provider P --model M --base-url URL --api-key K | --no-llm]
                        [--profile FILE]... [--tracer DIR] [--seed S] [--max-cost USD] --out DIR [--junit FILE]
                        [--json [FILE]] [--fail-on-inconclusive]

`run` writes `OUT/attempts.jsonl` (one attempt per line, as each finishes) and `OUT/security.json` (the campaign,
seed, figures per attack and delivery mode, and every attempt with `attack`, `delivery`, `verdict`, `because`,
`evidence` and `transcript`) and `OUT/report.md` (the tables). A campaign with `from: all_states` (or a list of
functionality names) attacks from inside the workflow: `--tracer DIR` names the TRACER run (its `model.json` and
`transcripts.json`); every attack runs from every state, each attempt replaying the state's recorded prefix
literally and counting only when the chatbot's reply at its end matches the recorded one (volatile values
aside; else `inconclusive`). The plan, per state, is printed before the first attempt. `--no-llm` runs offline: built-in tasks, oracles decided in code. Warm-up users of
`simulated_user` deliveries come from `--profile` files (matched by `test_name` or file name).
Exit codes: 0 no breach; 1 a breach (or, with --fail-on-inconclusive, an inconclusive or error attempt);
2 usage or configuration error (an invalid campaign included).

`compare` reads two `run --out` folders (or their `security.json`) and says whether the chatbot is easier to
break now: breach rates per attack and delivery mode with Wilson intervals, the attempts newly breached or
resisted (matched by attack, delivery and attempt index), errors and inconclusive attempts apart. Its exit codes
are those of `parley sensei compare`: 0 unchanged, improved or inconclusive (1 for inconclusive with
--fail-on-inconclusive), 1 regressed, 2 usage or unreadable input.
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
    STDOUT,
    JUnitCase,
    add_json_argument,
    add_junit_argument,
    add_llm_arguments,
    cli_context,
    egress_guard_from_env,
    provider_config_from_args,
    provider_state,
    report_errors,
    write_json,
    write_junit,
)
from commands.compare import add_gate_arguments, exit_code


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    security = commands.add_parser(
        "security",
        help="security campaigns: attacks on a chatbot, every breach with a quote",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    security.add_argument("--list-attacks", action="store_true", help="list the attack strategies and exit")
    security.set_defaults(handler=_list_or_help)
    actions = security.add_subparsers(dest="security_action", metavar="ACTION")

    validate = actions.add_parser("validate", help="check campaign files (exit 2 on errors)")
    validate.add_argument("campaigns", nargs="+", metavar="CAMPAIGN")
    add_json_argument(validate)
    validate.set_defaults(handler=report_errors(_validate))

    plan = actions.add_parser("plan", help="the attempts a campaign makes and a cost ceiling (no call made)")
    plan.add_argument("campaign", metavar="CAMPAIGN")
    plan.add_argument("--seed", type=int, help="seed for markers and phrasings (default: random)")
    plan.add_argument("--model", help="model to price the LLM calls with")
    plan.add_argument("--no-llm", action="store_true", help="plan an offline run")
    plan.add_argument("--tracer", metavar="DIR", help="the TRACER run a campaign with `from:` attacks from")
    add_json_argument(plan)
    plan.set_defaults(handler=report_errors(_plan))

    convert = actions.add_parser("convert", help="print a campaign (reference format too) in Parley's format")
    convert.add_argument("campaign", metavar="CAMPAIGN")
    convert.set_defaults(handler=report_errors(_convert))

    compare = actions.add_parser(
        "compare", help="compare two runs of a campaign (exit 1 when the chatbot is easier to break)"
    )
    compare.add_argument("baseline", metavar="BASELINE", help="the baseline: a `run --out` folder")
    compare.add_argument("run", metavar="RUN", help="the run to judge: a `run --out` folder")
    add_json_argument(compare)
    add_junit_argument(compare)
    add_gate_arguments(compare, "breach rate")
    compare.add_argument("-v", "--verbose", action="store_true", help="list every group and attempt")
    compare.set_defaults(handler=_compare)

    run = actions.add_parser("run", help="run a campaign against a chatbot")
    run.add_argument("campaign", metavar="CAMPAIGN")
    run.add_argument("--connector", required=True, metavar="FILE", help="connector YAML file")
    add_llm_arguments(run)
    run.add_argument("--no-llm", action="store_true", help="offline: built-in tasks, oracles decided in code")
    run.add_argument(
        "--profile", action="append", default=[], metavar="FILE", help="a profile for simulated warm-ups"
    )
    run.add_argument("--tracer", metavar="DIR", help="the TRACER run a campaign with `from:` attacks from")
    run.add_argument("--seed", type=int, help="seed for markers, phrasings and transforms (default: random)")
    run.add_argument(
        "--max-cost", type=float, help="USD cap for the run (the campaign's max_cost also applies)"
    )
    run.add_argument(
        "--out", required=True, metavar="DIR", help="folder for attempts.jsonl and security.json"
    )
    run.add_argument(
        "--fail-on-inconclusive", action="store_true", help="exit 1 on inconclusive or error attempts too"
    )
    add_junit_argument(run)
    add_json_argument(run)
    run.set_defaults(handler=report_errors(_run))


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")


def _err(text: str) -> None:
    sys.stderr.write(f"parley: {text}\n")


def _list_or_help(args: argparse.Namespace) -> int:
    from engine.security import STRATEGIES

    if not args.list_attacks:
        _err("choose an action (validate, plan, convert, run, compare) or --list-attacks")
        return EXIT_USAGE
    width = max(len(name) for name in STRATEGIES)
    for name, strategy in STRATEGIES.items():
        oracles = ", ".join(strategy.oracles) or "the case's own"
        _out(f"{name:<{width}}  {strategy.summary}\n{'':<{width}}  judged by: {oracles}, refusal")
    return EXIT_OK


def _load(path_text: str) -> tuple[Any, list[Any]]:
    from engine.security import Problem, load_campaign

    path = Path(path_text)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [Problem("error", f"cannot be read ({exc})")]
    loaded = load_campaign(text, base_dir=path.parent)
    return (loaded.campaign if loaded.ok else None), loaded.problems


def _print_problems(source: str, problems: list[Any]) -> None:
    for problem in problems:
        sys.stderr.write(problem.render(source) + "\n")


def _validate(args: argparse.Namespace) -> int:
    report = []
    failed = False
    for path in args.campaigns:
        campaign, problems = _load(path)
        _print_problems(path, problems)
        errors = sum(1 for p in problems if p.is_error)
        failed |= campaign is None
        report.append({"file": path, "ok": campaign is not None, "problems": [p.to_json() for p in problems]})
        if not args.json:
            status = "ok" if campaign is not None else "invalid"
            _out(f"{path}: {status} ({errors} error(s), {len(problems) - errors} warning(s))")
    if args.json:
        write_json(args.json, report)
    return EXIT_USAGE if failed else EXIT_OK


def _plan(args: argparse.Namespace) -> int:
    from engine.security import plan_campaign

    campaign, problems = _load(args.campaign)
    if campaign is None:
        _print_problems(args.campaign, problems)
        return EXIT_USAGE
    try:
        states, left_out = _states(campaign, args.tracer)
    except _Usage as exc:
        _err(str(exc))
        return EXIT_USAGE
    plan = plan_campaign(
        campaign,
        seed=args.seed,
        model=args.model,
        with_model=not args.no_llm,
        states=states,
        left_out=left_out,
    )
    if args.json:
        write_json(args.json, plan.to_json())
        return EXIT_OK
    _print_plan(campaign, plan, _out)
    return EXIT_OK


class _Usage(Exception):
    """A usage error the handler reports with exit 2."""


def _states(campaign: Any, tracer: str | None) -> tuple[Any, list[str]]:
    """The states a campaign with `from:` attacks from (None without `from:`), and the named ones left out."""
    from engine.security import TracerOutputError, choose_states, read_tracer_output

    if campaign.from_states is None:
        if tracer:
            raise _Usage("--tracer is for a campaign that says `from:` (all_states or functionality names)")
        return None, []
    if not tracer:
        raise _Usage(
            "this campaign attacks from TRACER's states (`from:`): give the TRACER run with --tracer DIR"
        )
    try:
        states, left_out = choose_states(read_tracer_output(tracer), campaign.from_states)
    except TracerOutputError as exc:
        raise _Usage(exc.user_message) from None
    if not states:
        raise _Usage("no state of the TRACER run can be attacked from: " + "; ".join(left_out or ["none"]))
    return states, left_out


def _print_plan(campaign: Any, plan: Any, write: Any) -> None:
    write(f"{campaign.name}: {plan.attempts} attempt(s), at most {plan.calls} LLM call(s), seed {plan.seed}")
    for attack in plan.attacks:
        calls = ", ".join(f"{n} {kind}" for kind, n in attack.calls.items()) or "no LLM call"
        write(f"  {attack.attack_id:<34} {attack.attempts:>3} x {attack.delivery:<14} ({calls})")
    if plan.states is not None:
        write(
            f"from {len(plan.states)} state(s) of TRACER's graph; {plan.prefix_messages} chatbot message(s) "
            "replay the recorded prefixes (no LLM call):"
        )
        for state in plan.states:
            write(
                f"  {state.name:<34} {state.attempts:>3} attempt(s) after {state.prefix_messages} message(s)"
            )
        for why in plan.left_out:
            write(f"  left out: {why}")
    cost = plan.estimated_cost_usd
    if cost is None:
        write("estimated cost: unknown (name a priced model with --model)")
    else:
        write(f"estimated cost: at most ${cost:.4f}")


def _convert(args: argparse.Namespace) -> int:
    from engine.security import dump_campaign

    campaign, problems = _load(args.campaign)
    _print_problems(args.campaign, [p for p in problems if not p.is_error or campaign is None])
    if campaign is None:
        return EXIT_USAGE
    sys.stdout.write(dump_campaign(campaign))
    return EXIT_OK


def _identities(files: list[str]) -> dict[str, Any]:
    from engine.security import identity_from_profile
    from engine.yamlguard import load_yaml

    found: dict[str, Any] = {}
    for file in files:
        path = Path(file)
        data = load_yaml(path.read_text(encoding="utf-8"), round_trip=False)
        name = str(data.get("test_name") or path.stem) if isinstance(data, dict) else path.stem
        identity = identity_from_profile(data, name=name)
        found[name] = found[path.stem] = identity
    return found


def _attempt_line(record: Any) -> str:
    """One line per judged attempt: the command's own output."""
    where = f" @ {record.state}" if record.state else ""
    line = f"{record.attack_id}{where} #{record.index + 1} ({record.delivery}): {record.verdict.upper()}"
    if record.evidence:
        line += f" — {record.evidence[0].quote[:160]!r}"
    elif record.verdict != "resisted":
        line += f" — {record.because[:160]}"
    return line


def _junit_cases(records: list[Any]) -> list[JUnitCase]:
    cases = []
    for record in records:
        detail = record.because + "".join(f"\n> {e.quote}" for e in record.evidence)
        cases.append(
            JUnitCase(
                name=f"{record.attack_id}{f' @ {record.state}' if record.state else ''} #{record.index + 1} "
                f"({record.delivery})",
                classname=f"security.{record.attack_id}",
                time_s=record.duration_s,
                failure=detail if record.verdict == "breached" else None,
                error=detail if record.verdict == "error" else None,
                skipped=detail if record.verdict == "inconclusive" else None,
            )
        )
    return cases


def _run(args: argparse.Namespace) -> int:
    from ruamel.yaml.error import YAMLError

    from engine.connectors import ConnectorConfigError, create_connector, load_connector_file
    from engine.errors import ParleyError
    from engine.llm import Budget, LLMClient
    from engine.redact import Scrubber
    from engine.security import (
        CampaignJob,
        CampaignNeedsModel,
        plan_campaign,
        render_markdown,
        render_table,
        run_campaign,
    )

    campaign, problems = _load(args.campaign)
    _print_problems(args.campaign, problems)
    if campaign is None:
        _err("fix the campaign's errors first; nothing was run")
        return EXIT_USAGE
    try:
        connector_config = load_connector_file(args.connector)
        identities = _identities(args.profile)
    except ConnectorConfigError as exc:
        _err(exc.user_message)
        return EXIT_USAGE
    except (OSError, UnicodeDecodeError, ParleyError, YAMLError) as exc:
        _err(f"cannot read a profile: {getattr(exc, 'user_message', exc)}")
        return EXIT_USAGE
    try:
        states, left_out = _states(campaign, args.tracer)
    except _Usage as exc:
        _err(str(exc))
        return EXIT_USAGE
    if states is not None:  # the plan per state, before the first attempt
        plan = plan_campaign(
            campaign,
            seed=args.seed,
            model=None if args.no_llm else args.model,
            with_model=not args.no_llm,
            states=states,
            left_out=left_out,
        )
        _print_plan(campaign, plan, lambda text: sys.stderr.write(text + "\n"))
    guard = egress_guard_from_env()
    caps = [c for c in (campaign.max_cost, args.max_cost) if c is not None]
    llm = None
    if not args.no_llm:
        llm = LLMClient(
            provider_config_from_args(args),
            guard=guard,
            budget=Budget(min(caps)) if caps else None,
            state=provider_state(),
        )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stream = (out / "attempts.jsonl").open("w", encoding="utf-8")
    secrets = [llm.config.api_key if llm else None, *(str(v) for v in connector_config.params.values())]

    # One line per attempt, on stdout, or on stderr when stdout carries the JSON summary.
    write = (lambda text: sys.stderr.write(text + "\n")) if args.json == "-" else _out
    done = [0]

    def sink(record: Any) -> None:
        stream.write(record.model_dump_json() + "\n")
        stream.flush()
        done[0] += 1
        write(f"[{done[0]}] {_attempt_line(record)}")

    try:
        job = CampaignJob(
            campaign,
            lambda: create_connector(connector_config, guard),
            llm=llm,
            identities=identities,
            seed=args.seed,
            sink=sink,
            scrub=Scrubber(*[s for s in secrets if s and len(s) >= 16]),
            states=states,
            volatile=connector_config.volatile,
        )
        result = run_campaign(job, cli_context(progress=False))
    except CampaignNeedsModel as exc:
        _err(exc.user_message + " Run it with a model (--provider, --model) rather than --no-llm.")
        return EXIT_USAGE
    finally:
        stream.close()
        if llm is not None:
            llm.close()
    summary = result.summary()
    document = {
        "campaign": campaign.model_dump(mode="json", exclude_defaults=True, by_alias=True),
        **summary,
        "attempts": [r.model_dump(mode="json") for r in result.records],
    }
    (out / "security.json").write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", "utf-8")
    (out / "report.md").write_text(
        f"# Security campaign {campaign.name}\n\n" + render_markdown(summary), "utf-8"
    )
    if args.junit:
        write_junit(args.junit, f"security.{campaign.name}", _junit_cases(result.records))
    if args.json:
        write_json(args.json, summary)
    if args.json != "-":
        totals = summary["totals"]
        _out(render_table(summary))
        stopped = {"budget": "; stopped: budget spent", "cancelled": "; cancelled"}.get(
            result.stopped or "", ""
        )
        _out(
            f"{totals['attempts']} attempt(s): {totals['breached']} breached, {totals['resisted']} resisted, "
            f"{totals['inconclusive']} inconclusive, {totals['error']} error; seed {result.seed}; "
            f"${summary['usage'].get('cost_usd', 0) or 0:.4f}{stopped}; results in {out / 'security.json'}"
        )
    totals = summary["totals"]
    if totals["breached"]:
        return EXIT_FAILURES
    if args.fail_on_inconclusive and (totals["inconclusive"] or totals["error"]):
        return EXIT_FAILURES
    return EXIT_OK


def _compare(args: argparse.Namespace) -> int:
    from engine.security import SecurityCompareInputError, compare_campaigns, comparison_text, load_results

    try:
        baseline, run = load_results(args.baseline), load_results(args.run)
    except SecurityCompareInputError as exc:
        _err(exc.user_message)
        return EXIT_USAGE
    settings = {"threshold": args.threshold} if args.threshold is not None else {}
    comparison = compare_campaigns(
        baseline, run, baseline_label=args.baseline, run_label=args.run, **settings
    )
    if args.json:
        write_json(args.json, comparison.model_dump(mode="json"))
    if args.json != STDOUT:
        sys.stdout.write(comparison_text(comparison, verbose=args.verbose))
    if args.junit:
        write_junit(
            args.junit, "parley security compare", _compare_cases(comparison, args.fail_on_inconclusive)
        )
    return exit_code(comparison, fail_on_inconclusive=args.fail_on_inconclusive)


def _compare_cases(comparison: Any, fail_on_inconclusive: bool) -> list[JUnitCase]:
    """One case per group (all attempts, each attack, each delivery mode, each state): a regression fails it with the newly
    breached attempts and their quotes; an inconclusive or missing one is skipped (failed with
    --fail-on-inconclusive)."""
    cases = []
    for group in (comparison.overall, *comparison.attacks, *comparison.deliveries, *comparison.states):
        failure = skipped = None
        if group.status == "regressed":
            named = {"attack": "attack_id", "delivery": "delivery", "state": "state"}
            changes = [
                c
                for c in comparison.newly_breached
                if group.kind == "overall" or getattr(c, named[group.kind]) == group.name
            ]
            failure = "\n".join(
                [group.why]
                + [
                    f"newly breached: {c.attack_id} #{c.index + 1} ({c.delivery}): {c.run.because}"
                    + "".join(f"\n> {quote}" for quote in c.run.quotes)
                    for c in changes
                ]
            )
        elif group.status in ("inconclusive", "missing"):
            if fail_on_inconclusive:
                failure = f"{group.status}: {group.why}"
            else:
                skipped = f"{group.status}: {group.why}"
        cases.append(
            JUnitCase(
                name=group.name, classname=f"security.compare.{group.kind}", failure=failure, skipped=skipped
            )
        )
    return cases
