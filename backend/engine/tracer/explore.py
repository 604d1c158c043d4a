"""Exploration: the probe, the choice of each session's focus (depth-first) and the conversation itself.

LLM economy per explorer turn: one call writes the message. The "does this sound like the assistant?" check
and the fallback check are local (`similarity.py`); the LLM is asked only when the local check is unsure
(a rewrite for an assistant-sounding message, a verdict for a reply half-similar to the fallback). After a
fallback, the next explorer call itself is told to rephrase, or to change topic after repeated fallbacks, so
no separate rephrasing call is made.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from functools import partial
from typing import Literal

from langgraph.types import Command

from engine.connectors import BotReply, ConnectorError, SessionLost
from engine.llm import LLMError, Message, assistant, system, user
from engine.tracer import prompts
from engine.tracer.deps import TRACER_CANCELLED, TracerDeps, survivable
from engine.tracer.model import FallbackVerdict, FunctionalModel, ProbeAnswer, RewrittenTurn
from engine.tracer.similarity import common_reply, fallback_similarity, sounds_like_assistant
from engine.tracer.state import Ended, ExplorationTranscript, ExplorationTurn, TracerState

logger = logging.getLogger("engine.tracer")
COMPLETE = "EXPLORATION COMPLETE"
QUIT_WORDS = frozenset({"quit", "exit", "bye", "goodbye"})
MAX_ERRORS_IN_ROW = 2
"""Chatbot failures in a row after which a session ends (the next session starts a fresh conversation)."""
NO_ANSWER = "(no answer: the chatbot returned an error)"


def reply_text(reply: BotReply | None) -> str:
    """The chatbot's turn as the explorer reads it: its messages, then the buttons it offered."""
    if reply is None:
        return ""
    text = reply.text.strip()
    labels = [button.label for button in reply.buttons if button.label.strip()]
    if labels:
        text = f"{text}\nOptions: {' | '.join(labels)}".strip()
    return text


def load_model(state: TracerState) -> FunctionalModel:
    return FunctionalModel.model_validate(state.get("model") or {})


def primary_language(model: FunctionalModel) -> str:
    return model.languages[0] if model.languages else "English"


# -- probe --------------------------------------------------------------------------------------------------------


def probe(deps: TracerDeps, state: TracerState) -> dict[str, object]:
    """Languages and fallback: greet once, send a few nonsense messages, one LLM call reads all the replies.

    When most nonsense replies are the same sentence, that sentence is the fallback without asking the LLM;
    the LLM call still names the languages (and the fallback when the replies disagree). A probe the chatbot
    fails to answer (an HTTP 500, a timeout) is recorded as a warning and the others go on; only a chatbot
    that answers none of them stops the run.
    """
    deps.context.reporter.stage("probe")
    connector = deps.connector
    warnings: list[str] = []
    errors: list[ConnectorError] = []

    def ask(label: str, call: Callable[[], BotReply | None]) -> BotReply | None:
        try:
            return call()
        except ConnectorError as exc:
            errors.append(exc)
            warnings.append(
                f"Probe: the chatbot failed on {label} ({exc.user_message}); exploration goes on."
            )
            return None

    def new_conversation() -> BotReply | None:
        connector.new_conversation()
        return None

    with deps.usage_delta() as usage:
        ask("opening a conversation", new_conversation)
        greeting = reply_text(ask("the greeting", connector.greeting))
        hello_reply = ask(f'"{prompts.PROBE_GREETING}"', lambda: connector.send(prompts.PROBE_GREETING))
        hello = reply_text(hello_reply)
        nonsense: list[str] = []
        answered = [bool(greeting), hello_reply is not None]
        for text in prompts.PROBE_NONSENSE:
            deps.context.check_cancel(TRACER_CANCELLED)
            ask("opening a conversation", new_conversation)
            reply = ask(f'"{text}"', partial(connector.send, text))
            answered.append(reply is not None)
            # Only the bubbles: buttons a bot appends to its fallback are not part of the sentence.
            nonsense.append(reply.text.strip() if reply is not None else "")
        if errors and not any(answered):
            raise ConnectorError(
                f"The chatbot answered none of TRACER's probe messages; the last error: {errors[-1].user_message}"
            )
        lines = []
        if greeting:
            lines.append(f"Greeting: {greeting}")
        lines.append(f'Answer to "{prompts.PROBE_GREETING}": {hello or "(no answer)"}')
        for question, answer in zip(prompts.PROBE_NONSENSE, nonsense, strict=True):
            lines.append(f'Answer to "{question}": {answer or "(no answer)"}')
        probed = deps.llm.structured(
            [user(prompts.PROBE.format(replies="\n".join(lines)))], ProbeAnswer, tag="tracer.probe"
        )
    for warning in warnings:
        logger.warning(warning)
        deps.context.reporter.warning(warning)
    agreed = common_reply(nonsense)
    fallback = agreed or (probed.fallback.strip() if probed.fallback and probed.fallback.strip() else None)
    languages = [lang.strip().title() for lang in probed.languages if lang.strip()] or ["English"]
    model = FunctionalModel(languages=languages, fallback=fallback, greets_first=bool(greeting))
    logger.info("Probe: languages %s, fallback %r", languages, fallback)
    return {
        "run_id": state.get("run_id", ""),
        "stage": "explore",
        "model": model.model_dump(mode="json"),
        "sessions_done": 0,
        "queue": [],
        "pending": None,
        "started_at": deps.clock(),
        "warnings": warnings,
        "usage": usage,
    }


