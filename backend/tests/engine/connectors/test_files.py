"""Connector files: load with line/column messages, reference YAML compatibility, export without secrets."""

from __future__ import annotations

import pytest

from engine.connectors import (
    ConnectorConfig,
    ConnectorConfigError,
    dump_connector_yaml,
    load_connector_file,
    parse_connector_yaml,
)

REFERENCE_STYLE = """\
technology: http
name: Echo bot
base_url: https://postman-echo.example/
timeout: 30
send_message:
  path: /post
  method: post
  headers:
    Content-Type: application/json
  payload_template:
    message: "{user_msg}"
response_path: json.message
"""


def test_a_file_in_the_reference_custom_yaml_shape_loads():
    config = parse_connector_yaml(REFERENCE_STYLE)
    assert config.technology == "http"
    assert config.params["send_message"]["payload_template"] == {"message": "{user_msg}"}


def test_a_taskyto_file_and_its_export_round_trip(tmp_path):
    path = tmp_path / "taskyto.yaml"
    path.write_text("technology: taskyto\nbase_url: http://127.0.0.1:5000\n")
    config = load_connector_file(path)
    assert config == ConnectorConfig(technology="taskyto", params={"base_url": "http://127.0.0.1:5000"})
    assert parse_connector_yaml(dump_connector_yaml(config)) == config


def test_export_leaves_secrets_out_unless_asked():
    config = ConnectorConfig(
        technology="openai-chat",
        params={"base_url": "https://llm.example/v1", "model": "m", "api_key": "sk-123"},
    )
    exported = dump_connector_yaml(config)
    assert "sk-123" not in exported
    assert "Secret parameters not exported: api_key" in exported
    assert "sk-123" in dump_connector_yaml(config, include_secrets=True)


@pytest.mark.parametrize(
    ("text", "expected", "line"),
    [
        ("technology: taskyto\nbase_url: [unclosed\n", "line 3", 3),
        ("technology: taskyto\nbase_url: http://a\nbase_url: http://b\n", "duplicate key", 3),
        ("- just\n- a list\n", "expected a mapping", None),
        ("base_url: http://a\n", "technology: missing", 1),
        ("technology: telepathy\nbase_url: http://a\n", "'telepathy' is not a known technology", 1),
        ("technology: taskyto\ntimeout: 5\n", "base_url: required by technology 'taskyto' but missing", 1),
        ("technology: taskyto\nbase_url: http://a\nbase_ulr: http://b\n", "did you mean 'base_url'", 3),
        ("technology: taskyto\nbase_url: ftp://a\n", "must be an http:// or https:// URL", 2),
        (
            "technology: http\nbase_url: http://a\nsend_message:\n  path: /x\n  method: DELETE\nresponse_path: r\n",
            "send_message.method",
            5,
        ),
        (
            "technology: http\nbase_url: http://a\nsend_message:\n  path: /x\nresponse_path: r\n",
            "must contain {user_msg}",
            None,
        ),
        (
            "technology: http\nbase_url: http://a\nsend_message:\n  payload_template: {q: '{user_msg}'}\n",
            "exactly one of response_path",
            None,
        ),
        (
            (
                "technology: http\nbase_url: http://a\nsend_message:\n  payload_template: {q: '{user_msg}'}\n"
                "response_path: a..b\n"
            ),
            "empty segment",
            5,
        ),
    ],
)
def test_bad_files_give_one_clear_message_with_a_position(text, expected, line):
    with pytest.raises(ConnectorConfigError) as bad:
        parse_connector_yaml(text, source="bot.yaml")
    message = bad.value.user_message
    assert message.startswith("bot.yaml: ")
    assert expected in message
    assert "Traceback" not in message
    if line is not None:
        assert bad.value.line == line
        assert f"line {line}" in message


def test_an_unreadable_file_is_named(tmp_path):
    with pytest.raises(ConnectorConfigError, match=r"missing\.yaml: cannot be read"):
        load_connector_file(tmp_path / "missing.yaml")
