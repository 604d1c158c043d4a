"""Transcripts of every supported format, each planting every kind of personal data, for the import tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

# What a user may write, and the forms it must not appear in once written (digits alone, no spaces…).
PLANTED = {
    "email": ["ana.lopez@example.com", "ANA.LOPEZ@example.com", "j.smith+promo@mail.co.uk"],
    "phone": ["+34 612 345 678", "612345678", "(555) 123-4567", "5551234567"],
    "card": ["4111 1111 1111 1111", "4111111111111111", "5500-0000-0000-0004", "5500000000000004"],
    "iban": ["GB82 WEST 1234 5698 7654 32", "GB82WEST12345698765432", "ES9121000418450200051332"],
    "name": ["López", "Lucía", "Bob", "Carla"],
}

# One conversation: the same e-mail twice (in two spellings), a second e-mail, a phone, a card, an IBAN and a
# name in English; the bot repeats the name and the e-mail. The other gives a Spanish name and a US phone.
FIRST = [
    ("user", "Hi, my name is Ana López, my mail is ana.lopez@example.com"),
    ("bot", "Thanks Ana! I'll write to ana.lopez@example.com."),
    ("user", "Or ANA.LOPEZ@example.com, or j.smith+promo@mail.co.uk. Call +34 612 345 678."),
    ("user", "Pay with 4111 1111 1111 1111 or 5500-0000-0000-0004, refund to GB82 WEST 1234 5698 7654 32"),
    ("bot", "Done, López. Order 3FA9C1 costs 13.75 and is ready on 2024-03-15 at 10:30."),
]
SECOND = [
    ("user", "Hola, me llamo Lucía y mi IBAN es ES9121000418450200051332"),
    ("bot", "Gracias Lucía"),
    ("user", "I'm Bob, this is Carla's phone (555) 123-4567; I'm looking for a pizza"),
]
# Things that look like personal data and are not: they must come out as they went in.
KEPT = ["Order 3FA9C1", "13.75", "2024-03-15 at 10:30", "I'm looking for a pizza"]


def _jsonl(path: Path) -> Path:
    rows = [
        {"id": "conv-1", "turns": [{"role": r, "text": t} for r, t in FIRST]},
        {
            "conversation_id": "whatsapp:+34612345678",
            "messages": [{"speaker": r, "content": t} for r, t in SECOND],
        },
    ]
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def _csv(path: Path) -> Path:
    lines = ["Conversation ID;Speaker;Message;Time"]
    for key, turns in (("c-1", FIRST), ("ana.lopez@example.com", SECOND)):
        lines += [
            f'{key};{"customer" if r == "user" else "agent"};"{t}";2024-03-15T10:0{i}:00'
            for i, (r, t) in enumerate(turns)
        ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _rasa(path: Path) -> Path:
    events = []
    for sender, turns in (("+34612345678", FIRST), ("5551234567", SECOND)):
        events.append(
            {"sender_id": sender, "event": "action", "name": "action_session_start", "timestamp": 1.7e9}
        )
        events.append({"sender_id": sender, "event": "session_started", "timestamp": 1.7e9})
        for r, t in turns:
            events.append({"sender_id": sender, "event": r, "text": t, "timestamp": 1.7e9})
            events.append(
                {"sender_id": sender, "event": "slot", "name": "email", "value": "ana.lopez@example.com"}
            )
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events), encoding="utf-8")
    return path


def _botium(folder: Path) -> Path:
    folder.mkdir()
    for name, turns in (("first", FIRST), ("second", SECOND)):
        text = [f"{name} ana.lopez@example.com", "a convo", "", "#begin", "PAUSE 100"]
        for r, t in turns:
            text += ["", "#me" if r == "user" else "#bot", t]
        text += ["", "#end"]
        (folder / f"{name}.convo.txt").write_text("\n".join(text) + "\n", encoding="utf-8")
    return folder


WRITERS = {
    "jsonl": ("chats.jsonl", _jsonl),
    "csv": ("chats.csv", _csv),
    "rasa": ("events.jsonl", _rasa),
    "botium": ("convos", _botium),
}


@pytest.fixture(params=sorted(WRITERS))
def planted_source(request, tmp_path) -> tuple[str, Path]:
    """(format, path) of a transcript in that format with every kind of personal data planted."""
    name, write = WRITERS[request.param]
    return request.param, write(tmp_path / name)
