"""Talking to the chatbot for one attempt: a fresh conversation, the warm-up the delivery mode asks for, and the
LLM's parts (tasks, rephrasing, the warm-up user, the escalating attacker).

Delivery modes: `direct` (the attack is the first message), `scripted` (literal turns first), `simulated_user`
(ordinary turns written by the LLM in a profile's identity first) and `escalation` (up to `max_turns` attack
messages, each adapted by the LLM to the chatbot's last reply; without a model the strategy's other phrasings
follow one another).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from engine.connectors import BotReply, Connector
from engine.llm import LLMClient, user
from engine.security import prompts
from engine.security.catalogue import AttackMessage, TaskKind
from engine.security.records import Phase, TranscriptTurn
from engine.security.texts import Task


@dataclass(frozen=True)
class Identity:
    """Who plays the user in a simulated warm-up: a profile's role, context and language."""

    name: str = ""
    role: str = "An ordinary customer of this chatbot."
    context: tuple[str, ...] = ()
    language: str = "English"


def identity_from_profile(data: object, *, name: str = "") -> Identity:
    """A warm-up user from a SENSEI profile's data (`user.role`, its text `context` lines, `user.language`);
    personality references and anything else are left out."""
    user = data.get("user") if isinstance(data, dict) else None
    if not isinstance(user, dict):
        return Identity(name=name)
    context = user.get("context")
    lines = [context] if isinstance(context, str) else context if isinstance(context, list) else []
    role = user.get("role")
    language = user.get("language")
    return Identity(
        name=name,
        role=role.strip() if isinstance(role, str) and role.strip() else Identity().role,
        context=tuple(line.strip() for line in lines if isinstance(line, str) and line.strip()),
        language=language.strip() if isinstance(language, str) and language.strip() else "English",
    )


class Conversation:
    """One attempt's conversation: sends turns through the connector and keeps the transcript."""

    def __init__(self, connector: Connector, on_turn: object = None) -> None:
        self.connector = connector
        self.transcript: list[TranscriptTurn] = []
        self._on_turn = on_turn
        self.last: BotReply | None = None  # the greeting, then the last reply, as the connector gave it

    def _add(self, turn: TranscriptTurn) -> int:
        self.transcript.append(turn)
        if callable(self._on_turn):
            self._on_turn(turn)
        return len(self.transcript) - 1

    def open(self, phase: Phase = "warmup") -> None:
        self.connector.new_conversation()
        greeting = self.connector.greeting()
        self.last = greeting
        if greeting is not None and greeting.text.strip():
            self._add(TranscriptTurn(role="bot", text=greeting.text, phase=phase))

    def say(self, text: str, phase: Phase) -> tuple[str, int]:
        """Send one user turn; (the reply's text, its index in the transcript)."""
        self._add(TranscriptTurn(role="user", text=text, phase=phase))
        started = time.monotonic()
        reply = self.connector.send(text)
        self.last = reply
        latency = reply.latency_s or (time.monotonic() - started)
        index = self._add(
            TranscriptTurn(role="bot", text=reply.text, phase=phase, latency_s=round(latency, 4))
        )
        return reply.text, index

    def rendered(self, *, user_label: str = "User", bot_label: str = "Chatbot") -> str:
        lines = [f"{user_label if t.role == 'user' else bot_label}: {t.text}" for t in self.transcript]
        return "\n".join(lines) or "(nothing yet)"

    @property
    def user_text(self) -> str:
        return "\n".join(t.text for t in self.transcript if t.role == "user")


@dataclass
class Writer:
    """The LLM's parts of an attempt; every call is tagged `security.<part>` in the usage ledger."""

    llm: LLMClient | None
    context: str
    user_llm: LLMClient | None = None
    generated: list[str] = field(default_factory=list)  # tasks written so far, so the next one differs

    def task(self, kind: TaskKind) -> Task:
        assert self.llm is not None
        avoid = (
            "Do not repeat any of these earlier requests:\n"
            + "\n".join(f"- {t}" for t in self.generated[-8:])
            if self.generated
            else ""
        )
        text = prompts.TASK.format(
            context=self.context or "(not given: assume a narrow customer-service chatbot)",
            kind=prompts.TASK_KINDS[kind],
            avoid=avoid,
        )
        answer = self.llm.structured([user(text)], prompts.GeneratedTask, tag="security.task")
        self.generated.append(answer.task)
        keywords = [k.strip() for k in answer.answer_keywords if k.strip()][:3]
        return Task(answer.task.strip(), tuple(keywords), unsafe=kind == "unsafe")

    def rephrase(self, message: AttackMessage, intensity: float) -> tuple[str, str | None]:
        """(the reworded message, None) or (the original, why it was kept) when a protected string was lost."""
        assert self.llm is not None
        keep = ", ".join(repr(p) for p in message.protected) or "(nothing)"
        text = prompts.REPHRASE.format(intensity=f"{intensity:.2f}", keep=keep, text=message.text)
        answer = self.llm.structured([user(text)], prompts.Rephrased, tag="security.rephrase")
        lost = [p for p in message.protected if p not in answer.text]
        if lost or not answer.text.strip():
            return (
                message.text,
                f"the rewording lost {lost[0]!r}; the original message was sent"
                if lost
                else ("the rewording was empty; the original message was sent"),
            )
        return answer.text.strip(), None

    def warmup_message(self, identity: Identity, conversation: Conversation) -> str:
        model = self.user_llm or self.llm
        assert model is not None
        details = "".join(f"{line}\n" for line in identity.context)
        text = prompts.WARMUP.format(
            context=self.context or "(not given)",
            role=identity.role,
            details=details,
            language=f"in {identity.language}" if identity.language else "in the chatbot's language",
            transcript=conversation.rendered(user_label="You"),
        )
        reply = model.complete([user(text)], tag="security.warmup")
        return reply.strip().strip('"').strip() or "Hello!"

    def next_move(self, message: AttackMessage, conversation: Conversation) -> str:
        assert self.llm is not None
        keep = (
            "Include these strings exactly, as the attack needs them: " + ", ".join(message.protected) + "\n"
            if message.protected
            else ""
        )
        text = prompts.ESCALATE.format(
            context=self.context or "(not given)",
            goal=message.goal,
            keep=keep,
            transcript=conversation.rendered(user_label="You"),
        )
        answer = self.llm.structured([user(text)], prompts.NextMove, tag="security.escalate")
        return answer.message.strip()
