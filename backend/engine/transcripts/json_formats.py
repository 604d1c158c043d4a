"""JSON lines conversations and Rasa tracker exports.

JSON lines: one conversation per line, `{"id": …, "turns": [{"role": "user", "text": "…", "timestamp": …}]}`.
Common spellings are accepted: `messages` / `conversation` / `dialog` for the turns, `speaker` / `sender` /
`from` / `author` for the role, `content` / `message` / `utterance` for the text (OpenAI-style content parts too),
`time` / `ts` / `created_at` for the time; a line that is a bare list of turns is a conversation too.
`system` and `tool` messages are not turns and are left out.

Rasa: the tracker store's events (`rasa export` through an event broker, or a tracker per line as
`GET /conversations/{id}/tracker` returns it, or one pretty-printed tracker): `{"event": "user", "text": …}`
and `{"event": "bot", "text": …}` are the turns, grouped by `sender_id`; each `session_started` event starts a
new conversation; every other event (actions, slots, intents) is left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from engine.transcripts.model import Role
from engine.transcripts.reading import Line, Problems
from engine.transcripts.records import (
    IGNORED_ROLES,
    MAX_TURNS,
    Assembler,
    RawConversation,
    RawTurn,
    first_of,
    json_records,
    parse_timestamp,
    role_of,
    short,
)

TURNS_KEYS = ("turns", "messages", "conversation", "dialog", "dialogue", "utterances", "transcript")
ID_KEYS = (
    "id",
    "conversation_id",
    "conversationId",
    "session_id",
    "sessionId",
    "sender_id",
    "chat_id",
    "thread_id",
    "dialog_id",
)
ROLE_KEYS = ("role", "speaker", "sender", "from", "author", "actor", "participant", "who", "type")
TEXT_KEYS = ("text", "content", "message", "utterance", "body", "value")
TIME_KEYS = ("timestamp", "time", "ts", "created_at", "createdAt", "date", "datetime")


def _text(value: object) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # OpenAI-style content parts
        parts = [str(p["text"]) for p in value if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return "\n".join(parts) if parts else None
    return None


def _id(value: object) -> str | None:
    if isinstance(value, str | int) and not isinstance(value, bool):
        return str(value)
    return None


def read_jsonl(
    lines: Iterable[Line], problems: Problems, label: str | None = None
) -> Iterator[RawConversation]:
    for number, value in json_records(lines, problems, label):
        if isinstance(value, list) and value and all(isinstance(v, dict) and _turns_of(v) for v in value):
            # a JSON array of conversations on one line
            for item in value:
                conversation = _conversation(number, item, problems, label)
                if conversation:
                    yield conversation
            continue
        conversation = _conversation(number, value, problems, label)
        if conversation:
            yield conversation


def _turns_of(record: dict[str, Any]) -> list[Any] | None:
    turns = first_of(record, TURNS_KEYS)
    return turns if isinstance(turns, list) else None


def _conversation(number: int, value: Any, problems: Problems, label: str | None) -> RawConversation | None:
    if isinstance(value, list):
        record: dict[str, Any] = {"turns": value}
    elif isinstance(value, dict):
        record = value
    else:
        problems.add(number, "error", f"a {type(value).__name__}, not a conversation; skipped", label)
        return None
    turns = _turns_of(record)
    if turns is None:
        problems.add(
            number, "error", f"no list of turns (expected one of: {', '.join(TURNS_KEYS)}); skipped", label
        )
        return None
    conversation = RawConversation(_id(first_of(record, ID_KEYS)), number, file=label)
    if len(turns) > MAX_TURNS:
        problems.add(number, "warning", f"{len(turns):,} turns: the first {MAX_TURNS:,} are kept", label)
        turns = turns[:MAX_TURNS]
    for index, turn in enumerate(turns, start=1):
        raw = _turn(turn)
        if isinstance(raw, RawTurn):
            conversation.turns.append(raw)
        elif raw:
            problems.add(number, "warning", f"turn {index}: {raw}; left out", label)
    if not conversation.turns:
        problems.add(number, "error", "no turn with a role and a text; skipped", label)
        return None
    return conversation


def _turn(turn: Any) -> RawTurn | str | None:
    """The turn, or why it is not one (None: a system message, silently not a turn)."""
    if not isinstance(turn, dict):
        return f"a {type(turn).__name__}, not an object with a role and a text"
    spelled = first_of(turn, ROLE_KEYS)
    role = role_of(spelled)
    if role is None:
        if isinstance(spelled, str) and spelled.strip().lower() in IGNORED_ROLES:
            return None
        return f"role {short(spelled)!r} is neither the user nor the bot" if spelled else "no role"
    text = _text(first_of(turn, TEXT_KEYS))
    if text is None:
        return "no text"
    return RawTurn(role, text, parse_timestamp(first_of(turn, TIME_KEYS)), _id(turn.get("id")))


def read_rasa(
    lines: Iterable[Line], problems: Problems, label: str | None = None
) -> Iterator[RawConversation]:
    assembler = Assembler(problems, label)
    for number, value in json_records(lines, problems, label):
        if isinstance(value, dict) and isinstance(value.get("events"), list):
            yield from _tracker(number, value, problems, label)
        elif isinstance(value, dict) and isinstance(value.get("event"), str):
            yield from _event(assembler, number, value, _id(value.get("sender_id")) or "default")
        else:
            problems.add(number, "error", "neither a Rasa event nor a tracker with events; skipped", label)
    yield from assembler.close_all()


def _tracker(
    number: int, tracker: dict[str, Any], problems: Problems, label: str | None
) -> Iterator[RawConversation]:
    # A tracker is one sender; its own assembler splits it into sessions.
    own = Assembler(problems, label)
    sender = _id(tracker.get("sender_id")) or f"line-{number}"
    for event in tracker["events"]:
        if isinstance(event, dict):
            yield from _event(own, number, event, sender)
    yield from own.close_all()


def _event(
    assembler: Assembler, number: int, event: dict[str, Any], sender: str
) -> Iterator[RawConversation]:
    kind = event.get("event")
    if kind in {"session_started", "restart"}:
        if assembler.is_open(sender):
            yield assembler.close(sender, split=True)
        return
    if kind not in {"user", "bot"}:
        return
    text = event.get("text")
    if not isinstance(text, str) or not text.strip():
        return  # a bot message of buttons or images only, or an empty user message: no text to learn from
    role: Role = "user" if kind == "user" else "bot"
    message_id = _id(event.get("message_id"))
    turn = RawTurn(role, text, parse_timestamp(event.get("timestamp")), message_id)
    yield from assembler.add(sender, number, turn)
