"""What each model family is sent, how a refusal is read, and what is learned from it (engine.llm.capabilities)."""

from __future__ import annotations

import pytest

from engine.llm import ProviderState, family_of, temperature_note
from engine.llm.capabilities import (
    GEMINI,
    GEMINI_THINKING,
    LOCAL,
    OPENAI_CHAT,
    OPENAI_LEGACY,
    OPENAI_REASONING,
    OPENAI_REASONING_EARLY,
    REASONING_HEADROOM,
    Learned,
    Refusal,
    plan_request,
    read_refusal,
)


@pytest.mark.parametrize(
    ("provider", "model", "family"),
    [
        ("openai", "gpt-5-mini", OPENAI_REASONING),
        ("openai", "gpt-5", OPENAI_REASONING),
        ("openai", "gpt-5.1", OPENAI_REASONING),
        ("openai", "o4-mini", OPENAI_REASONING),
        ("openai", "o3", OPENAI_REASONING),
        ("openai", "o1", OPENAI_REASONING),
        ("openai", "o1-mini", OPENAI_REASONING_EARLY),
        ("openai", "gpt-5-chat-latest", OPENAI_CHAT),
        ("openai", "gpt-4o-mini", OPENAI_CHAT),
        ("openai", "gpt-4.1-mini", OPENAI_CHAT),
        ("openai", "gpt-3.5-turbo", OPENAI_LEGACY),
        ("openai", "gpt-4-turbo", OPENAI_LEGACY),
        ("openai", "some-future-model", OPENAI_CHAT),
        # The same models behind a proxy or a compatible endpoint follow the same rules.
        ("openai-compatible", "gpt-5-mini", OPENAI_REASONING),
        ("openai-compatible", "openai/o4-mini", OPENAI_REASONING),
        ("gemini", "gemini-2.5-flash", GEMINI_THINKING),
        ("gemini", "models/gemini-2.5-pro", GEMINI_THINKING),
        ("gemini", "gemini-2.0-flash", GEMINI),
        ("gemini", "gemma-3-27b-it", GEMINI),
        ("openai-compatible", "llama3.1:8b", LOCAL),
        # Ollama's gpt-oss is not OpenAI's API: it takes a temperature.
        ("openai-compatible", "gpt-oss:20b", LOCAL),
    ],
)
def test_each_model_belongs_to_the_family_whose_documented_rules_apply(provider, model, family):
    assert family_of(provider, model) is family


def test_a_reasoning_model_gets_no_temperature_and_room_for_its_hidden_reasoning():
    plan = plan_request(
        OPENAI_REASONING, Learned(), model="gpt-5-mini", max_tokens=400, temperature=0.8, structured=False
    )
    assert plan.params == {"max_completion_tokens": 400 + REASONING_HEADROOM, "reasoning_effort": "low"}
    assert plan.completion_cap == 400 + REASONING_HEADROOM
    [note] = plan.notes
    assert note.field == "temperature"
    assert "gpt-5-mini accepts only its default temperature" in note.text and "0.8" in note.text


def test_a_chat_model_gets_what_the_caller_asked_for():
    plan = plan_request(
        OPENAI_CHAT, Learned(), model="gpt-4o-mini", max_tokens=400, temperature=0.8, structured=True
    )
    assert plan.params == {"temperature": 0.8, "max_completion_tokens": 400}
    assert (plan.method, plan.notes) == ("json_schema", ())


def test_local_servers_and_gemini_get_max_tokens():
    for family in (LOCAL, GEMINI):
        plan = plan_request(family, Learned(), model="m", max_tokens=100, temperature=0.2, structured=False)
        assert plan.params == {"temperature": 0.2, "max_tokens": 100}


