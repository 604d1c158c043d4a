"""Profiles drafted for chosen functionalities (the coverage map's action): TRACER's own synthesis on the model cut
down to them, never talking to the chatbot."""

from __future__ import annotations

from engine.sensei import load_profile
from engine.tracer.artefacts import model_json
from engine.tracer.drafts import draft_profiles, model_for
from engine.tracer.model import Functionality, FunctionalModel, Parameter
from tests.engine.tracer.conftest import scripted_client

MODEL = FunctionalModel(
    languages=["English"],
    fallback="Sorry?",
    functionalities=[
        Functionality(name="order_pizza", parameters=[Parameter(name="size", options=["small", "large"])]),
        Functionality(name="track_order", description="Says where a delivery is", parents=["order_pizza"]),
        Functionality(name="opening_hours", description="Tells when the shop opens"),
    ],
)


def test_only_the_chosen_functionalities_are_drafted_from_the_model_json():
    script = {
        "tracer.group": {
            "json": {
                "profiles": [
                    {"name": "Hungry night owl", "role": "You want to know hours and a delivery.",
                     "functionalities": ["opening_hours", "track_order", "order_pizza"]}
                ]
            }
        },
        "tracer.profiles": {
            "json": {"goals": ["ask when the shop opens", "ask where the delivery is"], "context": ["You are at home."]}
        },
    }  # fmt: skip
    client, chat = scripted_client(script)
    drafts = draft_profiles(client, model_json(MODEL), ["opening_hours", "track_order", "no_such_thing"])

    (profile,) = drafts.profiles
    assert profile["valid"], profile["errors"]
    loaded, problems = load_profile(profile["yaml"])
    assert loaded is not None, problems
    assert drafts.missing == ["no_such_thing"]
    # The LLM saw only the chosen functionalities; the one it named besides them was put back out of the group.
    (grouping,) = chat.calls_for("tracer.group")
    prompt = str(grouping)
    assert "opening_hours" in prompt and "track_order" in prompt and "order_pizza" not in prompt


def test_a_model_cut_down_drops_links_to_functionalities_left_out_and_nothing_chosen_costs_nothing():
    cut, missing = model_for(MODEL, ["track_order"])
    assert [(f.name, f.parents) for f in cut.functionalities] == [("track_order", [])] and missing == []
    client, chat = scripted_client({})
    drafts = draft_profiles(client, MODEL, ["nowhere"])
    assert drafts.profiles == [] and drafts.missing == ["nowhere"] and drafts.warnings
    assert chat.calls_for("tracer.group") == [] and chat.calls_for("tracer.profiles") == []
