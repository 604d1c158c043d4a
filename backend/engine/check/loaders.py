"""Reading the conversations to check: Parley's conversation records and the reference tools' YAML files.

* `*.json` — one `ConversationRecord`, or a list of them; `*.jsonl` — one record per line.
* `*.yml` / `*.yaml` — a SENSEI conversation file: three YAML documents (metadata; timing; `interaction`),
  separated by `---` (or `----` as the paper prints them), converted into a `ConversationRecord`: goals and
  `{variable: value}` items of `ask_about` become goals and inputs, `data_output` the outputs, `conversation`
  the settings, `errors` the errors, the response times the bot turns' latencies, `total_cost($)` the cost.

A folder is read recursively. Folders named like `__report__` / `__stats_reports__` are skipped, and so is any
file that does not look like a conversation (a stats report, a profile) or cannot be read — each with a
reason in `LoadResult.skipped`, so one broken file never stops a check of the others.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from engine.check.errors import ConversationLoadError
from engine.conversation import ConversationError, ConversationRecord, RecordSettings, Turn, Usage

MAX_FILE_BYTES = 20 * 1024 * 1024
_SEPARATOR = re.compile(r"^-{3,}\s*$", re.MULTILINE)


@dataclass
class LoadResult:
    conversations: list[ConversationRecord] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, why)


def load_conversations(path: str | Path) -> LoadResult:
    """Every conversation in a file or folder; ConversationLoadError when the path does not exist."""
    root = Path(path)
    if not root.exists():
        raise ConversationLoadError(f"{root}: no such file or folder")
    result = LoadResult()
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    seen: set[str] = set()
    for file in files:
        relative = file.relative_to(root) if root.is_dir() else Path(file.name)
        if any(part.startswith("__") and part.endswith("__") for part in relative.parts[:-1]):
            continue
        if file.suffix not in (".json", ".jsonl", ".yml", ".yaml"):
            continue
        try:
            if file.stat().st_size > MAX_FILE_BYTES:
                raise ValueError(f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
            text = file.read_text(encoding="utf-8")
            if file.suffix == ".json":
                records = _json_records(json.loads(text))
            elif file.suffix == ".jsonl":
                records = [
                    ConversationRecord.model_validate_json(line) for line in text.splitlines() if line.strip()
                ]
            else:
                default_id = relative.with_suffix("").as_posix()
                records = [
                    reference_conversation(text, default_id=default_id, profile=_profile_name(relative))
                ]
        except NotAConversation as exc:
            result.skipped.append((str(file), f"not a conversation file: {exc}"))
            continue
        except (ValueError, ValidationError, YAMLError, UnicodeDecodeError, OSError) as exc:
            result.skipped.append((str(file), _why(exc)))
            continue
        for record in records:
            if record.id in seen:
                result.skipped.append(
                    (str(file), f"conversation id {record.id!r} appears twice; kept the first")
                )
                continue
            seen.add(record.id)
            result.conversations.append(record)
    return result


class NotAConversation(ValueError):
    """A file that is not a conversation (a report, a profile): skipped, not an error."""


def _why(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"not a valid conversation record: {where}: {first['msg']}"
    if isinstance(exc, YAMLError):
        return f"not valid YAML: {str(exc).splitlines()[0]}"
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8 text"
    if isinstance(exc, OSError):
        return f"cannot read: {exc.strerror}"
    return str(exc)


def _json_records(data: Any) -> list[ConversationRecord]:
    items = data if isinstance(data, list) else [data]
    if not items or not all(isinstance(item, dict) and "id" in item and "turns" in item for item in items):
        raise NotAConversation("expected a conversation record (with id and turns) or a list of them")
    return [ConversationRecord.model_validate(item) for item in items]


def _profile_name(relative: Path) -> str:
    # v1 layout: <test_name>/<serial>/<i>_<test_name>_<serial>.yml
    parents = relative.parts[:-1]
    if len(parents) >= 2:
        return parents[-2]
    if parents:
        return parents[-1]
    return relative.stem


def _documents(text: str) -> list[Any]:
    parts = _SEPARATOR.split(text)
    documents = []
    for part in parts:
        if part.strip():
            documents.append(YAML(typ="safe", pure=True).load(part))
    return documents


def _pairs(items: Any) -> list[tuple[str, Any]]:
    """[{a: 1}, {b: 2}] or {a: 1, b: 2} → [(a, 1), (b, 2)]; other items are ignored."""
    if isinstance(items, dict):
        return [(str(k), v) for k, v in items.items()]
    pairs: list[tuple[str, Any]] = []
    for item in items or []:
        if isinstance(item, dict):
            pairs.extend((str(k), v) for k, v in item.items())
    return pairs


def _plain(value: Any) -> Any:
    """YAML values as JSON-like data (dates and times become ISO text)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    iso = getattr(value, "isoformat", None)
    return iso() if callable(iso) else str(value)


