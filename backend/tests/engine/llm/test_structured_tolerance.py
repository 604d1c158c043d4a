"""Tolerant reading of structured answers (engine.llm.structured.parse): what models really write, read into
the same schema, and what stays an error."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field, ValidationError

from engine.llm.messages import system, user
from engine.llm.structured import parse, request_kwargs, with_schema_instruction


class Parameter(BaseModel):
    name: str
    is_required: bool = False


class Functionality(BaseModel):
    """One thing the chatbot can do."""

    name: str
    parameters: list[Parameter] = Field(default_factory=list)
    fallback_message: str | None = None


GOOD = Functionality(name="order_pizza", parameters=[Parameter(name="size", is_required=True)])


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "order_pizza", "parameters": [{"name": "size", "is_required": true}]}',
        # A Markdown fence, with or without a language.
        '```json\n{"name": "order_pizza", "parameters": [{"name": "size", "is_required": true}]}\n```',
        '```\n{"name": "order_pizza", "parameters": [{"name": "size", "is_required": true}]}\n```',
        # Prose around the JSON, braces inside strings included.
        (
            'Sure! Here it is: {"name": "order_pizza", "parameters": [{"name": "size", "is_required": true}]} '
            "Hope that helps {really}."
        ),
        # Trailing commas.
        '{"name": "order_pizza", "parameters": [{"name": "size", "is_required": true,},],}',
        # Keys in another casing or separator style, nested ones too.
        '{"Name": "order_pizza", "Parameters": [{"NAME": "size", "isRequired": true}]}',
        '{"name": "order_pizza", "parameters": [{"name": "size", "is-required": true}]}',
        # The object wrapped in one more object named after the schema.
        '{"Functionality": {"name": "order_pizza", "parameters": [{"name": "size", "is_required": true}]}}',
    ],
)
def test_what_models_really_write_is_read_into_the_schema(text):
    assert parse(Functionality, text) == GOOD


def test_strings_keep_their_braces_commas_and_escaped_quotes():
    text = 'Answer: {"name": "say \\"hi\\", {friend}", "fallback_message": "Sorry, I did not get that,"}'
    parsed = parse(Functionality, text)
    assert parsed.name == 'say "hi", {friend}'
    assert parsed.fallback_message == "Sorry, I did not get that,"


def test_a_raw_line_break_inside_a_string_is_read_as_one():
    # SmolLM2-135M under llama-cpp-python's grammar wrote this for TRACER's probe (issue "Real model in the loop").
    parsed = parse(
        Functionality, '{"name": "order_pizza", "fallback_message": "Sorry,\nI did not get\tthat"}'
    )
    assert parsed.fallback_message == "Sorry,\nI did not get\tthat"


def test_the_exact_spelling_wins_over_a_look_alike_key():
    parsed = parse(Functionality, '{"name": "exact", "Name": "look-alike"}')
    assert parsed.name == "exact"


@pytest.mark.parametrize(
    "text",
    [
        "I could not find any functionality.",
        '{"name": 3}',  # valid JSON, wrong type: tolerance is about layout, never about values
        '{"parameters": []}',  # a required field missing
        '{"name": "order_pizza", "parameters": [{"name": "size", "is_required": "maybe"}]}',
        '{"name": "truncated", "parameters": [',
    ],
)
def test_what_does_not_fit_the_schema_stays_a_validation_error(text):
    with pytest.raises(ValidationError):
        parse(Functionality, text)


def test_json_mode_and_instructions_carry_the_schema_in_the_last_user_message():
    messages = [system("You extract."), user("The transcript.")]
    for method in ("json_object", "instructions"):
        convo = with_schema_instruction(messages, Functionality, method)
        assert convo[0] == messages[0] and len(convo) == 2
        assert convo[-1].content.startswith("The transcript.")
        assert "JSON schema:" in convo[-1].content and '"fallback_message"' in convo[-1].content
    assert with_schema_instruction(messages, Functionality, "json_schema") == messages
    assert request_kwargs(Functionality, "tracer.extract", "json_object") == {
        "response_format": {"type": "json_object"}
    }
    assert request_kwargs(Functionality, "tracer.extract", "instructions") == {}
