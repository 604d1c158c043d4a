"""Shrink a failed conversation to the shortest script that still fails, and pin it as an LLM-free test (README D33).

`shrink_record(ShrinkJob(record, factory, ...), context)` is the one entry point of the CLI (`parley sensei
shrink`) and the platform's `shrink` runs:

1. derive the check that captures the failure (`failure`: code rules first, the LLM only when none fits);
2. replay the original user turns up to the failing one, k of n times: a failure that does not come back is
   reported as not reproducible, with nothing pinned;
3. delta-debug the user turns (`search`), replaying each candidate literally against the live chatbot;
4. replay the minimal script n more times for its reproduction rate, and write the pinned scripted profile
   (`result`); `bugreport` renders it for a developer (Markdown, JUnit).

Shrinking sends real requests: `SHRINK_WARNING` says so, and the caller prints it. The run context
(`engine.context`) gets the stages ("reproducing", "shrinking", "confirming") and the LLM's usage; a cancel
between stages raises `Cancelled`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from engine.context import RunContext
from engine.conversation import ConversationRecord
from engine.llm import LLMClient
from engine.regression.shrink.failure import FailureCheck, ShrinkError, derive_failure
from engine.regression.shrink.result import (
    SHRINK_WARNING,
    DiffLine,
    ReplayedTurn,
    Reproduction,
    ShrinkResult,
    diff_lines,
    pinned_name,
    pinned_yaml,
)
from engine.regression.shrink.search import (
    Attempt,
    CapReached,
    ConnectorFactory,
    Replayed,
    Replayer,
    replay,
    shrink_messages,
)
from engine.sensei.dialects.script import MAX_MESSAGE_CHARS
from engine.sensei.profile import OutputType

__all__ = [
    "SHRINK_WARNING",
    "DiffLine",
    "FailureCheck",
    "Replayed",
    "Replayer",
    "Reproduction",
    "ShrinkError",
    "ShrinkJob",
    "ShrinkResult",
    "derive_failure",
    "replay",
    "shrink_record",
]

DEFAULT_REPLAYS = 3
DEFAULT_NEEDED = 2
DEFAULT_MAX_CHATBOT_CALLS = 200
SHRINK_CANCELLED = "The shrink was cancelled; nothing was pinned."


@dataclass(frozen=True)
class ShrinkJob:
    """One failed conversation to shrink against the chatbot `factory` builds: each candidate script is replayed
    `replays` times and must fail `needed` times, within `max_chatbot_calls` calls in all. `output_types` are the
    types of the profile's outputs; `llm` derives a check no code rule gives (None: code rules only)."""

    record: ConversationRecord
    factory: ConnectorFactory
    replays: int = DEFAULT_REPLAYS
    needed: int = DEFAULT_NEEDED
    max_chatbot_calls: int = DEFAULT_MAX_CHATBOT_CALLS
    output_types: Mapping[str, OutputType] | None = None
    llm: LLMClient | None = None
    today: date | None = None


def _transcript(messages: list[str], replayed: Replayed) -> list[ReplayedTurn]:
    turns: list[ReplayedTurn] = []
    for step, message in enumerate(messages):
        turns.append(ReplayedTurn(role="user", text=message))
        if step < len(replayed.replies):
            turns.append(ReplayedTurn(role="bot", text=replayed.replies[step]))
        elif replayed.error is not None and replayed.error_step == step:
            turns.append(ReplayedTurn(role="error", text=replayed.error.message))
            break
    return turns


