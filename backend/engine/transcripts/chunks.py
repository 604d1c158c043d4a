"""Importing a transcript file that arrives in chunks (the platform's upload with progress, issue 38 item 1).

    state = ChunkState(name="chats.csv")
    outcome = import_chunk(first_bytes, state, final=False)   # state now knows the format and the CSV header
    outcome = import_chunk(next_bytes, state, final=True)

Each chunk is read with the file import's readers and masked conversation by conversation
(`importer.mask_conversation`) before this function returns: the caller stores only `outcome.conversations`
(masked) and `outcome.problems` (masked too), never the chunk. Nothing unmasked is kept between chunks: the state
holds the format, the CSV header line (column names) and counts.

A chunk ends at a line break (the client cuts the file after a newline), so a line is never split. Line numbers in
problems are the file's. Rows of one conversation (CSV, Rasa events) that straddle two chunks are imported as two
conversations; a pretty-printed JSON document (a whole Rasa tracker) and a Botium convo file must fit in one chunk.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import BaseModel, Field

from engine.personal_data import mask_text
from engine.transcripts.importer import (
    _SNIFF_LINES,
    MAX_CONVERSATIONS,
    READERS,
    format_from_head,
    mask_conversation,
)
from engine.transcripts.model import Conversation, Format, Problem
from engine.transcripts.reading import MAX_LINE_CHARS, Line, Problems, checked_line, clean_text
from engine.transcripts.records import TranscriptError
from engine.transcripts.text_formats import _DELIMITERS, _columns

MAX_CHUNK_BYTES = 4 * 1024 * 1024  # what one request may carry; the web client sends about 1 MiB at a time
_SPLIT = re.compile(r"(\r\n|\r|\n)")


class ChunkState(BaseModel):
    """What an upload remembers between chunks: no text of any conversation."""

    name: str
    format: Format | None = None
    header: str | None = None  # the CSV header line (column names), repeated in front of every later chunk
    header_line: int = 0
    lines: int = 0  # lines received so far
    conversations: int = 0  # conversations imported so far
    limit: int = MAX_CONVERSATIONS
    truncated: bool = False


class ChunkOutcome(BaseModel):
    conversations: list[Conversation] = Field(default_factory=list)  # masked
    problems: list[Problem] = Field(default_factory=list)  # masked; line numbers are the file's
    problems_total: int = 0
    errors: int = 0
    warnings: int = 0
    lines: int = 0  # lines of this chunk that were read
    held_back_bytes: int = 0  # bytes at the end of the chunk to send again at the start of the next one


def _decode(data: bytes, first: bool) -> str:
    if first and data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise TranscriptError(
            "The file is UTF-16 (Excel's 'Unicode text'): save it as UTF-8 and upload it again."
        )
    if first:
        data = data.removeprefix(b"\xef\xbb\xbf")
    return data.decode("utf-8", errors="surrogateescape")


def _split(text: str) -> list[tuple[str, str]]:
    """(line, line with its break) for each line of `text`."""
    pieces = _SPLIT.split(text)
    pairs = [(pieces[i], pieces[i] + pieces[i + 1]) for i in range(0, len(pieces) - 1, 2)]
    if pieces[-1]:
        pairs.append((pieces[-1], pieces[-1]))  # the last line of the file, without a break
    return pairs


def _lines(texts: list[str], start: int, problems: Problems) -> Iterator[Line]:
    for offset, text in enumerate(texts, start=1):
        number = start + offset
        if len(text) > MAX_LINE_CHARS:
            problems.add(
                number, "error", f"longer than {MAX_LINE_CHARS:,} characters; skipped (one record per line)"
            )
            continue
        line = checked_line(number, text, "utf-8", problems)
        if line is not None:
            yield line


def _first_record(lines: list[Line]) -> Any:
    texts = [line.text for line in lines if line.text.strip()]
    if not texts:
        return None
    candidate = "\n".join(texts) if texts[0].strip() in {"{", "["} else texts[0]
    try:
        return json.loads(candidate)
    except (ValueError, RecursionError):
        return None


def _row_key(state: ChunkState) -> Callable[[str], str | None]:
    """How to tell which conversation a line belongs to: a CSV row's id cell, a Rasa event's sender; None for
    the formats whose conversations never span lines."""
    if state.format == "rasa":

        def event_sender(text: str) -> str | None:
            try:
                value = json.loads(text)
            except (ValueError, RecursionError):
                return None
            if isinstance(value, dict) and isinstance(value.get("event"), str):
                return str(value.get("sender_id"))
            return None

        return event_sender
    if state.format == "csv" and state.header:
        delimiter = max(_DELIMITERS, key=state.header.count)
        header = next(csv.reader([state.header], delimiter=delimiter))
        column = _columns(header).get("conversation")

        def row_id(text: str) -> str | None:
            try:
                row = next(csv.reader([text], delimiter=delimiter, strict=True))
            except (csv.Error, StopIteration):
                return None
            return row[column].strip() if column is not None and len(row) > column else None

        return row_id
    return lambda text: None


def _held_back(texts: list[str], key: Callable[[str], str | None]) -> int:
    """How many trailing lines belong to the chunk's last conversation, which may go on in the next chunk (0
    when none can be told, or when it fills the whole chunk: then it is imported in parts)."""
    keys = [key(text) if text.strip() else "" for text in texts]
    last = next((k for k in reversed(keys) if k), None)
    if last is None:
        return 0
    index = len(keys)
    while index > 0 and keys[index - 1] in (last, ""):
        index -= 1
    return 0 if index == 0 else len(keys) - index


def import_chunk(data: bytes, state: ChunkState, *, final: bool) -> ChunkOutcome:
    """Read and mask one chunk; updates `state`. Raises TranscriptError when the upload cannot go on at all
    (UTF-16, a format that cannot be told, a CSV header without the needed columns, a Botium file in pieces).
    `outcome.held_back_bytes`: the end of the chunk was not read (the rows of a conversation that may go on);
    the client sends those bytes again at the start of the next chunk."""
    if not final and data and not data.endswith((b"\n", b"\r")):
        raise TranscriptError("A chunk must end at a line break: cut the file after a newline.")
    first = state.lines == 0
    problems = Problems()
    pairs = _split(_decode(data, first))
    if state.format is None:
        sniffed = list(_lines([text for text, _ in pairs[: _SNIFF_LINES * 4]], 0, Problems()))
        head = [line.text.strip() for line in sniffed if line.text.strip()][:_SNIFF_LINES]
        state.format = format_from_head(state.name, head, lambda: _first_record(sniffed))
    if state.format == "botium" and not (first and final):
        raise TranscriptError("A Botium convo file is one conversation: upload it in one chunk.")
    held = 0
    if state.format == "csv" and state.header is None:
        header = next((number for number, (text, _) in enumerate(pairs) if text.strip()), None)
        if header is not None:
            state.header, state.header_line = (
                clean_text(mask_text(pairs[header][0]))[0],
                state.lines + header + 1,
            )
    if not final:
        held = _held_back([text for text, _ in pairs], _row_key(state))
        kept, pairs = pairs[: len(pairs) - held], pairs[len(pairs) - held :]
    else:
        kept, pairs = pairs, []
    lines = list(_lines([text for text, _ in kept], state.lines, problems))
    if state.format == "csv" and state.header is not None and state.header_line <= state.lines:
        lines.insert(0, Line(state.header_line, state.header))
    outcome = ChunkOutcome(
        lines=len(kept), held_back_bytes=sum(len(raw.encode("utf-8", "surrogateescape")) for _, raw in pairs)
    )
    if lines and not state.truncated and not (state.format == "csv" and state.header is None):
        for raw in READERS[state.format](lines, problems, None):
            if state.conversations >= state.limit:
                state.truncated = True
                problems.add(
                    raw.line,
                    "warning",
                    f"the limit of {state.limit:,} conversations was reached: this conversation and the rest of "
                    "the file were not imported",
                )
                break
            state.conversations += 1
            outcome.conversations.append(mask_conversation(raw, state.conversations, state.format, problems))
    state.lines += len(kept)
    for problem in problems.listed:
        problem.message = clean_text(mask_text(problem.message))[0]
    outcome.problems = problems.listed
    outcome.problems_total, outcome.errors, outcome.warnings = (
        problems.total,
        problems.errors,
        problems.warnings,
    )
    return outcome
