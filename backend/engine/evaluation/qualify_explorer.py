"""Model qualification, the explorer role: TRACER run with the candidate as its model on each reference bot of the
plan (in process), its functional model judged against the bot's ground truth.

Figures, summed over the plan's bots, against the ground truth read from each bot's definition
(`engine.bots.sources`, as the duplicates benchmark reads it: never from a model, so no candidate grades itself).
The *steps* of a bot are the parts of its definition a conversation can show — a slot's prompt, a form's or
action's response, a menu item's answer, an FAQ answer (not the greeting, a menu's presentation or fallback, or a
stock phrase). A functionality stands for the steps of the chatbot replies it was found at (`found_at`), each
reply traced to the part that wrote it, whole or line by line.
- *precision* — functionalities that stand for a step no earlier one took / all of them (one standing for none
  is invented, one whose steps were all taken is a duplicate);
- *recall* — steps some functionality stands for / all steps;
- *coverage* — steps the chatbot showed in the exploration's conversations / all steps: what the candidate made
  the chatbot do, whatever it then wrote down (recall ≤ coverage).

Verdict: *qualified* — precision and recall at least the `explorer_*` thresholds of `Thresholds`; *usable with
care* — the lower pair; else *not qualified*; fewer than `min_explorer_sessions` TRACER sessions in all is too few
to tell. For the doubles, TRACER's own double plays the explorer: `double:perfect` with every slip off (the
ceiling), `double:imperfect` and `double:loose-json` as shipped (TRACER has no loose-JSON slip: the two are one
explorer).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from engine.bots.definition import BotDefinition
from engine.bots.registry import load_bot
from engine.bots.sources import Sources
from engine.context import RunContext
from engine.egress import EgressGuard, EgressPolicy
from engine.evaluation.qualify_plan import Candidate, Size, Thresholds
from engine.evaluation.target import CoverageLogs, CoveredBot
from engine.llm import LLMClient, ProviderConfig, RetryPolicy, UsageLedger
from engine.llm.ledger import UsageRecord
from engine.llm.offline.tracer import Imperfection, TracerDouble
from engine.tracer import TracerConfig, TracerDeps, TracerJob, TracerResult, run_tracer

_DOUBLE_URL = "http://127.0.0.1:9/v1"  # never contacted: the double answers in process
TODAY = date(2026, 3, 2)
"""The reference bots' date for every explorer run: the same conversations for every candidate and rerun."""


def tracer_double_client(model: str, seed: int) -> LLMClient:
    """TRACER's double as an explorer: `perfect` with every slip off, otherwise as shipped."""
    imperfection = Imperfection()
    if model == "perfect":
        imperfection = Imperfection(
            **{**dict.fromkeys(Imperfection.__dataclass_fields__, 0.0), "reuse_known": 1.0}
        )
    return LLMClient(
        ProviderConfig("openai-compatible", base_url=_DOUBLE_URL, model=f"double-{model}"),
        guard=EgressGuard(EgressPolicy.parse("127.0.0.1")),
        chat_model=TracerDouble(seed=seed, imperfection=imperfection).chat_model(),
        ledger=UsageLedger(),
        retry=RetryPolicy(max_attempts=2, initial_delay_s=0.0, max_delay_s=0.0, jitter_s=0.0, max_total_s=5),
    )


def _steps(sources: Sources) -> set[str]:
    skipped = ("phrase:", "greeting")
    return {
        p.key
        for p in sources.parts
        if not p.key.startswith(skipped) and not p.key.endswith(("/presentation", "/fallback"))
    }


def _trace(sources: Sources, text: str) -> set[str]:
    """The parts that wrote a chatbot reply: the reply whole, else each line (options lines aside)."""
    whole = sources.of(text)
    if whole:
        return {whole}
    lines = (line for line in text.splitlines() if line.strip() and not line.startswith("Options:"))
    return {key for key in map(sources.of, lines) if key}


def against_definition(definition: BotDefinition, result: TracerResult) -> dict[str, Any]:
    """Counts of one TRACER run on one bot against its definition (see the module's docstring)."""
    sources = Sources(definition)
    steps = _steps(sources)
    replies: dict[tuple[int, int], list[str]] = {}
    shown: set[str] = set()
    for transcript in result.transcripts:
        sent = 0
        for turn in transcript["turns"]:
            if turn["role"] == "explorer":
                sent += 1
            elif not turn.get("error"):
                replies.setdefault((transcript["session"], sent), []).append(turn["text"])
                shown |= _trace(sources, turn["text"])
    taken: set[str] = set()
    real = duplicates = invented = 0
    for functionality in result.model.functionalities:
        parts = {
            key
            for found in functionality.found_at
            for text in replies.get((found.session, found.turn), [])
            for key in _trace(sources, text)
        } & steps
        if not parts:
            invented += 1
        elif parts <= taken:
            duplicates += 1
        else:
            real += 1
        taken |= parts
    return {
        "functionalities": len(result.model.functionalities),
        "real": real,
        "duplicates": duplicates,
        "invented": invented,
        "steps": len(steps),
        "found": len(taken),
        "shown": len(shown & steps),
        "missed": sorted(steps - taken),
    }


