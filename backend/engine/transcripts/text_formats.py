"""CSV transcripts and Botium convo files.

CSV: one row per turn, with a header naming a conversation id, a role and a text column (timestamp optional).
Header names are matched loosely — case, spaces and punctuation do not count, and common synonyms are known
(`session_id`, `speaker`, `message` …); the delimiter is `,`, `;`, tab or `|`, whichever the header uses most.
Rows of one conversation need not be next to each other (see `Assembler`).

Botium: the text format of Botium convo files (`*.convo.txt`): an optional name and description, then sections
`#me` (the user) and `#bot`, each followed by its text lines; `#begin`, `#end` and `#include` sections, and lines
that are Botium asserters or logic hooks (`BUTTONS …`, `INTENT …`, `PAUSE …`), are not turns. `?` and `!` in front
of a bot text (optional, negated) are dropped. One file is one conversation; a folder is read file by file.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Iterator

from engine.transcripts.reading import MAX_LINE_CHARS, Line, Problems
from engine.transcripts.records import (
    Assembler,
    RawConversation,
    RawTurn,
    TranscriptError,
    parse_timestamp,
    role_of,
    short,
)

# Header names, compared lower-cased without anything but letters and digits.
CSV_COLUMNS = {
    "conversation": [
        "conversationid",
        "conversation",
        "convid",
        "sessionid",
        "session",
        "dialogid",
        "dialogueid",
        "dialog",
        "chatid",
        "chat",
        "threadid",
        "thread",
        "senderid",
        "ticketid",
        "ticket",
        "idconversacion",
        "conversacion",
        "sesion",
        "id",
    ],
    "role": [
        "role",
        "speaker",
        "sender",
        "author",
        "from",
        "actor",
        "participant",
        "who",
        "type",
        "rol",
        "emisor",
    ],
    "text": ["text", "message", "content", "utterance", "body", "msg", "texto", "mensaje"],
    "timestamp": ["timestamp", "time", "ts", "datetime", "date", "createdat", "sentat", "fecha", "hora"],
}
_DELIMITERS = (",", ";", "\t", "|")


def _normalise(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.lower())


def _columns(header: list[str]) -> dict[str, int]:
    """Which header cell holds each column: an exact synonym first ("session_id"), then a synonym among the
    cell's words ("Message Text"); a cell serves one column only."""
    names = [_normalise(n) for n in header]
    words = [set(re.findall(r"[a-z0-9]+", n.lower())) for n in header]
    found: dict[str, int] = {}
    for loose in (False, True):
        for column, synonyms in CSV_COLUMNS.items():
            if column in found:
                continue
            for (
                synonym
            ) in synonyms:  # the first synonym present wins ("session" only without "conversation_id")
                cells = [
                    i
                    for i in range(len(header))
                    if i not in found.values()
                    # "id" or "ts" alone only as a whole header: "Message ID" is not a conversation
                    and (synonym in words[i] and len(synonym) > 2 if loose else synonym == names[i])
                ]
                if cells:
                    found[column] = cells[0]
                    break
    return found


def read_csv(
    lines: Iterable[Line], problems: Problems, label: str | None = None
) -> Iterator[RawConversation]:
    iterator = iter(lines)
    header_line = next((line for line in iterator if line.text.strip()), None)
    if header_line is None:
        raise TranscriptError("The CSV file is empty.")
    delimiter = max(_DELIMITERS, key=header_line.text.count)
    header = next(csv.reader([header_line.text], delimiter=delimiter))
    columns = _columns(header)
    missing = [c for c in ("conversation", "role", "text") if c not in columns]
    if missing:
        accepted = "; ".join(f"{c}: {', '.join(CSV_COLUMNS[c][:6])}…" for c in missing)
        raise TranscriptError(
            f"The CSV header (line {header_line.number}) has no {' or '.join(missing)} column. "
            f"Columns found: {', '.join(short(h, 30) for h in header) or 'none'}. Accepted names — {accepted}"
        )
    position = {"line": header_line.number}

    def feed() -> Iterator[str]:
        for line in iterator:
            position["line"] = line.number
            yield line.text + "\n"

    # A row may span several lines (a quoted text with line breaks), but never more than one line's limit.
    csv.field_size_limit(max(csv.field_size_limit(), MAX_LINE_CHARS))
    # strict: a quote that is never closed is an error at its row, not the rest of the file taken as one text
    reader = csv.reader(feed(), delimiter=delimiter, strict=True)
    assembler = Assembler(problems, label)
    width = max(columns.values()) + 1
    while True:
        start = position["line"] + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            reason = (
                "a quote opened in this row is never closed: the rest of the file was read as its text"
                if "unexpected end of data" in str(exc)
                else f"not a CSV row ({exc})"
            )
            problems.add(start, "error", f"{reason}; skipped", label)
            continue
        if not any(cell.strip() for cell in row):
            continue
        if len(row) < width:
            problems.add(start, "error", f"{len(row)} fields, the header has {len(header)}; skipped", label)
            continue
        key, spelled, text = (row[columns[c]] for c in ("conversation", "role", "text"))
        role = role_of(spelled)
        if role is None:
            problems.add(
                start, "error", f"role {short(spelled)!r} is neither the user nor the bot; skipped", label
            )
            continue
        if not key.strip():
            problems.add(start, "error", "no conversation id; skipped", label)
            continue
        if not text.strip():
            problems.add(start, "warning", "empty text; left out", label)
            continue
        timestamp = parse_timestamp(row[columns["timestamp"]]) if "timestamp" in columns else None
        yield from assembler.add(key.strip(), start, RawTurn(role, text, timestamp))
    yield from assembler.close_all()


