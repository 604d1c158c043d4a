"""Scripted profiles: the checks on the chatbot's replies to literal user turns, and what they decide.

The simulator sends a profile's `script` first, word for word, and notes the index of each of those user turns in
`settings.script_turns`. After the conversation, `apply_checks` reads the chatbot's reply to each step (the bot
turn right after it) and checks it, with code only:

- `contains` / `not_contains`: the text, ignoring case and runs of spaces;
- `matches`: a regular expression searched in the reply, with the timeout of every user-written expression
  (`engine.sensei.types`); a reply on which it times out leaves the check undecided, not failed;
- `states`: a value of the type — money (an amount with its currency), numbers, dates, times (the same
  readings as the outputs' evidence, `engine.sensei.evidence`), one of an enum's values, or text a custom
  type's expression finds.

Each result lands in `settings.checks` (step, turn, check, held, detail). A check that does not hold is a chatbot
fault (README D28: a failed rule on the chatbot's words): an error `check_failed` on the reply's turn, so the one
verdict function (`engine.sensei.verdicts`) makes the conversation `failed` with the turn of the first check that
failed. A step the conversation never reached (the chatbot crashed before) is not checked: the crash decides. A profile
with a script and no goals is therefore decided by its checks alone (and by HTTP faults), with no LLM call.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import regex  # type: ignore[import-untyped]

from engine.conversation import CheckOutcome, ConversationRecord, ErrorCode, Turn
from engine.sensei.errors import error
from engine.sensei.evidence import candidate, says_words
from engine.sensei.profile import OutputType, Profile, ReplyCheck
from engine.sensei.types import REGEX_TIMEOUT_S, PatternError, compile_pattern
from engine.sensei.verdicts import judge


@dataclass(frozen=True)
class CheckResult:
    step: int  # 0-based step of the script
    turn: int | None  # the chatbot turn checked (index in the record's turns); None when never reached
    check: str
    held: bool | None  # None: not decided (never reached, or the expression timed out)
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "turn": self.turn,
            "check": self.check,
            "held": self.held,
            "detail": self.detail,
        }


def _flat(text: str) -> str:
    return " ".join(text.casefold().split())


def _states(output_type: OutputType, text: str, profile: Profile, today: date) -> bool | None:
    kind = output_type.kind
    if kind == "enum":
        return any(says_words(value, text, typos=False) for value in output_type.values)
    if kind == "custom":
        definition = profile.custom_type(output_type.name or "")
        if definition is None:
            return None
        try:
            return compile_pattern(definition.format).search(text, timeout=REGEX_TIMEOUT_S) is not None
        except (PatternError, TimeoutError):
            return None
    item = output_type.item.kind if kind == "list" and output_type.item is not None else None
    return candidate(kind, item, [(0, text)], today) is not None


def check_reply(check: ReplyCheck, text: str, profile: Profile, today: date) -> tuple[bool | None, str]:
    """Whether `text` (one chatbot reply) passes `check`, and a short reason a reader can act on."""
    if check.kind in ("contains", "not_contains"):
        found = _flat(check.value) in _flat(text)
        held = found if check.kind == "contains" else not found
        said = "says" if found else "does not say"
        return held, f"the reply {said} {check.value!r}"
    if check.kind == "matches":
        try:
            found = compile_pattern(check.value).search(text, timeout=REGEX_TIMEOUT_S) is not None
        except TimeoutError:
            return None, f"the expression {check.value!r} took longer than {REGEX_TIMEOUT_S} s on this reply"
        except (PatternError, regex.error) as exc:  # validated on load; kept for records of older profiles
            return None, f"the expression {check.value!r} is not valid ({exc})"
        return found, f"the reply {'matches' if found else 'does not match'} {check.value!r}"
    if check.type is None:
        return None, "the check has no type"
    stated = _states(check.type, text, profile, today)
    if stated is None:
        return None, f"cannot tell whether the reply states a {check.value}"
    return stated, f"the reply {'states' if stated else 'states no'} {check.value}"


def _reply_after(turns: list[Turn], user_turn: int) -> int | None:
    following = user_turn + 1
    if following < len(turns) and turns[following].role == "bot":
        return following
    return None


def run_checks(record: ConversationRecord, profile: Profile, today: date) -> list[CheckResult]:
    """Every check of the script on the reply it is tied to, in script order."""
    sent = record.outcome.script_turns or []
    results: list[CheckResult] = []
    for step, item in enumerate(profile.script):
        reply = _reply_after(record.turns, sent[step]) if step < len(sent) else None
        for check in item.expect:
            if reply is None:
                results.append(
                    CheckResult(step, None, check.label(), None, "the chatbot never replied to it")
                )
                continue
            held, detail = check_reply(check, record.turns[reply].text, profile, today)
            results.append(CheckResult(step, reply, check.label(), held, detail))
    return results


def apply_checks(record: ConversationRecord, profile: Profile, today: date) -> ConversationRecord:
    """`record` (already judged) with its script's checks run, stored, and counted in its verdict."""
    if not profile.script:
        return record
    results = run_checks(record, profile, today)
    record.outcome.checks = [CheckOutcome(**result.to_json()) for result in results]
    failed = [r for r in results if r.held is False]
    if failed:
        found = [
            error(
                ErrorCode.CHECK_FAILED,
                f"step {r.step + 1} ({profile.script[r.step].user!r}): {r.check} failed: {r.detail}",
                r.turn,
            )
            for r in failed
        ]
        # Kept in turn order, so the verdict names the first failing turn, before a crash that came later.
        record.errors = sorted([*record.errors, *found], key=lambda e: (e.turn is None, e.turn or 0))
        return judge(record, today)
    if record.verdict != "passed":
        return record
    undecided = [r for r in results if r.held is None]
    if undecided:
        first = undecided[0]
        record.verdict = "inconclusive"
        record.verdict_reason = f"check_undecided: step {first.step + 1}: {first.check}: {first.detail}"
    elif profile.scripted_only:
        record.verdict_reason = f"passed: all {len(results)} check(s) of the script held"
    return record