def test_what_was_learned_changes_what_is_sent():
    learned = Learned(
        dropped=frozenset({"temperature"}),
        token_param="max_completion_tokens",
        refused_methods=frozenset({"json_schema", "tool_calling"}),
        system_role="user",
    )
    plan = plan_request(LOCAL, learned, model="m", max_tokens=100, temperature=0.2, structured=True)
    assert plan.params == {"max_completion_tokens": 100}
    assert (plan.method, plan.system_role) == ("json_object", "user")


def test_a_seed_is_sent_for_repeatable_answers_until_a_server_refuses_it():
    plan = plan_request(
        LOCAL, Learned(), model="m", max_tokens=None, temperature=None, structured=False, seed=7
    )
    assert plan.params == {"seed": 7}
    refused = Learned(dropped=frozenset({"seed"}))
    plan = plan_request(
        LOCAL, refused, model="m", max_tokens=None, temperature=None, structured=False, seed=7
    )
    assert plan.params == {}


OPENAI_TEMPERATURE = {
    "error": {
        "message": "Unsupported value: 'temperature' does not support 0.8 with this model. Only the default (1) "
        "value is supported.",
        "type": "invalid_request_error",
        "param": "temperature",
        "code": "unsupported_value",
    }
}
OPENAI_MAX_TOKENS = {
    "error": {
        "message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
        "'max_completion_tokens' instead.",
        "type": "invalid_request_error",
        "param": "max_tokens",
        "code": "unsupported_parameter",
    }
}


@pytest.mark.parametrize(
    ("body", "payload", "field"),
    [
        (OPENAI_TEMPERATURE, {"temperature": 0.8}, "temperature"),
        (OPENAI_MAX_TOKENS, {"max_tokens": 10}, "max_tokens"),
        # Gemini's compatible endpoint: a list of errors, no param, Google's own wording.
        (
            [
                {
                    "error": {
                        "code": 400,
                        "message": 'Invalid JSON payload received. Unknown name "seed": Cannot find field.',
                        "status": "INVALID_ARGUMENT",
                    }
                }
            ],
            {"seed": 1},
            "seed",
        ),
        # vLLM: a flat body.
        (
            {"object": "error", "message": "reasoning_effort is not supported for this model", "code": 400},
            {"reasoning_effort": "low"},
            "reasoning_effort",
        ),
        # LM Studio: a plain string.
        (
            {"error": "'response_format.type' must be 'json_schema' or 'text'"},
            {"response_format": {"type": "json_object"}},
            "method:json_object",
        ),
        # OpenAI naming the type in the message, and o1-mini refusing response formats altogether.
        (
            {
                "error": {
                    "message": "Invalid parameter: 'response_format' of type 'json_schema' is not supported "
                    "with this model.",
                    "param": "response_format",
                }
            },
            {"response_format": {"type": "json_schema"}},
            "method:json_schema",
        ),
        (
            {
                "error": {
                    "message": "Unsupported parameter: 'response_format' is not supported with this model.",
                    "param": "response_format",
                    "code": "unsupported_parameter",
                }
            },
            {"response_format": {"type": "json_schema"}},
            "method:response_format",
        ),
        (
            {"error": {"message": "llama3 does not support tools", "type": "api_error"}},
            {"tools": [{}], "tool_choice": {}},
            "method:tool_calling",
        ),
        (
            {
                "error": {
                    "message": "Unsupported value: 'messages[0].role' does not support 'system' with this "
                    "model.",
                    "param": "messages[0].role",
                    "code": "unsupported_value",
                }
            },
            {"messages": []},
            "system_role",
        ),
    ],
)
def test_a_refusal_names_the_field_in_every_servers_error_shape(body, payload, field):
    refusal = read_refusal(400, body, payload)
    assert refusal is not None and refusal.field == field


