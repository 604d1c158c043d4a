"""The bot under test, in process, with its coverage recorded: `CoveredBot(definition, logs)`.

Like `engine.bots.connector.BotConnector` (the `demo` technology) but built from a `BotDefinition`, so that it
serves originals, generated mutants and mutants a caller made (the bench test's deliberately equivalent one)
alike, and it keeps the `CoverageLog` of every conversation it opens in a shared `CoverageLogs`. A bot crash
becomes a `ChatbotHTTPError` with status 500, as the same bot served over HTTP would answer.

The bot's own pseudo-random values (order numbers) are seeded by its conversation id; every conversation here
gets the same seed id, so that a conversation on a mutant and the same conversation on the original see the
same order numbers and stay paired turn by turn (an order number the simulated user reads differently would
otherwise send the two conversations apart). The coverage logs keep distinct ids.
"""

from __future__ import annotations

import itertools
import threading
from datetime import date

from engine.bots.connector import InProcessBot
from engine.bots.coverage import CoverageLog
from engine.bots.definition import BotDefinition
from engine.bots.runtime import BotRuntime

SEED_ID = "bench"
"""The conversation id every bot runtime of the bench is seeded with (see the module's docstring)."""


class CoverageLogs:
    """The coverage logs of every conversation of one phase (TRACER, or one SENSEI run), thread-safe."""

    def __init__(self) -> None:
        self._logs: list[CoverageLog] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    def new_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}-{next(self._ids)}"

    def add(self, log: CoverageLog) -> None:
        with self._lock:
            self._logs.append(log)

    @property
    def logs(self) -> list[CoverageLog]:
        with self._lock:
            return list(self._logs)


class CoveredBot(InProcessBot):
    def __init__(
        self, definition: BotDefinition, logs: CoverageLogs, *, today: date, label: str = "bench"
    ) -> None:
        self.definition = definition
        self.logs = logs
        self.today = today
        self.label = label

    def _open(self) -> BotRuntime:
        runtime = BotRuntime(self.definition, conversation_id=SEED_ID, today=self.today)
        runtime.coverage.conversation_id = self.logs.new_id(self.label)
        self.logs.add(runtime.coverage)
        return runtime

    def _name(self) -> str:
        return f"bot {self.definition.bot}"
