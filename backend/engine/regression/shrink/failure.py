"""The check that captures a failed conversation's fault, derived from its verdict (step one of shrinking).

A shrunk conversation must fail *for the same reason* as the original, or delta debugging happily reduces any
failure to "hello" and a reply that does not state a total. So the verdict's own error decides the check, by
code (README D28's chatbot faults), and the check is tied to the reply of the *failing user turn* — the user turn whose
reply (or whose request) went wrong; the shrinker keeps that turn last and checks its reply:

- an HTTP 5xx, a timeout or an unreadable reply (`chatbot_crash`, `timeout`, `malformed_reply`, `http_NNN`):
  kind `error` — a replay reproduces it when *that turn* errors again (a replayed 5xx is the check failing);
- a check of a scripted profile (`check_failed`): that check, on that reply;
- a repetition or fallback loop: `not_contains` of the repeated reply;
- an output missing (`goal_not_completed`): `states: <type>` on the reply where the chatbot wrapped up (the
  last reply that stated another output, else its last reply that is no fallback — not also given to other
  requests — nor a closing fallback), the
  type from the profile (or, without one, a name such as `total_price` → money); when every reply was given
  to different requests, the chatbot never got anywhere: `not_contains` of its most repeated reply, on its first
  occurrence (the first request it failed), as a loop;
- anything else: the LLM, when one is given, proposes a check on one chatbot turn; it is read by the script
  dialect like a user's check and must fail on the recorded reply, else it is refused.

A reply check also carries the failing reply (`anchor`, volatile values normalised, D24): a candidate reproduces
only when its checked reply still resembles it, so "the total is missing" stays "missing from the order's
confirmation" instead of becoming "missing from the greeting".
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from collections.abc import Mapping
from datetime import date
from itertools import combinations
from typing import Any, Literal

from pydantic import BaseModel, Field
from rapidfuzz import fuzz

from engine.conversation import ConversationRecord, ErrorCode
from engine.errors import ParleyError
from engine.llm import LLMClient, LLMError, system, user
from engine.regression.replay import Normaliser
from engine.sensei import load_profile
from engine.sensei.detection import same_request
from engine.sensei.errors import describe
from engine.sensei.profile import OutputType, Profile, ReplyCheck
from engine.sensei.scripted import check_reply
from engine.sensei.verdicts import reason_code

TAG_DERIVE_CHECK = "shrink_derive_check"
ANCHOR_SIMILARITY = 80  # rapidfuzz ratio (0-100) a replayed reply needs with the recorded failing one
MAX_CHECK_TEXT = 200  # a repeated reply is looked for by its first line, at most this long
_ERROR_SLUGS = frozenset({"chatbot_crash", "timeout", "malformed_reply"})
_LOOPS = frozenset({int(ErrorCode.REPETITION_LOOP), int(ErrorCode.FALLBACK_LOOP)})
# Output names that say their type, for a record shrunk without its profile.
_NAMED_TYPES = (
    (re.compile(r"price|total|cost|amount|fee|sum", re.IGNORECASE), "money"),
    (re.compile(r"date|day", re.IGNORECASE), "date"),
    (re.compile(r"time|hour", re.IGNORECASE), "time"),
    (re.compile(r"count|number|quantity|how_many", re.IGNORECASE), "int"),
)
_STATABLE = ("money", "int", "float", "date", "time", "datetime", "enum", "custom")


class ShrinkError(ParleyError):
    """A record that cannot be shrunk, with what to do about it."""


class FailureCheck(BaseModel):
    """What a replay must show to reproduce the failure, on the reply to its last user turn."""

    kind: Literal["error", "reply"]  # error: the last user turn's request fails; reply: `check` fails on it
    check: ReplyCheck | None = None
    anchor: str | None = None  # the recorded failing reply, normalised; the replayed one must resemble it
    reason: str  # the verdict's reason slug (chatbot_crash, goal_not_completed…)
    explanation: str  # one sentence for the report
    source: Literal["rule", "llm"] = "rule"
    failing_turn: int  # index in the record's turns of the failing reply (or of the failed request's slot)
    failing_step: int  # 0-based index, among the record's user turns, of the failing user turn
    failing_reply: str | None = None  # the recorded reply as it was (None for an error)

    def label(self) -> str:
        if self.kind == "error":
            return "the reply is not an error (HTTP 5xx, timeout, unreadable reply)"
        assert self.check is not None
        return self.check.label()


def _step_of(record: ConversationRecord, turn: int | None) -> int:
    """The user turn (0-based among user turns) whose reply is at `turn`, or was due there."""
    users = [i for i, t in enumerate(record.turns) if t.role == "user"]
    if not users:
        raise ShrinkError("The conversation has no user turn: there is nothing to shrink.")
    if turn is None:
        return len(users) - 1
    before = [n for n, i in enumerate(users) if i < turn]
    if not before:
        raise ShrinkError(
            f"The failure is on turn {turn + 1}, before any user turn: there is nothing to shrink."
        )
    return before[-1]


def _reply_after_step(record: ConversationRecord, step: int) -> int | None:
    users = [i for i, t in enumerate(record.turns) if t.role == "user"]
    following = users[step] + 1
    if following < len(record.turns) and record.turns[following].role == "bot":
        return following
    return None


def _scaffold(check: Mapping[str, Any]) -> tuple[ReplyCheck | None, Profile | None, str]:
    """The check read by the script dialect, as a user's would be (None and the problems when it is not valid)."""
    text = json.dumps({"test_name": "derived_check", "script": [{"user": "x", "expect": [dict(check)]}]})
    profile, problems = load_profile(text, source="derived check")
    if profile is None:
        return None, None, "; ".join(p.message for p in problems if p.is_error)
    return profile.script[0].expect[0], profile, ""


