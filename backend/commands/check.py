"""`parley check`: run correctness rules (SENSEI-check) over recorded conversations.

    parley check --rules rules/ --conversations runs/42/ [--json [FILE]] [--junit FILE] [--csv FILE]
                 [--model gpt-4.1-mini --provider openai …]   # the judge model for LLM-backed functions

Reads Parley conversation records (*.json, *.jsonl) and SENSEI conversation files (*.yml). The judge is used
only when an LLM option (`--model`, `--base-url`, `--api-key`) or `--judge` is given; without it, rules that
call tone(), only_talks_about(), semantic_content(), utterance_index() or responds_in_same_language() are
reported as not applicable: "no judge model configured".

Exit codes: 0 every rule passed or did not apply; 1 a rule failed or errored; 2 invalid rules, unreadable
conversations or bad LLM settings.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from commands.common import (
    CONFIGURATION_ERRORS,
    EXIT_FAILURES,
    EXIT_OK,
    EXIT_USAGE,
    add_json_argument,
    add_junit_argument,
    add_llm_arguments,
    egress_guard_from_env,
    provider_config_from_args,
    provider_state,
    write_json,
)
from engine.check import (
    CheckError,
    GatewayJudge,
    Limits,
    RuleError,
    RuleSetError,
    check,
    default_registry,
    load_conversations,
    load_rules,
    rule_json_schema,
)
from engine.check.judge import Judge
from engine.errors import ParleyError
from engine.llm import Budget, LLMClient


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "check",
        help="check correctness rules on recorded conversations",
        description="Check correctness rules (SENSEI-check) on recorded conversations.",
    )
    parser.add_argument("--rules", metavar="DIR_OR_FILE", help="a rule file, or a folder of *.yml rule files")
    parser.add_argument(
        "--conversations", metavar="DIR", help="a folder (or file) of conversations: *.json, *.jsonl, *.yml"
    )
    add_json_argument(parser)
    add_junit_argument(parser)
    parser.add_argument("--csv", metavar="FILE", help="write per-rule statistics as CSV")
    parser.add_argument("--failures-csv", metavar="FILE", help="write every listed failure and error as CSV")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every failure on the console")
    parser.add_argument(
        "--max-combinations",
        type=int,
        default=Limits().max_combinations,
        metavar="N",
        help="most checks a rule over 2+ conversations may make (default: %(default)s)",
    )
    parser.add_argument(
        "--timeout", type=float, default=Limits().wall_seconds, metavar="SECONDS", help="wall-clock limit"
    )
    parser.add_argument("--list-functions", action="store_true", help="list the functions rules can call")
    parser.add_argument("--rule-schema", action="store_true", help="print the JSON Schema of a rule file")
    judge = parser.add_argument_group("judge model (LLM-backed functions)")
    judge.add_argument(
        "--judge", action="store_true", help="use the judge model with the default LLM settings"
    )
    judge.add_argument(
        "--judge-budget", type=float, metavar="USD", help="stop asking the judge past this cost"
    )
    add_llm_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.list_functions:
        for function in default_registry().describe():
            sys.stdout.write(f"{function['signature']:<60} [{function['kind']}] {function['summary']}\n")
        return EXIT_OK
    if args.rule_schema:
        sys.stdout.write(json.dumps(rule_json_schema(), indent=2) + "\n")
        return EXIT_OK
    if not args.rules or not args.conversations:
        sys.stderr.write("parley: check needs --rules DIR_OR_FILE and --conversations DIR\n")
        return EXIT_USAGE
    try:
        rules = load_rules(args.rules)
    except RuleSetError as exc:
        sys.stderr.write(f"parley: {exc.user_message}\n")
        return EXIT_USAGE
    except RuleError as exc:
        sys.stderr.write(f"parley: {exc.user_message}\n")
        return EXIT_USAGE
    try:
        loaded = load_conversations(args.conversations)
    except CheckError as exc:
        sys.stderr.write(f"parley: {exc.user_message}\n")
        return EXIT_USAGE
    for file, why in loaded.skipped:
        sys.stderr.write(f"parley: skipped {file}: {why}\n")
    if not loaded.conversations:
        sys.stderr.write(f"parley: no conversations found in {args.conversations}\n")
        return EXIT_USAGE
    if args.max_combinations < 1 or args.timeout <= 0:
        sys.stderr.write("parley: --max-combinations and --timeout must be positive\n")
        return EXIT_USAGE
    client = None
    try:
        judge: Judge | None = None
        if args.judge or args.model or args.base_url or args.api_key:
            client = _llm_client(args)
            judge = GatewayJudge(client)
        limits = Limits(max_combinations=args.max_combinations, wall_seconds=args.timeout)
        report = check(rules, loaded.conversations, judge=judge, limits=limits)
    except ParleyError as exc:
        sys.stderr.write(f"parley: {exc.user_message}\n")
        return EXIT_USAGE if isinstance(exc, (*CONFIGURATION_ERRORS, RuleError)) else EXIT_FAILURES
    finally:
        if client is not None:
            client.close()
    data = report.to_json()
    if client is not None:
        data["judge"]["cost_usd"] = client.ledger.spent_usd()
    if args.json:
        write_json(args.json, data)
    if args.json != "-":
        sys.stdout.write(report.to_text(verbose=args.verbose))
    if args.junit:
        Path(args.junit).write_text(report.to_junit(), encoding="utf-8")
    if args.csv:
        Path(args.csv).write_text(report.to_csv(), encoding="utf-8")
    if args.failures_csv:
        Path(args.failures_csv).write_text(report.failures_csv(), encoding="utf-8")
    return EXIT_OK if report.ok else EXIT_FAILURES


def _llm_client(args: argparse.Namespace) -> LLMClient:
    config = provider_config_from_args(args)
    budget = Budget(args.judge_budget) if args.judge_budget is not None else None
    return LLMClient(config, guard=egress_guard_from_env(), budget=budget, state=provider_state())
