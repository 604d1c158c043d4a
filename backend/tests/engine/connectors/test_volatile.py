"""A connector's volatile patterns (README D24): the `volatile` key of a connector file, checked with a position."""

from __future__ import annotations

import pytest

from engine.connectors import ConnectorConfigError, dump_connector_yaml, parse_connector_yaml
from engine.connectors.volatile import MAX_PATTERN_LENGTH, MAX_PATTERNS, check_volatile

FILE = """\
technology: taskyto
base_url: http://127.0.0.1:5000
volatile:
  - 'table [a-z]+'
  - 'TKT-\\d+'
"""


def test_a_file_s_volatile_patterns_are_not_parameters_and_survive_an_export():
    config = parse_connector_yaml(FILE)
    assert config.volatile == ["table [a-z]+", r"TKT-\d+"]
    assert "volatile" not in config.params  # the technology never sees them
    again = parse_connector_yaml(dump_connector_yaml(config))
    assert again == config
    assert "volatile" not in dump_connector_yaml(parse_connector_yaml(FILE.split("volatile")[0]))


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("'TKT-(\\d+'", "pattern 2 `TKT-(\\d+`: not a valid regular expression"),
        ("'x*'", "pattern 2 `x*`: matches empty text"),
        ("''", "pattern 2 ``: write a regular expression"),
        (f"'{'a' * (MAX_PATTERN_LENGTH + 1)}'", f"longer than {MAX_PATTERN_LENGTH} characters"),
    ],
)
def test_a_bad_pattern_is_named_with_its_line(pattern, message):
    text = FILE.replace("'TKT-\\d+'", pattern)
    with pytest.raises(ConnectorConfigError) as caught:
        parse_connector_yaml(text, source="bot.yml")
    assert message in caught.value.user_message
    assert caught.value.user_message.startswith("bot.yml: line 5, column 5:")
    assert (caught.value.field, caught.value.line) == ("volatile.1", 5)


def test_volatile_must_be_a_bounded_list_of_strings():
    with pytest.raises(ConnectorConfigError, match="list of regular expressions") as caught:
        parse_connector_yaml("technology: taskyto\nbase_url: http://127.0.0.1:5000\nvolatile: 'TKT-1'\n")
    assert caught.value.line == 3
    with pytest.raises(ConnectorConfigError, match=f"at most {MAX_PATTERNS}"):
        check_volatile([f"id{i}-[0-9]+" for i in range(MAX_PATTERNS + 1)])
    assert check_volatile(None) == [] and check_volatile([r"\bT\d+"]) == [r"\bT\d+"]
