"""Import a transcript file: read it in its format, mask each conversation, write the canonical shape.

    summary = import_transcripts(Path("chats.csv"), Path("out/"))

writes `out/conversations.jsonl` (one `Conversation` per line, masked) and `out/summary.json` (`Summary`).
A conversation is masked as a whole, in memory, before a byte of it is written: its user turns teach the masker
the names given, then every turn, its id and the conversation's id are masked with the same placeholders.
Conversations stream through one at a time (or up to `Assembler.MAX_OPEN` for interleaved rows), so memory
does not grow with the file. The file is written as `conversations.jsonl.partial` and renamed at the end.
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from engine.personal_data import RULES, Masker, asks_name, mask_text
from engine.transcripts.json_formats import read_jsonl, read_rasa
from engine.transcripts.model import Conversation, Format, Summary, Turn
from engine.transcripts.reading import Line, LineReader, Problems, clean_text
from engine.transcripts.records import RawConversation, TranscriptError, json_records
from engine.transcripts.text_formats import read_botium, read_csv

MAX_CONVERSATIONS = 50_000
CONVERSATIONS_FILE = "conversations.jsonl"
SUMMARY_FILE = "summary.json"
_SNIFF_LINES = 50

Reader = Callable[[Iterable[Line], Problems, str | None], Iterator[RawConversation]]
READERS: dict[str, Reader] = {"jsonl": read_jsonl, "csv": read_csv, "rasa": read_rasa, "botium": read_botium}


def detect_format(source: Path, encoding: str | None = None) -> Format:
    """The format of `source`, from its name, then from its first lines."""
    if source.is_dir():
        return "botium"
    name = source.name.lower()
    if name.endswith((".convo.txt", ".csv", ".tsv")):
        return format_from_head(source.name, [], lambda: None)
    reader = LineReader(source, Problems(), encoding=encoding)
    first: list[str] = []
    for line in reader:
        if line.text.strip():
            first.append(line.text.strip())
        if len(first) >= _SNIFF_LINES:
            break
    return format_from_head(source.name, first, lambda: _first_record(source, encoding))


def format_from_head(name: str, first: list[str], first_record: Callable[[], Any]) -> Format:
    """The format of a file called `name` whose first non-empty lines are `first`; `first_record` reads its
    first JSON record when needed (Rasa when it is an event or a tracker, else JSON lines). The file import and
    the platform's chunked upload decide alike."""
    lowered = name.lower()
    if lowered.endswith(".convo.txt"):
        return "botium"
    if lowered.endswith((".csv", ".tsv")):
        return "csv"
    if not first:
        raise TranscriptError(f"{name} holds no text.")
    if any(line.lower().split(" ", 1)[0] in {"#me", "#bot"} for line in first):
        return "botium"
    if first[0][:1] in {"{", "["}:
        record = first_record()
        record = record[0] if isinstance(record, list) and record else record
        if isinstance(record, dict) and (
            isinstance(record.get("event"), str) or isinstance(record.get("events"), list)
        ):
            return "rasa"
        return "jsonl"
    if lowered.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    raise TranscriptError(f"Cannot tell the format of {name}: pass --format jsonl, csv, rasa or botium.")


def _first_record(source: Path, encoding: str | None) -> Any:
    """The first JSON record of `source` (a pretty-printed tracker is read whole, up to its limit, since its
    `events` may come after many slots)."""
    records = json_records(LineReader(source, Problems(), encoding=encoding), Problems(), None)
    return next((value for _, value in records), None)


def _files(source: Path) -> Iterator[tuple[Path, str | None]]:
    if not source.is_dir():
        yield source, None
        return
    found = sorted(p for p in source.rglob("*.convo.txt") if p.is_file())
    if not found:
        raise TranscriptError(f"{source} holds no Botium convo file (*.convo.txt).")
    for path in found:
        yield path, str(path.relative_to(source))


def mask_conversation(raw: RawConversation, number: int, fmt: Format, problems: Problems) -> Conversation:
    masker = Masker()
    texts: list[str] = []
    for turn in raw.turns:
        text, note = clean_text(turn.text)
        if note:
            problems.add(raw.line, "warning", note, raw.file)
        if turn.role == "user":
            asked = bool(texts) and raw.turns[len(texts) - 1].role == "bot" and asks_name(texts[-1])
            masker.learn_names(text, asked=asked)
        texts.append(text)
    turns = [
        Turn(
            role=turn.role,
            text=masker.mask(text),
            timestamp=turn.timestamp,
            id=masker.mask(clean_text(turn.id)[0]) if turn.id else None,
        )
        for turn, text in zip(raw.turns, texts, strict=True)
    ]
    source_id = masker.mask(clean_text(raw.source_id)[0]) if raw.source_id else None
    return Conversation(
        id=f"c{number:06d}",
        source_id=source_id,
        format=fmt,
        line=raw.line,
        file=raw.file,
        turns=turns,
        masked=dict(sorted(masker.counts.items())),
    )


