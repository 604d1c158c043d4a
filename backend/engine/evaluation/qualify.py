"""Model qualification: `qualify(QualifyJob(candidates, ...), context) -> dict` (qualify.json), and its Markdown.

Roles (README D32): the *simulated user* and the *judge/extractor* are each qualified against a fixed partner (the
`--partner`, else the strongest of the list: the priciest priced model, else the ceiling double, else the first),
the partner playing the other role; then the recommended user and judge run together once (`pair`). Each run is
the bench (`run_bench`) on the plan of `qualify_plan`: the same TRACER-double profiles, mutant draw and controls
for every candidate, with the stricter kills (a signature in a majority of repeats, two conclusive original runs).

Per model and role: kill rate with oracles (differential, Wilson interval) and automatic, the controls' kill rate
beside it, false alarms on the originals, inconclusive share with reasons, simulator slips per 100 turns, LLM
failures and format repairs, refusals learned, latency, tokens, cost, cost (or seconds and tokens) per kill, and
a verdict (`qualify_plan.verdict`). The recommendation is the cheapest qualified user and judge (the ceiling never).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from engine.context import RunContext
from engine.egress import EgressGuard, EgressPolicy
from engine.evaluation.config import BenchConfig, BenchJob
from engine.evaluation.qualify_explorer import qualify_explorer, tracer_double_client
from engine.evaluation.qualify_plan import CEILING, SIZES, Candidate, Size, Thresholds, verdict
from engine.evaluation.qualify_profiles import PROFILES
from engine.evaluation.qualify_result import QualifyResult
from engine.evaluation.run import parley_version, run_bench
from engine.llm import LLMClient, ProviderConfig, RetryPolicy, UsageLedger
from engine.llm.ledger import UsageRecord
from engine.llm.offline.sensei import SenseiDouble, SenseiImperfection
from engine.llm.offline.tracer import TracerDouble

_DOUBLE_URL = "http://127.0.0.1:9/v1"  # never contacted: the doubles answer in process


class Clients(Protocol):
    """Builds a fresh client of a real candidate; says what the provider refused and Parley learned."""

    def make(self, candidate: Candidate) -> LLMClient: ...

    def learned(self, candidate: Candidate) -> list[str]: ...


def double_client(model: str, seed: int, kind: str = "sensei") -> LLMClient:
    """A client on an in-process double: `perfect` (every slip off), `imperfect`, `loose-json`, or TRACER's."""
    if kind == "tracer":
        chat: Any = TracerDouble(seed=seed).chat_model()
    else:
        imperfection = SenseiImperfection()
        if model == "perfect":
            imperfection = SenseiImperfection(**dict.fromkeys(SenseiImperfection.__dataclass_fields__, 0.0))
        elif model == "loose-json":
            imperfection = SenseiImperfection(loose_json=1.0)
        chat = SenseiDouble(seed=seed, imperfection=imperfection).chat_model()
    return LLMClient(
        ProviderConfig("openai-compatible", base_url=_DOUBLE_URL, model=f"double-{model}"),
        guard=EgressGuard(EgressPolicy.parse("127.0.0.1")),
        chat_model=chat,
        ledger=UsageLedger(),
        retry=RetryPolicy(max_attempts=2, initial_delay_s=0.0, max_delay_s=0.0, jitter_s=0.0, max_total_s=5),
    )


@dataclass
class _Tally:
    """The ledger records of the calls one candidate made in one role run."""

    records: list[UsageRecord] = field(default_factory=list)

    def listen(self, client: LLMClient) -> LLMClient:
        client.ledger.subscribe(self.records.append)
        return client


def choose_partner(candidates: list[Candidate], prices: dict[str, Any], named: str | None) -> Candidate:
    if named:
        for candidate in candidates:
            if candidate.entry == named:
                return candidate
        raise ValueError(f"--partner {named!r} is not in --models")
    priced = [c for c in candidates if prices.get(c.entry) is not None]
    if priced:
        return max(
            priced, key=lambda c: prices[c.entry].input_per_million + prices[c.entry].output_per_million
        )
    for entry in (CEILING, "double:imperfect"):
        for candidate in candidates:
            if candidate.entry == entry:
                return candidate
    return candidates[0]


