"""Duplicate consolidation: extraction sees the known names and reuses them; a wide shortlist lets the LLM
decide in one batched call; without the LLM, lexical similarity decides and the run is told so."""

from __future__ import annotations

from typing import Any

from engine.tracer import TracerConfig
from engine.tracer.consolidate import LEXICAL_NOTE, consolidate, extract, merge_nodes, resolve_candidates
from engine.tracer.model import Functionality, FunctionalModel, Output, Parameter, snake_name
from engine.tracer.similarity import shortlist, similarity_matrix
from engine.tracer.state import ExplorationTranscript, ExplorationTurn

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


def _paraphrases() -> FunctionalModel:
    """A pizza bot's model where two steps came back under other words (the issue's 0.496 / 0.544 case)."""
    return FunctionalModel(
        functionalities=[
            Functionality(
                name="prompt_for_drink",
                description="Asks which drink the user wants.",
                parameters=[Parameter(name="drink", options=["coke", "lemonade", "water"])],
            ),
            Functionality(
                name="prompt_for_drinks_count",
                description="Asks the user for the number of drinks.",
                parameters=[Parameter(name="drinks_count")],
            ),
            Functionality(
                name="provide_total_price",
                description="Tells the user the total price of the order.",
                outputs=[Output(name="total_price")],
            ),
            Functionality(
                name="prompt_for_pizza_size",
                description="Asks which size of pizza.",
                parameters=[Parameter(name="pizza_size", options=SIZE)],
            ),
            Functionality(name="present_opening_hours", description="Tells when the shop is open."),
            Functionality(
                name="request_quantity_of_beverages",
                description="The chatbot asks how many beverages the customer wants.",
                parameters=[Parameter(name="beverage_quantity")],
            ),
            Functionality(
                name="show_order_cost",
                description="Gives the cost of the order with drinks.",
                outputs=[Output(name="cost")],
            ),
        ]
    )


def test_the_threshold_alone_proposes_only_near_duplicates() -> None:
    candidates = shortlist(_model().functionalities, threshold=TracerConfig().duplicate_threshold)
    sizes = {"prompt_for_pizza_size", "ask_pizza_size", "request_size_of_pizza"}
    assert candidates
    assert all({c.a, c.b} <= sizes for c in candidates)


def test_the_wide_shortlist_lets_paraphrases_that_share_few_words_reach_the_decision() -> None:
    nodes = _paraphrases().functionalities
    scores = {frozenset((nodes[i].name, nodes[j].name)): s for (i, j), s in similarity_matrix(nodes).items()}
    duplicates = [
        frozenset(("prompt_for_drinks_count", "request_quantity_of_beverages")),
        frozenset(("provide_total_price", "show_order_cost")),
    ]
    config = TracerConfig()
    # Lexically, both duplicates are far below the cut-off: a threshold alone never asks the LLM about them.
    assert all(scores[pair] < config.duplicate_threshold for pair in duplicates)
    assert not {frozenset((c.a, c.b)) for c in shortlist(nodes, threshold=config.duplicate_threshold)} & set(
        duplicates
    )
    wide = shortlist(nodes, threshold=config.duplicate_threshold, neighbours=config.duplicate_neighbours)
    assert set(duplicates) <= {frozenset((c.a, c.b)) for c in wide}
    # Restricted to the nodes a session added, each still meets its neighbours.
    added = shortlist(
        nodes,
        threshold=config.duplicate_threshold,
        only_involving={"request_quantity_of_beverages"},
        neighbours=config.duplicate_neighbours,
    )
    assert all("request_quantity_of_beverages" in (c.a, c.b) for c in added)
    assert frozenset(("prompt_for_drinks_count", "request_quantity_of_beverages")) in {
        frozenset((c.a, c.b)) for c in added
    }


def test_one_batched_call_decides_and_the_duplicates_merge_into_the_oldest_node() -> None:
    # The prompt numbers the functionalities in discovery order; each question is about a later one.
    verdicts = [
        {"item": 2, "same_as": 1, "description": "Asks for the pizza size."},
        {"item": 3, "same_as": 2, "description": "Asks for the pizza size."},
        {"item": 5, "same_as": None},
        {"item": 4, "same_as": 6},  # [6] was not a candidate of [4]: ignored
    ]
    client, chat = scripted_client({"tracer.consolidate": {"json": {"verdicts": verdicts}}})
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
    confirm = model.get("confirm_pizza_order")
    assert confirm is not None and confirm.parents == ["prompt_for_pizza_size"]  # re-pointed to the survivor
    options = {p.name: p.options for p in merged.parameters}
    assert options["pizza_size"] == ["small", "medium", "large", "extra large"]
    assert "size" in options
    assert [o.name for o in merged.outputs] == ["size_list"]

    (call,) = chat.calls_for("tracer.consolidate")
    prompt = call.messages[0][1]
    assert "- Is [2] the same step as [1]?" in prompt
    assert "- Is [6] the same step as [1], [2], [3], [4] or [5]?" in prompt
    assert call.options["temperature"] == TracerConfig().analysis_temperature
    assert len(update["judged_pairs"]) == 15  # every pair of the six was decided, so none is asked again


