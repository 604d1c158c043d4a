"""The coverage map (Regression item 4): which TRACER functionalities a SENSEI run's conversations reached, where
the failed ones failed, which were never reached — decided by words from the chatbot's replies, honestly labelled,
and "not decidable" rather than a guess when the words cannot tell."""

from __future__ import annotations

import argparse
import json
from typing import Any

from commands import sensei as sensei_command
from engine.regression import run_data
from engine.regression.coverage import coverage, graph_nodes, to_text, words
from engine.sensei.verdicts import VERDICT_RULES
from tests.engine.regression.records import write_run

# A graph.json as TRACER writes it (the start node, flow edges, a category box is not a node).
GRAPH: dict[str, Any] = {
    "nodes": [
        {"id": "__start__", "label": "Start", "kind": "start"},
        {
            "id": "order_pizza",
            "label": "Order pizza",
            "kind": "functionality",
            "description": "Takes a pizza order and asks for its size",
            "parameters": [
                {"name": "pizza_size", "description": "", "options": ["small", "medium", "large"]}
            ],
            "outputs": [],
        },
        {
            "id": "confirm_order",
            "label": "Confirm order",
            "kind": "functionality",
            "description": "Confirms the order with its total price and an order id",
            "parameters": [],
            "outputs": [{"name": "total_price", "description": "the price in euros"}],
        },
        {
            "id": "opening_hours",
            "label": "Opening hours",
            "kind": "functionality",
            "description": "Tells when the shop opens",
            "parameters": [],
            "outputs": [],
        },
        {
            "id": "ask_for_info",
            "label": "Ask for info",
            "kind": "functionality",
            "description": "",
            "parameters": [],
        },
    ],
    "edges": [
        {"source": "__start__", "target": "order_pizza", "kind": "entry"},
        {"source": "order_pizza", "target": "confirm_order", "kind": "flow"},
    ],
}


def conversation(
    index: int, *bot: str, verdict: str = "passed", fault_turn: int | None = None
) -> dict[str, Any]:
    turns: list[dict[str, Any]] = []
    for text in bot:
        turns += [{"role": "user", "text": "I want a pizza, please."}, {"role": "bot", "text": text}]
    errors = [{"code": 500, "message": "HTTP 500", "turn": fault_turn}] if fault_turn is not None else []
    return {
        "id": f"c{index}",
        "profile": "pizza",
        "index": index,
        "inputs": {},
        "settings": {},
        "turns": turns,
        "errors": errors,
        "usage": {},
        "verdict": verdict,
        "verdict_reason": "",
        "verdict_rules": VERDICT_RULES,  # decided by today's rules, as SENSEI writes records
    }


def test_each_functionality_counts_the_conversations_that_reached_it_and_failed_there():
    run = run_data(
        "run",
        [
            conversation(
                0,
                "Which size would you like: small, medium or large?",
                "Order confirmed, total price 12 euros.",
            ),
            conversation(
                1,
                "Pizzas come small, medium or large. Which size?",
                "Error 500",
                verdict="failed",
                fault_turn=3,
            ),
            # Nothing but the chatbot's own fallback: it reached nothing.
            conversation(2, "Sorry, I did not get that."),
        ],
    )
    result = coverage(GRAPH, run)
    by_name = {n.name: n for n in result.nodes}
    assert [n.name for n in result.nodes] == ["order_pizza", "confirm_order", "opening_hours", "ask_for_info"]
    assert (by_name["order_pizza"].reached, by_name["order_pizza"].failed) == (
        2,
        1,
    )  # failed after a size question
    assert (by_name["confirm_order"].reached, by_name["confirm_order"].failed) == (1, 0)
    assert by_name["opening_hours"].reached == 0 and result.unreached == ["opening_hours"]
    assert result.reached_none == 1 and result.conversations == 3
    # Every "reached" is auditable: which reply, which words.
    first = by_name["order_pizza"].evidence[0]
    assert (first.conversation, first.turn) == ("c0", 1) and {"size", "small"} <= set(first.shared)
    assert by_name["confirm_order"].parents == ["order_pizza"]
    # A node with no word of its own is not decidable — listed apart, never called unreached.
    assert result.undecidable == ["ask_for_info"] and "ask_for_info" not in result.unreached
    text = to_text(result)
    assert "approximation" in text and "ask_for_info" in text and "not decidable" in text
    assert "unreached: opening_hours" in text