def shrink_record(job: ShrinkJob, context: RunContext | None = None) -> ShrinkResult:
    """Shrink `job.record` (a failed conversation); see the module docstring. A `ShrinkError` says why a record
    cannot be shrunk (not failed, no user turn, no check derivable)."""
    context = context if context is not None else RunContext()
    record, factory, replays, needed = job.record, job.factory, job.replays, job.needed
    max_chatbot_calls, llm, today = job.max_chatbot_calls, job.llm, job.today
    if llm is not None:
        context.meter(llm.ledger)
    if not 1 <= needed <= replays:
        raise ShrinkError(f"needed ({needed}) must be between 1 and the number of replays ({replays}).")
    day = today or date.today()
    calls_before = llm.ledger.to_json().get("calls", 0) if llm is not None else 0
    failure = derive_failure(record, output_types=job.output_types, llm=llm, today=day)
    llm_calls = (llm.ledger.to_json().get("calls", 0) if llm is not None else 0) - calls_before
    users = record.user_phrases
    original = users[: failure.failing_step + 1]
    greet = bool(record.turns) and record.turns[0].role == "bot"
    name = pinned_name(record.settings.test_name or record.profile, record.index, failure.reason)
    origin = (
        f"Pinned by `parley sensei shrink` from conversation {record.id} of {record.profile} "
        f"#{record.index}:\n{failure.reason}: {failure.explanation}"
    )
    for number, message in enumerate(original, start=1):
        # A script step is what the profile language accepts; a record is input like any other (it may be hostile).
        if "\x00" in message or not message.strip() or len(message) > MAX_MESSAGE_CHARS:
            raise ShrinkError(
                f"User turn {number} cannot be a script step (empty, a NUL byte, or over {MAX_MESSAGE_CHARS} "
                "characters): this record cannot be replayed as a script."
            )
    # The checking profile only carries the check's types; the pinned one is written once the script is known.
    _, checker = pinned_yaml(name, original[-1:], failure, greet=greet, origin="")
    replayer = Replayer(factory, failure, checker, greet, replays, needed, max_chatbot_calls, today=day)
    warnings = [SHRINK_WARNING]
    context.check_cancel(SHRINK_CANCELLED)
    context.reporter.stage("reproducing")
    try:
        first = replayer.attempt(tuple(original))
    except CapReached:
        first = Attempt(0, 0, Replayed((), None, None, 0))
    replayer.tried += 1
    first_rate = Reproduction(failed=first.failed, replays=first.replays, needed=needed)
    script, final, pinned = list(original), first, ""
    if not first_rate.reproduced:
        why = "the chatbot-call cap was reached first" if replayer.capped else f"{first_rate.text()} failed"
        warnings.append(f"The failure did not reproduce ({why}, {needed} needed): nothing pinned.")
    else:
        replayer.remember(tuple(original), first)
        context.check_cancel(SHRINK_CANCELLED)
        context.reporter.stage("shrinking")
        script = shrink_messages(original, replayer)
        context.check_cancel(SHRINK_CANCELLED)
        context.reporter.stage("confirming")
        try:
            final = replayer.attempt(tuple(script), early_stop=False)
        except CapReached:
            final = replayer.seen(tuple(script))  # the cap leaves the rate of the search's own replays
        rate = Reproduction(failed=final.failed, replays=final.replays, needed=needed)
        pinned, _ = pinned_yaml(
            name, script, failure, greet=greet, origin=f"{origin}\nReproduced in {rate.text()}."
        )
        if replayer.capped:
            warnings.append(
                f"The cap of {max_chatbot_calls} chatbot calls stopped the search: the script may shrink further."
            )
    return ShrinkResult(
        name=name,
        record_id=record.id,
        profile=record.profile,
        conversation_index=record.index,
        failure=failure,
        reproduced=first_rate.reproduced,
        original=first_rate,
        reproduction=Reproduction(failed=final.failed, replays=final.replays, needed=needed),
        script=script,
        original_script=original,
        original_turns=len(users),
        shrunk_turns=len(script),
        chatbot_calls=replayer.calls,
        llm_calls=llm_calls,
        candidates=replayer.tried,
        capped=replayer.capped,
        settings={"replays": replays, "needed": needed, "max_chatbot_calls": max_chatbot_calls},
        diff=diff_lines(original, script),
        transcript=_transcript(script, final.last),
        pinned_profile=pinned,
        warnings=warnings,
    )


# Re-exported for callers that build the report without importing the parts.
__all__ += ["DiffLine", "ReplayedTurn", "diff_lines"]
