"""list_models (live and fallback) and the sample data the doubles generate for unscripted structured calls."""

from __future__ import annotations

import socket
from enum import StrEnum

import jsonschema
import pytest
from pydantic import BaseModel, Field

from engine.egress import EgressDenied, EgressGuard, EgressPolicy
from engine.llm import LLMAuthError, LLMConfigError, list_models
from engine.llm.offline import sample_from_schema
from engine.llm.offline.server import running_fake_server
from engine.llm.providers import FALLBACK_MODELS
from tests.engine.llm.conftest import FAKE_KEY

LOCAL = EgressGuard(EgressPolicy.parse("127.0.0.1"))


def test_models_are_listed_live_from_the_endpoint(fake_llm):
    fake_llm.models = ("gpt-4o-mini", "text-embedding-3-small", "models/gemini-2.5-flash")
    result = list_models("openai-compatible", FAKE_KEY, fake_llm.base_url, LOCAL)
    assert result.source == "live"
    # Embedding models cannot chat; Gemini's "models/" prefix is not part of the name to send.
    assert result.models == ("gemini-2.5-flash", "gpt-4o-mini")


def test_an_unreachable_endpoint_gives_the_curated_list_flagged_as_fallback():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free_port = probe.getsockname()[1]
    result = list_models("openai", FAKE_KEY, f"http://127.0.0.1:{free_port}/v1", LOCAL)
    assert result.source == "fallback"
    assert result.models == FALLBACK_MODELS["openai"]
    assert "could not be reached" in result.reason
    assert result.to_json()["source"] == "fallback"


def test_an_endpoint_answering_with_an_error_also_falls_back():
    with running_fake_server() as server:
        result = list_models(
            "gemini", "key-123456789", server.base_url.removesuffix("/v1") + "/nothing", LOCAL
        )
    assert (result.source, result.models) == ("fallback", FALLBACK_MODELS["gemini"])
    assert "HTTP 404" in result.reason


def test_a_rejected_key_is_reported_not_hidden_behind_a_fallback(fake_llm):
    with pytest.raises(LLMAuthError, match=r"rejected by the server at 127\.0\.0\.1"):
        list_models("openai-compatible", "sk-not-the-right-one-000", fake_llm.base_url, LOCAL)


def test_listing_models_passes_the_egress_guard(fake_llm):
    with pytest.raises(EgressDenied):
        list_models("openai-compatible", FAKE_KEY, fake_llm.base_url, EgressGuard())
    assert fake_llm.requests == []


def test_settings_that_cannot_work_are_refused_before_any_request():
    with pytest.raises(LLMConfigError, match="needs a base URL"):
        list_models("openai-compatible", None, None, LOCAL)
    with pytest.raises(LLMConfigError, match="No API key"):
        list_models("openai", "", None, LOCAL)
    with pytest.raises(LLMConfigError, match="Unknown LLM provider"):
        list_models("anthropic", "k", None, LOCAL)


class Size(StrEnum):
    SMALL = "small"
    LARGE = "large"


class Item(BaseModel):
    name: str = Field(min_length=12, max_length=20)
    size: Size
    quantity: int = Field(ge=2, le=5)
    price: float = Field(gt=0)


class Order(BaseModel):
    items: list[Item] = Field(min_length=2)
    note: str | None = None
    express: bool
    tags: dict[str, str] = {}
    parent: Order | None = None


@pytest.mark.parametrize("model", [Item, Order])
def test_generated_sample_data_is_valid_against_the_schema(model):
    schema = model.model_json_schema()
    data = sample_from_schema(schema)
    jsonschema.validate(data, schema)
    model.model_validate(data)
