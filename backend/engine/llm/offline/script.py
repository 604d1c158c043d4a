"""Scripts for the offline provider: which answer each caller tag gets, in order.

A script maps a caller tag (or a structured-output schema name) to one reply or a list of replies; a list is
played in order and its last reply repeats. A reply is either a string (the answer text) or a mapping:

    {"content": "text"}                 the answer text, as is (may be invalid JSON on purpose)
    {"json": {...}}                     a structured answer, serialised to JSON
    {"usage": {"prompt_tokens": 1000, "completion_tokens": 50}}   token counts to report (else chars / 4)
    {"finish_reason": "length"}         why the answer ended (fake server only; "length" = cut off)
    {"fault": "rate_limit", "retry_after": 1}       HTTP 429 with Retry-After (seconds or an HTTP date)
    {"fault": "server_error", "status": 503}        HTTP 5xx (optional "message": the error text)
    {"fault": "auth"}                               HTTP 401
    {"fault": "malformed_body"}                     HTTP 200 whose body is not JSON
    {"fault": "malformed_json"}                     an answer that is not valid JSON (for structured calls)
    {"fault": "slow", "delay": 2}                   answer normally after `delay` seconds
    {"refusal": "I can't help with that."}          the model refuses (`message.refusal`, no content)
    {"content": ""}                                 an empty answer
    {"safety_block": true}                          Gemini's safety filter: no content, finish_reason content_filter
    {"blocked_prompt": true}                        Gemini's blocked prompt: no choice at all
    {"headers": {"x-ratelimit-remaining-requests": "0", ...}}   response headers of a successful answer

Unscripted calls get generated answers: schema-valid sample data for structured calls (the schema of the
request, or the one Parley wrote into the instructions), a fixed sentence naming the tag for plain ones. Outside
strict JSON-schema mode and tool calls, JSON answers (`json` replies and generated ones) come wrapped in prose,
see `prose_around()`; `content` replies are sent exactly as written.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from engine.llm.structured import schema_name

Reply = str | dict[str, Any]
Script = Mapping[str, Reply | list[Reply]]
FAULTS = ("rate_limit", "server_error", "auth", "malformed_body", "malformed_json", "slow")
MALFORMED_JSON = '{"answer": "this JSON object never ends'


def load_script(path: str | Path) -> dict[str, Reply | list[Reply]]:
    """A script from a YAML or JSON file (JSON is YAML, so one parser reads both)."""
    data = YAML(typ="safe", pure=True).load(Path(path).read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise TypeError(f"{path}: a script maps caller tags to replies.")
    return {str(tag): replies for tag, replies in data.items()}


def as_mapping(reply: Reply) -> dict[str, Any]:
    spec = {"content": reply} if isinstance(reply, str) else dict(reply)
    fault = spec.get("fault")
    if fault is not None and fault not in FAULTS:
        raise ValueError(f"Unknown fault {fault!r}; known faults: {', '.join(FAULTS)}.")
    return spec


def estimate_tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


def prose_around(json_text: str) -> str:
    """How the doubles wrap a JSON answer outside strict mode: a sentence, a fenced block, a closing remark."""
    return f"Here is the answer you asked for:\n```json\n{json_text}\n```\nLet me know if you need anything else."


class ScriptPlayer:
    """Hands out replies per tag in script order; thread-safe; script entries can be replaced while running."""

    def __init__(self, script: Script | None = None) -> None:
        self._lock = threading.Lock()
        self._queues: dict[str, list[dict[str, Any]]] = {}
        for tag, replies in (script or {}).items():
            self.set(tag, replies)

    def set(self, tag: str, replies: Reply | list[Reply]) -> None:
        items = replies if isinstance(replies, list) else [replies]
        with self._lock:
            self._queues[tag] = [as_mapping(r) for r in items]

    def clear(self) -> None:
        with self._lock:
            self._queues.clear()

    def next(self, *keys: str) -> dict[str, Any] | None:
        """The next reply for the first key the script knows (caller tag, then schema name).

        A schema name also finds the tag it was made from ("bench_verdict" finds "bench.verdict"), for
        clients that send structured calls without the tag header.
        """
        with self._lock:
            for key in filter(None, keys):
                queue = self._queues.get(key) or next(
                    (q for tag, q in self._queues.items() if q and schema_name(tag) == key), None
                )
                if queue:
                    return queue.pop(0) if len(queue) > 1 else dict(queue[0])
        return None