def _percent(part: int, whole: int) -> float | None:
    return round(100.0 * part / whole, 2) if whole else None


def explorer_verdict(row: dict[str, Any], sessions: int, t: Thresholds) -> tuple[str, str]:
    if sessions < t.min_explorer_sessions:
        return "too few to tell", (
            f"{sessions} TRACER sessions in all; at least {t.min_explorer_sessions} are needed"
        )
    precision, recall = row["precision"] or 0.0, row["recall"] or 0.0
    shown = f"precision {precision:g} %, recall {recall:g} %, coverage {row['coverage'] or 0:g} %"
    if precision >= t.explorer_precision and recall >= t.explorer_recall:
        return "qualified", (
            f"{shown}: meets precision ≥ {t.explorer_precision:g} % and recall ≥ {t.explorer_recall:g} %"
        )
    if precision >= t.usable_explorer_precision and recall >= t.usable_explorer_recall:
        return "usable with care", (
            f"{shown}: meets precision ≥ {t.usable_explorer_precision:g} % and recall ≥ "
            f"{t.usable_explorer_recall:g} %, not the qualified thresholds"
        )
    return "not qualified", (
        f"{shown}: below precision ≥ {t.usable_explorer_precision:g} % or recall ≥ "
        f"{t.usable_explorer_recall:g} %"
    )


def qualify_explorer(
    candidate: Candidate,
    make_client: Callable[[], LLMClient],
    plan: Size,
    *,
    seed: int,
    thresholds: Thresholds,
    out: Path | None = None,
    learned: list[str] | None = None,
    context: RunContext | None = None,
) -> dict[str, Any]:
    """The explorer row of `candidate`: TRACER with `make_client()` (a fresh client per bot) on each bot; the
    context's cancel token stops it between TRACER's steps (its reporter stays quiet: the outer run reports)."""
    quiet = (context or RunContext()).quiet()
    counts: dict[str, dict[str, Any]] = {}
    records: list[UsageRecord] = []
    for bot in plan.bots:
        definition = load_bot(bot)
        llm = make_client()
        llm.ledger.subscribe(records.append)
        job = TracerJob(
            TracerConfig(
                sessions=plan.sessions,
                turns=plan.turns,
                seed=seed,
                output_dir=out / bot if out is not None else None,
            ),
            TracerDeps(
                llm=llm, connector=CoveredBot(definition, CoverageLogs(), today=TODAY, label="explorer")
            ),
            run_id=f"qualify-explorer-{bot}",
            checkpointer=InMemorySaver(),
        )
        result = run_tracer(job, quiet)
        counts[bot] = against_definition(definition, result)

    def total(key: str) -> int:
        return sum(c[key] for c in counts.values())

    calls = len(records)
    latency = sum(r.latency_s for r in records)
    priced = calls > 0 and all(r.cost_usd is not None for r in records if r.ok and not r.cached)
    row: dict[str, Any] = {
        "model": candidate.entry,
        "role": "explorer",
        "note": candidate.note,
        "precision": _percent(total("real"), total("functionalities")),
        "recall": _percent(total("found"), total("steps")),
        "coverage": _percent(total("shown"), total("steps")),
        "functionalities": total("functionalities"),
        "duplicates": total("duplicates"),
        "invented": total("invented"),
        "steps": total("steps"),
        "missed_steps": [f"{bot}:{key}" for bot, c in counts.items() for key in c["missed"]],
        "per_bot": {
            bot: {
                "precision": _percent(c["real"], c["functionalities"]),
                "recall": _percent(c["found"], c["steps"]),
                "coverage": _percent(c["shown"], c["steps"]),
                "functionalities": c["functionalities"],
            }
            for bot, c in counts.items()
        },
        "sessions": plan.sessions * len(plan.bots),
        "llm_calls": calls,
        "llm_failures": sum(1 for r in records if not r.ok),
        "format_repairs": sum(1 for r in records if r.repair),
        "refusals_learned": learned or [],
        "latency_s_mean": round(latency / calls, 3) if calls else None,
        "prompt_tokens": sum(r.prompt_tokens or 0 for r in records),
        "completion_tokens": sum(r.completion_tokens or 0 for r in records),
        "cost_usd": round(sum(r.cost_usd or 0.0 for r in records), 6)
        if priced and not candidate.is_double
        else None,
    }
    row["verdict"], row["reason"] = explorer_verdict(row, row["sessions"], thresholds)
    return row
