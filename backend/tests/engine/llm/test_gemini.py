"""Gemini end to end through its OpenAI-compatible endpoint (README D9), against a double that follows that
endpoint's documented shape: list-shaped errors, a wrong key as HTTP 400, unknown fields refused, thinking models,
and the safety filter's blocked prompts (no choice at all) and blocked answers (no content)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic import BaseModel

from engine.llm import LLMAuthError, LLMRefusal, LLMRequestError, ProviderState, user
from engine.llm.offline import ScriptedChatModel
from engine.llm.offline.server import FakeLLMServer, running_fake_server

GEMINI_KEY = "AIzaSy-parley-test-0123456789abcdef"
MODELS = ("gemini-2.5-flash", "gemini-2.0-flash")


class Verdict(BaseModel):
    """Whether the chatbot answered."""

    answered: bool
    reason: str


@pytest.fixture
def gemini() -> Iterator[FakeLLMServer]:
    with running_fake_server(provider="gemini", models=MODELS, api_key=GEMINI_KEY) as server:
        yield server


@pytest.fixture
def gemini_client(gemini, make_client):
    def build(model: str = "gemini-2.5-flash", **options):
        config = {"provider": "gemini", "base_url": gemini.base_url, "model": model, "api_key": GEMINI_KEY}
        return make_client(config={**config, **options.pop("config", {})}, **options)

    return build


def test_a_thinking_model_gets_max_tokens_with_room_to_think_and_a_low_effort(gemini, gemini_client):
    warnings: list[str] = []
    client = gemini_client(state=ProviderState(on_warning=warnings.append))
    assert client.complete([user("hi")], tag="sensei.user_turn", temperature=0.8, max_tokens=400)
    verdict = client.structured([user("Did it answer?")], Verdict, tag="check.verdict", temperature=0.0)
    assert isinstance(verdict, Verdict)
    assert gemini.refused() == [] and warnings == []
    body = gemini.chat_requests()[0].body
    assert {k: v for k, v in body.items() if k not in ("model", "messages")} == {
        "temperature": 0.8,
        "max_tokens": 2448,
        "reasoning_effort": "low",
    }


def test_an_older_model_is_not_asked_to_think(gemini, gemini_client):
    gemini_client("gemini-2.0-flash").complete([user("hi")], tag="t", max_tokens=100)
    assert "reasoning_effort" not in gemini.chat_requests()[0].body
    assert gemini.chat_requests()[0].body["max_tokens"] == 100


def test_a_blocked_prompt_and_a_blocked_answer_are_typed_refusals(gemini, gemini_client):
    gemini.set_replies("sensei.user_turn", {"blocked_prompt": True})
    with pytest.raises(LLMRefusal, match="safety filter blocked the prompt"):
        gemini_client().complete([user("hi")], tag="sensei.user_turn")
    gemini.set_replies("sensei.user_turn", {"safety_block": True})
    with pytest.raises(LLMRefusal, match=r"blocked the answer \(finish reason content_filter\)"):
        gemini_client().complete([user("hi")], tag="sensei.user_turn")
    # Gemini may also pass its own finish reason through.
    gemini.set_replies("sensei.user_turn", {"safety_block": True, "finish_reason": "SAFETY"})
    with pytest.raises(LLMRefusal, match="finish reason SAFETY"):
        gemini_client().complete([user("hi")], tag="sensei.user_turn")


def test_a_structured_call_blocked_once_is_asked_again(gemini, gemini_client):
    good = {"answered": True, "reason": "It listed the hours."}
    gemini.set_replies("check.verdict", [{"safety_block": True}, {"json": good}])
    assert gemini_client().structured([user("?")], Verdict, tag="check.verdict") == Verdict(**good)


def test_a_wrong_key_is_a_400_for_gemini_and_still_a_rejected_key_for_parley(gemini, gemini_client):
    with pytest.raises(LLMAuthError, match="rejected by Google Gemini"):
        gemini_client(config={"api_key": "AIzaSy-wrong-key-000000000000"}).complete([user("hi")], tag="t")
    [request] = gemini.chat_requests()
    assert request.status == 400 and request.error[0]["error"]["status"] == "INVALID_ARGUMENT"


def test_the_double_refuses_an_unknown_field_in_googles_words():
    reply = ScriptedChatModel(provider="gemini").double.handle(
        {"model": "gemini-2.5-flash", "messages": [{"role": "user", "content": "x"}], "logit_bias": {}},
        tag="t",
        bearer=None,
    )
    assert reply.status == 400
    assert reply.body[0]["error"]["message"].startswith(
        'Invalid JSON payload received. Unknown name "logit_bias"'
    )


def test_thinking_on_a_model_that_cannot_think_is_refused_by_the_double():
    model = ScriptedChatModel(provider="gemini")
    reply = model.double.handle(
        {
            "model": "gemini-2.0-flash",
            "messages": [{"role": "user", "content": "x"}],
            "reasoning_effort": "low",
        },
        tag="t",
        bearer=None,
    )
    assert reply.status == 400 and "Thinking is not enabled" in reply.body[0]["error"]["message"]


def test_an_unlisted_gemini_model_is_a_404(gemini_client):
    with pytest.raises(LLMRequestError, match="does not offer the model 'gemini-9-ultra'"):
        gemini_client("gemini-9-ultra").complete([user("hi")], tag="t")
