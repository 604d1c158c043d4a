"""`benchmarks/tracer_duplicates.py`, whose README figures must come from its own options and from a metric that
does not share the double's judgement (issue 34, item 7): duplicates are judged against the bot's definition, so
two names the double reads as different steps but wrote for the same chatbot words are a duplicate pair."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from engine.llm.offline.imperfect import glued
from engine.llm.offline.tracer import Concept, TracerDouble

SCRIPT = Path(__file__).parents[3] / "benchmarks" / "tracer_duplicates.py"
FAQ = "A standard visit costs between 45$ and 55$, depending on the animal."
BOOKED = "Your visit for your dog is booked on 03/03/2026 at 10:00. A standard visit costs 55$. See you then!"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("tracer_duplicates", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_two_names_for_the_same_chatbot_words_are_a_duplicate_even_when_the_double_reads_two_steps(bench):
    first, second = "report_standard_visit_cost", "display_between_of_standard_cost"
    double = TracerDouble()
    double.meant = {
        glued(first): {Concept("inform", frozenset({"standard", "visit", "cost"}))},
        glued(second): {Concept("inform", frozenset({"between", "standard", "cost"}))},
    }
    nodes = [(first, []), (second, [])]
    assert double.duplicate_report(nodes).pairs == []  # the double's own view sees nothing wrong
    read = {glued(first): {FAQ}, glued(second): {FAQ}}
    report = bench.ground_truth_report("veterinary", [FAQ, BOOKED], read, nodes)
    assert report["pairs"] == [[first, second]]
    assert report["overmerged"] == [] and report["distinct_steps"] == 1


def test_one_node_for_two_parts_of_the_definition_is_over_merged_and_an_invented_one_is_counted(bench):
    read = {"visitcost": {FAQ, "A standard visit costs 55$."}, "bookingdone": {BOOKED}}
    nodes = [("visit_cost", []), ("booking_done", []), ("loyalty_points", [])]
    report = bench.ground_truth_report("veterinary", [FAQ, BOOKED], read, nodes)
    assert report["overmerged"] == ["visit_cost"]
    assert report["pairs"] == [["visit_cost", "booking_done"]]  # both stand for the booking's response
    assert report["invented"] == 1


def run(bench, capsys, *argv: str) -> dict:
    code = bench.main(["--bots", "veterinary", "--seeds", "1", "--sessions", "4", "--turns", "6", *argv])
    line = json.loads(capsys.readouterr().out)
    assert code == (0 if line["ok"] else 1)
    return line


def test_every_figure_has_its_option_and_every_word_is_traced(bench, capsys):
    numbered = run(bench, capsys)
    randomised = run(bench, capsys, "--random-ids")
    again = run(bench, capsys, "--random-ids")
    lexical = run(bench, capsys, "--consolidation", "lexical")
    assert (numbered["conversation_ids"], randomised["conversation_ids"]) == (
        "numbered",
        "random (from the seed)",
    )
    assert randomised["runs"] == again["runs"] or _same_but_time(randomised, again)
    assert lexical["consolidation"] == "lexical" and lexical["runs"][0]["consolidation_calls"] == 0
    assert numbered["runs"][0]["consolidation_calls"] > 0
    for line in (numbered, randomised, lexical):
        run_ = line["runs"][0]
        assert run_["unsourced_messages"] == 0 and run_["untraced_texts"] == 0
        assert run_["functionalities"] >= 4


def _same_but_time(one: dict, other: dict) -> bool:
    strip = [{k: v for k, v in r.items() if k != "seconds"} for r in one["runs"]]
    return strip == [{k: v for k, v in r.items() if k != "seconds"} for r in other["runs"]]


def test_random_ids_differ_from_numbered_ones_and_repeat_for_one_seed(bench):
    import random

    numbered = bench.InProcessBot("pizza")
    drawn = bench.InProcessBot("pizza", random.Random("pizza:3"))
    same = bench.InProcessBot("pizza", random.Random("pizza:3"))
    for bot in (numbered, drawn, same):
        bot.new_conversation()
    assert numbered.runtime.conversation_id == "pizza-1"
    assert drawn.runtime.conversation_id == same.runtime.conversation_id != "pizza-1"
