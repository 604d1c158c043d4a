"""The explorer role of model qualification: TRACER's functionalities judged against the bot's definition (not
against any model's reading), per candidate, with a verdict."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from engine.bots.definition import Faq
from engine.bots.registry import load_bot
from engine.evaluation.qualify_explorer import (
    against_definition,
    explorer_verdict,
    qualify_explorer,
    tracer_double_client,
)
from engine.evaluation.qualify_plan import Size, Thresholds, parse_candidates
from engine.tracer import TracerResult
from engine.tracer.model import FoundAt, Functionality, FunctionalModel

PLAN = Size(("pizza", "bike"), 1, 2, 3, 1, 1, 3, 6)


def _transcript(session: int, *turns: tuple[str, str]) -> dict[str, Any]:
    return {
        "session": session,
        "focus": None,
        "turns": [{"role": role, "text": text, "fallback": False} for role, text in turns],
        "ended": "turns",
        "error": None,
    }


def test_functionalities_are_traced_to_the_steps_of_the_definition() -> None:
    bike = load_bot("bike")
    [(faq_name, faq)] = [(name, m) for name, m in bike.modules.items() if isinstance(m, Faq)]
    first, second = faq.questions[0], faq.questions[1]
    transcripts = [
        _transcript(
            1, ("chatbot", bike.greeting.text or ""), ("explorer", "hours?"), ("chatbot", first.answer)
        ),
        _transcript(
            2, ("explorer", "and?"), ("chatbot", second.answer), ("explorer", "hm"), ("chatbot", "zzz")
        ),
    ]
    model = FunctionalModel(
        functionalities=[
            Functionality(name="answer a", found_at=[FoundAt(session=1, turn=1)]),
            Functionality(name="answer a again", found_at=[FoundAt(session=1, turn=1)]),  # a duplicate
            Functionality(name="greet", found_at=[FoundAt(session=1, turn=0)]),  # the greeting is no step
            Functionality(name="made up", found_at=[FoundAt(session=2, turn=2)]),  # words the bot never wrote
        ]
    )
    result = TracerResult(run_id="t", model=model, profiles=[], transcripts=transcripts, usage={})  # type: ignore[arg-type]
    counts = against_definition(bike, result)
    assert (counts["real"], counts["duplicates"], counts["invented"]) == (1, 1, 2)
    assert counts["found"] == 1 and counts["shown"] == 2  # the second answer was shown, never written down
    assert f"faq:{faq_name}/{second.id}" in counts["missed"]


def test_every_candidate_gets_an_explorer_row_with_a_verdict(tmp_path: Path) -> None:
    rows = {}
    for name in ("perfect", "imperfect"):
        [candidate] = parse_candidates(f"double:{name}", local_url="http://127.0.0.1:8095/v1")
        rows[name] = qualify_explorer(
            candidate,
            partial(tracer_double_client, name, 0),
            PLAN,
            seed=0,
            thresholds=Thresholds(min_explorer_sessions=1),
            out=tmp_path / name,
        )
    for row in rows.values():
        assert row["role"] == "explorer" and row["functionalities"] > 0 and row["llm_calls"] > 0
        assert 0 < row["recall"] <= row["coverage"] <= 100 and 0 < row["precision"] <= 100
        assert set(row["per_bot"]) == {"pizza", "bike"}
        assert (
            row["verdict"] == explorer_verdict(row, row["sessions"], Thresholds(min_explorer_sessions=1))[0]
        )
        assert (tmp_path / row["model"].split(":")[1] / "pizza").is_dir()  # TRACER's artefacts kept
    # The ceiling invents no more than the imperfect double, which adds functionalities the chatbot never showed.
    assert rows["perfect"]["invented"] <= rows["imperfect"]["invented"]
    # Six sessions are fewer than D32-style ten: too few to tell by default.
    assert (
        explorer_verdict(rows["perfect"], rows["perfect"]["sessions"], Thresholds())[0] == "too few to tell"
    )


def test_the_explorer_verdict_follows_its_thresholds() -> None:
    row = {"precision": 85.0, "recall": 65.0, "coverage": 80.0}
    t = Thresholds()
    assert explorer_verdict(row, 12, t)[0] == "qualified"
    assert explorer_verdict({**row, "precision": 70.0}, 12, t)[0] == "usable with care"
    assert explorer_verdict({**row, "recall": 30.0}, 12, t)[0] == "not qualified"
    assert explorer_verdict(row, 12, Thresholds(explorer_recall=70.0))[0] == "usable with care"
