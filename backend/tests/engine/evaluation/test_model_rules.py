"""What Parley checks without ground truth: rules from TRACER's model, and out-of-range inputs."""

from __future__ import annotations

from engine.bots import load_bot
from engine.bots.registry import mutants_of
from engine.check import Limits, check
from engine.conversation import Button, ConversationRecord, Turn
from engine.evaluation.model_rules import model_rules, out_of_range, out_of_range_uses
from engine.sensei import load_profile
from engine.tracer.model import Functionality, FunctionalModel, Parameter

from .test_oracles import replay

FALLBACK = "Sorry, I did not understand that."


def model(*parameters: Parameter, languages: tuple[str, ...] = ("English",)) -> FunctionalModel:
    return FunctionalModel(
        languages=list(languages),
        fallback=FALLBACK,
        functionalities=[
            Functionality(name="take_order", description="takes an order", parameters=list(parameters))
        ],
    )


def failed(rules_model: FunctionalModel, records: list[ConversationRecord]) -> set[str]:
    report = check([r.rule for r in model_rules(rules_model)], records, limits=Limits(isolate=False))
    assert all(rule.errors == 0 for rule in report.rules), [r.results for r in report.rules if r.errors]
    return {rule.name for rule in report.rules if rule.failed}


def bot_turn(text: str, *buttons: str) -> Turn:
    return Turn(role="bot", text=text, buttons=[Button(label=b, value=b) for b in buttons])


def conversation(*turns: Turn, inputs: dict[str, object] | None = None) -> ConversationRecord:
    return ConversationRecord(id="c", profile="order", turns=list(turns), inputs=inputs or {})


SIZE = Parameter(name="pizza_size", options=["small", "medium", "large"])


def test_the_options_rule_wants_every_option_tracer_saw_whenever_the_bot_offers_them() -> None:
    every = conversation(bot_turn("Which size?", "small", "medium", "large"))
    fewer = conversation(bot_turn("Which size? We have small, medium and large.", "Small", "Large"))
    other = conversation(bot_turn("Anything to drink?", "coke", "water"), bot_turn("Your total is 12$."))
    in_text = conversation(bot_turn("We have small and large today."))
    assert failed(model(SIZE), [every]) == set()
    assert failed(model(SIZE), [other]) == set()
    # The buttons are what is offered: a prompt whose fixed text still names "medium" does not hide its loss.
    assert failed(model(SIZE), [fewer]) == {"model_options_pizza_size"}
    assert failed(model(SIZE), [in_text]) == {"model_options_pizza_size"}


def test_the_options_rule_finds_a_deleted_enum_value_on_the_real_bot() -> None:
    tracer_saw = model(Parameter(name="service", options=["repair", "tune-up"]))
    booking = ["book an appointment", "repair", "tomorrow", "10:00"]
    assert failed(tracer_saw, [replay(load_bot("bike"), booking, 0)]) == set()
    mutant = next(
        m for m in mutants_of("bike") if m.description.startswith("book_service.service: value 'repair'")
    )
    assert mutant.definition is not None
    assert failed(tracer_saw, [replay(mutant.definition, booking, 0)]) == {"model_options_service"}


def test_the_language_rule_checks_longer_messages_against_tracer_s_languages() -> None:
    english = conversation(bot_turn("Which size would you like for your pizza today?"), bot_turn("OK"))
    spanish = conversation(bot_turn("Perdona, no te he entendido. ¿Qué tamaño quieres para tu pizza?"))
    assert failed(model(), [english]) == set()
    assert failed(model(), [spanish]) == {"model_language"}
    assert failed(model(languages=("English", "Spanish")), [spanish]) == set()
    assert all(r.name != "model_language" for r in model_rules(model(languages=("Klingon",))))


PROFILE = """
test_name: order
llm: {temperature: 0.5}
user:
  role: You order a pizza.
  goals:
    - "a {{size}} pizza for {{name}}"
    - size: {function: forward(), type: string, data: [small, medium, large, gigantic]}
    - name: {function: forward(), type: string, data: [Ana, Luis]}
chatbot:
  is_starter: false
  fallback: Sorry, I did not understand that.
  output:
    - total: {type: money, description: the total price}
conversation:
  number: 4
  goal_style: {steps: 6}
  interaction_style: [single question]
"""


def test_out_of_range_values_are_the_ones_tracer_never_saw_in_a_variable_it_did_see() -> None:
    profile, problems = load_profile(PROFILE)
    assert profile is not None, problems
    # "gigantic" was never offered; "Ana" and "Luis" are made-up names, not values TRACER saw: not out of range.
    assert out_of_range([profile], model(SIZE)) == {"order": {"size": frozenset({"gigantic"})}}
    assert out_of_range([profile], model()) == {}


def test_a_refusal_a_re_ask_or_the_fallback_answers_an_out_of_range_value() -> None:
    variables = {"size": frozenset({"gigantic"})}
    asked = bot_turn("Which size would you like?", "small", "medium", "large")

    def use(reply: str, said: str = "a gigantic one please") -> tuple[bool, bool]:
        record = conversation(
            asked, Turn(role="user", text=said), bot_turn(reply), inputs={"size": "gigantic", "name": "Ana"}
        )
        [result] = out_of_range_uses(record, variables, [FALLBACK])
        assert result.output is False and result.accepted is False
        return result.said, result.refused

    assert use("Sorry, we have no gigantic. The options for size are small, medium and large.") == (
        True,
        True,
    )
    assert use("Which size would you like?") == (True, True)  # asked again
    assert use("Sorry, I did not understand that!") == (True, True)  # the fallback
    assert use("Great choice, a gigantic pizza! How many drinks?") == (True, False)
    assert use("Great choice!", said="a large one") == (False, False)
    assert out_of_range_uses(conversation(asked, inputs={"size": "small"}), variables, [FALLBACK]) == []
    taken = conversation(
        asked,
        Turn(role="user", text="gigantic"),
        bot_turn("Great choice, a gigantic pizza! Your total is 30$."),
        inputs={"size": "gigantic"},
    )
    taken.outputs = {"total": {"amount": 30.0, "currency": "USD"}}
    [result] = out_of_range_uses(taken, variables, [FALLBACK])
    assert result.accepted is True