def test_a_failed_rule_fails_a_conversation_at_the_last_functionality_it_reached():
    records = [
        conversation(
            0, "Which size: small, medium or large?", "Your order is confirmed, total price 9 euros."
        )
    ]
    reports = [
        {"name": "price_shown", "failed": 1, "results": [{"outcome": "fail", "conversations": ["c0"]}]}
    ]
    result = coverage(GRAPH, run_data("run", records, rule_reports=reports))
    by_name = {n.name: n for n in result.nodes}
    assert by_name["confirm_order"].failed == 1 and by_name["order_pizza"].failed == 0
    assert by_name["confirm_order"].failed_conversations == ["c0"]


def test_when_no_reply_shares_a_word_with_the_graph_nothing_is_called_unreached():
    # The graph is in English, the chatbot answers in German: the words never meet.
    run = run_data("run", [conversation(0, "Welche Größe möchten Sie? Klein oder groß?", verdict="failed")])
    result = coverage(GRAPH, run)
    assert not result.decided
    assert result.to_json()["unreached"] == [] and result.failed_unplaced == 1
    assert any("not decidable" in note for note in result.notes)


def test_imperfect_graphs_are_read_without_failing():
    assert graph_nodes({}) == [] and graph_nodes({"nodes": "nonsense"}) == []
    # model.json's shape, with a duplicate, a node without a name and a parameter list that is not a list.
    model = {
        "functionalities": [
            {
                "name": "track_order",
                "description": "Tracks a delivery",
                "parents": ["order_pizza"],
                "parameters": 3,
            },
            {"name": "track_order", "description": "again"},
            {"description": "no name"},
            "not a node",
        ]
    }
    (node,) = graph_nodes(model)
    assert (node.name, node.parents) == ("track_order", ("order_pizza",))
    empty = coverage(model, run_data("run", []))
    assert empty.conversations == 0 and empty.unreached == ["track_order"]
    assert coverage({}, run_data("run", [conversation(0, "Hi")])).nodes == []
    assert words("Ordering Pizzas, the user's SIZE") == {"order", "pizza", "size"}


def test_the_cli_prints_the_map_and_gates_on_unreached_functionalities(tmp_path, capsys):
    tracer = tmp_path / "tracer"
    tracer.mkdir()
    (tracer / "graph.json").write_text(json.dumps(GRAPH), encoding="utf-8")
    write_run(tmp_path / "run", [conversation(0, "Which size: small, medium or large?")])
    parser = argparse.ArgumentParser(prog="parley")
    sensei_command.register(parser.add_subparsers(dest="command"))

    def cli(*argv: str) -> int:
        args = parser.parse_args(["sensei", "coverage", *argv])
        return int(args.handler(args))

    assert cli("--tracer", str(tracer), "--run", str(tmp_path / "run")) == 0
    out = capsys.readouterr().out
    assert "order_pizza" in out and "reached 1, failed 0" in out
    assert "unreached: confirm_order, opening_hours" in out
    assert cli("--tracer", str(tracer), "--run", str(tmp_path / "run"), "--fail-on-unreached") == 1
    capsys.readouterr()
    assert cli("--tracer", str(tracer / "graph.json"), "--run", str(tmp_path / "run"), "--json") == 0
    document = json.loads(capsys.readouterr().out)
    assert document["unreached"] == ["confirm_order", "opening_hours"] and document["method"] == "words"
    assert cli("--tracer", str(tmp_path / "run"), "--run", str(tmp_path / "run")) == 2
    assert "no graph.json or model.json" in capsys.readouterr().err