def test_errors_that_no_parameter_change_can_fix_are_not_refusals():
    too_long = {
        "error": {
            "message": "This model's maximum context length is 128000 tokens. However, you requested 130000 tokens "
            "(129000 in the messages, 1000 in the completion). Please reduce the length of the messages or "
            "max_tokens.",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }
    assert read_refusal(400, too_long, {"max_tokens": 1000}) is None
    # A refusal naming a field Parley did not send cannot be fixed by leaving that field out.
    assert read_refusal(400, OPENAI_TEMPERATURE, {"max_tokens": 10}) is None
    assert read_refusal(500, OPENAI_TEMPERATURE, {"temperature": 0.8}) is None


def test_learning_a_refusal_twice_teaches_nothing_and_both_token_names_refused_drops_the_cap():
    learned = Learned().after(Refusal("temperature", "no"), OPENAI_CHAT)
    assert learned is not None and learned.dropped == {"temperature"}
    assert learned.after(Refusal("temperature", "no"), OPENAI_CHAT) is None
    switched = Learned().after(Refusal("max_tokens", "no"), LOCAL)
    assert switched is not None and switched.token_param == "max_completion_tokens"
    no_cap = switched.after(Refusal("max_completion_tokens", "no"), LOCAL)
    assert no_cap is not None
    assert (
        plan_request(LOCAL, no_cap, model="m", max_tokens=5, temperature=None, structured=False).params == {}
    )


def test_a_server_without_response_formats_is_asked_with_tools_then_instructions():
    learned = Learned().after(Refusal("method:response_format", "no"), OPENAI_CHAT)
    assert learned is not None and learned.refused_methods == {"json_schema", "json_object"}
    plan = plan_request(OPENAI_CHAT, learned, model="m", max_tokens=None, temperature=None, structured=True)
    assert plan.method == "tool_calling"
    no_tools = learned.after(Refusal("method:tool_calling", "no"), OPENAI_CHAT)
    assert no_tools is not None
    plan = plan_request(OPENAI_CHAT, no_tools, model="m", max_tokens=None, temperature=None, structured=True)
    assert plan.method == "instructions"
    assert no_tools.after(Refusal("method:instructions", "no"), OPENAI_CHAT) is None


def test_what_was_learned_round_trips_through_json_and_merges():
    learned = Learned(frozenset({"top_p"}), "max_tokens", frozenset({"json_schema"}), "user", 4096)
    assert Learned.from_json(learned.to_json()) == learned
    assert (
        Learned.from_json({"dropped": ["rm -rf"], "token_param": "nope", "reasoning_headroom": -3})
        == Learned()
    )
    merged = learned.merged(Learned(dropped=frozenset({"seed"}), reasoning_headroom=8192))
    assert merged.dropped == {"top_p", "seed"} and merged.reasoning_headroom == 8192


def test_the_state_keeps_what_was_learned_per_server_and_model_and_warns_once():
    warnings: list[str] = []
    state = ProviderState(on_warning=warnings.append)
    refusal = Refusal("temperature", "Unsupported value: 'temperature'")
    assert state.learn("http://a/v1", "m", refusal, OPENAI_CHAT, where="A")
    assert not state.learn("http://a/v1", "m", refusal, OPENAI_CHAT, where="A")
    assert state.learned("http://b/v1", "m") == Learned()
    assert len(warnings) == 1 and "A refused a parameter for m" in warnings[0]
    stored = state.to_json()
    assert stored == {"http://a/v1|m": {"dropped": ["temperature"], "refused_methods": []}}
    later: list[str] = []
    again = ProviderState(known=stored, on_warning=later.append)
    assert again.learned("http://a/v1", "m", where="A").dropped == {"temperature"}
    assert len(later) == 1 and "earlier run" in later[0] and "no `temperature`" in later[0]


def test_the_validator_hook_says_what_will_be_sent_for_a_refused_temperature():
    note = temperature_note("openai", "gpt-5-mini", 0.8)
    assert note is not None and "will send no temperature instead of 0.8" in note
    assert temperature_note("openai", "gpt-4o-mini", 0.8) is None
    assert temperature_note("openai-compatible", "llama3.1:8b", 1.5) is None
