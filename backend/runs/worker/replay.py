"""Record and replay on the platform (README D24): every SENSEI run keeps its LLM calls as its `exchanges`
artefact, and a re-run of a SENSEI run against the current chatbot (`POST /api/runs/{id}/rerun/`) plans what
the source run planned and answers each LLM call from the source's exchanges while the chatbot answers as it did
(`engine.regression.replay`). The re-run's result says how many calls were saved and made.

Both the recording and the re-run normalise the project connector's `volatile` patterns as they stand when the
run starts; a pattern added after a run was recorded makes no difference to replaying that run's prompts that
held such a value (their recorded keys were computed without it), only to later recordings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.connectors.volatile import pattern_problem
from engine.redact import Scrubber
from engine.regression.replay import Exchange, Recording, Replay
from runs.models import Artefact, Run


@dataclass
class RunReplay:
    """The run's replay (recording always, answering from a source when it is a re-run) and the source's plan
    memory (seed, date, any() values), which a re-run's first attempt plans with."""

    replay: Replay
    source: int | None
    plan_memory: dict[str, Any]


def _exchanges(content: Any) -> list[Exchange]:
    items = content if isinstance(content, list) else []
    return [
        Exchange(str(e["key"]), str(e["tag"]), [str(v) for v in e.get("values", [])], str(e["answer"]))
        for e in items
        if isinstance(e, dict) and "key" in e and "answer" in e
    ]


def volatile_patterns(run: Run) -> list[str]:
    """The run's connector's volatile patterns (any that no longer passes the checks is left out)."""
    project = run.project
    stored = project.connector.volatile if project is not None else []
    return [p for p in stored or [] if pattern_problem(p) is None] if isinstance(stored, list) else []


def replay_for(run: Run) -> RunReplay:
    patterns = volatile_patterns(run)
    source_id = run.input.get("replay_of")
    if not isinstance(source_id, int):
        return RunReplay(Replay(patterns=patterns), None, {})
    stored = dict(
        Artefact.objects.filter(
            run_id=source_id, name__in=[Artefact.Name.EXCHANGES, Artefact.Name.PLAN]
        ).values_list("name", "content")
    )
    recording = Recording(_exchanges(stored.get(Artefact.Name.EXCHANGES)))
    plan = stored.get(Artefact.Name.PLAN)
    memory = {k: plan[k] for k in ("planned_on", "any_values") if k in plan} if isinstance(plan, dict) else {}
    return RunReplay(Replay(recording, patterns=patterns), source_id, memory)


def save_replay(run: Run, replaying: RunReplay, scrub: Scrubber) -> dict[str, Any]:
    """Keeps the run's recording; the replay figures for the run's result."""
    recording = [exchange.to_json() for exchange in replaying.replay.recording.exchanges()]
    Artefact.objects.update_or_create(
        run=run, name=Artefact.Name.EXCHANGES, defaults={"content": scrub.scrub(recording)}
    )
    return {"source": replaying.source, **replaying.replay.stats.to_json()}
