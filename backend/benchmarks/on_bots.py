"""SENSEI on a reference bot in process, one conversation at a time: what the SENSEI benchmarks and the quality
tests that share their profiles run (tests import it from here; product code imports neither)."""

from __future__ import annotations

from datetime import date
from typing import Any

from engine.bots.connector import BotConnector
from engine.conversation import ConversationRecord
from engine.llm import LLMClient
from engine.sensei import SenseiJob, load_profile, run_profiles

TODAY = date(2026, 3, 10)  # a Tuesday


def profile_from(text: str, **options: Any) -> Any:
    """The profile a YAML text describes; a text with problems is a mistake in the benchmark, named in full."""
    profile, problems = load_profile(text, **options)
    if profile is None:
        raise ValueError("; ".join(p.render() for p in problems))
    return profile


def run_on_bot(
    profiles: list[Any], bot: str, llm: LLMClient, seed: int, today: date = TODAY
) -> list[ConversationRecord]:
    """SENSEI with `profiles` against the built-in `bot`, on `today`; the records in the order they finished."""
    records: list[ConversationRecord] = []
    job = SenseiJob(
        profiles,
        lambda: BotConnector(bot, today=today),
        llm,
        sink=records.append,
        concurrency=1,
        seed=seed,
        today=lambda: today,
    )
    run_profiles(job)
    return records
