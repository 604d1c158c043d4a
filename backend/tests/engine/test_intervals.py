"""Wilson intervals and Newcombe's interval of a difference (`engine.intervals`, the one helper every figure with an
interval uses): values from the published tables, and the two rounded forms the reports print."""

from __future__ import annotations

import pytest

from engine.intervals import difference, wilson


def test_wilson_interval_matches_published_values():
    # Newcombe (1998), table I: 81 of 263 → 0.2553 to 0.3662; 15 of 148 → 0.0624 to 0.1605.
    first = wilson(81, 263)
    assert (round(first.low, 4), round(first.high, 4)) == (0.2553, 0.3662)
    second = wilson(15, 148)
    assert (round(second.low, 4), round(second.high, 4)) == (0.0624, 0.1605)


def test_wilson_is_exact_at_the_edges_and_wide_with_few_conversations():
    all_passed = wilson(12, 12)
    assert all_passed.high == 1.0 and round(all_passed.low, 4) == 0.7575
    none = wilson(0, 3)
    assert none.low == 0.0 and round(none.high, 4) == 0.5615
    nothing = wilson(0, 0)
    assert (nothing.rate, nothing.low, nothing.high) == (None, 0.0, 1.0)
    with pytest.raises(ValueError):
        wilson(4, 3)


def test_newcombe_difference_matches_the_published_example():
    # Newcombe (1998), table II, example (a): 56/70 - 48/80 → 0.0524 to 0.3339 (method 10).
    change = difference(wilson(48, 80), wilson(56, 70))
    assert round(change.delta or 0, 4) == 0.2
    assert (round(change.low or 0, 4), round(change.high or 0, 4)) == (0.0524, 0.3339)
    assert change.significant_rise and not change.significant_drop


def test_a_drop_needs_enough_conversations_to_be_significant():
    assert difference(wilson(5, 5), wilson(0, 5)).significant_drop
    assert difference(wilson(2, 2), wilson(0, 2)).significant_drop
    assert not difference(wilson(1, 1), wilson(0, 1)).significant_drop
    assert difference(wilson(0, 0), wilson(3, 3)).delta is None


def test_the_rounded_forms_the_reports_print():
    # 0 of 4: the upper bound is z²/(n + z²) = 0.4899; 5 of 10 is symmetric around one half.
    assert wilson(0, 4).bounds() == [0.0, 0.4899]
    assert wilson(5, 10).bounds() == [0.2366, 0.7634]
    assert wilson(5, 10).percent_bounds() == [23.66, 76.34]
    assert wilson(10, 10).percent_bounds() == [72.25, 100.0]
    assert wilson(0, 10).percent_bounds() == [0.0, 27.75]
    # Nothing decided: no interval to print (the Rate itself still spans [0, 1]).
    assert wilson(0, 0).bounds() is None and wilson(0, 0).percent_bounds() is None
