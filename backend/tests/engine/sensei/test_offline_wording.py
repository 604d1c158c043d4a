"""The offline provider reads SENSEI's calls by their tag, their response schema and the format of their data,
not by the wording of SENSEI's prompts: reworded judge and extraction prompts get the same answers.

The tidy double (`double:perfect`, every slip off) is used, because the imperfect one draws its slips from a
seed that includes the prompt's text, as a model at temperature 0 answers a reworded prompt a little
differently: what must not change is its reading of the call, which the tidy double shows alone.
"""

from __future__ import annotations

import pytest

from engine.bots import connector as bot_connector
from engine.bots.connector import BotConnector
from engine.bots.registry import open_bot
from engine.egress import EgressGuard, EgressPolicy
from engine.llm import LLMClient, ProviderConfig, UsageLedger
from engine.llm.offline.script import Reply
from engine.llm.offline.sensei import CUES, SenseiDouble, SenseiImperfection
from engine.sensei import SenseiJob, extraction, prompts, run_profiles
from engine.sensei.prompts import Template
from tests.engine.recording import recording

from .conftest import FAST_RETRY, TODAY, profile_from

TIDY = SenseiImperfection(**dict.fromkeys(SenseiImperfection.__dataclass_fields__, 0.0))

ORDER = """
test_name: wording_order
user:
  role: You order a pizza and drinks to pick up tonight.
  goals:
    - "order a {{size}} {{pizza}} pizza"
    - "with {{drinks}} {{drink}} to drink"
    - size: {function: forward(), type: string, data: [small, large]}
    - pizza: {function: another(), type: string, data: [margherita, hawaiian]}
    - drink: {function: random(), type: string, data: [coke, water]}
    - drinks: {function: random(), type: int, data: [1, 2]}
chatbot:
  is_starter: false
  fallback: Sorry, I didn't catch that.
  output:
    - price: {type: money, description: the total price of the order}
    - order_id: {type: string, description: the order number}
    - pickup: {type: time, description: when the order can be picked up}
conversation:
  number: 2
  goal_style: {all_answered: {limit: 10}}
  interaction_style: [default]
"""

# The same fields, other instructions, other headers, another order of the sections' introductions.
REWORDED_GOAL_CHECK = Template(
    name="goal_check",
    intent="reworded",
    text=(
        "Here is a chat log between a person and a bot. Tell me, goal by goal, whether the bot's own words "
        "satisfy it (never the person's), quoting those words, and which of the facts below the bot gave.\n\n"
        "The person's numbered goals:\n{goals}\n\nFacts to look for:\n{outputs}\n\nThe chat log:\n{transcript}"
    ),
)
REWORDED_EXTRACT = Template(
    name="extract",
    intent="reworded",
    text=(
        "Read this finished chat and fill in the values the bot gave; null where it gave none. The chat "
        "happened on {today}, a {weekday}.\n\nValues wanted:\n{fields}\n\nThe chat:\n{transcript}"
    ),
)
REWORDED_EXTRACT_QUOTES = Template(
    name="extract_quotes",
    intent="reworded",
    text=(
        "Some values of your answer need the bot's own words:\n{claims}\nGive each value with the bot turn and "
        "quote that state it, or null (the chat happened on {today}).\n\nValues wanted:\n{fields}\n\n"
        "The chat:\n{transcript}"
    ),
)


def _answers_of_a_run(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Reply | None]]:
    """Every answer the judge and the extractor gave in a run on the pizza bot, in order; the bot's
    conversations are numbered (its order ids derive from them), so two runs meet the same bot."""
    numbers = iter(range(1_000))
    monkeypatch.setattr(
        bot_connector,
        "open_bot",
        lambda *args, **kwargs: open_bot(*args, conversation_id=f"c{next(numbers)}", **kwargs),
    )
    double = SenseiDouble(seed=2, imperfection=TIDY)
    watched = ("sensei.goal_check", "sensei.extract", "sensei.extract_quotes")
    overrides, answers = recording(double.responders(), watched)
    model = double.chat_model(overrides=overrides)
    config = ProviderConfig("openai-compatible", base_url="http://127.0.0.1:9/v1", model="double-perfect")
    with LLMClient(
        config,
        guard=EgressGuard(EgressPolicy.parse("127.0.0.1")),
        retry=FAST_RETRY,
        chat_model=model,
        ledger=UsageLedger(),
    ) as llm:
        run_profiles(
            SenseiJob(
                [profile_from(ORDER)],
                lambda: BotConnector("pizza", today=TODAY),
                llm,
                concurrency=1,
                seed=2,
                sink=lambda record: None,
                today=lambda: TODAY,
            )
        )
    return answers


def test_reworded_judge_and_extraction_prompts_get_the_same_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    before = _answers_of_a_run(monkeypatch)
    # The test can fail: the run judged goals answered and extracted values the bot stated.
    judged = [reply for tag, reply in before if tag == "sensei.goal_check"]
    extracted = [reply for tag, reply in before if tag == "sensei.extract"]
    assert any(v["answered"] for reply in judged for v in reply["json"]["goals"])  # type: ignore[index]
    assert any(value is not None for reply in extracted for value in reply["json"].values())  # type: ignore[index]

    monkeypatch.setattr(prompts, "GOAL_CHECK", REWORDED_GOAL_CHECK)
    monkeypatch.setattr(extraction, "EXTRACT", REWORDED_EXTRACT)
    monkeypatch.setattr(extraction, "EXTRACT_QUOTES", REWORDED_EXTRACT_QUOTES)
    assert _answers_of_a_run(monkeypatch) == before


def test_every_cue_the_offline_provider_reads_is_still_in_sensei_s_prompts() -> None:
    """The user turn is plain text: its goals and nudges are instructions. When a prompt drops a cue the offline
    provider reads, this fails, instead of the double silently no longer rephrasing or closing."""
    templates = {template.name: template.text for template in prompts.ALL_TEMPLATES}
    templates["any_list"] += " Give exactly 3 values."  # the count the executor writes into the template
    for cue, (template, words) in CUES.items():
        assert words in templates[template], f"{cue}: {words!r} is no longer in the {template} prompt"
