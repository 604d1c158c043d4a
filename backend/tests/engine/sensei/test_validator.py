"""Validator problems: what is wrong, where (line and column) and how to fix it."""

from __future__ import annotations

import time

from engine.sensei import CustomType, load_profile, validate

BASE = """\
test_name: checks
user:
  role: A customer
  goals:
    - "order {{size}} pizza"
    - size: {function: forward(), type: string, data: [small, large]}
chatbot:
  fallback: Sorry, what?
  output: []
conversation:
  number: 2
  goal_style: {steps: 3}
  interaction_style: [default]
"""


def _problems(text: str, **options):
    return validate(text, source="p.yml", **options).problems


def _codes(text: str, **options):
    return {p.code: p for p in _problems(text, **options)}


def test_a_clean_profile_has_no_problems():
    assert _problems(BASE) == []


def test_undefined_placeholder_points_at_the_goal_with_a_hint():
    problem = _codes(BASE.replace("order {{size}} pizza", "order {{sise}} pizza"))["undefined_placeholder"]
    assert problem.severity == "error"
    assert (problem.line, problem.column) == (5, 7)
    assert problem.hint == "Did you mean {{size}}?"
    assert problem.render().startswith("p.yml:5:7: error:")


def test_unused_variable_is_a_warning():
    text = BASE.replace(
        "    - size:", "    - colour: {function: forward(), type: string, data: [red]}\n    - size:"
    )
    problem = _codes(text)["unused_variable"]
    assert problem.severity == "warning" and problem.line == 6


def test_dependency_problems():
    cycle = BASE.replace(
        "    - size: {function: forward(), type: string, data: [small, large]}",
        "    - size: {function: forward(crust), type: string, data: [small, large]}\n"
        "    - crust: {function: forward(size), type: string, data: [thin]}",
    )
    assert "dependency_cycle" in _codes(cycle)
    not_forward = BASE.replace(
        "    - size: {function: forward(), type: string, data: [small, large]}",
        "    - size: {function: forward(crust), type: string, data: [small, large]}\n"
        "    - crust: {function: random(), type: string, data: [thin]}",
    )
    assert "bad_dependency" in _codes(not_forward)
    undeclared = BASE.replace("forward()", "forward(crust)")
    assert "undefined_dependency" in _codes(undeclared)
    assert "self_dependency" in _codes(BASE.replace("forward()", "forward(size)"))


def test_wrong_data_for_types_and_ranges():
    assert "wrong_data" in _codes(
        BASE.replace("type: string, data: [small, large]", "type: int, data: [1, 2.5]")
    )
    assert "wrong_data" in _codes(BASE.replace("data: [small, large]", "data: {min: 1, max: 3}"))
    assert "out_of_range" in _codes(
        BASE.replace("type: string, data: [small, large]", "type: int, data: {min: 5, max: 3}")
    )
    assert "wrong_data" in _codes(
        BASE.replace("type: string, data: [small, large]", "type: int, data: [1, any(3 numbers)]")
    )


def test_unknown_style_and_function_suggest_the_right_spelling():
    style = _codes(BASE.replace("[default]", "[long phrasess]"))["unknown_style"]
    assert style.hint == "Did you mean `long phrases`?"
    assert "unknown_function" in _codes(BASE.replace("forward()", "backward()"))
    assert "unknown_type" in _codes(BASE.replace("type: string", "type: colour"))


def test_impossible_combinations_and_lonely_pairwise():
    assert "impossible_combinations" in _codes(
        BASE.replace("number: 2", "number: combinations(0.5, pairwise)")
    )
    assert "lonely_pairwise" in _codes(BASE.replace("forward()", "pairwise()"))
    assert "no_combinations" in _codes(
        BASE.replace("forward()", "random()").replace("number: 2", "number: combinations")
    )


def test_custom_types_check_data_with_a_timeout():
    code = CustomType(name="code", description="a booking code", format=r"[A-Z]{3}\d{3}")
    text = BASE.replace("type: string, data: [small, large]", "type: code, data: [ABC123, abc]")
    problem = _codes(text, types=[code])["wrong_data"]
    assert "abc" in problem.message
    evil = CustomType(name="evil", description="catastrophic", format=r"(a|aa)+$")
    text = BASE.replace("type: string, data: [small, large]", "type: evil, data: [" + "a" * 40 + "!]")
    started = time.monotonic()
    assert "regex_timeout" in _codes(text, types=[evil])
    assert time.monotonic() - started < 5


def test_yaml_errors_have_positions_and_duplicates_are_refused():
    problems = _problems(BASE.replace("  role: A customer", "  role: [unclosed"))
    assert problems[0].code == "yaml_syntax" and problems[0].line is not None
    duplicate = BASE.replace("  number: 2\n", "  number: 2\n  number: 3\n")
    assert _problems(duplicate)[0].code == "yaml_syntax"


def test_missing_sections_are_errors():
    profile, problems = load_profile("test_name: x\n")
    assert profile is None
    assert {p.path for p in problems if p.code == "missing"} >= {"user", "chatbot", "conversation"}


def test_platform_message_for_speech_mode():
    profile, problems = load_profile(BASE.replace("user:\n", "llm: {format: {type: speech}}\nuser:\n", 1))
    assert profile is None
    assert any(p.code == "local_files_not_allowed" for p in problems)


def test_an_empty_mapping_among_the_goals_is_a_located_problem_not_a_crash():
    text = BASE.replace("    - size:", "    - {}\n    - size:")
    profile, problems = load_profile(text, source="p.yml")
    assert profile is None
    problem = next(p for p in problems if p.path == "user.goals.1")
    assert problem.severity == "error" and (problem.line, problem.column) == (6, 7)
    assert "empty mapping" in problem.message and problem.hint


def test_a_temperature_the_model_refuses_is_a_warning_that_says_what_will_be_sent():
    from engine.sensei import validate

    text = (
        "test_name: t\nllm: {model: gpt-5-mini, temperature: 0.3}\nuser:\n  language: English\n  role: r\n"
        "  context: [c]\n  goals: [order a pizza]\nchatbot: {is_starter: false, fallback: f}\n"
        "conversation: {number: 1, goal_style: {steps: 3}, interaction_style: [single question]}\n"
    )
    result = validate(text)
    warning = next(p for p in result.problems if p.code == "temperature_refused")
    assert warning.severity == "warning" and warning.line == 2
    assert "gpt-5-mini accepts only its default temperature" in warning.message
    assert "instead of 0.3" in warning.message
    accepted = validate(text.replace("gpt-5-mini", "gpt-4o-mini"))
    assert not [p for p in accepted.problems if p.code == "temperature_refused"]


def test_a_conversation_longer_than_the_limit_is_an_error_at_its_line():
    from engine.sensei import validate

    text = (
        "test_name: t\nuser:\n  language: English\n  role: r\n  context: [c]\n  goals: [order a pizza]\n"
        "chatbot: {is_starter: false, fallback: f}\n"
        "conversation:\n  number: 1\n  goal_style: {steps: 100000}\n  interaction_style: [single question]\n"
    )
    problem = next(p for p in validate(text).problems if p.code == "out_of_range")
    assert problem.severity == "error" and "at most 200 user turns" in problem.message and problem.line == 10
    assert not [p for p in validate(text.replace("100000", "200")).problems if p.is_error]
