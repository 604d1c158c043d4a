"""Duplicate consolidation: the local shortlist proposes, the LLM confirms only the candidates."""

from __future__ import annotations

from engine.tracer import TracerConfig
from engine.tracer.consolidate import consolidate, merge_nodes, resolve_candidates
from engine.tracer.model import Functionality, FunctionalModel, Output, Parameter
from engine.tracer.similarity import shortlist

from .conftest import BotConnector, make_deps, scripted_client

SIZE = ["small", "medium", "large"]


def _model() -> FunctionalModel:
    return FunctionalModel(
        functionalities=[
            Functionality(
                name="prompt_for_pizza_size",
                description="Asks the user which size of pizza they want.",
                parameters=[Parameter(name="pizza_size", options=SIZE)],
            ),
            Functionality(
                name="ask_pizza_size",
                description="Asks which pizza size the customer would like.",
                parameters=[Parameter(name="pizza_size", options=["small", "large", "extra large"])],
                outputs=[Output(name="size_list", description="sizes: small, medium, large")],
            ),
            Functionality(
                name="request_size_of_pizza",
                description="Requests the size of the pizza being ordered.",
                parameters=[Parameter(name="size", options=SIZE)],
            ),
            Functionality(
                name="present_drink_menu",
                description="Lists the drinks on offer with their prices.",
                outputs=[Output(name="drinks", description="coke, water, lemonade")],
            ),
            Functionality(
                name="provide_opening_hours",
                description="Tells when the shop is open.",
                outputs=[Output(name="hours", description="opening hours")],
            ),
            Functionality(
                name="confirm_pizza_order",
                description="Confirms the order and gives its total price.",
                parents=["ask_pizza_size"],
            ),
        ]
    )


def test_shortlist_proposes_only_near_duplicates() -> None:
    candidates = shortlist(_model().functionalities, threshold=TracerConfig().duplicate_threshold)
    sizes = {"prompt_for_pizza_size", "ask_pizza_size", "request_size_of_pizza"}
    assert candidates
    assert all({c.a, c.b} <= sizes for c in candidates)


def test_near_duplicates_merge_into_one_and_distinct_ones_stay_apart() -> None:
    client, chat = scripted_client(
        {
            "tracer.consolidate": {
                "json": {
                    "verdicts": [
                        {"pair": n, "same": True, "description": "Asks for the pizza size."}
                        for n in range(1, 10)
                    ]
                }
            }
        }
    )
    deps = make_deps(client, BotConnector("pizza"))
    update = consolidate(deps, {"model": _model().model_dump(mode="json"), "judged_pairs": []})
    model = FunctionalModel.model_validate(update["model"])
    assert model.names() == [
        "prompt_for_pizza_size",
        "present_drink_menu",
        "provide_opening_hours",
        "confirm_pizza_order",
    ]
    merged = model.get("prompt_for_pizza_size")
    assert merged is not None
    assert sorted(merged.merged_from) == ["ask_pizza_size", "request_size_of_pizza"]
    assert merged.description == "Asks for the pizza size."
    # Parameters, options and outputs are unioned.
    options = {p.name: p.options for p in merged.parameters}
    assert options["pizza_size"] == ["small", "medium", "large", "extra large"]
    assert "size" in options
    assert [o.name for o in merged.outputs] == ["size_list"]
    # The child of an absorbed node now hangs from the survivor.
    confirm = model.get("confirm_pizza_order")
    assert confirm is not None and confirm.parents == ["prompt_for_pizza_size"]
    # One call judged all the candidates; the pairs are remembered.
    assert len(chat.calls_for("tracer.consolidate")) == 1
    assert update["judged_pairs"]


def test_rejected_candidates_stay_apart_and_are_not_asked_again() -> None:
    client, chat = scripted_client({"tracer.consolidate": {"json": {"verdicts": []}}})
    deps = make_deps(client, BotConnector("pizza"))
    first = consolidate(deps, {"model": _model().model_dump(mode="json"), "judged_pairs": []})
    assert len(FunctionalModel.model_validate(first["model"]).functionalities) == 6
    consolidate(deps, {"model": first["model"], "judged_pairs": first["judged_pairs"]})
    assert len(chat.calls_for("tracer.consolidate")) == 1


def test_certain_duplicates_merge_without_the_llm() -> None:
    client, chat = scripted_client({})
    deps = make_deps(client, BotConnector("pizza"))
    model = FunctionalModel(
        functionalities=[
            Functionality(name="show_opening_hours", description="Tells the opening hours of the shop."),
            Functionality(name="show_opening_hour", description="Tells the opening hours of the shop."),
        ]
    )
    candidates = shortlist(model.functionalities, threshold=0.5)
    resolve_candidates(deps, model, candidates, set())
    assert model.names() == ["show_opening_hours"]
    assert chat.calls == []


def test_merge_never_creates_self_links() -> None:
    model = FunctionalModel(
        functionalities=[
            Functionality(name="a", parents=["b"]),
            Functionality(name="b"),
            Functionality(name="c", parents=["a", "b"]),
        ]
    )
    merge_nodes(model, "a", "b")
    assert model.get("a").parents == []  # type: ignore[union-attr]
    assert model.get("c").parents == ["a"]  # type: ignore[union-attr]
