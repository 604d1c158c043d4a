"""One simulated conversation: the loop between the user LLM and the chatbot under test.

Order of a conversation:
1. open it; when the bot starts, its greeting is recorded first (and the user's first message answers it);
2. per turn: check cancellation and budgets → one LLM call writes the user's message → that exact message is
   sent → the reply is recorded with its latency → fallback / repetition bookkeeping → stop conditions;
3. after the loop: one structured call extracts every output (typed) with the chatbot turn and words that
   state it; a value no chatbot turn states gets one more call asking for the quote, then is None with reason
   `no_evidence` (`extraction`); missing outputs are reported;
4. the verdict — passed, failed or inconclusive — and its reason (`verdicts`).

What the user LLM writes is cleaned before it is sent (`hygiene`): cut where it starts speaking for the chatbot
or writing further turns; written again once when it recites its instructions or nothing is left, and the
conversation ends with 3002 (the user left its role) when the second answer is no better. Every slip is kept
in `settings.simulator_slips`.

The end of the conversation, from either side, stops it with `stopped_because: finished` (what counts as an
end, and when: `closing`). The chatbot's answer to the user's closing is a note (`settings.notes`), never fed
to the loop detectors; a closing before `all_answered` verified the goals is no end: the next prompt names the
goals still open.

Stop conditions, in every goal style: the turn cap (`steps`, the drawn `random steps`, or `all_answered.limit`),
a fallback loop (`fallback_loop_limit` fallbacks in a row → 1000), a repetition loop (the same non-fallback
answer `repeat_limit` times in a row → 1003; a statement repeated to the user's repeated request does not
count, a question asked again does), budgets (2000 profile, 2001 conversation, 2002 call refused),
cancellation (4000), a connector failure (its code), a user-LLM failure (3000) and a user out of its role (3002). Only `all_answered` runs
the goal check, one structured call per bot reply asking only about goals and outputs not yet confirmed;
reaching its limit unverified records 1002. In steps mode a user turn costs exactly one LLM call.

After a fallback the next prompt asks the user to rephrase; after `rephrase_limit` fallbacks in a row it asks
the user to move on to another goal. The conversation's own `random.Random(seed)` drives language switching,
so a seeded run is reproducible given the same LLM answers.

Which model plays the user (README D6): the run's override (`user_model`, e.g. the CLI's `--model`), else the
profile's `llm.model`, else the model of the client the simulator was given; its temperature is the profile's.
The goal check and the output extraction use the judge's model. An LLM failure that no later call can escape
(`ends_run`: the provider is down, the model does not exist) ends the run instead of only this conversation.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any, NoReturn

from pydantic import BaseModel, Field

from engine.connectors.base import BotReply, Connector
from engine.context import CancelToken
from engine.conversation import (
    ConversationError,
    ConversationRecord,
    ErrorCode,
    Note,
    OutputEvidence,
    RecordedSlip,
    RecordSettings,
    Turn,
)
from engine.llm import BudgetExceeded, LLMClient, LLMError, system, user
from engine.sensei import prompts
from engine.sensei.calibration import Calibration, calibration_for, for_conversation
from engine.sensei.closing import chatbot_farewell, match_item, offers_more_help, split_end_mark, user_closing
from engine.sensei.detection import FallbackDetector, same_answer, same_request
from engine.sensei.errors import connector_error, error
from engine.sensei.extraction import TAG_EXTRACT, TAG_EXTRACT_QUOTES, extract_outputs
from engine.sensei.hygiene import chatbot_names, clean_user_turn
from engine.sensei.planner import PlannedConversation
from engine.sensei.profile import Profile, Style
from engine.sensei.scripted import apply_checks
from engine.sensei.usage import Accumulator, SpendTracker, UsageTap
from engine.sensei.verdicts import inputs_not_conveyed
from engine.sensei.verdicts import judge as decide_verdict

__all__ = [
    "TAG_EXTRACT",
    "TAG_EXTRACT_QUOTES",
    "Simulator",
    "SimulatorSettings",
    "SpendTracker",
]
TAG_USER_TURN = "sensei.user_turn"
TAG_GOAL_CHECK = "sensei.goal_check"


@dataclass(frozen=True)
class SimulatorSettings:
    fallback_threshold: float = 0.6
    fallback_loop_limit: int = 6
    rephrase_limit: int = 3
    repeat_limit: int = 3
    language_switch_probability: float = 0.3
    # A chat message is short; a small model given more room rambles on and writes the chatbot's part too.
    user_max_tokens: int | None = 150
    check_max_tokens: int | None = 800
    extract_max_tokens: int | None = 1200
    # A user calibrated to real users (engine.sensei.calibration), enforced on every conversation; None = off.
    calibration: Calibration | None = None
    # Per personality name: the calibrated users a project's personalities carry (used when `calibration` is None).
    calibrations: Mapping[str, Calibration] = field(default_factory=dict)


class GoalVerdict(BaseModel):
    goal: int = Field(description="The goal's number.")
    answered: bool = Field(description="True when the chatbot answered, confirmed or provided it.")
    evidence: str | None = Field(default=None, description="The chatbot's words that show it, or null.")


class GoalCheck(BaseModel):
    """Which of the listed goals the chatbot has answered, and which listed items it has stated."""

    goals: list[GoalVerdict] = Field(default_factory=list)
    items_given: list[str] = Field(default_factory=list, description="Names of the items the chatbot stated.")


TurnListener = Callable[[ConversationRecord, Turn], None]


class _Stop(Exception):
    def __init__(self, reason: str, problem: ConversationError | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.problem = problem


class Simulator:
    """Runs conversations of profiles against connectors. One instance serves many threads."""

    def __init__(
        self,
        llm: LLMClient,
        *,
        judge: LLMClient | None = None,
        settings: SimulatorSettings | None = None,
        clock: Callable[[], float] = time.monotonic,
        today: Callable[[], date] = date.today,
        user_model: str | None = None,
    ) -> None:
        self.llm = llm
        self.judge = judge or llm
        self.user_model = user_model
        self.settings = settings or SimulatorSettings()
        self.clock = clock
        self.today = today
        self.tap = UsageTap()
        self.tap.attach(llm.ledger)
        self.tap.attach(self.judge.ledger)

    def user_llm(self, profile: Profile) -> LLMClient:
        """The client of the model that plays the user for `profile` (D6: override, profile, run default)."""
        return self.llm.for_model(
            simulated_user_model(profile, override=self.user_model, default=self.llm.model)
        )

    # -- one conversation ------------------------------------------------------------------------------------

    def run(
        self,
        profile: Profile,
        planned: PlannedConversation,
        connector: Connector,
        *,
        cancel: CancelToken | None = None,
        profile_spend: SpendTracker | None = None,
        conversation_id: str | None = None,
        technology: str | None = None,
        on_turn: TurnListener | None = None,
    ) -> ConversationRecord:
        state = _Conversation(self, profile, planned, connector, cancel, profile_spend, on_turn)
        record = ConversationRecord(
            id=conversation_id or uuid.uuid4().hex,
            profile=profile.name,
            index=planned.index,
            language=profile.user.language,
            context=[*profile.user.personality_context, *profile.user.context],
            goals=list(profile.user.goals),
            inputs=dict(planned.values),
            outputs={output.name: None for output in profile.chatbot.outputs},
            settings=RecordSettings(
                styles=[_style_label(s) for s in planned.styles],
                goal_style=profile.conversation.goal_style.model_dump(exclude_none=True),
                max_user_turns=planned.max_user_turns,
                goals=list(planned.goals),
                seed=planned.seed,
                personality=profile.user.personality,
                user_model=state.user_llm.model,
                judge_model=self.judge.model,
                profile_model=profile.llm.model,
                temperature=profile.llm.temperature,
                connector=technology or getattr(connector, "technology", "") or None,
                min_pass_rate=profile.min_pass_rate,  # the comparison's gate reads it from the records
            ),
            started_at=datetime.now(UTC),
        )
        state.record = record
        started = self.clock()
        state.started = started
        with self.tap.collect(profile_spend) as usage:
            state.usage = usage
            state.play()
            record.usage = usage.usage()
            record.outcome.llm_calls = dict(sorted(usage.by_tag.items()))
        record.duration_s = round(self.clock() - started, 4)
        return apply_checks(decide_verdict(record, self.today()), profile, self.today())


def _style_label(style: Style) -> Any:
    return {style.name: list(style.languages)} if style.languages else style.name


def _bot_text(reply: BotReply) -> str:
    return reply.text


class _Conversation:
    """The mutable state of one conversation while it runs."""

    def __init__(
        self,
        sim: Simulator,
        profile: Profile,
        planned: PlannedConversation,
        connector: Connector,
        cancel: CancelToken | None,
        spend: SpendTracker | None,
        on_turn: TurnListener | None,
    ) -> None:
        self.sim = sim
        self.settings = sim.settings
        self.profile = profile
        self.user_llm = sim.user_llm(profile)
        self.planned = planned
        self.connector = connector
        self.cancel = cancel
        self.spend = spend
        self.on_turn = on_turn
        self.rng = random.Random(planned.seed)  # noqa: S311 - reproducible simulation, not security
        self.detector = FallbackDetector(profile.chatbot.fallback, threshold=self.settings.fallback_threshold)
        self.record: ConversationRecord
        self.usage: Accumulator
        self.started = 0.0
        self.user_turns = 0
        self.fallbacks_in_row = 0
        self.fallbacks_total = 0
        self.repeats_in_row = 0
        self.last_answer: str | None = None
        self.last_request: str | None = None  # the user message the last answer replied to
        self.languages: list[str] = []
        self.verified: dict[int, str | None] = {}
        self.items_seen: set[str] = set()
        self.closing: str | None = None  # how the user's last message closed the conversation, if it did
        self.reply_ended = False  # the last reply came with the chatbot's own end-of-conversation flag
        self.ending: tuple[str, str] | None = None  # (who ended it, the signal), once it has ended
        self.goals_reminder = ""
        self.slips: list[RecordedSlip] = []  # every way the user LLM left its role (engine.sensei.hygiene)
        self.all_answered = profile.conversation.goal_style.kind == "all_answered"
        change = [s for s in planned.styles if s.name == "change language"]
        self.switch_languages = [lang for s in change for lang in s.languages]
        self.calibrated = for_conversation(
            calibration_for(self.settings.calibration, self.settings.calibrations, profile.user.personality),
            planned.seed,
            planned.index,
        )

    # -- bookkeeping -------------------------------------------------------------------------------------

    def _elapsed(self) -> float:
        return round(self.sim.clock() - self.started, 4)

    def _add_turn(self, turn: Turn) -> None:
        self.record.turns.append(turn)
        if self.on_turn is not None:
            self.on_turn(self.record, turn)

    def _add_bot(self, reply: BotReply, latency: float) -> None:
        self._add_turn(
            Turn(
                role="bot",
                text=_bot_text(reply),
                buttons=list(reply.buttons),
                at_s=self._elapsed(),
                latency_s=round(reply.latency_s or latency, 4),
            )
        )

    def _turn_index(self) -> int:
        return len(self.record.turns)

    # -- the loop ----------------------------------------------------------------------------------------

    def play(self) -> None:
        reason = "completed"
        extract = True
        try:
            self._open()
            self._play_script()
            while True:
                self._before_user_turn()
                message = self._user_message()
                self._send(message)
                self._after_reply()
        except _Stop as stop:
            reason = stop.reason
            if stop.problem is not None:
                self.record.errors.append(stop.problem)
            extract = stop.reason not in ("cancelled", "budget", "user_llm_failed", "user_left_role")
        outcome = self.record.outcome
        outcome.stopped_because = reason
        if self.ending is not None:
            by, signal = self.ending
            outcome.ended_by, outcome.end_signal = by, signal
            open_goals = [i + 1 for i in range(len(self.planned.goals)) if i not in self.verified]
            if self.all_answered and open_goals:
                self.record.errors.append(
                    error(
                        ErrorCode.GOALS_NOT_VERIFIED,
                        f"the {by} ended the conversation ({signal}) before goals {open_goals} were verified",
                        len(self.record.turns) - 1,
                    )
                )
        outcome.fallback_replies = self.fallbacks_total
        last = self.record.turns[-1] if self.record.turns else None
        if last is not None and last.role == "bot" and self.detector.is_fallback(last.text):
            outcome.ended_on_fallback = True  # the verdicts read a fallback as no question
        outcome.simulator_slips = self.slips
        if self.switch_languages:
            outcome.languages = list(self.languages)
        if self.all_answered:
            outcome.goals_verified = {str(i): evidence for i, evidence in sorted(self.verified.items())}
        if extract and self.profile.chatbot.outputs and any(t.role == "bot" for t in self.record.turns):
            self._extract()
        elif self.profile.chatbot.outputs and extract:
            outcome.extraction_skipped = "the chatbot never answered"
        for name in self.record.outputs:
            self.record.evidence.setdefault(name, OutputEvidence(reason="not_extracted"))

    def _open(self) -> None:
        try:
            self.connector.new_conversation()
            if self.profile.chatbot.is_starter:
                before = self.sim.clock()
                greeting = self.connector.greeting()
                if greeting is not None and (greeting.messages or greeting.buttons):
                    self._add_bot(greeting, self.sim.clock() - before)
                    self.last_answer = greeting.text
        except Exception as exc:  # noqa: BLE001 - a connector failure ends this conversation, never the run
            raise _Stop("connector_error", connector_error(exc, self._turn_index())) from None

    def _play_script(self) -> None:
        """The profile's literal turns, before any simulated one: sent as written, no LLM, no loop detection
        (their checks judge the replies: `engine.sensei.scripted`)."""
        if not self.profile.script:
            return
        sent: list[int] = []
        self.record.outcome.script_turns = sent
        for step in self.profile.script:
            self._before_user_turn()
            sent.append(self._turn_index())
            self._send(step.user)
            self.last_answer = self.record.turns[-1].text
            self.last_request = step.user

    def _before_user_turn(self) -> None:
        if self.cancel is not None and self.cancel.cancelled:
            raise _Stop("cancelled", error(ErrorCode.CANCELLED, "the run was cancelled", self._turn_index()))
        if self.calibrated is not None and self.calibrated.stop_before_turn(self.user_turns):
            self._end("user", "as many messages as the calibrated user writes")
        if self.user_turns >= self.planned.max_user_turns:
            if self.all_answered:
                open_goals = [i + 1 for i in range(len(self.planned.goals)) if i not in self.verified]
                missing = [o.name for o in self.profile.chatbot.outputs if o.name not in self.items_seen]
                raise _Stop(
                    "limit",
                    error(
                        ErrorCode.GOALS_NOT_VERIFIED,
                        f"limit of {self.planned.max_user_turns} user messages reached; goals not verified: "
                        f"{open_goals or 'none'}, outputs not seen: {missing or 'none'}",
                        self._turn_index(),
                    ),
                )
            raise _Stop("steps")
        self._check_budgets()

    def _check_budgets(self) -> None:
        if self.spend is not None and self.spend.exhausted:
            raise _Stop(
                "budget",
                error(
                    ErrorCode.RUN_BUDGET_EXCEEDED,
                    f"the profile's budget of ${self.spend.limit_usd} is spent",
                    self._turn_index(),
                ),
            )
        limit = self.profile.conversation.goal_style.max_cost
        if limit is not None and self.usage.cost_usd >= limit:
            raise _Stop(
                "budget",
                error(
                    ErrorCode.CONVERSATION_BUDGET_EXCEEDED,
                    f"this conversation's budget of ${limit} is spent (${self.usage.cost_usd:.4f})",
                    self._turn_index(),
                ),
            )

    def _transcript(self) -> str:
        lines = []
        for turn in self.record.turns:
            speaker = "User" if turn.role == "user" else "Chatbot"
            text = turn.text or "(no text)"
            if turn.buttons:
                text += " [buttons: " + " | ".join(b.label for b in turn.buttons) + "]"
            lines.append(f"{speaker}: {text}")
        return "\n".join(lines)

    def _language_line(self) -> str:
        language = self.profile.user.language
        if self.switch_languages and self.rng.random() < self.settings.language_switch_probability:
            language = self.rng.choice(self.switch_languages)
            self.languages.append(language)
            return prompts.LANGUAGE_SWITCH.fill(language=language)
        if self.switch_languages:
            self.languages.append(language)
        return prompts.LANGUAGE.fill(language=language)

    def _system_prompt(self) -> str:
        styles = [
            prompts.STYLE_INSTRUCTIONS[s.name]
            for s in self.planned.styles
            if s.name in prompts.STYLE_INSTRUCTIONS
        ]
        context = " ".join([*self.profile.user.personality_context, *self.profile.user.context])
        goals = "; ".join(self.planned.goals) or "talk with the chatbot"
        return prompts.USER_SYSTEM.fill(
            role=self.profile.user.role,
            context=context or "nothing in particular.",
            goals=goals,
            styles=" ".join(styles) or prompts.STYLE_INSTRUCTIONS["default"],
            language=self._language_line(),
        )

    def _user_message(self) -> str:
        extra, self.goals_reminder = self.goals_reminder, ""
        if self.fallbacks_in_row:
            if self.fallbacks_in_row % self.settings.rephrase_limit == 0:
                extra += prompts.CHANGE_TOPIC.text
            else:
                extra += prompts.REPHRASE.text
        # The goals again, beside the request: small models follow what is near the end of the prompt.
        goals = "; ".join(self.planned.goals) or "to talk with the chatbot"
        if self.record.turns:
            prompt = prompts.USER_TURN.fill(transcript=self._transcript(), extra=extra, goals=goals)
        else:
            prompt = prompts.FIRST_TURN.fill(extra=extra, goals=goals)
        messages = [system(self._system_prompt()), user(prompt)]
        names = chatbot_names(self.record.chatbot_phrases)
        brief = [self.profile.user.role, *self.profile.user.personality_context, *self.profile.user.context]
        for attempt in (1, 2):
            text = self._ask_user_llm(messages)
            if not text.strip():
                raise _Stop(
                    "user_llm_failed",
                    error(
                        ErrorCode.USER_LLM_FAILED, "the user LLM wrote an empty message", self._turn_index()
                    ),
                )
            turn = clean_user_turn(text, names=names, instructions=brief)
            self.slips += [slip.recorded(self._turn_index(), attempt) for slip in turn.slips]
            if turn.usable:
                break
            if attempt == 2:
                kinds = ", ".join(dict.fromkeys(slip.kind.replace("_", " ") for slip in turn.slips))
                raise _Stop(
                    "user_left_role",
                    error(
                        ErrorCode.USER_LEFT_ROLE,
                        f"the simulated user left its role twice in a row ({kinds})",
                        self._turn_index(),
                    ),
                )
            messages = [*messages[:-1], user(messages[-1].content + "\n\n" + prompts.STAY_IN_ROLE.text)]
        message, marked = split_end_mark(turn.message)
        self.closing = "end marker" if marked else user_closing(message)
        if marked and not message:
            self._end("user", "end marker, nothing more to say")
        if self.calibrated is not None:
            message = self.calibrated.shape(message, self.last_answer)
        return message

    def _ask_user_llm(self, messages: list[Any]) -> str:
        try:
            return self.user_llm.complete(
                messages,
                tag=TAG_USER_TURN,
                temperature=self.profile.llm.temperature,
                max_tokens=self.settings.user_max_tokens,
                seed=self.planned.seed,
            )
        except BudgetExceeded as exc:
            raise _Stop(
                "budget", error(ErrorCode.BUDGET_REFUSED, exc.user_message, self._turn_index())
            ) from None
        except LLMError as exc:
            if exc.ends_run:
                raise
            raise _Stop(
                "user_llm_failed", error(ErrorCode.USER_LLM_FAILED, exc.user_message, self._turn_index())
            ) from None

    def _send(self, message: str) -> None:
        self._add_turn(Turn(role="user", text=message, at_s=self._elapsed()))
        self.user_turns += 1
        before = self.sim.clock()
        try:
            reply = self.connector.send(message)
        except Exception as exc:  # noqa: BLE001 - a connector failure ends this conversation, never the run
            raise _Stop("connector_error", connector_error(exc, self._turn_index())) from None
        self.reply_ended = reply.ended
        self._add_bot(reply, self.sim.clock() - before)

    def _end(self, by: str, signal: str) -> NoReturn:
        self.ending = (by, signal)
        raise _Stop("finished")

    def _goals_verified(self) -> bool:
        return self.all_answered and len(self.verified) >= len(self.planned.goals)

    def _answer_to_closing(self, answer: str, closing: str) -> None:
        """The user closed the conversation; the chatbot's answer is a note, never a loop or a fault."""
        what = "its fallback" if self.detector.is_fallback(answer) else "a message"
        note = f"the chatbot answered the user's closing with {what}"
        if self.record.outcome.notes is None:
            self.record.outcome.notes = []
        notes = self.record.outcome.notes
        notes.append(Note(turn=len(self.record.turns) - 1, note=note))
        if not self.all_answered:
            # Steps modes trust the user's judgement, once it has said what its goals are about: a closing
            # before (a small model's "…but that's all.") is a slip, and the next prompt names what is unsaid.
            unsaid = inputs_not_conveyed(self.record, self.sim.today())
            if not unsaid:
                self._end("user", closing)
            self.goals_reminder = prompts.INPUTS_LEFT.fill(goals="; ".join(self.planned.goals))
            notes.append(
                Note(turn=len(self.record.turns) - 1, note="the user closed before saying its inputs")
            )
            return
        if self._goals_verified():
            self._end("user", closing)
        # Too early: the judge looks at this answer too, and the next prompt names what is still open.
        self._goal_check()
        open_goals = [goal for i, goal in enumerate(self.planned.goals) if i not in self.verified]
        self.goals_reminder = prompts.GOALS_LEFT.fill(goals="; ".join(open_goals))

    def _after_reply(self) -> None:
        answer = self.record.turns[-1].text
        closing, self.closing = self.closing, None
        if closing is not None:
            self._answer_to_closing(answer, closing)
            return
        if self.reply_ended:
            self._end("chatbot", "final state")
        farewell = chatbot_farewell(answer)
        if farewell is not None:
            self._end("chatbot", f"farewell: {farewell}")
        if self.detector.is_fallback(answer):
            self.fallbacks_in_row += 1
            self.fallbacks_total += 1
            self.repeats_in_row = 0
            if self.calibrated is not None and self.calibrated.leaves(self.fallbacks_in_row):
                self._end("user", f"left after {self.fallbacks_in_row} fallbacks, as real users do")
            if self.fallbacks_in_row >= self.settings.fallback_loop_limit:
                raise _Stop(
                    "fallback_loop",
                    error(
                        ErrorCode.FALLBACK_LOOP,
                        f"{self.fallbacks_in_row} fallback replies in a row",
                        self._turn_index() - 1,
                    ),
                )
        else:
            self.fallbacks_in_row = 0
            request = self.record.turns[-2].text if len(self.record.turns) >= 2 else ""
            if self.last_answer is not None and answer.strip() and same_answer(answer, self.last_answer):
                # The same statement given again to the same request is consistency, not a loop; a question
                # asked again (the chatbot does not take the answer) still is one.
                asked_again = self.last_request is not None and same_request(request, self.last_request)
                if not asked_again or "?" in answer:
                    self.repeats_in_row += 1
            else:
                self.repeats_in_row = 1
            self.last_request = request
            if self.repeats_in_row >= self.settings.repeat_limit:
                raise _Stop(
                    "repetition_loop",
                    error(
                        ErrorCode.REPETITION_LOOP,
                        f"the chatbot gave the same answer {self.repeats_in_row} times in a row",
                        self._turn_index() - 1,
                    ),
                )
        self.last_answer = answer
        if self.all_answered:
            self._goal_check()
            offer = offers_more_help(answer)
            if offer is not None and self._goals_verified():
                self._end("chatbot", f"offer of more help after the goals were met: {offer}")

    def _goal_check(self) -> None:
        open_goals = [(i, goal) for i, goal in enumerate(self.planned.goals) if i not in self.verified]
        open_items = [o for o in self.profile.chatbot.outputs if o.name not in self.items_seen]
        if not open_goals and not open_items:
            raise _Stop("all_answered")
        self._check_budgets()
        prompt = prompts.GOAL_CHECK.fill(
            goals="\n".join(f"{i + 1}. {goal}" for i, goal in open_goals) or "(none left)",
            outputs="\n".join(f"- {o.name}: {o.description}" for o in open_items) or "(none left)",
            transcript=self._transcript(),
        )
        try:
            verdict = self.sim.judge.structured(
                [user(prompt)],
                GoalCheck,
                tag=TAG_GOAL_CHECK,
                max_tokens=self.settings.check_max_tokens,
                temperature=0.0,
            )
        except BudgetExceeded as exc:
            raise _Stop(
                "budget", error(ErrorCode.BUDGET_REFUSED, exc.user_message, self._turn_index())
            ) from None
        except LLMError as exc:
            if exc.ends_run:
                raise
            raise _Stop(
                "user_llm_failed",
                error(
                    ErrorCode.USER_LLM_FAILED, f"goal check failed: {exc.user_message}", self._turn_index()
                ),
            ) from None
        wanted = {i for i, _ in open_goals}
        for item in verdict.goals:
            if item.answered and item.goal - 1 in wanted:
                self.verified[item.goal - 1] = item.evidence
        names = [o.name for o in open_items]
        self.items_seen |= {found for given in verdict.items_given if (found := match_item(given, names))}
        if len(self.verified) >= len(self.planned.goals) and all(
            o.name in self.items_seen for o in self.profile.chatbot.outputs
        ):
            raise _Stop("all_answered")

    def _extract(self) -> None:
        try:
            found = extract_outputs(
                self.sim.judge,
                self.profile,
                self.record.turns,
                self.sim.today(),
                max_tokens=self.settings.extract_max_tokens,
            )
        except LLMError as exc:
            if exc.ends_run:
                raise
            code = (
                ErrorCode.BUDGET_REFUSED if isinstance(exc, BudgetExceeded) else ErrorCode.EXTRACTION_FAILED
            )
            self.record.errors.append(error(code, f"output extraction failed: {exc.user_message}"))
            return
        self.record.outputs.update(found.values)
        self.record.evidence.update(found.evidence)
        if found.notes:
            self.record.outcome.extraction_notes = found.notes
        missing = [name for name, value in found.values.items() if value is None]
        if missing:
            reasons = {name: self.record.evidence[name].reason for name in missing}
            shown = ", ".join(f"{name} ({reasons[name]})" if reasons[name] else name for name in missing)
            self.record.errors.append(
                error(ErrorCode.GOAL_NOT_COMPLETED, f"{len(missing)} output(s) not found: {shown}")
            )


def simulated_user_model(
    profile: Profile, *, override: str | None = None, default: str | None = None
) -> str | None:
    """The model that plays the user for `profile` (D6): the run's override, else the profile's, else `default`.
    The same rule for the CLI, the worker and the platform's cost estimate."""
    return override or profile.llm.model or default
