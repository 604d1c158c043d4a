"""`TracerConfig`: every knob of a TRACER run, passed in by the caller (CLI, worker, test), never read from env."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class TracerConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    sessions: int = Field(default=3, ge=1, le=200, description="exploration sessions (s)")
    turns: int = Field(default=8, ge=2, le=100, description="explorer messages per session at most (n)")
    profile_model: str | None = Field(
        default=None, description="model written into the profiles' llm.model; None = the exploring model"
    )
    output_dir: Path | None = Field(default=None, description="where the artefacts go; None = write nothing")
    seed: int = Field(default=0, description="seeds every random choice (opener, temperature, personality)")

    # Exploration
    history_messages: int = Field(default=20, ge=4, description="transcript messages the explorer sees")
    fallback_sure: float = Field(
        default=0.82, ge=0, le=1, description="similarity to the fallback at which a reply surely is one"
    )
    fallback_unsure: float = Field(
        default=0.55, ge=0, le=1, description="similarity above which the LLM decides whether it is one"
    )
    abandon_after_fallbacks: int = Field(
        default=2, ge=1, description="fallbacks in a row before a topic change"
    )

    # Extraction and consolidation
    analysis_temperature: float | None = Field(
        default=0.1,
        ge=0,
        le=2,
        description="temperature of extraction and duplicate decisions: low, so that one step keeps one name; "
        "None = the model's default (a model that refuses temperatures gets its default from the gateway)",
    )
    known_in_extraction: int = Field(
        default=80, ge=0, description="known functionalities shown to extraction so it reuses their names"
    )
    consolidation: Literal["llm", "lexical"] = Field(
        default="llm",
        description="who decides duplicates: the LLM on a wide shortlist, or lexical similarity alone (no "
        "consolidation calls; an approximation that leaves paraphrased duplicates, labelled so on the run)",
    )
    duplicate_neighbours: int = Field(
        default=12,
        ge=0,
        description="nearest functionalities each one is compared with by the LLM, however low their "
        "lexical similarity: paraphrases often share few words",
    )
    duplicate_threshold: float = Field(
        default=0.55,
        ge=0,
        le=1,
        description="similarity from which two functionalities are candidates even beyond the nearest ones",
    )
    certain_duplicate: float = Field(
        default=0.9, ge=0, le=1, description="similarity from which they merge without asking the LLM"
    )
    lexical_merge: float = Field(
        default=0.75,
        ge=0,
        le=1,
        description="in the lexical mode (or when the LLM fails): similarity from which two merge",
    )
    max_questions_per_call: int = Field(
        default=40, ge=1, description="duplicate questions per consolidation call (one call normally)"
    )
    max_llm_failed_sessions: int = Field(
        default=3,
        ge=1,
        description="sessions in a row the LLM may fail in (each skipped with a warning) before the run fails",
    )

    # Profiles
    max_profiles: int = Field(default=8, ge=1, description="profiles the grouping may propose at most")
    repair_rounds: int = Field(default=2, ge=0, le=5, description="LLM repair rounds for an invalid profile")
    personality_probability: float = Field(default=0.75, ge=0, le=1)

    @property
    def model_for_profiles(self) -> str | None:
        return self.profile_model
