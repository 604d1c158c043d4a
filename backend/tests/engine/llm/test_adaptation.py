"""The gateway against the strict OpenAI double over HTTP: every model family gets what its API accepts, and a
refusal is paid once per parameter per run, however many calls run at once."""

from __future__ import annotations

import threading

import pytest
from pydantic import BaseModel

from engine.llm import LLMOutputError, LLMRefusal, ProviderState, user
from engine.llm.capabilities import REASONING_HEADROOM


class Answer(BaseModel):
    """A short verdict."""

    answered: bool
    reason: str


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-5-mini", {"max_completion_tokens": 400 + REASONING_HEADROOM, "reasoning_effort": "low"}),
        ("o4-mini", {"max_completion_tokens": 400 + REASONING_HEADROOM, "reasoning_effort": "low"}),
        ("gpt-4o-mini", {"max_completion_tokens": 400, "temperature": 0.8}),
    ],
)
def test_each_family_is_sent_what_its_api_accepts_so_nothing_is_refused(
    fake_llm, make_client, model, expected
):
    warnings: list[str] = []
    client = make_client(config={"model": model}, state=ProviderState(on_warning=warnings.append))

    text = client.complete([user("Say hello.")], tag="sensei.user_turn", temperature=0.8, max_tokens=400)
    verdict = client.structured([user("Did it answer?")], Answer, tag="check.verdict", temperature=0.0)

    assert text.startswith("A scripted answer") and isinstance(verdict, Answer)
    assert fake_llm.refused() == []
    first = fake_llm.chat_requests()[0].body
    assert {k: v for k, v in first.items() if k not in ("model", "messages")} == expected
    if model == "gpt-4o-mini":
        assert warnings == []
    else:  # the profile's temperature is left out, and the run is told so once
        assert len(warnings) == 1 and f"{model} accepts only its default temperature" in warnings[0]


