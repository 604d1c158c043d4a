"""User YAML is refused before parsing when it is oversized, too deep, or expands (aliases included) to too much."""

import time

import pytest

from engine.connectors import ConnectorConfigError, parse_connector_yaml
from engine.sensei.yamlpos import parse_yaml
from engine.yamlguard import YAMLLimits, YAMLRefused, guard_yaml, load_yaml


def billion_laughs(levels: int = 9) -> str:
    """Each level repeats the previous one ten times: 10**levels values from a few hundred bytes."""
    lines = ["technology: http", 'l0: &l0 "lol"']
    for level in range(1, levels + 1):
        previous = ", ".join([f"*l{level - 1}"] * 10)
        lines.append(f"l{level}: &l{level} [{previous}]")
    return "\n".join(lines) + "\n"


def test_ordinary_documents_pass():
    guard_yaml("name: pizza\ngoals:\n  - order a {{size}} pizza\n")


def test_anchors_for_shared_blocks_are_accepted_and_expand():
    text = "base: &base {url: https://bot.example/chat, timeout: 5}\nfirst: *base\nsecond: *base\n"
    data = load_yaml(text, round_trip=False)
    assert data["second"] == {"url": "https://bot.example/chat", "timeout": 5}


def test_an_alias_bomb_is_refused_at_the_line_where_it_crosses_the_limit():
    bomb = billion_laughs()
    assert len(bomb.encode()) < 600
    started = time.perf_counter()
    with pytest.raises(YAMLRefused) as refused:
        guard_yaml(bomb)
    assert time.perf_counter() - started < 1
    assert "more than 10,000 values" in refused.value.user_message
    assert refused.value.line == 6  # l4 = 10,000 lol: the first level past the limit


def test_a_connector_file_with_an_alias_bomb_is_a_located_config_error():
    with pytest.raises(ConnectorConfigError) as refused:
        parse_connector_yaml(billion_laughs(), source="bot.yaml")
    assert refused.value.line == 6
    assert "bot.yaml: line 6" in refused.value.user_message


def test_deep_nesting_is_refused_before_the_parser_recurses():
    deep = "a: " + "[" * 4000 + "]" * 4000 + "\n"
    with pytest.raises(YAMLRefused, match="more than 64 levels deep"):
        guard_yaml(deep)
    _, _, problems = parse_yaml(deep)
    assert [p.code for p in problems] == ["yaml_refused"]


def test_too_many_aliases_are_refused():
    text = "a: &a 1\nb: [" + ", ".join(["*a"] * 300) + "]\n"
    with pytest.raises(YAMLRefused, match="more than 200 aliases"):
        guard_yaml(text)


def test_too_many_nodes_are_refused():
    text = "\n".join(f"k{i}: {i}" for i in range(60))
    with pytest.raises(YAMLRefused, match="more than 100 values"):
        guard_yaml(text, YAMLLimits(max_nodes=100))


def test_too_many_bytes_are_refused():
    with pytest.raises(YAMLRefused, match="at most 10 are accepted"):
        guard_yaml("name: a long name\n", YAMLLimits(max_bytes=10))


def test_syntax_errors_are_left_to_the_real_parser():
    guard_yaml("name: [unclosed\n")


def test_a_rule_file_with_an_alias_bomb_is_a_located_rule_error():
    from engine.check import RuleError, parse_rule

    with pytest.raises(RuleError) as refused:
        parse_rule(billion_laughs(), file="bomb.yaml")
    assert refused.value.line == 6
