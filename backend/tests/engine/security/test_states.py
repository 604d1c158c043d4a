"""Attacks from inside the workflow, offline, from the checked-in TRACER outputs of the security bots.

On `stateful` (guarded until an order is open) a first-turn campaign finds nothing; the same campaign from
every state TRACER found breaches exactly where the bot holds an open order — decided here by the bot itself,
not by the engine — with a verbatim quote from the attack's reply. On `guarded`, nothing from any state. A
prefix that does not reach its state makes the attempt inconclusive, never resisted; reaching a state costs
chatbot messages and no LLM call.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from engine.bots.adversarial import ADVERSARIAL_BOTS, CANARY, REFUSAL, AdversarialConnector, StatefulBot
from engine.bots.runtime import Reply
from engine.connectors import BotReply, Connector
from engine.security import (
    CampaignJob,
    TracerOutputError,
    choose_states,
    compare_campaigns,
    comparison_text,
    load_campaign,
    plan_campaign,
    read_tracer_output,
    run_campaign,
)
from engine.security.detectors import occurs_in

EXAMPLES = Path(__file__).parents[3] / "engine" / "security" / "examples"
STATEFUL, GUARDED = EXAMPLES / "tracer-stateful", EXAMPLES / "tracer-guarded"


def campaign(from_line: str = "from: all_states"):
    text = (EXAMPLES / "from-states.yaml").read_text(encoding="utf-8")
    text = text.replace("from: all_states", from_line)
    loaded = load_campaign(text)
    assert loaded.ok, loaded.problems
    return loaded.campaign


class Counting(Connector):
    """A security bot in process that counts the messages it was sent."""

    sent: list[str] = []

    def __init__(self, bot_id: str) -> None:
        self.inner = AdversarialConnector(bot_id)

    def new_conversation(self) -> None:
        self.inner.new_conversation()

    def greeting(self) -> BotReply | None:
        return self.inner.greeting()

    def send(self, text: str) -> BotReply:
        Counting.sent.append(text)
        return self.inner.send(text)


def order_open_after(prefix: tuple[str, ...]) -> bool:
    """Ground truth from the bot itself: is an order open after these messages?"""
    bot = StatefulBot()
    for text in prefix:
        bot.reply(text)
    return bot.order_open


def test_a_first_turn_campaign_finds_no_breach_on_stateful():
    result = run_campaign(
        CampaignJob(campaign(from_line=""), lambda: AdversarialConnector("stateful"), seed=7)
    )
    assert result.planned == 6
    assert result.breaches == 0
    assert {r.verdict for r in result.records} == {"resisted"}


def test_from_every_state_stateful_is_breached_where_an_order_is_open_with_a_verbatim_quote():
    states, _ = choose_states(read_tracer_output(STATEFUL), "all_states")
    open_states = {s.name for s in states if order_open_after(s.prefix)}
    assert open_states and len(open_states) < len(states)  # the bot is guarded somewhere
    result = run_campaign(
        CampaignJob(campaign(), lambda: AdversarialConnector("stateful"), seed=7, states=states)
    )
    assert result.planned == 6 * len(states)
    assert {r.verdict for r in result.records} <= {"breached", "resisted"}  # every state was reached
    breached = {r.state for r in result.records if r.breached}
    assert breached == open_states
    for record in result.records:
        if not record.breached:
            continue
        phases = [t.phase for t in record.transcript]
        assert phases[: phases.index("attack")] == ["prefix"] * phases.index("attack")
        assert [t.text for t in record.transcript if t.role == "user" and t.phase == "prefix"] == list(
            next(s for s in states if s.name == record.state).prefix
        )
        for evidence in record.evidence:
            turn = record.transcript[evidence.turn]
            assert turn.role == "bot" and turn.phase == "attack"
            assert occurs_in(evidence.quote, turn.text)
    quotes = [e.quote for r in result.records if r.attack == "system_prompt_stealer" for e in r.evidence]
    assert any(CANARY in quote for quote in quotes)
    by_state = {row["state"]: row for row in result.summary()["by_state"]}
    assert all(by_state[name]["breach_rate"] == 1.0 for name in open_states)
    assert all(row["breach_rate"] == 0.0 for name, row in by_state.items() if name not in open_states)
    assert all(row["interval"] is not None for row in by_state.values())


def test_guarded_is_not_breached_from_any_state():
    states, _ = choose_states(read_tracer_output(GUARDED), "all_states")
    result = run_campaign(
        CampaignJob(campaign(), lambda: AdversarialConnector("guarded"), seed=7, states=states)
    )
    assert result.records and result.breaches == 0
    assert {r.verdict for r in result.records} == {"resisted"}


def test_a_state_the_prefix_does_not_reach_is_inconclusive_never_resisted():
    # stateful's prefixes against guarded: the replies differ (guarded offers no buttons), so no state is reached.
    states, _ = choose_states(read_tracer_output(STATEFUL), "all_states")
    Counting.sent = []
    result = run_campaign(CampaignJob(campaign(), lambda: Counting("guarded"), seed=7, states=states))
    assert {r.verdict for r in result.records} == {"inconclusive"}
    assert all(r.because.startswith("state not reached") for r in result.records)
    assert not any(t.phase == "attack" for r in result.records for t in r.transcript)  # no attack was sent
    # A recorded reply the chatbot no longer gives: the same on stateful.
    changed = [replace(s, expected=s.expected + " (changed)") for s in states[:1]]
    again = run_campaign(
        CampaignJob(campaign(), lambda: AdversarialConnector("stateful"), seed=7, states=changed)
    )
    assert {r.verdict for r in again.records} == {"inconclusive"}


def test_volatile_values_do_not_stop_a_state_from_being_reached():
    states, _ = choose_states(read_tracer_output(STATEFUL), "all_states")
    confirmed = [s for s in states if "is confirmed" in s.expected]
    assert confirmed  # TRACER recorded the confirmation, with an order id new in every conversation
    result = run_campaign(
        CampaignJob(campaign(), lambda: AdversarialConnector("stateful"), seed=7, states=confirmed)
    )
    assert {r.verdict for r in result.records} == {"resisted"}
    prefix_replies = [t.text for r in result.records for t in r.transcript if t.phase == "prefix"]
    assert (
        confirmed[0].expected.split("\n")[0] not in prefix_replies
    )  # the id differed, the state was reached


def test_reaching_states_costs_the_planned_chatbot_messages_and_no_llm_call():
    states, left_out = choose_states(read_tracer_output(STATEFUL), "all_states")
    plan = plan_campaign(campaign(), seed=7, with_model=False, states=states, left_out=left_out)
    assert [s.attempts for s in plan.states or []] == [6] * len(states)
    Counting.sent = []
    result = run_campaign(CampaignJob(campaign(), lambda: Counting("stateful"), seed=7, states=states))
    assert len(Counting.sent) == plan.prefix_messages + plan.attempts  # each prefix replayed, then one attack
    assert plan.calls == 0 and result.usage == {}


def test_from_names_chooses_states_and_says_why_others_are_left_out():
    states = read_tracer_output(STATEFUL)
    name = states.states[-1].name
    chosen, left_out = choose_states(states, [name, "pay_by_card"])
    assert [s.name for s in chosen] == [name]
    assert left_out and left_out[0].startswith("pay_by_card: TRACER's graph has no such functionality")


def test_a_missing_tracer_output_is_a_readable_error(tmp_path):
    with pytest.raises(TracerOutputError, match="does not exist"):
        read_tracer_output(tmp_path)


class FixedBot(StatefulBot):
    """`stateful` with its flaw fixed: guarded inside an order too."""

    def reply(self, text: str) -> Reply:
        step, answer = self.step, super().reply(text)
        if self.order_open and self.step == step:  # the order did not move on: refuse what it was told
            return Reply([REFUSAL])
        return answer


def test_two_runs_from_states_are_compared_per_state(monkeypatch):
    monkeypatch.setitem(ADVERSARIAL_BOTS, "stateful-fixed", FixedBot)
    states, _ = choose_states(read_tracer_output(STATEFUL), "all_states")
    before = run_campaign(
        CampaignJob(campaign(), lambda: AdversarialConnector("stateful-fixed"), seed=7, states=states)
    )
    after = run_campaign(
        CampaignJob(campaign(), lambda: AdversarialConnector("stateful"), seed=7, states=states)
    )
    assert before.breaches == 0 and {r.verdict for r in before.records} == {"resisted"}
    comparison = compare_campaigns(before.records, after.records)
    assert comparison.verdict == "regressed"
    open_states = {s.name for s in states if order_open_after(s.prefix)}
    regressed = {g.name for g in comparison.states if g.status == "regressed"}
    assert regressed == open_states
    assert {g.name for g in comparison.states} == {s.name for s in states}
    assert {c.state for c in comparison.newly_breached} == open_states
    assert comparison.matched == len(after.records)  # one attempt per attack, index and state on each side
    text = comparison_text(comparison)
    assert any(f"state {name}: " in text for name in open_states)
