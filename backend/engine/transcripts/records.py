"""What the format readers share: the raw conversation they hand over, role and timestamp spellings, JSON
records, and the assembler that groups rows or events by conversation in bounded memory.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from engine.errors import ParleyError
from engine.transcripts.model import Role
from engine.transcripts.reading import Line, Problems

MAX_DOCUMENT_CHARS = 16 * 1024 * 1024  # one pretty-printed JSON document (a Rasa tracker) is read whole
MAX_TURNS = 5000  # turns of one conversation; past it the conversation goes on as a new one
MAX_OPEN = 1000  # conversations the assembler keeps open at once (time-ordered logs interleave them)
MAX_OPEN_CHARS = 64 * 1024 * 1024
# A conversation with no new turn in this many turns of the file is taken as finished (the time-ordered log's
# equivalent of a session timeout), which keeps the open conversations few.
IDLE_TURNS = 5000


class TranscriptError(ParleyError):
    """The input cannot be imported at all (not found, unknown format, no usable header)."""

    code = "transcript_unusable"


@dataclass
class RawTurn:
    role: Role
    text: str
    timestamp: datetime | None = None
    id: str | None = None


@dataclass
class RawConversation:
    source_id: str | None
    line: int
    turns: list[RawTurn] = field(default_factory=list)
    file: str | None = None
    chars: int = 0


# Spellings of the two sides in exports (English and Spanish); compared lower-cased.
USER_ROLES = frozenset(
    [
        "user",
        "human",
        "customer",
        "client",
        "me",
        "visitor",
        "caller",
        "usuario",
        "cliente",
        "persona",
        "guest",
        "end_user",
        "enduser",
    ]
)
BOT_ROLES = frozenset(
    ["bot", "assistant", "agent", "ai", "chatbot", "model", "system_bot", "botium", "asistente", "robot"]
)
IGNORED_ROLES = frozenset({"system", "developer", "tool", "function"})  # not a turn of the conversation


def role_of(value: object) -> Role | None:
    if not isinstance(value, str):
        return None
    spelled = value.strip().lower()
    if spelled in USER_ROLES:
        return "user"
    if spelled in BOT_ROLES:
        return "bot"
    return None


def parse_timestamp(value: object) -> datetime | None:
    """ISO 8601 text, or seconds (milliseconds when larger than any date in seconds) since 1970; None when the
    value is none of those."""
    try:
        if isinstance(value, bool):
            return None
        if isinstance(value, int | float):
            seconds = value / 1000 if value > 1e11 else value
            return datetime.fromtimestamp(seconds, tz=UTC)
        if isinstance(value, str) and value.strip():
            text = value.strip()
            try:
                return parse_timestamp(float(text))
            except ValueError:
                return datetime.fromisoformat(text)
    except (ValueError, OverflowError, OSError):
        return None
    return None


def first_of(record: dict[str, Any], keys: Iterable[str]) -> Any:
    for key in keys:
        if key in record and record[key] is not None:
            return record[key]
    return None


def short(value: object, limit: int = 40) -> str:
    """A value from the input, short enough to quote in a problem (the caller masks it)."""
    text = value if isinstance(value, str) else type(value).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


def json_records(lines: Iterable[Line], problems: Problems, label: str | None) -> Iterator[tuple[int, Any]]:
    """(line number, value) for each JSON line; a pretty-printed document (a first line of `{` or `[`) is read
    whole, up to MAX_DOCUMENT_CHARS, and a top-level array gives its items one by one."""
    iterator = iter(lines)
    for line in iterator:
        stripped = line.text.strip()
        if not stripped:
            continue
        if stripped in {"{", "["}:
            yield from _document(line, iterator, problems, label)
            return
        try:
            value = json.loads(stripped)
        except json.JSONDecodeError as exc:
            problems.add(line.number, "error", f"not JSON ({exc.msg}, column {exc.colno}); skipped", label)
            continue
        except RecursionError:
            problems.add(line.number, "error", "JSON nested too deep; skipped", label)
            continue
        yield line.number, value


def _document(
    first: Line, rest: Iterator[Line], problems: Problems, label: str | None
) -> Iterator[tuple[int, Any]]:
    parts = [first.text]
    size = len(first.text)
    for line in rest:
        size += len(line.text) + 1
        if size > MAX_DOCUMENT_CHARS:
            problems.add(
                first.number,
                "error",
                f"a JSON document longer than {MAX_DOCUMENT_CHARS:,} characters; write one record per line "
                "(JSON lines) instead",
                label,
            )
            return
        parts.append(line.text)
    try:
        value = json.loads("\n".join(parts))
    except json.JSONDecodeError as exc:
        problems.add(first.number + exc.lineno - 1, "error", f"not JSON ({exc.msg}); skipped", label)
        return
    except RecursionError:
        problems.add(first.number, "error", "JSON nested too deep; skipped", label)
        return
    if isinstance(value, list):
        for item in value:
            yield first.number, item
    else:
        yield first.number, value


class Assembler:
    """Groups turns that arrive row by row (CSV) or event by event (Rasa) into conversations, keyed by the
    source's conversation id. Exports sorted by time interleave conversations, so several stay open: one is
    closed when IDLE_TURNS turns of the file went by without it, or, past MAX_OPEN open conversations (or
    MAX_OPEN_CHARS of text), the least recently continued one is. Rows of a closed
    conversation that come later start a new conversation, with a warning: sort the file by conversation id
    to keep them together."""

    def __init__(self, problems: Problems, label: str | None = None) -> None:
        self._open: OrderedDict[str, RawConversation] = OrderedDict()
        self._closed: dict[str, int] = {}  # id -> times closed, for the suffix of a resumed conversation
        self._split: set[str] = set()  # ids closed on purpose (a new session, too many turns): no warning
        self._chars = 0
        self._turns_seen = 0
        self._last_turn: dict[str, int] = {}  # open id -> the number of the turn that last continued it
        self._problems = problems
        self._label = label

    def add(self, key: str, line: int, turn: RawTurn) -> Iterator[RawConversation]:
        """Add a turn; yields the conversations this closes."""
        conversation = self._open.get(key)
        if conversation is None:
            part = self._closed.get(key, 0)
            if part and key not in self._split:
                self._problems.add(
                    line,
                    "warning",
                    f"conversation {short(key)!r} resumes after other conversations were closed; imported as "
                    f"part {part + 1} — sort the file by conversation id to keep it together",
                    self._label,
                )
            self._split.discard(key)
            conversation = RawConversation(key if not part else f"{key}#{part + 1}", line, file=self._label)
            self._open[key] = conversation
        else:
            self._open.move_to_end(key)
        self._turns_seen += 1
        self._last_turn[key] = self._turns_seen
        conversation.turns.append(turn)
        conversation.chars += len(turn.text)
        self._chars += len(turn.text)
        if len(conversation.turns) >= MAX_TURNS:
            self._problems.add(
                line,
                "warning",
                f"more than {MAX_TURNS} turns: the rest starts a new conversation",
                self._label,
            )
            yield self.close(key, split=True)
        while self._open:
            oldest = next(iter(self._open))  # the least recently continued
            idle = self._turns_seen - self._last_turn[oldest] > IDLE_TURNS
            if not (idle or len(self._open) > MAX_OPEN or self._chars > MAX_OPEN_CHARS):
                break
            yield self.close(oldest)

    def close(self, key: str, *, split: bool = False) -> RawConversation:
        """Close a conversation; `split`: its id goes on as a new part on purpose (a new Rasa session)."""
        conversation = self._open.pop(key)
        del self._last_turn[key]
        if split:
            self._split.add(key)
        self._chars -= conversation.chars
        self._closed[key] = self._closed.get(key, 0) + 1
        return conversation

    def is_open(self, key: str) -> bool:
        return key in self._open

    def close_all(self) -> Iterator[RawConversation]:
        while self._open:
            yield self.close(next(iter(self._open)))
