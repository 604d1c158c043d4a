"""Model qualification: the candidates, the plan every one of them runs, the verdict thresholds (README D32).

A candidate is named `PROVIDER:MODEL` (`openai:gpt-4.1-mini`, `gemini:...`), `openai-compatible:NAME` (with the
run's base URL) or `openai-compatible:NAME@URL`, `local:NAME` (the server of `make real-llm`, whose URL the
caller passes in: the engine reads no environment) or an offline double: `double:imperfect`,
`double:loose-json`, and `double:perfect` — the ceiling, the imperfect double with every slip switched off,
labelled so and used only as the top of the scale (never recommended).

The plan is the same for every candidate: the shipped profiles of `qualify_profiles` (not a candidate's own
TRACER output); TRACER, for the automatic rules of its model, is played by the deterministic TRACER double with
the plan's seed; the mutants are the bench's seeded draw of `mutants_per_operator` per operator (every operator
covered, stratified by operator), plus controls. Sizes fix the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DOUBLES = ("perfect", "imperfect", "loose-json")
CEILING = "double:perfect"
CEILING_NOTE = "ceiling: Parley's SENSEI double with every slip off; the top of the scale, not a real model"
DOUBLE_NOTES = {
    "imperfect": "fake LLM: Parley's imperfect double (paraphrases, omissions, sloppy closings)",
    "loose-json": "fake LLM: the imperfect double answering extraction in loose JSON every time",
    "perfect": CEILING_NOTE,
}


@dataclass(frozen=True)
class Candidate:
    """One model to qualify."""

    entry: str
    """As the user wrote it: the candidate's name in every table."""
    provider: str
    """openai, gemini, openai-compatible, or `double`."""
    model: str
    base_url: str | None = None

    @property
    def is_double(self) -> bool:
        return self.provider == "double"

    @property
    def note(self) -> str | None:
        return DOUBLE_NOTES.get(self.model) if self.is_double else None


def parse_candidates(text: str, *, base_url: str | None = None, local_url: str) -> list[Candidate]:
    """The `--models` list; raises ValueError naming the first entry it cannot read."""
    out: list[Candidate] = []
    for raw in (part.strip() for part in text.split(",")):
        if not raw:
            continue
        provider, _, name = raw.partition(":")
        if not name:
            raise ValueError(f"{raw!r}: write PROVIDER:MODEL, e.g. openai:gpt-4.1-mini or double:imperfect")
        if provider == "double":
            if name not in DOUBLES:
                raise ValueError(f"{raw!r}: the doubles are {', '.join('double:' + d for d in DOUBLES)}")
            out.append(Candidate(raw, "double", name))
        elif provider == "local":
            out.append(Candidate(raw, "openai-compatible", name, local_url))
        elif provider == "openai-compatible":
            model, _, url = name.partition("@")
            if not (url or base_url):
                raise ValueError(f"{raw!r}: give --base-url or write openai-compatible:NAME@URL")
            out.append(Candidate(raw, provider, model, url or base_url))
        elif provider in ("openai", "gemini"):
            out.append(Candidate(raw, provider, name, base_url))
        else:
            raise ValueError(
                f"{raw!r}: unknown provider {provider!r} (openai, gemini, openai-compatible, local, double)"
            )
    if not out:
        raise ValueError("--models names no model")
    if len({c.entry for c in out}) < len(out):
        raise ValueError("--models names a model twice")
    return out


@dataclass(frozen=True)
class Size:
    bots: tuple[str, ...]
    mutants_per_operator: int
    repeats: int
    controls: int
    max_profiles: int
    conversations_per_profile: int
    sessions: int
    turns: int
    max_user_turns: int | None = None


SIZES: dict[str, Size] = {
    # A 135M local model on two shared cores finishes this in minutes; too few conversations to tell.
    "tiny": Size(("pizza",), 1, 2, 3, 1, 1, 3, 4, max_user_turns=4),
    "small": Size(("pizza", "bike"), 1, 2, 3, 2, 1, 5, 6, max_user_turns=6),
    # Under $1 estimated for a gpt-4.1-mini-class model (tests/engine/evaluation/test_qualify_cli.py; not yet
    # measured on one): every operator once per bot, 3 repeats, 3 controls per bot, two shipped profiles each.
    "default": Size(("pizza", "bike"), 1, 3, 3, 2, 1, 6, 8, max_user_turns=8),
}


@dataclass(frozen=True)
class Thresholds:
    """D32's defaults, in percent; the CLI's flags change them."""

    qualified_kills: float = 70.0
    qualified_false_alarms: float = 2.0
    qualified_failures: float = 1.0
    usable_kills: float = 40.0
    usable_false_alarms: float = 10.0
    min_decided: int = 20
    # The explorer role (not in D32: chosen here, stated in the README): TRACER's precision and recall.
    explorer_precision: float = 80.0
    explorer_recall: float = 60.0
    usable_explorer_precision: float = 60.0
    usable_explorer_recall: float = 40.0
    min_explorer_sessions: int = 10


