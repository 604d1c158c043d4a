"""Every dialect of SENSEI.md §1 reads into the same canonical profile; old spellings warn, never fail."""

from __future__ import annotations

import jsonschema
import pytest
from ruamel.yaml import YAML

from engine.sensei import load_profile, profile_json_schema, validate
from engine.sensei.profile import Selector

# The same pizza test written four ways.
CANONICAL = """
test_name: pizza_order
llm: {model: gpt-4o-mini, temperature: 0.8, format: {type: text}}
user:
  language: English
  role: Act as a user ordering a pizza to a pizza shop
  context:
    - personality: conversational-user
    - You are in a hurry.
  goals:
    - "a {{size}} {{pizza_type}} pizza"
    - "{{number}} cans of {{drink}} to drink"
    - size: {function: forward(pizza_type), type: string, data: [small, medium, large]}
    - pizza_type: {function: forward(), type: string, data: [margherita, carbonara]}
    - number: {function: another(), type: int, data: {min: 1, max: 4, step: 1}}
    - drink: {function: forward(), type: string, data: [water, coke]}
chatbot:
  is_starter: false
  fallback: I'm sorry, I did not get that. Can you rephrase?
  output:
    - price: {type: money, description: The price of the pizza order}
    - order_id: {type: string, description: The order ID}
conversation:
  number: combinations(0.5)
  max_cost: 1.5
  goal_style: {random steps: 12, max_cost: 0.2}
  interaction_style:
    - single question
    - random: [make spelling mistakes, {change language: [Spanish]}]
"""

V1 = """
test_name: pizza_order
llm: {model: gpt-4o-mini, temperature: 0.8}
user:
  language: English
  role: Act as a user ordering a pizza to a pizza shop
  context:
    - personality: personalities/conversational-user.yml
    - You are in a hurry.
  goals:
    - "a {{size}} {{pizza_type}} pizza"
    - "{{number}} cans of {{drink}} to drink"
    - size:
        function: forward(pizza_type)
        type: str
        data: [small, medium, large]
    - pizza_type: {function: forward(), type: string, data: [margherita, carbonara]}
    - number: {function: another(), type: int, data: {min: 1, max: 4}}
    - drink: {function: forward(), type: string, data: [water, coke]}
chatbot:
  is_starter: false
  fallback: I'm sorry, I did not get that. Can you rephrase?
  output:
    - price: {type: currency, description: The price of the pizza order}
    - order_id: {type: str, description: The order ID}
conversation:
  number: sample(0.5)
  max_cost: 1.5
  goal_style: {random steps: 12, max_cost: 0.2}
  interaction_style:
    - random: [make spelling mistakes, {change language: [Spanish]}]
    - single question
"""

TRACER = """
test_name: pizza_order
llm:
  temperature: 0.8
  model: gpt-4o-mini
  format:
    type: text
user:
  language: English
  role: Act as a user ordering a pizza to a pizza shop
  context:
    - 'personality: personalities/conversational-user'
    - You are in a hurry.
  goals:
    - "a {{size}} {{pizza_type}} pizza"
    - "{{number}} cans of {{drink}} to drink"
    - size:
        function: forward(pizza_type)
        type: string
        data:
          - small
          - medium
          - large
    - pizza_type:
        function: forward()
        type: string
        data: [margherita, carbonara]
    - number:
        function: another()
        type: int
        data: {min: 1, max: 4, step: 1}
    - drink:
        function: forward()
        type: string
        data: [water, coke]
chatbot:
  is_starter: false
  fallback: I'm sorry, I did not get that. Can you rephrase?
  output:
    - price:
        type: money
        description: The price of the pizza order
    - order_id:
        type: string
        description: The order ID
conversation:
  number: sample(0.5)
  max_cost: 1.5
  goal_style:
    random_steps: 12
    max_cost: 0.2
  interaction_style:
    - single questions
    - random: [make spelling mistakes, {change language: [Spanish]}]
"""

PAPER = """
test_name: pizza_order
LLM:
  model: gpt-4o-mini
  temperature: 0.8
user:
  role: Act as a user ordering a pizza to a pizza shop
  context:
    - personality: personalities/conversational-user.yml
    - You are in a hurry.
  goals:
    templates:
      - "a {{size}} {{pizza_type}} pizza"
      - "{{number}} cans of {{drink}} to drink"
    inputs:
      - size:
        selector: forward(pizza_type)
        type: string
        data: [small, medium, large]
      - pizza_type:
        selector: forward()
        type: string
        data: [margherita, carbonara]
      - number:
        selector: another()
        type: int
        data: {min: 1, max: 4}
      - drink:
        selector: forward()
        type: string
        data: [water, coke]
chatbot:
  isStarter: false
  fallback: I'm sorry, I did not get that. Can you rephrase?
  outputs:
    - price: {type: money, description: The price of the pizza order}
    - order_id: {type: string, description: The order ID}
conversations:
  number: sample(0.5)
  max_cost: 1.5
  stop_condition: {random steps: 12, max_cost: 0.2}
  interaction_style:
    - single question
    - random: [make spelling mistakes, {change language: [Spanish]}]
"""


def _load(text: str):
    profile, problems = load_profile(text, source="pizza.yml")
    assert profile is not None, [p.render() for p in problems]
    return profile, problems


@pytest.mark.parametrize("dialect", [V1, TRACER, PAPER], ids=["v1", "tracer", "paper"])
def test_every_dialect_normalises_to_the_canonical_profile(dialect):
    canonical, canonical_problems = _load(CANONICAL)
    assert [p for p in canonical_problems if p.code == "deprecated"] == []
    other, problems = _load(dialect)
    assert other == canonical
    assert any(p.code == "deprecated" for p in problems)
    assert all(p.severity == "warning" for p in problems)


