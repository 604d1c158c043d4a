"""Generators: the candidate values of a variable (its `data`), computed once per plan.

- literal lists, with `any(<prompt>)` items filled by an `AnyResolver` (an LLM in a run; placeholders such as
  `<any: 2 animated films #1>` in a dry-run plan, so planning never spends money);
- numeric ranges: `min`, `min+step`, ... and always `max` itself, even off the grid (1..6 step 2 → 1, 3, 5, 6);
  int ranges default to step 1 with `max` included; `linspace: n` gives n evenly spaced floats, both ends included;
- dates, as ISO strings (YYYY-MM-DD): `custom` dates, `random: n` dates between 1900 and 2100, `set: ">today(n)"`
  / `"<today(n)"` (n dates within the next / previous 365 days of the plan's `today`), `range` by day/month/year
  steps, evenly spaced (`linspace(k)`) or `random: n` inside it, and `fake: n` impossible dates (month 13-99 or
  day 32-99) for negative tests;
- custom functions (local files only, see `localfiles.py`).
Randomness comes from the `random.Random` passed in, so a seeded plan is reproducible.
"""

from __future__ import annotations

import calendar
import random
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

from engine.sensei.profile import AnyRequest, DateData, FunctionData, ListData, RangeData, Scalar, Variable

AnyResolver = Callable[[Variable, AnyRequest, list[Scalar]], list[str]]


class GeneratorError(ValueError):
    """A generator could not produce its values (a custom function failed, an LLM list was empty...)."""


def placeholder_any(variable: Variable, request: AnyRequest, existing: list[Scalar]) -> list[str]:
    """What a dry-run plan shows for `any(...)`: one labelled placeholder per value the prompt asks for."""
    count = request.count or 1
    if count == 1:
        return [f"<any: {request.prompt}>"]
    return [f"<any: {request.prompt} #{i + 1}>" for i in range(count)]


def values_of(
    variable: Variable,
    *,
    rng: random.Random,
    today: date,
    any_values: AnyResolver = placeholder_any,
    base_dir: Path | None = None,
) -> list[Scalar]:
    data = variable.data
    if isinstance(data, ListData):
        values: list[Scalar] = list(data.items)
        for request in data.any:
            for item in any_values(variable, request, list(values)):
                if item not in values:
                    values.append(item)
        if not values:
            raise GeneratorError(f"variable {variable.name}: the list produced no values")
        return values
    if isinstance(data, RangeData):
        return _range(data, integer=variable.type == "int")
    if isinstance(data, DateData):
        return _dates(data, rng, today)
    if isinstance(data, FunctionData):
        from engine.sensei.localfiles import call_function_generator

        try:
            produced = call_function_generator(data, base_dir)
        except Exception as exc:  # noqa: BLE001 - the user's own code: any failure becomes a clear message
            raise GeneratorError(f"variable {variable.name}: {data.function_name} failed: {exc}") from None
        if not produced:
            raise GeneratorError(f"variable {variable.name}: {data.function_name} returned no values")
        return produced
    raise GeneratorError(f"variable {variable.name}: unknown generator")


def _range(data: RangeData, *, integer: bool) -> list[Scalar]:
    if data.linspace is not None:
        n = data.linspace
        return [round(data.min + (data.max - data.min) * i / (n - 1), 10) for i in range(n)]
    step = data.step or 1.0
    values: list[float] = []
    current = data.min
    index = 0
    while current <= data.max + 1e-9:
        values.append(round(current, 10))
        index += 1
        current = data.min + index * step  # multiply, never accumulate: no drift over long ranges
    if not values or abs(values[-1] - data.max) > 1e-9:
        values.append(data.max)
    result: list[Scalar] = [int(v) for v in values] if integer else list(values)
    return result


def _add_months(day: date, months: int) -> date:
    month_index = day.month - 1 + months
    year, month = day.year + month_index // 12, month_index % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def _random_day(rng: random.Random, low: date, high: date) -> date:
    return low + timedelta(days=rng.randint(0, max(0, (high - low).days)))


def _dates(data: DateData, rng: random.Random, today: date) -> list[Scalar]:
    days: list[str] = list(data.custom)
    if data.random:
        days += [
            _random_day(rng, date(1900, 1, 1), date(2100, 12, 31)).isoformat() for _ in range(data.random)
        ]
    for item in data.relative:
        text = item.replace(" ", "")
        count = int(text[text.index("(") + 1 : text.index(")")])
        if text.startswith(">"):
            days += [
                _random_day(rng, today + timedelta(days=1), today + timedelta(days=365)).isoformat()
                for _ in range(count)
            ]
        else:
            days += [
                _random_day(rng, today - timedelta(days=365), today - timedelta(days=1)).isoformat()
                for _ in range(count)
            ]
    if data.range is not None:
        low, high = date.fromisoformat(data.range.min), date.fromisoformat(data.range.max)
        if high < low:
            low, high = high, low
        if data.range.random:
            days += [_random_day(rng, low, high).isoformat() for _ in range(data.range.random)]
        step = (data.range.step or "day(1)").replace(" ", "")
        unit, amount = step[: step.index("(")], int(step[step.index("(") + 1 : step.index(")")])
        if data.range.step is not None or not data.range.random:
            days += _date_steps(low, high, unit, max(1, amount))
    if data.fake:
        for _ in range(data.fake):
            year = rng.randint(1900, 2100)
            if rng.random() < 0.5:
                days.append(f"{year:04d}-{rng.randint(13, 99):02d}-{rng.randint(1, 28):02d}")
            else:
                days.append(f"{year:04d}-{rng.randint(1, 12):02d}-{rng.randint(32, 99):02d}")
    return list(dict.fromkeys(days))


def _date_steps(low: date, high: date, unit: str, amount: int) -> list[str]:
    if unit == "linspace":
        if amount == 1:
            return [low.isoformat()]
        span = (high - low).days
        return [(low + timedelta(days=round(span * i / (amount - 1)))).isoformat() for i in range(amount)]
    result: list[str] = []
    index = 0
    current = low
    while current <= high and len(result) < 100_000:
        result.append(current.isoformat())
        index += 1
        if unit == "day":
            current = low + timedelta(days=index * amount)
        elif unit == "month":
            current = _add_months(low, index * amount)
        else:
            current = _add_months(low, 12 * index * amount)
    return result
