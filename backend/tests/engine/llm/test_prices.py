"""Prices: family matching, unknown models, and the shipped data file."""

from __future__ import annotations

import pytest

from engine.llm import Price, PriceTable


@pytest.fixture(scope="module")
def table() -> PriceTable:
    return PriceTable.default()


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4o", Price(2.50, 10.00)),
        ("gpt-4o-2024-08-06", Price(2.50, 10.00)),
        ("gpt-4o-mini-2024-07-18", Price(0.15, 0.60)),  # the longer family wins
        ("GPT-4.1-MINI", Price(0.40, 1.60)),
        ("models/gemini-2.5-flash", Price(0.30, 2.50)),  # Gemini's listing prefix
        ("gemini-2.5-flash-lite-preview-06-17", Price(0.10, 0.40)),
        ("openai/gpt-4o-mini", Price(0.15, 0.60)),  # router prefix
    ],
)
def test_a_model_is_priced_by_its_family(table, model, expected):
    assert table.for_model(model) == expected


@pytest.mark.parametrize("model", ["llama3.1:8b", "gpt-4.5-preview", "gpt-4ox", "", None, "o"])
def test_an_unknown_model_has_an_unknown_price_not_a_guess(table, model):
    assert table.for_model(model) is None
    assert table.cost(model, 1000, 1000) is None


def test_cost_is_per_million_tokens_for_input_and_output_separately(table):
    assert table.cost("gpt-4.1", 1_000_000, 500_000) == pytest.approx(2.00 + 4.00)
    assert table.cost("gpt-4.1", None, 10) is None


def test_the_shipped_table_says_when_it_was_written_and_prices_the_default_models(table):
    assert table.as_of
    for model in ("gpt-4.1-mini", "gemini-2.5-flash"):
        assert table.for_model(model) is not None


def test_extra_prices_add_to_the_table_without_changing_it(table):
    local = table.with_prices({"llama3.1": Price(0, 0)})
    assert local.cost("llama3.1:8b", 10_000, 10_000) == 0
    assert table.for_model("llama3.1:8b") is None
