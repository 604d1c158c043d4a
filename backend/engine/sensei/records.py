"""Conversation records: the published JSON Schema and the import of the reference tool's YAML files.

The record itself is `engine.conversation.ConversationRecord`, shared with SENSEI-check and the platform:
`settings` says how the conversation was planned (styles, goal style, seed, model ids, connector technology),
`outcome` how it went beside its verdict (why it stopped, who ended it, slips, notes, per-turn languages, LLM
calls by tag) and `turns` is the transcript (role, text, buttons, `at_s` timestamp, `latency_s` response time).
Version 2 of the schema moved the outcome out of `settings`; a version-1 record still loads
(`engine.conversation.upgrade_record`). Rules see both as one `meta`, as they always did.

`import_reference_conversation` reads the reference's three-document YAML conversation files (metadata,
timing, `interaction`) into a record so rules can be checked on conversations recorded elsewhere.
"""

from __future__ import annotations

import json
import re
from typing import Any

from engine.conversation import ConversationError, ConversationRecord, RecordSettings, Turn, Usage
from engine.yamlguard import load_all_yaml

SCHEMA_ID = "https://parley.invalid/schemas/conversation-record.json"
SCHEMA_VERSION = 2
_BUTTONS = re.compile(r"AVAILABLE BUTTONS:.*", re.DOTALL)


def conversation_record_schema() -> dict[str, Any]:
    """JSON Schema of a conversation record as stored and exported."""
    schema = ConversationRecord.model_json_schema(mode="serialization")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "x-parley-version": SCHEMA_VERSION,
        **schema,
    }


def _json(values: dict[str, Any]) -> dict[str, Any]:
    """YAML values as JSON (dates and times as ISO text): a record holds JSON only."""
    plain: dict[str, Any] = json.loads(json.dumps(values, default=str))
    return plain


def _pairs(items: Any) -> list[tuple[str, Any]]:
    pairs: list[tuple[str, Any]] = []
    for item in items or []:
        if isinstance(item, dict):
            pairs += [(str(k), v) for k, v in item.items()]
    return pairs


def import_reference_conversation(
    text: str, *, profile: str = "imported", index: int = 0
) -> ConversationRecord:
    """A record from a reference conversation file (`---`-separated metadata, timing and interaction)."""
    documents = [d for d in load_all_yaml(text.replace("\n----\n", "\n---\n")) if d is not None]
    merged: dict[str, Any] = {}
    for document in documents:
        if isinstance(document, dict):
            merged.update(document)
    goals: list[str] = []
    inputs: dict[str, Any] = {}
    for item in merged.get("ask_about") or []:
        if isinstance(item, str):
            goals.append(item)
        elif isinstance(item, dict):
            inputs.update({str(k): v for k, v in item.items()})
    outputs = dict(_pairs(merged.get("data_output")))
    errors = []
    for code, message in _pairs(merged.get("errors")):
        try:
            errors.append(ConversationError(code=int(code), message=str(message)))
        except ValueError:
            errors.append(ConversationError(code=0, message=f"{code}: {message}"))
    latencies = [float(v) for v in merged.get("assistant response time") or [] if isinstance(v, int | float)]
    turns: list[Turn] = []
    bot_index = 0
    for role, said in _pairs(merged.get("interaction")):
        if role.lower() == "user":
            turns.append(Turn(role="user", text=str(said)))
        else:
            latency = latencies[bot_index] if bot_index < len(latencies) else None
            bot_index += 1
            turns.append(Turn(role="bot", text=_BUTTONS.sub("", str(said)).rstrip(), latency_s=latency))
    reference: dict[str, Any] = {}
    for item in merged.get("conversation") or []:
        if isinstance(item, dict):
            reference.update({str(k): v for k, v in item.items()})
    cost = merged.get("total_cost($)")
    context = merged.get("context") or []
    return ConversationRecord(
        id=f"{profile}-{index}",
        profile=str(merged.get("test_name") or profile),
        index=index,
        language=merged.get("language"),
        context=[
            str(c) if not isinstance(c, dict) else ", ".join(f"{k}: {v}" for k, v in c.items())
            for c in (context if isinstance(context, list) else [context])
        ],
        goals=goals,
        inputs=_json(inputs),
        outputs=_json(outputs),
        settings=RecordSettings(imported_from="reference", reference=_json(reference)),
        turns=turns,
        errors=errors,
        duration_s=merged.get("conversation time"),
        usage=Usage(cost_usd=float(cost)) if isinstance(cost, int | float) else Usage(),
    )
