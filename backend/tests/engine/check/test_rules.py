"""Rule files: validation with file:line:column messages and hints, aliases, loading folders, JSON Schema."""

from __future__ import annotations

import jsonschema
import pytest

from engine.check import RuleError, RuleSetError, load_rules, parse_rule, rule_json_schema


def error_of(text: str) -> RuleError:
    with pytest.raises(RuleError) as caught:
        parse_rule(text, file="f.yml")
    return caught.value


def test_a_refused_expression_points_at_its_line_and_column():
    error = error_of("name: r\ndescription: d\nthen: size == 1 and x.__class__\n")
    assert (error.file, error.line, error.column) == ("f.yml", 3, 21)
    assert "attributes starting with '_'" in error.user_message and error.hint


def test_positions_inside_quoted_and_block_values():
    assert error_of('name: r\ndescription: d\nthen: "size and x._y"\n').column == 17
    block = error_of("name: r\ndescription: d\nthen: |\n  a = 1\n  a + __import__('os')\n")
    assert (block.line, block.column) == (5, 7)


def test_syntax_errors_and_yaml_errors_have_positions():
    assert error_of("name: r\ndescription: d\nwhen: size ==\nthen: True\n").line == 3
    yaml_error = error_of("name: r\ndescription: d\nthen: a: b\n")
    assert (yaml_error.line, yaml_error.column) == (3, 8)
    assert "quote" in yaml_error.hint


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("name: r\ndescription: d\nthem: True\n", "did you mean 'then'?"),
        ("name: r\nthen: True\n", "missing required key 'description'"),
        ("description: d\nthen: True\n", "missing required key 'name'"),
        ("name: r\ndescription: d\n", "missing 'then' (or 'oracle')"),
        ("name: r\ndescription: d\nthen: True\noracle: True\n", "either 'then' or 'oracle'"),
        ("name: r\ndescription: d\nthen: True\non-error: a\nyields: b\n", "either 'on-error' or 'yields'"),
        ("name: r\ndescription: d\nconversations: 0\nthen: True\n", "from 1 to 10 or 'all'"),
        ("name: r\ndescription: d\nconversations: some\nthen: True\n", "from 1 to 10 or 'all'"),
        ("name: r\ndescription: d\nactive: maybe\nthen: True\n", "'active' must be true or false"),
        ("name: r\ndescription: d\nordered: true\nthen: True\n", "only applies to rules over 2"),
        ("- name: r\n", "must be a mapping"),
        ("name: r\ndescription: d\nthen: '(lambda x: x)(1)'\n", "lambda"),
    ],
)
def test_invalid_rules_are_explained(text, expected):
    assert expected in error_of(text).user_message


def test_aliases_and_defaults():
    rule = parse_rule("name: r\ndescription: d\noracle: True\nyields: f'{1}'\n")
    assert (rule.then, rule.on_error, rule.conversations, rule.active, rule.kind) == (
        "True",
        "f'{1}'",
        1,
        True,
        "single",
    )
    assert parse_rule("name: r\ndescription: d\nconversations: ALL\nthen: True\n").kind == "global"
    text_message = parse_rule("name: r\ndescription: d\nthen: True\non-error: The price is missing\n")
    assert text_message.on_error_is_text


def test_unordered_relations_with_an_if_get_a_warning():
    rule = parse_rule("name: r\ndescription: d\nconversations: 2\nif: conv[0].a > conv[1].a\nthen: True\n")
    assert "ordered: true" in rule.warnings[0]


def test_loading_a_folder_skips_reports_and_inactive_rules_and_reports_all_errors(tmp_path):
    (tmp_path / "a.yml").write_text("name: a\ndescription: d\nthen: True\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.yaml").write_text("name: b\ndescription: d\nactive: false\nthen: True\n")
    (tmp_path / "__report__").mkdir()
    (tmp_path / "__report__" / "r.yml").write_text("not: a rule\n")
    assert [r.name for r in load_rules(tmp_path)] == ["a"]
    assert [r.name for r in load_rules(tmp_path, include_inactive=True)] == ["a", "b"]
    (tmp_path / "c.yml").write_text("name: c\ndescription: d\nthen: x.__class__\n")
    (tmp_path / "d.yml").write_text("name: a\ndescription: d\nthen: True\n")
    with pytest.raises(RuleSetError) as caught:
        load_rules(tmp_path)
    messages = [error.user_message for error in caught.value.errors]
    assert any("c.yml:3:7" in m and "__class__" in m for m in messages)
    assert any("already used" in m for m in messages)


def test_open_is_refused_at_run_time_not_load_time_but_never_callable():
    # `open` is just an unknown name: the rule loads, and its check is an error.
    from tests.engine.check.conftest import conversation, run

    rule = parse_rule("name: r\ndescription: d\nthen: open('/etc/passwd')\n")
    [report] = run(rule, [conversation("c")]).rules
    assert report.errors == 1 and "unknown name 'open'" in report.results[0].reason


def test_json_schema_accepts_valid_rules_and_rejects_invalid_ones():
    schema = rule_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid(
        {"name": "r", "description": "d", "conversations": "all", "oracle": "is_unique('x')"}
    )
    assert validator.is_valid(
        {"name": "r", "description": "d", "conversations": 2, "ordered": True, "then": "True"}
    )
    assert not validator.is_valid({"name": "r", "description": "d"})
    assert not validator.is_valid({"name": "r", "description": "d", "then": "1", "oracle": "1"})
    assert not validator.is_valid({"name": "r", "description": "d", "then": "1", "colour": "red"})
