"""What the TRACER graph needs from outside: the LLM client, the connector, the profile validator, the run context
(reporter, cancel token).

Built by the caller and handed to `build_graph(deps)`; nothing here is created at import time. The default
profile validator is SENSEI's; tests may pass another one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from engine.connectors import Connector
from engine.context import RunContext
from engine.llm import BudgetExceeded, LLMAuthError, LLMClient, LLMConfigError, LLMError
from engine.tracer.config import TracerConfig

TRACER_CANCELLED = "The TRACER run was cancelled; resume it to continue from the last checkpoint."

ProfileValidator = Callable[[str], list[str]]
"""YAML text of a profile → its error messages (empty when the profile is valid)."""


def sensei_errors(yaml_text: str) -> list[str]:
    """SENSEI's validator, reduced to readable error lines ("path: message (hint)")."""
    from engine.sensei.validator import validate

    result = validate(yaml_text, source="profile")
    lines = []
    for problem in result.errors:
        where = f"{problem.path}: " if problem.path else ""
        hint = f" ({problem.hint})" if problem.hint else ""
        lines.append(f"{where}{problem.message}{hint}")
    if result.profile is None and not lines:
        lines.append("the profile could not be read")
    return lines


def survivable(error: LLMError) -> bool:
    """An LLM failure one session can absorb (a passing outage, a refused or malformed answer), unlike one that
    every later call would repeat: a rejected key, impossible settings, a spent budget, or whatever the gateway
    marks as ending the run (`ends_run`: the circuit breaker is open, the model does not exist)."""
    if getattr(error, "ends_run", False):
        return False
    return not isinstance(error, LLMAuthError | LLMConfigError | BudgetExceeded)


@dataclass
class TracerDeps:
    llm: LLMClient
    connector: Connector
    config: TracerConfig = field(default_factory=TracerConfig)
    context: RunContext = field(default_factory=RunContext)
    validate_profile: ProfileValidator = sensei_errors
    clock: Callable[[], float] = time.time

    @contextmanager
    def usage_delta(self) -> Iterator[list[dict[str, Any]]]:
        """Collects, as JSON, the ledger records added inside the block (for the state's `usage` field)."""
        start = len(self.llm.ledger.records)
        collected: list[dict[str, Any]] = []
        try:
            yield collected
        finally:
            collected.extend(record.to_json() for record in self.llm.ledger.records[start:])