# -- select -------------------------------------------------------------------------------------------------------


def select(deps: TracerDeps, state: TracerState) -> Command[Literal["converse", "consolidate"]]:
    """The next session's focus: the top of the depth-first stack, skipping explored or vanished nodes.

    Skipped entries cost nothing; only a session that actually runs counts towards `sessions`.
    """
    deps.context.check_cancel(TRACER_CANCELLED)
    done = state.get("sessions_done", 0)
    total = deps.config.sessions
    deps.context.reporter.progress(done, total)
    if done >= total:
        return Command(goto="consolidate", update={"focus": None})
    model = load_model(state)
    names = set(model.names())
    explored = set(state.get("explored", []))
    queue = list(state.get("queue", []))
    focus = None
    while queue:
        candidate = queue.pop()
        if candidate in names and candidate not in explored:
            focus = candidate
            break
    return Command(goto="converse", update={"focus": focus, "queue": queue})


# -- one session --------------------------------------------------------------------------------------------------


def _focus_text(model: FunctionalModel, focus: str | None) -> str:
    node = model.get(focus) if focus else None
    if node is None:
        known = ""
        if model.functionalities:
            known = prompts.KNOWN_FUNCTIONALITIES.format(names=", ".join(model.names()[:40]))
        return prompts.GENERAL_FOCUS.format(known=known)
    parameters = ""
    if node.parameters:
        described = "; ".join(
            p.name + (f" (options: {', '.join(p.options)})" if p.options else "") for p in node.parameters
        )
        parameters = f"\n  It asks for: {described}"
    return prompts.BRANCH_FOCUS.format(name=node.name, description=node.description, parameters=parameters)


def _llm_history(system_prompt: str, turns: list[ExplorationTurn], window: int, nudge: str) -> list[Message]:
    messages: list[Message] = [system(system_prompt)]
    for turn in turns[-window:]:
        # The explorer LLM plays the user, so its own lines are "assistant" and the chatbot's are "user".
        if turn["role"] == "explorer":
            messages.append(assistant(turn["text"]))
        else:
            messages.append(user(NO_ANSWER if turn.get("error") else turn["text"]))
    messages.append(system(nudge))
    return messages


