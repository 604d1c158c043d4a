"""Plumbing: whole runs against each reference bot with the *scripted* LLM double, resume after a crash, cancel.

The script hands the engine the bot's ground truth (every module, its inputs and options), so these tests show
that the pipeline carries what the LLM says through to the model, the workflow, the profiles, the artefacts and
the events, and that checkpoints work. They say nothing about TRACER's quality; `test_quality.py` does, with
the imperfect double, which knows nothing of the bot.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from engine.bots import manifest
from engine.context import Cancelled, CancelToken, RecordingReporter, RunContext
from engine.sensei.validator import validate
from engine.tracer import TracerConfig, TracerJob, run_tracer
from engine.tracer.graph import build_graph

from .conftest import BotConnector, FailingConnector, ground_truth_script, make_deps, scripted_client

BOTS = ["pizza", "bike", "photography", "veterinary"]


@pytest.mark.parametrize("bot_id", BOTS)
def test_plumbing_run_against_reference_bot(bot_id: str, tmp_path: Path, checkpointer: InMemorySaver) -> None:
    client, chat = scripted_client(ground_truth_script(bot_id))
    connector = BotConnector(bot_id)
    reporter = RecordingReporter()
    config = TracerConfig(sessions=3, turns=4, output_dir=tmp_path, profile_model="gpt-4.1-mini")
    result = run_tracer(
        TracerJob(config, make_deps(client, connector), run_id=f"run-{bot_id}", checkpointer=checkpointer),
        RunContext(reporter=reporter),
    )

    truth = manifest(bot_id)
    # The model contains the bot's modules (each once), with the enum values as parameter options.
    assert set(truth.modules) <= set(result.model.names())
    for info in truth.inputs:
        node = result.model.get(info.module)
        assert node is not None
        parameter = next(p for p in node.parameters if p.name == info.slot)
        assert set(info.values) <= set(parameter.options)
    assert result.model.languages == ["English"]
    assert result.model.chatbot_type == "transactional"
    # The fallback came from the probes, locally (the LLM said null).
    assert result.model.fallback == truth.fallbacks[truth.entry]

    # The workflow: every module under the entry menu, the unknown parent dropped, the join kept.
    others = [name for name in truth.modules if name != truth.entry]
    edges = set(result.model.edges())
    assert {(truth.entry, name) for name in others} <= edges
    assert (others[-2], others[-1]) in edges
    assert result.model.joins() == [others[-1]]
    assert not any("ghost_step" in parent for node in result.model.functionalities for parent in node.parents)
    assert any("ghost_step" in warning for warning in result.warnings)
    # Categories that differ only in case were folded into one.
    assert set(result.model.categories()) <= {"Chatbot meta", "Tasks", "questions"}

    # Profiles validate with SENSEI and carry the profile model; conversation settings are computed.
    assert result.ok
    assert len(result.valid_profiles) == 2
    for record in result.profiles:
        checked = validate(record["yaml"])
        assert checked.ok, checked.problems
        assert checked.profile is not None
        assert checked.profile.llm.model == "gpt-4.1-mini"
        variable = checked.profile.user.variables[0]
        assert variable.name == "choice"
        assert "something unusual" in variable.data.items  # type: ignore[union-attr]
        assert checked.profile.conversation.goal_style.steps == 15

    # The transcripts talked to the real bot, and the LLM budget was respected.
    assert [t["session"] for t in result.transcripts] == [1, 2, 3]
    assert connector.sent
    assert result.usage["calls"] == len(chat.calls)
    explorer_turns = sum(1 for t in result.transcripts for turn in t["turns"] if turn["role"] == "explorer")
    per_turn = sum(
        result.usage["calls_by_tag"].get(f"tracer.{s}", 0) for s in ("explore", "rewrite", "fallback")
    )
    assert per_turn / explorer_turns <= 1.3

    # Artefacts.
    for name in ("model.json", "report.md", "graph.json", "graph.dot", "transcripts.json", "usage.json"):
        assert (tmp_path / name).is_file(), name
    assert len(list((tmp_path / "profiles").glob("*.yaml"))) == 2
    graph = json.loads((tmp_path / "graph.json").read_text())
    join_edges = [e for e in graph["edges"] if e["target"] == others[-1]]
    assert len(join_edges) == 2
    usage = json.loads((tmp_path / "usage.json").read_text())
    assert set(usage) >= {"calls", "calls_by_tag", "prompt_tokens", "completion_tokens", "cost_usd"}
    model_json = json.loads((tmp_path / "model.json").read_text())
    assert model_json["fallback"] == result.model.fallback
    entry = next(f for f in model_json["functionalities"] if f["name"] == truth.entry)
    assert set(entry["children"]) == set(others)

    # Reporter hooks.
    stages = [event[1] for event in reporter.of("stage")]
    assert stages[0] == "probe" and stages[-1] == "done"
    assert ("progress", 3, 3) in reporter.events
    assert reporter.of("message")
    assert any(event[1]["event"] == "added" for event in reporter.of("functionality"))
    assert len(reporter.of("usage")) == result.usage["calls"]


def test_plumbing_resume_after_crash_repeats_no_finished_session(checkpointer: InMemorySaver) -> None:
    sessions, crash_after = 4, 2
    config = TracerConfig(sessions=sessions, turns=3)

    # Reference: an uninterrupted run.
    client, _ = scripted_client(ground_truth_script("bike"))
    expected = run_tracer(
        TracerJob(config, make_deps(client, BotConnector("bike")), run_id="ref", checkpointer=InMemorySaver())
    )

    # The probe opens 4 conversations, session i opens conversation 4 + i: crash when session 3 starts.
    client, chat = scripted_client(ground_truth_script("bike"))
    crashing = FailingConnector("bike", fail_at=4 + crash_after + 1)
    with pytest.raises(RuntimeError, match="simulated crash"):
        run_tracer(TracerJob(config, make_deps(client, crashing), run_id="r1", checkpointer=checkpointer))
    calls_before = len(chat.calls)

    healthy = BotConnector("bike")
    result = run_tracer(TracerJob(config, make_deps(client, healthy), run_id="r1", checkpointer=checkpointer))
    assert result.resumed
    # Only the sessions after the crash ran again (no probe, no session 1..k).
    assert healthy.conversations == sessions - crash_after
    assert [t["session"] for t in result.transcripts] == list(range(1, sessions + 1))
    assert result.model == expected.model
    assert result.usage["calls"] == len(chat.calls) >= calls_before
    assert [p["yaml"] for p in result.profiles] == [p["yaml"] for p in expected.profiles]

    # A finished run returns its result without doing anything.
    again = BotConnector("bike")
    repeat = run_tracer(TracerJob(config, make_deps(client, again), run_id="r1", checkpointer=checkpointer))
    assert again.conversations == 0
    assert repeat.model == result.model


def test_plumbing_cancel_between_turns_then_resume(checkpointer: InMemorySaver) -> None:
    client, _ = scripted_client(ground_truth_script("veterinary"))
    token = CancelToken()

    class CancelOnSecondSession(RecordingReporter):
        def progress(self, done: int, total: int, **detail: Any) -> None:
            super().progress(done, total, **detail)
            if done == 1:
                token.cancel()

    config = TracerConfig(sessions=2, turns=3)
    with pytest.raises(Cancelled, match="resume it"):
        run_tracer(
            TracerJob(
                config, make_deps(client, BotConnector("veterinary")), run_id="c", checkpointer=checkpointer
            ),
            RunContext(reporter=CancelOnSecondSession(), cancel=token),
        )
    result = run_tracer(
        TracerJob(
            config, make_deps(client, BotConnector("veterinary")), run_id="c", checkpointer=checkpointer
        )
    )
    assert [t["session"] for t in result.transcripts] == [1, 2]


def test_plumbing_graph_shape() -> None:
    client, _ = scripted_client({})
    graph = build_graph(make_deps(client, BotConnector("bike"))).compile(checkpointer=InMemorySaver())
    drawn = graph.get_graph()
    edges = {(e.source, e.target) for e in drawn.edges}
    assert ("select", "converse") in edges and ("select", "consolidate") in edges
    assert ("extract", "select") in edges and ("artefacts", "__end__") in edges