def test_canonical_model_details():
    profile, _ = _load(CANONICAL)
    assert profile.user.personality == "conversational-user"
    assert profile.user.personality_context  # the built-in sentences were copied in
    assert profile.user.variables[0].selector == Selector(kind="forward", depends_on="pizza_type")
    assert profile.conversation.number.kind == "combinations"
    assert profile.conversation.number.fraction == 0.5
    assert profile.conversation.goal_style.kind == "random_steps"
    assert [s.name for s in profile.conversation.random_styles] == [
        "make spelling mistakes",
        "change language",
    ]
    assert profile.chatbot.outputs[0].type.kind == "money"


def test_deprecated_spellings_point_at_their_line():
    _, problems = _load(PAPER)
    messages = {p.message: p for p in problems}
    llm = messages["`LLM` is an old spelling of `llm`"]
    assert (llm.line, llm.column) == (3, 1)
    assert llm.hint == "Write `llm` instead."


def test_the_spec_canonical_example_loads():
    text = """
test_name: cinema_booking_basic
llm: {model: gpt-4o-mini, temperature: 0.7, format: {type: text}}
user:
  language: English
  role: You are a customer who wants to buy cinema tickets through the theatre's assistant.
  context:
    - personality: impatient-user
    - You are called Ana and you will pay by card.
  goals:
    - "buy {{seats}} tickets for {{film}} in the {{session}} session"
    - ask whether there is a student discount
    - seats:   {function: forward(film), type: int, data: {min: 1, max: 3, step: 1}}
    - film:    {function: forward(), type: string, data: [Dune, Wicked, any(2 animated films)]}
    - session: {function: another(), type: string, data: [matinee, evening, late]}
chatbot:
  is_starter: false
  fallback: Sorry, I can only help with tickets and showtimes.
  output:
    - total_price: {type: currency, description: total amount charged for the booking}
    - booking_code: {type: string, description: the reference code of the booking}
conversation:
  number: combinations(0.5)          # v1 spelling: sample(0.5)
  max_cost: 2.0
  goal_style: {all_answered: {export: true, limit: 12}, max_cost: 0.2}
  interaction_style:
    - random: [make spelling mistakes, long phrases, {change language: [Spanish, French]}]
"""
    profile, problems = _load(text)
    assert profile.user.variables[1].data.any[0].count == 2
    assert profile.conversation.goal_style.limit == 12
    assert profile.conversation.styles == []
    assert not [p for p in problems if p.is_error]


def test_unknown_keys_warn_and_fail_in_strict_mode():
    text = CANONICAL.replace("  language: English\n", "  language: English\n  mood: cheerful\n")
    profile, problems = load_profile(text)
    assert profile is not None
    unknown = [p for p in problems if p.code == "unknown_key"]
    assert unknown and unknown[0].severity == "warning" and unknown[0].line == 6
    profile, problems = load_profile(text, strict=True)
    assert profile is None
    assert [p.severity for p in problems if p.code == "unknown_key"] == ["error"]


def test_local_file_features_need_the_flag(tmp_path):
    code = tmp_path / "gen.py"
    code.write_text("def sizes(n, prefix='s'):\n    return [f'{prefix}{i}' for i in range(n)]\n")
    text = CANONICAL.replace(
        "data: [small, medium, large]", "data: {file: gen.py, function_name: sizes, args: [3, {prefix: x}]}"
    )
    profile, problems = load_profile(text)
    assert profile is None
    refused = [p for p in problems if p.code == "local_files_not_allowed"]
    assert refused and "--allow-local-files" in (refused[0].hint or "")
    profile, problems = load_profile(text, allow_local_files=True, base_dir=tmp_path)
    assert profile is not None, [p.render() for p in problems]
    from engine.sensei import plan

    rows = plan(profile, seed=1, base_dir=tmp_path).rows
    assert {row["size"] for row in rows} <= {"x0", "x1", "x2"}


def test_personality_files_by_path_and_unknown_personalities(tmp_path):
    (tmp_path / "people").mkdir()
    (tmp_path / "people" / "pirate.yml").write_text("name: pirate\ncontext:\n  - You talk like a pirate.\n")
    text = CANONICAL.replace("personality: conversational-user", "personality: people/pirate.yml")
    assert load_profile(text)[0] is None
    profile, _ = load_profile(text, allow_local_files=True, base_dir=tmp_path)
    assert profile is not None and profile.user.personality_context == ["You talk like a pirate."]
    profile, problems = load_profile(CANONICAL.replace("conversational-user", "conversational-usr"))
    assert profile is None
    assert any("conversational-user" in (p.hint or "") for p in problems if p.code == "unknown_personality")


def test_custom_personalities_per_project():
    from engine.sensei import Personality

    text = CANONICAL.replace("personality: conversational-user", "personality: night-owl")
    profile, _ = load_profile(
        text, personalities=[Personality("night-owl", ("You only chat after midnight.",))]
    )
    assert profile is not None and profile.user.personality_context == ["You only chat after midnight."]


def test_json_schema_is_valid_and_accepts_every_dialect():
    schema = profile_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    yaml = YAML(typ="safe", pure=True)
    for text in (CANONICAL, V1, TRACER):
        errors = list(validator.iter_errors(yaml.load(text)))
        assert errors == [], [e.message for e in errors]
    assert schema["properties"]["LLM"]["deprecated"] is True
    assert schema["properties"]["chatbot"]["properties"]["isStarter"]["deprecated"] is True


def test_validate_accepts_parsed_data_without_positions():
    yaml = YAML(typ="safe", pure=True)
    result = validate(yaml.load(CANONICAL))
    assert result.ok and result.profile is not None
