"""A cancel that arrives while an engine runs, for the tests of each engine's cancellation."""

from __future__ import annotations

from engine.context import CancelToken


class CancelAfter(CancelToken):
    """Not cancelled the first `asks` times the engine looks, cancelled from then on; counts the looks."""

    def __init__(self, asks: int) -> None:
        super().__init__()
        self.asks = asks
        self.asked = 0

    @property
    def cancelled(self) -> bool:
        self.asked += 1
        return self.asked > self.asks
