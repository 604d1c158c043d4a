"""Hostile and broken input: every case is a problem of its own line with a message that says what to do, the
good records around it are imported, and nothing raises."""

from __future__ import annotations

import json
import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.transcripts import Conversation, TranscriptError, import_transcripts


def _good(text: str = "hello") -> bytes:
    return (
        json.dumps({"turns": [{"role": "user", "text": text}, {"role": "bot", "text": "hi"}]}) + "\n"
    ).encode()


def _texts(out):
    return [
        [t["text"] for t in json.loads(line)["turns"]]
        for line in (out / "conversations.jsonl").read_text(encoding="utf-8").splitlines()
    ]


def _import(tmp_path, content: bytes, name="in.jsonl", **kwargs):
    source = tmp_path / name
    source.write_bytes(content)
    return import_transcripts(source, tmp_path / "out", **kwargs)


def test_nul_bytes_and_control_characters_are_removed_with_a_warning(tmp_path):
    raw = b'{"turns": [{"role": "user", "text": "piz\x00za\x07"}]}\n'
    escaped = b'{"turns": [{"role": "user", "text": "one\\u0000two"}]}\n'
    summary = _import(tmp_path, _good() + raw + escaped)
    assert _texts(tmp_path / "out") == [["hello", "hi"], ["pizza"], ["onetwo"]]
    assert [(p.line, p.severity) for p in summary.problems] == [(2, "warning"), (3, "warning")]
    assert "NUL" in summary.problems[0].message


def test_lone_surrogates_are_replaced_and_the_record_kept(tmp_path):
    summary = _import(tmp_path, b'{"turns": [{"role": "user", "text": "a\\ud800b"}]}\n' + _good())
    assert _texts(tmp_path / "out") == [["a\ufffdb"], ["hello", "hi"]]
    assert summary.problems[0].line == 1 and "surrogate" in summary.problems[0].message
    # what is written is valid UTF-8 that any reader (PostgreSQL, an LLM API) accepts
    (tmp_path / "out" / "conversations.jsonl").read_bytes().decode("utf-8")


def test_a_line_in_another_encoding_names_the_byte_and_the_fix(tmp_path):
    latin = '{"turns": [{"role": "user", "text": "café crème"}]}\n'.encode("latin-1")
    summary = _import(tmp_path, _good() + latin + _good("after"))
    assert _texts(tmp_path / "out") == [["hello", "hi"], ["after", "hi"]]
    (problem,) = summary.problems
    assert problem.line == 2 and problem.severity == "error"
    assert "not valid UTF-8 (byte 0xE9 at column 41)" in problem.message and "--encoding" in problem.message
    again = import_transcripts(tmp_path / "in.jsonl", tmp_path / "again", encoding="cp1252")
    assert again.problems == [] and again.conversations == 3


def test_utf16_with_a_byte_order_mark_is_read_as_utf16(tmp_path):
    text = "conversation_id,role,text\n1,user,¿Tenéis pizza?\n1,bot,Sí\n"
    summary = _import(tmp_path, text.encode("utf-16"), name="excel.csv")
    assert summary.problems == []
    assert _texts(tmp_path / "out") == [["¿Tenéis pizza?", "Sí"]]


def test_a_megabyte_line_is_skipped_without_being_held(tmp_path):
    huge = b'{"turns": [{"role": "user", "text": "' + b"x" * (3 * 1024 * 1024) + b'"}]}\n'
    summary = _import(tmp_path, _good("before") + huge + _good("after"))
    assert _texts(tmp_path / "out") == [["before", "hi"], ["after", "hi"]]
    assert [(p.line, p.severity) for p in summary.problems] == [(2, "error")]
    assert "longer than 2,097,152 characters" in summary.problems[0].message


