"""`parley sensei compare`: is a run worse than its baseline? The gate a CI job runs after every change.

    parley sensei compare BASELINE RUN [--json [FILE]] [--junit FILE] [--threshold X] [--fail-on-inconclusive]
                          [--rules DIR] [--gate pass-k] [--min-pass-rate X] [--verbose]
    parley sensei compare BASELINE_ID RUN_ID --server URL [...]   # platform runs; token in $PARLEY_TOKEN

BASELINE and RUN are folders written by `parley sensei run --out`; a `check.json` beside the records
(`parley check --json DIR/check.json`) brings per-rule pass rates, and `--rules DIR` checks the rules on both
folders now instead (rules that need a judge model are not applicable then). With `--server`, they are run ids
of a Parley server, which compares them with the same code (`/api/runs/RUN/compare/?baseline=BASELINE`).

The pass rates always gate. `--gate pass-k` adds pass^k (share of planned conversations whose decided repeats all
passed, `--repeats K` on both runs): a profile regressed when it fell by the threshold with the interval
confirming. A profile's `min_pass_rate` (or `--min-pass-rate X` for profiles without one) fails a profile whose
pass@1 in the run is below it (`engine.regression.gates`). Both read the records, so they work on folders only.

Exit codes (README D25): 0 unchanged or improved; 0 for inconclusive too, with the reason printed — unless
`--fail-on-inconclusive`, which makes it 1; 1 regressed; 2 bad usage or unreadable input. `--json` prints the
verdict and every regression with its evidence.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from commands.common import (
    EXIT_FAILURES,
    EXIT_OK,
    EXIT_USAGE,
    STDOUT,
    JUnitCase,
    add_json_argument,
    add_junit_argument,
    write_json,
    write_junit,
)

TOKEN_VARIABLE = "PARLEY_TOKEN"
SERVER_TIMEOUT_S = 60.0


def threshold(text: str) -> float:
    """A threshold as a fraction (0.1) or in points with a percent sign (10%)."""
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (0.1 or 10%)") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError("must be above 0 and at most 1 (or 100%)")
    return value


threshold.__name__ = "threshold"


def add_gate_arguments(parser: argparse.ArgumentParser, rate: str) -> None:
    """What a comparison gates on, the same for SENSEI's pass rates and a campaign's breach rates."""
    parser.add_argument(
        "--threshold",
        type=threshold,
        metavar="X",
        help=f"smallest change of a {rate} that counts, e.g. 0.1 or 10%% (default 0.1)",
    )
    parser.add_argument(
        "--fail-on-inconclusive", action="store_true", help="exit 1 when the verdict is inconclusive"
    )


def add_compare_parser(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = actions.add_parser(
        "compare",
        help="compare a run with its baseline (exit 1 on a regression)",
        description=(__doc__ or "").split("\n\n")[0],
    )
    parser.add_argument("baseline", metavar="BASELINE", help="the baseline: a --out folder (or a run id)")
    parser.add_argument("run", metavar="RUN", help="the run to judge: a --out folder (or a run id)")
    add_json_argument(parser)
    add_junit_argument(parser)
    add_gate_arguments(parser, "pass rate")
    parser.add_argument("--rules", metavar="DIR", help="check these rules on both folders (no judge model)")
    parser.add_argument(
        "--gate",
        action="append",
        choices=("pass-rate", "pass-k"),
        default=[],
        help="also gate on pass^k (repeats that all passed); the pass rate always gates",
    )
    parser.add_argument(
        "--min-pass-rate",
        type=threshold,
        metavar="X",
        help="fail a profile whose pass@1 is below X (0.9 or 90%%), unless its own min_pass_rate says otherwise",
    )
    parser.add_argument(
        "--server",
        metavar="URL",
        help=f"BASELINE and RUN are run ids on this Parley server (token: ${TOKEN_VARIABLE})",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="list every profile, rule and conversation"
    )
    parser.set_defaults(handler=run_compare)


def run_compare(args: argparse.Namespace) -> int:
    from engine.errors import ParleyError
    from engine.regression import (
        DEFAULT_THRESHOLD,
        CompareSettings,
        apply_gates,
        compare,
        gates_text,
        load_folder,
        to_text,
    )

    if args.threshold is None:
        args.threshold = DEFAULT_THRESHOLD
    gates: list[Any] = []
    try:
        if args.server:
            if args.rules or "pass-k" in args.gate or args.min_pass_rate is not None:
                sys.stderr.write(
                    "parley: --rules, --gate pass-k and --min-pass-rate work on folders (they read the records)\n"
                )
                return EXIT_USAGE
            comparison, document = _from_server(args)
        else:
            baseline, run = (
                load_folder(args.baseline, label=args.baseline),
                load_folder(args.run, label=args.run),
            )
            if args.rules:
                baseline, run = _with_rules(args.rules, baseline), _with_rules(args.rules, run)
            comparison = compare(baseline, run, CompareSettings(threshold=args.threshold))
            gates = _gates(args, baseline, run)
            comparison = apply_gates(comparison, gates)
            document = comparison.model_dump(mode="json") | {"gates": [g.to_json() for g in gates]}
    except ParleyError as exc:
        sys.stderr.write(f"parley: {exc.user_message}\n")
        return EXIT_USAGE
    if args.json:
        write_json(args.json, document)
    if args.json != STDOUT:
        sys.stdout.write(to_text(comparison, verbose=args.verbose) + gates_text(gates))
    if args.junit:
        cases = junit_cases(comparison, args.fail_on_inconclusive) + gate_cases(
            gates, args.fail_on_inconclusive
        )
        write_junit(args.junit, "parley sensei compare", cases)
    return exit_code(comparison, fail_on_inconclusive=args.fail_on_inconclusive)


def _gates(args: argparse.Namespace, baseline: Any, run: Any) -> list[Any]:
    from engine.regression import min_pass_rate_gate, pass_k_gate

    results = pass_k_gate(baseline, run, args.threshold) if "pass-k" in args.gate else []
    return results + min_pass_rate_gate(run, args.min_pass_rate)


def gate_cases(gates: list[Any], fail_on_inconclusive: bool) -> list[JUnitCase]:
    """One case per gate and profile: regressed or failed fails it, inconclusive is skipped (or failed)."""
    cases = []
    for gate in gates:
        failure = skipped = None
        if gate.status in ("regressed", "failed"):
            failure = f"{gate.status}: {gate.why}"
        elif gate.status == "inconclusive":
            if fail_on_inconclusive:
                failure = f"inconclusive: {gate.why}"
            else:
                skipped = f"inconclusive: {gate.why}"
        cases.append(
            JUnitCase(
                name=gate.profile,
                classname=f"compare.{gate.gate}",
                failure=failure,
                skipped=skipped,
                output=gate.why,
            )
        )
    return cases


def exit_code(comparison: Any, *, fail_on_inconclusive: bool) -> int:
    """D25: 1 for regressed (and for inconclusive with --fail-on-inconclusive); 0 otherwise."""
    if comparison.verdict == "regressed":
        return EXIT_FAILURES
    if comparison.verdict == "inconclusive":
        why = "; ".join(comparison.reasons) or "see the report"
        sys.stderr.write(f"parley: the comparison is inconclusive: {why}\n")
        return EXIT_FAILURES if fail_on_inconclusive else EXIT_OK
    return EXIT_OK


def junit_cases(comparison: Any, fail_on_inconclusive: bool) -> list[JUnitCase]:
    """One case per compared group (overall, each profile, each rule): a regression fails it, an inconclusive
    one is skipped (failed with --fail-on-inconclusive)."""
    regressions = {(r.kind, r.name): r for r in comparison.regressions}
    cases = []
    for group in (comparison.overall, *comparison.profiles, *comparison.rules):
        failure = skipped = None
        if group.status == "regressed":
            evidence = regressions.get((group.kind, group.name))
            lines = [group.why]
            if evidence is not None:
                lines += [
                    f"newly failing: {m.profile} #{m.planned_index} {m.inputs}: "
                    + "; ".join(b.reason for b in m.run if b.verdict == "failed")
                    for m in evidence.newly_failing
                ]
            failure = "\n".join(lines)
        elif group.status in ("inconclusive", "missing"):
            if fail_on_inconclusive:
                failure = f"{group.status}: {group.why}"
            else:
                skipped = f"{group.status}: {group.why}"
        cases.append(
            JUnitCase(name=group.name, classname=f"compare.{group.kind}", failure=failure, skipped=skipped)
        )
    return cases


def _with_rules(rules_path: str, data: Any) -> Any:
    """`data` with the rules checked on its records now (no judge): their tallies, and the conversations they
    fail counted as failed."""
    from engine.check import check, load_rules
    from engine.regression import run_data

    report = check(load_rules(rules_path), [c.record for c in data.conversations])
    notes = [n for n in data.notes if "check.json" not in n]
    return run_data(
        data.label,
        [c.raw if c.raw is not None else c.record for c in data.conversations],
        rule_reports=[r.to_json() for r in report.rules],
        cost_usd=data.cost_usd,
        notes=notes,
    )


def _from_server(args: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    """The server's comparison (as the engine's model, and the document itself, which names the two runs)."""
    import httpx

    from engine.regression import Comparison, RegressionInputError

    ids = []
    for name, value in (("BASELINE", args.baseline), ("RUN", args.run)):
        if not value.isdigit():
            raise RegressionInputError(f"with --server, {name} is a run id (a whole number), not {value!r}")
        ids.append(int(value))
    token = os.environ.get(TOKEN_VARIABLE, "")
    if not token:
        raise RegressionInputError(f"with --server, put an API token in ${TOKEN_VARIABLE}")
    url = f"{args.server.rstrip('/')}/api/runs/{ids[1]}/compare/"
    try:
        response = httpx.get(
            url,
            params={"baseline": ids[0], "threshold": args.threshold},
            headers={"Authorization": f"Token {token}", "Accept": "application/json"},
            timeout=SERVER_TIMEOUT_S,
        )
    except httpx.HTTPError as exc:
        raise RegressionInputError(f"{url}: the server could not be reached ({exc})") from None
    if response.status_code != 200:
        detail = response.text[:300].strip()
        raise RegressionInputError(f"{url}: the server answered HTTP {response.status_code}: {detail}")
    try:
        document = response.json()
        return Comparison.model_validate(document), document
    except ValueError as exc:
        raise RegressionInputError(f"{url}: not a comparison ({str(exc)[:200]})") from None
