"""The canonical shape of an imported conversation, and the summary of an import.

Whatever the source format, a conversation is written as one JSON line of `Conversation`: its turns in order, each
`user` or `bot`, its text already masked. Nothing else from the source is kept (metadata, slots, intents may hold
personal data the masking rules do not know).
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

Role = Literal["user", "bot"]
FORMATS = ("jsonl", "csv", "rasa", "botium")
Format = Literal["jsonl", "csv", "rasa", "botium"]


class Turn(BaseModel):
    role: Role
    text: str
    timestamp: datetime | None = None
    id: str | None = None  # the message's id in the source, masked


class Conversation(BaseModel):
    id: str  # c000001, c000002 … in the order conversations were written
    source_id: str | None = None  # the conversation's id in the source, masked (sender ids are often phones)
    format: Format
    line: int  # where it starts in the source file
    file: str | None = None  # the file it came from, for a folder of Botium convos
    turns: list[Turn]
    masked: dict[str, int] = Field(default_factory=dict)  # masked occurrences by kind


class Problem(BaseModel):
    line: int
    severity: Literal["error", "warning"]  # error: the record was skipped; warning: kept, with a change
    message: str
    file: str | None = None

    def __str__(self) -> str:
        where = f"{self.file}, line {self.line}" if self.file else f"line {self.line}"
        return f"{where}: {self.severity}: {self.message}"


class Summary(BaseModel):
    source: str
    format: Format
    conversations: int = 0
    turns: int = 0
    user_turns: int = 0
    bot_turns: int = 0
    lines_read: int = 0
    skipped_records: int = 0  # records (lines, rows, events, steps) dropped with an error
    masked: dict[str, int] = Field(default_factory=dict)  # occurrences by kind, over every conversation
    problems: list[Problem] = Field(default_factory=list)  # the first MAX_LISTED_PROBLEMS
    problems_total: int = 0
    errors: int = 0
    warnings: int = 0
    truncated: bool = False  # the conversation limit was reached before the end of the file
    rules: list[str] = Field(default_factory=list)