def verdict(figures: dict[str, Any], t: Thresholds) -> tuple[str, str]:
    """(verdict, reason) for one model and role from its figures.

    "Decided" is counted per rate, on what the rate is taken over: the scored mutants (killed or live) for the
    kill rate, the conclusive conversations on the unmodified bots for false alarms. Either under
    `min_decided` is too few to tell, whatever the rates say."""
    scored, originals = figures["scored_mutants"], figures["decided_originals"]
    if scored < t.min_decided or originals < t.min_decided:
        return "too few to tell", (
            f"{scored} scored mutants and {originals} decided conversations on the originals; "
            f"at least {t.min_decided} of each are needed"
        )
    kills, alarms, failures = (
        figures["kill_rate"] or 0.0,
        figures["false_alarm_rate"] or 0.0,
        figures["failure_rate"],
    )
    shown = f"kills {kills:g} %, false alarms {alarms:g} %, LLM/format failures {failures:g} %"
    if kills >= t.qualified_kills and alarms <= t.qualified_false_alarms and failures <= t.qualified_failures:
        return (
            "qualified",
            (
                f"{shown}: meets kills ≥ {t.qualified_kills:g} %, false alarms ≤ "
                f"{t.qualified_false_alarms:g} %, failures ≤ {t.qualified_failures:g} %"
            ),
        )
    if kills >= t.usable_kills and alarms <= t.usable_false_alarms:
        return (
            "usable with care",
            (
                f"{shown}: meets kills ≥ {t.usable_kills:g} % and false alarms ≤ "
                f"{t.usable_false_alarms:g} %, not the qualified thresholds"
            ),
        )
    return (
        "not qualified",
        f"{shown}: below kills ≥ {t.usable_kills:g} % or above false alarms ≤ {t.usable_false_alarms:g} %",
    )


@dataclass
class Estimate:
    """Before the run: calls and tokens per candidate, dollars when priced, seconds otherwise."""

    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def cost_usd(self) -> float:
        return round(sum(r["cost_usd"] or 0.0 for r in self.rows), 4)


# Measured on the doubles' runs of the bench (see engine/evaluation/estimate.py), rounded up.
CALLS_PER_CONVERSATION = 12
PROMPT_PER_CONVERSATION = 6_000
COMPLETION_PER_CONVERSATION = 400
# TRACER as explorer: about 11 calls a session on the doubles at 8 turns (the explorer role's runs), rounded up.
CALLS_PER_SESSION = 12
PROMPT_PER_SESSION = CALLS_PER_SESSION * PROMPT_PER_CONVERSATION // CALLS_PER_CONVERSATION
COMPLETION_PER_SESSION = CALLS_PER_SESSION * COMPLETION_PER_CONVERSATION // CALLS_PER_CONVERSATION
SECONDS_PER_CALL_UNPRICED = 2.0
"""What a small local model took per call here (SmolLM2-135M on two shared cores), for the time estimate."""


def conversations_per_role(size: Size, seed: int = 0) -> int:
    """SENSEI conversations of one role run: per bot, `repeats` x (the original, the mutants the seed draws —
    one per operator the bot has — and the controls) x profiles x conversations per profile."""
    from engine.evaluation.bench_runs import select_mutants
    from engine.evaluation.config import BenchConfig

    total = 0
    for bot in size.bots:
        config = BenchConfig(bots=(bot,), mutants_per_operator=size.mutants_per_operator, seed=seed)
        mutants = sum(1 for m in select_mutants(bot, config) if not m.stillborn)
        total += size.repeats * (1 + mutants + size.controls)
    return total * size.max_profiles * size.conversations_per_profile


def estimate(candidates: list[Candidate], size: Size, prices: dict[str, Any], seed: int = 0) -> Estimate:
    """`prices`: candidate entry → a `Price` (or None). Each candidate plays two roles; the pair run adds one;
    the explorer role is TRACER's sessions on every bot."""
    out = Estimate()
    conversations = conversations_per_role(size, seed)
    sessions = size.sessions * len(size.bots)
    for candidate in candidates:
        roles = 2 + 1  # its two roles, and a share of the partner's and the pair's calls at most
        calls = roles * conversations * CALLS_PER_CONVERSATION // 2 + sessions * CALLS_PER_SESSION
        prompt = roles * conversations * PROMPT_PER_CONVERSATION // 2 + sessions * PROMPT_PER_SESSION
        completion = (
            roles * conversations * COMPLETION_PER_CONVERSATION // 2 + sessions * COMPLETION_PER_SESSION
        )
        price = prices.get(candidate.entry)
        cost = round(price.cost(prompt, completion), 4) if price is not None else None
        out.rows.append(
            {
                "model": candidate.entry,
                "calls": calls,
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "cost_usd": cost,
                "seconds": None
                if candidate.is_double or cost is not None
                else calls * SECONDS_PER_CALL_UNPRICED,
            }
        )
    return out
