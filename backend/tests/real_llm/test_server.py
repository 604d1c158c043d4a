"""What the real server does on its own: the ground the engine's adapters stand on. No Parley code here."""

from __future__ import annotations

import json

import httpx
import pytest

pytestmark = pytest.mark.real_llm


def _chat(base_url: str, model: str, **body) -> dict:
    response = httpx.post(f"{base_url}/chat/completions", json={"model": model, **body}, timeout=120.0)
    assert response.status_code == 200, response.text
    return response.json()


def test_lists_the_model(real_llm_url, real_llm_model):
    response = httpx.get(f"{real_llm_url}/models", timeout=10.0)
    assert response.status_code == 200
    assert real_llm_model in [model["id"] for model in response.json()["data"]]


def test_chat_completion_answers(real_llm_url, real_llm_model):
    data = _chat(
        real_llm_url,
        real_llm_model,
        messages=[{"role": "user", "content": "Hello! Which pizza sizes do you have?"}],
        max_tokens=48,
        seed=7,
    )
    message = data["choices"][0]["message"]
    assert message["role"] == "assistant"
    assert message["content"].strip()
    assert data["usage"]["completion_tokens"] > 0


def test_json_object_response_format_gives_parseable_json(real_llm_url, real_llm_model):
    data = _chat(
        real_llm_url,
        real_llm_model,
        messages=[
            {"role": "system", "content": "Answer with a JSON object only."},
            {
                "role": "user",
                "content": 'Give the pizza order as JSON with keys "size" and "price": small, 8.5.',
            },
        ],
        response_format={"type": "json_object"},
        max_tokens=200,
        seed=7,
    )
    content = data["choices"][0]["message"]["content"]
    assert isinstance(json.loads(content), dict), content


def test_same_request_and_seed_same_answer(real_llm_url, real_llm_model):
    """Repeatable tier: with a fixed seed, the same request gets the same answer."""
    body = {
        "messages": [{"role": "user", "content": "Name a topping for a pizza."}],
        "max_tokens": 24,
        "temperature": 0.8,
        "seed": 1234,
    }
    first = _chat(real_llm_url, real_llm_model, **body)["choices"][0]["message"]["content"]
    second = _chat(real_llm_url, real_llm_model, **body)["choices"][0]["message"]["content"]
    assert first == second


ORDER_SCHEMA = {
    "type": "object",
    "properties": {"size": {"type": "string"}, "price": {"type": "number"}},
    "required": ["size", "price"],
}
ORDER_MESSAGES = [{"role": "user", "content": "Order: small pizza, 8.5 USD. Answer in JSON."}]


def test_json_schema_response_format_is_refused_with_a_500(real_llm_url, real_llm_model):
    """OpenAI's `json_schema` format is a validation error here, answered as HTTP 500 (not 400): retrying it can
    never help, and the message says what the server accepts."""
    response = httpx.post(
        f"{real_llm_url}/chat/completions",
        json={
            "model": real_llm_model,
            "messages": ORDER_MESSAGES,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "order", "schema": ORDER_SCHEMA},
            },
            "max_tokens": 64,
        },
        timeout=60.0,
    )
    assert response.status_code == 500
    assert "json_object" in response.json()["error"]["message"]


def test_json_object_with_a_schema_follows_the_schema(real_llm_url, real_llm_model):
    """What it accepts instead: `json_object` with a `schema`, which constrains the answer to it."""
    data = _chat(
        real_llm_url,
        real_llm_model,
        messages=ORDER_MESSAGES,
        response_format={"type": "json_object", "schema": ORDER_SCHEMA},
        max_tokens=100,
        seed=7,
    )
    answer = json.loads(data["choices"][0]["message"]["content"])
    assert isinstance(answer["size"], str)
    assert isinstance(answer["price"], int | float)