def reply_check(kind: str, value: str) -> ReplyCheck:
    """A check written by code here; one the dialect refuses is a bug, reported as a `ShrinkError`."""
    check, _, problems = _scaffold({kind: value})
    if check is None:
        raise ShrinkError(f"The derived check {kind}: {value!r} is not valid: {problems}")
    return check


def _first_line(text: str) -> str:
    line = next((s.strip() for s in text.splitlines() if s.strip()), text.strip())
    return line[:MAX_CHECK_TEXT]


def _output_type(name: str, types: Mapping[str, OutputType]) -> str | None:
    known = types.get(name)
    if known is not None:
        return known.label() if known.kind in _STATABLE else None
    return next((kind for pattern, kind in _NAMED_TYPES if pattern.search(name)), None)


def _error_failure(record: ConversationRecord, slug: str) -> FailureCheck | None:
    faults = [e for e in record.errors if describe(e.code).slug == slug]
    if not faults:
        return None
    fault = faults[0]
    step = _step_of(record, fault.turn)
    return FailureCheck(
        kind="error",
        reason=slug,
        explanation=f"the chatbot's request failed: {fault.message}",
        failing_turn=fault.turn if fault.turn is not None else len(record.turns),
        failing_step=step,
    )


def _reply_failure(
    record: ConversationRecord, slug: str, turn: int, check: ReplyCheck, why: str, *, anchored: bool = True
) -> FailureCheck:
    text = record.turns[turn].text
    return FailureCheck(
        kind="reply",
        check=check,
        anchor=normalised(text) if anchored else None,
        reason=slug,
        explanation=why,
        failing_turn=turn,
        failing_step=_step_of(record, turn),
        failing_reply=text,
    )


def _check_failure(record: ConversationRecord) -> FailureCheck | None:
    for result in record.outcome.checks or []:
        if result.held is not False:
            continue
        turn, label = result.turn, result.check
        kind, _, value = label.partition(" ")
        if not isinstance(turn, int) or not 0 <= turn < len(record.turns) or record.turns[turn].role != "bot":
            continue
        if kind in ("contains", "not_contains", "matches"):
            try:
                value = str(ast.literal_eval(value))  # the label shows the text as a Python literal
            except (ValueError, SyntaxError):
                continue
        check, _, _ = _scaffold({kind: value})
        if check is None:
            continue
        return _reply_failure(record, "check_failed", turn, check, f"the script's check failed: {label}")
    return None


def _loop_failure(record: ConversationRecord, slug: str) -> FailureCheck | None:
    loops = [e for e in record.errors if e.code in _LOOPS]
    bots = [i for i, t in enumerate(record.turns) if t.role == "bot"]
    if not loops or not bots:
        return None
    turn = loops[0].turn if loops[0].turn is not None and loops[0].turn in bots else bots[-1]
    repeated = _first_line(record.turns[turn].text)
    if not repeated:
        return None
    check = reply_check("not_contains", repeated)
    why = f"the chatbot repeated {repeated!r} ({loops[0].message})"
    return _reply_failure(record, slug, turn, check, why, anchored=False)


def _answers_anything(record: ConversationRecord, bots: list[int], turn: int) -> bool:
    """Whether the chatbot gave this reply to *different* requests too: a fallback or a loop, not an answer."""
    text = normalised(record.turns[turn].text)
    asked = [
        record.turns[i - 1].text
        for i in bots
        if normalised(record.turns[i].text) == text and record.turns[i - 1].role == "user"
    ]
    return any(not same_request(a, b) for a, b in combinations(asked, 2))


def _wrap_up_turn(record: ConversationRecord, bots: list[int]) -> int | None:
    """The chatbot turn where it wrapped up: the last that stated another output; else its last reply that answers
    its request (not one it also gave to other requests: a fallback or a loop — anchoring on it would let
    "hello" reproduce the failure) and is not a closing fallback; None when there is none."""
    stated = [
        p.turn for name, p in record.evidence.items() if record.outputs.get(name) is not None and p.turn
    ]
    if any(t in bots for t in stated):
        return max(t for t in stated if t in bots)
    candidates = [i for i in bots if not _answers_anything(record, bots, i)]
    if record.outcome.ended_on_fallback and candidates and candidates[-1] == bots[-1]:
        candidates.pop()
    return candidates[-1] if candidates else None