def test_rejected_candidates_stay_apart_and_are_not_asked_again() -> None:
    client, chat = scripted_client({"tracer.consolidate": {"json": {"verdicts": []}}})
    deps = make_deps(client, BotConnector("pizza"))
    first = consolidate(deps, {"model": _model().model_dump(mode="json"), "judged_pairs": []})
    assert len(FunctionalModel.model_validate(first["model"]).functionalities) == 6
    assert first["warnings"] == []
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


def test_without_the_llm_the_lexical_decision_is_labelled_an_approximation() -> None:
    client, chat = scripted_client({})
    deps = make_deps(client, BotConnector("pizza"), TracerConfig(consolidation="lexical"))
    update = consolidate(deps, {"model": _paraphrases().model_dump(mode="json"), "judged_pairs": []})
    assert chat.calls == []
    assert update["warnings"] == [LEXICAL_NOTE]
    assert "approximation" in LEXICAL_NOTE


def test_a_failed_consolidation_call_falls_back_to_the_lexical_approximation_instead_of_failing() -> None:
    client, chat = scripted_client({"tracer.consolidate": {"fault": "malformed_json"}})
    deps = make_deps(client, BotConnector("pizza"))
    update = consolidate(deps, {"model": _model().model_dump(mode="json"), "judged_pairs": []})
    assert chat.calls_for("tracer.consolidate")
    assert any("failed while checking duplicates" in w for w in update["warnings"])
    assert LEXICAL_NOTE in update["warnings"]
    # The near-identical size steps still merged (lexically); unrelated ones did not.
    model = FunctionalModel.model_validate(update["model"])
    assert {"present_drink_menu", "provide_opening_hours"} <= set(model.names())


def _transcript() -> ExplorationTranscript:
    turns = [
        ExplorationTurn(role="explorer", text="I'd like a pizza", fallback=False),
        ExplorationTurn(
            role="chatbot", text="Which size would you like?\nOptions: small | medium | large", fallback=False
        ),
        ExplorationTurn(role="explorer", text="large", fallback=False),
        ExplorationTurn(role="chatbot", text="How many drinks would you like?", fallback=False),
    ]
    return ExplorationTranscript(session=2, focus=None, turns=turns, ended="turn_limit", error=None)


def _extract(answer: dict[str, Any], model: FunctionalModel, **script: Any) -> tuple[dict[str, Any], Any]:
    client, chat = scripted_client({"tracer.extract": {"json": answer}, **script})
    deps = make_deps(client, BotConnector("pizza"))
    state: dict[str, Any] = {
        "model": model.model_dump(mode="json"),
        "pending": _transcript(),
        "sessions_done": 1,
    }
    return extract(deps, state), chat  # type: ignore[arg-type]


def test_extraction_is_shown_the_known_names_at_a_low_temperature_and_reuses_them() -> None:
    known = _paraphrases()
    answer = {
        "functionalities": [
            # The known name, written in another casing: the same node, not a new one.
            {"name": "promptForPizzaSize", "description": "Asks for the size.", "parameters": []},
            {"name": "Prompt For Drinks Count", "description": "Asks how many drinks.", "parameters": []},
        ]
    }
    update, chat = _extract(answer, known, **{"tracer.consolidate": {"json": {"verdicts": []}}})
    (call,) = chat.calls_for("tracer.extract")
    prompt = call.messages[0][1]
    assert "already known" in prompt
    for name in known.names():
        assert f"- {name}: " in prompt
    assert "give it exactly the name" in prompt
    assert call.options["temperature"] == TracerConfig().analysis_temperature
    model = FunctionalModel.model_validate(update["model"])
    assert model.names() == known.names()  # nothing new: both steps were known
    assert chat.calls_for("tracer.consolidate") == []


def test_a_step_extracted_under_new_words_is_put_to_the_llm_in_the_same_session() -> None:
    known = _paraphrases()
    known.functionalities = [f for f in known.functionalities if f.name != "request_quantity_of_beverages"]
    answer = {
        "functionalities": [
            {
                "name": "request_quantity_of_beverages",
                "description": "The chatbot asks how many beverages the customer wants.",
                "parameters": [{"name": "beverage_quantity"}],
            }
        ]
    }
    # Numbered in discovery order, the new node is the last one; the LLM says it is [2].
    numbers = {name: n for n, name in enumerate([*known.names(), "request_quantity_of_beverages"], start=1)}
    verdict = {
        "item": numbers["request_quantity_of_beverages"],
        "same_as": numbers["prompt_for_drinks_count"],
    }
    update, chat = _extract(answer, known, **{"tracer.consolidate": {"json": {"verdicts": [verdict]}}})
    model = FunctionalModel.model_validate(update["model"])
    assert model.names() == known.names()
    drinks = model.get("prompt_for_drinks_count")
    assert drinks is not None and drinks.merged_from == ["request_quantity_of_beverages"]
    assert len(chat.calls_for("tracer.consolidate")) == 1
    assert update["queue"] == []  # the duplicate is not explored as if it were new


def test_names_in_any_casing_become_one_snake_case_name() -> None:
    assert snake_name("promptForPizzaSize") == "prompt_for_pizza_size"
    assert snake_name("Prompt_For_Pizza_Size") == "prompt_for_pizza_size"
    assert snake_name("PROMPT-FOR pizza size") == "prompt_for_pizza_size"
    assert snake_name("preguntar_tamaño") == "preguntar_tamano"
    assert snake_name("offer 3D rendering") == "offer_3d_rendering"


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