def reference_conversation(text: str, *, default_id: str, profile: str = "") -> ConversationRecord:
    """Convert one SENSEI conversation file (three YAML documents) into a ConversationRecord."""
    documents = [doc for doc in _documents(text) if isinstance(doc, dict)]
    merged: dict[str, Any] = {}
    for document in documents:
        merged.update(document)
    if "interaction" not in merged:
        raise NotAConversation("no `interaction` transcript")
    turns: list[Turn] = []
    latencies = [float(t) for t in merged.get("assistant response time") or [] if isinstance(t, int | float)]
    for item in merged.get("interaction") or []:
        if not isinstance(item, dict) or len(item) != 1:
            raise ValueError("each interaction item must be a single `User: …` or `Assistant: …` entry")
        ((speaker, said),) = item.items()
        speaker = str(speaker).strip().lower()
        role = "user" if speaker == "user" else "bot" if speaker in ("assistant", "chatbot", "bot") else None
        if role is None:
            raise ValueError(f"unknown speaker {speaker!r} in the interaction")
        latency = None
        if role == "bot":
            bot_index = sum(1 for turn in turns if turn.role == "bot")
            latency = latencies[bot_index] if bot_index < len(latencies) else None
        turns.append(
            Turn.model_validate(
                {"role": role, "text": "" if said is None else str(said), "latency_s": latency}
            )
        )

    goals: list[str] = []
    inputs: dict[str, Any] = {}
    for item in merged.get("ask_about") or []:
        if isinstance(item, str):
            goals.append(item)
        elif isinstance(item, dict):
            inputs.update({str(k): _plain(v) for k, v in item.items()})
    outputs = {name: _plain(value) for name, value in _pairs(merged.get("data_output"))}
    settings = {name: _plain(value) for name, value in _pairs(merged.get("conversation"))}
    errors: list[ConversationError] = []
    for code, message in _pairs(merged.get("errors")):
        try:
            number = int(code)
        except ValueError:
            number = 0
        errors.append(ConversationError(code=number, message="" if message is None else str(message)))
    context = [
        item if isinstance(item, str) else json.dumps(_plain(item), ensure_ascii=False)
        for item in merged.get("context") or []
    ]
    cost = merged.get("total_cost($)")
    duration = merged.get("conversation time")
    match = re.match(r"(\d+)_", Path(default_id).name)
    return ConversationRecord(
        id=default_id,
        profile=profile or str(merged.get("serial") or ""),
        index=int(match.group(1)) if match else 0,
        language=str(merged["language"]) if merged.get("language") else None,
        context=context,
        goals=goals,
        inputs=inputs,
        outputs=outputs,
        settings=RecordSettings(imported_from="reference", reference=settings),
        turns=turns,
        errors=errors,
        duration_s=float(duration) if isinstance(duration, int | float) else None,
        usage=Usage(cost_usd=float(cost) if isinstance(cost, int | float) else None),
    )