def _missing_output_failure(
    record: ConversationRecord, types: Mapping[str, OutputType]
) -> FailureCheck | None:
    missing = [name for name, value in record.outputs.items() if value is None]
    typed = [(name, kind) for name in missing if (kind := _output_type(name, types)) is not None]
    first_user = next((i for i, t in enumerate(record.turns) if t.role == "user"), len(record.turns))
    # Replies only: a greeting before the first user turn answers nothing a script could send.
    bots = [i for i, t in enumerate(record.turns) if t.role == "bot" and i > first_user]
    if not typed or not bots:
        return None
    name, kind = typed[0]
    turn = _wrap_up_turn(record, bots)
    if turn is None:
        # Every reply was said again and again: the chatbot never got anywhere to wrap up. Its repeated reply
        # is the failure a script can pin (as a loop is).
        # Its first occurrence: the first request it failed to answer (any later "thanks, bye" gets the same reply
        # from a correct chatbot too, so pinning that one would fail on it).
        said = Counter(normalised(record.turns[i].text) for i in bots)
        most = max(said.values())
        turn = min(i for i in bots if said[normalised(record.turns[i].text)] == most)
        repeated = _first_line(record.turns[turn].text)
        why = f"the output {name} ({kind}) was never stated; the chatbot kept replying {repeated!r}"
        check = reply_check("not_contains", repeated)
        return _reply_failure(record, "goal_not_completed", turn, check, why, anchored=False)
    why = f"the output {name} ({kind}) was never stated; the chatbot wrapped up without it"
    return _reply_failure(record, "goal_not_completed", turn, reply_check("states", kind), why)


class _Derived(BaseModel):
    turn: int = Field(description="1-based number of the chatbot turn whose reply shows the fault")
    check: dict[str, str] = Field(
        description="one of {contains: TEXT}, {not_contains: TEXT}, {matches: REGEX}"
    )
    why: str = ""


def _llm_failure(record: ConversationRecord, slug: str, llm: LLMClient, today: date) -> FailureCheck:
    transcript = "\n".join(f"{i + 1}. {t.role}: {t.text[:600]}" for i, t in enumerate(record.turns[:60]))
    prompt = (
        f"A test conversation with a chatbot failed: {record.verdict_reason}\n\nTranscript:\n{transcript}\n\n"
        "Write one check on one chatbot turn that fails on that turn because of this fault and would hold for "
        'a correct chatbot. Answer JSON: {"turn": N, "check": {"contains"|"not_contains"|"matches": '
        'TEXT}, "why": "..."}.'
    )
    try:
        answer = llm.structured(
            [system("You turn chatbot failures into precise regression checks."), user(prompt)],
            _Derived,
            tag=TAG_DERIVE_CHECK,
            temperature=0,
        )
    except LLMError as exc:
        raise ShrinkError(
            f"No code rule fits {slug!r} and the LLM could not derive a check: {exc.user_message}"
        ) from None
    turn = answer.turn - 1
    if not 0 <= turn < len(record.turns) or record.turns[turn].role != "bot":
        raise ShrinkError(
            f"The LLM's check names turn {answer.turn}, which is no chatbot turn of the record."
        )
    check, profile, problems = _scaffold(answer.check)
    if check is None or profile is None:
        raise ShrinkError(f"The LLM's check {answer.check} is not a valid check: {problems}")
    held, detail = check_reply(check, record.turns[turn].text, profile, today)
    if held is not False:
        raise ShrinkError(f"The LLM's check {check.label()} does not fail on the recorded reply ({detail}).")
    failure = _reply_failure(record, slug, turn, check, answer.why[:300] or f"derived by the LLM for {slug}")
    return failure.model_copy(update={"source": "llm"})


def derive_failure(
    record: ConversationRecord,
    *,
    output_types: Mapping[str, OutputType] | None = None,
    llm: LLMClient | None = None,
    today: date | None = None,
) -> FailureCheck:
    """The check that captures `record`'s failure (see the module docstring); a `ShrinkError` says why none."""
    if record.verdict != "failed":
        raise ShrinkError(
            f"Only a failed conversation can be shrunk; this one is {record.verdict or 'not decided'}"
            f" ({record.verdict_reason or 'no reason'})."
        )
    slug = reason_code(record.verdict_reason)
    found: FailureCheck | None = None
    if slug in _ERROR_SLUGS or slug.startswith("http_"):
        found = _error_failure(record, slug)
    elif slug == "check_failed":
        found = _check_failure(record)
    elif slug in ("repetition_loop", "fallback_loop"):
        found = _loop_failure(record, slug)
    elif slug == "goal_not_completed":
        found = _missing_output_failure(record, output_types or {})
    if found is not None:
        return found
    if llm is None:
        raise ShrinkError(
            f"No code rule turns {slug!r} into a check; give an LLM (--provider/--model) to derive one."
        )
    return _llm_failure(record, slug, llm, today or date.today())


_NORMALISER = Normaliser()


def normalised(text: str) -> str:
    """`text` with volatile values (ids, dates, times) as placeholders and spacing collapsed (D24)."""
    return " ".join(_NORMALISER(text)[0].casefold().split())


def resembles(reply: str, anchor: str | None) -> bool:
    return anchor is None or fuzz.ratio(normalised(reply), anchor) >= ANCHOR_SIMILARITY