def test_an_unknown_reasoning_model_is_learned_with_one_refusal_per_parameter_despite_concurrency(
    fake_llm, make_client
):
    # A model name Parley has no rule for, served by a server that treats it as OpenAI treats gpt-5.
    fake_llm.models = (*fake_llm.models, "acme-reasoner")
    fake_llm.double.kinds["acme-reasoner"] = "reasoning"
    warnings: list[str] = []
    state = ProviderState(on_warning=warnings.append)
    client = make_client(
        config={"model": "acme-reasoner", "provider": "openai-compatible", "max_concurrency": 8}, state=state
    )
    answers: list[str] = []

    def call(i: int) -> None:
        answers.append(
            client.complete([user(f"q{i}")], tag="sensei.user_turn", temperature=0.8, max_tokens=300)
        )

    threads = [threading.Thread(target=call, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(answers) == 8 and all(a.startswith("A scripted answer") for a in answers)
    # Refused once each: first the cap's name, then the temperature.
    assert len(fake_llm.refused("max_tokens")) == 1
    assert len(fake_llm.refused("temperature")) == 1
    assert len(fake_llm.refused()) == 2
    # Its hidden reasoning ate the first allowance (an empty answer cut off at the cap), once; then room was made.
    answered = [r for r in fake_llm.chat_requests() if r.status == 200]
    assert len(answered) == 9
    assert len(warnings) == 3
    assert any("sends the completion cap as `max_completion_tokens`" in w for w in warnings)
    assert any("no longer sends `temperature`" in w for w in warnings)
    assert any("spent its whole completion allowance on hidden reasoning" in w for w in warnings)
    url = client.config.url
    assert state.to_json() == {
        f"{url}|acme-reasoner": {
            "dropped": ["temperature"],
            "refused_methods": [],
            "token_param": "max_completion_tokens",
            "reasoning_headroom": REASONING_HEADROOM,
        }
    }
    # What a run stored is known to the next one: it pays no refusal at all.
    fake_llm.reset()
    later = make_client(config={"model": "acme-reasoner"}, state=ProviderState(known=state.to_json()))
    later.complete([user("again")], tag="sensei.user_turn", temperature=0.8, max_tokens=300)
    assert fake_llm.refused() == []


def test_structured_output_steps_down_to_what_a_local_server_supports_once_per_run(fake_llm, make_client):
    fake_llm.json_schema_supported = False
    fake_llm.double.tools_supported = False
    client = make_client()

    first = client.structured([user("Did it answer?")], Answer, tag="check.verdict")
    second = client.structured([user("And now?")], Answer, tag="check.verdict")

    assert isinstance(first, Answer) and isinstance(second, Answer)
    refused, also_refused, json_mode, again = fake_llm.chat_requests()
    assert refused.body["response_format"]["type"] == "json_schema" and refused.status == 400
    assert "tools" in also_refused.body and also_refused.status == 400
    # JSON mode carries the schema in the prompt, which also holds the word OpenAI's JSON mode insists on.
    assert json_mode.body["response_format"] == {"type": "json_object"} and json_mode.status == 200
    assert "JSON schema:" in json_mode.messages[-1]["content"]
    assert again.body["response_format"] == {"type": "json_object"}


def test_without_any_json_mode_the_schema_travels_in_the_instructions(fake_llm, make_client):
    fake_llm.json_schema_supported = False
    fake_llm.double.tools_supported = False
    fake_llm.double.json_object_supported = False
    assert isinstance(make_client().structured([user("?")], Answer, tag="check.verdict"), Answer)
    last = fake_llm.chat_requests()[-1]
    assert last.status == 200 and "response_format" not in last.body and "tools" not in last.body
    assert "JSON schema:" in last.messages[-1]["content"]


def test_a_reasoning_model_that_thinks_away_its_whole_allowance_gets_more_room_once(fake_llm, make_client):
    # Learned in an earlier run: little room, and no reasoning_effort (so the model thinks at its default).
    url = fake_llm.base_url
    known = {f"{url}|gpt-5-mini": {"dropped": ["reasoning_effort"], "reasoning_headroom": 100}}
    warnings: list[str] = []
    client = make_client(
        config={"model": "gpt-5-mini"}, state=ProviderState(known=known, on_warning=warnings.append)
    )

    text = client.complete([user("Say hello.")], tag="sensei.user_turn", max_tokens=400)

    assert text.startswith("A scripted answer")
    starved, roomy = fake_llm.chat_requests()
    assert starved.body["max_completion_tokens"] == 400 + 100
    assert roomy.body["max_completion_tokens"] == 400 + REASONING_HEADROOM  # at least the default room
    assert any("spent its whole completion allowance on hidden reasoning" in w for w in warnings)
    [record] = client.ledger.records
    assert record.attempts == 2 and record.completion_tokens > 500  # both answers were billed


def test_a_model_refusal_is_a_typed_error_and_a_structured_call_asks_once_more(fake_llm, make_client):
    fake_llm.set_replies("sensei.user_turn", {"refusal": "I can't help with that."})
    with pytest.raises(LLMRefusal, match="the model refused to answer: I can't help with that"):
        make_client().complete([user("?")], tag="sensei.user_turn")
    good = {"answered": True, "reason": "It gave the hours."}
    fake_llm.set_replies("check.verdict", [{"refusal": "No."}, {"json": good}])
    assert make_client().structured([user("?")], Answer, tag="check.verdict") == Answer(**good)
    fake_llm.set_replies("check.verdict", {"refusal": "No."})
    with pytest.raises(LLMOutputError):
        make_client().structured([user("?")], Answer, tag="check.verdict")


def test_an_empty_answer_is_asked_for_once_more(fake_llm, make_client):
    fake_llm.set_replies("sensei.user_turn", [{"content": ""}, "Hello there."])
    assert make_client().complete([user("?")], tag="sensei.user_turn") == "Hello there."
    assert len(fake_llm.chat_requests()) == 2


def test_a_seeded_call_sends_its_seed_and_an_empty_answer_is_asked_for_with_another(fake_llm, make_client):
    fake_llm.set_replies("sensei.user_turn", [{"content": ""}, "Hello there."])
    assert make_client().complete([user("?")], tag="sensei.user_turn", seed=41) == "Hello there."
    # The same seed again would make a seeded server repeat its empty answer.
    assert [r.body["seed"] for r in fake_llm.chat_requests()] == [41, 42]


def test_json_wrapped_in_prose_outside_strict_mode_is_still_read(fake_llm, make_client):
    fake_llm.set_replies("check.verdict", {"json": {"answered": False, "reason": "It changed the subject."}})
    answer = make_client().structured([user("?")], Answer, tag="check.verdict")
    assert answer == Answer(answered=False, reason="It changed the subject.")
    assert fake_llm.chat_requests()[0].body["response_format"]["json_schema"]["strict"] is False
    assert len(fake_llm.chat_requests()) == 1  # read at once, no repair needed


def test_an_unlisted_model_is_the_providers_404_and_ends_the_run(fake_llm, make_client):
    from engine.llm import LLMModelNotFound

    with pytest.raises(LLMModelNotFound, match="does not exist") as missing:
        make_client(config={"model": "gpt-5-mni"}).complete([user("?")], tag="t")
    assert missing.value.ends_run
