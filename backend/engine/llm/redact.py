"""Keeps API keys out of everything the gateway says: the gateway's name for the engine's one scrubber.

The scrubber itself lives in the engine's lowest layer (`engine.redact`, README D12) so that connectors,
transcripts and exports use the same one; `Redactor` is kept as the gateway's name for it.
"""

from __future__ import annotations

from engine.redact import MASK, Scrubber

Redactor = Scrubber

__all__ = ["MASK", "Redactor", "Scrubber"]
