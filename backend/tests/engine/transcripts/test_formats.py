"""Each format as real exports write it: the turns in order, user and bot told apart, ids and times kept,
everything that is not a turn left out; a malformed record is a problem at its line and the rest is kept."""

from __future__ import annotations

import json

import pytest

from engine.transcripts import TranscriptError, detect_format, import_transcripts, read_imported


def _conversations(out):
    return [json.loads(line) for line in (out / "conversations.jsonl").read_text().splitlines()]


def _turns(conversation):
    return [(t["role"], t["text"]) for t in conversation["turns"]]


def test_jsonl_accepts_common_spellings_and_keeps_going_after_a_bad_line(tmp_path):
    source = tmp_path / "chats.jsonl"
    lines = [
        {
            "id": 7,
            "turns": [
                {"role": "user", "text": "hi", "timestamp": 1710498600},
                {"role": "bot", "text": "hello"},
            ],
        },
        "this line is broken {",
        [{"speaker": "customer", "message": "bare list"}, {"speaker": "agent", "message": "ok"}],
        {
            "session_id": "s",
            "messages": [
                {"role": "system", "content": "You are a bot"},
                {"role": "user", "content": [{"type": "text", "text": "parts"}]},
                {"role": "assistant", "content": "fine", "created_at": "2024-03-15T10:30:00+01:00"},
                {"role": "narrator", "content": "left out"},
            ],
        },
        {"id": "empty", "turns": []},
    ]
    source.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    summary = import_transcripts(source, tmp_path / "out")
    found = _conversations(tmp_path / "out")
    assert [_turns(c) for c in found] == [
        [("user", "hi"), ("bot", "hello")],
        [("user", "bare list"), ("bot", "ok")],
        [("user", "parts"), ("bot", "fine")],
    ]
    assert [c.get("source_id") for c in found] == ["7", None, "s"]
    assert [c["line"] for c in found] == [1, 3, 4]
    assert found[0]["turns"][0]["timestamp"] == "2024-03-15T10:30:00Z"
    assert found[2]["turns"][1]["timestamp"] == "2024-03-15T10:30:00+01:00"
    problems = [(p.line, p.severity) for p in summary.problems]
    assert problems == [(2, "error"), (4, "warning"), (5, "error")]
    assert "narrator" in summary.problems[1].message


def test_csv_headers_are_matched_loosely_and_interleaved_conversations_are_regrouped(tmp_path):
    source = tmp_path / "export.csv"
    source.write_text(
        "Session ID,Sender,Message Text,Created At\n"
        "a,user,I want a pizza,2024-03-15 10:00:00\n"
        "b,user,Do you deliver?,2024-03-15 10:00:05\n"
        'a,bot,"Which size?\nSmall, medium or large",2024-03-15 10:00:06\n'
        "b,bot,Yes,2024-03-15 10:00:07\n"
        "a,alien,???,2024-03-15 10:00:08\n"
        "a,user,large,2024-03-15 10:00:09\n"
    )
    summary = import_transcripts(source, tmp_path / "out")
    assert summary.format == "csv"
    found = {c["source_id"]: c for c in _conversations(tmp_path / "out")}
    assert _turns(found["a"]) == [
        ("user", "I want a pizza"),
        ("bot", "Which size?\nSmall, medium or large"),
        ("user", "large"),
    ]
    assert _turns(found["b"]) == [("user", "Do you deliver?"), ("bot", "Yes")]
    assert [(p.line, p.severity) for p in summary.problems] == [
        (7, "error")
    ]  # the alien's row, after a 2-line row


def test_csv_without_a_text_column_is_unusable_and_says_which_names_it_accepts(tmp_path):
    source = tmp_path / "x.csv"
    source.write_text("conversation;role;what\n1;user;hi\n")
    with pytest.raises(
        TranscriptError, match=r"no text column.*Columns found: conversation, role, what.*message"
    ):
        import_transcripts(source, tmp_path / "out")


def test_rasa_events_are_grouped_by_sender_and_split_into_sessions(tmp_path):
    events = [
        {"sender_id": "u1", "event": "session_started", "timestamp": 1710498600.0},
        {
            "sender_id": "u1",
            "event": "user",
            "text": "hello",
            "timestamp": 1710498601.5,
            "parse_data": {"intent": {"name": "greet"}},
        },
        {"sender_id": "u2", "event": "user", "text": "menu?", "timestamp": 1710498602},
        {"sender_id": "u1", "event": "action", "name": "utter_greet"},
        {"sender_id": "u1", "event": "bot", "text": "Hi! How can I help?", "data": {"buttons": []}},
        {"sender_id": "u1", "event": "bot", "text": None, "data": {"image": "x.png"}},
        {"sender_id": "u2", "event": "slot", "name": "pizza", "value": "margherita"},
        {"sender_id": "u1", "event": "session_started"},
        {"sender_id": "u1", "event": "user", "text": "back again"},
        {"sender_id": "u2", "event": "bot", "text": "Here is the menu"},
    ]
    source = tmp_path / "events.json"
    source.write_text("\n".join(json.dumps(e) for e in events) + "\n{oops\n")
    assert detect_format(source) == "rasa"
    summary = import_transcripts(source, tmp_path / "out")
    found = _conversations(tmp_path / "out")
    assert [(c["source_id"], _turns(c)) for c in found] == [
        ("u1", [("user", "hello"), ("bot", "Hi! How can I help?")]),
        ("u1#2", [("user", "back again")]),
        ("u2", [("user", "menu?"), ("bot", "Here is the menu")]),
    ]
    assert found[0]["turns"][0]["timestamp"] == "2024-03-15T10:30:01.500000Z"
    assert [(p.line, p.severity) for p in summary.problems] == [(11, "error")]


