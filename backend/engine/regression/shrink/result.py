"""What shrinking leaves: the result model (stored as the engine returns it, README D31) and the pinned profile.

The pinned profile is a scripted profile (D33) — the minimal script's literal user turns, the failure's check on
the last one's reply, and `min_pass_rate: 100%` — so `parley sensei run` plays and decides it with no LLM call,
and `parley sensei compare` calls a run in which it fails regressed. Its YAML is written here as
text (every string JSON-quoted, which YAML reads as is) and read back by the profile validator before anyone
sees it: a pinned profile that would not load is a bug, never a file.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from engine.regression.shrink.failure import FailureCheck, ShrinkError
from engine.sensei import load_profile
from engine.sensei.profile import Profile

SHRINK_WARNING = (
    "Shrinking replays the conversation's user turns against the live chatbot, many times: every replay makes "
    "real requests (orders, bookings, messages). Point it at a test instance."
)


class Reproduction(BaseModel):
    failed: int  # replays that showed the failure
    replays: int
    needed: int  # k of k-of-n

    @property
    def reproduced(self) -> bool:
        return self.failed >= self.needed

    @property
    def rate(self) -> float:
        return self.failed / self.replays if self.replays else 0.0

    def text(self) -> str:
        return f"{self.failed} of {self.replays} replays"


class DiffLine(BaseModel):
    op: Literal["kept", "removed", "added"]
    text: str


class ReplayedTurn(BaseModel):
    role: Literal["user", "bot", "error"]
    text: str


class ShrinkResult(BaseModel):
    """The minimal script that reproduces a failed conversation, and what it cost to find it."""

    kind: Literal["shrink"] = "shrink"
    name: str  # the pinned profile's test name, after the failure
    record_id: str
    profile: str
    conversation_index: int
    failure: FailureCheck
    reproduced: bool  # the original script (up to the failing turn) failed in k of n replays
    original: Reproduction
    reproduction: Reproduction  # of the minimal script, every replay played
    script: list[str]  # the minimal script's user turns
    original_script: list[str]  # the original's user turns up to the failing one
    original_turns: int  # user turns of the whole original conversation
    shrunk_turns: int
    chatbot_calls: int
    llm_calls: int
    candidates: int  # candidate scripts replayed
    capped: bool  # the chatbot-call cap stopped the search
    settings: dict[str, int] = Field(default_factory=dict)  # replays, needed, max_chatbot_calls
    diff: list[DiffLine] = Field(default_factory=list)
    transcript: list[ReplayedTurn] = Field(default_factory=list)  # a replay of the minimal script that failed
    pinned_profile: str = ""  # YAML; empty when the failure did not reproduce
    warnings: list[str] = Field(default_factory=list)


def diff_lines(original: Sequence[str], shrunk: Sequence[str]) -> list[DiffLine]:
    """The original user turns against the shrunk ones, in order (a merged turn shows as removed + added)."""
    out: list[DiffLine] = []
    matcher = difflib.SequenceMatcher(a=list(original), b=list(shrunk), autojunk=False)
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        if tag == "equal":
            out += [DiffLine(op="kept", text=t) for t in original[a1:a2]]
            continue
        out += [DiffLine(op="removed", text=t) for t in original[a1:a2]]
        out += [DiffLine(op="added", text=t) for t in shrunk[b1:b2]]
    return out


def pinned_name(profile: str, index: int, reason: str) -> str:
    """`shrunk_<profile>_<index>_<reason>`, in the characters every file system and test report takes."""
    slug = re.sub(r"[^A-Za-z0-9_-]+", "_", f"{profile}_{index}_{reason}").strip("_")[:80]
    return f"shrunk_{slug or 'failure'}"


def pinned_yaml(
    name: str, script: Sequence[str], failure: FailureCheck, *, greet: bool, origin: str
) -> tuple[str, Profile]:
    """The pinned profile's YAML and the profile it loads as."""
    lines = [f"# {line}" for line in origin.splitlines()]
    lines += [f"test_name: {json.dumps(name)}"]
    if not greet:
        lines += ["chatbot:", "  is_starter: false"]
    # A pinned failure must pass every time once fixed: the comparison's min-pass-rate gate holds it to 100 %
    # (one conversation is too few for the pass-rate gate's interval to call it regressed).
    lines += ["min_pass_rate: 100%", "script:"]
    for number, message in enumerate(script, start=1):
        lines.append(f"  - user: {json.dumps(message, ensure_ascii=False)}")
        if number == len(script) and failure.check is not None:
            check = failure.check
            lines.append(f"    expect: [{{{check.kind}: {json.dumps(check.value, ensure_ascii=False)}}}]")
    text = "\n".join(lines) + "\n"
    profile, problems = load_profile(text, source=f"{name}.yaml")
    if profile is None:
        shown = "; ".join(p.render() for p in problems if p.is_error)
        raise ShrinkError(f"The shrunk script does not load as a profile ({shown}).")
    return text, profile
