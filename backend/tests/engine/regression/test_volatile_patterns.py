"""The caller's volatile patterns in replay (README D24): they come before the built-in ones, a slow one gives up
instead of hanging, and in the CLI a connector file's `volatile` list lets a re-test of a chatbot that changes a word in
every conversation make no LLM call (and without it, the same re-test pays)."""

from __future__ import annotations

import argparse
import re
import time

from commands import sensei as sensei_command
from engine.llm.offline.server import running_fake_server
from engine.regression.replay import Normaliser
from engine.sensei.simulator import TAG_EXTRACT, TAG_USER_TURN
from tests.doubles.connectors import FakeServer, TaskytoProtocol
from tests.engine.regression.test_replay import PROFILE


def test_the_callers_patterns_come_first_then_the_built_in_ones_in_text_order():
    normalise = Normaliser([r"table [a-z]+", r"\bT\d+\b"])
    text, values = normalise("Order 3FA9C1: table kiwi at 18:30, slot T7 and table mango, id 550e8400")
    assert text == "Order <id>: <custom> at <time>, slot <custom> and <custom>, id <id>"
    assert values == ["3FA9C1", "table kiwi", "18:30", "T7", "table mango", "550e8400"]
    # The same text normalises alike whatever the values, so two conversations pair up value by value.
    assert normalise("Order 7BC2D0: table plum at 19:00, slot T9 and table fig, id 660e8411")[0] == text


def test_a_custom_pattern_never_matches_empty_text_and_a_catastrophic_one_gives_up():
    text, values = Normaliser([r"kiwi|\b"])("a kiwi and a plum")
    assert (text, values) == (
        "a <custom> and a plum",
        ["kiwi"],
    )  # its empty matches (at word edges) are skipped

    evil = Normaliser([r"(a|aa)+$"])
    started = time.monotonic()
    text, values = evil("a" * 40 + "! order 3FA9C1")
    assert time.monotonic() - started < 5
    assert text.endswith("! order <id>") and values == ["3FA9C1"]  # the built-in ones still apply


def test_a_connector_files_volatile_patterns_make_a_changed_word_no_reason_to_call_the_llm(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("PARLEY_EGRESS_ALLOW", "127.0.0.1")
    (tmp_path / "profile.yml").write_text(PROFILE.replace("hours", "volatile_hours"))
    table = {"word": "kiwi"}  # a word the chatbot picks anew for every run: no built-in pattern sees it
    parser = argparse.ArgumentParser(prog="parley")
    sensei_command.register(parser.add_subparsers(dest="command"))
    script = {
        TAG_USER_TURN: ["When do you open on monday?", "Thanks!"],
        TAG_EXTRACT: {"json": {"opening": "09:00"}},
    }

    def cli(connector: str, out: str, *extra: str) -> int:
        argv = [
            "sensei", "run", str(tmp_path / "profile.yml"), "--connector", str(tmp_path / connector),
            "--provider", "openai-compatible", "--base-url", llm.base_url, "--api-key", "k",
            "--model", "gpt-4o-mini", "--concurrency", "1", "--seed", "3", "--out", str(tmp_path / out), *extra,
        ]  # fmt: skip
        args = parser.parse_args(argv)
        return int(args.handler(args))

    def replay_made(connector: str) -> tuple[int, int]:
        """LLM calls a replay made after the chatbot changed its word, and requests that reached the model."""
        table["word"] = "kiwi"
        cli(connector, f"{connector}-first")
        before = len(llm.chat_requests())
        table["word"] = "mango"
        capsys.readouterr()
        cli(connector, f"{connector}-again", "--replay", str(tmp_path / f"{connector}-first"))
        said = re.search(r"LLM call\(s\) saved, (\d+) made", capsys.readouterr().out)
        assert said is not None
        made = int(said.group(1))
        return made, len(llm.chat_requests()) - before

    def reply(session: str, text: str) -> str:
        return f"We open at 9am. Your table is {table['word']}."

    with FakeServer(TaskytoProtocol(reply)) as bot, running_fake_server(script) as llm:
        plain = f"technology: taskyto\nbase_url: {bot.base_url}\ntimeout: 5\n"
        (tmp_path / "plain.yml").write_text(plain)
        (tmp_path / "marked.yml").write_text(plain + "volatile:\n  - '(?<=table is )[a-z]+'\n")
        assert replay_made("marked.yml") == (0, 0)
        made, reached = replay_made("plain.yml")
    assert made > 0 and reached == made  # without the pattern, the changed word sends the run to the LLM

    (tmp_path / "broken.yml").write_text(plain + "volatile: ['table (']\n")
    assert cli("broken.yml", "broken") == 2
    assert "pattern 1 `table (`: not a valid regular expression" in capsys.readouterr().err