class _Session:
    def __init__(self, deps: TracerDeps, model: FunctionalModel, number: int, focus: str | None) -> None:
        self.deps = deps
        self.model = model
        self.number = number
        self.focus = focus
        self.turns: list[ExplorationTurn] = []
        self.warnings: list[str] = []
        self.language = primary_language(model)

    def add(self, role: Literal["explorer", "chatbot"], text: str, *, fallback: bool = False) -> None:
        self.turns.append(ExplorationTurn(role=role, text=text, fallback=fallback))
        self.deps.context.reporter.message(role, text, session=self.number)

    def warn(self, text: str) -> None:
        logger.warning(text)
        self.warnings.append(text)
        self.deps.context.reporter.warning(text)

    def is_fallback(self, message: str, reply: str) -> bool:
        config = self.deps.config
        if not reply.strip():
            return True
        score = fallback_similarity(reply, self.model.fallback)
        if score >= config.fallback_sure:
            return True
        if score < config.fallback_unsure or self.model.fallback is None:
            return False
        verdict = self.deps.llm.structured(
            [
                user(
                    prompts.FALLBACK_CHECK.format(
                        fallback=self.model.fallback, message=message, reply=reply[:1500]
                    )
                )
            ],
            FallbackVerdict,
            tag="tracer.fallback",
        )
        return verdict.is_fallback

    def opener(self) -> str | None:
        """A canned opener for a general session in English (no LLM call); None = let the explorer write it."""
        if self.focus is not None or self.language.lower() != "english":
            return None
        chooser = random.Random(f"{self.deps.config.seed}:{self.number}")  # noqa: S311 - not security related
        return chooser.choice(prompts.OPENERS)

    def explorer_message(self, system_prompt: str, nudge: str) -> str:
        messages = _llm_history(system_prompt, self.turns, self.deps.config.history_messages, nudge)
        return self.deps.llm.complete(messages, tag="tracer.explore").strip()

    def run(self) -> ExplorationTranscript:
        """The session's conversation. A chatbot failure on one turn is recorded and the conversation goes on
        (two in a row end it); an LLM failure ends it early, keeping what was said (`extract` decides)."""
        ended: Ended
        error: str | None = None
        try:
            self.deps.connector.new_conversation()
            greeting = reply_text(self.deps.connector.greeting())
        except ConnectorError as exc:
            self.warn(
                f"Session {self.number}: the chatbot failed to start a conversation ({exc.user_message})."
            )
            return ExplorationTranscript(
                session=self.number, focus=self.focus, turns=[], ended="chatbot_error", error=exc.user_message
            )
        if greeting:
            self.add("chatbot", greeting)
        try:
            ended, error = self.converse()
        except LLMError as exc:
            if not survivable(exc):
                raise
            ended, error = "llm_error", exc.user_message
            self.warn(
                f"Session {self.number} was cut short: the language model failed ({exc.user_message}); "
                "the conversation so far is kept."
            )
        return ExplorationTranscript(
            session=self.number, focus=self.focus, turns=self.turns, ended=ended, error=error
        )

    def converse(self) -> tuple[Ended, str | None]:
        deps, config = self.deps, self.deps.config
        system_prompt = prompts.EXPLORER_SYSTEM.format(
            language=self.language,
            languages=", ".join(self.model.languages) or "unknown",
            focus=_focus_text(self.model, self.focus),
            turns=config.turns,
        )
        fallbacks_in_row = errors_in_row = 0
        for index in range(config.turns):
            deps.context.check_cancel(TRACER_CANCELLED)
            left = config.turns - index
            if errors_in_row:
                nudge = prompts.ERROR_NUDGE.text
            elif fallbacks_in_row >= config.abandon_after_fallbacks:
                nudge = prompts.TOPIC_NUDGE.text
            elif fallbacks_in_row:
                nudge = prompts.REPHRASE_NUDGE.text
            elif not self.turns:
                nudge = prompts.OPENER_NUDGE.text
            else:
                nudge = prompts.TURN_REMINDER.format(left=left)
            canned = self.opener() if index == 0 else None
            message = canned or self.explorer_message(system_prompt, nudge)
            if COMPLETE in message.upper():
                return "complete", None
            if canned is None and self.turns and sounds_like_assistant(message):
                last_reply = next(
                    (
                        t["text"]
                        for t in reversed(self.turns)
                        if t["role"] == "chatbot" and not t.get("error")
                    ),
                    "",
                )
                message = deps.llm.structured(
                    [
                        user(
                            prompts.REWRITE_TURN.format(
                                message=message, last_reply=last_reply[:1000], language=self.language
                            )
                        )
                    ],
                    RewrittenTurn,
                    tag="tracer.rewrite",
                ).message.strip()
            if not message:
                return "complete", None
            self.add("explorer", message)
            try:
                reply = reply_text(deps.connector.send(message))
            except SessionLost as exc:
                self.warn(f"Session {self.number}: the chatbot lost the conversation ({exc.user_message}).")
                return "chatbot_error", exc.user_message
            except ConnectorError as exc:
                errors_in_row += 1
                self.turns.append(
                    ExplorationTurn(role="chatbot", text="", fallback=False, error=exc.user_message)
                )
                if errors_in_row >= MAX_ERRORS_IN_ROW:
                    self.warn(
                        f"Session {self.number}: the chatbot failed {errors_in_row} times in a row "
                        f"({exc.user_message}); the session ends, exploration goes on."
                    )
                    return "chatbot_error", exc.user_message
                self.warn(
                    f"Session {self.number}, turn {index + 1}: the chatbot failed ({exc.user_message}); "
                    "recorded, the conversation goes on."
                )
                continue
            errors_in_row = 0
            fallback = self.is_fallback(message, reply)
            self.add("chatbot", reply, fallback=fallback)
            fallbacks_in_row = fallbacks_in_row + 1 if fallback else 0
            if reply.strip().lower().strip(".!") in QUIT_WORDS:
                return "bot_quit", None
        return "turn_limit", None


def converse(deps: TracerDeps, state: TracerState) -> dict[str, object]:
    """Run one exploration session and keep its transcript until `extract` has analysed it."""
    number = state.get("sessions_done", 0) + 1
    focus = state.get("focus")
    model = load_model(state)
    logger.info("Session %d/%d: %s", number, deps.config.sessions, focus or "general exploration")
    session = _Session(deps, model, number, focus)
    with deps.usage_delta() as usage:
        transcript = session.run()
    update: dict[str, object] = {"pending": transcript, "usage": usage, "warnings": session.warnings}
    if focus:
        update["explored"] = [focus]
    return update
