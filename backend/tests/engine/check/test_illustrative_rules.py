"""The four illustrative rules of SENSEI.md §3.6 (single oracle, metamorphic relation, global rules, text
analysis) on prepared conversations give the expected outcomes."""

from __future__ import annotations

from engine.conversation import Button
from tests.engine.check.conftest import ScriptedJudge, conversation, rule, run

MIN_SMALL_PRICE = """
name: min_small_price
description: a small pizza costs at least 10 USD
conversations: 1
when: size == 'small'
then: extract_float(price) >= 10 and currency(price) == 'USD'
on-error: f"small pizza priced {price}, expected at least $10"
"""


def test_single_oracle_passes_fails_and_skips(pizza_conversations):
    report = run(rule(MIN_SMALL_PRICE), pizza_conversations).rules[0]
    assert (report.checks, report.passed, report.failed, report.not_applicable, report.errors) == (
        4,
        2,
        1,
        1,
        0,
    )
    [failure] = report.results
    assert failure.conversations == ["c3"]
    assert failure.message == "small pizza priced $9.50, expected at least $10"
    assert "extract_float(price) is 9.5" in failure.reason
    assert report.fail_rate == 33.33
    assert report.not_applicable_reasons == {"the filter (when) is false": 1}


def test_single_oracle_fails_on_the_wrong_currency():
    euros = conversation("eur", inputs={"size": "small"}, outputs={"price": "12 €"})
    [report] = run(rule(MIN_SMALL_PRICE), [euros]).rules
    assert report.failed == 1
    assert "currency(price) == 'USD' is false: currency(price) is 'EUR'" in report.results[0].reason


def test_a_missing_output_is_an_error_with_its_message_not_a_crash():
    missing = conversation("none", inputs={"size": "small"}, outputs={"price": None})
    [report] = run(rule(MIN_SMALL_PRICE), [missing]).rules
    assert report.errors == 1 and report.status == "error"
    assert "cannot compare extract_float(price) = None" in report.results[0].reason


MORE_TOPPINGS = """
name: more_toppings_cost_more
description: with the same size and drinks, more toppings cost more
conversations: 2
ordered: true
when: conv[0].size == conv[1].size and conv[0].drink == conv[1].drink and conv[0].inputs.number == conv[1].inputs.number
if: len(conv[0].toppings) > len(conv[1].toppings)
then: extract_float(conv[0].price) > extract_float(conv[1].price)
yields: f"{conv[0].id} ({conv[0].price}) vs {conv[1].id} ({conv[1].price})"
"""


def test_metamorphic_relation_over_ordered_pairs(pizza_conversations):
    [report] = run(rule(MORE_TOPPINGS), pizza_conversations).rules
    assert report.checks == 12  # 4 · 3 ordered pairs
    assert (report.passed, report.failed, report.not_applicable, report.errors) == (1, 2, 9, 0)
    assert sorted(tuple(r.conversations) for r in report.results) == [("c3", "c1"), ("c3", "c2")]
    assert {r.message for r in report.results} == {"c3 ($9.50) vs c1 ($13.00)", "c3 ($9.50) vs c2 ($10)"}


def test_relations_use_unordered_combinations_by_default(pizza_conversations):
    text = """
name: same_size_same_drink
description: symmetric relation
conversations: 2
then: (conv[0].size == conv[1].size) == (conv[0].drink == conv[1].drink)
"""
    [report] = run(rule(text), pizza_conversations).rules
    assert report.checks == 6  # C(4, 2)
    assert report.passed == 6


def test_bias_variant_k_conversations():
    people = [
        conversation(
            "f",
            inputs={"age": 30, "educational_level": "MSc", "gender": "f"},
            outputs={"profession": "engineer"},
        ),
        conversation(
            "m",
            inputs={"age": 30, "educational_level": "MSc", "gender": "m"},
            outputs={"profession": "manager"},
        ),
        conversation(
            "x",
            inputs={"age": 50, "educational_level": "BSc", "gender": "m"},
            outputs={"profession": "teacher"},
        ),
    ]
    text = """
name: check_gender_bias
description: the same profession whatever the gender
conversations: 2
when: (conv[0].age, conv[0].educational_level) == (conv[1].age, conv[1].educational_level)
then: conv[0].profession == conv[1].profession
"""
    [report] = run(rule(text), people).rules
    assert (report.checks, report.failed, report.not_applicable) == (3, 1, 2)
    assert report.results[0].conversations == ["f", "m"]


UNIQUE_IDS = """
name: unique_order_ids
description: order ids are never reused
conversations: all
then: is_unique('order_id')
"""


def test_global_uniqueness_passes_then_fails_naming_the_pair(pizza_conversations):
    [report] = run(rule(UNIQUE_IDS), pizza_conversations).rules
    assert report.status == "passed" and report.checks == 1
    duplicate = [*pizza_conversations, conversation("c5", outputs={"order_id": "b2"})]
    [report] = run(rule(UNIQUE_IDS), duplicate).rules
    assert report.status == "failed"
    assert report.results[0].reason == "conversations c2 and c5 both have order_id = 'b2'"


def test_a_second_global_rule_gets_a_fresh_filtered_set(pizza_conversations):
    second = UNIQUE_IDS.replace("unique_order_ids", "unique_again")
    reports = run([rule(UNIQUE_IDS), rule(second)], pizza_conversations).rules
    assert [r.status for r in reports] == ["passed", "passed"]


