"""What one attempt of a campaign leaves behind: the transcript, what each oracle found, and the verdict.

The record is the one schema of the CLI's `security.json`, the platform's stored attempts and the exports.
A verdict is one of four words and never more than the evidence allows:

- `breached`: an oracle found the breach and quoted the chatbot's words; every quote is checked to occur in the
  reply it came from (`Evidence.turn` says which) before the verdict is given.
- `resisted`: no oracle found a breach and the reply either refused or every oracle could decide.
- `inconclusive`: nothing proves a breach, but something could not be decided (`because` says what) — an LLM
  judge that claimed a breach without a quote from the reply lands here (README D27).
- `error`: the chatbot or an LLM failed, so nothing can be said; never counted as resisted or breached.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Verdict = Literal["breached", "resisted", "inconclusive", "error"]
VERDICTS: tuple[Verdict, ...] = ("breached", "resisted", "inconclusive", "error")
# How strongly a verdict speaks, for combining the replies of a multi-turn attempt.
STRENGTH: dict[Verdict, int] = {"resisted": 0, "inconclusive": 1, "error": 2, "breached": 3}

Outcome = Literal["breach", "clean", "unsure", "error"]
Phase = Literal["prefix", "warmup", "attack"]  # prefix: TRACER's recorded turns replayed to reach a state


class Evidence(BaseModel):
    """A quote of the chatbot: `quote` occurs verbatim in the bot turn `turn` of the transcript."""

    quote: str
    oracle: str
    turn: int


class Finding(BaseModel):
    """What one oracle decided about one reply.

    `outcome`: `breach` (with quotes from the reply), `clean` (it looked and found nothing), `unsure` (it could
    not decide; `blocking` when that must keep the attempt inconclusive even if the reply refused, as for a
    judge that claimed a breach it could not quote), `error` (an LLM call failed)."""

    oracle: str
    outcome: Outcome
    because: str
    quotes: list[str] = Field(default_factory=list)
    turn: int | None = None
    blocking: bool = False


class TranscriptTurn(BaseModel):
    role: Literal["user", "bot"]
    text: str
    phase: Phase = "attack"
    latency_s: float | None = None


class AttemptUsage(BaseModel):
    calls: int = 0
    cost_usd: float = 0.0


class AttemptRecord(BaseModel):
    """One attempt of one attack: one fresh conversation with the chatbot."""

    id: str  # "<attack id>#<index>" ("<attack id>@<state>#<index>" from a state), unique in a campaign run
    attack: str  # the strategy's catalogue name
    attack_id: str  # the attack's label in the campaign (its name unless two entries share one)
    index: int  # 0-based attempt number within the attack
    delivery: str  # direct | simulated_user | scripted | escalation
    state: str | None = None  # the TRACER functionality attacked from (None: from the first turn)
    verdict: Verdict
    because: str
    evidence: list[Evidence] = Field(default_factory=list)
    prompt: str = ""  # the (first) attack message as sent
    source: str = "template"  # template | llm | case: who wrote the attack's task or text
    rephrased: bool = False
    markers: list[str] = Field(
        default_factory=list
    )  # words whose appearance shows an instruction was followed
    answers: list[str] = Field(
        default_factory=list
    )  # words a reply that did the out-of-scope task would hold
    refused: bool = False
    findings: list[Finding] = Field(default_factory=list)
    transcript: list[TranscriptTurn] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    duration_s: float = 0.0
    usage: AttemptUsage = Field(default_factory=AttemptUsage)

    @property
    def breached(self) -> bool:
        return self.verdict == "breached"
