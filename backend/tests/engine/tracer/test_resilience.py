"""A failing chatbot or a failing LLM in one place does not cost the run: a chatbot error on a probe or a turn is
recorded and exploration goes on; an LLM error in one session skips that session with a warning on the run.
Only what would fail every later call too (a rejected key, the LLM down for several sessions in a row, a chatbot
that answers nothing at all) stops the run."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from engine.connectors import BotReply, ChatbotHTTPError, ChatbotUnavailable, ConnectorError
from engine.context import RecordingReporter, RunContext
from engine.llm import LLMAuthError, LLMError, RetryPolicy
from engine.llm.offline.imperfect import Request, Responder
from engine.llm.offline.script import Reply
from engine.llm.offline.tracer import TracerDouble
from engine.tracer import TracerConfig, TracerJob, TracerResult, run_tracer

from .conftest import BotConnector, imperfect_client, make_deps

NO_RETRY = RetryPolicy(max_attempts=1, initial_delay_s=0, max_delay_s=0, jitter_s=0)


class FlakyBot(BotConnector):
    """Answers HTTP 500 to the sends (1-based, counted over the run) listed in `fail_sends`, and refuses to open
    the conversations listed in `fail_conversations`."""

    def __init__(
        self, bot_id: str, *, fail_sends: set[int] | None = None, fail_conversations: set[int] | None = None
    ) -> None:
        super().__init__(bot_id)
        self.fail_sends = fail_sends or set()
        self.fail_conversations = fail_conversations or set()
        self.sends = 0
        self.opened = 0

    def new_conversation(self) -> None:
        self.opened += 1
        if self.opened in self.fail_conversations:
            raise ChatbotUnavailable("The chatbot could not be reached (connection refused).")
        super().new_conversation()

    def send(self, text: str) -> BotReply:
        self.sends += 1
        if self.sends in self.fail_sends:
            raise ChatbotHTTPError("The chatbot answered HTTP 500.", status=500)
        return super().send(text)


def _run(
    connector: BotConnector,
    *,
    sessions: int = 3,
    overrides: dict[str, Responder] | None = None,
    reporter: RecordingReporter | None = None,
) -> TracerResult:
    client, _ = imperfect_client(TracerDouble(seed=0), overrides=overrides, retry=NO_RETRY)
    return run_tracer(
        TracerJob(
            TracerConfig(sessions=sessions, turns=5),
            make_deps(client, connector),
            run_id="resilience",
            checkpointer=InMemorySaver(),
        ),
        RunContext(reporter=reporter or RecordingReporter()),
    )


def _failing(responder: Responder, fail: Callable[[int], bool], fault: Reply) -> Responder:
    """`responder`, except for the calls whose number (1-based, repairs counted with their call) `fail` picks."""
    count = 0

    def answer(request: Request) -> Reply | None:
        nonlocal count
        if not request.repair:
            count += 1
        return fault if fail(count) else responder(request)

    return answer


# -- the chatbot fails ---------------------------------------------------------------------------------------------


def test_a_chatbot_500_on_a_probe_is_recorded_and_exploration_goes_on() -> None:
    reporter = RecordingReporter()
    bot = FlakyBot("pizza", fail_sends={2})  # send 1 is "Hello", send 2 the first nonsense probe
    result = _run(bot, reporter=reporter)
    assert result.ok
    assert len(result.transcripts) == 3
    assert any(w.startswith("Probe: the chatbot failed") and "HTTP 500" in w for w in result.warnings)
    assert any(e[0] == "warning" and "Probe" in e[1] for e in reporter.events)
    # The two probes that were answered still agree on the fallback.
    assert result.model.fallback and result.model.fallback.startswith("Sorry, I didn't catch that.")


def test_a_chatbot_500_on_a_turn_is_recorded_and_the_conversation_goes_on() -> None:
    bot = FlakyBot("pizza", fail_sends={6})  # the second message of session 1 (4 probe sends before it)
    result = _run(bot)
    first = result.transcripts[0]
    failed = [i for i, turn in enumerate(first["turns"]) if turn.get("error")]
    assert len(failed) == 1
    assert "HTTP 500" in first["turns"][failed[0]]["error"]
    # After the failure the explorer wrote again and the chatbot answered again.
    after = first["turns"][failed[0] + 1 :]
    assert any(t["role"] == "explorer" for t in after) and any(t["role"] == "chatbot" for t in after)
    assert first["ended"] != "chatbot_error"
    assert any("Session 1, turn 2: the chatbot failed" in w for w in result.warnings)
    assert result.ok


def test_a_chatbot_that_keeps_failing_ends_its_session_only() -> None:
    bot = FlakyBot("pizza", fail_sends={6, 7}, fail_conversations={6})  # session 2 cannot even start
    result = _run(bot)
    first, second, third = result.transcripts
    assert first["ended"] == "chatbot_error"
    assert second["ended"] == "chatbot_error" and second["turns"] == []
    assert third["ended"] != "chatbot_error" and third["turns"]
    assert result.ok


def test_a_chatbot_that_answers_no_probe_at_all_stops_the_run() -> None:
    bot = FlakyBot("pizza", fail_sends={1, 2, 3, 4})
    with pytest.raises(ConnectorError, match="none of TRACER's probe messages"):
        _run(bot)


# -- the LLM fails -------------------------------------------------------------------------------------------------


def test_an_llm_error_while_reading_one_session_skips_that_session_with_a_warning() -> None:
    double = TracerDouble(seed=0)
    reporter = RecordingReporter()
    broken = _failing(double.extract, lambda n: n == 2, {"fault": "malformed_json"})
    result = _run(BotConnector("pizza"), overrides={"tracer.extract": broken}, reporter=reporter)
    assert [t["session"] for t in result.transcripts] == [1, 2, 3]
    assert any(w.startswith("Session 2 was skipped") for w in result.warnings)
    assert any(e[0] == "warning" and e[1].startswith("Session 2 was skipped") for e in reporter.events)
    assert all(2 not in f.discovered_in for f in result.model.functionalities)
    assert any(3 in f.discovered_in for f in result.model.functionalities)
    assert result.ok


def test_an_llm_error_during_a_conversation_cuts_that_session_short_and_keeps_what_was_said() -> None:
    double = TracerDouble(seed=0)
    # Session 1 opens with a canned message; its explorer calls are 1..4, session 2's start at 5.
    broken = _failing(double.explore, lambda n: n == 6, {"fault": "server_error", "status": 500})
    result = _run(BotConnector("pizza"), overrides={"tracer.explore": broken})
    second = result.transcripts[1]
    assert second["ended"] == "llm_error"
    assert second["turns"]
    assert any(w.startswith("Session 2 was cut short") for w in result.warnings)
    assert result.transcripts[2]["ended"] != "llm_error"
    assert result.ok


def test_an_llm_that_fails_session_after_session_fails_the_run() -> None:
    double = TracerDouble(seed=0)
    broken = _failing(double.extract, lambda n: True, {"fault": "malformed_json"})
    with pytest.raises(LLMError, match="3 exploration sessions in a row"):
        _run(BotConnector("pizza"), sessions=5, overrides={"tracer.extract": broken})


def test_a_rejected_key_is_not_skipped_but_fails_the_run() -> None:
    double = TracerDouble(seed=0)
    broken = _failing(double.extract, lambda n: True, {"fault": "auth"})
    with pytest.raises(LLMAuthError):
        _run(BotConnector("pizza"), overrides={"tracer.extract": broken})
