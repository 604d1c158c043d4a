"""Local servers as they are: a refusal dressed as a server error is learned once per run and never retried.

llama-cpp-python's server answers a `json_schema` response format with HTTP 500 and pydantic's validation error
("Input should be 'text' or 'json_object'"); retrying it five times (about 16 s) per call made every SENSEI
conversation fail. The real server is in tests/real_llm/; here its behaviour is the `validation_as_500` double.
"""

from __future__ import annotations

import threading

import pytest
from pydantic import BaseModel

from engine.llm import LLMRequestError, LLMUnavailableError, ProviderState, user
from engine.llm.capabilities import family_of
from engine.llm.offline.server import running_fake_server
from engine.llm.structured import request_kwargs

from .conftest import FAKE_KEY


class Order(BaseModel):
    """A pizza order."""

    size: str
    price: float | None = None


@pytest.fixture
def llama_cpp():
    with running_fake_server(
        api_key=FAKE_KEY,
        provider="local",
        models=None,
        json_schema_supported=False,
        validation_as_500=True,
    ) as server:
        yield server


def test_a_validation_error_sent_as_a_500_is_learned_once_per_run_whatever_the_concurrency(
    llama_cpp, make_client
):
    warnings: list[str] = []
    state = ProviderState(on_warning=warnings.append)
    client = make_client(
        config={"base_url": llama_cpp.base_url, "model": "SmolLM2-135M-Instruct", "max_concurrency": 6},
        state=state,
    )
    answers: list[Order] = []

    def call(i: int) -> None:
        answers.append(client.structured([user(f"Order {i}: a small pizza")], Order, tag="sensei.extract"))

    threads = [threading.Thread(target=call, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(answers) == 6 and all(isinstance(a, Order) for a in answers)
    statuses = [r.status for r in llama_cpp.chat_requests()]
    assert statuses.count(500) == 1  # one refusal for the whole run, not five retries per call
    assert statuses.count(200) == 6
    later = [r.body for r in llama_cpp.chat_requests() if r.status == 200]
    assert all(body.get("tool_choice") for body in later)  # the next way to ask: one forced tool call
    assert len(warnings) == 1
    assert "json_schema" in warnings[0] and "Input should be 'text' or 'json_object'" in warnings[0]
    assert "app.py" not in warnings[0]  # the server's stack line is left out
    assert state.to_json() == {
        f"{llama_cpp.base_url}|SmolLM2-135M-Instruct": {"dropped": [], "refused_methods": ["json_schema"]}
    }


def test_json_mode_carries_the_schema_for_local_servers_only(llama_cpp, make_client):
    llama_cpp.double.tools_supported = False
    client = make_client(config={"base_url": llama_cpp.base_url, "model": "SmolLM2-135M-Instruct"})
    assert client.structured([user("a small pizza")], Order, tag="sensei.extract").size
    answered = next(r.body for r in llama_cpp.chat_requests() if r.status == 200)
    assert answered["response_format"]["type"] == "json_object"
    assert answered["response_format"]["schema"]["properties"]["size"] == {"title": "Size", "type": "string"}
    # OpenAI and Gemini refuse unknown keys in `response_format`: JSON mode alone for them.
    assert family_of("openai", "gpt-4o-mini").json_object_schema is False
    assert request_kwargs(Order, "t", "json_object") == {"response_format": {"type": "json_object"}}


def test_a_refusal_that_will_not_change_is_not_retried(fake_llm, make_client):
    # Not a validation message, but the same specific body twice: a third attempt would get it again.
    fake_llm.inject(
        "server_error",
        times=10,
        kind="internal_server_error",
        message="llama_decode returned -1 for this prompt",
    )
    with pytest.raises(LLMUnavailableError, match="after 2 attempts"):
        make_client().complete([user("hi")], tag="t.broken")
    assert [r.status for r in fake_llm.chat_requests()] == [500, 500]


def test_a_validation_error_on_a_field_parley_cannot_change_fails_at_once(fake_llm, make_client):
    message = "1 validation error: {'type': 'missing', 'loc': ('body', 'messages'), 'msg': 'Field required'}"
    fake_llm.inject("server_error", times=10, message=message)
    with pytest.raises(LLMRequestError, match="a validation error"):
        make_client().complete([user("hi")], tag="t.invalid")
    assert len(fake_llm.chat_requests()) == 1


def test_a_providers_stock_server_error_keeps_its_retries(fake_llm, make_client):
    fake_llm.inject("server_error", times=3)  # OpenAI's "The server had an error…", type server_error
    assert make_client().complete([user("hi")], tag="t.flaky")
    assert [r.status for r in fake_llm.chat_requests()] == [500, 500, 500, 200]
