"""Model prices and what a call costs.

Prices live in `prices.yaml` (USD per 1M input and output tokens) so updating them is a data change. Lookup
is by model family: a key matches its own name and variants that continue with "-", ":" or "@" (dated
snapshots, "-preview" suffixes), the longest key wins, and a model matching nothing has an unknown cost
(`None`) rather than a guessed one: a wrong figure shown as a fact is worse than an honest gap.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ruamel.yaml import YAML

_SEPARATORS = ("-", ":", "@")


@dataclass(frozen=True)
class Price:
    input_per_million: float
    output_per_million: float

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input_per_million + completion_tokens * self.output_per_million) / 1e6


class PriceTable:
    """Immutable mapping from model family to `Price`; `for_model` does the family matching."""

    def __init__(self, prices: Mapping[str, Price], as_of: str = "") -> None:
        self._prices = {key.lower(): price for key, price in prices.items()}
        self.as_of = as_of

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> PriceTable:
        """From the YAML layout: `{as_of, models: {name: {input, output}}}`."""
        models = data.get("models") or {}
        prices = {
            str(name): Price(float(entry["input"]), float(entry["output"])) for name, entry in models.items()
        }
        return cls(prices, str(data.get("as_of", "")))

    @classmethod
    def default(cls) -> PriceTable:
        """The table shipped with Parley (package data `engine/llm/prices.yaml`), read once per process."""
        return _shipped_table()

    def with_prices(self, extra: Mapping[str, Price]) -> PriceTable:
        """A copy with more or corrected entries, e.g. a free local model a user priced at zero."""
        return PriceTable({**self._prices, **{k.lower(): v for k, v in extra.items()}}, self.as_of)

    def for_model(self, model: str | None) -> Price | None:
        if not model:
            return None
        name = model.strip().lower()
        # Routers and Gemini prefix ids ("openai/gpt-4o", "models/gemini-2.5-flash"); the family is the tail.
        name = name.rsplit("/", 1)[-1]
        best: str | None = None
        for key in self._prices:
            matches = name == key or (name.startswith(key) and name[len(key)] in _SEPARATORS)
            if matches and (best is None or len(key) > len(best)):
                best = key
        return self._prices[best] if best is not None else None

    def cost(
        self, model: str | None, prompt_tokens: int | None, completion_tokens: int | None
    ) -> float | None:
        """USD for one call, or None when the model's price or the token counts are unknown."""
        price = self.for_model(model)
        if price is None or prompt_tokens is None or completion_tokens is None:
            return None
        return price.cost(prompt_tokens, completion_tokens)


@functools.cache
def _shipped_table() -> PriceTable:
    # Safe to share: a PriceTable is never changed after construction (`with_prices` returns a copy).
    text = resources.files("engine.llm").joinpath("prices.yaml").read_text(encoding="utf-8")
    return PriceTable.from_mapping(YAML(typ="safe", pure=True).load(text))