# Botium's asserters, logic hooks and user inputs: a line starting with one of these is not text.
BOTIUM_KEYWORDS = frozenset(
    [
        "BUTTON",
        "BUTTONS",
        "MEDIA",
        "FORM",
        "FORMS",
        "CARDS",
        "PAUSE",
        "PAUSE_ASSERTER",
        "WAITFORBOT",
        "JSON_PATH",
        "JSON_PATH_COUNT",
        "RESPONSE_LENGTH",
        "ENTITIES",
        "ENTITY_VALUES",
        "ENTITY_CONTENT",
        "INTENT",
        "INTENT_UNIQUE",
        "INTENT_CONFIDENCE",
        "SET_SCRIPTING_MEMORY",
        "CLEAR_SCRIPTING_MEMORY",
        "UPDATE_CUSTOM",
        "INCLUDE",
        "WER",
        "CONDITIONAL_STEP_TIME_BASED",
        "CONDITIONAL_STEP_BUSINESS_HOURS",
        "CONDITIONAL_STEP_CAPABILITY_VALUE_BASED",
        "CONDITIONAL_STEP_JSON_PATH_BASED",
        "SKIP_BOT_UNCONSUMED",
        "ORDERED_LIST_TO_BUTTON",
        "UPDATE_CONTEXT",
        "BOT_CONSUMED",
        "BOT_UNCONSUMED_COUNT",
    ]
)
_BOTIUM_PREFIXES = (
    "TEXT_",
    "BUTTONS_",
    "MEDIA_",
    "CARDS_",
    "JSON_PATH",
    "INTENT_",
    "ENTITY_",
    "CONDITIONAL_",
)
_SECTIONS = {"me": "user", "bot": "bot", "begin": None, "end": None, "include": None}


def _keyword(line: str) -> bool:
    word = line.lstrip("?!").split(" ", 1)[0]
    return word in BOTIUM_KEYWORDS or (word.isupper() and word.startswith(_BOTIUM_PREFIXES))


def read_botium(
    lines: Iterable[Line], problems: Problems, label: str | None = None
) -> Iterator[RawConversation]:
    conversation = RawConversation(None, 1, file=label)
    section: str | None = None  # "user", "bot", or None outside a turn
    text_lines: list[str] = []
    button: str | None = None
    seen_section = False

    def flush() -> None:
        nonlocal button
        text = "\n".join(text_lines).strip()
        if section == "bot":  # Botium's flags: "?" optional, "!" negated; "??" and "!!" are the characters
            text = text.removeprefix("?").removeprefix("!")
        if section in {"user", "bot"} and (text or button):
            conversation.turns.append(RawTurn("user" if section == "user" else "bot", text or button or ""))
        text_lines.clear()
        button = None

    for line in lines:
        stripped = line.text.strip()
        if stripped.startswith("#"):
            flush()
            name = stripped[1:].split(" ", 1)[0].lower()
            seen_section = True
            if name not in _SECTIONS:
                problems.add(
                    line.number,
                    "warning",
                    f"section #{short(name, 20)} is not a Botium section; left out",
                    label,
                )
                section = "unknown"
                continue
            section = _SECTIONS[name]
            if conversation.line == 1 and section:
                conversation.line = line.number
            continue
        if not seen_section:
            if stripped and conversation.source_id is None:
                conversation.source_id = stripped  # the convo's name
            continue
        if _keyword(stripped):
            if section == "user" and stripped.startswith("BUTTON "):
                button = stripped.split(" ", 1)[1].split("|")[-1].strip()  # what the user pressed
            continue
        if stripped or text_lines:
            text_lines.append(stripped)
    flush()
    if not conversation.turns:
        problems.add(1, "error", "no #me or #bot section with text; skipped", label)
        return
    yield conversation
