"""SENSEI's quality with the imperfect LLM double (engine.llm.offline.sensei): a competent but imperfect
model plays the user, judges the goals and extracts the outputs from the prompts alone — no ground truth is fed
to it. On the unmodified reference bots SENSEI must report no finding, whatever the double's slips; the double
itself is checked first, so a failure here says which side went wrong."""

from __future__ import annotations

from collections import Counter

import pytest

from benchmarks.sensei_loose_json import BOOKING, ORDER
from engine.bots import load_bot
from engine.check import Limits, check
from engine.egress import EgressGuard, EgressPolicy
from engine.evaluation.oracles import oracle_rules
from engine.evaluation.scoring import verdicts
from engine.llm import LLMClient, ProviderConfig, UsageLedger, system, user
from engine.llm.offline.sensei import SenseiDouble, SenseiImperfection
from engine.sensei import prompts
from engine.sensei.extraction import answer_schema, extraction_prompt, read_answer
from engine.sensei.simulator import TAG_EXTRACT, TAG_GOAL_CHECK, TAG_USER_TURN, GoalCheck

from .conftest import FAST_RETRY, TODAY, profile_from, run_on_bot

TIDY = SenseiImperfection(**dict.fromkeys(SenseiImperfection.__dataclass_fields__, 0.0))


def _client(double: SenseiDouble, structured_method: str = "auto") -> LLMClient:
    """A client whose model is `double`; `structured_method` forces how it asks for JSON."""
    config = ProviderConfig(
        "openai-compatible",
        base_url="http://127.0.0.1:9/v1",
        model="imperfect-model",
        structured_method=structured_method,
    )
    return LLMClient(
        config,
        guard=EgressGuard(EgressPolicy.parse("127.0.0.1")),
        retry=FAST_RETRY,
        chat_model=double.chat_model(),
        ledger=UsageLedger(),
    )


def _user_prompt(goals: str, transcript: str) -> list:
    system_text = prompts.USER_SYSTEM.fill(
        role="You order food.",
        context="nothing in particular.",
        goals=goals,
        styles=prompts.STYLE_INSTRUCTIONS["default"],
        language=prompts.LANGUAGE.fill(language="English"),
    )
    return [system(system_text), user(prompts.USER_TURN.fill(transcript=transcript, extra="", goals=goals))]


def test_the_double_answers_the_chatbot_s_question_from_its_goals_and_closes_when_done():
    with _client(SenseiDouble(seed=3, imperfection=TIDY)) as llm:
        goals = "order a large hawaiian pizza; with 2 coke to drink"
        asked = (
            "User: I want to order a large hawaiian pizza.\n"
            "Chatbot: Great choice, a large hawaiian pizza! How many drinks would you like?"
        )
        assert llm.complete(_user_prompt(goals, asked), tag=TAG_USER_TURN).split(",")[0] in ("2", "I'd say 2")
        options = asked + "\nUser: 2\nChatbot: Which drink would you like? [buttons: coke | lemonade | water]"
        assert "coke" in llm.complete(_user_prompt(goals, options), tag=TAG_USER_TURN).lower()
        done = (
            options + "\nUser: coke\nChatbot: Got it, 2 coke. The total is 21$. Your order number is A1B2C3."
        )
        closing = llm.complete(_user_prompt(goals, done), tag=TAG_USER_TURN)
        assert closing.endswith("[END]")  # the prompt asks for the marker, so the double writes it


def test_the_double_judges_from_the_chatbot_s_words_and_spells_items_its_own_way():
    prompt = prompts.GOAL_CHECK.fill(
        goals="1. order a large hawaiian pizza\n2. ask whether you deliver",
        outputs="- order_id: the order number\n- price: the total price",
        transcript="User: a large hawaiian pizza\nChatbot: Your large hawaiian costs 17$. Your order number is "
        "A1B2C3.",
    )
    spellings = Counter()
    for seed in range(20):
        with _client(SenseiDouble(seed=seed)) as llm:
            verdict = llm.structured([user(prompt)], GoalCheck, tag=TAG_GOAL_CHECK)
        answered = {v.goal for v in verdict.goals if v.answered}
        assert 2 not in answered or seed  # a bogus claim is rare, not systematic
        spellings.update(verdict.items_given)
    assert len(spellings) > 2  # "order_id", "Order Ids", "ORDER-ID"...: not the declared names only


def test_the_double_extracts_typed_outputs_in_loose_formats():
    profile = profile_from(ORDER.replace("{GOAL_STYLE}", "{steps: 4}"))
    transcript = (
        "User: a large hawaiian pizza and 2 coke\nChatbot: Got it, 2 coke.\n"
        "The total for your large hawaiian and 2 coke is 23$.\nYour order number is FDDFDA: a large hawaiian."
    )
    with _client(SenseiDouble(seed=1)) as llm:
        answer = llm.structured(
            [user(extraction_prompt(profile, transcript, TODAY))], answer_schema(profile), tag=TAG_EXTRACT
        )
    values, notes = read_answer(profile, answer, TODAY)
    assert values == {"price": {"amount": 23.0, "currency": "USD"}, "order_id": "FDDFDA"}
    assert notes == []


def _findings(profile_texts: list[str], bot: str, seed: int, slips: SenseiImperfection) -> tuple[list, list]:
    with _client(SenseiDouble(seed=seed, imperfection=slips)) as llm:
        records = run_on_bot([profile_from(text) for text in profile_texts], bot, llm, seed)
    oracles = oracle_rules(load_bot(bot))
    report = check([o.rule for o in oracles], records, limits=Limits(isolate=False, max_listed=10_000))
    return records, verdicts(records, report, {o.name: o.kind for o in oracles})


@pytest.mark.parametrize("goal_style", ["{steps: 10}", "{all_answered: {limit: 12}}"])
@pytest.mark.parametrize("slips", [1.0, 3.0])
def test_no_finding_on_unmodified_bots_with_an_imperfect_model(goal_style, slips):
    usual = SenseiImperfection()
    sloppy = SenseiImperfection(
        **{name: min(1.0, getattr(usual, name) * slips) for name in SenseiImperfection.__dataclass_fields__}
    )
    flagged, ends, seen = [], Counter(), []
    for bot, text in (("pizza", ORDER), ("bike", BOOKING)):
        for seed in (1, 2):
            records, found = _findings([text.replace("{GOAL_STYLE}", goal_style)], bot, seed, sloppy)
            seen += records
            ends.update(r.outcome.stopped_because for r in records)
            flagged += [
                (r.profile, r.index, v.reasons, r.error_codes)
                for r, v in zip(records, found, strict=True)
                if v.reasons
            ]
    assert flagged == []
    # Every conversation ended because it was over — none ran into a limit or a loop.
    assert set(ends) <= {"finished", "all_answered"}, ends
    # In steps mode only the end of the conversation stops it early. In all_answered mode the judge usually
    # stops it first; whether a goodbye comes before depends on the bot's order ids, new in every run.
    assert ends["finished"] > 0 or goal_style.startswith("{all_answered")
    # None of these users (imperfect, but in their role) slips out of it, and every conversation passes.
    assert all(r.verdict == "passed" for r in seen), [(r.verdict, r.verdict_reason) for r in seen]
    assert not any(r.outcome.simulator_slips for r in seen)
