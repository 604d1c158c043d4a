"""`parley connectors list | params | try`: output, --json, and exit codes 0 / 1 / 2.

cli.py lists its sub-commands in COMMANDS; these tests mount `commands.connectors` on a parser of their own so
they do not depend on that list."""

from __future__ import annotations

import argparse
import json

import pytest

from commands import connectors
from tests.doubles.connectors import FakeResponse, FakeServer, TaskytoProtocol
from tests.engine.connectors.conftest import echo


def run(*argv):
    parser = argparse.ArgumentParser(prog="parley")
    connectors.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["connectors", *argv])
    return args.handler(args)


@pytest.fixture
def taskyto(tmp_path):
    with FakeServer(TaskytoProtocol(echo)) as server:
        path = tmp_path / "bot.yaml"
        path.write_text(f"technology: taskyto\nbase_url: {server.base_url}\ntimeout: 2\n")
        server.file = path
        yield server


def test_list_names_every_technology(capsys):
    assert run("list") == 0
    out = capsys.readouterr().out
    assert "taskyto" in out
    assert "openai-chat" in out
    assert run("list", "--json") == 0
    assert {"name": "demo"}.items() <= json.loads(capsys.readouterr().out)[-1].items()


def test_params_shows_parameters_and_a_valid_example(capsys):
    assert run("params", "millionbot") == 0
    out = capsys.readouterr().out
    assert "api_key (string, required, secret)" in out
    assert "technology: millionbot" in out
    assert run("params", "http", "--json") == 0
    document = json.loads(capsys.readouterr().out)
    assert document["json_schema"]["required"] == ["base_url", "send_message"]


def test_params_of_an_unknown_technology_is_a_usage_error(capsys):
    assert run("params", "telepathy") == 2
    assert "not a known technology" in capsys.readouterr().err


def test_try_talks_to_the_bot_when_the_address_is_allowed(taskyto, monkeypatch, capsys):
    monkeypatch.setenv("PARLEY_EGRESS_ALLOW", "127.0.0.1")
    assert run("try", str(taskyto.file), "hello") == 0
    out = capsys.readouterr().out
    assert "user: hello" in out
    assert "bot: You said: hello" in out


def test_try_is_refused_for_a_local_bot_without_the_allowance(taskyto, monkeypatch, capsys):
    monkeypatch.delenv("PARLEY_EGRESS_ALLOW", raising=False)
    assert run("try", str(taskyto.file), "hello") == 2
    assert "loopback" in capsys.readouterr().err
    assert taskyto.requests == []


def test_try_reports_a_failing_bot_with_exit_1(taskyto, monkeypatch, capsys):
    monkeypatch.setenv("PARLEY_EGRESS_ALLOW", "127.0.0.1")
    taskyto.inject(FakeResponse.json({"error": "boom"}, 500), path_contains="/user_message")
    assert run("try", str(taskyto.file), "hello", "--json") == 1
    result = json.loads(capsys.readouterr().out)
    assert result["ok"] is False
    assert result["http_status"] == 500
    assert "boom" in result["error_message"]


@pytest.mark.parametrize(
    ("content", "said"),
    [("technology: taskyto\n", "base_url"), ("technology: [\n", "line 2"), (None, "cannot be read")],
)
def test_try_with_a_bad_file_is_exit_2_with_one_message(tmp_path, capsys, content, said):
    path = tmp_path / "bad.yaml"
    if content is not None:
        path.write_text(content)
    assert run("try", str(path), "hello") == 2
    err = capsys.readouterr().err
    assert said in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_malformed_egress_allowance_is_a_usage_error(taskyto, monkeypatch, capsys):
    monkeypatch.setenv("PARLEY_EGRESS_ALLOW", "10.0.0.0/99")
    assert run("try", str(taskyto.file), "hello") == 2
    assert "PARLEY_EGRESS_ALLOW" in capsys.readouterr().err
