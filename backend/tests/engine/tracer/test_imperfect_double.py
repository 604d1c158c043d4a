"""The imperfect double itself: it reads prompts, is inconsistent the way models are, and is strict about the
protocol because every answer goes through the scripted double."""

from __future__ import annotations

from engine.llm import user
from engine.llm.offline.tracer import Concept, Imperfection, TracerDouble, understand
from engine.tracer import prompts
from engine.tracer.consolidate import format_transcript, known_functionalities
from engine.tracer.model import ExtractionAnswer, Functionality, FunctionalModel
from engine.tracer.state import ExplorationTranscript, ExplorationTurn

from .conftest import imperfect_client


def _transcript(drink_question: str = "How many drinks would you like?") -> ExplorationTranscript:
    turns = [
        ExplorationTurn(role="explorer", text="Order pizza and drinks", fallback=False),
        ExplorationTurn(
            role="chatbot", text="Which size would you like?\nOptions: small | medium | large", fallback=False
        ),
        ExplorationTurn(role="explorer", text="large", fallback=False),
        ExplorationTurn(
            role="chatbot", text=f"Great choice, a large pizza!\n{drink_question}", fallback=False
        ),
        ExplorationTurn(role="explorer", text="2", fallback=False),
        ExplorationTurn(role="chatbot", text="Sorry, I didn't catch that.", fallback=True),
    ]
    return ExplorationTranscript(session=1, focus=None, turns=turns, ended="turn_limit", error=None)


def _extraction_prompt(transcript: ExplorationTranscript, known: FunctionalModel | None = None) -> str:
    return prompts.EXTRACT.format(
        focus="",
        known=known_functionalities(known or FunctionalModel(), 80),
        transcript=format_transcript(transcript),
    )


def test_paraphrased_names_are_understood_as_one_step_and_other_steps_are_not() -> None:
    size = understand("prompt_for_pizza_size")
    assert size == Concept("ask", frozenset({"pizza", "size"}))
    for paraphrase in (
        "Request_Size_Of_Pizza",
        "collect pizza dimension",
        "askUserForPizzaSize",
        "GET-PIZZA-SIZE",
    ):
        assert understand(paraphrase) == size, paraphrase
    assert understand("confirm_pizza_size") != size  # confirming is another step than asking
    assert understand("prompt_for_pizza_topping") != size


def test_it_reads_the_steps_from_the_transcript_deterministically_and_skips_the_fallback() -> None:
    double = TracerDouble(seed=3, imperfection=Imperfection(paraphrase=0, casing=0, omit_optional=0, bogus=0))
    client, chat = imperfect_client(double)
    prompt = _extraction_prompt(_transcript())
    first = client.structured([user(prompt)], ExtractionAnswer, tag="tracer.extract")
    again = client.structured([user(prompt)], ExtractionAnswer, tag="tracer.extract")
    assert first == again
    names = [f.name for f in first.functionalities]
    assert names == ["prompt_for_size", "confirm_choice_pizza", "prompt_for_number_drink"]
    size = first.functionalities[0]
    assert size.parameters[0].options == ["small", "medium", "large"]
    assert len(chat.calls_for("tracer.extract")) == 2


def test_across_sessions_the_same_step_gets_other_names() -> None:
    double = TracerDouble(seed=0)
    client, _ = imperfect_client(double)
    questions = [
        "How many drinks would you like?",
        "How many drinks would you like today?",
        "How many drinks?",
    ]
    written = set()
    for question in questions * 3:
        prompt = _extraction_prompt(_transcript(question)) + f"\n(session {len(written)})"
        answer = client.structured([user(prompt)], ExtractionAnswer, tag="tracer.extract")
        written |= {
            f.name for f in answer.functionalities if understand(f.name) == understand("ask_drink_number")
        }
    assert len(written) >= 3


def test_a_known_name_shown_in_the_prompt_is_reused() -> None:
    double = TracerDouble(seed=1, imperfection=Imperfection(reuse_known=1.0, paraphrase=1.0))
    client, _ = imperfect_client(double)
    known = FunctionalModel(
        functionalities=[
            Functionality(name="collect_quantity_of_drinks", description="Asks how many drinks.")
        ]
    )
    answer = client.structured(
        [user(_extraction_prompt(_transcript(), known))], ExtractionAnswer, tag="tracer.extract"
    )
    assert "collect_quantity_of_drinks" in [f.name for f in answer.functionalities]


def test_a_left_out_required_field_is_fixed_by_the_gateways_repair() -> None:
    double = TracerDouble(seed=2, imperfection=Imperfection(omit_required=1.0))
    client, chat = imperfect_client(double)
    answer = client.structured(
        [user(_extraction_prompt(_transcript()))], ExtractionAnswer, tag="tracer.extract"
    )
    assert all(f.description for f in answer.functionalities)
    first, repair = chat.calls_for("tracer.extract")
    assert len(repair.messages) > len(first.messages)  # the second call was the repair request


def test_the_duplicate_report_counts_pairs_and_over_merges() -> None:
    double = TracerDouble()
    report = double.duplicate_report(
        [
            ("prompt_for_pizza_size", []),
            ("request_size_of_pizza", []),
            ("confirm_order", ["prompt_for_drink"]),
            ("provide_total_price", []),
        ]
    )
    assert report.pairs == [("prompt_for_pizza_size", "request_size_of_pizza")]
    assert report.overmerged == ["confirm_order"]
    assert report.to_json()["duplicate_pairs"] == 1