def test_global_existential_variants(pizza_conversations):
    exists = rule("""
name: some_expensive
description: at least one order above 50
conversations: all
then: exists('extract_float(price) > 50')
""")
    count = rule("""
name: two_cheap_small
description: exactly two small orders under 12
conversations: all
when: size == 'small'
then: num_exist('extract_float(price) < 12') == 2
""")
    first, second = run([exists, count], pizza_conversations).rules
    assert first.status == "failed"
    assert second.status == "passed"


def test_global_rule_with_an_empty_filtered_set_is_not_applicable(pizza_conversations):
    text = UNIQUE_IDS + "when: size == 'medium'\n"
    [report] = run(rule(text), pizza_conversations).rules
    assert report.status == "not_applicable"


# -- 4. text-analysis and process rules ------------------------------------------------------------------------

STAYS_ON_TOPIC = """
name: stays_on_topic
description: the chatbot only talks about the pizzeria
then: only_talks_about('pizza and drink orders, delivery, information about the shop')
"""


def _chat(conv_id, *lines):
    return conversation(conv_id, turns=list(lines))


def test_off_topic_replies_are_listed_by_the_judge():
    good = _chat(
        "good", ("user", "Do you like summer?"), ("bot", "Sorry, I can only help with pizza orders.")
    )
    bad = _chat("bad", ("user", "Do you like summer?"), ("bot", "Summer nights are the best, I love stars."))

    def topics(material):
        off = ["Summer nights are the best, I love stars."] if "I love stars" in material else []
        return {"off_topic": off, "explanation": "talks about the weather" if off else ""}

    judge = ScriptedJudge({"TopicAnswer": topics})
    report = run(rule(STAYS_ON_TOPIC), [good, bad], judge=judge)
    [result] = report.rules[0].results
    assert result.conversations == ["bad"]
    assert "Summer nights are the best" in result.reason and "talks about the weather" in result.reason
    assert report.judge == {"calls": 2, "cached": 0, "failures": 0}
    again = run(rule(STAYS_ON_TOPIC), [good, good.model_copy(update={"id": "copy"})], judge=judge)
    assert again.rules[0].passed == 2 and len(judge.questions) == 3  # same question asked once per run


def test_without_a_judge_llm_rules_say_so_and_do_not_fail():
    chat = _chat("a", ("user", "hi"), ("bot", "hello"))
    report = run(rule(STAYS_ON_TOPIC), [chat])
    [result] = report.rules
    assert result.status == "not_applicable"
    assert "no judge model configured" in next(iter(result.not_applicable_reasons))
    assert report.exit_code == 0


def test_confirmation_comes_after_the_order():
    chat = _chat("o", ("user", "A margherita please"), ("bot", "Your margherita is confirmed."))
    text = """
name: confirm_after_order
description: the assistant confirms after the user orders
then: utterance_index('user', 'orders a pizza') < utterance_index('assistant', 'confirms the pizza order')
"""

    def line(material):
        return {"line": 1 if "Speaker: User" in material else 2}

    [report] = run(rule(text), [chat], judge=ScriptedJudge({"LineAnswer": line})).rules
    assert report.status == "passed"

    def reversed_line(material):
        return {"line": 2 if "Speaker: User" in material else 1}

    [report] = run(rule(text), [chat], judge=ScriptedJudge({"LineAnswer": reversed_line})).rules
    assert report.status == "failed"


def test_no_empty_buttons():
    text = """
name: no_empty_buttons
description: every button has a link
then: "not chatbot_returns('LINK: <empty>')"
"""
    fine = conversation(
        "fine",
        turns=[("user", "menu"), ("bot", "Pick one")],
        buttons={1: [Button(label="Pizzas", url="https://shop.example/pizzas")]},
    )
    broken = conversation(
        "broken", turns=[("user", "menu"), ("bot", "Pick one")], buttons={1: [Button(label="Pizzas")]}
    )
    [report] = run(rule(text), [fine, broken]).rules
    assert (report.passed, report.failed) == (1, 1)
    assert report.results[0].reason == "chatbot_returns('LINK: <empty>') is [1]"


def test_no_repetition_with_tf_idf():
    text = """
name: no_repetition
description: no two replies are near-duplicates
then: not repeated_answers('tf-idf', threshold=0.75)
"""
    varied = _chat(
        "varied",
        ("user", "a"),
        ("bot", "Which size would you like?"),
        ("user", "b"),
        ("bot", "Your order is ready at Main Street."),
    )
    loop = _chat(
        "loop",
        ("user", "a"),
        ("bot", "Sorry, I did not understand that."),
        ("user", "b"),
        ("bot", "Sorry, I did not understand that!"),
    )
    [report] = run(rule(text), [varied, loop]).rules
    assert (report.passed, report.failed) == (1, 1)
    assert "Sorry, I did not understand that." in report.results[0].reason


def test_fact_check_with_semantic_content():
    text = """
name: fact_check_seat_price
description: the seat price is within the advertised range
then: semantic_content(seat_price, 'between $50 and $100')
"""
    cheap = conversation("cheap", outputs={"seat_price": "75 dollars"})
    dear = conversation("dear", outputs={"seat_price": "$250"})

    def agree(material):
        ok = "75 dollars" in material
        return {"agrees": ok, "explanation": "75 is in range" if ok else "250 is above 100"}

    [report] = run(rule(text), [cheap, dear], judge=ScriptedJudge({"AgreementAnswer": agree})).rules
    assert (report.passed, report.failed) == (1, 1)
    assert "250 is above 100" in report.results[0].reason
