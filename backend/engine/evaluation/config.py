"""What a bench run is given: `BenchConfig`, every knob, passed in by the caller (CLI, worker, test), never read from
env; and `BenchJob`, the config with the factory of the run's LLM clients (the one object `run_bench` takes).

The bench runs TRACER on each original bot, then SENSEI with the profiles TRACER generated, `repeats` times with
the seeds seed, seed+1, ... on the original and on each selected mutant alike (kills are differential). `provider`,
`model`, `temperature` and `llm_note` are not used to build anything here (the caller's `llm_factory` does that);
they are recorded with every figure, because mutation scores are not comparable across models.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from engine.bots.mutation import Mutant
from engine.llm import LLMClient


class BenchConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    bots: tuple[str, ...] = Field(
        default=("pizza", "bike", "photography", "veterinary"), min_length=1, description="reference bot ids"
    )
    sessions: int = Field(default=10, ge=1, le=200, description="TRACER exploration sessions")
    turns: int = Field(default=8, ge=2, le=100, description="TRACER explorer messages per session")
    mutants_per_operator: int = Field(
        default=2, ge=0, description="mutants drawn at random per operator and bot (all when fewer exist)"
    )
    operators: tuple[str, ...] | None = Field(
        default=None, description="mutation operators to draw from (None: all of them)"
    )
    mutants: dict[str, tuple[str, ...]] | None = Field(
        default=None,
        description="explicit mutant ids per bot; replaces the random draw for the bots it names",
    )
    repeats: int = Field(
        default=3,
        ge=1,
        le=100,
        description="SENSEI runs, with the same seeds, on each original bot and on each mutant",
    )
    controls: int = Field(
        default=3,
        ge=0,
        le=10,
        description=(
            "control runs per bot: the unmodified bot run again as if it were a mutant, never scored; any kill "
            "of a control is noise, so their kill rate is the bench's rate of spurious kills (three by default: 0 of 1 says nothing)"
        ),
    )
    profiles: dict[str, tuple[str, ...]] | None = Field(
        default=None,
        description=(
            "fixed profile YAML per bot: SENSEI runs these instead of TRACER's profiles (TRACER still runs, for "
            "its model's rules); the same plan for every model a qualification compares"
        ),
    )
    conversations_per_profile: int | None = Field(
        default=None,
        ge=1,
        description="run only the first N planned conversations of each profile (None: all; qualification sizes)",
    )
    max_user_turns: int | None = Field(
        default=None, ge=1, description="cap on each conversation's user turns (None: the profiles' own)"
    )
    max_profiles: int | None = Field(
        default=None, ge=1, description="SENSEI runs only the first N of TRACER's valid profiles (None: all)"
    )
    separate_judge: bool = Field(
        default=False,
        description=(
            "SENSEI's judge and extractor get a client of their own (role `extractor:...`) instead of sharing "
            "the simulated user's: model qualification plays the two roles with different models"
        ),
    )
    concurrency: int = Field(default=4, ge=1, le=64, description="SENSEI conversations at once")
    seed: int = Field(default=0, description="seeds the mutant draw, TRACER and SENSEI")
    today: date | None = Field(default=None, description="the bots' reference date (None: today)")
    output_dir: Path | None = Field(default=None, description="bench.json, bench.md, rules/, profiles/")
    matcher: Literal["llm", "lexical"] = Field(
        default="llm",
        description="who matches functionalities to the ground truth: a judge model, or word overlap (offline)",
    )

    # Recorded with every figure (not used to build the LLM clients).
    provider: str | None = None
    model: str | None = None
    temperature: float | None = Field(default=None, description="None: the provider's default")
    llm_note: str | None = Field(
        default=None, description="what the model is, when the name does not say (e.g. an LLM double)"
    )


LLMFactory = Callable[[str], LLMClient]
"""role → a fresh LLM client for one phase of the bench (roles `tracer:<bot>`, `judge:<bot>`,
`sensei:<bot>:original:<n>`, `sensei:<bot>:<mutant id>:<n>`, `extractor:<role>`)."""

BENCH_CANCELLED = "The bench run was cancelled."


@dataclass(frozen=True)
class BenchJob:
    """One bench run: its settings, the factory of its LLM clients (the bench closes each client and adds up its
    ledger), and caller-made mutants to add per bot (e.g. an equivalent one)."""

    config: BenchConfig
    llm_factory: LLMFactory
    extra_mutants: Mapping[str, Sequence[Mutant]] = field(default_factory=dict)