def test_deep_nesting_is_refused_at_its_line(tmp_path):
    deep = b"[" * 200_000 + b"]" * 200_000 + b"\n"
    nested = b'{"turns": ' + b"[" * 50 + b"]" * 50 + b"}\n"
    summary = _import(tmp_path, deep + nested + _good())
    assert _texts(tmp_path / "out") == [["hello", "hi"]]
    assert [(p.line, p.severity) for p in summary.problems] == [(1, "error"), (2, "warning"), (2, "error")]
    assert "nested too deep" in summary.problems[0].message


def test_an_unterminated_csv_quote_is_a_problem_at_the_row_where_it_starts(tmp_path):
    text = 'id,role,text\n1,user,hi\n1,bot,"bad"quote\n1,bot,hello\n1,bot,"never closed\n2,user,lost in the quote\n'
    summary = _import(tmp_path, text.encode(), name="broken.csv")
    assert _texts(tmp_path / "out") == [["hi", "hello"]]
    assert [(p.line, p.severity) for p in summary.problems] == [(3, "error"), (5, "error")]
    assert "never closed" in summary.problems[1].message


def test_random_bytes_give_problems_and_no_conversation(tmp_path):
    rng = random.Random(38)
    garbage = bytes(rng.randrange(256) for _ in range(200_000))
    summary = _import(tmp_path, garbage, name="garbage.jsonl")
    assert summary.conversations == 0
    assert summary.errors > 0
    assert all(p.line >= 1 for p in summary.problems)


@pytest.mark.parametrize("name", ["empty.jsonl", "empty.csv"])
def test_an_empty_file_is_unusable(tmp_path, name):
    with pytest.raises(TranscriptError):
        _import(tmp_path, b"\n\n", name=name)


def test_problems_never_quote_personal_data(tmp_path):
    bad = b'{"turns": [{"role": "ana@example.com", "text": "x"}]}\n'
    summary = _import(tmp_path, bad + _good())
    assert "ana@example.com" not in (tmp_path / "out" / "summary.json").read_text()
    assert "[EMAIL_1]" in summary.problems[0].message


def test_a_missing_file_is_unusable(tmp_path):
    with pytest.raises(TranscriptError, match="does not exist"):
        import_transcripts(tmp_path / "nope.jsonl", tmp_path / "out")
    assert not os.path.exists(tmp_path / "out")


def test_a_line_of_sixty_thousand_turns_keeps_the_first_five_thousand(tmp_path):
    many = json.dumps({"turns": [{"role": "user", "text": "a"}] * 60_000}).encode() + b"\n"
    summary = _import(tmp_path, many + _good())
    assert [len(t) for t in _texts(tmp_path / "out")] == [5000, 2]
    assert summary.problems[0].line == 1 and "the first 5,000 are kept" in summary.problems[0].message


_PIECES = [
    b'{"turns": [',
    b'{"role": "user", "text": "',
    b'"}',
    b"]}",
    b"\n",
    b"\x00",
    b"\xff\xfe",
    b"\xe9",
    b"\\ud800",
    b'"',
    b",",
    b";",
    b"#me\n",
    b"#bot\n",
    b"id,role,text\n",
    b'{"event": "user", "sender_id": "',
    b"[",
    b"{",
    b"ana@example.com",
    b"4111 1111 1111 1111",
    b"\r",
    b"\t",
    b"my name is ",
    b"x" * 50,
]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=st.lists(st.sampled_from(_PIECES) | st.binary(max_size=20), max_size=60),
    fmt=st.sampled_from(["auto", "jsonl", "csv", "rasa", "botium"]),
)
def test_no_input_makes_the_import_crash(tmp_path_factory, data, fmt):
    folder = tmp_path_factory.mktemp("fuzz")
    source = folder / "input.txt"
    source.write_bytes(b"".join(data))
    try:
        summary = import_transcripts(source, folder / "out", fmt=fmt)
    except TranscriptError as exc:
        assert exc.user_message
        return
    written = (folder / "out" / "conversations.jsonl").read_text(encoding="utf-8")
    assert written.count("\n") == summary.conversations
    for line in written.splitlines():
        Conversation.model_validate_json(line)  # what was written is the canonical shape, whatever came in
