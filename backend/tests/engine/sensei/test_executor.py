"""Running many conversations: bounded concurrency, sink per conversation, errors and budgets per conversation."""

from __future__ import annotations

import itertools
import threading

import pytest

from engine.connectors import ChatbotUnavailable
from engine.context import CancelToken, Reporter, RunContext
from engine.conversation import ErrorCode
from engine.sensei import SenseiJob, run_profiles
from engine.sensei.simulator import TAG_USER_TURN

from .conftest import TODAY, FakeBot, profile_from

PROFILE = """
test_name: many
user:
  role: You chat.
  goals: ["say {{word}}", {word: {function: forward(), type: string, data: [a, b, c, d, e, f, g, h]}}]
chatbot: {is_starter: false, fallback: "Sorry?", output: []}
conversation: {number: combinations, goal_style: {steps: 2}, interaction_style: [default]}
"""


class Collect(Reporter):
    def __init__(self):
        self.finished = []
        self.done = []
        self.turns = 0
        self.plan = None
        self.lock = threading.Lock()

    def message(self, role, text, **where):
        with self.lock:
            self.turns += 1

    def event(self, kind, data, *, done=None):
        if kind == "conversation":
            self.finished.append(data["index"])
            self.done.append(done)

    def artefact(self, name, content):
        self.plan = (name, content)


def test_conversations_run_concurrently_within_limits_and_each_is_sunk(make_llm):
    llm, _ = make_llm({TAG_USER_TURN: "hello"})
    records = []
    reporter = Collect()
    summary = run_profiles(
        SenseiJob(
            [profile_from(PROFILE)],
            lambda: FakeBot(delay_s=0.05),
            llm,
            concurrency=3,
            seed=1,
            sink=records.append,
            today=lambda: TODAY,
        ),
        RunContext(reporter=reporter),
    )
    assert summary.planned == summary.conversations == len(records) == 8
    assert sorted(r.index for r in records) == list(range(8))
    assert 1 < FakeBot.max_open <= 3
    assert summary.ok and summary.with_errors == 0
    assert reporter.turns == 8 * 4 and sorted(reporter.finished) == list(range(8))
    # Each finished conversation carries the count done so far; the plan was handed over before any of them.
    assert reporter.done == list(range(1, 9))
    name, plan = reporter.plan
    assert name == "plan" and plan["seed"] == 1 and [p["profile"] for p in plan["profiles"]] == ["many"]
    assert {r.inputs["word"] for r in records} == set("abcdefgh")
    assert summary.usage["calls_by_tag"] == {TAG_USER_TURN: 16}


def test_chatbot_limit_caps_open_conversations(make_llm):
    llm, _ = make_llm({TAG_USER_TURN: "hello"})
    run_profiles(
        SenseiJob(
            [profile_from(PROFILE)],
            lambda: FakeBot(delay_s=0.03),
            llm,
            concurrency=6,
            chatbot_concurrency=2,
            sink=lambda r: None,
        )
    )
    assert FakeBot.max_open <= 2


def test_a_failing_chatbot_ends_one_conversation_never_the_run(make_llm):
    llm, _ = make_llm({TAG_USER_TURN: "hello"})
    counter = itertools.count()

    class Down(FakeBot):
        def new_conversation(self):
            raise ChatbotUnavailable("Connection refused by 127.0.0.1:9.")

    def factory():
        n = next(counter)
        if n == 1:
            raise ChatbotUnavailable("cannot build")
        return Down() if n == 2 else FakeBot(lambda t, i: "fine")

    records = []
    summary = run_profiles(
        SenseiJob([profile_from(PROFILE)], factory, llm, concurrency=1, sink=records.append)
    )
    assert summary.conversations == 8
    codes = sorted(code for r in records for code in r.error_codes)
    assert codes == [ErrorCode.CHATBOT_UNREACHABLE, ErrorCode.CHATBOT_UNREACHABLE]
    assert summary.errors_by_code == {503: 2}
    # An unreachable chatbot is a set-up problem: inconclusive, never counted as a chatbot failure.
    assert summary.inconclusive_reasons.get("chatbot_unreachable") == 2
    assert summary.failed == 0 and summary.ok


def test_profile_budget_stops_the_remaining_conversations(make_llm):
    expensive = {"content": "hello", "usage": {"prompt_tokens": 100_000, "completion_tokens": 10}}
    llm, _ = make_llm({TAG_USER_TURN: expensive})
    text = PROFILE.replace("number: combinations", "number: 3, max_cost: 0.01")
    records = []
    run_profiles(SenseiJob([profile_from(text)], FakeBot, llm, concurrency=1, sink=records.append))
    assert [r.error_codes for r in records] == [[ErrorCode.RUN_BUDGET_EXCEEDED]] * 3
    assert [len(r.user_phrases) for r in records] == [1, 0, 0]


def test_cancel_skips_conversations_not_started(make_llm):
    llm, _ = make_llm({TAG_USER_TURN: "hello"})
    cancel = CancelToken()
    records = []

    def sink(record):
        records.append(record)
        cancel.cancel()

    summary = run_profiles(
        SenseiJob([profile_from(PROFILE)], FakeBot, llm, concurrency=1, sink=sink), RunContext(cancel=cancel)
    )
    assert len(records) == 1 and summary.skipped == 7 and summary.cancelled


def test_a_failing_sink_stops_the_run_and_is_raised(make_llm):
    llm, _ = make_llm({TAG_USER_TURN: "hello"})

    def sink(record):
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        run_profiles(SenseiJob([profile_from(PROFILE)], FakeBot, llm, concurrency=2, sink=sink))
