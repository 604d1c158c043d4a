"""User YAML is refused before parsing when it is oversized, too deep in values, or uses aliases."""

import pytest

from engine.yamlguard import YAMLLimits, YAMLRefused, guard_yaml


def test_ordinary_documents_pass():
    guard_yaml("name: pizza\ngoals:\n  - order a {{size}} pizza\n")


def test_anchors_and_aliases_are_refused_with_their_position():
    bomb = 'a: &a ["x", "x"]\nb: [*a, *a]\n'
    with pytest.raises(YAMLRefused) as refused:
        guard_yaml(bomb)
    assert "anchors and aliases" in refused.value.user_message
    assert refused.value.line == 1


def test_too_many_nodes_are_refused():
    text = "\n".join(f"k{i}: {i}" for i in range(60))
    with pytest.raises(YAMLRefused, match="more than 100 values"):
        guard_yaml(text, YAMLLimits(max_nodes=100))


def test_too_many_bytes_are_refused():
    with pytest.raises(YAMLRefused, match="at most 10 are accepted"):
        guard_yaml("name: a long name\n", YAMLLimits(max_bytes=10))


def test_syntax_errors_are_left_to_the_real_parser():
    guard_yaml("name: [unclosed\n")
