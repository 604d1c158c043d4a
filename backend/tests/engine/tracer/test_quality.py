"""TRACER's quality, measured with the imperfect double (`engine.llm.offline.tracer`).

The double is given nothing about the bot: it reads the prompts as a model would, and names the same step with
other verbs, synonyms, word order or casing from one session to the next, sometimes leaves a field out or adds
a functionality that is not there. What it meant by every name it wrote is kept, so a finished model can be
checked for duplicates (two nodes for one step) and over-merges (one node for two steps). The bot's ground
truth is only used to check, never handed to the engine.
"""

from __future__ import annotations

from collections import defaultdict

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from engine.bots import bot_ids, manifest
from engine.context import RecordingReporter, RunContext
from engine.llm.offline.tracer import Concept, TracerDouble
from engine.tracer import TracerConfig, TracerJob, run_tracer
from engine.tracer.consolidate import LEXICAL_NOTE

from .conftest import BotConnector, imperfect_client, make_deps


def _names_per_step(double: TracerDouble) -> dict[Concept, set[str]]:
    written: dict[Concept, set[str]] = defaultdict(set)
    for name, concepts in double.meant.items():
        for concept in concepts:
            written[concept].add(name)
    return written


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("bot_id", bot_ids())
def test_no_duplicate_functionality_is_left_at_10_sessions_of_8_turns(
    bot_id: str, seed: int, checkpointer: InMemorySaver
) -> None:
    double = TracerDouble(seed=seed)
    client, _ = imperfect_client(double)
    connector = BotConnector(bot_id)
    result = run_tracer(
        TracerJob(
            TracerConfig(sessions=10, turns=8, seed=seed),
            make_deps(client, connector),
            run_id=f"quality-{bot_id}-{seed}",
            checkpointer=checkpointer,
        )
    )
    report = double.duplicate_report((f.name, f.merged_from) for f in result.model.functionalities)

    # The test can fail: the double did write some step under several names during the run.
    assert max(len(names) for names in _names_per_step(double).values()) >= 2
    assert report.pairs == [], f"{len(report.pairs)} duplicate pairs left, e.g. {report.pairs[:5]}"
    assert report.overmerged == [], f"functionalities that merged different steps: {report.overmerged}"
    assert report.nodes >= 6
    assert len(result.transcripts) == 10
    assert result.ok

    # The choices the chatbot offered in the conversations reached the model as parameter options.
    truth = manifest(bot_id)
    offered = {value.lower() for value in connector.buttons} - {
        t.lower() for ts in truth.menu_items.values() for t in ts
    }
    modelled = {o.lower() for f in result.model.functionalities for p in f.parameters for o in p.options}
    assert offered, "the explorer saw no choice at all"
    assert len(offered & modelled) / len(offered) >= 0.9, sorted(offered - modelled)


def test_the_lexical_mode_is_labelled_an_approximation_on_the_run(checkpointer: InMemorySaver) -> None:
    double = TracerDouble(seed=0)
    client, chat = imperfect_client(double)
    reporter = RecordingReporter()
    result = run_tracer(
        TracerJob(
            TracerConfig(sessions=4, turns=6, consolidation="lexical"),
            make_deps(client, BotConnector("pizza")),
            run_id="lexical",
            checkpointer=checkpointer,
        ),
        RunContext(reporter=reporter),
    )
    assert chat.calls_for("tracer.consolidate") == []
    assert LEXICAL_NOTE in result.warnings
    assert ("warning", LEXICAL_NOTE) in reporter.events
