"""`parley transcripts import` and `parley transcripts rules` as a user runs them."""

from __future__ import annotations

import json

import cli


def test_import_prints_the_summary_and_exits_0(planted_source, tmp_path, capsys):
    fmt, source = planted_source
    out = tmp_path / "out"
    assert cli.main(["transcripts", "import", str(source), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"({fmt}): 2 conversations" in printed
    assert "masked: card 2, email" in printed
    assert "parley transcripts rules" in printed
    assert (out / "conversations.jsonl").is_file() and (out / "summary.json").is_file()
    assert not list(out.glob("*.partial"))


def test_problems_are_printed_with_their_lines(tmp_path, capsys):
    source = tmp_path / "chats.jsonl"
    source.write_text('{"turns": [{"role": "user", "text": "hi"}]}\nnot json\n')
    assert (
        cli.main(["transcripts", "import", str(source), "--out", str(tmp_path / "out"), "--format", "jsonl"])
        == 0
    )
    printed = capsys.readouterr().out
    assert "1 errors (records skipped)" in printed
    assert "line 2: error: not JSON" in printed


def test_json_output_is_the_summary(tmp_path, capsys):
    source = tmp_path / "chats.jsonl"
    source.write_text('{"turns": [{"role": "user", "text": "mail me: a@b.co"}]}\n')
    assert cli.main(["transcripts", "import", str(source), "--out", str(tmp_path / "o"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["conversations"] == 1 and summary["masked"] == {"email": 1}


def test_unusable_input_exits_2_with_a_reason(tmp_path, capsys):
    assert (
        cli.main(["transcripts", "import", str(tmp_path / "missing.csv"), "--out", str(tmp_path / "o")]) == 2
    )
    assert "does not exist" in capsys.readouterr().err
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("not json\nnor this\n")
    assert cli.main(["transcripts", "import", str(garbage), "--out", str(tmp_path / "o")]) == 2
    captured = capsys.readouterr()
    assert "line 1: error: not JSON" in captured.out
    assert "no conversation could be imported" in captured.err
    bad_header = tmp_path / "x.csv"
    bad_header.write_text("a,b,c\n1,2,3\n")
    assert cli.main(["transcripts", "import", str(bad_header), "--out", str(tmp_path / "o")]) == 2
    assert "no conversation or role or text column" in capsys.readouterr().err
    assert (
        cli.main(
            ["transcripts", "import", str(bad_header), "--out", str(tmp_path / "o"), "--encoding", "nope"]
        )
        == 2
    )


def test_rules_lists_every_kind_with_examples(capsys):
    assert cli.main(["transcripts", "rules"]) == 0
    printed = capsys.readouterr().out
    for placeholder in ("[EMAIL_n]", "[PHONE_n]", "[CARD_n]", "[IBAN_n]", "[NAME_n]"):
        assert placeholder in printed
    assert "kept:   I'm looking for a pizza" in printed
    assert cli.main(["transcripts", "rules", "--json"]) == 0
    rules = json.loads(capsys.readouterr().out)
    assert [r["kind"] for r in rules] == ["email", "phone", "card", "iban", "name"]


def test_an_unreadable_source_exits_2(tmp_path, capsys, monkeypatch):
    source = tmp_path / "chats.jsonl"
    source.write_text('{"turns": [{"role": "user", "text": "hi"}]}\n')

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("engine.transcripts.reading.Path.open", refuse)
    assert (
        cli.main(["transcripts", "import", str(source), "--out", str(tmp_path / "o"), "--format", "jsonl"])
        == 2
    )
    assert "Permission denied" in capsys.readouterr().err