def read_imported(folder: Path) -> Iterator[Conversation]:
    """The conversations an import wrote into `folder`, one at a time (what TRACER and SENSEI will read).
    Raises TranscriptError when the folder holds no import or a line is not a conversation."""
    path = folder / CONVERSATIONS_FILE
    if not path.is_file():
        raise TranscriptError(
            f"{folder} holds no {CONVERSATIONS_FILE}: run `parley transcripts import` first."
        )
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            try:
                yield Conversation.model_validate_json(line)
            except ValueError as exc:
                raise TranscriptError(
                    f"{path}, line {number}: not an imported conversation ({exc})"
                ) from None


def rules_text() -> list[str]:
    return [f"{rule.placeholder}: {rule.what}" for rule in RULES]


def import_transcripts(
    source: Path,
    out: Path,
    *,
    fmt: str = "auto",
    encoding: str | None = None,
    limit: int = MAX_CONVERSATIONS,
    progress: Callable[[int], None] | None = None,
) -> Summary:
    """Import `source` (a file, or a folder of Botium convos) into the folder `out`; raises TranscriptError
    when nothing in it can be read at all."""
    if not source.exists():
        raise TranscriptError(f"{source} does not exist.")
    try:
        return _import(source, out, fmt, encoding, limit, progress)
    except OSError as exc:  # unreadable, a folder where a file was expected, a full disk
        with contextlib.suppress(OSError):
            (out / f"{CONVERSATIONS_FILE}.partial").unlink(missing_ok=True)
        raise TranscriptError(f"Cannot import {source}: {exc.strerror or exc}.") from exc


def _import(
    source: Path,
    out: Path,
    fmt: str,
    encoding: str | None,
    limit: int,
    progress: Callable[[int], None] | None,
) -> Summary:
    chosen: Format = detect_format(source, encoding) if fmt == "auto" else fmt  # type: ignore[assignment]
    if chosen not in READERS:
        raise TranscriptError(f"Unknown format {fmt!r}: use auto, jsonl, csv, rasa or botium.")
    if source.is_dir() and chosen != "botium":
        raise TranscriptError(f"{source} is a folder: only Botium convo files are read from a folder.")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TranscriptError(f"Cannot create {out}: {exc.strerror}.") from exc
    problems = Problems()
    summary = Summary(source=source.name, format=chosen, rules=rules_text())
    masked: Counter[str] = Counter()
    partial = out / f"{CONVERSATIONS_FILE}.partial"
    with partial.open("w", encoding="utf-8") as written:
        for path, label in _files(source):
            reader = LineReader(path, problems, encoding=encoding, label=label)
            for raw in READERS[chosen](reader, problems, label):
                if summary.conversations >= limit:
                    summary.truncated = True
                    problems.add(
                        raw.line,
                        "warning",
                        f"the limit of {limit:,} conversations was reached: this conversation and the rest "
                        "of the input were not imported",
                        raw.file,
                    )
                    break
                conversation = mask_conversation(raw, summary.conversations + 1, chosen, problems)
                written.write(conversation.model_dump_json(exclude_none=True) + "\n")
                summary.conversations += 1
                summary.turns += len(conversation.turns)
                summary.user_turns += sum(t.role == "user" for t in conversation.turns)
                masked.update(conversation.masked)
                if progress and summary.conversations % 1000 == 0:
                    progress(summary.conversations)
            summary.lines_read += reader.lines_read
            if summary.truncated:
                break
    partial.replace(out / CONVERSATIONS_FILE)
    summary.bot_turns = summary.turns - summary.user_turns
    summary.masked = dict(sorted(masked.items()))
    summary.problems = problems.listed
    summary.problems_total = problems.total
    summary.errors = problems.errors
    summary.warnings = problems.warnings
    summary.skipped_records = problems.errors
    # Problems quote nothing but roles and ids; mask those too, in case an id was a phone number.
    for problem in summary.problems:
        problem.message = mask_text(problem.message)
    (out / SUMMARY_FILE).write_text(
        json.dumps(summary.model_dump(mode="json"), indent=2) + "\n", encoding="utf-8"
    )
    return summary
