"""TRACER records where each functionality was found: the session and the turn whose chatbot reply showed it,
in model.json and graph.json, so a recorded prefix reaches it."""

from __future__ import annotations

import json

from engine.bots.adversarial import PIZZAS, SIZES, AdversarialConnector
from engine.llm.offline.tracer import TracerDouble
from engine.tracer import TracerConfig, TracerJob, run_tracer
from engine.tracer.found import locate
from engine.tracer.model import Functionality, Output, Parameter
from engine.tracer.state import ExplorationTranscript, ExplorationTurn

from .conftest import imperfect_client, make_deps


def _turn(role: str, text: str, fallback: bool = False) -> ExplorationTurn:
    return ExplorationTurn(role=role, text=text, fallback=fallback)  # type: ignore[typeddict-item]


SESSION = ExplorationTranscript(
    session=4,
    focus=None,
    turns=[
        _turn(
            "chatbot",
            "Hi! Welcome to Luigi's Pizza. What can I get you?\nOptions: Order a pizza | See the menu",
        ),
        _turn("explorer", "See the menu"),
        _turn("chatbot", "We have margherita, pepperoni and veggie pizzas, in small, medium and large."),
        _turn("explorer", "blah"),
        _turn("chatbot", "Sorry, I did not understand.", fallback=True),
        _turn("explorer", "Order a pizza"),
        _turn("chatbot", "Which pizza would you like?\nOptions: Margherita | Pepperoni | Veggie"),
    ],
    ended="turn_limit",
    error=None,
)


def test_a_step_that_asks_is_found_at_the_question_not_at_a_menu_naming_the_same_words():
    asks = Functionality(
        name="ask_pizza_type",
        description="Asks which pizza the user wants.",
        parameters=[Parameter(name="pizza", options=["Margherita", "Pepperoni", "Veggie"])],
    )
    found = locate(asks, SESSION)
    assert found is not None and (found.session, found.turn) == (4, 3)


def test_an_informing_step_is_found_at_the_reply_that_informs():
    menu = Functionality(
        name="show_menu",
        description="Lists the pizzas on the menu and their sizes.",
        outputs=[
            Output(name="menu_items", description="margherita, pepperoni, veggie; small, medium, large")
        ],
    )
    found = locate(menu, SESSION)
    assert found is not None and found.turn == 1


def test_a_step_no_reply_shows_has_no_place():
    assert locate(Functionality(name="track_delivery", description="Tracks a delivery."), SESSION) is None


def test_a_tracer_run_records_the_turn_of_each_step_in_model_and_graph(checkpointer, tmp_path):
    client, _ = imperfect_client(TracerDouble(seed=3))
    config = TracerConfig(sessions=4, turns=6, output_dir=tmp_path, seed=3)
    result = run_tracer(
        TracerJob(
            config,
            make_deps(client, AdversarialConnector("stateful")),
            run_id="found",
            checkpointer=checkpointer,
        )
    )
    sessions = {t["session"]: t for t in result.transcripts}
    checked = {"pizza": 0, "size": 0}
    for node in result.model.functionalities:
        options = {o.lower() for p in node.parameters for o in p.options}
        for found in node.found_at:
            replies = [t for t in sessions[found.session]["turns"] if t["role"] == "chatbot"]
            reply = replies[found.turn]["text"]  # the greeting is reply 0, the reply to message n is reply n
            if options and options <= {p.lower() for p in PIZZAS}:
                assert reply.startswith("Which pizza would you like?"), (node.name, found, reply)
                checked["pizza"] += 1
            if options and options <= {s.lower() for s in SIZES}:
                assert "Which size would you like?" in reply, (node.name, found, reply)
                checked["size"] += 1
    assert checked["pizza"] and checked["size"]
    model = json.loads((tmp_path / "model.json").read_text())
    graph = json.loads((tmp_path / "graph.json").read_text())
    placed = [f for f in model["functionalities"] if f["found_at"]]
    assert placed and all({"session", "turn"} <= set(f["found_at"][0]) for f in placed)
    nodes = {n["id"]: n for n in graph["nodes"]}
    assert all(nodes[f["name"]]["found_at"] == f["found_at"] for f in model["functionalities"])
