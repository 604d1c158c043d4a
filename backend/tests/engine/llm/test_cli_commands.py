"""`parley llm models` and the CLI conventions shared by LLM commands (commands/common.py)."""

from __future__ import annotations

import argparse
import json
import xml.etree.ElementTree as ET

import pytest

import cli
from commands import common
from engine.llm.offline.server import DEFAULT_MODELS
from tests.engine.llm.conftest import FAKE_KEY


@pytest.fixture
def parley(monkeypatch):
    # cli.COMMANDS gains "llm" when the command is wired; until then add it for the test.
    monkeypatch.setattr(cli, "COMMANDS", tuple(dict.fromkeys((*cli.COMMANDS, "llm"))))
    for variable in ("PARLEY_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "PARLEY_EGRESS_ALLOW"):
        monkeypatch.delenv(variable, raising=False)
    return cli.main


def test_models_are_listed_one_per_line(parley, fake_llm, monkeypatch, capsys):
    monkeypatch.setenv("PARLEY_EGRESS_ALLOW", "127.0.0.1")
    monkeypatch.setenv("PARLEY_API_KEY", FAKE_KEY)
    assert parley(["llm", "models", "--provider", "openai-compatible", "--base-url", fake_llm.base_url]) == 0
    assert capsys.readouterr().out.splitlines() == sorted(DEFAULT_MODELS)


def test_models_as_json_to_stdout_or_to_a_file(parley, fake_llm, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("PARLEY_EGRESS_ALLOW", "127.0.0.1")
    args = [
        "llm",
        "models",
        "--provider",
        "openai-compatible",
        "--base-url",
        fake_llm.base_url,
        "--api-key",
        FAKE_KEY,
    ]
    assert parley([*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["source"] == "live"
    target = tmp_path / "models.json"
    assert parley([*args, "--json", str(target)]) == 0
    assert json.loads(target.read_text())["models"] == sorted(DEFAULT_MODELS)
    assert capsys.readouterr().out == ""


def test_a_refused_address_or_a_rejected_key_is_a_configuration_error(parley, fake_llm, capsys, monkeypatch):
    args = ["llm", "models", "--provider", "openai-compatible", "--base-url", fake_llm.base_url]
    assert parley([*args, "--api-key", FAKE_KEY]) == common.EXIT_USAGE
    assert "PARLEY_EGRESS_ALLOW" in capsys.readouterr().err
    monkeypatch.setenv("PARLEY_EGRESS_ALLOW", "127.0.0.1")
    assert parley([*args, "--api-key", "sk-wrong-0000000000"]) == common.EXIT_USAGE
    assert "API key was rejected" in capsys.readouterr().err


def test_a_missing_key_is_a_configuration_error(parley, capsys):
    assert parley(["llm", "models", "--provider", "openai"]) == common.EXIT_USAGE
    assert "No API key" in capsys.readouterr().err


def test_the_key_comes_from_the_argument_then_parley_then_the_provider_variable():
    env = {"PARLEY_API_KEY": "p", "OPENAI_API_KEY": "o", "GEMINI_API_KEY": "g"}
    assert common.resolve_api_key("openai", "given", env) == "given"
    assert common.resolve_api_key("openai", None, env) == "p"
    assert common.resolve_api_key("gemini", None, {"GEMINI_API_KEY": "g", "OPENAI_API_KEY": "o"}) == "g"
    assert common.resolve_api_key("openai", None, {"OPENAI_API_KEY": "o"}) == "o"
    # An arbitrary server never receives the user's OpenAI key by accident.
    assert common.resolve_api_key("openai-compatible", None, {"OPENAI_API_KEY": "o"}) == ""


def test_llm_arguments_build_a_provider_config():
    parser = argparse.ArgumentParser()
    common.add_llm_arguments(parser)
    args = parser.parse_args(["--provider", "gemini", "--model", "gemini-2.0-flash"])
    config = common.provider_config_from_args(args, {"GEMINI_API_KEY": "g-key"})
    assert (config.provider, config.model_name, config.api_key) == ("gemini", "gemini-2.0-flash", "g-key")
    assert config.url == "https://generativelanguage.googleapis.com/v1beta/openai"


def test_a_malformed_egress_allow_list_is_a_configuration_error():
    with pytest.raises(common.LLMConfigError, match="neither a host name nor a CIDR"):
        common.egress_guard_from_env({"PARLEY_EGRESS_ALLOW": "10.0.0.0/33"})


def test_the_junit_report_counts_failures_and_keeps_messages(tmp_path):
    target = tmp_path / "report.xml"
    cases = [
        common.JUnitCase("greets", "rules", 0.5),
        common.JUnitCase("books", "rules", 1.0, failure="expected a date\nsaw none"),
        common.JUnitCase("pays", "rules", skipped="not reached"),
    ]
    common.write_junit(str(target), "parley check", cases)
    suite = ET.parse(target).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "1", "1")
    failure = suite.findall("testcase")[1].find("failure")
    assert failure.get("message") == "expected a date"
    assert failure.text == "expected a date\nsaw none"
