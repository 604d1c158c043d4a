"""`--repeats k`: each planned conversation runs k times with other simulator seeds, and a conversation whose
verdict differs across its repeats is found flaky by a comparison."""

from __future__ import annotations

from engine.connectors import BotReply, ChatbotHTTPError
from engine.egress import EgressGuard, EgressPolicy
from engine.llm import LLMClient, ProviderConfig, UsageLedger
from engine.llm.offline import ScriptedChatModel
from engine.regression import Repeats, compare, repeat_seed, run_data
from engine.sensei import SenseiJob, load_profile, plan, run_profiles
from engine.sensei.simulator import TAG_USER_TURN
from tests.engine.sensei.conftest import FAST_RETRY, FakeBot

PROFILE = """
test_name: sizes
user:
  role: You order a pizza.
  goals: ["order a {{size}} pizza", {size: {function: forward(), type: string, data: [small, medium, large]}}]
chatbot:
  is_starter: false
  fallback: Sorry, I did not understand that.
  output: []
conversation: {number: combinations, goal_style: {steps: 1}, interaction_style: [default]}
"""


def profile():
    loaded, problems = load_profile(PROFILE)
    assert loaded is not None, problems
    return loaded


def llm(k: int) -> LLMClient:
    """The user says each conversation's size (repeats of a conversation come one after the other)."""
    said = [f"A {size} pizza, please." for size in ("small", "medium", "large") for _ in range(k)]
    config = ProviderConfig("openai-compatible", base_url="http://127.0.0.1:9/v1", model="gpt-4o-mini")
    return LLMClient(
        config,
        guard=EgressGuard(EgressPolicy.parse("127.0.0.1")),
        retry=FAST_RETRY,
        chat_model=ScriptedChatModel({TAG_USER_TURN: said}),
        ledger=UsageLedger(),
    )


class SometimesBroken(FakeBot):
    """Answers HTTP 500 in every second conversation it is opened for."""

    opened_total = 0

    def new_conversation(self) -> None:
        super().new_conversation()
        SometimesBroken.opened_total += 1
        self.broken = SometimesBroken.opened_total % 2 == 0

    def send(self, text: str) -> BotReply:
        if self.broken:
            raise ChatbotHTTPError("The chatbot answered HTTP 500 Internal Server Error.", status=500)
        return super().send(text)


def test_repeats_sit_side_by_side_with_their_own_reproducible_seeds():
    planned = plan(profile(), 5)
    repeated = Repeats(3).plan(profile(), planned)
    assert [c.index for c in repeated.conversations] == list(range(9))
    assert [c.values for c in repeated.conversations[:3]] == [planned.conversations[0].values] * 3
    seeds = [c.seed for c in repeated.conversations[:3]]
    assert seeds[0] == planned.conversations[0].seed and len(set(seeds)) == 3
    assert seeds[1] == repeat_seed(planned.conversations[0].seed, 1)
    assert Repeats(1).plan(profile(), planned) is planned


def run(bot_factory, k: int) -> list:
    records: list = []
    repeats = Repeats(k)
    with llm(k) as client:
        summary = run_profiles(
            SenseiJob(
                [profile()],
                bot_factory,
                client,
                concurrency=1,
                seed=5,
                sink=lambda record: records.append(repeats.tag(record)),
                replan=repeats.plan,
            )
        )
    assert summary.planned == 3 * k
    return records


def test_a_conversation_that_fails_on_some_repeats_is_flaky_not_a_regression():
    baseline = run(lambda: FakeBot(lambda text, turn: "One pizza coming up."), 2)
    assert [(r.settings.planned_index, r.settings.repeat) for r in baseline] == [
        (0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1),
    ]  # fmt: skip
    assert {r.verdict for r in baseline} == {"passed"}
    SometimesBroken.opened_total = 0
    after = run(lambda: SometimesBroken(lambda text, turn: "One pizza coming up."), 2)
    assert sum(1 for r in after if r.errors) == 3
    comparison = compare(run_data("base", baseline), run_data("new", after))
    assert len(comparison.flaky) == 3 and not comparison.newly_failing
    assert comparison.verdict == "inconclusive"
    assert comparison.regressions == []