def test_rasa_trackers_one_per_line_or_one_pretty_printed(tmp_path):
    tracker = {
        "sender_id": "abc",
        # many slots first: the events come after the first lines a format is told from
        "slots": {f"slot_{i}": None for i in range(100)},
        "events": [
            {"event": "user", "text": "hi"},
            {"event": "bot", "text": "hey"},
            {"event": "restart"},
            {"event": "user", "text": "again"},
        ],
    }
    per_line = tmp_path / "trackers.jsonl"
    per_line.write_text(json.dumps(tracker) + "\n" + json.dumps({**tracker, "sender_id": "def"}) + "\n")
    import_transcripts(per_line, tmp_path / "a")
    assert [c["source_id"] for c in _conversations(tmp_path / "a")] == ["abc", "abc#2", "def", "def#2"]
    pretty = tmp_path / "tracker.json"
    pretty.write_text(json.dumps(tracker, indent=2))
    assert detect_format(pretty) == "rasa"
    summary = import_transcripts(pretty, tmp_path / "b")
    assert summary.format == "rasa"
    assert [_turns(c) for c in _conversations(tmp_path / "b")] == [
        [("user", "hi"), ("bot", "hey")],
        [("user", "again")],
    ]


def test_botium_convos_keep_only_what_was_said(tmp_path):
    folder = tmp_path / "convos"
    (folder / "sub").mkdir(parents=True)
    (folder / "greeting.convo.txt").write_text(
        "Greeting\nthe user says hello\n\n#begin\nPAUSE 500\n\n#me\nhello\n\n#bot\n?Hi there!\nBUTTONS Menu|Order\n"
        "INTENT greet\n\n#me\nBUTTON order_payload|Order\n\n#bot\n!Sorry\n\n#bot #private\nWhat would you like?\n"
        "second line\n\n#end\nWAITFORBOT 100\n"
    )
    (folder / "sub" / "broken.convo.txt").write_text("just a name\n#begin\nPAUSE 1\n")
    (folder / "ignored.txt").write_text("#me\nnot a convo file\n")
    summary = import_transcripts(folder, tmp_path / "out")
    assert summary.format == "botium"
    (found,) = _conversations(tmp_path / "out")
    assert found["source_id"] == "Greeting"
    assert found["file"] == "greeting.convo.txt"
    assert _turns(found) == [
        ("user", "hello"),
        ("bot", "Hi there!"),
        ("user", "Order"),
        ("bot", "Sorry"),
        ("bot", "What would you like?\nsecond line"),
    ]
    assert [(p.file, p.severity) for p in summary.problems] == [("sub/broken.convo.txt", "error")]


def test_the_format_is_told_from_the_name_then_the_content(tmp_path):
    cases = {
        "a.csv": "id,role,text\n",
        "b.convo.txt": "x",
        "c.jsonl": '{"turns": []}\n',
        "d.txt": '{"event": "user", "text": "hi"}\n',
        "e.log": "Name\n\n#me\nhello\n",
    }
    expected = {
        "a.csv": "csv",
        "b.convo.txt": "botium",
        "c.jsonl": "jsonl",
        "d.txt": "rasa",
        "e.log": "botium",
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        assert detect_format(tmp_path / name) == expected[name], name
    (tmp_path / "f.txt").write_text("just some prose\n")
    with pytest.raises(TranscriptError, match="--format"):
        detect_format(tmp_path / "f.txt")


def test_the_conversation_limit_stops_the_import_and_says_so(tmp_path):
    source = tmp_path / "many.jsonl"
    source.write_text(
        "".join(json.dumps({"turns": [{"role": "user", "text": f"hi {i}"}]}) + "\n" for i in range(5))
    )
    summary = import_transcripts(source, tmp_path / "out", limit=3)
    assert summary.conversations == 3 and summary.truncated
    assert len(_conversations(tmp_path / "out")) == 3
    assert summary.problems[-1].line == 4 and "limit of 3" in summary.problems[-1].message


def test_a_name_given_as_the_reply_to_the_chatbot_s_question_is_masked(tmp_path):
    source = tmp_path / "chats.jsonl"
    turns = [
        ("user", "I want a pizza"),
        ("bot", "Sure! What is your name?"),
        ("user", "Marta Ruiz"),
        ("bot", "Thanks Marta, what size?"),
        ("user", "Large"),
    ]
    source.write_text(json.dumps({"turns": [{"role": r, "text": t} for r, t in turns]}) + "\n")
    import_transcripts(source, tmp_path / "out")
    (found,) = _conversations(tmp_path / "out")
    assert [t for _, t in _turns(found)] == [
        "I want a pizza",
        "Sure! What is your name?",
        "[NAME_1]",
        "Thanks [NAME_1], what size?",
        "Large",
    ]


def test_what_was_imported_reads_back_as_conversations(planted_source, tmp_path):
    _, source = planted_source
    summary = import_transcripts(source, tmp_path / "out")
    read = list(read_imported(tmp_path / "out"))
    assert [c.id for c in read] == ["c000001", "c000002"]
    assert sum(len(c.turns) for c in read) == summary.turns
    with pytest.raises(TranscriptError, match="run `parley transcripts import` first"):
        list(read_imported(tmp_path))
    (tmp_path / "out" / "conversations.jsonl").write_text('{"id": 1}\n')
    with pytest.raises(TranscriptError, match="line 1: not an imported conversation"):
        list(read_imported(tmp_path / "out"))
