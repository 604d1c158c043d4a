"""The definition language: the shipped bots load as package data; bad definitions name file, path, problem."""

from __future__ import annotations

import textwrap
from importlib import resources

import pytest

from engine.bots import DefinitionError, bot_ids, load_definition_text, manifest
from engine.bots.formula import FormulaError, Scope, evaluate, parse_formula

GOOD = """
bot: tiny
name: Tiny
greeting: {by: user}
entry: top
modules:
  top:
    kind: menu
    items:
      - {kind: module, title: Order, module: order}
      - {kind: sequence, title: Both, steps: [order, pay]}
  order:
    kind: form
    slots:
      - {name: size, type: enum, prompt: Size?, values: [small, {large: [big]}]}
    response: A {size} one.
  pay:
    kind: action
    uses: [size]
    tables: {price: {small: 1, large: 2}}
    compute: {total: "price[size] * 2"}
    response: That is {total}.
"""


def load(text: str):
    return load_definition_text(textwrap.dedent(text), source="tiny.yaml")


def test_every_bot_loads_from_package_data_with_the_sizes_of_the_evaluation_bots():
    files = resources.files("engine.bots").joinpath("definitions")
    assert {f"{bot}.yaml" for bot in bot_ids()} <= {p.name for p in files.iterdir()}
    sizes = {bot: manifest(bot).sizes() for bot in bot_ids()}
    assert sizes["pizza"] == {"modules": 10, "inputs": 22, "values": 78, "questions": 6}
    assert sizes["bike"] == {"modules": 3, "inputs": 3, "values": 2, "questions": 4}
    assert sizes["photography"] == {"modules": 5, "inputs": 10, "values": 12, "questions": 5}
    assert sizes["veterinary"] == {"modules": 3, "inputs": 3, "values": 4, "questions": 5}
    assert manifest("cafeteria-es").language == "es"


def test_a_good_definition_loads():
    bot = load(GOOD)
    assert bot.slot("size").values[1].synonyms == ("big",)


@pytest.mark.parametrize(
    ("old", "new", "path", "problem"),
    [
        ("module: order}", "module: ordr}", "modules.top.items[0].module", "unknown module 'ordr'"),
        ("values: [small, {large: [big]}]}", "values: []}", "modules.order.slots[0].values",
         "enum slot 'size' has no values"),
        ("response: A {size} one.",
         "  - {name: size, type: int, prompt: How many?}\n    response: A {size} one.",
         "modules.order.slots[1].name", "duplicate slot 'size'"),
        ("uses: [size]", "uses: [colour]", "modules.pay.uses[0]", "no form gathers a slot named 'colour'"),
        ('"price[size] * 2"', '"price[size] * "', "modules.pay.compute.total", "expected more"),
        ("That is {total}.", "That is {totl}.", "modules.pay.response", "unknown placeholder {totl}"),
        ("entry: top", "entry: order", "entry", "must be a menu"),
        ("kind: action", "kind: robot", "modules.pay.kind", "unknown kind 'robot'"),
        ("{kind: module, title: Order, module: order}", "{kind: module, title: Order}",
         "modules.top.items[0].module", "Field required"),
    ],
)  # fmt: skip
def test_bad_definitions_name_the_file_the_path_and_the_problem(old, new, path, problem):
    assert old in GOOD
    with pytest.raises(DefinitionError) as caught:
        load(GOOD.replace(old, new, 1))
    message = caught.value.user_message
    assert message.startswith("tiny.yaml, line ")
    assert f": {path}: " in message
    assert problem in message
    assert caught.value.path == path


def test_a_cycle_in_sequences_is_rejected():
    text = GOOD + textwrap.dedent("""
      loop_a: {kind: sequence, steps: [order, loop_b]}
      loop_b: {kind: sequence, steps: [loop_a]}
    """).replace("\n", "\n  ")
    with pytest.raises(
        DefinitionError, match=r"modules\.loop_a\.steps: cycle in sequences: loop_a -> loop_b -> loop_a"
    ):
        load(text)


def test_yaml_errors_and_duplicate_keys_give_the_line():
    with pytest.raises(DefinitionError, match=r"tiny\.yaml, line \d+: \(top level\): expected"):
        load("bot: tiny\nname: x\nentry: [top\n")
    with pytest.raises(DefinitionError, match=r"tiny\.yaml, line \d+: \(top level\): .*duplicate"):
        load(GOOD + "  order:\n    kind: faq\n    questions: []\n")


def test_formulas_are_evaluated_without_python():
    scope = Scope({"n": 3.0, "kind": "b", "many": ["a", "b"]}, {"t": {"a": 1.0, "b": 10.0}}, seed="s")
    assert evaluate(parse_formula("(t[kind] + 2) * n - 1"), scope) == 35.0
    assert evaluate(parse_formula("t[many] + count(many)"), scope) == 13.0
    assert evaluate(parse_formula("max(0, count(many) - 3)"), scope) == 0.0
    assert evaluate(parse_formula("order_id()"), scope) == evaluate(parse_formula("order_id()"), scope)
    for bad in ("__import__('os')", "n.real", "n ** 2", "open(1)"):
        with pytest.raises(FormulaError):
            parse_formula(bad)
    with pytest.raises(FormulaError, match="no entry for 'c'"):
        evaluate(parse_formula("t[kind]"), Scope({"kind": "c"}, {"t": {}}, seed="s"))
