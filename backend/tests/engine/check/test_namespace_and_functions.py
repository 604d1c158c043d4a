"""What rules see of a conversation (namespaces, ambiguity, k-rules) and the local function library."""

from __future__ import annotations

import pytest

from engine.check import EvaluationError, compile_rule_code, default_registry
from engine.check.functions import CallContext, parse_number, repeated
from engine.check.language import detect
from engine.check.namespace import ConversationView, SingleNames
from engine.check.sandbox import Interpreter
from engine.conversation import Button
from tests.engine.check.conftest import conversation, rule, run


def value(source, record):
    view = ConversationView(record)
    interpreter = Interpreter(SingleNames(view), default_registry(), context=CallContext(conversation=view))
    return interpreter.run(compile_rule_code(source))


PIZZA = conversation(
    "p",
    inputs={"number": 2, "size": "small"},
    outputs={"price": "$13", "order_id": None, "errors": "none"},
    settings={"number": 3, "goal_style": {"steps": 5}},
    turns=[("user", "Hello"), ("bot", "Hi! What pizza?"), ("user", "Small"), ("bot", "That is $13")],
    errors=[504],
    latencies=[0.5, 2.5],
)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("inputs.number", 2),
        ("meta.number", 3),
        ("steps", 5),
        ("size", "small"),
        ("outputs.price", "$13"),
        ("meta.turns", 4),
        ("meta.id", "p"),
        ("chatbot_phrases", ["Hi! What pizza?", "That is $13"]),
        ("user_phrases", ["Hello", "Small"]),
        ("interaction[1]", {"Assistant": "Hi! What pizza?"}),
        ("response_times", [0.5, 2.5]),
        ("max(response_times) < 3", True),
        ("conversation_time", 12.5),
        ("error_codes", [504]),
        ("meta.errors[0].name", "timeout"),
        ("turns[1].role", "bot"),
        ("cost", 0.0),
        ("'size' in inputs", True),
        ("missing_outputs()", ["order_id"]),
        ("data_collected()", False),
        ("conversation_length()", 4),
        ("conversation_length('user')", 2),
        ("conversation_length('chatbot')", 2),
        ("conv[0].size", "small"),
    ],
)
def test_names_reach_every_part_of_the_conversation(source, expected):
    assert value(source, PIZZA) == expected


def test_ambiguous_short_names_name_both_meanings():
    with pytest.raises(EvaluationError, match=r"inputs\.number and meta\.number"):
        value("number", PIZZA)
    with pytest.raises(EvaluationError, match=r"outputs\.errors and the built-in errors"):
        value("errors", PIZZA)


def test_unknown_names_suggest_close_ones():
    with pytest.raises(EvaluationError, match="did you mean size"):
        value("sise", PIZZA)


def test_an_output_named_like_a_function_does_not_hide_the_function():
    record = conversation(
        "l", outputs={"language": "English"}, turns=[("bot", "The pizza is ready for you now")]
    )
    assert value("language", record) == "English"
    assert value("language(chatbot_phrases)", record) == "ENG"


def test_k_rules_use_conv_and_explicit_conversations_for_functions():
    text = """
name: shorter_first
description: pairwise
conversations: 2
then: conversation_length(conv=conv[0]) + conversation_length(conv=conv[1]) >= 2
"""
    [report] = run(rule(text), [conversation("a"), conversation("b")]).rules
    assert report.passed == 1
    bare = text.replace(
        "conversation_length(conv=conv[0]) + conversation_length(conv=conv[1]) >= 2",
        "len(chatbot_phrases) > 0",
    )
    [report] = run(rule(bare), [conversation("a"), conversation("b")]).rules
    assert report.errors == 1 and "conv[0].chatbot_phrases" in report.results[0].reason


