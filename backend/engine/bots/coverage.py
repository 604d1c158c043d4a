"""Coverage of a bot's ground truth by conversations (the thesis's RQ1 measure).

Each conversation keeps a `CoverageLog`: modules activated, inputs requested and filled, enum values
accepted, FAQ questions answered, menu answers given, fallbacks said. `coverage_percentages` turns one or
several logs into module / input / value / question coverage against the manifest (a union over the
conversations for an aggregate). `CoverageStore` holds the logs of a running server, thread-safely.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from engine.bots.groundtruth import Manifest


@dataclass
class CoverageLog:
    conversation_id: str
    bot: str
    modules: set[str] = field(default_factory=set)
    inputs_requested: set[tuple[str, str]] = field(default_factory=set)
    inputs_filled: set[tuple[str, str]] = field(default_factory=set)
    values: set[tuple[str, str, str]] = field(default_factory=set)
    questions: set[tuple[str, str]] = field(default_factory=set)
    answers: set[tuple[str, str]] = field(default_factory=set)
    fallbacks: int = 0
    turns: int = 0

    def to_json(self, manifest: Manifest | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {
            "conversation_id": self.conversation_id,
            "bot": self.bot,
            "turns": self.turns,
            "fallbacks": self.fallbacks,
            "modules": sorted(self.modules),
            "inputs_requested": [list(k) for k in sorted(self.inputs_requested)],
            "inputs_filled": [list(k) for k in sorted(self.inputs_filled)],
            "values": [list(k) for k in sorted(self.values)],
            "questions": [list(k) for k in sorted(self.questions)],
            "answers": [list(k) for k in sorted(self.answers)],
        }
        if manifest is not None:
            data["coverage"] = coverage_percentages(manifest, [self])
        return data


def _percent(hit: int, total: int) -> float:
    return round(100.0 * hit / total, 2) if total else 100.0


def coverage_percentages(manifest: Manifest, logs: Iterable[CoverageLog]) -> dict[str, Any]:
    """Module / input / value / question coverage (percent, two decimals) of the union of `logs`."""
    modules: set[str] = set()
    inputs: set[tuple[str, str]] = set()
    values: set[tuple[str, str, str]] = set()
    questions: set[tuple[str, str]] = set()
    count = 0
    for log in logs:
        count += 1
        modules |= log.modules
        inputs |= log.inputs_filled
        values |= log.values
        questions |= log.questions
    all_inputs = set(manifest.input_keys)
    all_values = set(manifest.values)
    all_questions = set(manifest.question_keys)
    return {
        "conversations": count,
        "module": _percent(len(modules & set(manifest.modules)), len(manifest.modules)),
        "input": _percent(len(inputs & all_inputs), len(all_inputs)),
        "value": _percent(len(values & all_values), len(all_values)),
        "question": _percent(len(questions & all_questions), len(all_questions)),
        "counts": {
            "modules": [len(modules & set(manifest.modules)), len(manifest.modules)],
            "inputs": [len(inputs & all_inputs), len(all_inputs)],
            "values": [len(values & all_values), len(all_values)],
            "questions": [len(questions & all_questions), len(all_questions)],
        },
    }


class CoverageStore:
    """The logs of every conversation a server has seen (kept even when the server forgets sessions)."""

    def __init__(self, manifest: Manifest) -> None:
        self.manifest = manifest
        self._logs: dict[str, CoverageLog] = {}
        self._lock = threading.Lock()

    def add(self, log: CoverageLog) -> None:
        with self._lock:
            self._logs[log.conversation_id] = log

    def get(self, conversation_id: str) -> CoverageLog | None:
        with self._lock:
            return self._logs.get(conversation_id)

    def report(self, conversation_id: str) -> dict[str, Any] | None:
        log = self.get(conversation_id)
        return None if log is None else log.to_json(self.manifest)

    def aggregate(self) -> dict[str, Any]:
        with self._lock:
            logs = list(self._logs.values())
        return {
            "bot": self.manifest.bot,
            "sizes": self.manifest.sizes(),
            **coverage_percentages(self.manifest, logs),
            "conversation_ids": [log.conversation_id for log in logs],
        }