def _run_role(
    user: Candidate,
    judge: Candidate,
    clients: Clients | None,
    config: BenchConfig,
    context: RunContext,
) -> tuple[dict[str, Any], _Tally, _Tally]:
    """One bench run with `user` playing the simulated user and `judge` the judge/extractor."""
    user_tally, judge_tally = _Tally(), _Tally()

    def build(candidate: Candidate) -> LLMClient:
        if candidate.is_double:
            return double_client(candidate.model, config.seed)
        if clients is None:
            raise ValueError(f"{candidate.entry} needs a provider client")
        return clients.make(candidate)

    def factory(role: str) -> LLMClient:
        kind = role.split(":", 1)[0]
        if kind in (
            "tracer",
            "judge",
        ):  # TRACER's model gives the automatic rules: the same for every candidate
            return double_client("tracer", config.seed, kind="tracer")
        if kind == "extractor":
            return judge_tally.listen(build(judge))
        return user_tally.listen(build(user))

    result = run_bench(BenchJob(config, factory), context.quiet())
    return result.data, user_tally, judge_tally


def _conversations(out: Path, root: Path) -> list[dict[str, Any]]:
    """Every conversation of a role run, with `_ref`: its file relative to `root` and its line in it (1-based),
    `FILE#LINE` — what the references name, the same on every rerun (conversation ids are drawn at random)."""
    rows = []
    for path in sorted(out.glob("*/conversations/*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, 1):
            if line.strip():
                row = json.loads(line)
                row["_file"] = str(path.relative_to(root))
                row["_ref"] = f"{row['_file']}#{number}"
                rows.append(row)
    return rows


def read_reference(root: Path, ref: str) -> dict[str, Any]:
    """The conversation record a `FILE#LINE` reference names, under `root` (qualify's output directory)."""
    name, _, number = ref.rpartition("#")
    line = (root / name).read_text(encoding="utf-8").splitlines()[int(number) - 1]
    record: dict[str, Any] = json.loads(line)
    return record


def figures(
    candidate: Candidate,
    role: str,
    data: dict[str, Any],
    tally: _Tally,
    out: Path,
    learned: list[str],
    thresholds: Thresholds,
    root: Path | None = None,
) -> dict[str, Any]:
    """One row of qualify.json from a role run's bench data and the candidate's own calls; conversation
    references are relative to `root` (default `out`)."""
    scores, overall = data["scores"]["with_oracles"], data["overall"]
    alarms = overall["false_alarms"]
    records = _conversations(out, root or out)
    live = {
        (bot, m["id"])
        for bot, b in data["bots"].items()
        for m in b["mutation"]["mutants"]
        if m["status"] == "live"
    }
    inconclusive = [r for r in records if r.get("verdict") == "inconclusive"]
    reasons = Counter(str(r.get("verdict_reason") or "?").split(":", 1)[0] for r in inconclusive)
    turns = sum(1 for r in records for t in r.get("turns", []) if t.get("role") == "user")
    slips = sum(len((r.get("outcome") or {}).get("simulator_slips") or []) for r in records)
    calls = len(tally.records)
    failed = sum(1 for r in tally.records if not r.ok)
    repairs = sum(1 for r in tally.records if r.repair)
    prompt = sum(r.prompt_tokens or 0 for r in tally.records)
    completion = sum(r.completion_tokens or 0 for r in tally.records)
    latency = sum(r.latency_s for r in tally.records)
    priced = calls > 0 and all(r.cost_usd is not None for r in tally.records if r.ok and not r.cached)
    cost = (
        round(sum(r.cost_usd or 0.0 for r in tally.records), 6)
        if priced and not candidate.is_double
        else None
    )
    killed = scores["killed"]
    row: dict[str, Any] = {
        "model": candidate.entry,
        "role": role,
        "note": candidate.note,
        "kill_rate": scores["score"],
        "kill_ci95": scores["ci95"],
        "kill_rate_automatic": data["scores"]["automatic"]["score"],
        "killed": killed,
        "scored_mutants": scores["scored"],
        "control_kill_rate": (scores.get("controls") or {}).get("rate"),
        "control_ci95": (scores.get("controls") or {}).get("ci95"),
        "kill_note": scores.get("note"),
        "false_alarm_rate": alarms["with_oracles"]["rate"],
        "false_alarm_ci95": alarms["with_oracles"]["ci95"],
        "decided_originals": alarms["conversations"],  # the bench counts only conclusive ones there
        "inconclusive_share": round(100.0 * len(inconclusive) / len(records), 2) if records else None,
        "inconclusive_reasons": dict(reasons.most_common()),
        "conversations": len(records),
        "slips_per_100_turns": round(100.0 * slips / turns, 2) if turns else None,
        "llm_calls": calls,
        "llm_failures": failed,
        "format_repairs": repairs,
        "failure_rate": round(100.0 * failed / calls, 2) if calls else 0.0,
        "refusals_learned": learned,
        "latency_s_mean": round(latency / calls, 3) if calls else None,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "cost_usd": cost,
        "cost_per_kill": round(cost / killed, 6) if cost is not None and killed else None,
        "seconds_per_kill": round(latency / killed, 2) if killed else None,
        "tokens_per_kill": round((prompt + completion) / killed) if killed else None,
        "false_alarm_conversations": sorted(
            {r["_ref"] for r in records if r.get("verdict") == "failed" and "original" in r["_file"]}
        ),
        "missed_mutants": [
            m["id"] for b in data["bots"].values() for m in b["mutation"]["mutants"] if m["status"] == "live"
        ],
        "missed_mutant_conversations": [
            r["_ref"]
            for r in records
            if (Path(r["_file"]).parts[-3], Path(r["_file"]).stem.rsplit("-", 1)[0]) in live
        ],
    }
    row["verdict"], row["reason"] = verdict(row, thresholds)
    return row


_RANK = {"qualified": 0, "usable with care": 1}


def recommend(rows: list[dict[str, Any]], role: str) -> dict[str, Any] | None:
    """The cheapest row of `role` with the best verdict reached (qualified, else usable with care); never the
    ceiling double. Cheapest: dollars when priced, else seconds of LLM time."""
    eligible = [r for r in rows if r["role"] == role and r["verdict"] in _RANK and r["model"] != CEILING]
    if not eligible:
        return None
    return min(
        eligible,
        key=lambda r: (
            _RANK[r["verdict"]],
            r.get("cost_usd") or 0.0,
            r.get("latency_s_mean") or 0.0,
            r["model"],
        ),
    )


@dataclass(frozen=True)
class QualifyJob:
    """One qualification: the candidates, each qualified against `partner` in both roles, on the plan of `size`
    (`plan`: the size's figures, changed by the CLI's --bots; default `SIZES[size]`), written into `out`.
    `clients` builds a provider's client (None: doubles only)."""

    candidates: list[Candidate]
    size: str
    seed: int
    out: Path
    partner: Candidate
    thresholds: Thresholds
    plan: Size | None = None
    clients: Clients | None = None
    concurrency: int = 1


def qualify(job: QualifyJob, context: RunContext | None = None) -> dict[str, Any]:
    """Run the plan for every candidate and role; write qualify.json and qualify.md into `job.out`. Each bench
    run is a stage of the context's reporter; the benches themselves report nothing (their usage is tallied)."""
    context = context if context is not None else RunContext()
    candidates, size, seed, out = job.candidates, job.size, job.seed, job.out
    partner, thresholds, clients, concurrency = job.partner, job.thresholds, job.clients, job.concurrency
    plan = job.plan or SIZES[size]
    settings: dict[str, Any] = {
        "bots": plan.bots,
        "sessions": plan.sessions,
        "turns": plan.turns,
        "mutants_per_operator": plan.mutants_per_operator,
        "repeats": plan.repeats,
        "controls": plan.controls,
        "max_profiles": plan.max_profiles,
        "conversations_per_profile": plan.conversations_per_profile,
        "max_user_turns": plan.max_user_turns,
        "separate_judge": True,
        "concurrency": concurrency,
        "seed": seed,
        "matcher": "lexical",
        "profiles": {bot: PROFILES[bot] for bot in plan.bots if bot in PROFILES},
    }
    rows: list[dict[str, Any]] = []
    explorers: list[dict[str, Any]] = []
    done: dict[tuple[str, str], tuple[dict[str, Any], _Tally, _Tally, Path]] = {}

    def run(user: Candidate, judge: Candidate, label: str) -> tuple[dict[str, Any], _Tally, _Tally, Path]:
        key = (user.entry, judge.entry)
        if key not in done:
            directory = out / "runs" / label
            context.reporter.stage(label, label=f"{label}: user {user.entry}, judge/extractor {judge.entry}")
            config = BenchConfig(**settings, output_dir=directory, provider="qualify", model=label)
            done[key] = (*_run_role(user, judge, clients, config, context), directory)
        return done[key]

    def learned(candidate: Candidate) -> list[str]:
        return [] if candidate.is_double or clients is None else clients.learned(candidate)

    header = {
        "parley_version": parley_version(),
        "seed": seed,
        "size": size,
        "plan": {
            **settings,
            "bots": list(plan.bots),
            "profiles": "shipped (engine/evaluation/qualify_profiles.py)",
        },
        "partner": partner.entry,
        "thresholds": thresholds.__dict__,
    }
    for candidate in candidates:
        slug = candidate.entry.replace(":", "_").replace("/", "_").replace("@", "_at_")
        data, tally, _, directory = run(candidate, partner, f"user-{slug}")
        rows.append(
            figures(candidate, "simulated_user", data, tally, directory, learned(candidate), thresholds, out)
        )
        # A long run's finished roles survive.
        _write(out, {**header, "complete": False, "models": rows, "explorers": explorers})
        data, _, tally, directory = run(partner, candidate, f"judge-{slug}")
        rows.append(figures(candidate, "judge", data, tally, directory, learned(candidate), thresholds, out))
        context.check_cancel("The qualification was cancelled; nothing of it is kept before its end.")
        context.reporter.stage(f"explorer-{slug}", label=f"explorer-{slug}: TRACER with {candidate.entry}")
        explorers.append(
            qualify_explorer(
                candidate,
                _explorer_client(candidate, clients, seed),
                plan,
                seed=seed,
                thresholds=thresholds,
                out=out / "runs" / f"explorer-{slug}",
                learned=learned(candidate),
                context=context,
            )
        )
        _write(out, {**header, "complete": False, "models": rows, "explorers": explorers})
    best_user, best_judge = recommend(rows, "simulated_user"), recommend(rows, "judge")
    recommendation: dict[str, Any] | None = None
    if best_user and best_judge:
        by_entry = {c.entry: c for c in candidates}
        user, judge = by_entry[best_user["model"]], by_entry[best_judge["model"]]
        data, user_tally, judge_tally, directory = run(user, judge, "pair")
        pair = figures(user, "pair", data, user_tally, directory, learned(user), thresholds, out)
        judge_calls = judge_tally.records if judge.entry != user.entry else []
        pair["llm_calls"] += len(judge_calls)
        recommendation = {
            "simulated_user": user.entry,
            "judge": judge.entry,
            "figures": {"simulated_user": best_user, "judge": best_judge, "together": pair},
            "explorer": (recommend(explorers, "explorer") or {}).get("model"),
            "verdict_together": pair["verdict"],
            "reason": pair["reason"],
        }
    result = {
        **header,
        "complete": True,
        "models": rows,
        "explorers": explorers,
        "recommendation": recommendation,
    }
    result = QualifyResult.model_validate(result).model_dump(mode="json")  # typed (D31): checked here
    _write(out, result)
    return result


def _explorer_client(candidate: Candidate, clients: Clients | None, seed: int) -> Callable[[], LLMClient]:
    if candidate.is_double:
        return lambda: tracer_double_client(candidate.model, seed)
    if clients is None:
        raise ValueError(f"{candidate.entry} needs a provider client")
    return lambda: clients.make(candidate)


def _write(out: Path, result: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(result, indent=2, ensure_ascii=False) + "\n"
    (out / "qualify.json").write_text(text, encoding="utf-8")
    if result.get("complete"):
        (out / "qualify.md").write_text(markdown(result), encoding="utf-8")


def _n(value: Any, suffix: str = "") -> str:
    return "-" if value is None else f"{value:g}{suffix}" if isinstance(value, float | int) else str(value)


def per_kill(row: dict[str, Any]) -> str:
    if row["cost_per_kill"] is not None:
        return f"${row['cost_per_kill']:.4f}"
    if row["seconds_per_kill"] is not None:
        return f"{row['seconds_per_kill']:g} s · {row['tokens_per_kill']:,} tokens"
    # Nothing killed: what was spent for nothing is the figure a user needs.
    seconds = round((row.get("latency_s_mean") or 0.0) * row["llm_calls"])
    tokens = row["prompt_tokens"] + row["completion_tokens"]
    return f"no kill ({seconds:g} s, {tokens:,} tokens spent)"


def table(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        (
            "| Model | Role | Kills (95 % CI) | Controls killed | False alarms | Inconclusive | Failures | "
            "Cost or time per kill | Verdict |"
        ),
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ci = r["kill_ci95"]
        kills = f"{_n(r['kill_rate'], ' %')} ({r['killed']}/{r['scored_mutants']}" + (
            f"; {ci[0]:g}-{ci[1]:g})" if ci else ")"
        )
        lines.append(
            f"| {r['model']} | {r['role'].replace('_', ' ')} | {kills} | {_n(r['control_kill_rate'], ' %')}{' (CIs overlap)' if r['kill_note'] else ''} | "
            f"{_n(r['false_alarm_rate'], ' %')} | {_n(r['inconclusive_share'], ' %')} | {r['llm_failures']}/"
            f"{r['llm_calls']} | {per_kill(r)} | {r['verdict']} |"
        )
    return lines


def explorer_table(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| Model | Precision | Recall | Coverage | Functionalities (invented, duplicates) | Failures | Verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['model']} | {_n(r['precision'], ' %')} | {_n(r['recall'], ' %')} | {_n(r['coverage'], ' %')} | "
            f"{r['functionalities']} ({r['invented']}, {r['duplicates']}) | {r['llm_failures']}/{r['llm_calls']} | "
            f"{r['verdict']} |"
        )
    return lines


def markdown(result: dict[str, Any]) -> str:
    rec = result["recommendation"]
    lines = [
        "# Which model? Model qualification",
        "",
        (
            f"_Parley {result['parley_version']} · seed {result['seed']} · size {result['size']} · partner "
            f"{result['partner']} · bots {', '.join(result['plan']['bots'])} · {result['plan']['repeats']} "
            f"repeats, {result['plan']['controls']} controls per bot._"
        ),
        "",
        *table(result["models"]),
        "",
        *[f"- {r['model']} ({r['role']}): {r['reason']}" for r in result["models"]],
        "",
        "## Explorer (TRACER against the bots' definitions)",
        "",
        *explorer_table(result.get("explorers") or []),
        "",
        *[f"- {r['model']} (explorer): {r['reason']}" for r in result.get("explorers") or []],
        "",
        "## Recommendation",
        "",
    ]
    if rec:
        lines.append(
            f"Simulated user **{rec['simulated_user']}**, judge/extractor **{rec['judge']}**; together: "
            f"{rec['verdict_together']} ({rec['reason']})."
            + (f" Explorer (TRACER): **{rec['explorer']}**." if rec.get("explorer") else "")
        )
    else:
        lines.append(
            "None: no candidate other than the ceiling double was qualified or usable with care in both "
            "roles (too few to tell is neither)."
        )
    notes = {r["model"]: r["note"] for r in result["models"] if r.get("note")}
    if notes:
        lines += ["", *[f"_{model}: {note}._" for model, note in notes.items()]]
    return "\n".join(lines) + "\n"