def test_combination_cap_is_a_clear_error():
    many = [conversation(f"c{i}") for i in range(200)]
    text = "name: r\ndescription: d\nconversations: 2\nthen: True\n"
    [report] = run(rule(text), many).rules
    assert report.status == "error"
    assert "19,900 checks" in report.results[0].reason and "10,000" in report.results[0].reason


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$13.00", 13.0),
        ("costs 1,234.50 USD", 1234.5),
        ("13,50 €", 13.5),
        ("1.234,56 EUR", 1234.56),
        ("1,000", 1000.0),
        ("-4 degrees", -4.0),
        ("no number", None),
        ("order 12 pizzas for $30", 12.0),
    ],
)
def test_parse_number(text, expected):
    assert parse_number(text) == expected


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("$13", "USD"),
        ("13 USD", "USD"),
        ("ten dollars", "USD"),
        ("€ 9", "EUR"),
        ("9 euros", "EUR"),
        ("£5", "GBP"),
        ("500 yen", "JPY"),
        ("₹200", "INR"),
        ("13", None),
    ],
)
def test_currency(text, code):
    assert value(f"currency({text!r})", PIZZA) == code


def test_length_kinds_are_true_statistics():
    assert value("length(['a', 'bbb', 'cc', 'dddddd'])", PIZZA) == 3.0
    assert value("length(['a', 'bbb'], kind='max')", PIZZA) == 3
    assert value("length('hello')", PIZZA) == 5


def test_chatbot_returns_and_and_not():
    record = conversation(
        "b",
        turns=[("user", "x"), ("bot", "see LINK: http://a"), ("bot", "see LINK: <empty>")],
        buttons={1: [Button(label="b", url="https://shop")]},
    )
    assert value("chatbot_returns('LINK:')", record) == [1, 2]
    assert value("chatbot_returns('LINK:', and_not='http')", record) == [2]


@pytest.mark.parametrize("method", ["exact", "tf-idf", "jaccard", "sequence"])
def test_repeated_answers_methods(method):
    phrases = ["Sorry, I did not get that.", "Which pizza would you like?", "Sorry, I did not get that."]
    assert repeated(phrases, method, 0.9) == {phrases[0]: [phrases[2]]}
    assert repeated(["Pick a size", "Your order total is 12 dollars"], method, 0.75) == {}


def test_repeated_answers_rejects_unknown_methods():
    with pytest.raises(EvaluationError, match="method must be"):
        value("repeated_answers('soundex')", PIZZA)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Hello, what pizza would you like to order today?", "en"),
        ("Hola, ¿qué pizza quieres pedir hoy? Tenemos muchas.", "es"),
        ("Bonjour, quelle pizza voulez-vous commander aujourd'hui ?", "fr"),
        ("Hallo, welche Pizza möchten Sie heute bestellen? Wir haben auch Getränke.", "de"),
        ("Ciao, quale pizza vorresti ordinare oggi? Abbiamo anche le bibite.", "it"),
        ("Olá, que pizza você quer pedir hoje? Temos também bebidas.", "pt"),
        ("Hallo, welke pizza wilt u vandaag bestellen? We hebben ook drankjes.", "nl"),
        ("Hola, quina pizza vols demanar avui? També tenim begudes i col·laboració.", "ca"),
        ("你好，你想点什么披萨？", "zh"),  # noqa: RUF001
        ("こんにちは、ピザを注文しますか？", "ja"),  # noqa: RUF001
        ("Здравствуйте, какую пиццу вы хотите?", "ru"),
        ("12345 !!!", "OTHER"),
    ],
)
def test_offline_language_detection(text, code):
    assert detect(text) == code


def test_language_returns_the_reference_codes():
    assert value("language(['Hola, ¿qué tal estás hoy?', 'Quiero una pizza por favor'])", PIZZA) == "ESP"
    assert value("language('Hallo, welke pizza wilt u vandaag bestellen?')", PIZZA) == "OTHER"
    assert value("language_code('Hallo, welke pizza wilt u vandaag bestellen?')", PIZZA) == "nl"
    assert value("language('12345 !!!')", PIZZA) == value("language_code('12345 !!!')", PIZZA) == "OTHER"


def test_global_functions_outside_global_rules_are_errors():
    with pytest.raises(EvaluationError, match="only works in global rules"):
        value("is_unique('order_id')", PIZZA)
