"""Parley's reference chatbots: deterministic bots with known ground truth, for tests and the benchmark.

- `definition`: the YAML definition language (pydantic models, loader with file/path/line errors);
- `understanding`: keywords, synonyms, patterns, fuzzy matching and typed slot extraction (no LLM);
- `runtime`: `BotRuntime`, the per-conversation state machine (`start()`, `reply(text)`, `coverage`);
- `formula`: the safe arithmetic of prices and order ids;
- `groundtruth`: the manifest of a bot (modules, inputs, values, questions, templates, formulas);
- `coverage`: per-conversation logs and module / input / value / question coverage percentages;
- `mutation`: mutation operators producing load-checked mutant definitions;
- `registry`: bot ids -> definition files (package data) and `open_bot`;
- `server`: HTTP servers speaking Taskyto's protocol or a plain JSON one, with fault injection.
"""

from __future__ import annotations

from engine.bots.coverage import CoverageLog, coverage_percentages
from engine.bots.definition import BotDefinition, DefinitionError, load_definition_text, parse_definition
from engine.bots.groundtruth import Manifest, build_manifest
from engine.bots.registry import (
    StillbornMutant,
    UnknownBot,
    UnknownMutant,
    bot_definition,
    bot_ids,
    load_bot,
    manifest,
    open_bot,
)
from engine.bots.runtime import BotCrash, BotRuntime, Reply

__all__ = [
    "BotCrash",
    "BotDefinition",
    "BotRuntime",
    "CoverageLog",
    "DefinitionError",
    "Manifest",
    "Reply",
    "StillbornMutant",
    "UnknownBot",
    "UnknownMutant",
    "bot_definition",
    "bot_ids",
    "build_manifest",
    "coverage_percentages",
    "load_bot",
    "load_definition_text",
    "manifest",
    "open_bot",
    "parse_definition",
]
